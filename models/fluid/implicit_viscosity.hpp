#pragma once
// The implicit viscous solve of the fluid model: (I - s L) U = b for the face velocities
// (u, v) together, s = theta dt nu, by conjugate gradients, matrix-free. L is the model's
// 5-point Laplacian with the ghost-cell boundary rules; faces with fixed values (walls,
// inflow, obstacles) keep them. CG iterates on the correction, whose ghosts follow the
// homogeneous rules (no lid, no inflow), for which the operator is symmetric positive definite.
// On several ranks the fields are each rank's box; fill_homogeneous also exchanges their
// ghosts, and the dot products add over the ranks.
#include <cmath>
#include <memory>

#include "core/distributed/comm.hpp"
#include "core/array/expr.hpp"
#include "models/fluid/fluid_kernels.hpp"
#include "solvers/cg.hpp"

namespace sim::fluid {

template <class T>
class ImplicitViscosity {
 public:
  ImplicitViscosity() = default;
  /// Work fields for grids like grid (dot products add over comm's ranks).
  ImplicitViscosity(const Context& ctx, const Grid<2>& grid, const Comm& comm) : work_(std::make_unique<Work>()) {
    Work& w = *work_;
    for (Field<T, 2>* f : {&w.ru, &w.rv, &w.pu, &w.pv, &w.au, &w.av}) *f = Field<T, 2>(ctx, grid), f->fill(T(0));
    w.box = Box<2>{{0, 0}, {grid.cells.n[0], grid.cells.n[1]}};
    w.ctx = ctx;
    w.cg = solvers::ConjugateGradient<T, 2, 2>(ctx, w.box, comm, {&w.ru, &w.rv}, {&w.pu, &w.pv}, {&w.au, &w.av});
  }

  /// Solves (I - s L) U = b in place: on entry (u, v) hold b with every ghost filled by the
  /// full boundary rules; on exit U (ghosts stale). fill_homogeneous(pu, pv) fills ghosts by
  /// the rules without lid or inflow velocities. Stops at ||b - A U|| <= tol ||b||.
  template <class FillHomogeneous>
  solvers::CgResult solve(Field<T, 2>& u, Field<T, 2>& v, const solvers::PoissonStencil<T>& links, double s,
                          const FillHomogeneous& fill_homogeneous, double tol, int max_iterations) {
    Work& w = *work_;
    const T sx = T(s * double(links.inv_hx2)), sy = T(s * double(links.inv_hy2));
    bool first = true;  // the first apply is to b itself, whose ghosts carry the full rules
    auto apply = [&](const auto& p, const auto& out) {
      if (!first) fill_homogeneous(*p[0], *p[1]);
      first = false;
      for_each(w.ctx, "fluid::viscous_apply", w.box,
               ViscousApply<T>{p[0]->view(), p[1]->view(), out[0]->view(), out[1]->view(), links, sx, sy});
    };
    return w.cg.solve(apply, nullptr, {&u, &v}, {&u, &v}, tol, max_iterations);
  }

 private:
  struct Work {  // behind a pointer: the solver points at these fields, which must not move
    Context ctx;
    Box<2> box{};
    Field<T, 2> ru, rv, pu, pv, au, av;
    solvers::ConjugateGradient<T, 2, 2> cg;
  };
  std::unique_ptr<Work> work_;
};

}  // namespace sim::fluid
