// The 3D incompressible fluid (the fluid model on a grid of three cells counts): the 2D
// model's projection method on a MAC grid, with periodic sides, walls (moving walls with a
// tangential velocity), an inflow on x_lo and an outflow on x_hi, obstacles (a sphere, a box,
// a cylinder along z, or a mask from a file), forward Euler, Heun's RK2 or SSP-RK3 with one
// projection per stage, and an adaptive dt. A step reads:
//   for each stage:  fill ghosts -> momentum stage -> fill ghosts -> pressure rhs -> pressure solve -> project
// (a box periodic all round on one rank, the fused transform solve: the right-hand side reads
// across the sides itself and the projection writes the ghosts the next stage reads, so neither fill runs)
// Without obstacles the pressure solve is the exact transform solve; with one it is the masked
// 7-point operator's (solvers/obstacle_poisson3.hpp), solved exactly by the box's transform
// solve with a capacitance correction where that applies (solvers/obstacle_transform_poisson.hpp),
// else by CG (both built in make_obstacle_solver), and the force of the fluid on the obstacle
// is a diagnostic.
// On several ranks (mpirun) each holds a box of the grid (any split): the ghost fill applies
// the physical rules on its own sides of the domain and exchanges the shared ones dimension by
// dimension (x, y, z, so edges and corners match one rank's fill), the pressure is solved by
// the distributed transform solve on the same boxes (around obstacles with its capacitance
// correction, solvers/distributed_obstacle_transform.hpp; each rank holds its box's links and
// mask, their ghosts exchanged as the velocity's are), and dt and the diagnostics reduce over
// the ranks. A passive dye rides along each stage (donor-cell fluxes).
// pressure_solver = "mg_cg" solves an obstacle-free box iteratively instead (CG preconditioned
// by a 3D multigrid V-cycle, solvers/multigrid3.hpp; one rank). Advection is central or, with
// advection = "upwind", blended towards donor-cell, as in 2D. viscous_scheme = "implicit" runs
// the 2D model's implicit-viscosity schemes (backward Euler with euler, the IMEX pair of Heun
// and the trapezoidal rule with rk2; CG on the three components, the incremental pressure
// form), with every kind of side and obstacles. The 2D model's other iterative pressure
// solvers, and what the 3D model lacks, are refused with the key to change (check_supported).
#include "models/fluid/fluid3d.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/array/expr.hpp"
#include "core/distributed/halo.hpp"
#include "core/distributed/rank_reduction.hpp"
#include "core/kernels/for_each.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/reduce_async.hpp"
#include "core/runtime/graph.hpp"
#include "core/runtime/step_input.hpp"
#include "core/runtime/tuning.hpp"
#include "io/config.hpp"
#include "models/boundary_config.hpp"
#include "models/field_ref.hpp"
#include "models/fluid/clock_dt3.hpp"
#include "models/fluid/fluid3d_kernels.hpp"
#include "models/fluid/fluid_params.hpp"
#include "models/fluid/implicit_viscosity.hpp"
#include "models/fluid/obstacle_mask.hpp"
#include "models/fluid/marked_step.hpp"
#include "models/fluid/recorded_steps.hpp"
#include "models/fluid/stage_coefficients.hpp"
#include "solvers/box_transform3.hpp"
#include "solvers/distributed_obstacle_transform.hpp"
#include "solvers/distributed_transform.hpp"
#include "solvers/multigrid3.hpp"
#include "solvers/obstacle_poisson3.hpp"
#include "solvers/obstacle_transform_poisson.hpp"
#include "solvers/pressure_solver.hpp"
#include "solvers/time_integrators.hpp"
#include "solvers/transform_poisson.hpp"

namespace sim {
namespace fluid3d {

/// The [model] and [boundary] parameters of a 3D run, read once.
struct Parameters {
  double nu = 0;
  int stages = 2;  ///< time_scheme's: euler 1, rk2 2, rk3 3
  std::string init = "rest";
  double amplitude = 1;
  Side side[6] = {};
  solvers::PressureSide pressure[6] = {};  ///< the pressure equation's side of each face
  double wall_velocity[6][3] = {};
  double inflow_velocity = 0;  ///< the x_lo inflow's mean velocity
  bool parabolic = false;      ///< the inflow's profile: the plane channel's across y, else uniform
  bool obstacle = false;
  std::string dye = "none";   ///< the dye's initial pattern: none, stripes (8 across y, also streaming in), half (x < Lx/2)
  double kappa = 0;           ///< the dye's diffusivity
  double upwind_weight = 0;   ///< advection's donor-cell weight: 0 with advection = "central"
  bool implicit = false;      ///< viscous_scheme = "implicit"
  double viscous_tol = 1e-8;  ///< the implicit viscous solve's relative residual
  int viscous_max_iterations = 1000;
  double speed_hint = 1;  ///< the speed scale of a start at rest: 1 m/s, or a wall's or the initial flow's where faster

  /// Reads c; throws ConfigError at the key of anything the 3D model does not do.
  static Parameters of(const io::Config& c) {
    Parameters p;
    check_supported(c);
    p.nu = c.real("model", "viscosity");
    p.stages = fluid::time_scheme_stages(c);
    p.init = c.string("model", "init");
    p.amplitude = c.real("model", "init_velocity");
    const Boundary<3> faces = boundary_from_config<3>(c);
    p.speed_hint = p.init == "rest" ? 1.0 : std::max(1.0, std::abs(p.amplitude));
    p.parabolic = c.string("model", "inflow_profile") == "parabolic";
    p.obstacle = c.string("model", "obstacle") != "none";
    p.dye = c.string("model", "dye");
    p.kappa = c.real("model", "dye_diffusivity");
    p.upwind_weight = c.string("model", "advection") == "upwind" ? c.real("model", "upwind_weight") : 0.0;
    p.implicit = c.string("model", "viscous_scheme") == "implicit";
    p.viscous_tol = c.real("model", "viscous_tol");
    p.viscous_max_iterations = int(c.integer("model", "viscous_max_iterations"));
    for (int s = 0; s < 6; ++s) {
      const FaceBc& f = s % 2 ? faces.hi[s / 2] : faces.lo[s / 2];
      p.side[s] = f.kind == BcKind::periodic ? Side::periodic
                  : f.kind == BcKind::inflow  ? Side::inflow
                  : f.kind == BcKind::outflow ? Side::outflow
                                              : Side::wall;
      p.pressure[s] = solvers::pressure_side(f.kind);
      // a wall's value is its speed along the face's first tangential axis: +y on x faces, +x on y and z faces
      if (p.side[s] == Side::wall) p.wall_velocity[s][s / 2 == 0 ? 1 : 0] = f.value;
      if (p.side[s] == Side::inflow) p.inflow_velocity = f.value;
      const double peak = p.side[s] == Side::inflow && p.parabolic ? 1.5 : 1.0;  // the parabola's peak over its mean
      if (p.side[s] != Side::outflow) p.speed_hint = std::max(p.speed_hint, std::abs(f.value) * peak);
    }
    check_open_sides(c, p);
    return p;
  }

  /// Inflow on x_lo only (with its mean velocity given), outflow on x_hi only: the flow runs
  /// along +x, as in 2D. Throws ConfigError at the face's key.
  static void check_open_sides(const io::Config& c, const Parameters& p) {
    for (int s = 0; s < 6; ++s) {
      const std::string face = face_name({s / 2, s % 2}), key = c.is_set("boundary", face) ? face : "default";
      if (p.side[s] == Side::inflow && s != 0)
        throw c.error_at("boundary", key, "inflow is supported on x_lo only (flow along +x); set " + face + " = \"wall\"");
      if (p.side[s] == Side::outflow && s != 1)
        throw c.error_at("boundary", key, "outflow is supported on x_hi only (flow along +x); set " + face + " = \"wall\"");
    }
    if (p.side[0] == Side::inflow && !c.is_set("boundary", "x_lo_value") && !c.is_set("boundary", "default_value"))
      throw c.error_at("boundary", "x_lo", "an inflow needs its mean velocity: set x_lo_value (m/s), e.g. x_lo_value = 1.0");
  }

  /// Which dimensions wrap around (for the split's neighbours).
  std::array<bool, 3> periodic() const {
    return {side[0] == Side::periodic, side[2] == Side::periodic, side[4] == Side::periodic};
  }

