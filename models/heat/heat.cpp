// Heat diffusion model. One fused pass per explicit stage (ghost fill, then
// heat::explicit_stage on the core's stencil pass: u + dt (alpha lap u + s)); the implicit schemes solve
// (I - theta dt alpha L) u' = rhs with matrix-free CG from solvers/.
#include "models/heat/heat.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/mesh/boundary.hpp"
#include "core/array/expr.hpp"
#include "core/distributed/halo.hpp"
#include "core/mesh/stencil.hpp"
#include "io/config.hpp"
#include "io/hdf5_file.hpp"
#include "models/boundary_config.hpp"
#include "models/field_ref.hpp"
#include "models/heat/heat_stage.hpp"
#include "solvers/cg.hpp"
#include "solvers/time_integrators.hpp"

namespace sim {
namespace heat {

enum class Init { constant, gaussian, sine, cosine, hot_box };
enum class Source { none, constant, gaussian };

/// Shape parameters of an initial condition or source, in double (converted once per cell).
/// grid is the global grid; local index i is global index i + offset (this rank's box).
template <int Rank>
struct Profile {
  Grid<Rank> grid;
  index_t offset[Rank] = {};
  double base = 0, amplitude = 1, width = 0.1;
  double center[Rank] = {};
  double wavenumber[Rank] = {};  // k pi / L for sine and cosine modes
  int kind = 0;

  template <class... I>
  SIM_HOST_DEVICE double at(I... idx) const {
    const index_t p[Rank] = {idx...};
    double r2 = 0, box = 1, wave = 1;
    for (int d = 0; d < Rank; ++d) {
      const double x = grid.center(d, p[d] + offset[d]), s = x - center[d];
      r2 += s * s;
      if (s < -width || s > width) box = 0;
      const double phase = wavenumber[d] * (x - grid.origin[d]);
      wave *= kind == int(Init::sine) ? ::sin(phase) : ::cos(phase);
    }
    switch (Init(kind)) {
      case Init::constant: return base;
      case Init::gaussian: return base + amplitude * ::exp(-r2 / (2 * width * width));
      case Init::hot_box: return base + amplitude * box;
      default: return base + amplitude * wave;
    }
  }
};

template <class T, int Rank>
struct SetProfile {
  View<T, Rank> out;
  Profile<Rank> prof;
  template <class... I>
  SIM_INLINE void operator()(I... i) const { out(i...) = T(prof.at(i...)); }
};

/// out = x - c lap x: the implicit operator (ghosts of x hold homogeneous conditions).
template <class T, int Rank>
struct Implicit {
  View<const T, Rank> x;
  View<T, Rank> out;
  Spacing<T, Rank> s;
  T c;
  template <class... I>
  SIM_INLINE void operator()(I... i) const { out(i...) = x(i...) - c * laplacian(x, i..., s); }
};

/// rhs = u + c lap u + dt s + cb lbc: the implicit right-hand side.
template <class T, int Rank>
struct ImplicitRhs {
  View<const T, Rank> u, src, lbc;
  View<T, Rank> out;
  Spacing<T, Rank> s;
  T c, dt, cb;
  bool has_src, has_lbc;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    T r = u(i...) + c * laplacian(u, i..., s);
    if (has_src) r += dt * src(i...);
    if (has_lbc) r += cb * lbc(i...);
    out(i...) = r;
  }
};

/// lap of the field into out (used once for the inhomogeneous boundary term).
template <class T, int Rank>
struct Lap {
  View<const T, Rank> x;
  View<T, Rank> out;
  Spacing<T, Rank> s;
  template <class... I>
  SIM_INLINE void operator()(I... i) const { out(i...) = laplacian(x, i..., s); }
};

/// The time-stepping schemes, resolved from [model] scheme once at construction.
enum class Scheme { euler, rk2, crank_nicolson, backward_euler };
const char* const kSchemeNames[] = {"euler", "rk2", "crank_nicolson", "backward_euler"};

/// The scheme called name (one of kSchemeNames; the schema lists the same); throws Error otherwise.
inline Scheme scheme_of(const std::string& name) {
  for (int k = 0; k < 4; ++k)
    if (name == kSchemeNames[k]) return Scheme(k);
  throw Error("unknown heat scheme '" + name + "' (expected euler, rk2, crank_nicolson or backward_euler)");
}

template <class T, int Rank>
class HeatModel final : public Model {
 public:
  explicit HeatModel(const ModelSetup& setup)
      : ctx_(setup.ctx), comm_(setup.comm), sub_(subdomain_of<Rank>(setup)), global_(setup.grid.grid<Rank>()),
        grid_(box_grid(global_, sub_)), spacing_(Spacing<T, Rank>::of(grid_)), u_(ctx_, grid_), next_(ctx_, grid_),
        bc_(boundary_from_config<Rank>(*setup.config)), halo_(comm_, sub_, grid_.ghost, ctx_) {
    const io::Config& c = *setup.config;
    alpha_ = c.real("model", "alpha");
    scheme_ = scheme_of(c.string("model", "scheme"));
    cg_tol_ = c.real("model", "cg_tol");
    cg_max_ = int(c.integer("model", "cg_max_iterations"));
    init_kind_ = c.string("model", "init");
    init_ = profile(c, "init", c.real("model", "init_value"), c.real("model", "amplitude"), c.real("model", "width"),
                    c.reals("model", "center"));
    if (init_kind_ == "file") {
      init_file_ = c.string("model", "init_file");
      init_dataset_ = c.string("model", "init_dataset");
      // the field's name, or its HDF5 path in the file (/fields/NAME), as h5py users write it
      for (const char* prefix : {"/fields/", "fields/"})
        if (init_dataset_.rfind(prefix, 0) == 0) init_dataset_ = init_dataset_.substr(std::string(prefix).size());
      if (init_file_.empty()) throw c.error_at("model", "init_file", "init = \"file\" needs init_file = \"path.h5\"");
      read_initial_file(c);  // a bad file is bad input: found here, before the run writes anything
    }
    const std::string src = c.string("model", "source");
    if (src != "none") {
      source_ = Field<T, Rank>(ctx_, grid_);
      Profile<Rank> p = profile(c, "source", 0.0, c.real("model", "source_value"), c.real("model", "source_width"),
                                c.reals("model", "source_center"));
      p.kind = src == "constant" ? int(Init::constant) : int(Init::gaussian);
      if (src == "constant") p.base = c.real("model", "source_value");
      for_each(ctx_, "heat::source", grid_.interior(), SetProfile<T, Rank>{source_.view(), p});
      has_source_ = true;
    }
    if (implicit()) setup_implicit();
    else stage_ = Field<T, Rank>(ctx_, grid_);
  }

