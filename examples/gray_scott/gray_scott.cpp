// Gray-Scott reaction-diffusion, a simkit model in one file. Two chemicals u and v diffuse
// and react (U + 2V -> 3V, u fed towards 1, v removed):
//
//   du/dt = Du lap(u) - u v^2 + F (1 - u)
//   dv/dt = Dv lap(v) + u v^2 - (F + k) v
//
// On a 2D or 3D grid, explicit Euler in time, on one process or split over ranks (mpirun):
// the same bits either way. Built out of tree against the installed
// package (CMakeLists.txt next to this file) into libgray_scott.so, which `simulate` loads
// through `[run] plugins = [...]`. docs/writing-a-model.md walks through this file.
#include <simkit/model.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gray_scott {

using namespace sim;

// ---- kernels: functors at namespace scope that hold only views and plain values. One
// templated operator() serves 2D (i, j) and 3D (i, j, k): nvcc does not accept generic
// (auto) device lambdas, so a rank-generic kernel is a functor.

/// The reaction parameters, in the fields' precision.
template <class T>
struct Rates {
  T Du, Dv, F, k;
};

/// One explicit Euler step of both fields at one cell, as the core's stencil pass calls it:
/// x.in[0] and x.in[1] are u and v around the cell (the cell and its face neighbours),
/// x.write(0 / 1, ...) sets un and vn there. The pass runs it in the tuned tiled kernel on
/// the GPU and through for_each on the CPU.
template <class T, int Rank>
struct EulerStep {
  Spacing<T, Rank> h;
  Rates<T> p;
  T dt;

  template <class Cell>
  SIM_INLINE void operator()(const Cell& x) const {
    const Star<T, Rank>& u = x.in[0];
    const Star<T, Rank>& v = x.in[1];
    const T uvv = u.c * v.c * v.c;
    x.write(0, u.c + dt * (p.Du * laplacian(u, h) - uvv + p.F * (T(1) - u.c)));
    x.write(1, v.c + dt * (p.Dv * laplacian(v, h) + uvv - (p.F + p.k) * v.c));
  }
};

/// The initial state: u = 1, v = 0, but u = 1/2, v = 1/4 in the seed squares (cubes in 3D),
/// plus noise; seed centres are fractions of the domain, drawn at random. Evaluated at global
/// indices (local cell i is global cell i + offset), so a split does not change it.
template <class T, int Rank>
struct InitSpots {
  View<T, Rank> u, v;
  View<const T, Rank> noise_u, noise_v;
  View<const T, 1> centers;  ///< seed s, dimension d at s * Rank + d, in (0, 1)
  Grid<Rank> grid;           ///< the whole grid
  index_t offset[Rank] = {};  ///< global index of this rank's first cell
  int seeds = 0;
  double half_side = 0;
  double length[Rank] = {};
  bool periodic[Rank] = {};  ///< periodic dimensions: a seed on the edge wraps around

  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    const bool seeded = in_seed(i...);
    u(i...) = (seeded ? T(0.5) : T(1)) + noise_u(i...);
    v(i...) = (seeded ? T(0.25) : T(0)) + noise_v(i...);
  }

  template <class... I>
  SIM_INLINE bool in_seed(I... idx) const {
    const index_t p[Rank] = {idx...};
    for (int s = 0; s < seeds; ++s) {
      bool inside = true;
      for (int d = 0; d < Rank && inside; ++d) {
        double r = grid.center(d, p[d] + offset[d]) - (grid.origin[d] + double(centers(s * Rank + d)) * length[d]);
        if (periodic[d]) r -= length[d] * ::floor(r / length[d] + 0.5);  // nearest periodic image
        inside = r >= -half_side && r <= half_side;
      }
      if (inside) return true;
    }
    return false;
  }
};

// ---- the model: owns the fields, reads the config, calls the kernels