  /// Throws ConfigError at the first key asking for what the 3D model does not do yet.
  static void check_supported(const io::Config& c) {
    auto refuse = [&](const char* section, const std::string& key, const std::string& what, const std::string& fix) {
      throw c.error_at(section, key, what + " is not available on 3D grids yet; " + fix);
    };
    const std::string solver = c.string("model", "pressure_solver");
    const bool obstacle = c.string("model", "obstacle") != "none";
    if (solver != "auto" && solver != "transform" && solver != "cg" && solver != "mg_cg")
      refuse("model", "pressure_solver", "the " + solver + " pressure solver",
             obstacle ? "use pressure_solver = \"auto\" (or \"transform\" or \"cg\"), which solve around the obstacle"
                      : "use pressure_solver = \"transform\" (or \"auto\"), which solves the obstacle-free box exactly, "
                        "or \"mg_cg\"");
    if (!obstacle && solver == "cg")
      throw c.error_at("model", "pressure_solver", "on a 3D grid cg serves obstacles; without one the transform solve is "
                                                   "exact and faster: use pressure_solver = \"auto\" or \"transform\"");
    if (obstacle && solver == "mg_cg")
      throw c.error_at("model", "pressure_solver", "on a 3D grid mg_cg takes no obstacle yet; use pressure_solver = "
                                                   "\"auto\" (the exact transform solve with a capacitance correction) or \"cg\"");
  }
};

/// Initial velocity on the faces (host side, once): at rest, uniform along x, or the
/// Taylor-Green vortex u = A sin(kx x) cos(ky y) cos(kz z), v = -A cos sin cos, w = 0 (k = 2 pi / L).
struct InitialVelocity {
  std::string kind;
  double amplitude = 1, length[3] = {1, 1, 1};
  /// Component c at position (x, y, z) relative to the origin.
  double at(int c, double x, double y, double z) const {
    if (kind == "uniform") return c == 0 ? amplitude : 0.0;
    if (kind != "taylor_green") return 0.0;
    const double a = 2 * M_PI * x / length[0], b = 2 * M_PI * y / length[1], g = 2 * M_PI * z / length[2];
    if (c == 0) return amplitude * std::sin(a) * std::cos(b) * std::cos(g);
    if (c == 1) return -amplitude * length[1] / length[0] * std::cos(a) * std::sin(b) * std::cos(g);
    return 0.0;
  }
  /// The Taylor-Green vortex's component c from its factors along each axis (at()'s value,
  /// bit for bit): s the sines and k the cosines of the three phases.
  double taylor_green(int c, const double (&s)[3], const double (&k)[3]) const {
    if (c == 0) return amplitude * s[0] * k[1] * k[2];
    if (c == 1) return -amplitude * length[1] / length[0] * k[0] * s[1] * k[2];
    return 0.0;
  }
};

/// The velocity state of a stage: three face fields.
template <class T>
struct State {
  Field<T, 3>* c[3];
  Field<T, 3>* dye = nullptr;  ///< the passive dye (null: none)
  /// Read-only views for the kernels.
  Velocity<T> velocity() const { return {{c[0]->view(), c[1]->view(), c[2]->view()}}; }
};

template <class T>
class FluidModel3 final : public Model {
 public:
  explicit FluidModel3(const ModelSetup& setup)
      : ctx_(setup.ctx), comm_(setup.comm), params_(Parameters::of(*setup.config)), global_(setup.grid.grid<3>()),
        sub_(setup.subdomain(params_.periodic().data())), grid_(box_grid(global_, sub_)),
        halo_(comm_, sub_, grid_.ghost, ctx_, HaloUse::blocking) {
    const io::Config& c = *setup.config;
    parallel_ = setup.decomposition.ranks() > 1;
    solvers::PoissonBox3 box;
    for (int d = 0; d < 3; ++d) {
      n_[d] = grid_.cells.n[d], gn_[d] = global_.cells.n[d];
      h_.inv_h[d] = T(1 / grid_.dx[d]), h_.inv_h2[d] = T(1 / (grid_.dx[d] * grid_.dx[d]));
      box.n[d] = gn_[d], box.inv_h2[d] = 1 / (grid_.dx[d] * grid_.dx[d]);
      walls_.n[d] = n_[d];
      if (gn_[d] < 2) throw c.error_at("grid", "cells", "the 3D fluid needs at least 2 cells along each dimension");
    }
    gsize_ = double(gn_[0] * gn_[1] * gn_[2]);
    for (int s = 0; s < 6; ++s) {
      walls_.side[s] = sub_.at_boundary(s / 2, s % 2) ? params_.side[s] : Side::internal;
      for (int k = 0; k < 3; ++k) walls_.wall_velocity[s][k] = T(params_.wall_velocity[s][k]);
      box.sides[s] = params_.pressure[s];
    }
    walls_.inflow_velocity = T(params_.inflow_velocity), walls_.parabolic = params_.parabolic;
    walls_.oy = sub_.offset[1], walls_.ny_global = gn_[1], walls_.hy = T(grid_.dx[1]);
    outflow_ = walls_.side[1] == Side::outflow;
    singular_ = box.singular();
    if (params_.obstacle) {
      const std::vector<double> mask = fluid::obstacle_fluid_mask<3>(c, global_);
      fluid_mask_.assign(mask.begin(), mask.end());
      fluid_cells_ = 0;
      for (double f : mask) fluid_cells_ += f;
      if (params_.side[0] == Side::inflow)  // (the inflow's faces would push fluid into a solid cell)
        for (std::size_t q = 0; q < std::size_t(gn_[1] * gn_[2]); ++q)
          if (mask[q] == 0.0)
            throw c.error_at("model", "obstacle", "the obstacle reaches the inflow face x_lo; move it or shrink it so that "
                                                  "the first column of cells is fluid");
      if (parallel_) make_distributed_obstacle_solver(setup, box);
      else make_obstacle_solver(c, box);
    } else {
      choose_pressure_solver(setup, box);
    }
    // the last explicit stage projects 1 - w of the step's pressure (Heun's 1/2, RK3's 2/3; the incremental form: all of it)
    p_scale_ = params_.implicit ? 1.0 : 1.0 / weights().flux(params_.stages - 1);
    init_.kind = params_.init, init_.amplitude = params_.amplitude;
    for (int d = 0; d < 3; ++d) init_.length[d] = grid_.dx[d] * double(gn_[d]);
    dt_ = StepInput(ctx_);
    for (Field<T, 3>* f : {&u_[0], &u_[1], &u_[2], &u1_[0], &u1_[1], &u1_[2], &u2_[0], &u2_[1], &u2_[2], &centred_[0],
                           &centred_[1], &centred_[2], &vorticity_, &p_, &rhs_, &div_})
      *f = Field<T, 3>(ctx_, grid_), f->fill(T(0));
    if (has_dye())
      for (Field<T, 3>* f : {&d_, &d1_, &d2_}) *f = Field<T, 3>(ctx_, grid_), f->fill(T(0));
    walls_.dye_pattern = params_.dye == "stripes" ? 1 : 0;
    if (params_.obstacle) {  // this box's face links in the velocity fields' layout, for the momentum stage
      const std::array<std::vector<T>, 3> links = solvers::masked_face_links(box, fluid_mask_);
      fluid_ = Field<T, 3>(ctx_, grid_), fluid_.fill(T(0)), fluid_.copy_from_host(box_part(fluid_mask_));
      for (int d = 0; d < 3; ++d) {
        host_links_[std::size_t(d)] = box_part(links[std::size_t(d)]);
        links_[d] = Field<T, 3>(ctx_, grid_), links_[d].fill(T(0)), links_[d].copy_from_host(host_links_[std::size_t(d)]);
      }
      if (!same_layout(u_[0].view(), links_[0].view(), links_[1].view(), links_[2].view()))
        throw Error("fluid3d: the link fields differ in layout from the velocity fields (internal error)");
      if (parallel_) {  // a shared high face's link: the neighbouring box's low-face link, in the ghosts
        for (Field<T, 3>* f : {&links_[0], &links_[1], &links_[2], &fluid_}) halo_.exchange(*f);
        masked_box_ops_.box = box_ops_;
        for (int d = 0; d < 3; ++d) masked_box_ops_.links[d] = links_[d].view();
        masked_box_ops_.fluid = fluid_.view();
      }
    }
    if (params_.implicit) {  // the viscous solve's work fields, the increment, the corrector's carry, the homogeneous rules
      phi_ = Field<T, 3>(ctx_, grid_), phi_.fill(T(0));
      if (params_.stages == 2)
        for (Field<T, 3>& f : carry_) f = Field<T, 3>(ctx_, grid_), f.fill(T(0));
      viscosity_ = fluid::ImplicitViscosity<T, 3>(ctx_, grid_, comm_);
      homogeneous_ = walls_;
      for (auto& wall : homogeneous_.wall_velocity)
        for (T& v : wall) v = T(0);
      homogeneous_.inflow_velocity = T(0);
    }
    // the kernels read every velocity field at one offset per position (mac_operators.hpp, Pos)
    if (!same_layout(u_[0].view(), u_[1].view(), u_[2].view(), u1_[0].view(), u1_[1].view(), u1_[2].view(), u2_[0].view(),
                     u2_[1].view(), u2_[2].view()))
      throw Error("fluid3d: the velocity fields differ in layout (internal error)");
    set_up_clocked_steps();
  }

  std::vector<FieldRef> fields() override {
    const Extents<3>& all = global_.cells;
    auto ref = [&](const char* name, const char* unit, Field<T, 3>& f) { return field_ref(name, unit, f, sub_, all); };
    std::vector<FieldRef> f = {ref("u_face", "m/s", u_[0]),       ref("v_face", "m/s", u_[1]),
                               ref("w_face", "m/s", u_[2]),       ref("p", "m^2/s^2", p_),
                               ref("u", "m/s", centred_[0]),      ref("v", "m/s", centred_[1]),
                               ref("w", "m/s", centred_[2]),      ref("vorticity", "1/s", vorticity_)};
    f[0].snapshot = f[1].snapshot = f[2].snapshot = false;  // the state on faces: checkpoints only
    // p (fused solve): held in the transform's buffer until a snapshot, checkpoint or check reads it
    f[3].to_host = [this, read = f[3].to_host](void* host) { gather_pressure(), read(host); };
    f[3].sum = [this, sum = f[3].sum] { return gather_pressure(), sum(); };
    f[3].from_host = [this, write = f[3].from_host](const void* host) { pressure_in_transform_ = false, write(host); };
    for (int c = 0; c < 3; ++c)  // (a restored velocity's ghosts are stale until the next fill)
      f[std::size_t(c)].from_host = [this, write = f[std::size_t(c)].from_host](const void* host) { state_ghosts_current_ = false, write(host); };
    for (std::size_t k = 4; k < f.size(); ++k) f[k].checkpointed = false;  // derived: snapshots only
    if (has_dye()) f.push_back(ref("dye", "1", d_));
    return f;
  }

  void initialize() override {
    std::vector<T> host(std::size_t(grid_.size()));
    for (int c = 0; c < 3; ++c) {
      if (init_.kind == "taylor_green") {  // separable: one sine and cosine per axis position, not per cell
        initial_taylor_green(c, host);
        if (params_.obstacle) close_obstacle_faces(c, host);
        u_[c].copy_from_host(host);
        continue;
      }
      for (index_t i = 0; i < n_[0]; ++i)
        for (index_t j = 0; j < n_[1]; ++j)
          for (index_t k = 0; k < n_[2]; ++k) {
            // component c on the low c-face: the face coordinate along c, the centres along the
            // others, from global indices (the same bits on any split)
            const index_t g[3] = {i + sub_.offset[0], j + sub_.offset[1], k + sub_.offset[2]};
            double x[3] = {(double(g[0]) + 0.5) * grid_.dx[0], (double(g[1]) + 0.5) * grid_.dx[1], (double(g[2]) + 0.5) * grid_.dx[2]};
            x[c] -= 0.5 * grid_.dx[c];
            host[std::size_t((i * n_[1] + j) * n_[2] + k)] = T(init_.at(c, x[0], x[1], x[2]));
          }
      if (params_.obstacle) close_obstacle_faces(c, host);
      u_[c].copy_from_host(host);
    }
    if (has_dye()) initial_dye(host);
    // start from a divergence-free field that satisfies the boundary conditions
    fill_ghosts(state(), true);
    dt_.set(1.0), dt_.upload();
    project(state());
    p_.fill(T(0));
    pressure_in_transform_ = false;
    fill_ghosts(state());
    state_ghosts_current_ = true;
    last_dt_ = 0;
  }