  std::vector<FieldRef> fields() override { return {field_ref("u", "K", u_, sub_, global_.cells)}; }

  void initialize() override {
    if (init_kind_ == "file") return load_initial_file();
    for_each(ctx_, "heat::init", grid_.interior(), SetProfile<T, Rank>{u_.view(), init_});
  }

  void step(double dt) override {
    const T tdt = T(dt);
    if (!implicit()) {
      auto update = [this](Field<T, Rank>& v, Field<T, Rank>& out, T h, T w, Field<T, Rank>& u0) {
        // every face but the last dimension's (the stage applies their rules itself); faces
        // shared with other ranks then get their cells
        fill_ghosts(v, bc_, Rank - 1);
        halo_.overlapped(v, grid_.interior(), [&](const Box<Rank>& b) { stage(v, out, h, w, u0, b); });
      };
      if (scheme_ == Scheme::euler) solvers::euler_step(update, u_, next_, tdt);
      else solvers::rk2_step(update, u_, stage_, next_, tdt);
    } else {
      implicit_step(tdt);
    }
    std::swap(u_, next_);
  }

  double stable_dt() const override {
    if (implicit()) return std::numeric_limits<double>::infinity();
    double sum = 0;
    for (int d = 0; d < Rank; ++d) sum += 1.0 / (grid_.dx[d] * grid_.dx[d]);
    return alpha_ > 0 ? 1.0 / (2.0 * alpha_ * sum) : std::numeric_limits<double>::infinity();
  }

  double default_dt(double cfl) const override {
    if (!implicit()) return cfl * stable_dt();
    double sum = 0;
    for (int d = 0; d < Rank; ++d) sum += 1.0 / (grid_.dx[d] * grid_.dx[d]);
    return alpha_ > 0 ? cfl / (2.0 * alpha_ * sum) : 1.0;
  }

