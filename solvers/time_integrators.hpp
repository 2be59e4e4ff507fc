#pragma once
// Explicit time integrators for du/dt = f(u), in Shu-Osher form so that every stage is one
// fused pass over memory. The model supplies the stage update
//   update(v, out, dt, w, u0):  out = w u0 + (1 - w) (v + dt f(v))   (it fills v's ghosts),
// and the integrators only decide the stages. out never aliases v (stencils read
// neighbours of v), but may alias u0.

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

}  // namespace sim::solvers