  /// The dye's initial pattern at the cell centres (the 2D model's): 8 stripes across y, or 1
  /// where x < Lx / 2; host is scratch of the box's size.
  void initial_dye(std::vector<T>& host) {
    for (index_t i = 0; i < n_[0]; ++i)
      for (index_t j = 0; j < n_[1]; ++j)
        for (index_t k = 0; k < n_[2]; ++k) {
          const double x = (double(i + sub_.offset[0]) + 0.5) * grid_.dx[0], y = (double(j + sub_.offset[1]) + 0.5) * grid_.dx[1];
          const double d = params_.dye == "stripes" ? double(int(std::floor(8 * y / init_.length[1])) % 2)
                                                    : x < 0.5 * init_.length[0] ? 1.0 : 0.0;
          host[std::size_t((i * n_[1] + j) * n_[2] + k)] = T(d);
        }
    d_.copy_from_host(host);
  }

  /// Sets component c's closed faces (those touching a solid cell; a side's face, which the
  /// ghost fill sets, too) in host (row-major values of the box) to 0.
  void close_obstacle_faces(int c, std::vector<T>& host) const {
    const std::vector<T>& links = host_links_[std::size_t(c)];
    for (std::size_t q = 0; q < host.size(); ++q)
      if (links[q] == T(0)) host[q] = T(0);
  }

  /// The Taylor-Green vortex's component c on this box's c-faces into host (row-major), as
  /// InitialVelocity::at gives it, from the sines and cosines of each axis's phases.
  void initial_taylor_green(int c, std::vector<T>& host) const {
    std::vector<double> sines[3], cosines[3];
    for (int d = 0; d < 3; ++d)
      for (index_t i = 0; i < n_[d]; ++i) {
        double x = (double(i + sub_.offset[d]) + 0.5) * grid_.dx[d];
        if (d == c) x -= 0.5 * grid_.dx[d];
        const double phase = 2 * M_PI * x / init_.length[d];
        sines[d].push_back(std::sin(phase)), cosines[d].push_back(std::cos(phase));
      }
    for (index_t i = 0; i < n_[0]; ++i)
      for (index_t j = 0; j < n_[1]; ++j)
        for (index_t k = 0; k < n_[2]; ++k) {
          const double s[3] = {sines[0][std::size_t(i)], sines[1][std::size_t(j)], sines[2][std::size_t(k)]};
          const double q[3] = {cosines[0][std::size_t(i)], cosines[1][std::size_t(j)], cosines[2][std::size_t(k)]};
          host[std::size_t((i * n_[1] + j) * n_[2] + k)] = T(init_.taylor_green(c, s, q));
        }
  }

  /// Advances by dt: recorded once per buffer parity and replayed (one launch a step on a GPU)
  /// where the step makes no host round trip (recordable()), else queued as it goes.
  void step(double dt) override {
    last_dt_ = dt;
    dt_.set(dt);
    pressure_in_transform_ = fused_projection();
    ensure_state_ghosts();
    if (!recordable() || marks_.on()) {  // (marks on: a marked step, queued as it goes)
      marks_.mark("start");
      dt_.upload(), advance();
      flip();
      return;
    }
    Recorded& r = recordings_.step(false);
    if (!r.valid()) r = record(ctx_, [this] { dt_.upload(), advance(); });
    r.replay();
    flip();
  }

  /// step() queued as it goes, with marks between its phases (Model::marked_step).
  std::vector<std::pair<std::string, double>> marked_step(double dt) override {
    return fluid::marked_step(marks_, ctx_, [&] { step(dt); });
  }

  /// Steps whose dt the device chooses (Model::run_device_steps), for the transform solve
  /// without an obstacle, on one rank or several: the recorded step as a device loop (both
  /// buffer parities) on clock.running(), each step ending with next_dt()'s formula (CflDt3)
  /// on the speeds it leaves, their maximum over the ranks taken on the device (RankReduction::max).
  /// SIMKIT_DECOMPOSED_STEPS=replays, or a device loop that CUDA refuses, runs a batch as
  /// per-step replays the host queues one ahead (replay_clocked_steps). The same bits as step by step.
  std::int64_t run_device_steps(DeviceClock& clock, double cfl) override {
    if (!recordable() || obstacle_solver_ || mg_cg_) return -1;
    queue_speeds(state());
    ensure_state_ghosts();
    for_each(ctx_, "fluid3d::first_dt", Box<1>{{0}, {1}}, BeginClockStep<CflDt3>{clock.state(), cfl_dt(cfl)});
    const std::int64_t ran = batches_.run(
        recordings_, clock, cfl, parallel_,
        [this](ClockState* c, double step_cfl, const LoopSignal& signal) { clocked_step(c, step_cfl, signal); },
        [this] { flip(); }, [] {});
    if (ran > 0) last_dt_ = clock.host().dt, pressure_in_transform_ = fused_projection();
    return ran;
  }

  bool adaptive_dt() const override { return true; }

  double next_dt(double cfl) override {
    const SpeedTriple s = reduce(ctx_, "fluid3d::face_speeds", cells(), FaceSpeeds3<T>{state().velocity()}, LargerSpeeds3{},
                                 SpeedTriple{{0.0, 0.0, 0.0}});
    double rate = viscous_rate();
    // (implicit viscosity: nothing else bounds dt at rest, so the speed scale floors u, as in 2D)
    const double floor = params_.implicit ? params_.speed_hint : 1e-300;
    for (int d = 0; d < 3; ++d) rate += (d == 0 ? std::max(comm_.max(s.s[0]), floor) : comm_.max(s.s[d])) / grid_.dx[d];
    return cfl / rate;
  }

  double default_dt(double cfl) const override {
    double rate = viscous_rate();
    for (int d = 0; d < 3; ++d) rate += params_.speed_hint / grid_.dx[d];
    return cfl / rate;
  }

  double stable_dt() const override { return default_dt(1.0); }

  /// Kinetic energy (the integral, and the mean per unit volume), enstrophy-based dissipation
  /// 2 nu <|omega|^2 / 2>, the largest divergence, the Courant number of the last step.
  std::vector<Diagnostic> diagnostics() override {
    gather_pressure();
    fill_ghosts(state());
    if (parallel_) halo_.exchange(p_);  // (the projection's exchange, again: a resumed run has not projected yet)
    const Velocity<T> vel = state().velocity();
    for_each(ctx_, "fluid3d::divergence", cells(), Divergence3<T>{vel, div_.view(), h_});
    const EnergySums e = reduce(ctx_, "fluid3d::energy", cells(), CellEnergy<T>{vel, h_}, AddEnergySums{}, EnergySums{0.0, 0.0});
    const SpeedTriple s = reduce(ctx_, "fluid3d::face_speeds", cells(), FaceSpeeds3<T>{vel}, LargerSpeeds3{},
                                 SpeedTriple{{0.0, 0.0, 0.0}});
    const double cell = grid_.dx[0] * grid_.dx[1] * grid_.dx[2], volume = cell * gsize_;
    const double energy = comm_.sum(e.energy), enstrophy = comm_.sum(e.enstrophy);  // (rank order)
    double courant = 0;
    for (int d = 0; d < 3; ++d) courant += last_dt_ * comm_.max(s.s[d]) / grid_.dx[d];
    std::vector<Diagnostic> d = {{"kinetic_energy", "m^5/s^2", 0.5 * cell * energy},
            {"mean_kinetic_energy", "m^2/s^2", 0.5 * energy / gsize_},
            {"dissipation", "m^2/s^3", params_.nu * enstrophy * cell / volume},
            {"max_divergence", "1/s", comm_.max(double(norm_max(div_)))},
            {"cfl", "", courant},
            {"pressure_residual", "", pressure_residual()}};
    if (params_.implicit) d.push_back({"viscous_iterations", "", double(last_viscous_iterations_)});
    if (params_.obstacle) append_obstacle_diagnostics(d);
    return d;
  }

  /// The force of the fluid on the obstacle per unit density (ObstacleForce3; on several ranks
  /// each box's sum, added in rank order), and the last pressure solve's iterations (0: exact);
  /// ghosts filled (p's included).
  void append_obstacle_diagnostics(std::vector<Diagnostic>& d) {
    const Velocity<T> vel = state().velocity();
    const ForceTriple f =
        parallel_ ? reduce(ctx_, "fluid3d::obstacle_force_box", cells(),
                           ObstacleForce3<T, MaskedBoxPressure7<T>>{vel, p_.view(), masked_box_ops_, h_, T(params_.nu), T(p_scale_), T(params_.upwind_weight)},
                           AddForces{}, ForceTriple{{0.0, 0.0, 0.0}})
                  : reduce(ctx_, "fluid3d::obstacle_force", cells(),
                           ObstacleForce3<T>{vel, p_.view(), obstacle_solver_->stencil(), h_, T(params_.nu), T(p_scale_), T(params_.upwind_weight)},
                           AddForces{}, ForceTriple{{0.0, 0.0, 0.0}});
    const double cell = grid_.dx[0] * grid_.dx[1] * grid_.dx[2];
    d.push_back({"force_x", "m^4/s^2", comm_.sum(f.f[0]) * cell});
    d.push_back({"force_y", "m^4/s^2", comm_.sum(f.f[1]) * cell});
    d.push_back({"force_z", "m^4/s^2", comm_.sum(f.f[2]) * cell});
    const bool exact = obstacle_transform_ || distributed_obstacle_;
    d.push_back({"pressure_iterations", "", exact ? 0.0 : double(obstacle_solver_->last().iterations)});
  }