  void check_dt(double dt) const override {
    if (dt > stable_dt()) {
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    "dt = %.6g is beyond the explicit stability limit; the largest stable dt for scheme '%s' on this "
                    "grid is %.6g: lower run.dt, or set model.scheme = \"crank_nicolson\" for larger steps",
                    dt, kSchemeNames[int(scheme_)], stable_dt());
      throw Error(buf);
    }
  }

  std::vector<Diagnostic> diagnostics() override {
    double cell = 1;
    for (int d = 0; d < Rank; ++d) cell *= grid_.dx[d];
    // on several ranks: per-rank sums added in rank order (the same bits for a given rank
    // count, rounding-level differences between counts); min and max are exact
    std::vector<Diagnostic> out = {{"total_heat", "K m^" + std::to_string(Rank), comm_.sum(double(sum(u_))) * cell},
                                   {"min", "K", comm_.min(double(min(u_)))},
                                   {"max", "K", comm_.max(double(max(u_)))}};
    if (implicit()) {
      out.push_back({"cg_iterations", "", double(last_cg_.iterations)});
      out.push_back({"cg_residual", "", last_cg_.residual});
    }
    return out;
  }

  double cell_updates_per_step() const override { return double(global_.size()); }
  /// Explicit schemes: each stage reads the field and writes the next (2 passes; rk2 has two
  /// stages). The implicit schemes' CG traffic depends on its iterations: not declared.
  double bytes_per_step() const override {
    if (implicit()) return 0;
    return (scheme_ == Scheme::rk2 ? 4.0 : 2.0) * double(global_.size()) * double(sizeof(T));
  }

 private:
  bool implicit() const { return scheme_ == Scheme::crank_nicolson || scheme_ == Scheme::backward_euler; }

  /// One explicit stage on the cells of box: out = w u0 + (1 - w)(v + h (alpha lap v + s)).
  void stage(Field<T, Rank>& v, Field<T, Rank>& out, T h, T w, Field<T, Rank>& u0, const Box<Rank>& box) {
    explicit_stage<T, Rank>(ctx_, grid_, box, v.view(), out.view(), u0.view(), src_view(), has_source_, T(alpha_), h,
                            w, ruled_faces());
  }
  /// The rules of the last dimension's physical faces of this rank's box (the stage applies
  /// them where its box touches them).
  LastDimFaces<T> ruled_faces() const {
    return last_dim_faces<T>(bc_, grid_, sub_);
  }
  View<const T, Rank> src_view() const { return has_source_ ? source_.view() : u_.view(); }

  Profile<Rank> profile(const io::Config& c, const std::string& what, double base, double amp, double width,
                        const std::vector<double>& center) const {
    Profile<Rank> p;
    p.grid = global_;
    for (int d = 0; d < Rank; ++d) p.offset[d] = sub_.offset[d];
    p.base = base, p.amplitude = amp, p.width = width;
    const std::string kind = what == "init" ? c.string("model", "init") : "gaussian";
    p.kind = kind == "constant" ? int(Init::constant)
             : kind == "sine"   ? int(Init::sine)
             : kind == "cosine" ? int(Init::cosine)
             : kind == "hot_box" ? int(Init::hot_box)
                                 : int(Init::gaussian);
    if (!center.empty() && center.size() != size_t(Rank))
      throw c.error_at("model", what == "init" ? "center" : "source_center",
                       "expected " + std::to_string(Rank) + " coordinates (one per grid dimension), found " +
                           std::to_string(center.size()));
    const auto& modes = c.integers("model", "modes");
    if (modes.size() != 1 && modes.size() != size_t(Rank))
      throw c.error_at("model", "modes", "expected 1 or " + std::to_string(Rank) + " mode numbers, found " +
                                             std::to_string(modes.size()));
    for (int d = 0; d < Rank; ++d) {
      const double length = global_.dx[d] * double(global_.cells.n[d]);
      p.center[d] = center.empty() ? global_.origin[d] + 0.5 * length : center[d];
      p.wavenumber[d] = double(modes.size() == 1 ? modes[0] : modes[d]) * M_PI / length;
    }
    return p;
  }

