// The 2D incompressible fluid model: projection method on a MAC grid. Each stage: ghost
// fill, one fused momentum + dye kernel, ghost fill (outflow predictor), [implicit viscous
// solve], pressure Poisson solve (solvers/pressure_solver.hpp), one projection kernel. RK2
// (Heun) projects after both stages and is second order in time for the velocity; Euler
// projects once; RK3 (SSP, Shu-Osher) projects after its three stages and runs at a larger
// cfl (its stability reaches along the imaginary axis, where central advection's eigenvalues
// lie). Implicit viscosity: backward Euler with euler; with rk2 the IMEX pair of Heun
// (advection) and the trapezoidal rule (viscosity), second order, one viscous solve per
// step. Implicit viscosity uses the incremental pressure form (the predictor carries the old
// pressure gradient, the projection solves for the increment): without it the steady state
// would depend on dt through dt nu L grad p.
// On several ranks (mpirun) each holds a box of the grid: the ghost fill applies the
// physical rules on its own sides of the domain and exchanges the shared ones (rows, then
// columns, so corners match one rank's fill), the pressure solver works on the same boxes
// (solvers/), and diagnostics reduce over the ranks.
// The parts: fluid_params (the config), stage_coefficients (the time schemes' stages),
// pressure_guess (each solve's initial guess), recorded_steps (the recorded step, device
// loop and batches of device-clocked steps), implicit_viscosity, mac_operators (the
// pointwise physics) and the kernels by purpose (fluid_kernels.hpp lists them).
#include "models/fluid/fluid.hpp"
#include "models/fluid/fluid3d.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/array/expr.hpp"
#include "core/runtime/graph.hpp"
#include "core/distributed/halo.hpp"
#include "core/distributed/rank_reduction.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/for_each_reduce.hpp"
#include "core/kernels/reduce_async.hpp"
#include "core/runtime/step_input.hpp"
#include "core/runtime/tuning.hpp"
#include "io/config.hpp"
#include "models/boundary_config.hpp"
#include "models/field_ref.hpp"
#include "models/fluid/fluid_kernels.hpp"
#include "models/fluid/fluid_params.hpp"
#include "models/fluid/implicit_viscosity.hpp"
#include "models/fluid/pressure_guess.hpp"
#include "models/fluid/marked_step.hpp"
#include "models/fluid/recorded_steps.hpp"
#include "models/fluid/stage_coefficients.hpp"
#include "solvers/pressure_solver.hpp"
#include "solvers/time_integrators.hpp"

namespace sim {
namespace fluid {

/// This rank's box of the setup's grid (periodic dimensions wrap over the ranks).
inline Subdomain fluid_subdomain(const ModelSetup& setup) {
  const Boundary<2> faces = boundary_from_config<2>(*setup.config);
  const bool periodic[3] = {faces.lo[0].kind == BcKind::periodic, faces.lo[1].kind == BcKind::periodic, false};
  return setup.subdomain(periodic);
}

/// The multigrid's options: the smoothing counts of model.pressure_mg_smooth where the file
/// sets them (0: the precision's default), else SIMKIT_MG_SMOOTH's or the default.
inline solvers::MgOptions multigrid_options(const FluidParams& p) {
  solvers::MgOptions mg;
  if (p.mg_smooth_set) {
    mg.pre_smooth = p.mg_smooth[0], mg.post_smooth = p.mg_smooth[1];
    mg.smoothing_from_config = true;
  }
  return mg;
}

template <class T>
class FluidModel final : public Model {
 public:
  explicit FluidModel(const ModelSetup& setup)
      : ctx_(setup.ctx), comm_(setup.comm), subdomain_(fluid_subdomain(setup)), global_grid_(setup.grid.grid<2>()),
        box_grid_(box_grid(global_grid_, subdomain_)), halo_(comm_, subdomain_, box_grid_.ghost, ctx_, HaloUse::blocking),
        params_(read_fluid_params(*setup.config, global_grid_)) {
    dt_input_ = StepInput(ctx_);
    kernel_dt_ = dt_input_.device();
    nx_ = box_grid_.cells.n[0], ny_ = box_grid_.cells.n[1];
    gnx_ = global_grid_.cells.n[0], gny_ = global_grid_.cells.n[1];
    hx_ = box_grid_.dx[0], hy_ = box_grid_.dx[1];
    set_boundary_rules();
    start_speed_ = start_speed_scale(params_);
    choose_pressure_solver(setup);
    guess_.configure(params_.scale_pressure_guess, params_.stages, params_.guess_order, solver_->exact());
    speed_max_ = RankReduction(comm_, ctx_);
    choose_decomposed_steps();
    allocate_fields();
    if (decomposed_recorded_) size_exchange_buffers();
  }

  std::vector<FieldRef> fields() override {
    const Extents<2>& all = global_grid_.cells;
    const Subdomain& sub = subdomain_;
    std::vector<FieldRef> f = {field_ref("u_face", "m/s", u_, sub, all),   field_ref("v_face", "m/s", v_, sub, all),
                               field_ref("p", "m^2/s^2", p_, sub, all),    field_ref("dye", "1", dye_, sub, all),
                               field_ref("u", "m/s", u_cell_, sub, all),   field_ref("v", "m/s", v_cell_, sub, all),
                               field_ref("vorticity", "1/s", vorticity_, sub, all)};
    f[0].snapshot = f[1].snapshot = false;                              // state on faces: checkpoints only
    f[4].checkpointed = f[5].checkpointed = f[6].checkpointed = false;  // derived: snapshots only
    guess_.add_fields(f, sub, all);  // the earlier steps' pressures, for the next guess: checkpoints only
    return f;
  }

  void initialize() override {
    speeds_on_host_ = speeds_on_device_ = false;
    set_initial_state();
    p_.fill(T(0));
    guess_.restart();
    // Start from a divergence-free field that satisfies the boundary conditions.
    fill_ghosts(u_, v_, dye_, true);
    dt_input_.set(1.0), dt_input_.upload();
    project(u_, v_);
    p_.fill(T(0));
    fill_ghosts(u_, v_, dye_, false);
  }

