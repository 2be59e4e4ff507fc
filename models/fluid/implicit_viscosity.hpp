#pragma once
// The implicit viscous solve of the fluid model: (I - s L) U = b for the face velocities
// (u, v) together, s = theta dt nu, by conjugate gradients, matrix-free. L is the model's
// 5-point Laplacian with the ghost-cell boundary rules; faces with fixed values (walls,
// inflow, obstacles) keep them. CG iterates on the correction, whose ghosts follow the
// homogeneous rules (no lid, no inflow), for which the operator is symmetric positive definite.
// On several ranks the fields are each rank's box; fill_homogeneous also exchanges their
// ghosts, and the dot products add over the ranks.
#include <cmath>

#include "core/comm.hpp"
#include "core/expr.hpp"
#include "models/fluid/fluid_kernels.hpp"
#include "solvers/cg.hpp"

namespace sim::fluid {

template <class T>
class ImplicitViscosity {
 public:
  ImplicitViscosity() = default;
  /// Work fields for grids like grid.
  ImplicitViscosity(const Context& ctx, const Grid<2>& grid) : ctx_(ctx) {
    for (Field<T, 2>* f : {&ru_, &rv_, &pu_, &pv_, &au_, &av_}) *f = Field<T, 2>(ctx, grid), f->fill(T(0));
    box_ = Box<2>{{0, 0}, {grid.cells.n[0], grid.cells.n[1]}};
  }

  /// Solves (I - s L) U = b in place: on entry (u, v) hold b with every ghost filled by the
  /// full boundary rules; on exit U (ghosts stale). fill_homogeneous(pu, pv) fills ghosts by
  /// the rules without lid or inflow velocities. Stops at ||b - A U|| <= tol ||b||.
  template <class FillHomogeneous>
  solvers::CgResult solve(Field<T, 2>& u, Field<T, 2>& v, const solvers::PoissonStencil<T>& links, double s,
                          const FillHomogeneous& fill_homogeneous, double tol, int max_iterations, const Comm& comm) {
    auto dot = [&comm](const Field<T, 2>& a, const Field<T, 2>& b) { return comm.sum(double(sim::dot(a, b))); };
    solvers::CgResult res;
    const T sx = T(s * double(links.inv_hx2)), sy = T(s * double(links.inv_hy2));
    apply(u, v, ru_, rv_, links, sx, sy);
    ru_ = u - ru_, rv_ = v - rv_;
    pu_ = ru_ * 1, pv_ = rv_ * 1;
    double rr = dot(ru_, ru_) + dot(rv_, rv_);
    const double bnorm = std::sqrt(dot(u, u) + dot(v, v));
    const double target = tol * (bnorm > 0 ? bnorm : 1.0);
    while (std::sqrt(rr) > target && res.iterations < max_iterations) {
      fill_homogeneous(pu_, pv_);
      apply(pu_, pv_, au_, av_, links, sx, sy);
      const double pap = dot(pu_, au_) + dot(pv_, av_);
      if (!(pap > 0)) break;  // breakdown at the precision floor: report, do not divide by 0
      const T alpha = T(rr / pap);
      u = u + alpha * pu_, v = v + alpha * pv_;
      ru_ = ru_ - alpha * au_, rv_ = rv_ - alpha * av_;
      const double rr_new = dot(ru_, ru_) + dot(rv_, rv_);
      const T beta = T(rr_new / rr);
      pu_ = ru_ + beta * pu_, pv_ = rv_ + beta * pv_;
      rr = rr_new;
      ++res.iterations;
    }
    res.residual = std::sqrt(rr) / (bnorm > 0 ? bnorm : 1.0);
    res.converged = std::sqrt(rr) <= target;
    return res;
  }

 private:
  void apply(const Field<T, 2>& pu, const Field<T, 2>& pv, Field<T, 2>& au, Field<T, 2>& av,
             const solvers::PoissonStencil<T>& links, T sx, T sy) {
    for_each(ctx_, "fluid::viscous_apply", box_, ViscousApply<T>{pu.view(), pv.view(), au.view(), av.view(), links, sx, sy});
  }

  Context ctx_;
  Box<2> box_{};
  Field<T, 2> ru_, rv_, pu_, pv_, au_, av_;
};

}  // namespace sim::fluid
