// The 2D incompressible fluid model: projection method on a MAC grid. Each stage: ghost
// fill, one fused momentum + dye kernel, ghost fill (outflow predictor), [implicit viscous
// solve], pressure Poisson solve (solvers/pressure_solver.hpp), one projection kernel. RK2
// (Heun) projects after both stages and is second order in time for the velocity; Euler
// projects once. Implicit viscosity: backward Euler with euler; with rk2 the IMEX pair of
// Heun (advection) and the trapezoidal rule (viscosity), second order, one viscous solve per
// step. Implicit viscosity uses the incremental pressure form (the predictor carries the old
// pressure gradient, the projection solves for the increment): without it the steady state
// would depend on dt through dt nu L grad p.
// On several ranks (mpirun) each holds a box of the grid: the ghost fill applies the
// physical rules on its own sides of the domain and exchanges the shared ones (rows, then
// columns, so corners match one rank's fill), the pressure solver works on the same boxes
// (solvers/), and diagnostics reduce over the ranks.
#include "models/fluid/fluid.hpp"
#include "models/fluid/fluid3d.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/array/expr.hpp"
#include "core/runtime/graph.hpp"
#include "core/distributed/halo.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/for_each_reduce.hpp"
#include "core/kernels/reduce_async.hpp"
#include "core/runtime/step_input.hpp"
#include "core/runtime/tuning.hpp"
#include "io/config.hpp"
#include "models/boundary_config.hpp"
#include "models/field_ref.hpp"
#include "models/fluid/fluid_kernels.hpp"
#include "models/fluid/implicit_viscosity.hpp"
#include "solvers/extrapolation.hpp"
#include "solvers/pressure_solver.hpp"
#include "solvers/time_integrators.hpp"

namespace sim {
namespace fluid {

/// The kernels' side of a face of this kind (the schema admits wall, periodic, inflow, outflow).
inline Side side_of(BcKind k) {
  return k == BcKind::periodic  ? Side::periodic
         : k == BcKind::inflow  ? Side::inflow
         : k == BcKind::outflow ? Side::outflow
                                : Side::wall;
}

/// The [boundary] condition of side k (0 x_lo, 1 x_hi, 2 y_lo, 3 y_hi).
inline const FaceBc& face_of(const Boundary<2>& b, int k) { return k % 2 ? b.hi[k / 2] : b.lo[k / 2]; }

/// Initial face velocities and dye (host side, once).
struct InitialState {
  std::string kind, dye;
  double amplitude = 1, length[2] = {1, 1};
  /// u on the low x-face of cell (i, j) at (x, y); v likewise on the low y-face.
  double u(double x, double y) const {
    if (kind == "taylor_green") return amplitude * std::sin(2 * M_PI * x / length[0]) * std::cos(2 * M_PI * y / length[1]);
    return kind == "uniform" ? amplitude : 0.0;
  }
  double v(double x, double y) const {
    if (kind == "taylor_green")
      return -amplitude * length[1] / length[0] * std::cos(2 * M_PI * x / length[0]) * std::sin(2 * M_PI * y / length[1]);
    return 0.0;
  }
  double d(double x, double y) const {
    if (dye == "stripes") return double(int(std::floor(8 * y / length[1])) % 2);
    if (dye == "half") return x < 0.5 * length[0] ? 1.0 : 0.0;
    return 0.0;
  }
};

/// Coefficients of one momentum stage (see MomentumStage): weights, and the dt-proportional
/// ones as multiples of dt (the kernel reads dt from memory). The schemes build them by name.
struct StageCoefficients {
  double w = 0;        ///< weight of the base state u0
  double a = 1;        ///< weight of the input state
  double f_adv = 1;    ///< advection of the input, times dt
  double f_visc = 1;   ///< explicit viscosity of the input, times dt
  double f_p = 0;      ///< the old pressure's gradient, times dt (incremental projection)
  double w_dye = 0;    ///< weight of the base dye
  double f_carry = 0;  ///< the carried state's explicit terms, times dt (0: no carry)
  double f_theta = 0;  ///< theta of the implicit viscous solve that follows, over dt (0: none)