  /// Advances by dt. A step with no host round trip (explicit viscosity, the transform solver;
  /// on several ranks no obstacle and every message on the stream) is recorded once per buffer
  /// parity (steps swap buffers) and replayed: one launch a step, with dt read from memory
  /// (on several ranks whose transposes run on the copy engines it is queued as it goes instead,
  /// unrecorded, which ran faster there; the speeds are then left to next_dt()).
  void step(double dt) override {
    last_pressure_iterations_ = last_viscous_iterations_ = 0;
    last_dt_ = dt;
    dt_input_.set(dt);
    if (recordable() && !marks_.on() && !queue_fixed_steps_) {  // (marks on: a marked step, queued as it goes)
      replay_recorded_step();
    } else {
      dt_input_.upload();
      marks_.mark("start");
      advance(dt);
      speeds_on_host_ = speeds_on_device_ = false;
    }
    flip();
  }

  /// step() queued as it goes, with marks between its phases (Model::marked_step).
  std::vector<std::pair<std::string, double>> marked_step(double dt) override {
    return fluid::marked_step(marks_, ctx_, [&] { step(dt); });
  }

  /// Steps whose dt the device chooses (Model::run_device_steps): the recordable step recorded
  /// as a device loop (both buffer parities, per starting parity) on clock.running(): one
  /// launch runs every step up to the clock's horizon, each ending with next_dt()'s formula on
  /// the speeds its projection reduced (on several ranks their maximum over the ranks, taken
  /// on the device). SIMKIT_DECOMPOSED_STEPS=replays runs a decomposed batch as per-step
  /// replays instead (replay_clocked_steps). The same bits as step by step.
  std::int64_t run_device_steps(DeviceClock& clock, double cfl) override {
    if (!recordable()) return -1;
    adaptive_dt_asked_ = true;
    if (!speeds_on_device_) queue_speeds(u_, v_), speeds_on_device_ = true;
    for_each(ctx_, "fluid::first_dt", Box<1>{{0}, {1}}, BeginClockStep<CflDt>{clock.state(), cfl_dt(cfl)});
    const std::int64_t ran = batches_.run(
        recordings_, clock, cfl, comm_.parallel(),
        [this](ClockState* c, double step_cfl, const LoopSignal& signal) { clocked_step(c, step_cfl, signal); },
        [this] { flip(); }, [this] { kernel_dt_ = dt_input_.device(), ending_ = StepEnding{}; });
    if (ran > 0) last_dt_ = clock.host().dt, speeds_on_host_ = false, speeds_on_device_ = true;
    return ran;
  }

  bool adaptive_dt() const override { return true; }

  double next_dt(double cfl) override {
    adaptive_dt_asked_ = true;
    const SpeedPair s = speeds_on_host_ ? speeds_.wait()
                                       : reduce(ctx_, "fluid::face_speeds", box(), FaceSpeeds<T>{u_.view(), v_.view()},
                                                LargerSpeeds{}, SpeedPair{0.0, 0.0});
    const double um = std::max(comm_.max(s.u), start_speed_), vm = comm_.max(s.v);
    return cfl / (um / hx_ + vm / hy_ + viscous_rate());
  }

  double default_dt(double cfl) const override {
    const double speed = std::max(start_speed_, 1e-300);
    return cfl / (speed / hx_ + speed / hy_ + viscous_rate());
  }

  double stable_dt() const override { return default_dt(1.0); }

  std::vector<Diagnostic> diagnostics() override {
    for_each(ctx_, "fluid::divergence", box(),
             Divergence<T>{u_.view(), v_.view(), divergence_.view(), stencil_, T(1 / hx_), T(1 / hy_)});
    const double um = comm_.max(double(norm_max(u_))), vm = comm_.max(double(norm_max(v_)));
    std::vector<Diagnostic> diag = {{"kinetic_energy", "m^4/s^2", 0.5 * hx_ * hy_ * comm_.sum(double(dot(u_, u_) + dot(v_, v_)))},
            {"max_divergence", "1/s", comm_.max(double(norm_max(divergence_)))},
            {"cfl", "", last_dt_ * (um / hx_ + vm / hy_)},
            {"pressure_iterations", "", double(last_pressure_iterations_)},
            {"pressure_residual", "", solver_->exact() ? transform_residual() : last_pressure_residual_}};
    if (params_.implicit_viscosity) diag.push_back({"viscous_iterations", "", double(last_viscous_iterations_)});
    return diag;
  }

  void prepare_output() override {
    fill_ghosts(u_, v_, dye_, false);
    for_each(ctx_, "fluid::cell_outputs", box(),
             CellOutputs<T>{u_.view(), v_.view(), u_cell_.view(), v_cell_.view(), vorticity_.view(), T(1 / hx_), T(1 / hy_)});
  }

  double cell_updates_per_step() const override { return double(gnx_ * gny_); }

  /// Whole-field passes of a recordable step (explicit viscosity, transform solver): momentum
  /// 4 (+2 with dye), pressure right-hand side 3, transform solve 10 (gather 2, forward FFT 2,
  /// multiply 2, inverse FFT 2, scatter 2), projection 5; once a stage. The iterative solvers'
  /// traffic depends on their iterations: not declared.
  double bytes_per_step() const override {
    if (params_.implicit_viscosity || !solver_->transform()) return 0;
    const double passes = (has_dye_ ? 24 : 22) * params_.stages;
    return passes * double(gnx_ * gny_) * double(sizeof(T));
  }

  std::vector<std::string> plan_notes() const override {
    std::vector<std::string> notes = {"pressure solver " + solver_name_ + (solver_note_.empty() ? "" : ": " + solver_note_)};
    if (comm_.parallel()) notes.push_back(decomposed_steps_note());
    return notes;
  }

  void save_state(std::map<std::string, std::uint64_t>& counters, std::map<std::string, double>& reals) const override {
    reals["fluid_last_dt"] = last_dt_;
    guess_.save(counters, reals);
  }
  void load_state(const std::map<std::string, std::uint64_t>& counters, const std::map<std::string, double>& reals) override {
    if (reals.count("fluid_last_dt")) last_dt_ = reals.at("fluid_last_dt");
    if (!guess_.extrapolates()) return;
    guess_.load(counters, reals);
    speeds_on_host_ = speeds_on_device_ = false;
  }