  // Reads and checks init_file (exists, HDF5, the dataset, its shape and type, finite values);
  // ConfigError at model.init_file naming the problem and a fix.
  void read_initial_file(const io::Config& c) {
    io::FieldData f;
    try {
      f = io::read_field(init_file_, init_dataset_);
    } catch (const Error& e) {
      throw c.error_at("model", "init_file", std::string(e.what()) +
                                                 "; expected a simkit snapshot or checkpoint holding field '" +
                                                 init_dataset_ + "' (model.init_dataset): fix the path or the name");
    }
    std::vector<std::int64_t> want;
    for (int d = 0; d < Rank; ++d) want.push_back(global_.cells.n[d]);
    if (f.shape != want)
      throw c.error_at("model", "init_file", "dataset '" + init_dataset_ + "' in " + init_file_ + " has shape " +
                                                 shape_text(f.shape) + " but the grid has " + shape_text(want) +
                                                 "; set grid.cells to the file's shape or use a file of this grid");
    init_values_ = f.as_double();
    for (std::size_t i = 0; i < init_values_.size(); ++i)
      if (!std::isfinite(init_values_[i]))
        throw c.error_at("model", "init_file", "dataset '" + init_dataset_ + "' in " + init_file_ + " holds " +
                                                   (std::isnan(init_values_[i]) ? "NaN" : "Inf") + " at flat index " +
                                                   std::to_string(i) + "; expected finite values: fix the file");
  }

  void load_initial_file() {
    const std::vector<double>& whole = init_values_;
    std::vector<double> d(std::size_t(grid_.size()));
    copy_box(whole.data(), Rank, global_.cells.n, sub_.offset, grid_.cells.n, sizeof(double), d.data());
    u_.copy_from_host(std::vector<T>(d.begin(), d.end()));
  }
  static std::string shape_text(const std::vector<std::int64_t>& s) {
    std::string t = "(";
    for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + ")";
  }

  void setup_implicit() {
    theta_ = scheme_ == Scheme::crank_nicolson ? 0.5 : 1.0;
    rhs_ = Field<T, Rank>(ctx_, grid_);
    residual_ = Field<T, Rank>(ctx_, grid_);
    p_ = Field<T, Rank>(ctx_, grid_);
    ap_ = Field<T, Rank>(ctx_, grid_);
    bc_zero_ = bc_;
    for (int d = 0; d < Rank; ++d) bc_zero_.lo[d].value = 0, bc_zero_.hi[d].value = 0;
    // Inhomogeneous faces make the operator affine: keep lap(0 with those ghosts) aside.
    bool inhomogeneous = false;
    for (int d = 0; d < Rank; ++d)
      inhomogeneous |= bc_.lo[d].kind != BcKind::periodic && (bc_.lo[d].value != 0 || bc_.hi[d].value != 0);
    if (inhomogeneous) {
      lbc_ = Field<T, Rank>(ctx_, grid_);
      p_.fill(T(0));
      fill_ghosts(p_, bc_);
      halo_.exchange(p_);
      for_each(ctx_, "heat::boundary_term", grid_.interior(), Lap<T, Rank>{p_.view(), lbc_.view(), spacing_});
      has_lbc_ = true;
    }
  }

  void implicit_step(T dt) {
    const T a = T(alpha_) * dt;
    fill_ghosts(u_, bc_);
    halo_.exchange(u_);
    for_each(ctx_, "heat::implicit_rhs", grid_.interior(),
             ImplicitRhs<T, Rank>{u_.view(), src_view(), has_lbc_ ? lbc_.view() : u_.view(), rhs_.view(), spacing_,
                                  T((1 - theta_) * a), dt, T(theta_ * a), has_source_, has_lbc_});
    next_.copy_from(u_);
    const T c = T(theta_ * a);
    auto apply = [this, c](Field<T, Rank>& x, Field<T, Rank>& out) {
      fill_ghosts(x, bc_zero_);
      halo_.exchange(x);
      for_each(ctx_, "heat::implicit_apply", grid_.interior(), Implicit<T, Rank>{x.view(), out.view(), spacing_, c});
    };
    last_cg_ = solvers::cg(apply, next_, rhs_, residual_, p_, ap_, cg_tol_, cg_max_, comm_);
    if (!last_cg_.converged) {
      char msg[512];
      const double floor = 100 * double(std::numeric_limits<T>::epsilon());
      if (last_cg_.stalled || last_cg_.iterations < cg_max_)  // stopped at rounding, not at the cap
        std::snprintf(msg, sizeof msg,
                      "heat: CG stalled at relative residual %g after %d iterations (the cap is %d), above cg_tol = %g: "
                      "rounding in %s stops it there%s; raise model.cg_tol",
                      last_cg_.residual, last_cg_.iterations, cg_max_, cg_tol_, sizeof(T) == 4 ? "float32" : "float64",
                      cg_tol_ < floor ? ", and cg_tol is below what this precision can reach" : "");
      else
        std::snprintf(msg, sizeof msg,
                      "heat: CG did not reach cg_tol = %g in %d iterations (relative residual %g); raise "
                      "model.cg_max_iterations or cg_tol, or lower run.dt",
                      cg_tol_, cg_max_, last_cg_.residual);
      throw Error(msg);
    }
  }