  void prepare_output() override {
    fill_ghosts(state());
    for_each(ctx_, "fluid3d::cell_outputs", cells(),
             CellOutputs3<T>{state().velocity(), {centred_[0].view(), centred_[1].view(), centred_[2].view()}, vorticity_.view(), h_});
  }

  double cell_updates_per_step() const override { return gsize_; }

  /// Whole-field passes of a step, each field read or written once (ghost fills counted as
  /// none: faces only): momentum 3 reads + 3 writes (+3 base reads in each stage but the first);
  /// the fused solve of a periodic box: the right-hand side 3 reads + 1 write (the transform's
  /// buffer), the r2c, the multiplication and the c2r (6 passes of real size; 4 when cuFFT's
  /// inverse multiplies as it loads), the projection
  /// 3 reads + 3 writes + the pressure read, 7; otherwise the right-hand side 3 reads + 2
  /// writes (the field and the transform's buffer), the solve 3 axes x 2 directions x gather,
  /// transform and scatter, 24, and the division 2 (walls on y and z: 13 passes of a read and
  /// a write, 26 too), the projection 3 reads + 3 writes + the pressure read and stored, 8.
  double bytes_per_step() const override {
    if (mg_cg_ || params_.implicit) return 0;  // not declared: the iterative solves' passes depend on their iterations
    const bool fused = fused_projection();  // (the obstacle CG's iterations: not counted)
    const double transforms = fused && transform_->fused()->multiplies_in_transform() ? 4 : 6;
    const double stage = fused ? 6 + 4 + transforms + 7 : 6 + 5 + 26 + 8;
    const double passes = params_.stages * stage + 3 * (params_.stages - 1);
    return passes * gsize_ * double(sizeof(T));
  }

  std::vector<std::string> plan_notes() const override {
    const char* kind = mg_cg_ ? "mg_cg: " : obstacle_solver_ && !obstacle_transform_ ? "cg: " : "transform: ";
    std::vector<std::string> notes = {std::string("pressure solver ") + kind + solver_note_};
    if (parallel_) notes.push_back(decomposed_steps_note());
    return notes;
  }

  /// How the steps run on several ranks, and the batches of device-clocked steps so far.
  std::string decomposed_steps_note() const {
    return batches_.decomposed_note(comm_.size(), decomposed_recorded_, speed_max_.transport(),
                                    "messages that wait for the host (host staging)");
  }

  void save_state(std::map<std::string, std::uint64_t>&, std::map<std::string, double>& reals) const override {
    reals["fluid_last_dt"] = last_dt_;
  }
  void load_state(const std::map<std::string, std::uint64_t>&, const std::map<std::string, double>& reals) override {
    if (reals.count("fluid_last_dt")) last_dt_ = reals.at("fluid_last_dt");
  }

 private:
  Box<3> cells() const { return Box<3>{{0, 0, 0}, {n_[0], n_[1], n_[2]}}; }
  State<T> state() { return {{&u_[0], &u_[1], &u_[2]}, has_dye() ? &d_ : nullptr}; }
  bool has_dye() const { return params_.dye != "none"; }
  /// The explicit time scheme's stage weights.
  solvers::ShuOsherWeights weights() const { return {params_.stages}; }
  /// The velocity fields a step writes into: Heun's second stage's, else the first's (RK3's third stage writes over them).
  Field<T, 3>* step_output() { return params_.stages == 2 ? u2_ : u1_; }

  double viscous_rate() const {
    double s = 0;
    for (int d = 0; d < 3; ++d) s += 1 / (grid_.dx[d] * grid_.dx[d]);
    return 2 * std::max(params_.implicit ? 0.0 : params_.nu, params_.kappa) * s;  // (implicit viscosity: no limit of its own)
  }

  /// True when a step makes no host round trip: the transform solve (the obstacle's too), on
  /// several ranks with every message on the stream (set_up_clocked_steps); not CG's stopping
  /// test (mg_cg, cg around an obstacle, the implicit viscous solve).
  bool recordable() const {
    if (mg_cg_ || (obstacle_solver_ && !obstacle_transform_) || params_.implicit) return false;
    return !parallel_ || decomposed_recorded_;
  }

  /// The speeds' reduction and maximum over the ranks for device-clocked steps, and whether a
  /// decomposed step is recorded: the distributed transform solve and every message of a step
  /// (halos, transposes, the speeds' maximum) queued on the stream, NCCL between GPUs or MPI on
  /// CPU ranks (whose recording is the step itself, run again on each replay); not with host
  /// staging (GPUs without NCCL, SIMKIT_HALO=host) nor SIMKIT_DECOMPOSED_STEPS=host (nor the
  /// diagnostic SIMKIT_NCCL_ORDER=hostsync, a host wait in every exchange).
  void set_up_clocked_steps() {
    speeds_ = AsyncReduction<SpeedTriple>(ctx_);
    speed_max_ = RankReduction(comm_, ctx_);
    batches_.set_mode(ctx_, tuning::current().decomposed_steps);
    // the transposes on the copy engines: per-step replays, not one device loop (see copies_beside_stream)
    if (distributed_ && distributed_->copies_beside_stream() && batches_.mode() == "auto") batches_.set_mode(ctx_, "replays");
    if (parallel_ && distributed_ && batches_.mode() != "host") {
      const std::string nccl = "NCCL";
      const bool on_stream = !ctx_.is_cuda() || (halo_.transport() == nccl && speed_max_.stream_ordered() &&
                                                  tuning::current().nccl_order != "hostsync");
      decomposed_recorded_ = on_stream && distributed_->stream_ordered();
    }
    queue_speeds(state());  // sizes the reduction's scratch now, not while a step is recorded
    if (decomposed_recorded_) {  // and the halo's buffers (a resumed run records its first step without initialize())
      for (int d = 0; d < 3; ++d) exchange(state(), d);
      halo_.exchange(p_);
    }
    ctx_.synchronize();
  }

  /// next_dt(cfl)'s formula on the device (CflDt3), from the speeds of the latest queue_speeds().
  CflDt3 cfl_dt(double cfl) const {
    return CflDt3{speeds_.result(), cfl, {grid_.dx[0], grid_.dx[1], grid_.dx[2]}, viscous_rate()};
  }

  /// Queues the largest face speeds of s along each axis into speeds_.result(), over every rank.
  void queue_speeds(const State<T>& s) {
    speeds_.queue("fluid3d::face_speeds", cells(), FaceSpeeds3<T>{s.velocity()}, LargerSpeeds3{}, SpeedTriple{{0.0, 0.0, 0.0}});
    if (parallel_) speed_max_.max(const_cast<double*>(speeds_.result()->s), 3);
  }

  /// The step of a device clock c, while it is recorded: dt from the clock into the step's
  /// StepInput, the stages, the speeds of the output, and the clock's end of step (the next dt).
  void clocked_step(ClockState* c, double cfl, const LoopSignal& signal) {
    for_each(ctx_, "fluid3d::clock_dt", Box<1>{{0}, {1}}, ClockDtInto{c, const_cast<double*>(dt_.device())});
    advance();
    State<T> out{{&step_output()[0], &step_output()[1], &step_output()[2]}, nullptr};
    queue_speeds(out);
    for_each(ctx_, "fluid3d::end_step", Box<1>{{0}, {1}}, EndClockStep<CflDt3>{c, cfl_dt(cfl), signal});
  }

  /// The stages of one step from u_ into step_output(), dt uploaded: the solvers' forward Euler,
  /// Heun and SSP-RK3 (Shu-Osher form) over the stage "momentum, then projection".
  void advance() {
    last_viscous_iterations_ = 0;
    if (params_.implicit) {
      if (params_.stages == 2) trapezoidal_step();
      else backward_euler_step();
      return;
    }
    State<T> s0 = state(), s1{{&u1_[0], &u1_[1], &u1_[2]}, has_dye() ? &d1_ : nullptr},
             s2{{&u2_[0], &u2_[1], &u2_[2]}, has_dye() ? &d2_ : nullptr};
    auto update = [this](State<T>& in, State<T>& out, double, double w, State<T>& base) {
      if (!projection_fills_ghosts()) {  // (else the projection that made `in` wrote them)
        fill_ghosts(in);
        marks_.mark("ghost fill and exchanges");
      }
      momentum(in, out, base, w);
      marks_.mark("momentum");
      // a stage's pressure scales with its weight 1 - w (1, then 1/2 in Heun's second stage):
      // an iterative solve starts from the last stage's pressure rescaled to this one's
      const solvers::ShuOsherWeights s = weights();
      const int k = s.stage_of(w);
      project(out, s.flux(k) / s.flux(k == 0 ? s.stages - 1 : k - 1));
      marks_.mark("projection");
    };
    if (params_.stages == 3) solvers::rk3_step(update, s0, s1, s2, s1, dt_.value());
    else if (params_.stages == 2) solvers::rk2_step(update, s0, s1, s2, dt_.value());
    else solvers::euler_step(update, s0, s1, dt_.value());
  }

  /// out = w base + (1 - w)(in + dt (nu lap - adv)(in)); in's ghosts filled. Central advection
  /// and the blend each have their own kernel (the central one keeps its registers).
  void momentum(State<T>& in, State<T>& out, State<T>& base, double w) {
    if (params_.upwind_weight != 0) momentum<Flux::blended>(in, out, base, w);
    else momentum<Flux::central>(in, out, base, w);
  }
  template <Flux flux>
  void momentum(State<T>& in, State<T>& out, State<T>& base, double w) {
    MomentumStage3<T, flux> k{in.velocity(), base.velocity(), {out.c[0]->view(), out.c[1]->view(), out.c[2]->view()},
                              h_, T(params_.nu), T(w), dt_.device(), {}};
    k.gamma = T(params_.upwind_weight);
    for (int d = 0; d < 3; ++d) {
      k.closed_low[d] = walls_.side[2 * d] == Side::wall || walls_.side[2 * d] == Side::inflow;
      if (params_.obstacle) k.links[d] = links_[d].view();
    }
    if (in.dye) k.dye = DyeStage3<T>{in.dye->view(), base.dye->view(), out.dye->view(),
                                     params_.obstacle ? fluid_.view() : View<const T, 3>{}, T(params_.kappa)};
    for_each(ctx_, "fluid3d::momentum", cells(), k);
  }