  /// How the steps run on several ranks, and the batches of device-clocked steps so far.
  std::string decomposed_steps_note() const {
    return batches_.decomposed_note(comm_.size(), decomposed_recorded_, speed_max_.transport(),
                                    params_.implicit_viscosity || !solver_->distributed_transform()
                                        ? "implicit viscosity, or an iterative or obstacle pressure solve"
                                        : "messages that wait for the host (host staging)");
  }

  /// The pressure solver (for benchmarks and tests).
  const solvers::PoissonSolver<T>& solver() const { return *solver_; }

 private:
  /// The fields of one state, for the solvers' explicit schemes.
  struct State {
    Field<T, 2>*u, *v, *d;
  };

  // ---- the step ----

  /// The stages of one step from (u_, v_, dye_) into (u_stage1_, ...) or (u_stage2_, ...), dt uploaded. The
  /// explicit schemes are the solvers' forward Euler and Heun (Shu-Osher form) over the stage
  /// "momentum, then projection"; the implicit-viscosity ones predict, solve, project the increment.
  void advance(double dt) {
    if (!params_.implicit_viscosity) {
      State s0{&u_, &v_, &dye_}, s1{&u_stage1_, &v_stage1_, &dye_stage1_}, s2{&u_stage2_, &v_stage2_, &dye_stage2_};
      auto update = [this](State& in, State& out, double, double w, State& base) { explicit_stage(in, out, w, base); };
      if (params_.stages == 3) solvers::rk3_step(update, s0, s1, s2, s1, dt);
      else if (params_.stages == 2) solvers::rk2_step(update, s0, s1, s2, dt);
      else solvers::euler_step(update, s0, s1, dt);
    } else if (params_.stages == 1) {
      backward_euler_step(dt);
    } else {
      trapezoidal_step(dt);
    }
  }

  /// One explicit stage: out = w base + (1 - w)(in + dt (nu lap - adv)(in)), then made divergence-free.
  void explicit_stage(State& in, State& out, double w, State& base) {
    fill_ghosts(*in.u, *in.v, *in.d, false);
    marks_.mark("ghost fill and exchanges");
    momentum(*in.u, *in.v, *in.d, *out.u, *out.v, *out.d, StageCoefficients::explicit_stage(w), *base.u, *base.v);
    marks_.mark("momentum");
    guess_.scale(p_, 1 - w);
    if (guess_.extrapolates()) extrapolate_pressure_guess(p_);
    project(*out.u, *out.v);
    marks_.mark("projection");
  }

  /// Backward Euler viscosity: (I - dt nu L) u1 = u - dt (adv(u) + grad p), then the increment's projection.
  void backward_euler_step(double dt) {
    fill_ghosts(u_, v_, dye_, false);
    momentum(u_, v_, dye_, u_stage1_, v_stage1_, dye_stage1_, StageCoefficients::implicit_predictor(1, 0), u_, v_);
    solve_viscous(u_stage1_, v_stage1_, dye_stage1_, dt);
    outflow_pressure_face(u_stage1_);
    project_increment(u_stage1_, v_stage1_, true);
  }

  /// (I - dt/2 nu L) U = u + dt (nu/2 L u - adv(u) - grad p); then u + dt/2 (F(u) + F(U)), F = nu L - adv - grad p.
  void trapezoidal_step(double dt) {
    fill_ghosts(u_, v_, dye_, false);
    momentum(u_, v_, dye_, u_stage1_, v_stage1_, dye_stage1_, StageCoefficients::implicit_predictor(0.5, 0.5), u_, v_);
    solve_viscous(u_stage1_, v_stage1_, dye_stage1_, 0.5 * dt);
    outflow_pressure_face(u_stage1_);
    project_increment(u_stage1_, v_stage1_, false);
    fill_ghosts(u_stage1_, v_stage1_, dye_stage1_, false);
    momentum(u_stage1_, v_stage1_, dye_stage1_, u_stage2_, v_stage2_, dye_stage2_, StageCoefficients::trapezoidal_corrector(),
             u_carry_, v_carry_);
    outflow_pressure_face(u_stage2_);
    project_increment(u_stage2_, v_stage2_, true);
  }

  /// Makes (u, v) discretely divergence-free: solve A p = -div(u) / dt, then u -= dt grad p.
  void project(Field<T, 2>& u, Field<T, 2>& v) {
    if (const fft::SpectralMultiplier<T>* fused = fused_solver()) {
      project_fused(u, v, *fused);
      return;
    }
    if (const solvers::CosineSlabRows<T> rows = solver_->staged_rows(); rows.data) {
      project_through_rows(u, v, rows);
      return;
    }
    pressure_rhs(u, v, false);
    marks_.mark("pressure rhs");
    solve_pressure(p_);
    marks_.mark("pressure solve");
    apply_projection(u, v, p_);
  }

  /// The incremental form, for a predictor that already carries -dt grad p: u -= dt grad phi,
  /// phi = p_new - p. p_new solves the full problem (A p_new = -div(u)/dt + A p) from the
  /// initial guess p, so the tolerance stays relative to the full right-hand side (the
  /// increment's own vanishes at a steady state). p becomes p_new when accumulate (else the
  /// next stage's predictor keeps the old p).
  void project_increment(Field<T, 2>& u, Field<T, 2>& v, bool accumulate) {
    Field<T, 2>& phi = pressure_increment_;
    if (guess_.extrapolates()) extrapolate_pressure_guess(phi);
    else phi = p_ * 1;
    pressure_rhs(u, v, true);
    solve_pressure(phi);
    phi = phi - p_;
    apply_projection(u, v, phi);
    if (accumulate) p_ = p_ + phi;
  }

  // ---- the stage's parts ----

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
    if (has_outflow_ && comm_.parallel()) exchange_dimension(v, 1);  // the outflow rule reads v one row up
    for_each(ctx_, "fluid::fill_x_sides", Box<1>{{-1}, {ny_ + 1}}, FillXSides<T>{b, u.view(), v.view(), d.view(), predict});
    if (!comm_.parallel()) return;
    for (int dim : {1, 0}) {  // (without a dye, d stays 0 everywhere: nothing to exchange)
      if (with_dye && has_dye_) halo_.exchange({&u, &v, &d}, dim);
      else halo_.exchange({&u, &v}, dim);
    }
  }
  void fill_ghosts(Field<T, 2>& u, Field<T, 2>& v, Field<T, 2>& d, bool predict) { fill_ghosts(u, v, d, predict, boundary_); }

