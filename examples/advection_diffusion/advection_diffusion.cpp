// Advection-diffusion of a scalar c in a box with zero-flux walls, a finite-volume simkit
// model in one file:
//
//   dc/dt + div(a c - D grad c) = 0
//
// with a constant velocity a and diffusivity D, on a 2D or 3D grid. Each cell's change is the
// difference of the fluxes through its faces (first-order upwind for a c, central for
// D grad c), and a wall is a face whose flux is zero, so the total amount of c stays what it
// was, to rounding, while the walls stop it. Explicit Euler in time; one process or split
// over ranks (mpirun), with the same bits. docs/writing-a-model.md, section 12, walks
// through the flux form; the rest is as in examples/gray_scott.
#include <simkit/model.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace advection_diffusion {

using namespace sim;

/// The flux of c through the face between two neighbouring cells of dimension d (right at the
/// higher index), per unit area: upwind advection plus diffusion down the gradient.
template <class T, int Rank>
struct UpwindFlux {
  T a[Rank];       ///< velocity
  T D;             ///< diffusivity
  T inv_dx[Rank];  ///< 1 / dx

  SIM_INLINE T operator()(int d, T left, T right) const {
    const T advected = a[d] > T(0) ? a[d] * left : a[d] * right;
    return advected - D * (right - left) * inv_dx[d];
  }
};

/// One explicit Euler step in flux form: cn = c - dt div F, with F = 0 through walls.
template <class T, int Rank>
struct FluxStep {
  UpwindFlux<T, Rank> flux;
  Spacing<T, Rank> h;
  T dt;

  template <class Cell>
  SIM_INLINE void operator()(const Cell& x, Walls walls) const {
    const Star<T, Rank>& c = x.in[0];
    x.write(0, c.c - dt * flux_divergence(c, flux, h, walls));
  }
};

/// The initial state: a Gaussian blob, amplitude exp(-r^2 / (2 width^2)), at global indices.
template <class T, int Rank>
struct InitBlob {
  View<T, Rank> c;
  Grid<Rank> grid;             ///< the whole grid
  index_t offset[Rank] = {};   ///< global index of this rank's first cell
  double center[Rank] = {};
  double width = 0, amplitude = 0;

  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    const index_t p[Rank] = {index_t(i)...};
    double r2 = 0;
    for (int d = 0; d < Rank; ++d) {
      const double r = grid.center(d, p[d] + offset[d]) - center[d];
      r2 += r * r;
    }
    c(i...) = T(amplitude * ::exp(-r2 / (2 * width * width)));
  }
};

template <class T, int Rank>
class AdvectionDiffusion final : public Model {
 public:
  explicit AdvectionDiffusion(const ModelSetup& setup)
      : ctx_(setup.ctx), comm_(setup.comm), sub_(subdomain_of<Rank>(setup)), global_(setup.grid.grid<Rank>()),
        grid_(box_grid(global_, sub_)), h_(Spacing<T, Rank>::of(grid_)), c_(ctx_, grid_), cn_(ctx_, grid_),
        bc_(boundary_from_config<Rank>(*setup.config)),
        ghost_bc_(wall_ghosts_copy_cells(bc_)),
        walls_(wall_faces(bc_, sub_)),
        faces_(last_dim_faces<T>(ghost_bc_, grid_, sub_)),
        halo_(comm_, sub_, grid_.ghost, ctx_) {
    const io::Config& c = *setup.config;
    const std::vector<double>& a = c.reals("model", "velocity");
    const std::vector<double>& center = c.reals("model", "center");
    if (int(a.size()) != Rank)
      throw c.error_at("model", "velocity", "give " + std::to_string(Rank) + " components for a " +
                                                std::to_string(Rank) + "D grid");
    if (int(center.size()) != Rank)
      throw c.error_at("model", "center", "give " + std::to_string(Rank) + " coordinates for a " +
                                              std::to_string(Rank) + "D grid");
    for (int d = 0; d < Rank; ++d) a_[d] = a[d], center_[d] = center[d];
    D_ = c.real("model", "D");
    width_ = c.real("model", "width");
    amplitude_ = c.real("model", "amplitude");
  }

  std::vector<FieldRef> fields() override { return {field_ref("c", "", c_, sub_, global_.cells)}; }

  void initialize() override {
    InitBlob<T, Rank> init{c_.view(), global_};
    for (int d = 0; d < Rank; ++d) init.offset[d] = sub_.offset[d], init.center[d] = center_[d];
    init.width = width_, init.amplitude = amplitude_;
    for_each(ctx_, "advection_diffusion::init", grid_.interior(), init);
  }