  /// A Shu-Osher stage of an explicit scheme: out = w u0 + (1 - w)(in + dt (nu lap - adv)(in)), the dye alike.
  static StageCoefficients explicit_stage(double w) {
    StageCoefficients c;
    c.w = w, c.a = 1 - w, c.f_adv = c.f_visc = 1 - w, c.w_dye = w;
    return c;
  }
  /// The predictor of an implicit-viscosity scheme with weight theta on the new state:
  /// out = in + dt ((1 - theta) nu lap - adv - grad p)(in), solved next with (I - theta dt nu L);
  /// carry > 0 also keeps in + carry dt (nu lap - adv - grad p)(in) for a corrector.
  static StageCoefficients implicit_predictor(double theta, double carry) {
    StageCoefficients c;
    c.f_visc = 1 - theta, c.f_p = 1, c.f_carry = carry, c.f_theta = theta;
    return c;
  }
  /// The trapezoidal corrector: out = carried + dt/2 (nu lap - adv - grad p)(in), the dye by Heun's second stage.
  static StageCoefficients trapezoidal_corrector() {
    StageCoefficients c;
    c.w = 1, c.a = 0, c.f_adv = c.f_visc = c.f_p = 0.5, c.w_dye = 0.5;
    return c;
  }
};

/// This rank's box of the setup's grid (periodic dimensions wrap over the ranks).
inline Subdomain fluid_subdomain(const ModelSetup& setup) {
  const Boundary<2> faces = boundary_from_config<2>(*setup.config);
  const bool periodic[3] = {faces.lo[0].kind == BcKind::periodic, faces.lo[1].kind == BcKind::periodic, false};
  return setup.subdomain(periodic);
}

template <class T>
class FluidModel final : public Model {
 public:
  explicit FluidModel(const ModelSetup& setup)
      : ctx_(setup.ctx), comm_(setup.comm), sub_(fluid_subdomain(setup)), global_(setup.grid.grid<2>()),
        grid_(box_grid(global_, sub_)), halo_(comm_, sub_, grid_.ghost, ctx_, HaloUse::blocking) {
    const io::Config& c = *setup.config;
    dt_ = StepInput(ctx_);
    dt_source_ = dt_.device();
    nx_ = grid_.cells.n[0], ny_ = grid_.cells.n[1];
    gnx_ = global_.cells.n[0], gny_ = global_.cells.n[1];
    hx_ = grid_.dx[0], hy_ = grid_.dx[1];
    nu_ = c.real("model", "viscosity");
    kappa_ = c.real("model", "dye_diffusivity");
    rk2_ = c.string("model", "time_scheme") == "rk2";
    implicit_ = c.string("model", "viscous_scheme") == "implicit";
    viscous_tol_ = c.real("model", "viscous_tol");
    viscous_max_iterations_ = int(c.integer("model", "viscous_max_iterations"));
    upwind_weight_ = c.string("model", "advection") == "upwind" ? c.real("model", "upwind_weight") : 0.0;
    tol_ = c.real("model", "pressure_tol");
    max_iterations_ = int(c.integer("model", "pressure_max_iterations"));
    init_.kind = c.string("model", "init");
    init_.dye = c.string("model", "dye");
    init_.amplitude = c.real("model", "init_velocity");
    init_.length[0] = hx_ * double(gnx_), init_.length[1] = hy_ * double(gny_);

    const Boundary<2> faces = boundary_from_config<2>(c);
    solvers::PressureSide psides[4];
    for (int k = 0; k < 4; ++k) {
      bc_.side[k] = side_of(face_of(faces, k).kind);
      psides[k] = solvers::pressure_side(face_of(faces, k).kind);
      if (bc_.side[k] == Side::wall) bc_.wall_velocity[k] = T(face_of(faces, k).value);
    }
    check_sides(c);
    outflow_ = bc_.side[1] == Side::outflow;
    const bool inflow = bc_.side[0] == Side::inflow;
    if (inflow) bc_.inflow_velocity = T(face_of(faces, 0).value);
    for (int k = 0; k < 4; ++k)
      if (!sub_.at_boundary(k / 2, k % 2)) bc_.side[k] = Side::internal;
    bc_.parabolic = c.string("model", "inflow_profile") == "parabolic";
    bc_.dye_pattern = init_.dye == "stripes" ? 1 : 0;
    has_dye_ = init_.dye != "none";  // no initial dye: none flows in either, and d stays 0
    bc_.nx = nx_, bc_.ny = ny_, bc_.hx = T(hx_), bc_.hy = T(hy_);
    choose_solve_start(c);
    bc_.oy = sub_.offset[1], bc_.ny_global = gny_;
    bc0_ = bc_;  // the homogeneous rules of the implicit viscous solve: no lid, no inflow
    for (T& w : bc0_.wall_velocity) w = T(0);
    bc0_.inflow_velocity = T(0);
    // the speed scale of a start at rest: the inflow's peak where there is one, else 1 m/s,
    // or a wall's or the initial flow's speed where faster
    u_max_hint_ = std::max(std::abs(inflow ? face_of(faces, 0).value : 1.0) * (bc_.parabolic ? 1.5 : 1.0),
                           std::abs(init_.amplitude) * (init_.kind == "rest" ? 0.0 : 1.0));
    for (int k = 0; k < 4; ++k)
      if (face_of(faces, k).kind == BcKind::wall) u_max_hint_ = std::max(u_max_hint_, std::abs(face_of(faces, k).value));

    const std::vector<T> fluid = obstacle_mask(c);
    const solvers::PoissonGrid<T> pgrid =
        solvers::make_poisson_grid<T>(gnx_, gny_, hx_, hy_, psides, fluid.empty() ? nullptr : &fluid);
    singular_ = pgrid.singular;
    solvers::PoissonPartition part;
    part.comm = comm_;
    part.boxes = {sub_};
    if (setup.decomposition.ranks() > 1) {
      part.boxes.clear();
      const bool periodic[3] = {psides[0] == solvers::PressureSide::periodic, psides[2] == solvers::PressureSide::periodic, false};
      for (int r = 0; r < setup.decomposition.ranks(); ++r) part.boxes.push_back(setup.decomposition.subdomain(r, periodic));
      for (const Subdomain& box : part.boxes)  // the wall rules read two cells in from a side
        if (box.cells[0] < 2 || box.cells[1] < 2)
          throw c.error_at("grid", "cells", "the fluid model needs every rank's box to be at least 2 x 2 cells; the split " +
                                                setup.decomposition.text() + " leaves one of " + std::to_string(box.cells[0]) +
                                                " x " + std::to_string(box.cells[1]) + "; use fewer ranks or more cells");
    }
    method_ = c.string("model", "pressure_solver");
    if (method_ == "auto") {
      const solvers::SolverChoice choice =
          solvers::choose_poisson_solver(pgrid, int(part.boxes.size()), "a " + c.string("model", "obstacle"));
      method_ = choice.name, solver_note_ = choice.reason;
    }
    try {
      solver_ = std::make_unique<solvers::PoissonSolver<T>>(ctx_, pgrid, part, solvers::poisson_method(method_),
                                                            multigrid_options(c));
    } catch (const Error& e) {
      throw c.error_at("model", "pressure_solver", e.what());
    }
    links_ = solver_->level().stencil;  // views into the solver's coefficient arrays
    if (solver_->exact()) solver_note_ += " (" + solver_->transform_description() + ")";

    for (Field<T, 2>* f : {&u_, &v_, &dye_, &u_stage1_, &v_stage1_, &dye_stage1_, &u_stage2_, &v_stage2_, &dye_stage2_, &uc_, &vc_, &vort_})
      *f = Field<T, 2>(ctx_, grid_), f->fill(T(0));
    if (implicit_) {
      for (Field<T, 2>* f : {&u_carry_, &v_carry_, &scratch_}) *f = Field<T, 2>(ctx_, grid_), f->fill(T(0));
      viscosity_ = ImplicitViscosity<T>(ctx_, grid_, comm_);
    }
    const solvers::PoissonLevel<T>& level = solver_->level();
    p_ = level.make_field(), rhs_ = level.make_field(), div_ = level.make_field();
    if (implicit_) phi_ = level.make_field();
    extrapolate_ = extrapolate_ && !solver_->exact();  // (the transform solves exactly: it takes no guess)
    if (extrapolate_)
      for (int k = 0; k < guess_order_; ++k) p_history_[k] = level.make_field(), p_history_[k].fill(T(0));
    speeds_ = AsyncReduction<SpeedPair>(ctx_);
    speed_pass_ = ForEachReduce<SpeedPair, LargerSpeeds>(ctx_, LargerSpeeds{}, SpeedPair{0.0, 0.0});
    rhs_sum_ = AsyncReduction<double>(ctx_), rhs_sum_slot_ = Array<double, 1>(ctx_, Extents<1>{{1}});
    queue_speeds(u_, v_);  // sizes its scratch space now, not while a step is recorded
    ctx_.synchronize();
  }

  /// Queues the reduction of max |u|, max |v| (speeds_).
  void queue_speeds(const Field<T, 2>& u, const Field<T, 2>& v) {
    speeds_.queue("fluid::face_speeds", box(), FaceSpeeds<T>{u.view(), v.view()}, LargerSpeeds{}, SpeedPair{0.0, 0.0});
  }

  std::vector<FieldRef> fields() override {
    const Extents<2>& all = global_.cells;
    std::vector<FieldRef> f = {field_ref("u_face", "m/s", u_, sub_, all), field_ref("v_face", "m/s", v_, sub_, all),
                               field_ref("p", "m^2/s^2", p_, sub_, all),  field_ref("dye", "1", dye_, sub_, all),
                               field_ref("u", "m/s", uc_, sub_, all),     field_ref("v", "m/s", vc_, sub_, all),
                               field_ref("vorticity", "1/s", vort_, sub_, all)};
    f[0].snapshot = f[1].snapshot = false;                                  // state on faces: checkpoints only
    f[4].checkpointed = f[5].checkpointed = f[6].checkpointed = false;      // derived: snapshots only
    if (extrapolate_)  // the earlier steps' pressures, for the next guess: checkpoints only (restarts stay bit-identical;
      for (int k = 0; k < guess_order_; ++k) {  // a checkpoint without them, or of another degree, restarts the history)
        f.push_back(field_ref("p_history_" + std::to_string(k + 1), "m^2/s^2", p_history_[k], sub_, all));
        f.back().snapshot = false, f.back().optional = true;
      }
    return f;
  }