  /// The ghosts of f across dimension dim's shared sides (their rows span the other ghosts).
  void exchange_dimension(Field<T, 2>& f, int dim) {
    halo_.start(f, dim);
    halo_.finish(f, dim);
  }

  /// One momentum + dye stage from (u, v, d) into (uo, vo, dout), with u0, v0 (and dye_) the
  /// out0 of MomentumStage; c.f_carry != 0 also writes the carry fields u_carry_, v_carry_.
  void momentum(Field<T, 2>& u, Field<T, 2>& v, Field<T, 2>& d, Field<T, 2>& uo, Field<T, 2>& vo, Field<T, 2>& dout,
                const StageCoefficients& c, const Field<T, 2>& u0, const Field<T, 2>& v0) {
    const bool carry = c.f_carry != 0;
    const double nu = params_.viscosity;
    MomentumStage<T> k{u.view(), v.view(), d.view(), u0.view(), v0.view(), dye_.view(), uo.view(), vo.view(), dout.view(),
                       carry ? u_carry_.view() : View<T, 2>{}, carry ? v_carry_.view() : View<T, 2>{}, p_.view(), stencil_,
                       T(1 / hx_), T(1 / hy_), T(1 / (hx_ * hx_)), T(1 / (hy_ * hy_)), T(nu), T(params_.dye_diffusivity),
                       T(params_.upwind_weight), T(c.w), T(c.a), T(c.w_dye), kernel_dt_, c.f_adv, c.f_visc, c.f_p, c.f_carry,
                       boundary_.side[1] == Side::outflow ? c.f_theta : 0.0, nu, carry, nx_, ny_, has_dye_};
    if (carry || c.f_p != 0) solver_->level().exchange(p_);
    if (!ctx_.is_cuda() && MomentumRows<T>::applies(k)) cpu::for_each(box(), MomentumRows<T>{k});  // (rows vectorised)
    else for_each(ctx_, "fluid::momentum", box(), k);
    if (fill_stage_output_) fill_ghosts(uo, vo, dout, true);
    else if (comm_.parallel()) exchange_normal_faces(uo, vo);
  }

  /// The faces on the shared sides that the pressure's right-hand side and the projection read
  /// (u's across dimension 0, v's across 1), after a stage whose output needs no other fill.
  void exchange_normal_faces(Field<T, 2>& u, Field<T, 2>& v) {
    halo_.exchange({&u}, 0);
    halo_.exchange({&v}, 1);
  }

  /// (I - theta_dt nu L) (u, v) = (u, v) in place, then the ghost fill (d: the stage's dye).
  void solve_viscous(Field<T, 2>& u, Field<T, 2>& v, Field<T, 2>& d, double theta_dt) {
    auto fill_homogeneous = [this](Field<T, 2>& pu, Field<T, 2>& pv) {
      fill_ghosts(pu, pv, dye_stand_in_, true, homogeneous_boundary_, false);
    };
    const solvers::CgResult r = viscosity_.solve(u, v, stencil_, theta_dt * params_.viscosity, fill_homogeneous,
                                                 params_.viscous_tol, params_.viscous_max_iterations);
    last_viscous_iterations_ += r.iterations;
    if (!r.converged) {
      char msg[320];
      std::snprintf(msg, sizeof msg,
                    "fluid: the implicit viscous solve did not reach viscous_tol = %g in %d iterations (relative residual "
                    "%.3g); raise model.viscous_max_iterations or viscous_tol, or use float64",
                    params_.viscous_tol, params_.viscous_max_iterations, r.residual);
      throw Error(msg);
    }
    fill_ghosts(u, v, d, true);
  }

  /// After an incremental-form predictor (which carries -dt grad p) and its ghost fill.
  void outflow_pressure_face(Field<T, 2>& u) {
    if (boundary_.side[1] != Side::outflow) return;  // (p's ghosts are current: the stage before exchanged them)
    for_each(ctx_, "fluid::outflow_pressure_face", Box<1>{{0}, {ny_}},
             OutflowPressureFace<T>{u.view(), p_.view(), stencil_, kernel_dt_, hx_});
  }

  /// An Euler step's initial guess for its pressure solve into q (p_ or the increment's field),
  /// extrapolated through the last steps' pressures (pressure_guess.hpp).
  void extrapolate_pressure_guess(Field<T, 2>& q) {
    const double* mean_of =
        pressure_singular_ ? sum_over_ranks("fluid::pressure_sum", FluidValue<T>{p_.view(), stencil_}) : nullptr;
    guess_.extrapolate(ctx_, box(), p_, q, stencil_, mean_of, double(solver_->level().fluid_cells), last_dt_);
  }

  /// The pressure equation's right-hand side into pressure_rhs_: -div(u) / dt, mean-free where
  /// the problem is singular, plus A p_ when plus_old_pressure (the incremental form).
  void pressure_rhs(Field<T, 2>& u, Field<T, 2>& v, bool plus_old_pressure) {
    rhs_in_rows_ = false;  // (the residual diagnostic reads this one, not the staged rows' last)
    for_each(ctx_, "fluid::pressure_rhs", box(),
             PressureRhs<T>{u.view(), v.view(), pressure_rhs_.view(), stencil_, T(1 / hx_), T(1 / hy_), kernel_dt_});
    if (pressure_singular_ && !solver_->exact()) {  // the Neumann problem needs a mean-free right-hand side (the transform drops the mean itself)
      const double* sum = sum_over_ranks("fluid::rhs_sum", Value<T>{pressure_rhs_.view()});
      for_each(ctx_, "fluid::remove_mean", box(),
               RemoveMean<T>{pressure_rhs_.view(), stencil_, sum, double(solver_->level().fluid_cells)});
    }
    if (plus_old_pressure) {
      // divergence_ is free scratch here (diagnostics() refills it)
      solver_->level().exchange(p_);
      for_each(ctx_, "fluid::pressure_apply", box(), solvers::PoissonApply<T>{stencil_, p_.view(), divergence_.view()});
      pressure_rhs_ = pressure_rhs_ + divergence_;
    }
  }