  // ---- implicit viscosity (the 2D model's schemes, fluid.cpp) ----

  /// Backward Euler viscosity: (I - dt nu L) u1 = u - dt (adv(u) + grad p), then the increment's projection.
  void backward_euler_step() {
    State<T> s0 = state(), s1{{&u1_[0], &u1_[1], &u1_[2]}, has_dye() ? &d1_ : nullptr};
    exchange_pressure();
    fill_ghosts(s0);
    imex_momentum(s0, s1, s0, fluid::StageCoefficients::implicit_predictor(1, 0));
    solve_viscous(s1, dt_.value());
    outflow_pressure_face(s1);
    project_increment(s1, true);
  }

  /// (I - dt/2 nu L) U = u + dt (nu/2 L u - adv(u) - grad p); then u + dt/2 (F(u) + F(U)), F = nu L - adv - grad p.
  void trapezoidal_step() {
    State<T> s0 = state(), s1{{&u1_[0], &u1_[1], &u1_[2]}, has_dye() ? &d1_ : nullptr},
             s2{{&u2_[0], &u2_[1], &u2_[2]}, has_dye() ? &d2_ : nullptr};
    exchange_pressure();
    fill_ghosts(s0);
    imex_momentum(s0, s1, s0, fluid::StageCoefficients::implicit_predictor(0.5, 0.5));
    solve_viscous(s1, 0.5 * dt_.value());
    outflow_pressure_face(s1);
    project_increment(s1, false);
    fill_ghosts(s1);
    State<T> carried{{&carry_[0], &carry_[1], &carry_[2]}, s0.dye};  // (the dye's base: the step's own)
    imex_momentum(s1, s2, carried, fluid::StageCoefficients::trapezoidal_corrector());
    fill_ghosts(s2, true);
    outflow_pressure_face(s2);
    project_increment(s2, true);
  }

  /// After an incremental-form predictor (which carries -dt grad p) and its ghost fill: the
  /// outflow face without the old pressure gradient (OutflowPressureFace3).
  void outflow_pressure_face(const State<T>& s) {
    if (!outflow_) return;
    for_each(ctx_, "fluid3d::outflow_pressure_face", Box<2>{{0, 0}, {n_[1], n_[2]}},
             OutflowPressureFace3<T>{s.c[0]->view(), p_.view(), params_.obstacle ? links_[0].view() : View<const T, 3>{},
                                     params_.obstacle ? fluid_.view() : View<const T, 3>{}, n_[0], dt_.device(), grid_.dx[0]});
  }

  /// p's ghosts across the shared sides (several ranks), for its face gradient and A p (after a
  /// restart too, which loads the cells only).
  void exchange_pressure() {
    if (parallel_) halo_.exchange(p_);
  }

  /// One stage of an implicit-viscosity scheme from in into out (ImexStage3 with c's
  /// coefficients; base: the corrector's carried state), in's ghosts filled; the predictor
  /// (c.f_carry != 0) also keeps the carried state.
  void imex_momentum(const State<T>& in, const State<T>& out, const State<T>& base, const fluid::StageCoefficients& c) {
    if (obstacle_solver_) imex_momentum(in, out, base, c, obstacle_solver_->stencil());
    else if (parallel_) imex_momentum(in, out, base, c, box_ops_);
    else imex_momentum(in, out, base, c, ops_);
  }
  template <class Ops>
  void imex_momentum(const State<T>& in, const State<T>& out, const State<T>& base, const fluid::StageCoefficients& c,
                     const Ops& ops) {
    const bool carry = c.f_carry != 0;
    ImexStage3<T, Ops> k{in.velocity(), base.velocity(), {out.c[0]->view(), out.c[1]->view(), out.c[2]->view()},
                         {carry ? carry_[0].view() : View<T, 3>{}, carry ? carry_[1].view() : View<T, 3>{},
                          carry ? carry_[2].view() : View<T, 3>{}},
                         p_.view(), ops, h_, T(params_.nu), T(params_.upwind_weight), T(c.w), T(c.a), dt_.device(), c.f_adv,
                         c.f_visc, c.f_p, c.f_carry, {}};
    for (int d = 0; d < 3; ++d) {
      k.closed_low[d] = walls_.side[2 * d] == Side::wall || walls_.side[2 * d] == Side::inflow;
      if (params_.obstacle) k.links[d] = links_[d].view();
    }
    if (in.dye) {
      k.dye = DyeStage3<T>{in.dye->view(), base.dye->view(), out.dye->view(),
                           params_.obstacle ? fluid_.view() : View<const T, 3>{}, T(params_.kappa)};
      k.w_dye = T(c.w_dye);
    }
    if (outflow_) k.outflow_nx = n_[0], k.f_outflow = c.f_theta, k.nu_d = params_.nu;
    for_each(ctx_, "fluid3d::imex_momentum", cells(), k);
  }

  /// (I - theta_dt nu L) u = u in place for the three components (CG; ghosts filled by the full
  /// rules first, the correction's by the homogeneous ones), then the ghost fill.
  void solve_viscous(const State<T>& s, double theta_dt) {
    fill_ghosts(s, true);
    using Vector = typename fluid::ImplicitViscosity<T, 3>::Vector;
    ViscousApply3<T> op{};
    for (int d = 0; d < 3; ++d) {
      op.s[d] = T(theta_dt * params_.nu * double(h_.inv_h2[d]));
      op.closed_low[d] = walls_.side[2 * d] == Side::wall || walls_.side[2 * d] == Side::inflow;
      if (params_.obstacle) op.links[d] = links_[d].view();
    }
    auto kernel = [op](const Vector& p, const Vector& out) {
      ViscousApply3<T> k = op;
      for (int c = 0; c < 3; ++c) k.p.c[c] = p[c]->view(), k.out[c] = out[c]->view();
      return k;
    };
    auto fill = [this](const Vector& p) { fill_ghosts(State<T>{{p[0], p[1], p[2]}, nullptr}, true, homogeneous_); };
    const solvers::CgResult r = viscosity_.solve_with({s.c[0], s.c[1], s.c[2]}, kernel, fill, params_.viscous_tol,
                                                      params_.viscous_max_iterations);
    last_viscous_iterations_ += r.iterations;
    if (!r.converged) {
      char msg[320];
      std::snprintf(msg, sizeof msg,
                    "fluid3d: the implicit viscous solve did not reach viscous_tol = %g in %d iterations (relative residual "
                    "%.3g); raise model.viscous_max_iterations or viscous_tol, or use float64",
                    params_.viscous_tol, params_.viscous_max_iterations, r.residual);
      throw Error(msg);
    }
    fill_ghosts(s, true);
  }

  /// The incremental projection, for a predictor that already carries -dt grad p: solves A
  /// p_new = -div(u) / dt + A p (from p, so an iterative solve's tolerance stays relative to
  /// the full right-hand side), then u -= dt grad (p_new - p); p becomes p_new when accumulate
  /// (else the corrector keeps the old p). p's shared ghosts are current (exchange_pressure).
  void project_increment(const State<T>& s, bool accumulate) {
    for_each(ctx_, "fluid3d::pressure_rhs", cells(), PressureRhs3<T>{s.velocity(), rhs_.view(), h_, dt_.device()});
    if (distributed_obstacle_)
      for_each(ctx_, "fluid3d::pressure_apply_masked_box", cells(), MaskedBoxPressure7Apply<T>{masked_box_ops_, p_.view(), div_.view()});
    else if (obstacle_solver_)
      for_each(ctx_, "fluid3d::pressure_apply_masked", cells(),
               solvers::MaskedPoisson7Apply<T>{obstacle_solver_->stencil(), p_.view(), div_.view()});
    else if (parallel_)
      for_each(ctx_, "fluid3d::pressure_apply_box", cells(), BoxPressure7Apply<T>{box_ops_, p_.view(), div_.view()});
    else
      for_each(ctx_, "fluid3d::pressure_apply", cells(), solvers::Poisson7Apply<T>{ops_, p_.view(), div_.view()});
    rhs_ = rhs_ + div_;
    phi_ = p_ * 1;
    if (distributed_obstacle_) distributed_obstacle_->solve(rhs_.view(), phi_.view());
    else if (obstacle_transform_) obstacle_transform_->solve(rhs_.view(), phi_.view());
    else if (obstacle_solver_) obstacle_solver_->solve(rhs_.view(), phi_.view());
    else if (parallel_) distributed_->solve(rhs_.view(), phi_.view());
    else if (mg_cg_) solve_mg_cg(phi_);
    else transform_->solve(rhs_.view(), phi_.view());
    phi_ = phi_ - p_;
    const View<T, 3> faces[3] = {s.c[0]->view(), s.c[1]->view(), s.c[2]->view()};
    if (distributed_obstacle_) {
      halo_.exchange(phi_);
      for_each(ctx_, "fluid3d::project_masked_box", cells(),
               Project3<T, View<const T, 3>, MaskedBoxPressure7<T>>{{faces[0], faces[1], faces[2]}, phi_.view(), masked_box_ops_,
                                                                    h_, dt_.device()});
    } else if (obstacle_solver_) {
      for_each(ctx_, "fluid3d::project_masked", cells(),
               Project3<T, View<const T, 3>, solvers::MaskedPoisson7<T>>{{faces[0], faces[1], faces[2]}, phi_.view(),
                                                                         obstacle_solver_->stencil(), h_, dt_.device()});
    } else if (parallel_) {
      halo_.exchange(phi_);
      for_each(ctx_, "fluid3d::project_box", cells(),
               Project3<T, View<const T, 3>, BoxPressure7<T>>{{faces[0], faces[1], faces[2]}, phi_.view(), box_ops_, h_, dt_.device()});
    } else {
      for_each(ctx_, "fluid3d::project", cells(), Project3<T>{{faces[0], faces[1], faces[2]}, phi_.view(), ops_, h_, dt_.device()});
    }
    if (!accumulate) return;
    p_ = p_ + phi_;
    exchange_pressure();  // (for the diagnostics' residual, as the explicit projection leaves them)
  }