  void initialize() override {
    speeds_on_host_ = speeds_on_device_ = false;
    std::vector<T> hu(std::size_t(nx_ * ny_)), hv(hu.size()), hd(hu.size());
    for (index_t i = 0; i < nx_; ++i)
      for (index_t j = 0; j < ny_; ++j) {  // global coordinates (the same bits on any split)
        const index_t gi = i + sub_.offset[0], gj = j + sub_.offset[1];
        const double xf = global_.origin[0] + double(gi) * hx_, yc = global_.center(1, gj);
        const double xc = global_.center(0, gi), yf = global_.origin[1] + double(gj) * hy_;
        const std::size_t k = std::size_t(i * ny_ + j);
        hu[k] = T(init_.u(xf - global_.origin[0], yc - global_.origin[1]));
        hv[k] = T(init_.v(xc - global_.origin[0], yf - global_.origin[1]));
        hd[k] = T(init_.d(xc - global_.origin[0], yc - global_.origin[1]));
      }
    detail::copy_from_host<T, 2>(ctx_, hu.data(), u_.view());
    detail::copy_from_host<T, 2>(ctx_, hv.data(), v_.view());
    detail::copy_from_host<T, 2>(ctx_, hd.data(), dye_.view());
    p_.fill(T(0));
    if (extrapolate_) {
      for (int k = 0; k < guess_order_; ++k) p_history_[k].fill(T(0));
      pressure_solves_ = 0, history_spacing_ = {0, 0, 0};
    }
    // Start from a divergence-free field that satisfies the boundary conditions.
    fill_ghosts(u_, v_, dye_, true);
    dt_.set(1.0), dt_.upload();
    project(u_, v_);
    p_.fill(T(0));
    fill_ghosts(u_, v_, dye_, false);
  }

  /// Advances by dt. A step with no host round trip (explicit viscosity, the transform solver,
  /// one rank) is recorded once per buffer parity (steps swap buffers) and replayed: one
  /// launch a step, with dt read from memory.
  void step(double dt) override {
    last_iterations_ = last_viscous_iterations_ = 0;
    last_dt_ = dt;
    dt_.set(dt);
    const bool recordable = !implicit_ && solver_->exact_on_one_rank();  // (one rank: on several, the transposes and halos go through the host)
    if (recordable) {
      // with an adaptive dt (next_dt() was called) the recording ends with what the next
      // next_dt() needs, so that one launch and one wait make a step
      const bool speeds = adaptive_calls_;
      Recorded& r = recorded_[parity_][speeds];
      if (!r.valid())  // on the CPU each replay calls this
        r = record(ctx_, [this, speeds] {
          projections_to_fuse_ = speeds ? (rk2_ ? 2 : 1) : 0;  // the last projection also reduces the speeds
          dt_.upload(), advance(dt_.value());
          if (speeds && projections_to_fuse_ != 0) queue_speeds(rk2_ ? u_stage2_ : u_stage1_, rk2_ ? v_stage2_ : v_stage1_);
        });
      r.replay();
      speeds_on_host_ = speeds_on_device_ = speeds;
    } else {
      dt_.upload();
      advance(dt);
      speeds_on_host_ = speeds_on_device_ = false;
    }
    flip();
  }

  /// Steps whose dt the device chooses (Model::run_device_steps): the recordable step (one
  /// rank, explicit viscosity, the transform solver) recorded as a device loop (both buffer
  /// parities, per starting parity) on clock.running(): one launch runs every step up to the
  /// clock's horizon, each ending with next_dt()'s formula on the speeds its projection
  /// reduced. The same bits as step by step.
  std::int64_t run_device_steps(DeviceClock& clock, double cfl) override {
    if (implicit_ || !solver_->exact_on_one_rank() || comm_.parallel()) return -1;
    adaptive_calls_ = true;
    if (clocked_for_ != std::pair<const void*, double>{clock.state(), cfl}) {
      clocked_[0] = clocked_[1] = Recorded{};
      clocked_for_ = {clock.state(), cfl};
    }
    if (!speeds_on_device_) queue_speeds(u_, v_), speeds_on_device_ = true;
    for_each(ctx_, "fluid::first_dt", Box<1>{{0}, {1}}, BeginClockStep<CflDt>{clock.state(), cfl_dt(cfl)});
    const std::int64_t first = clock.host().step;
    Recorded& r = clocked_[parity_];  // the loop that starts from this buffer parity
    if (!r.valid())
      r = record_loop(ctx_, clock.running(), [this, c = clock.state(), cfl](int odd, const LoopSignal& signal) {
        if (odd) flip();
        clocked_step(c, cfl, signal);
        if (odd) flip();
      });
    r.replay();
    const std::int64_t ran = clock.read().step - first;
    if (ran % 2 != 0) flip();
    if (ran > 0) last_dt_ = clock.host().dt, speeds_on_host_ = false, speeds_on_device_ = true;
    return ran;
  }

  bool adaptive_dt() const override { return true; }

  /// next_dt(cfl)'s formula on the device, from the speeds of the latest reduction.
  CflDt cfl_dt(double cfl) const { return CflDt{speeds_.result(), cfl, hx_, hy_, viscous_rate(), u_max_hint_}; }

  /// The step of a device clock c (run_device_steps), while it is recorded: dt read from the
  /// clock, the speeds reduced on the device only, and the next step's dt chosen at the end
  /// (by the last block of the projection that reduces the speeds, or a kernel of its own).
  void clocked_step(ClockState* c, double cfl, const LoopSignal& signal) {
    dt_source_ = &c->dt;
    clock_to_end_ = c, clock_cfl_ = cfl, clock_signal_ = signal;
    projections_to_fuse_ = rk2_ ? 2 : 1;  // the last projection also reduces the speeds
    advance(dt_.value());
    if (projections_to_fuse_ != 0) queue_speeds(rk2_ ? u_stage2_ : u_stage1_, rk2_ ? v_stage2_ : v_stage1_);
    if (clock_to_end_) for_each(ctx_, "fluid::end_step", Box<1>{{0}, {1}}, EndClockStep<CflDt>{c, cfl_dt(cfl), signal});
    dt_source_ = dt_.device();
    clock_to_end_ = nullptr;
  }

  /// Swaps the step's output buffers in as the state (and the recorded steps' parity).
  void flip() {
    parity_ ^= 1;
    if (rk2_) std::swap(u_, u_stage2_), std::swap(v_, v_stage2_), std::swap(dye_, dye_stage2_);
    else std::swap(u_, u_stage1_), std::swap(v_, v_stage1_), std::swap(dye_, dye_stage1_);
  }