  /// Solves A q = pressure_rhs_ from the initial guess in q; throws when the solve falls short.
  void solve_pressure(Field<T, 2>& q) {
    const solvers::SolveStats st = solver_->solve(pressure_rhs_, q, params_.pressure_tol, params_.pressure_max_iterations);
    last_pressure_iterations_ += st.iterations;
    last_pressure_residual_ = st.residual;
    if (!st.converged) throw pressure_solve_error(st);
  }

  /// Why a pressure solve fell short, and what to change.
  Error pressure_solve_error(const solvers::SolveStats& st) const {
    const double tol = params_.pressure_tol;
    const int cap = params_.pressure_max_iterations;
    char msg[640];
    const char* other = solver_name_ == "mg_cg" ? "" : ", or choose pressure_solver = \"mg_cg\"";
    if (st.stalled || st.iterations < cap)  // stopped before the cap: at rounding
      std::snprintf(msg, sizeof msg,
                    "fluid: the pressure solve stalled at relative residual %g after %d iterations (the cap is %d), "
                    "above pressure_tol = %g: the residual stopped falling there, the floor of %s on this grid%s; "
                    "raise model.pressure_tol%s%s",
                    st.residual, st.iterations, cap, tol, sizeof(T) == 4 ? "float32" : "float64",
                    tol < 100 * double(std::numeric_limits<T>::epsilon()) ? " (pressure_tol is below what this precision can reach)"
                                                                          : "",
                    sizeof(T) == 4 ? ", use run.precision = \"float64\"" : "", other);
    else
      std::snprintf(msg, sizeof msg,
                    "fluid: the pressure solve did not reach pressure_tol = %g in %d iterations (relative residual %.3g); "
                    "raise model.pressure_max_iterations or pressure_tol%s",
                    tol, st.iterations, st.residual, other);
    return Error(msg);
  }

  /// u -= dt grad q on every open face.
  void apply_projection(Field<T, 2>& u, Field<T, 2>& v, Field<T, 2>& q) {
    solver_->level().exchange(q);
    for_each(ctx_, "fluid::project", Box<2>{{0, 0}, {nx_ + 1, ny_ + 1}},
             Project<T>{u.view(), v.view(), q.view(), stencil_, kernel_dt_, 1 / hx_, 1 / hy_});
  }

  /// The projection with the fused transform solve: the right-hand side into the solver's
  /// staged buffer, the staged solve, and the projection reading the staged pressure (storing
  /// it into p_); the step's last projection also reduces the speeds, and ends a device clock's step.
  void project_fused(Field<T, 2>& u, Field<T, 2>& v, const fft::SpectralMultiplier<T>& fused) {
    const fft::StagedView<T> s = fused.staged();
    const PressureRhs<T> rhs{u.view(), v.view(), pressure_rhs_.view(), stencil_, T(1 / hx_), T(1 / hy_), kernel_dt_, s};
    if (!ctx_.is_cuda() && PressureRhsRows<T>::applies(rhs)) cpu::for_each(box(), PressureRhsRows<T>{rhs});  // (rows vectorised)
    else for_each(ctx_, "fluid::pressure_rhs_staged", box(), rhs);
    fused.apply_staged();
    const Project<T, fft::StagedView<T>> k{u.view(), v.view(), s, stencil_, kernel_dt_, 1 / hx_, 1 / hy_, p_.view()};
    const Box<2> faces{{0, 0}, {nx_ + 1, ny_ + 1}};
    const bool fuse = ending_.reduces_speeds();  // the step's last: max |u|, |v| in the same pass
    auto run = [&](const auto& f) {
      if (!fuse) {
        for_each(ctx_, "fluid::project_staged", faces, f);
      } else if (ClockState* c = ending_.take_clock()) {  // a device-clocked step ends here
        speeds_.queue_each(speed_pass_, "fluid::project_staged", faces, f, false,
                           EndClockStep<CflDt>{c, cfl_dt(ending_.cfl), ending_.signal});
      } else {
        speeds_.queue_each(speed_pass_, "fluid::project_staged", faces, f);
      }
    };
    if (!ctx_.is_cuda() && ProjectRows<T>::applies(k)) run(ProjectRows<T>{k});  // (rows vectorised)
    else run(k);
    last_pressure_iterations_ = 0, last_pressure_residual_ = std::nan("");
  }

  /// The projection through the distributed transform solve's staged rows (several ranks,
  /// walls all round, every box a slab along x): the right-hand side written straight into them
  /// (not into pressure_rhs_: transform_residual() takes it from there when asked), the solve,
  /// its solution scattered into p_, and the projection. No gather pass, one array written less
  /// by the right-hand side: the values of pressure_rhs(), solve_pressure() and apply_projection().
  void project_through_rows(Field<T, 2>& u, Field<T, 2>& v, const solvers::CosineSlabRows<T>& rows) {
    for_each(ctx_, "fluid::pressure_rhs_rows", box(),
             PressureRhs<T, solvers::CosineSlabRows<T>>{u.view(), v.view(), View<T, 2>{}, stencil_, T(1 / hx_), T(1 / hy_),
                                                        kernel_dt_, rows});
    marks_.mark("pressure rhs");
    solver_->solve_staged();
    for_each(ctx_, "fluid::pressure_from_rows", box(), solvers::CosineRowsScatter<T>{solver_->staged_result(), p_.view()});
    last_pressure_residual_ = std::nan("");
    rhs_in_rows_ = true;
    marks_.mark("pressure solve");
    apply_projection(u, v, p_);
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
    if (rhs_in_rows_)  // (project_through_rows left it in the solve's rows)
      for_each(ctx_, "fluid::pressure_rhs_from_rows", box(), solvers::CosineRowsScatter<T>{solver_->staged_rows(), pressure_rhs_.view()});
    if (pressure_singular_) pressure_rhs_ = pressure_rhs_ - T(comm_.sum(double(sum(pressure_rhs_))) / double(gnx_ * gny_));
    solver_->level().residual(pressure_rhs_, p_, divergence_);
    const double bnorm = std::sqrt(comm_.sum(double(dot(pressure_rhs_, pressure_rhs_))));
    return bnorm > 0 ? std::sqrt(comm_.sum(double(dot(divergence_, divergence_)))) / bnorm : 0.0;
  }

