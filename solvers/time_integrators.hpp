#pragma once
// Explicit time integrators for du/dt = f(u), in Shu-Osher form so that every stage is one
// fused pass over memory. The model supplies the stage update
//   update(v, out, dt, w, u0):  out = w u0 + (1 - w) (v + dt f(v))   (it fills v's ghosts),
// and the integrators only decide the stages. out never aliases v (stencils read
// neighbours of v), but may alias u0. The stages' base weights w are those of
// ShuOsherWeights below, which the models also read (their pressure scales with 1 - w).

namespace sim::solvers {

/// Forward Euler: un = u + dt f(u). First order; one pass.
template <class FieldT, class Update, class T>
void euler_step(const Update& update, FieldT& u, FieldT& un, T dt) {
  update(u, un, dt, T(0), u);
}

/// Heun / SSP-RK2: u1 = u + dt f(u); un = u/2 + (u1 + dt f(u1))/2. Second order; two passes.
template <class FieldT, class Update, class T>
void rk2_step(const Update& update, FieldT& u, FieldT& stage, FieldT& un, T dt) {
  update(u, stage, dt, T(0), u);
  update(stage, un, dt, T(0.5), u);
}

/// SSP-RK3 (Shu and Osher 1988): u1 = u + dt f(u); u2 = 3/4 u + 1/4 (u1 + dt f(u1));
/// un = 1/3 u + 2/3 (u2 + dt f(u2)). Third order, three passes; stable for central
/// advection up to |dt lambda| = sqrt(3) on the imaginary axis, where Heun is not. un may be stage1.
template <class FieldT, class Update, class T>
void rk3_step(const Update& update, FieldT& u, FieldT& stage1, FieldT& stage2, FieldT& un, T dt) {
  update(u, stage1, dt, T(0), u);
  update(stage1, stage2, dt, T(0.75), u);
  update(stage2, un, dt, T(1) / T(3), u);
}

/// The base weights w of the explicit schemes' stages (1 euler, 2 Heun, 3 SSP-RK3 stages): stage
/// k's output is w u0 + (1 - w)(v + dt f(v)), so that a projection's pressure in it is 1 - w of the step's.
struct ShuOsherWeights {
  int stages = 1;
  /// w of stage k (0-based).
  double base(int k) const {
    if (k == 0) return 0.0;
    return stages == 2 ? 0.5 : k == 1 ? 0.75 : 1.0 / 3.0;
  }
  /// 1 - w of stage k: the weight of its dt f(v).
  double flux(int k) const { return 1 - base(k); }
  /// The stage whose base weight is w (the stage a model's update is in).
  int stage_of(double w) const {
    for (int k = stages - 1; k > 0; --k)
      if (w == base(k)) return k;
    return 0;
  }
};

}  // namespace sim::solvers