  /// The stages of one step from (u_, v_, dye_) into (u_stage1_, ...) or (u_stage2_, ...), dt uploaded. The
  /// explicit schemes are the solvers' forward Euler and Heun (Shu-Osher form) over the stage
  /// "momentum, then projection"; the implicit-viscosity ones predict, solve, project the increment.
  void advance(double dt) {
    if (!implicit_) {
      State s0{&u_, &v_, &dye_}, s1{&u_stage1_, &v_stage1_, &dye_stage1_}, s2{&u_stage2_, &v_stage2_, &dye_stage2_};
      auto update = [this](State& in, State& out, double, double w, State& base) {
        fill_ghosts(*in.u, *in.v, *in.d, false);
        stage(*in.u, *in.v, *in.d, *out.u, *out.v, *out.d, StageCoefficients::explicit_stage(w), *base.u, *base.v);
        scale_pressure_guess(1 - w);
        if (extrapolate_) pressure_guess(p_, last_dt_);
        project(*out.u, *out.v);
      };
      if (rk2_) solvers::rk2_step(update, s0, s1, s2, dt);
      else solvers::euler_step(update, s0, s1, dt);
      return;
    }
    fill_ghosts(u_, v_, dye_, false);
    if (!rk2_) {  // backward Euler viscosity: (I - dt nu L) u1 = u - dt (adv(u) + grad p), then the increment's projection
      stage(u_, v_, dye_, u_stage1_, v_stage1_, dye_stage1_, StageCoefficients::implicit_predictor(1, 0), u_, v_);
      solve_viscous(u_stage1_, v_stage1_, dye_stage1_, dt);
      outflow_pressure_face(u_stage1_);
      project_increment(u_stage1_, v_stage1_, true);
    } else {  // (I - dt/2 nu L) U = u + dt (nu/2 L u - adv(u) - grad p); then u + dt/2 (F(u) + F(U)), F = nu L - adv - grad p
      stage(u_, v_, dye_, u_stage1_, v_stage1_, dye_stage1_, StageCoefficients::implicit_predictor(0.5, 0.5), u_, v_);
      solve_viscous(u_stage1_, v_stage1_, dye_stage1_, 0.5 * dt);
      outflow_pressure_face(u_stage1_);
      project_increment(u_stage1_, v_stage1_, false);
      fill_ghosts(u_stage1_, v_stage1_, dye_stage1_, false);
      stage(u_stage1_, v_stage1_, dye_stage1_, u_stage2_, v_stage2_, dye_stage2_, StageCoefficients::trapezoidal_corrector(), u_carry_, v_carry_);
      outflow_pressure_face(u_stage2_);
      project_increment(u_stage2_, v_stage2_, true);
    }
  }

  /// The fields of one state, for the solvers' explicit schemes.
  struct State {
    Field<T, 2>*u, *v, *d;
  };

  double next_dt(double cfl) override {
    adaptive_calls_ = true;
    const SpeedPair s = speeds_on_host_ ? speeds_.wait()
                                       : reduce(ctx_, "fluid::face_speeds", box(), FaceSpeeds<T>{u_.view(), v_.view()},
                                                LargerSpeeds{}, SpeedPair{0.0, 0.0});
    const double um = std::max(comm_.max(s.u), u_max_hint_), vm = comm_.max(s.v);
    return cfl / (um / hx_ + vm / hy_ + viscous_rate());
  }

  double default_dt(double cfl) const override {
    const double speed = std::max(u_max_hint_, 1e-300);
    return cfl / (speed / hx_ + speed / hy_ + viscous_rate());
  }

  double stable_dt() const override { return default_dt(1.0); }

  std::vector<Diagnostic> diagnostics() override {
    for_each(ctx_, "fluid::divergence", box(), Divergence<T>{u_.view(), v_.view(), div_.view(), links_, T(1 / hx_), T(1 / hy_)});
    const double um = comm_.max(double(norm_max(u_))), vm = comm_.max(double(norm_max(v_)));
    std::vector<Diagnostic> diag = {{"kinetic_energy", "m^4/s^2", 0.5 * hx_ * hy_ * comm_.sum(double(dot(u_, u_) + dot(v_, v_)))},
            {"max_divergence", "1/s", comm_.max(double(norm_max(div_)))},
            {"cfl", "", last_dt_ * (um / hx_ + vm / hy_)},
            {"pressure_iterations", "", double(last_iterations_)},
            {"pressure_residual", "", solver_->exact() ? transform_residual() : last_residual_}};
    if (implicit_) diag.push_back({"viscous_iterations", "", double(last_viscous_iterations_)});
    return diag;
  }

  void prepare_output() override {
    fill_ghosts(u_, v_, dye_, false);
    for_each(ctx_, "fluid::cell_outputs", box(),
             CellOutputs<T>{u_.view(), v_.view(), uc_.view(), vc_.view(), vort_.view(), T(1 / hx_), T(1 / hy_)});
  }

  double cell_updates_per_step() const override { return double(gnx_ * gny_); }

  /// Whole-field passes of a recordable step (explicit viscosity, transform solver): momentum
  /// 4 (+2 with dye), pressure right-hand side 3, transform solve 10 (gather 2, forward FFT 2,
  /// multiply 2, inverse FFT 2, scatter 2), projection 5; twice with rk2. The iterative solvers'
  /// traffic depends on their iterations: not declared.
  double bytes_per_step() const override {
    if (implicit_ || !solver_->transform()) return 0;
    const double passes = (has_dye_ ? 24 : 22) * (rk2_ ? 2 : 1);
    return passes * double(gnx_ * gny_) * double(sizeof(T));
  }

  std::vector<std::string> plan_notes() const override {
    return {"pressure solver " + method_ + (solver_note_.empty() ? "" : ": " + solver_note_)};
  }

  void save_state(std::map<std::string, std::uint64_t>& counters, std::map<std::string, double>& reals) const override {
    reals["fluid_last_dt"] = last_dt_;
    if (!extrapolate_) return;
    counters["fluid_pressure_solves"] = std::uint64_t(pressure_solves_);
    counters["fluid_guess_order"] = std::uint64_t(guess_order_);
    for (int k = 0; k < 3; ++k) reals["fluid_history_spacing_" + std::to_string(k + 1)] = history_spacing_[k];
  }
  void load_state(const std::map<std::string, std::uint64_t>& counters, const std::map<std::string, double>& reals) override {
    if (reals.count("fluid_last_dt")) last_dt_ = reals.at("fluid_last_dt");
    if (!extrapolate_) return;
    // the history the checkpoint holds is used only if it is of this run's degree (a checkpoint
    // written before the guess, or with another pressure_tol, starts it afresh: the next steps
    // solve from p, then extrapolate again as the history refills)
    const auto order = counters.find("fluid_guess_order");
    const bool same = order != counters.end() && int(order->second) == guess_order_ && counters.count("fluid_pressure_solves");
    pressure_solves_ = same ? int(counters.at("fluid_pressure_solves")) : 0;
    for (int k = 0; k < 3; ++k) {
      const auto it = reals.find("fluid_history_spacing_" + std::to_string(k + 1));
      history_spacing_[k] = it == reals.end() ? 0.0 : it->second;
    }
    speeds_on_host_ = speeds_on_device_ = false;
  }

  /// The pressure solver (for benchmarks and tests).
  const solvers::PoissonSolver<T>& solver() const { return *solver_; }