  /// Queues the sum of map over this rank's cells into rank_sum_slot_ (device memory), added over
  /// the ranks (a wait on several); returns the slot, for the kernels that read it.
  template <class Map>
  const double* sum_over_ranks(const char* name, const Map& map) {
    rank_sum_.queue_into(name, box(), map, ops::Plus{}, 0.0, rank_sum_slot_.data());
    solvers::add_over_ranks(ctx_, comm_, rank_sum_slot_.view());
    return rank_sum_slot_.data();
  }

  // ---- recorded steps and device clocks ----

  /// True when a step makes no host round trip (explicit viscosity, the transform solver; on
  /// several ranks see choose_decomposed_steps): it can be recorded.
  bool recordable() const { return !params_.implicit_viscosity && (solver_->exact_on_one_rank() || decomposed_recorded_); }

  /// On several ranks, whether the step is recorded: explicit viscosity, the distributed
  /// transform solve without an obstacle, and every message of a step (the halos, the
  /// transposes, the speeds' maximum) queued on the stream: NCCL between GPUs, MPI on CPU ranks
  /// (whose recording is the step itself, run again on each replay); not with host staging
  /// (GPUs without NCCL, SIMKIT_HALO=host), nor with SIMKIT_DECOMPOSED_STEPS=host or the
  /// diagnostic SIMKIT_NCCL_ORDER=hostsync (a host wait in every exchange).
  void choose_decomposed_steps() {
    batches_.set_mode(ctx_, tuning::current().decomposed_steps);
    const solvers::DistributedTransformPoisson<T, 2>* solve = solver_->distributed_transform();
    // the transposes on the copy engines: per-step replays, not one device loop (see copies_beside_stream)
    if (solve && solve->copies_beside_stream() && batches_.mode() == "auto") {
      batches_.set_mode(ctx_, "replays");
      // and step() (a dt the host gives) queued as it goes, not replayed, which ran the cavity's
      // step faster on 2 H200s (bench/results/2026-11-29-h200x2-multi-gpu); SIMKIT_DECOMPOSED_STEPS=replays replays it
      queue_fixed_steps_ = true;
    }
    if (!comm_.parallel() || params_.implicit_viscosity || !solve || batches_.mode() == "host") return;
    const std::string nccl = "NCCL";
    const bool on_stream = !ctx_.is_cuda() || (halo_.transport() == nccl && solver_->level().halo.transport() == nccl &&
                                                speed_max_.stream_ordered() && tuning::current().nccl_order != "hostsync");
    decomposed_recorded_ = on_stream && solve->stream_ordered();
  }

  /// Replays the step recorded for this buffer parity (recording it first). With an adaptive
  /// dt (next_dt() was called) the recording ends with what the next next_dt() needs, so that
  /// one launch and one wait make a step.
  void replay_recorded_step() {
    const bool speeds = adaptive_dt_asked_;
    Recorded& r = recordings_.step(speeds);
    if (!r.valid())  // on the CPU each replay calls this
      r = record(ctx_, [this, speeds] {
        ending_.projections_to_fuse = speeds ? params_.stages : 0;  // the last projection also reduces the speeds
        dt_input_.upload(), advance(dt_input_.value());
        if (speeds && ending_.projections_to_fuse != 0) queue_speeds(step_output_u(), step_output_v());
      });
    r.replay();
    speeds_on_host_ = speeds_on_device_ = speeds;
  }

  /// The step of a device clock c (run_device_steps), while it is recorded: dt read from the
  /// clock, the speeds reduced on the device only, and the next step's dt chosen at the end
  /// (by the last block of the projection that reduces the speeds, or a kernel of its own).
  void clocked_step(ClockState* c, double cfl, const LoopSignal& signal) {
    kernel_dt_ = &c->dt;
    ending_.clock = c, ending_.cfl = cfl, ending_.signal = signal;
    ending_.projections_to_fuse = params_.stages;  // the last projection also reduces the speeds
    advance(dt_input_.value());
    if (ending_.projections_to_fuse != 0) queue_speeds(step_output_u(), step_output_v());
    if (ending_.clock) for_each(ctx_, "fluid::end_step", Box<1>{{0}, {1}}, EndClockStep<CflDt>{c, cfl_dt(cfl), signal});
    kernel_dt_ = dt_input_.device();
    ending_.clock = nullptr;
  }

  /// next_dt(cfl)'s formula on the device, from the speeds of the latest reduction.
  CflDt cfl_dt(double cfl) const { return CflDt{speeds_.result(), cfl, hx_, hy_, viscous_rate(), start_speed_}; }

  /// Queues the reduction of max |u|, max |v| (speeds_), on several ranks then their maximum
  /// over the ranks in result() (on the device: the host's copy, which next_dt() reads, keeps
  /// this rank's on GPUs, and next_dt() takes the maximum itself).
  void queue_speeds(const Field<T, 2>& u, const Field<T, 2>& v) {
    speeds_.queue("fluid::face_speeds", box(), FaceSpeeds<T>{u.view(), v.view()}, LargerSpeeds{}, SpeedPair{0.0, 0.0});
    if (comm_.parallel()) speed_max_.max(const_cast<double*>(&speeds_.result()->u), 2);
  }

  /// The buffers a step writes its output into (swapped in by flip()).
  /// (Heun's is stage 2's; RK3's third stage writes over stage 1's, which it no longer reads.)
  Field<T, 2>& step_output_u() { return params_.stages == 2 ? u_stage2_ : u_stage1_; }
  Field<T, 2>& step_output_v() { return params_.stages == 2 ? v_stage2_ : v_stage1_; }

  /// Swaps the step's output buffers in as the state (and the recorded steps' parity).
  void flip() {
    recordings_.flip();
    if (params_.stages == 2) std::swap(u_, u_stage2_), std::swap(v_, v_stage2_), std::swap(dye_, dye_stage2_);
    else std::swap(u_, u_stage1_), std::swap(v_, v_stage1_), std::swap(dye_, dye_stage1_);
  }