  /// Fills the ghosts of the three components, dimension by dimension (edges and corners as one
  /// pass each way would), each dimension's shared sides exchanged after its physical rules.
  /// An outflow face is the zero-gradient prediction when predict (after a momentum stage, for
  /// the projection to correct), else set so the last cells are divergence-free; then the y and
  /// z rules run again, for the ghosts that copy it.
  void fill_ghosts(const State<T>& s, bool predict = false) { fill_ghosts(s, predict, walls_); }
  /// The same by the rules b (the homogeneous ones of the implicit viscous solve).
  void fill_ghosts(const State<T>& s, bool predict, const Walls3<T>& b) {
    fill_sides<0>(s, b), exchange(s, 0);
    fill_sides<1>(s, b), exchange(s, 1);
    fill_sides<2>(s, b), exchange(s, 2);
    if (!outflow_ || predict) return;  // (the boxes exchanging along y and z share their x range: all or none of them run this)
    const T hx = T(grid_.dx[0]);
    for_each(ctx_, "fluid3d::outflow_face", Box<2>{{0, 0}, {n_[1], n_[2]}},
             OutflowFace3<T>{s.c[0]->view(), s.c[1]->view(), s.c[2]->view(), n_[0], T(hx / T(grid_.dx[1])), T(hx / T(grid_.dx[2]))});
    fill_sides<1>(s, b), exchange(s, 1);
    fill_sides<2>(s, b), exchange(s, 2);
  }
  /// The ghosts of the three components across dimension d's shared sides (several ranks).
  void exchange(const State<T>& s, int d) {
    if (!parallel_) return;
    if (s.dye) halo_.exchange({s.c[0], s.c[1], s.c[2], s.dye}, d);
    else halo_.exchange({s.c[0], s.c[1], s.c[2]}, d);
  }
  /// The ghosts of dimension d's sides, over the other two dimensions' cells and their ghosts when filled before d.
  template <int d>
  void fill_sides(const State<T>& s, const Walls3<T>& b) {
    constexpr int e = FillSides3<T, d>::e, f = FillSides3<T, d>::f;
    const Box<2> plane{{e < d ? -1 : 0, f < d ? -1 : 0}, {n_[e] + (e < d ? 1 : 0), n_[f] + (f < d ? 1 : 0)}};
    for_each(ctx_, "fluid3d::fill_sides", plane,
             FillSides3<T, d>{{s.c[0]->view(), s.c[1]->view(), s.c[2]->view()}, b, s.dye ? s.dye->view() : View<T, 3>{}});
  }

  /// The projection of a rank's box periodic or shared on every side (BoxPressure7), writing
  /// the periodic copies within the box (wrap) where fills.
  Project3<T, View<const T, 3>, BoxPressure7<T>> box_projection(const State<T>& s, const index_t wrap[3], bool fills) const {
    Project3<T, View<const T, 3>, BoxPressure7<T>> k{{s.c[0]->view(), s.c[1]->view(), s.c[2]->view()}, p_.view(), box_ops_, h_,
                                                     dt_.device()};
    if (fills)
      for (int d = 0; d < 3; ++d) k.wrap[d] = wrap[d];
    return k;
  }

  /// project() where the box is split over ranks along dimension d alone (slabs, at least 3
  /// cells along d; periodic or shared on every side, no obstacle): each exchange runs beside
  /// the cells that do not need it. Component d's faces across the shared sides beside the
  /// right-hand side of every plane along d but the last; p's ghosts beside the projection of
  /// the last plane and the first half of the others; where the projection writes the ghosts,
  /// the three components' planes beside the second half, once the first plane (which reads
  /// p's low ghosts) is projected. The same arithmetic per cell as without the overlap.
  void project_slab(const State<T>& s, const index_t wrap[3], int d) {
    const index_t n = n_[d], mid = n / 2;
    auto over_planes = [&](const char* name, index_t lo, index_t hi, const auto& kernel) {
      Box<3> b = cells();
      b.lo[d] = lo, b.hi[d] = hi;
      if (lo < hi) for_each(ctx_, name, b, kernel);
    };
    const WrappedPressureRhs3<T> rhs{s.velocity(), rhs_.view(), h_, dt_.device(), {wrap[0], wrap[1], wrap[2]}};
    halo_.start(*s.c[d], d);
    over_planes("fluid3d::pressure_rhs_wrapped", 0, n - 1, rhs);
    halo_.finish(*s.c[d], d);
    over_planes("fluid3d::pressure_rhs_wrapped", n - 1, n, rhs);
    marks_.mark("pressure rhs");  // (the normal faces' exchange within)
    distributed_->solve(rhs_.view(), p_.view());
    marks_.mark("pressure solve");
    const bool fills = projection_fills_ghosts();
    const auto k = box_projection(s, wrap, fills);
    halo_.start(p_, d);
    over_planes("fluid3d::project_box", n - 1, n, k);
    over_planes("fluid3d::project_box", 1, mid, k);
    halo_.finish(p_, d);
    over_planes("fluid3d::project_box", 0, 1, k);
    if (fills) halo_.start({s.c[0], s.c[1], s.c[2]}, d);
    over_planes("fluid3d::project_box", mid, n - 1, k);
    if (fills) halo_.finish({s.c[0], s.c[1], s.c[2]}, d);
  }  // (the caller marks the projection, the exchanges of p and the velocity within)

  /// Makes the state discretely divergence-free: A p = -div(u) / dt, then u -= dt grad p;
  /// guess_scale: what the last pressure is multiplied by as the first guess of an iterative solve.
  void project(const State<T>& s, double guess_scale = 1) {
    const View<T, 3> faces[3] = {s.c[0]->view(), s.c[1]->view(), s.c[2]->view()};
    const fft::FourierMultiplier3<T>* fused = transform_ && !distributed_obstacle_ && !obstacle_solver_ ? transform_->fused() : nullptr;
    if (fused) {  // gather and scatter inside our own kernels
      // a box periodic all round: the divergence wraps (no ghost fill); p and the right-hand side
      // stay in the transform's buffers (gather_pressure)
      for_each(ctx_, "fluid3d::pressure_rhs_staged", cells(),
               WrappedPressureRhs3<T, fft::StagedView3<T>>{s.velocity(), fused->staged(), h_, dt_.device(), {n_[0], n_[1], n_[2]}});
      marks_.mark("pressure rhs");
      fused->apply_staged();
      marks_.mark("pressure solve");
      Project3<T, fft::StagedView3<T>> k{{faces[0], faces[1], faces[2]}, fused->result(), ops_, h_, dt_.device()};
      if (projection_fills_ghosts())
        for (int d = 0; d < 3; ++d) k.wrap[d] = n_[d];
      for_each(ctx_, "fluid3d::project_staged", cells(), k);
      return;
    }
    if (parallel_ && !params_.obstacle && periodic_or_shared_sides()) {  // no fill: the normal components' exchanges alone
      index_t wrap[3];
      int shared = -1, shared_dims = 0;
      for (int d = 0; d < 3; ++d) {
        wrap[d] = walls_.side[2 * d] == Side::periodic ? n_[d] : 0;
        if (!wrap[d]) shared = d, ++shared_dims;
      }
      if (shared_dims == 1 && n_[shared] >= 3) return project_slab(s, wrap, shared);
      for (int d = 0; d < 3; ++d)
        if (!wrap[d]) halo_.start(*s.c[d], d), halo_.finish(*s.c[d], d);
      marks_.mark("normal faces' exchanges");
      for_each(ctx_, "fluid3d::pressure_rhs_wrapped", cells(),
               WrappedPressureRhs3<T>{s.velocity(), rhs_.view(), h_, dt_.device(), {wrap[0], wrap[1], wrap[2]}});
      marks_.mark("pressure rhs");
      distributed_->solve(rhs_.view(), p_.view());
      marks_.mark("pressure solve");
      halo_.exchange(p_);
      marks_.mark("pressure exchange");
      const bool fills = projection_fills_ghosts();  // (then the shared sides' exchanges, dimension by dimension)
      for_each(ctx_, "fluid3d::project_box", cells(), box_projection(s, wrap, fills));
      if (fills) {
        marks_.mark("projection");
        for (int d = 0; d < 3; ++d)
          if (!wrap[d]) halo_.exchange({s.c[0], s.c[1], s.c[2]}, d);
        marks_.mark("velocity exchanges");
      }
      return;
    }
    fill_ghosts(s, true);  // the high faces (periodic: the low faces' copies; outflow: predicted) for the divergence
    if (distributed_obstacle_) {  // several ranks: the distributed exact solve, then p's ghosts for the gradient
      for_each(ctx_, "fluid3d::pressure_rhs", cells(), PressureRhs3<T>{s.velocity(), rhs_.view(), h_, dt_.device()});
      distributed_obstacle_->solve(rhs_.view(), p_.view());
      halo_.exchange(p_);
      for_each(ctx_, "fluid3d::project_masked_box", cells(),
               Project3<T, View<const T, 3>, MaskedBoxPressure7<T>>{{faces[0], faces[1], faces[2]}, p_.view(), masked_box_ops_,
                                                                    h_, dt_.device()});
      return;
    }
    if (obstacle_solver_) {  // (a solid cell's faces are closed: its divergence, so its right-hand side, is 0)
      for_each(ctx_, "fluid3d::pressure_rhs", cells(), PressureRhs3<T>{s.velocity(), rhs_.view(), h_, dt_.device()});
      if (obstacle_transform_) {
        obstacle_transform_->solve(rhs_.view(), p_.view());
      } else {
        if (guess_scale != 1) p_ = p_ * T(guess_scale);
        obstacle_solver_->solve(rhs_.view(), p_.view());
      }
      for_each(ctx_, "fluid3d::project_masked", cells(),
               Project3<T, View<const T, 3>, solvers::MaskedPoisson7<T>>{{faces[0], faces[1], faces[2]}, p_.view(),
                                                                         obstacle_solver_->stencil(), h_, dt_.device()});
      return;
    }
    for_each(ctx_, "fluid3d::pressure_rhs", cells(), PressureRhs3<T>{s.velocity(), rhs_.view(), h_, dt_.device()});
    if (parallel_) {  // the distributed solve, then p's ghosts across the shared sides for the gradient
      distributed_->solve(rhs_.view(), p_.view());
      halo_.exchange(p_);
      for_each(ctx_, "fluid3d::project_box", cells(),
               Project3<T, View<const T, 3>, BoxPressure7<T>>{{faces[0], faces[1], faces[2]}, p_.view(), box_ops_, h_, dt_.device()});
      return;
    }
    if (mg_cg_) solve_mg_cg(p_);
    else transform_->solve(rhs_.view(), p_.view());
    for_each(ctx_, "fluid3d::project", cells(),
             Project3<T>{{faces[0], faces[1], faces[2]}, p_.view(), ops_, h_, dt_.device()});
  }