  void step(double dt) override {
    // periodic faces' ghosts (walls' ghosts just copy the cell: no flux crosses a wall, so
    // they are never used), then the faces shared with other ranks; the pass applies the
    // last dimension's rules itself (faces_) and zero flux at the walls (walls_)
    fill_ghosts(c_, ghost_bc_, Rank - 1);
    UpwindFlux<T, Rank> flux{};
    for (int d = 0; d < Rank; ++d) flux.a[d] = T(a_[d]), flux.inv_dx[d] = h_.inv_dx[d];
    flux.D = T(D_);
    const FluxStep<T, Rank> update{flux, h_, T(dt)};
    halo_.overlapped(c_, grid_.interior(), [&](const Box<Rank>& b) {
      flux_pass(ctx_, "advection_diffusion::step", b, walls_, update, reads(c_), writes(cn_), faces_);
    });
    std::swap(c_, cn_);
  }

  /// The explicit limit of upwind advection and central diffusion:
  /// dt <= 1 / (sum_d |a_d| / dx_d + 2 D sum_d 1 / dx_d^2).
  double stable_dt() const override {
    double s = 0;
    for (int d = 0; d < Rank; ++d) s += std::fabs(a_[d]) / grid_.dx[d] + 2 * D_ / (grid_.dx[d] * grid_.dx[d]);
    return s > 0 ? 1.0 / s : std::numeric_limits<double>::infinity();
  }

  /// mass: the integral of c over the domain (conserved between walls); min and max of c.
  std::vector<Diagnostic> diagnostics() override {
    double volume = 1;
    for (int d = 0; d < Rank; ++d) volume *= global_.dx[d];
    return {{"mass", "", comm_.sum(double(sum(c_))) * volume},
            {"min_c", "", comm_.min(double(min(c_)))},
            {"max_c", "", comm_.max(double(max(c_)))}};
  }

  double cell_updates_per_step() const override { return double(global_.size()); }
  /// A step reads c and writes cn once.
  double bytes_per_step() const override { return 2.0 * double(global_.size()) * double(sizeof(T)); }

 private:
  Context ctx_;
  Comm comm_;
  Subdomain sub_;          // this rank's box (the whole grid on one process)
  Grid<Rank> global_;      // the whole grid
  Grid<Rank> grid_;        // this rank's box of it
  Spacing<T, Rank> h_;
  Field<T, Rank> c_, cn_;
  Boundary<Rank> bc_;      // wall or periodic per face
  Boundary<Rank> ghost_bc_;  // the same with walls as zero-gradient faces, for the ghost fill
  Walls walls_;            // the zero-flux faces of this rank's box
  LastDimFaces<T> faces_;  // the last dimension's ghost rules on the global boundary
  Halo<T, Rank> halo_;
  double a_[Rank] = {}, center_[Rank] = {};
  double D_ = 0, width_ = 0, amplitude_ = 0;
};

template <class T>
std::unique_ptr<Model> make(const ModelSetup& s) {
  if (s.grid.rank == 2) return std::make_unique<AdvectionDiffusion<T, 2>>(s);
  return std::make_unique<AdvectionDiffusion<T, 3>>(s);
}

}  // namespace advection_diffusion

sim::ModelInfo advection_diffusion_info() {
  using sim::io::Param;
  sim::ModelInfo m;
  m.name = "advection_diffusion";
  m.doc = "advection-diffusion of a scalar, finite volumes (upwind), zero-flux walls, 2D/3D, explicit Euler";
  m.uses_boundary = true;
  m.boundary_kinds = {"wall", "periodic"};
  m.boundary_default = "wall";
  m.boundary_value_doc = "";  // neither kind takes a value
  m.parallel = sim::Parallel::grid;
  m.ranks = {2, 3};
  m.schema.section = "model";
  m.schema.doc = "advection-diffusion parameters";
  auto p = [&](Param q) { m.schema.params.push_back(std::move(q)); };
  p(Param::reals("velocity", {0.5, 0.25}).lengths(2, 3).in("m/s").says("constant velocity a, one component per dimension"));
  p(Param::real("D", 1e-3).at_least(0).in("m^2/s").says("diffusivity"));
  p(Param::string("init", "blob").one_of({"blob"}).says("initial state: a Gaussian blob of c"));
  p(Param::reals("center", {0.3, 0.3}).lengths(2, 3).in("m").says("centre of the blob"));
  p(Param::real("width", 0.05).positive().in("m").says("standard deviation of the blob"));
  p(Param::real("amplitude", 1).positive().says("peak value of c"));
  m.create = [](const sim::ModelSetup& s) -> std::unique_ptr<sim::Model> {
    return s.float64 ? advection_diffusion::make<double>(s) : advection_diffusion::make<float>(s);
  };
  return m;
}

SIMKIT_PLUGIN(registry) { registry.add(advection_diffusion_info()); }