  // ---- set-up ----

  /// The kernels' boundary rules from the [boundary] faces: this rank's sides (a side shared
  /// with another rank is internal), the walls' and the inflow's velocities, and the
  /// homogeneous rules of the implicit viscous solve (no lid, no inflow).
  void set_boundary_rules() {
    const Boundary<2>& faces = params_.faces;
    for (int k = 0; k < 4; ++k) {
      boundary_.side[k] = side_of(face_of(faces, k).kind);
      if (boundary_.side[k] == Side::wall) boundary_.wall_velocity[k] = T(face_of(faces, k).value);
    }
    has_outflow_ = boundary_.side[1] == Side::outflow;
    if (boundary_.side[0] == Side::inflow) boundary_.inflow_velocity = T(face_of(faces, 0).value);
    for (int k = 0; k < 4; ++k)
      if (!subdomain_.at_boundary(k / 2, k % 2)) boundary_.side[k] = Side::internal;
    boundary_.parabolic = params_.parabolic_inflow;
    boundary_.dye_pattern = params_.init.dye == "stripes" ? 1 : 0;
    has_dye_ = params_.init.dye != "none";  // no initial dye: none flows in either, and d stays 0
    boundary_.nx = nx_, boundary_.ny = ny_, boundary_.hx = T(hx_), boundary_.hy = T(hy_);
    boundary_.oy = subdomain_.offset[1], boundary_.ny_global = gny_;
    homogeneous_boundary_ = boundary_;
    for (T& w : homogeneous_boundary_.wall_velocity) w = T(0);
    homogeneous_boundary_.inflow_velocity = T(0);
    // With a wall on every side of the grid, an explicit stage's output needs no fill before
    // its projection: the momentum stage gives the closed faces at i = 0 and j = 0 their 0, the
    // faces at nx and ny hold the 0 every fill gave them (nothing else writes them), and the
    // projection reads no ghost but the faces and p across the sides shared with other ranks,
    // which exchange_normal_faces() and the pressure's exchange bring; the next stage fills its
    // input. model.fill_every_stage fills anyway (for the test that compares the two).
    bool walls = true;
    for (int k = 0; k < 4; ++k) walls = walls && (boundary_.side[k] == Side::wall || boundary_.side[k] == Side::internal);
    fill_stage_output_ = !walls || params_.implicit_viscosity || params_.fill_every_stage;
  }

  /// The pressure solver: the obstacle's Poisson problem on the ranks' boxes, by the method
  /// model.pressure_solver names ("auto": the transform where it applies, else mg_cg).
  void choose_pressure_solver(const ModelSetup& setup) {
    const io::Config& c = *setup.config;
    solvers::PressureSide psides[4];
    for (int k = 0; k < 4; ++k) psides[k] = solvers::pressure_side(face_of(params_.faces, k).kind);
    const std::vector<double> mask = obstacle_mask(c, global_grid_);
    const std::vector<T> fluid(mask.begin(), mask.end());
    const solvers::PoissonGrid<T> pgrid =
        solvers::make_poisson_grid<T>(gnx_, gny_, hx_, hy_, psides, fluid.empty() ? nullptr : &fluid);
    pressure_singular_ = pgrid.singular;
    solvers::PoissonPartition part;
    part.comm = comm_;
    part.boxes = {subdomain_};
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
    solver_name_ = params_.pressure_solver;
    if (solver_name_ == "auto") {
      const solvers::SolverChoice choice =
          solvers::choose_poisson_solver(pgrid, int(part.boxes.size()), "a " + c.string("model", "obstacle"));
      solver_name_ = choice.name, solver_note_ = choice.reason;
    }
    try {
      solver_ = std::make_unique<solvers::PoissonSolver<T>>(ctx_, pgrid, part, solvers::poisson_method(solver_name_),
                                                            multigrid_options(params_));
    } catch (const Error& e) {
      throw c.error_at("model", "pressure_solver", e.what());
    }
    stencil_ = solver_->level().stencil;  // views into the solver's coefficient arrays
    if (solver_->exact()) solver_note_ += " (" + solver_->transform_description() + ")";
  }

  /// Sizes the halos' buffers before any step is recorded (a resumed run records its first step
  /// without initialize()'s exchanges): one exchange of each layout, of fields still at 0.
  void size_exchange_buffers() {
    for (int dim : {1, 0}) exchange_dimension(u_, dim);
    solver_->level().exchange(p_);
    ctx_.synchronize();
  }

  /// The state, stage, output and pressure fields at 0, and the reductions' scratch.
  void allocate_fields() {
    for (Field<T, 2>* f : {&u_, &v_, &dye_, &u_stage1_, &v_stage1_, &dye_stage1_, &u_stage2_, &v_stage2_, &dye_stage2_,
                           &u_cell_, &v_cell_, &vorticity_})
      *f = Field<T, 2>(ctx_, box_grid_), f->fill(T(0));
    if (params_.implicit_viscosity) {
      for (Field<T, 2>* f : {&u_carry_, &v_carry_, &dye_stand_in_}) *f = Field<T, 2>(ctx_, box_grid_), f->fill(T(0));
      viscosity_ = ImplicitViscosity<T>(ctx_, box_grid_, comm_);
    }
    // the momentum stage reads u, v and the dye at one offset per position (mac_operators.hpp, Pos)
    if (!same_layout(u_.view(), v_.view(), dye_.view(), u_stage1_.view(), v_stage1_.view(), dye_stage1_.view(), u_stage2_.view(),
                     v_stage2_.view(), dye_stage2_.view()))
      throw Error("fluid: the velocity and dye fields differ in layout (internal error)");
    const solvers::PoissonLevel<T>& level = solver_->level();
    p_ = level.make_field(), pressure_rhs_ = level.make_field(), divergence_ = level.make_field();
    if (params_.implicit_viscosity) pressure_increment_ = level.make_field();
    guess_.allocate(level);
    speeds_ = AsyncReduction<SpeedPair>(ctx_);
    speed_pass_ = ForEachReduce<SpeedPair, LargerSpeeds>(ctx_, LargerSpeeds{}, SpeedPair{0.0, 0.0});
    rank_sum_ = AsyncReduction<double>(ctx_), rank_sum_slot_ = Array<double, 1>(ctx_, Extents<1>{{1}});
    queue_speeds(u_, v_);  // sizes its scratch space now, not while a step is recorded
    ctx_.synchronize();
  }