 private:
  /// The pressure guess and stage-fill choices: the [model] key where the file sets it, else
  /// the tuning knob where set, else the default.
  void choose_solve_start(const io::Config& c) {
    // With a wall on every side of one rank, an explicit stage's output needs no fill before its
    // projection: the momentum stage gives the closed faces at i = 0 and j = 0 their 0, the
    // faces at nx and ny hold the 0 every fill gave them (nothing else writes them), and the
    // projection reads no ghost; the next stage fills its input. model.fill_every_stage fills
    // anyway (for the test that compares the two).
    const bool walls = bc_.side[0] == Side::wall && bc_.side[1] == Side::wall && bc_.side[2] == Side::wall &&
                       bc_.side[3] == Side::wall;
    if (c.is_set("model", "pressure_guess_scale")) scale_guess_ = c.boolean("model", "pressure_guess_scale");
    else if (const int knob = tuning::current().fluid_scale_guess; knob >= 0) scale_guess_ = knob == 1;
    guess_weight_ = rk2_ ? 0.5 : 1.0;
    // A cubic through the last four pressures when they are solved tightly; a line when the
    // tolerance is loose, since extrapolation multiplies each pressure's own error (by 3 for a
    // line, 15 for a cubic: a loose tolerance then needs more iterations with a cubic)
    guess_order_ = tol_ < 1e-6 ? 3 : 1;
    const std::string& order = c.string("model", "pressure_guess_order");
    if (c.is_set("model", "pressure_guess_order")) {
      if (order != "auto") guess_order_ = order == "last" ? 0 : order == "linear" ? 1 : 3;
    } else if (const int knob = tuning::current().fluid_guess_order; knob >= 0) {
      guess_order_ = knob;
    }
    extrapolate_ = !rk2_ && guess_order_ > 0;
    const bool fill_every_stage = c.is_set("model", "fill_every_stage") ? c.boolean("model", "fill_every_stage")
                                                                         : tuning::current().fluid_fill_every_stage == 1;
    fill_stage_output_ = !walls || implicit_ || fill_every_stage;
  }
  /// The multigrid's options: the smoothing counts of model.pressure_mg_smooth where the file
  /// sets them (0: the precision's default), else SIMKIT_MG_SMOOTH's or the default.
  static solvers::MgOptions multigrid_options(const io::Config& c) {
    solvers::MgOptions mg;
    if (c.is_set("model", "pressure_mg_smooth")) {
      const std::vector<std::int64_t>& sweeps = c.integers("model", "pressure_mg_smooth");
      mg.pre_smooth = int(sweeps[0]), mg.post_smooth = int(sweeps[1]);
      mg.smoothing_from_config = true;
    }
    return mg;
  }
  Box<2> box() const { return Box<2>{{0, 0}, {nx_, ny_}}; }
  /// The explicit diffusion limit's rate (viscosity counts only when explicit).
  double viscous_rate() const { return 2 * std::max(implicit_ ? 0.0 : nu_, kappa_) * (1 / (hx_ * hx_) + 1 / (hy_ * hy_)); }

  /// Inflow on x_lo only (with its speed given), outflow on x_hi only: the flow runs along +x.
  /// (boundary_from_config checked the periodic pairs.)
  void check_sides(const io::Config& c) const {
    for (int k = 0; k < 4; ++k) {
      const std::string face = face_name({k / 2, k % 2}), key = c.is_set("boundary", face) ? face : "default";
      if (bc_.side[k] == Side::inflow && k != 0)
        throw c.error_at("boundary", key, "inflow is supported on x_lo only (flow along +x); set " + face + " = \"wall\"");
      if (bc_.side[k] == Side::outflow && k != 1)
        throw c.error_at("boundary", key, "outflow is supported on x_hi only (flow along +x); set " + face + " = \"wall\"");
    }
    if (bc_.side[0] == Side::inflow && !c.is_set("boundary", "x_lo_value") && !c.is_set("boundary", "default_value"))
      throw c.error_at("boundary", "x_lo", "an inflow needs its mean velocity: set x_lo_value (m/s), e.g. x_lo_value = 1.0");
  }

  /// Host mask of the whole grid's fluid cells (1) and obstacle cells (0); empty without an obstacle.
  std::vector<T> obstacle_mask(const io::Config& c) const {
    const std::string kind = c.string("model", "obstacle");
    if (kind == "none") return {};
    const std::vector<double>& centre = c.reals("model", "obstacle_center");
    const std::vector<double>& size = c.reals("model", "obstacle_size");
    if (centre.size() != 2) throw c.error_at("model", "obstacle_center", "expected 2 coordinates [x, y]");
    if (size.size() != 2) throw c.error_at("model", "obstacle_size", "expected 2 lengths [width, height]");
    const double r = c.real("model", "obstacle_radius");
    std::vector<T> f(std::size_t(gnx_ * gny_), T(1));
    index_t solid = 0;
    for (index_t i = 0; i < gnx_; ++i)
      for (index_t j = 0; j < gny_; ++j) {
        const double x = global_.center(0, i) - centre[0], y = global_.center(1, j) - centre[1];
        const bool inside = kind == "cylinder" ? x * x + y * y <= r * r
                                               : std::abs(x) <= 0.5 * size[0] && std::abs(y) <= 0.5 * size[1];
        if (inside) f[std::size_t(i * gny_ + j)] = T(0), ++solid;
      }
    if (solid == 0)
      throw c.error_at("model", "obstacle", "the " + kind + " covers no cell centre; enlarge it or refine the grid");
    if (solid == gnx_ * gny_) throw c.error_at("model", "obstacle", "the " + kind + " covers the whole domain");
    return f;
  }

  /// Every ghost of (u, v, d) by the boundary rules b: the y-sides, then the x-sides over
  /// rows that include the y-ghost rows (corners), exchanging shared sides in the same order.
  /// with_dye = false leaves d's shared ghosts alone (d a stand-in, as in the viscous solve).
  void fill_ghosts(Field<T, 2>& u, Field<T, 2>& v, Field<T, 2>& d, bool predict, const BoundarySpec<T>& b,
                   bool with_dye = true) {
    if (!comm_.parallel() && nx_ >= 2 && ny_ >= 2) {  // one launch: the x-rules read the y-rules' values
      for_each(ctx_, "fluid::fill_sides", Box<1>{{0}, {nx_ + ny_ + 2}}, FillSides<T>{b, u.view(), v.view(), d.view(), predict});
      return;
    }
    for_each(ctx_, "fluid::fill_y_sides", Box<1>{{0}, {nx_}}, FillYSides<T>{b, u.view(), v.view(), d.view()});
    if (outflow_ && comm_.parallel()) exchange_dimension(v, 1);  // the outflow rule reads v one row up
    for_each(ctx_, "fluid::fill_x_sides", Box<1>{{-1}, {ny_ + 1}}, FillXSides<T>{b, u.view(), v.view(), d.view(), predict});
    if (!comm_.parallel()) return;
    for (int dim : {1, 0}) {
      exchange_dimension(u, dim), exchange_dimension(v, dim);
      if (with_dye) exchange_dimension(d, dim);
    }
  }
  void fill_ghosts(Field<T, 2>& u, Field<T, 2>& v, Field<T, 2>& d, bool predict) { fill_ghosts(u, v, d, predict, bc_); }

  /// The ghosts of f across dimension dim's shared sides (their rows span the other ghosts).
  void exchange_dimension(Field<T, 2>& f, int dim) {
    halo_.start(f, dim);
    halo_.finish(f, dim);
  }

  /// One momentum + dye stage from (u, v, d) into (uo, vo, dout), with u0, v0 (and dye_) the
  /// out0 of MomentumStage; h_carry != 0 also writes the carry fields u_carry_, v_carry_.
  void stage(Field<T, 2>& u, Field<T, 2>& v, Field<T, 2>& d, Field<T, 2>& uo, Field<T, 2>& vo, Field<T, 2>& dout,
             const StageCoefficients& c, const Field<T, 2>& u0, const Field<T, 2>& v0) {
    const bool carry = c.f_carry != 0;
    MomentumStage<T> k{u.view(), v.view(), d.view(), u0.view(), v0.view(), dye_.view(), uo.view(), vo.view(), dout.view(),
                       carry ? u_carry_.view() : View<T, 2>{}, carry ? v_carry_.view() : View<T, 2>{}, p_.view(), links_, T(1 / hx_),
                       T(1 / hy_), T(1 / (hx_ * hx_)), T(1 / (hy_ * hy_)), T(nu_), T(kappa_), T(upwind_weight_), T(c.w), T(c.a),
                       T(c.w_dye), dt_source_, c.f_adv, c.f_visc, c.f_p, c.f_carry,
                       bc_.side[1] == Side::outflow ? c.f_theta : 0.0, nu_, carry, nx_, ny_, has_dye_};
    if (carry || c.f_p != 0) solver_->level().exchange(p_);
    if (!ctx_.is_cuda() && MomentumRows<T>::applies(k)) cpu::for_each(box(), MomentumRows<T>{k});  // (rows vectorised)
    else for_each(ctx_, "fluid::momentum", box(), k);
    if (fill_stage_output_) fill_ghosts(uo, vo, dout, true);
  }