template <class T, int Rank>
class GrayScott final : public Model {
 public:
  explicit GrayScott(const ModelSetup& setup)
      : ctx_(setup.ctx), comm_(setup.comm), sub_(subdomain_of<Rank>(setup)), global_(setup.grid.grid<Rank>()),
        grid_(box_grid(global_, sub_)), h_(Spacing<T, Rank>::of(grid_)),
        u_(ctx_, grid_), v_(ctx_, grid_), un_(ctx_, grid_), vn_(ctx_, grid_),
        bc_(boundary_from_config<Rank>(*setup.config)),
        faces_(last_dim_faces<T>(bc_, grid_, sub_)), halo_(comm_, sub_, grid_.ghost, ctx_) {
    const io::Config& c = *setup.config;
    Du_ = c.real("model", "Du"), Dv_ = c.real("model", "Dv");
    F_ = c.real("model", "F"), k_ = c.real("model", "k");
    seeds_ = int(c.integer("model", "seeds"));
    seed_size_ = c.real("model", "seed_size");
    noise_ = c.real("model", "noise");
    for (int d = 0; d < Rank; ++d)
      if (seed_size_ > global_.dx[d] * double(global_.cells.n[d]))
        throw c.error_at("model", "seed_size", "a seed is larger than the domain in dimension " + std::to_string(d) +
                                                   "; choose a seed_size below the grid length");
  }

  // each rank's box goes at its offset in the whole grid's snapshots and checkpoints
  std::vector<FieldRef> fields() override {
    return {field_ref("u", "", u_, sub_, global_.cells), field_ref("v", "", v_, sub_, global_.cells)};
  }

  void initialize() override {
    // Random numbers come from the run's context: the same run.seed gives the same spots,
    // on the GPU and on the CPU. Every rank draws the same seed centres; the noise is keyed
    // by the global cell index (fill_uniform of a field with this rank's box), so each cell
    // gets the same draw on any number of ranks.
    Array<T, 1> centers(ctx_, extents(index_t(seeds_) * Rank));
    Field<T, Rank> noise_u(ctx_, grid_), noise_v(ctx_, grid_);
    fill_uniform(centers);
    if (noise_ > 0) {
      fill_uniform(noise_u, sub_, global_.cells, T(-noise_), T(noise_));
      fill_uniform(noise_v, sub_, global_.cells, T(-noise_), T(noise_));
    } else {
      noise_u.fill(T(0)), noise_v.fill(T(0));
    }
    InitSpots<T, Rank> init{u_.view(), v_.view(), noise_u.view(), noise_v.view(), centers.view(), global_};
    init.seeds = seeds_;
    init.half_side = 0.5 * seed_size_;
    for (int d = 0; d < Rank; ++d) {
      init.offset[d] = sub_.offset[d];
      init.length[d] = global_.dx[d] * double(global_.cells.n[d]);
      init.periodic[d] = bc_.lo[d].kind == BcKind::periodic;
    }
    for_each(ctx_, "gray_scott::init", grid_.interior(), init);
  }

  void step(double dt) override {
    // ghosts of every face but the last dimension's, whose rules the pass applies itself
    // (faces_, on the global boundary only): a separate fill of those strided faces touches
    // one sector per row, twice. Then the faces shared with other ranks get their cells.
    fill_ghosts(u_, bc_, Rank - 1);
    fill_ghosts(v_, bc_, Rank - 1);
    halo_.exchange(u_);
    halo_.exchange(v_);
    const Rates<T> rates{T(Du_), T(Dv_), T(F_), T(k_)};
    stencil_pass(ctx_, "gray_scott::step", grid_.interior(), EulerStep<T, Rank>{h_, rates, T(dt)}, reads(u_, v_),
                 writes(un_, vn_), faces_);
    std::swap(u_, un_);
    std::swap(v_, vn_);
  }

  /// The explicit diffusion limit: dt <= 1 / (2 max(Du, Dv) sum_d 1/dx_d^2).
  double stable_dt() const override {
    const double D = std::max(Du_, Dv_);
    double s = 0;
    for (int d = 0; d < Rank; ++d) s += 1.0 / (grid_.dx[d] * grid_.dx[d]);
    return D > 0 ? 1.0 / (2.0 * D * s) : std::numeric_limits<double>::infinity();
  }