  Context ctx_;
  Comm comm_;
  Subdomain sub_;     // this rank's box (the whole grid on one rank)
  Grid<Rank> global_; // the whole grid
  Grid<Rank> grid_;   // this rank's box as a grid: the fields' shape
  Spacing<T, Rank> spacing_;
  Field<T, Rank> u_, next_, stage_, source_, rhs_, residual_, p_, ap_, lbc_;
  Boundary<Rank> bc_, bc_zero_;
  Halo<T, Rank> halo_;
  Profile<Rank> init_;
  Scheme scheme_ = Scheme::euler;
  std::string init_kind_, init_file_, init_dataset_;
  std::vector<double> init_values_;  // init = "file": the whole field, read and checked at construction
  double alpha_ = 1, theta_ = 0.5, cg_tol_ = 1e-10;
  int cg_max_ = 1000;
  bool has_source_ = false, has_lbc_ = false;
  solvers::CgResult last_cg_;
};

template <class T>
std::unique_ptr<Model> make(const ModelSetup& s) {
  switch (s.grid.rank) {
    case 1: return std::make_unique<HeatModel<T, 1>>(s);
    case 2: return std::make_unique<HeatModel<T, 2>>(s);
    default: return std::make_unique<HeatModel<T, 3>>(s);
  }
}

}  // namespace heat

ModelInfo heat_model_info() {
  using io::Param;
  ModelInfo m;
  m.name = "heat";
  m.doc = "heat diffusion du/dt = alpha lap(u) + source, 1D/2D/3D, explicit or implicit";
  m.uses_boundary = true;
  m.parallel = Parallel::grid;
  m.schema.section = "model";
  m.schema.doc = "heat diffusion parameters";
  auto p = [&](Param q) { m.schema.params.push_back(std::move(q)); };
  p(Param::real("alpha", 1.0).at_least(0).in("m^2/s").says("thermal diffusivity"));
  p(Param::string("scheme", "euler").one_of({"euler", "rk2", "crank_nicolson", "backward_euler"})
     .says("time stepping: explicit euler/rk2, implicit via CG"));
  p(Param::string("init", "gaussian").one_of({"constant", "gaussian", "sine", "cosine", "hot_box", "file"})
     .says("initial condition"));
  p(Param::real("init_value", 0.0).in("K").says("background value of the initial condition"));
  p(Param::real("amplitude", 1.0).in("K").says("peak of gaussian / hot_box, amplitude of sine modes"));
  p(Param::reals("center", {}).in("m").says("centre of gaussian / hot_box (default: domain centre)"));
  p(Param::real("width", 0.1).positive().in("m").says("gaussian sigma, or hot_box half-width"));
  p(Param::integers("modes", {1}).range(0, 1e9)
     .says("sine/cosine mode numbers k per dimension: sin(k pi x / L) (one entry: all dimensions)"));
  p(Param::string("init_file", "").says("HDF5 file for init = \"file\""));
  p(Param::string("init_dataset", "u").says("field of init_file to start from: its name (u) or its path (/fields/u)"));
  p(Param::string("source", "none").one_of({"none", "constant", "gaussian"}).says("source term"));
  p(Param::real("source_value", 0.0).in("K/s").says("source strength (peak for gaussian)"));
  p(Param::reals("source_center", {}).in("m").says("gaussian source centre"));
  p(Param::real("source_width", 0.1).positive().in("m").says("gaussian source sigma"));
  p(Param::real("cg_tol", 1e-10).positive().at_most(1).says("implicit schemes: CG relative residual tolerance"));
  p(Param::integer("cg_max_iterations", 5000).range(1, 1e9).says("implicit schemes: CG iteration cap"));
  m.create = [](const ModelSetup& s) -> std::unique_ptr<Model> {
    return s.float64 ? heat::make<double>(s) : heat::make<float>(s);
  };
  return m;
}

}  // namespace sim