  /// (I - theta_dt nu L) (u, v) = (u, v) in place, then the ghost fill (d: the stage's dye).
  void solve_viscous(Field<T, 2>& u, Field<T, 2>& v, Field<T, 2>& d, double theta_dt) {
    auto fill_homogeneous = [this](Field<T, 2>& pu, Field<T, 2>& pv) { fill_ghosts(pu, pv, scratch_, true, bc0_, false); };
    const solvers::CgResult r =
        viscosity_.solve(u, v, links_, theta_dt * nu_, fill_homogeneous, viscous_tol_, viscous_max_iterations_);
    last_viscous_iterations_ += r.iterations;
    if (!r.converged) {
      char msg[320];
      std::snprintf(msg, sizeof msg,
                    "fluid: the implicit viscous solve did not reach viscous_tol = %g in %d iterations (relative residual "
                    "%.3g); raise model.viscous_max_iterations or viscous_tol, or use float64",
                    viscous_tol_, viscous_max_iterations_, r.residual);
      throw Error(msg);
    }
    fill_ghosts(u, v, d, true);
  }

  /// An explicit stage's pressure scales with the weight f of its dt F(u) (1, then 1/2 in rk2's
  /// second stage): rescale the previous stage's pressure, the solve's initial guess, by f over
  /// that stage's weight. Unscaled, rk2's guesses were off by about the pressure itself
  /// (cylinder float32 with mg_cg on the CPU, iterations a step: 1024 x 256 over its first 155
  /// steps 9-10 unscaled, 5 scaled; 512 x 128 shedding, t = 4 to 8: 10 unscaled, 6-8 scaled).
  void scale_pressure_guess(double f) {
    if (scale_guess_ && !solver_->exact() && f != guess_weight_) p_ = p_ * T(f / guess_weight_);
    guess_weight_ = f;
  }

  /// Queues the sum of map over this rank's cells into rhs_sum_slot_ (device memory), added over
  /// the ranks (a wait on several); returns the slot, for the kernels that read it.
  template <class Map>
  const double* sum_over_ranks(const char* name, const Map& map) {
    rhs_sum_.queue_into(name, box(), map, ops::Plus{}, 0.0, rhs_sum_slot_.data());
    solvers::add_over_ranks(ctx_, comm_, rhs_sum_slot_.view());
    return rhs_sum_slot_.data();
  }

  /// An Euler step's initial guess for its pressure solve, into q (p_ or phi_): the pressure
  /// extrapolated in time through the last guess_order_ + 1 steps' (fewer while there are fewer;
  /// uneven dt allowed), each made mean-free when the problem is singular, so that no constant
  /// builds up through the extrapolation. A cubic is off by O(dt^4) instead of O(dt) and saves
  /// iterations (mg_cg on the cavity, float64: 4-5 a step with p as the guess, 2 with the cubic).
  void pressure_guess(Field<T, 2>& q, double dt) {
    const int points = std::max(1, std::min(pressure_solves_, guess_order_ + 1));
    const std::array<double, 4> w = solvers::extrapolation_weights(points, history_spacing_, dt);
    const double* mean_of = singular_ ? sum_over_ranks("fluid::pressure_sum", FluidValue<T>{p_.view(), links_}) : nullptr;
    const bool cubic = guess_order_ == 3;
    for_each(ctx_, "fluid::extrapolate_pressure", box(),
             ExtrapolatePressure<T>{p_.view(), p_history_[0].view(), p_history_[cubic ? 1 : 0].view(),
                                    p_history_[cubic ? 2 : 0].view(), q.view(), links_, mean_of,
                                    double(solver_->level().fluid_cells), T(w[0]), T(w[1]), T(w[2]), T(w[3]), cubic ? 3 : 1});
    history_spacing_ = {dt, history_spacing_[0], history_spacing_[1]};
    pressure_solves_ = std::min(pressure_solves_ + 1, 4);
  }

  /// Makes (u, v) discretely divergence-free: solve A p = -div(u) / dt, then u -= dt grad p.
  void project(Field<T, 2>& u, Field<T, 2>& v) {
    if (const fft::SpectralMultiplier<T>* fused = fused_solver()) {  // gather and scatter inside our own kernels
      const fft::StagedView<T> s = fused->staged();
      const PressureRhs<T> rhs{u.view(), v.view(), rhs_.view(), links_, T(1 / hx_), T(1 / hy_), dt_source_, s};
      if (!ctx_.is_cuda() && PressureRhsRows<T>::applies(rhs)) cpu::for_each(box(), PressureRhsRows<T>{rhs});  // (rows vectorised)
      else for_each(ctx_, "fluid::pressure_rhs_staged", box(), rhs);
      fused->apply_staged();
      const Project<T, fft::StagedView<T>> k{u.view(), v.view(), s, links_, dt_source_, 1 / hx_, 1 / hy_, p_.view()};
      const Box<2> faces{{0, 0}, {nx_ + 1, ny_ + 1}};
      const bool fuse = projections_to_fuse_ > 0 && --projections_to_fuse_ == 0;  // the step's last: max |u|, |v| in the same pass
      auto run = [&](const auto& f) {
        if (!fuse) {
          for_each(ctx_, "fluid::project_staged", faces, f);
        } else if (ClockState* c = std::exchange(clock_to_end_, nullptr)) {  // a device-clocked step ends here
          speeds_.queue_each(speed_pass_, "fluid::project_staged", faces, f, false,
                             EndClockStep<CflDt>{c, cfl_dt(clock_cfl_), clock_signal_});
        } else {
          speeds_.queue_each(speed_pass_, "fluid::project_staged", faces, f);
        }
      };
      if (!ctx_.is_cuda() && ProjectRows<T>::applies(k)) run(ProjectRows<T>{k});  // (rows vectorised)
      else run(k);
      last_iterations_ = 0, last_residual_ = std::nan("");
      return;
    }
    solve_pressure(u, v, p_, false);
    apply_projection(u, v, p_);
  }

  /// The incremental form, for a predictor that already carries -dt grad p: u -= dt grad phi,
  /// phi = p_new - p. p_new solves the full problem (A p_new = -div(u)/dt + A p) from the
  /// initial guess p, so the tolerance stays relative to the full right-hand side (the
  /// increment's own vanishes at a steady state). p becomes p_new when accumulate (else the
  /// next stage's predictor keeps the old p).
  void project_increment(Field<T, 2>& u, Field<T, 2>& v, bool accumulate) {
    if (extrapolate_) pressure_guess(phi_, last_dt_);
    else phi_ = p_ * 1;
    solve_pressure(u, v, phi_, true);
    phi_ = phi_ - p_;
    apply_projection(u, v, phi_);
    if (accumulate) p_ = p_ + phi_;
  }

  /// After an incremental-form predictor (which carries -dt grad p) and its ghost fill.
  void outflow_pressure_face(Field<T, 2>& u) {
    if (bc_.side[1] != Side::outflow) return;  // (p's ghosts are current: the stage before exchanged them)
    for_each(ctx_, "fluid::outflow_pressure_face", Box<1>{{0}, {ny_}},
             OutflowPressureFace<T>{u.view(), p_.view(), links_, dt_source_, hx_});
  }