  /// Whether a step's projection is the fused transform solve (a periodic box on one rank, no
  /// obstacle, explicit viscosity), which leaves p and its right-hand side in the transform's
  /// buffers rather than in p_ and rhs_.
  bool fused_projection() const {
    return !distributed_obstacle_ && !obstacle_solver_ && !params_.implicit && transform_ && transform_->fused();
  }

  /// Whether every side of this rank's box is periodic (the box wraps along that dimension)
  /// or shared with another rank: no wall, inflow or outflow rule for a ghost fill to apply.
  bool periodic_or_shared_sides() const {
    for (int s = 0; s < 6; ++s)
      if (walls_.side[s] != Side::periodic && walls_.side[s] != Side::internal) return false;
    return true;
  }

  /// Whether the projection also writes the periodic copies of the faces into the ghost layers
  /// (Project3's wrap), so that no ghost fill precedes a momentum stage: the fused projection,
  /// and on several ranks the distributed one of a box periodic or shared on every side (which
  /// then exchanges the three components across the shared sides); without a dye (whose
  /// ghosts the momentum stage writes none of).
  bool projection_fills_ghosts() const {
    const bool decomposed = parallel_ && distributed_ && !distributed_obstacle_ && !params_.obstacle && !params_.implicit &&
                            periodic_or_shared_sides();
    return (fused_projection() || decomposed) && !has_dye();
  }

  /// The state's ghosts filled before steps that take them from the last projection, where
  /// something else (a restore, the initial state) wrote the state since.
  void ensure_state_ghosts() {
    if (projection_fills_ghosts() && !state_ghosts_current_) fill_ghosts(state());
    state_ghosts_current_ = true;
  }

  /// p_ and rhs_ from the fused solve's buffers, when steps ran since they were last current:
  /// two passes when something reads them (snapshots, checkpoints, diagnostics), none a stage.
  void gather_pressure() {
    if (!pressure_in_transform_) return;
    const fft::FourierMultiplier3<T>& fused = *transform_->fused();
    for_each(ctx_, "fluid3d::gather_pressure", cells(), GatherStaged3<T>{fused.result(), fused.staged(), p_.view(), rhs_.view()});
    pressure_in_transform_ = false;
  }

  /// ||rhs - A p|| / ||rhs|| of the last pressure solve (the right-hand side without its mean
  /// when every side is a wall or periodic, as the solve drops it); 0 before the first step.
  double pressure_residual() {
    if (last_dt_ == 0) return 0;
    if (params_.obstacle) {  // the mean over the fluid cells, as the solve drops it
      if (singular_) rhs_ = rhs_ - T(comm_.sum(double(sum(rhs_))) / fluid_cells_) * fluid_;
      if (parallel_)  // (p's shared ghosts: exchanged by the projection)
        for_each(ctx_, "fluid3d::pressure_apply_masked_box", cells(),
                 MaskedBoxPressure7Apply<T>{masked_box_ops_, p_.view(), div_.view()});
      else
        for_each(ctx_, "fluid3d::pressure_apply_masked", cells(),
                 solvers::MaskedPoisson7Apply<T>{obstacle_solver_->stencil(), p_.view(), div_.view()});
    } else {
      if (singular_) rhs_ = rhs_ - T(comm_.sum(double(sum(rhs_))) / gsize_);
      if (parallel_)  // (p's shared ghosts: exchanged by the projection)
        for_each(ctx_, "fluid3d::pressure_apply_box", cells(), BoxPressure7Apply<T>{box_ops_, p_.view(), div_.view()});
      else
        for_each(ctx_, "fluid3d::pressure_apply", cells(), solvers::Poisson7Apply<T>{ops_, p_.view(), div_.view()});
    }
    div_ = rhs_ - div_;
    const double b = std::sqrt(comm_.sum(double(dot(rhs_, rhs_))));
    return b > 0 ? std::sqrt(comm_.sum(double(dot(div_, div_)))) / b : 0.0;
  }

  /// The pressure solver around the obstacle (fluid_mask_ set), its tolerance from the config,
  /// and what --dry-run says of it: the exact transform solve with a capacitance correction
  /// where it applies, else conjugate gradients preconditioned by the diagonal.
  void make_obstacle_solver(const io::Config& c, const solvers::PoissonBox3& box) {
    obstacle_solver_ = std::make_unique<solvers::ObstacleCgPoisson3<T>>(ctx_, box, fluid_mask_);  // (its operator serves the projection either way)
    obstacle_solver_->set_tolerance(c.real("model", "pressure_tol"), int(c.integer("model", "pressure_max_iterations")));
    const std::string method = c.string("model", "pressure_solver");
    const std::string no_transform = solvers::obstacle_transform_unsupported(solvers::transform_box(box), fluid_mask_);
    if (method != "cg" && no_transform.empty()) {
      obstacle_transform_ = std::make_unique<solvers::ObstacleTransformPoisson3<T>>(ctx_, box, fluid_mask_);
      solver_note_ = std::string(method == "auto" ? "auto: an obstacle in a transformable box on one rank: the box's exact "
                                                    "transform solve with a capacitance correction on the obstacle's surface"
                                                  : "exact, by the box's transform solve with a capacitance correction") +
                     " (" + obstacle_transform_->description() + ")";
      return;
    }
    if (method == "transform")
      throw c.error_at("model", "pressure_solver", "the transform solve cannot take this obstacle: " + no_transform +
                                                       "; use pressure_solver = \"auto\" or \"cg\"");
    solver_note_ = std::string(method == "auto" ? "auto: cg, since " + no_transform : "cg, to pressure_tol") + " (" +
                   obstacle_solver_->description() + ")";
  }

  /// The pressure solver the config names for box (its operator in ops_, the plan note in
  /// solver_note_): the transform solve (auto, transform; one rank or distributed) or mg_cg
  /// (one rank; throws ConfigError on several).
  void choose_pressure_solver(const ModelSetup& setup, const solvers::PoissonBox3& box) {
    const io::Config& c = *setup.config;
    const std::string method = c.string("model", "pressure_solver");
    if (method == "mg_cg") {
      if (parallel_)
        throw c.error_at("model", "pressure_solver", "mg_cg in 3D runs on one rank, and this run is split over " +
                                                         std::to_string(setup.decomposition.ranks()) +
                                                         "; use pressure_solver = \"transform\"");
      pressure_tol_ = c.real("model", "pressure_tol");
      pressure_max_iterations_ = int(c.integer("model", "pressure_max_iterations"));
      try {
        mg_cg_ = std::make_unique<solvers::PoissonMgCg3<T>>(ctx_, solvers::poisson3_grid<T>(box));
      } catch (const Error& e) {  // a grid that does not halve far enough
        throw c.error_at("model", "pressure_solver", e.what());
      }
      ops_ = solvers::Poisson7<T>::of(box);
      const solvers::Multigrid3<T>& mg = mg_cg_->multigrid();
      char tol[32];
      std::snprintf(tol, sizeof tol, "%g", pressure_tol_);
      solver_note_ = "as asked, CG preconditioned by one multigrid V-cycle (" + std::to_string(mg.levels()) + " levels: " +
                     mg.description() + ", the last solved directly; " + std::to_string(mg.smoothing()) +
                     " red-black sweep(s) each way) to pressure_tol = " + tol +
                     "; \"transform\" solves this box exactly in one pass";
      return;
    }
    if (!parallel_) {  // BoxTransform3 takes the fastest exact path the sides allow (fused when periodic)
      ops_ = solvers::Poisson7<T>::of(box);
      transform_ = std::make_unique<solvers::BoxTransform3<T>>(ctx_, box);
      solver_note_ = std::string(method == "auto" ? "auto: a 3D box without obstacles on one rank, solved exactly by fast transforms"
                                                  : "exact, by fast transforms") +
                     " (" + transform_->description() + ")";
    } else {
      make_distributed_solver(setup, box);
      solver_note_ = std::string(method == "auto" ? "auto: a 3D box without obstacles, solved exactly by fast transforms "
                                                    "distributed over the ranks by all-to-all transposes"
                                                  : "exact, by fast transforms distributed over the ranks") +
                     " (" + distributed_->description() + ")";
    }
  }

  /// q = A^-1 rhs by mg_cg from the guess in q (the last pressure); throws Error when it misses pressure_tol.
  void solve_mg_cg(Field<T, 3>& q) {
    const solvers::SolveStats st = mg_cg_->solve(rhs_, q, pressure_tol_, pressure_max_iterations_);
    if (st.converged) return;
    char msg[480];
    if (st.stalled || st.iterations < pressure_max_iterations_)  // stopped before the cap: at rounding
      std::snprintf(msg, sizeof msg,
                    "fluid3d: the mg_cg pressure solve stalled at relative residual %.3g after %d iterations, above "
                    "pressure_tol = %g: the floor of %s on this grid; raise model.pressure_tol%s",
                    st.residual, st.iterations, pressure_tol_, sizeof(T) == 4 ? "float32" : "float64",
                    sizeof(T) == 4 ? " (to 1e-6, say) or use run.precision = \"float64\"" : "");
    else
      std::snprintf(msg, sizeof msg,
                    "fluid3d: the mg_cg pressure solve did not reach pressure_tol = %g in %d iterations (relative residual "
                    "%.3g); raise model.pressure_max_iterations or pressure_tol",
                    pressure_tol_, st.iterations, st.residual);
    throw Error(msg);
  }