  /// Over the whole grid: sums, minima and maxima of every rank's box, reduced over the ranks.
  std::vector<Diagnostic> diagnostics() override {
    const double n = double(global_.size());
    const double mean_v = comm_.sum(double(sum(v_))) / n;
    const double var_v = comm_.sum(double(sum((v_ - T(mean_v)) * (v_ - T(mean_v))))) / n;
    return {{"mean_u", "", comm_.sum(double(sum(u_))) / n},
            {"mean_v", "", mean_v},
            {"min_v", "", comm_.min(double(min(v_)))},
            {"max_v", "", comm_.max(double(max(v_)))},
            {"std_v", "", std::sqrt(var_v)}};
  }

  double cell_updates_per_step() const override { return double(global_.size()); }
  /// A step reads u and v and writes un and vn once: 4 fields.
  double bytes_per_step() const override { return 4.0 * double(global_.size()) * double(sizeof(T)); }

 private:
  Context ctx_;
  Comm comm_;            // the ranks of the run (one without mpirun)
  Subdomain sub_;        // this rank's box: cells, global offset, neighbours (the whole grid on one)
  Grid<Rank> global_;    // the whole grid
  Grid<Rank> grid_;      // this rank's box of it
  Spacing<T, Rank> h_;
  Field<T, Rank> u_, v_, un_, vn_;
  Boundary<Rank> bc_;
  LastDimFaces<T> faces_;  // the last dimension's boundary rules on the global boundary, applied by the pass
  Halo<T, Rank> halo_;     // exchanges the faces shared with other ranks
  double Du_ = 0, Dv_ = 0, F_ = 0, k_ = 0, seed_size_ = 0, noise_ = 0;
  int seeds_ = 0;
};

template <class T>
std::unique_ptr<Model> make(const ModelSetup& s) {
  if (s.grid.rank == 2) return std::make_unique<GrayScott<T, 2>>(s);
  return std::make_unique<GrayScott<T, 3>>(s);
}

}  // namespace gray_scott

// ---- registration: the name, the parameters the [model] section accepts, the factory

sim::ModelInfo gray_scott_info() {
  using sim::io::Param;
  sim::ModelInfo m;
  m.name = "gray_scott";
  m.doc = "Gray-Scott reaction-diffusion (u + 2v -> 3v), 2D/3D, explicit Euler";
  m.uses_boundary = true;
  m.ranks = {2, 3};
  m.parallel = sim::Parallel::grid;  // runs split over mpirun's ranks, one box of the grid each
  m.schema.section = "model";
  m.schema.doc = "Gray-Scott parameters";
  auto p = [&](Param q) { m.schema.params.push_back(std::move(q)); };
  p(Param::real("Du", 2e-5).at_least(0).in("m^2/s").says("diffusivity of u"));
  p(Param::real("Dv", 1e-5).at_least(0).in("m^2/s").says("diffusivity of v"));
  p(Param::real("F", 0.04).at_least(0).in("1/s").says("feed rate: u is replenished towards 1 at rate F"));
  p(Param::real("k", 0.06).at_least(0).in("1/s").says("kill rate: v is removed at rate F + k"));
  p(Param::string("init", "spots").one_of({"spots"})
     .says("initial state: u = 1, v = 0, with square seeds where u = 1/2, v = 1/4"));
  p(Param::integer("seeds", 10).range(0, 1e6).says("number of seeds, placed at random (run.seed)"));
  p(Param::real("seed_size", 0.2).at_least(0).in("m").says("side of a seed square (cube in 3D)"));
  p(Param::real("noise", 0.01).range(0, 1).says("uniform noise in [-noise, noise] added to u and v everywhere"));
  m.create = [](const sim::ModelSetup& s) -> std::unique_ptr<sim::Model> {
    return s.float64 ? gray_scott::make<double>(s) : gray_scott::make<float>(s);
  };
  return m;
}

SIMKIT_PLUGIN(registry) { registry.add(gray_scott_info()); }