  /// Solves A q = -div(u) / dt (+ A p_ when plus_old_pressure) from the initial guess in q.
  void solve_pressure(Field<T, 2>& u, Field<T, 2>& v, Field<T, 2>& q, bool plus_old_pressure) {
    for_each(ctx_, "fluid::pressure_rhs", box(),
             PressureRhs<T>{u.view(), v.view(), rhs_.view(), links_, T(1 / hx_), T(1 / hy_), dt_source_});
    if (singular_ && !solver_->exact()) {  // the Neumann problem needs a mean-free right-hand side (the transform drops the mean itself)
      const double* sum = sum_over_ranks("fluid::rhs_sum", Value<T>{rhs_.view()});
      for_each(ctx_, "fluid::remove_mean", box(), RemoveMean<T>{rhs_.view(), links_, sum, double(solver_->level().fluid_cells)});
    }
    if (plus_old_pressure) {
      // div_ is free scratch here (diagnostics() refills it)
      solver_->level().exchange(p_);
      for_each(ctx_, "fluid::pressure_apply", box(), solvers::PoissonApply<T>{links_, p_.view(), div_.view()});
      rhs_ = rhs_ + div_;
    }
    solvers::SolveStats st = solver_->solve(rhs_, q, tol_, max_iterations_);
    last_iterations_ += st.iterations;
    last_residual_ = st.residual;
    if (!st.converged) {
      char msg[640];
      const char* other = method_ == "mg_cg" ? "" : ", or choose pressure_solver = \"mg_cg\"";
      if (st.stalled || st.iterations < max_iterations_)  // stopped before the cap: at rounding
        std::snprintf(msg, sizeof msg,
                      "fluid: the pressure solve stalled at relative residual %g after %d iterations (the cap is %d), "
                      "above pressure_tol = %g: the residual stopped falling there, the floor of %s on this grid%s; "
                      "raise model.pressure_tol%s%s",
                      st.residual, st.iterations, max_iterations_, tol_, sizeof(T) == 4 ? "float32" : "float64",
                      tol_ < 100 * double(std::numeric_limits<T>::epsilon())
                          ? " (pressure_tol is below what this precision can reach)"
                          : "",
                      sizeof(T) == 4 ? ", use run.precision = \"float64\"" : "", other);
      else
        std::snprintf(msg, sizeof msg,
                      "fluid: the pressure solve did not reach pressure_tol = %g in %d iterations (relative residual %.3g); "
                      "raise model.pressure_max_iterations or pressure_tol%s",
                      tol_, st.iterations, st.residual, other);
      throw Error(msg);
    }
  }

  /// The fused 2D transform solve when the pressure solver has one (one rank, walls or periodic all round).
  const fft::SpectralMultiplier<T>* fused_solver() const {  // (several ranks: the distributed solve, never fused)
    const solvers::TransformPoisson<T>* t = solver_->transform();
    return t ? t->fused() : nullptr;
  }

  /// ||rhs - A p|| / ||rhs|| of the last pressure solve, which left its solution in p (the
  /// transform solver reports none while stepping, so that a step never waits for the device).
  /// A singular problem's right-hand side is measured without its mean, which the solve drops.
  double transform_residual() {
    if (last_dt_ == 0) return 0;
    if (singular_) rhs_ = rhs_ - T(comm_.sum(double(sum(rhs_))) / double(gnx_ * gny_));
    solver_->level().residual(rhs_, p_, div_);
    const double bnorm = std::sqrt(comm_.sum(double(dot(rhs_, rhs_))));
    return bnorm > 0 ? std::sqrt(comm_.sum(double(dot(div_, div_)))) / bnorm : 0.0;
  }

  /// u -= dt grad q on every open face.
  void apply_projection(Field<T, 2>& u, Field<T, 2>& v, Field<T, 2>& q) {
    solver_->level().exchange(q);
    for_each(ctx_, "fluid::project", Box<2>{{0, 0}, {nx_ + 1, ny_ + 1}},
             Project<T>{u.view(), v.view(), q.view(), links_, dt_source_, 1 / hx_, 1 / hy_});
  }