  /// Every rank's box of the decomposition, in rank order; throws ConfigError when a box has
  /// fewer than 2 cells along a dimension.
  std::vector<Subdomain> rank_boxes(const ModelSetup& setup) const {
    const io::Config& c = *setup.config;
    const std::array<bool, 3> periodic = params_.periodic();
    std::vector<Subdomain> subs;
    for (int r = 0; r < setup.decomposition.ranks(); ++r) subs.push_back(setup.decomposition.subdomain(r, periodic.data()));
    for (const Subdomain& b : subs)  // the wall rules read two cells in from a side
      if (b.cells[0] < 2 || b.cells[1] < 2 || b.cells[2] < 2)
        throw c.error_at("grid", "cells", "the 3D fluid needs every rank's box to be at least 2 x 2 x 2 cells; the split " +
                                              setup.decomposition.text() + " leaves one of " + std::to_string(b.cells[0]) +
                                              " x " + std::to_string(b.cells[1]) + " x " + std::to_string(b.cells[2]) +
                                              "; use fewer ranks or more cells");
    return subs;
  }

  /// The distributed transform solve of box's problem over the decomposition's boxes, and this
  /// rank's view of the operator; throws ConfigError when a box has fewer than 2 cells along a dimension.
  void make_distributed_solver(const ModelSetup& setup, const solvers::PoissonBox3& box) {
    const std::vector<Subdomain> subs = rank_boxes(setup);
    solvers::TransformProblem<3> problem;
    for (int d = 0; d < 3; ++d) problem.cells[d] = box.n[d], problem.inv_h2[d] = box.inv_h2[d];
    for (int s = 0; s < 6; ++s) problem.sides[s] = box.sides[s];
    distributed_ = std::make_unique<solvers::DistributedTransformPoisson<T, 3>>(comm_, ctx_, problem, solvers::boxes_of<3>(subs));
    make_box_operator(box);
  }

  /// The pressure solver around the obstacle (fluid_mask_ set) on several ranks: the exact
  /// transform solve distributed over the decomposition's boxes with the capacitance
  /// correction, and this rank's view of the operator. Throws ConfigError where it does not
  /// apply (cg, the one-rank fallback, does not run decomposed) or a box is too small.
  void make_distributed_obstacle_solver(const ModelSetup& setup, const solvers::PoissonBox3& box) {
    const io::Config& c = *setup.config;
    const std::string method = c.string("model", "pressure_solver"), ranks = std::to_string(setup.decomposition.ranks());
    if (method == "cg")
      throw c.error_at("model", "pressure_solver", "cg around an obstacle on a 3D grid runs on one rank, and this run is "
                                                   "split over " + ranks + "; use pressure_solver = \"auto\" or \"transform\" "
                                                   "(the exact solve, distributed over the ranks)");
    const std::string no_transform = solvers::obstacle_transform_unsupported(solvers::transform_box(box), fluid_mask_);
    if (!no_transform.empty())
      throw c.error_at("model", method == "transform" ? "pressure_solver" : "obstacle",
                       "on several ranks the 3D fluid solves around an obstacle only by the transform solve with a "
                       "capacitance correction, which cannot take this one: " + no_transform +
                       "; run on one rank (where pressure_solver = \"cg\" takes it) or change the obstacle");
    const std::vector<Subdomain> subs = rank_boxes(setup);
    try {
      distributed_obstacle_ = std::make_unique<solvers::DistributedObstacleTransformPoisson<T, 3>>(
          comm_, ctx_, solvers::transform_box(box), fluid_mask_, solvers::boxes_of<3>(subs));
    } catch (const Error& e) {  // (a singular capacitance matrix: on every rank alike)
      throw c.error_at("model", "pressure_solver", e.what());
    }
    make_box_operator(box);
    solver_note_ = std::string(method == "auto" ? "auto: " + obstacle_name(c) + " in a transformable box split over " + ranks +
                                                      " ranks: the box's exact transform solve (distributed by all-to-all "
                                                      "transposes) with a capacitance correction on the obstacle's surface"
                                                : "exact, by the box's transform solve distributed over the ranks with a "
                                                  "capacitance correction") +
                   " (" + distributed_obstacle_->description() + ")";
  }

  /// "a sphere", "a box", "a cylinder", "a mask": the obstacle in words.
  static std::string obstacle_name(const io::Config& c) { return "a " + c.string("model", "obstacle"); }

  /// This rank's view of box's operator (box_ops_): its own cells, a shared side linked like an interior face.
  void make_box_operator(const solvers::PoissonBox3& box) {
    solvers::PoissonBox3 mine = box;  // this box's cells; its shared sides then linked like interior faces
    for (int d = 0; d < 3; ++d) mine.n[d] = n_[d];
    box_ops_.box = solvers::Poisson7<T>::of(mine);
    for (int s = 0; s < 6; ++s) {
      box_ops_.shared[s] = walls_.side[s] == Side::internal;
      if (box_ops_.shared[s]) box_ops_.box.side_c[s] = T(1), box_ops_.box.periodic[s / 2] = false;
    }
  }

  /// This rank's box of whole, an array over the whole grid's cells (row-major), row-major.
  template <class V>
  std::vector<V> box_part(const std::vector<V>& whole) const {
    std::vector<V> part(std::size_t(n_[0] * n_[1] * n_[2]));
    for (index_t i = 0; i < n_[0]; ++i)
      for (index_t j = 0; j < n_[1]; ++j)
        for (index_t k = 0; k < n_[2]; ++k)
          part[std::size_t((i * n_[1] + j) * n_[2] + k)] =
              whole[std::size_t(((i + sub_.offset[0]) * gn_[1] + j + sub_.offset[1]) * gn_[2] + k + sub_.offset[2])];
    return part;
  }

  /// Swaps the step's output in as the state.
  void flip() {
    recordings_.flip();
    for (int c = 0; c < 3; ++c) std::swap(u_[c], step_output()[c]);
    std::swap(d_, params_.stages == 2 ? d2_ : d1_);
  }

  Context ctx_;
  Comm comm_;
  Parameters params_;
  Grid<3> global_;  // the whole grid
  Subdomain sub_;   // this rank's box (the whole grid on one rank)
  Grid<3> grid_;    // this rank's box: the fields' shape
  Halo<T, 3> halo_;
  bool parallel_ = false;  // split over several ranks
  InitialVelocity init_;
  index_t n_[3] = {1, 1, 1}, gn_[3] = {1, 1, 1};  // cells of this box, and of the whole grid
  bool state_ghosts_current_ = false;  // the state's ghosts hold what a fill would (projection_fills_ghosts() steps keep them so)
  double gsize_ = 1;                                // cells of the whole grid
  Spacing3<T> h_{};
  Walls3<T> walls_;
  std::unique_ptr<solvers::BoxTransform3<T>> transform_;  // one rank without obstacles (not mg_cg)
  solvers::Poisson7<T> ops_;
  std::unique_ptr<solvers::DistributedTransformPoisson<T, 3>> distributed_;  // several ranks
  std::unique_ptr<solvers::PoissonMgCg3<T>> mg_cg_;                          // pressure_solver = "mg_cg" (one rank)
  double pressure_tol_ = 1e-8;
  int pressure_max_iterations_ = 1000;
  BoxPressure7<T> box_ops_;                                                  // several ranks: this box's operator
  MaskedBoxPressure7<T> masked_box_ops_;                                     // several ranks, obstacles: the same, masked
  std::string solver_note_;
  bool outflow_ = false;   // this box has the x_hi outflow
  bool singular_ = true;   // no Dirichlet side (no outflow): the pressure is known up to a constant
  std::vector<T> fluid_mask_;                                           // obstacles: the grid's fluid (1) and solid (0) cells
  std::array<std::vector<T>, 3> host_links_;                            // obstacles: the low-face links (host)
  Field<T, 3> links_[3], fluid_;                                        // the same, in the velocity fields' layout
  double fluid_cells_ = 1;
  std::unique_ptr<solvers::ObstacleCgPoisson3<T>> obstacle_solver_;    // obstacles: the operator, and its CG solve
  std::unique_ptr<solvers::ObstacleTransformPoisson3<T>> obstacle_transform_;  // obstacles: the exact solve, where it applies
  std::unique_ptr<solvers::DistributedObstacleTransformPoisson<T, 3>> distributed_obstacle_;  // obstacles on several ranks
  double p_scale_ = 1;     // the physical pressure over the last stage's (the force on the obstacle)
  StepInput dt_;  // the step's dt, read by the kernels from memory
  StreamMarks marks_;  // marked_step's (off: marks ignored)
  fluid::StepRecordings recordings_;  // the step, and the device-clocked ones, per buffer parity (steps swap buffers)
  fluid::ClockedBatches batches_;     // the batches of device-clocked steps (run_device_steps)
  AsyncReduction<SpeedTriple> speeds_;  // the largest face speeds of the latest state queued (device-clocked steps)
  RankReduction speed_max_;                   // several ranks: their maximum over the ranks, in place
  bool decomposed_recorded_ = false;    // several ranks: the step is recorded (set_up_clocked_steps)
  double last_dt_ = 0;
  Field<T, 3> u_[3], u1_[3], u2_[3];  // the state, and the stages' outputs
  Field<T, 3> centred_[3], vorticity_;  // derived, for snapshots
  Field<T, 3> d_, d1_, d2_;             // the passive dye: the state and the stages' outputs
  Field<T, 3> p_, rhs_, div_;
  bool pressure_in_transform_ = false;  // p_ and rhs_ are behind the fused solve's buffers (gather_pressure)
  // implicit viscosity
  fluid::ImplicitViscosity<T, 3> viscosity_;
  Walls3<T> homogeneous_;  // the ghost rules of the viscous solve's correction: no wall velocity, no inflow
  Field<T, 3> phi_;        // the pressure increment's solve
  Field<T, 3> carry_[3];   // implicit rk2: the trapezoidal corrector's carried state
  int last_viscous_iterations_ = 0;
};

}  // namespace fluid3d

std::unique_ptr<Model> make_fluid3d(const ModelSetup& setup) {
  if (setup.float64) return std::make_unique<fluid3d::FluidModel3<double>>(setup);
  return std::make_unique<fluid3d::FluidModel3<float>>(setup);
}

}  // namespace sim