  /// The initial face velocities and dye (init, dye), at global coordinates (the same bits on any split).
  void set_initial_state() {
    const InitialState& init = params_.init;
    const Grid<2>& g = global_grid_;
    std::vector<T> hu(std::size_t(nx_ * ny_)), hv(hu.size()), hd(hu.size());
    for (index_t i = 0; i < nx_; ++i)
      for (index_t j = 0; j < ny_; ++j) {
        const index_t gi = i + subdomain_.offset[0], gj = j + subdomain_.offset[1];
        const double xf = g.origin[0] + double(gi) * hx_, yc = g.center(1, gj);
        const double xc = g.center(0, gi), yf = g.origin[1] + double(gj) * hy_;
        const std::size_t k = std::size_t(i * ny_ + j);
        hu[k] = T(init.u(xf - g.origin[0], yc - g.origin[1]));
        hv[k] = T(init.v(xc - g.origin[0], yf - g.origin[1]));
        hd[k] = T(init.d(xc - g.origin[0], yc - g.origin[1]));
      }
    detail::copy_from_host<T, 2>(ctx_, hu.data(), u_.view());
    detail::copy_from_host<T, 2>(ctx_, hv.data(), v_.view());
    detail::copy_from_host<T, 2>(ctx_, hd.data(), dye_.view());
  }

  Box<2> box() const { return Box<2>{{0, 0}, {nx_, ny_}}; }
  /// The explicit diffusion limit's rate (viscosity counts only when explicit).
  double viscous_rate() const {
    return 2 * std::max(params_.implicit_viscosity ? 0.0 : params_.viscosity, params_.dye_diffusivity) *
           (1 / (hx_ * hx_) + 1 / (hy_ * hy_));
  }

  Context ctx_;
  Comm comm_;
  Subdomain subdomain_;  // this rank's box (the whole grid on one rank)
  Grid<2> global_grid_;  // the whole grid
  Grid<2> box_grid_;     // this rank's box: the fields' shape
  Halo<T, 2> halo_;
  const FluidParams params_;
  index_t nx_ = 0, ny_ = 0, gnx_ = 0, gny_ = 0;  // cells of this box, and of the whole grid
  double hx_ = 1, hy_ = 1;
  double start_speed_ = 1;  // the speed scale of a start at rest (start_speed_scale): the dt's floor
  bool pressure_singular_ = false;  // the pressure problem is all Neumann: defined up to a constant
  bool has_outflow_ = false, has_dye_ = true;
  bool fill_stage_output_ = true;  // fill a momentum stage's output before its projection (see set_boundary_rules)
  BoundarySpec<T> boundary_, homogeneous_boundary_;

  // the pressure solve
  std::string solver_name_;  // the pressure solver's name ("auto" resolved)
  std::string solver_note_;  // why auto chose it, and the transforms
  std::unique_ptr<solvers::PoissonSolver<T>> solver_;
  solvers::PoissonStencil<T> stencil_;  // views into the solver's coefficient arrays
  PressureGuess<T> guess_;
  int last_pressure_iterations_ = 0, last_viscous_iterations_ = 0;
  double last_pressure_residual_ = 0, last_dt_ = 0;

  // the time step, the speeds, and the recorded steps
  StepInput dt_input_;                  // the step's dt, read by the kernels from memory
  const double* kernel_dt_ = nullptr;   // where the kernels read dt (dt_input_, or a device clock's)
  AsyncReduction<SpeedPair> speeds_;    // max |u|, |v| of the state a recorded step leaves
  ForEachReduce<SpeedPair, LargerSpeeds> speed_pass_;  // the same, fused into the step's last projection
  bool speeds_on_host_ = false;         // speeds_ holds the current state's (else reduce afresh)
  bool speeds_on_device_ = false;       // speeds_.result() holds the current state's
  bool adaptive_dt_asked_ = false;      // next_dt() has been called: queue its speeds at the end of each step
  StepEnding ending_;                   // how the step being recorded ends
  StreamMarks marks_;  // marked_step's (off: marks ignored)
  StepRecordings recordings_;
  ClockedBatches batches_;              // the batches of device-clocked steps (run_device_steps)
  RankReduction speed_max_;                   // several ranks: the speeds' maximum over the ranks, in place
  bool decomposed_recorded_ = false;    // several ranks: the step is recorded (choose_decomposed_steps)
  bool queue_fixed_steps_ = false;      // several ranks, transposes on the copy engines: step() is queued, not replayed
  AsyncReduction<double> rank_sum_;     // a sum over the ranks (the pressure right-hand side's, or the guess's)
  Array<double, 1> rank_sum_slot_;      // where it lands (device memory)

  // the fields
  Field<T, 2> u_, v_, dye_, u_stage1_, v_stage1_, dye_stage1_, u_stage2_, v_stage2_, dye_stage2_;
  Field<T, 2> u_cell_, v_cell_, vorticity_;  // snapshot outputs at cell centres
  Field<T, 2> u_carry_, v_carry_, dye_stand_in_;  // implicit viscosity: the IMEX carry, and a dye stand-in for ghost fills
  ImplicitViscosity<T> viscosity_;
  Field<T, 2> p_, pressure_rhs_, divergence_, pressure_increment_;  // cell-centred, shaped like the pressure solver's fields
  bool rhs_in_rows_ = false;  // the last right-hand side is in the distributed solve's staged rows (project_through_rows)
};

}  // namespace fluid

ModelInfo fluid_model_info() {
  ModelInfo m;
  m.name = "fluid";
  m.doc = "2D and 3D incompressible Navier-Stokes, projection on a MAC grid, pluggable pressure solvers";
  m.ranks = {2, 3};
  m.parallel = Parallel::grid;
  fluid::describe_fluid_params(m);
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