  Context ctx_;
  Comm comm_;
  Subdomain sub_;   // this rank's box (the whole grid on one rank)
  Grid<2> global_;  // the whole grid
  Grid<2> grid_;    // this rank's box: the fields' shape
  Halo<T, 2> halo_;
  index_t nx_ = 0, ny_ = 0, gnx_ = 0, gny_ = 0;  // cells of this box, and of the whole grid
  double hx_ = 1, hy_ = 1, nu_ = 0, kappa_ = 0, upwind_weight_ = 0, tol_ = 1e-8, u_max_hint_ = 1;
  int max_iterations_ = 1000, last_iterations_ = 0, viscous_max_iterations_ = 1000, last_viscous_iterations_ = 0;
  double viscous_tol_ = 1e-8;
  double last_residual_ = 0, last_dt_ = 0;
  bool rk2_ = true, implicit_ = false, singular_ = false, outflow_ = false, has_dye_ = true;
  bool fill_stage_output_ = true;  // fill a momentum stage's output before its projection (see the constructor)
  InitialState init_;
  std::string method_;  // the pressure solver's name ("auto" resolved)
  std::string solver_note_;  // why auto chose it, and the transforms
  StepInput dt_;             // the step's dt, read by the kernels from memory
  AsyncReduction<SpeedPair> speeds_;  // max |u|, |v| of the state a recorded step leaves
  ForEachReduce<SpeedPair, LargerSpeeds> speed_pass_;  // the same, fused into the step's last projection
  int projections_to_fuse_ = 0;       // projections left in the step being recorded before the one that reduces
  AsyncReduction<double> rhs_sum_;     // the pressure right-hand side's sum, or the guess's, into rhs_sum_slot_ (device memory)
  Array<double, 1> rhs_sum_slot_;
  bool speeds_on_host_ = false;        // speeds_ holds the current state's (else reduce afresh)
  bool speeds_on_device_ = false;      // speeds_.result() holds the current state's
  ClockState* clock_to_end_ = nullptr;  // a device-clocked step being recorded, until its clock kernel is queued
  double clock_cfl_ = 0;               // and its cfl and loop signal
  LoopSignal clock_signal_{};
  Recorded recorded_[2][2];  // the recorded step per buffer parity, without and with the speeds (recordable steps only)
  bool adaptive_calls_ = false;  // next_dt() has been called: queue its speeds at the end of each step
  int parity_ = 0;
  Recorded clocked_[2];  // run_device_steps' loop per starting buffer parity
  std::pair<const void*, double> clocked_for_{nullptr, 0.0};  // the clock and cfl they were recorded for
  const double* dt_source_ = nullptr;  // where the kernels read dt (dt_, or a device clock's)
  BoundarySpec<T> bc_, bc0_;
  solvers::PoissonStencil<T> links_;
  std::unique_ptr<solvers::PoissonSolver<T>> solver_;
  Field<T, 2> u_, v_, dye_, u_stage1_, v_stage1_, dye_stage1_, u_stage2_, v_stage2_, dye_stage2_, uc_, vc_, vort_;
  Field<T, 2> u_carry_, v_carry_, scratch_;  // implicit viscosity: the IMEX carry, and a dye stand-in for ghost fills
  ImplicitViscosity<T> viscosity_;
  Field<T, 2> p_, rhs_, div_, phi_;  // cell-centred, shaped like the pressure solver's fields
  // scale_pressure_guess: on (SIMKIT_FLUID_SCALE_GUESS=0: off), and the weight of the stage that
  // solved for p_ (between steps, the last stage's: 1/2 in rk2, 1 in Euler)
  bool scale_guess_ = true;
  // pressure_guess: Euler steps with an iterative solver extrapolate through guess_order_ + 1
  // pressures (3 or 1; SIMKIT_FLUID_GUESS_ORDER overrides, 0: the plain guess p); the
  // guess_order_ before p_ (mean-free), the dt between each and the next, and the solves seen (0-4)
  bool extrapolate_ = false;
  int guess_order_ = 0;
  Field<T, 2> p_history_[3];
  std::array<double, 3> history_spacing_{0, 0, 0};
  int pressure_solves_ = 0;
  double guess_weight_ = 1;
};

}  // namespace fluid

ModelInfo fluid_model_info() {
  using io::Param;
  ModelInfo m;
  m.name = "fluid";
  m.doc = "2D and 3D incompressible Navier-Stokes, projection on a MAC grid, pluggable pressure solvers";
  m.ranks = {2, 3};
  m.parallel = Parallel::grid;
  m.schema.section = "model";
  m.schema.doc = "incompressible fluid parameters";
  auto p = [&](Param q) { m.schema.params.push_back(std::move(q)); };
  p(Param::real("viscosity", 0.01).at_least(0).in("m^2/s").says("kinematic viscosity nu (Re = U L / nu)"));
  p(Param::string("inflow_profile", "uniform").one_of({"uniform", "parabolic"})
     .says("profile of the inflow ([boundary] x_lo = \"inflow\", its mean velocity x_lo_value)"));
  p(Param::string("advection", "central").one_of({"central", "upwind"})
     .says("central (second order) or upwind-blended (robust at high Reynolds numbers)"));
  p(Param::real("upwind_weight", 1.0).range(0, 1).says("advection = upwind: 0 central ... 1 full donor-cell"));
  p(Param::string("time_scheme", "rk2").one_of({"euler", "rk2"})
     .says("euler (one projection per step) or rk2 (Heun, two projections, second order)"));
  p(Param::string("viscous_scheme", "explicit").one_of({"explicit", "implicit"})
     .says("viscous term: explicit (dt limited by h^2 / nu), or implicit by CG (backward Euler with euler, the "
         "trapezoidal rule with rk2; dt then limited by advection only)"));
  p(Param::real("viscous_tol", 1e-8).positive().at_most(1)
     .says("viscous_scheme = implicit: relative residual of the CG solve"));
  p(Param::integer("viscous_max_iterations", 1000).range(1, 1e9).says("implicit viscous solve iteration cap"));
  p(Param::string("pressure_solver", "auto").one_of({"auto", "transform", "jacobi", "cg", "multigrid", "mg_cg"})
     .says("pressure Poisson solver: auto (transform where it applies, else mg_cg; --dry-run says which), "
         "transform (exact, by fast cosine/sine/Fourier transforms, distributed by all-to-all transposes on several ranks; "
         "around an obstacle with a capacitance correction on its surface), jacobi, cg, multigrid "
         "(V-cycles) or mg_cg (CG preconditioned by a V-cycle)"));
  p(Param::real("pressure_tol", 1e-8).positive().at_most(1).says("relative residual the pressure solve reaches"));
  p(Param::integer("pressure_max_iterations", 20000).range(1, 1e9).says("pressure solver iteration cap"));
  p(Param::string("pressure_guess_order", "auto").one_of({"auto", "last", "linear", "cubic"})
     .says("2D, euler with an iterative pressure solver: each solve's first guess extrapolated in time from the "
           "last pressures: auto (cubic when pressure_tol < 1e-6, else linear), last (the last pressure), linear "
           "or cubic; results agree to pressure_tol (SIMKIT_FLUID_GUESS_ORDER where unset)"));
  p(Param::boolean("pressure_guess_scale", true)
     .says("2D, rk2: a stage's pressure solve starts from the previous stage's pressure rescaled by the stages' "
           "weights (false: unscaled); results agree to pressure_tol (SIMKIT_FLUID_SCALE_GUESS where unset)"));
  p(Param::boolean("fill_every_stage", false)
     .says("2D: fill ghost cells after every explicit stage, also with walls on every side where the projection "
           "needs none; the same results (SIMKIT_FLUID_FILL_EVERY_STAGE where unset)"));
  p(Param::integers("pressure_mg_smooth", {0, 0}).lengths(2, 2).range(0, 64)
     .says("2D, pressure_solver multigrid or mg_cg: red-black sweeps [before, after] the coarse correction; 0: "
           "the precision's default, 1 in float32 and 2 in float64 (SIMKIT_MG_SMOOTH where unset)"));
  p(Param::string("init", "rest").one_of({"rest", "uniform", "taylor_green"})
     .says("initial velocity: rest, uniform (init_velocity along x) or the Taylor-Green vortex"));
  p(Param::real("init_velocity", 1.0).in("m/s").says("amplitude of the initial velocity"));
  p(Param::string("obstacle", "none").one_of({"none", "cylinder", "box"}).says("solid obstacle (no-slip)"));
  p(Param::reals("obstacle_center", {0.5, 0.5}).in("m").says("obstacle centre [x, y]"));
  p(Param::real("obstacle_radius", 0.1).at_least(0).in("m").says("cylinder radius"));
  p(Param::reals("obstacle_size", {0.2, 0.2}).at_least(0).in("m").says("box [width, height]"));
  p(Param::string("dye", "none").one_of({"none", "stripes", "half"})
     .says("passive scalar: initial pattern (stripes also stream in through an inflow)"));
  p(Param::real("dye_diffusivity", 0.0).at_least(0).in("m^2/s").says("diffusivity of the dye"));
  m.uses_boundary = true;
  m.boundary_kinds = {"wall", "periodic", "inflow", "outflow"};
  m.boundary_default = "wall";
  m.boundary_value_doc = "a wall's tangential velocity (m/s; along +y on x faces, +x on y and z faces: a lid), an inflow's "
                         "mean velocity (m/s)";
  const std::string renamed = "was replaced by [boundary] ";
  m.schema.retired = {
      {"left", renamed + "x_lo (wall, periodic, inflow or outflow), e.g. x_lo = \"inflow\""},
      {"right", renamed + "x_hi, e.g. x_hi = \"outflow\""},
      {"bottom", renamed + "y_lo, e.g. y_lo = \"wall\""},
      {"top", renamed + "y_hi, e.g. y_hi = \"wall\""},
      {"lid_velocity", renamed + "y_hi_value (the y_hi wall's tangential velocity), e.g. y_hi_value = 1.0"},
      {"inflow_velocity", renamed + "x_lo_value (the inflow's mean velocity, with x_lo = \"inflow\"), e.g. x_lo_value = 1.0"},
  };
  m.create = [](const ModelSetup& s) -> std::unique_ptr<Model> {
    if (s.grid.rank == 3) {
      for (const char* key : {"pressure_guess_order", "pressure_guess_scale", "fill_every_stage", "pressure_mg_smooth"})
        if (s.config && s.config->is_set("model", key))
          throw s.config->error_at("model", key, "applies to the 2D fluid only; remove it for a 3D grid");
      return make_fluid3d(s);
    }
    if (s.float64) return std::make_unique<fluid::FluidModel<double>>(s);
    return std::make_unique<fluid::FluidModel<float>>(s);
  };
  return m;
}

}  // namespace sim
