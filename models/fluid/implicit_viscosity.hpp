#pragma once
// The implicit viscous solve of the fluid model, 2D and 3D: (I - s L) U = b for the D face
// velocity components together, s = theta dt nu, by conjugate gradients, matrix-free. L is the
// model's 5- or 7-point Laplacian with the ghost-cell boundary rules (viscous_operator,
// mac_operators.hpp); faces with fixed values (walls, inflow, obstacles) keep them. CG iterates
// on the correction, whose ghosts follow the homogeneous rules (no moving wall, no inflow), for
// which the operator is symmetric positive definite. On several ranks the fields are each
// rank's box; fill_homogeneous also exchanges their ghosts, and the dot products add over the ranks.
#include <array>
#include <cmath>
#include <memory>

#include "core/distributed/comm.hpp"
#include "core/array/expr.hpp"
#include "models/fluid/fluid_kernels.hpp"
#include "solvers/cg.hpp"

namespace sim::fluid {

template <class T, int D = 2>
class ImplicitViscosity {
 public:
  using Vector = std::array<Field<T, D>*, D>;

  ImplicitViscosity() = default;
  /// Work fields for grids like grid (dot products add over comm's ranks).
  ImplicitViscosity(const Context& ctx, const Grid<D>& grid, const Comm& comm) : work_(std::make_unique<Work>()) {
    Work& w = *work_;
    Vector r, p, a;
    for (int c = 0; c < D; ++c) {
      for (Field<T, D>* f : {&w.r[c], &w.p[c], &w.a[c]}) *f = Field<T, D>(ctx, grid), f->fill(T(0));
      r[c] = &w.r[c], p[c] = &w.p[c], a[c] = &w.a[c];
    }
    for (int d = 0; d < D; ++d) w.box.lo[d] = 0, w.box.hi[d] = grid.cells.n[d];
    w.ctx = ctx;
    w.cg = solvers::ConjugateGradient<T, D, D>(ctx, w.box, comm, r, p, a);
  }

  /// Solves (I - s L) U = b in place (2D): on entry (u, v) hold b with every ghost filled by
  /// the full boundary rules; on exit U (ghosts stale). fill_homogeneous(pu, pv) fills ghosts
  /// by the rules without lid or inflow velocities. Stops at ||b - A U|| <= tol ||b||.
  template <class FillHomogeneous>
  solvers::CgResult solve(Field<T, 2>& u, Field<T, 2>& v, const solvers::PoissonStencil<T>& links, double s,
                          const FillHomogeneous& fill_homogeneous, double tol, int max_iterations) {
    const T sx = T(s * double(links.inv_hx2)), sy = T(s * double(links.inv_hy2));
    auto kernel = [&](const Vector& p, const Vector& out) {
      return ViscousApply<T>{p[0]->view(), p[1]->view(), out[0]->view(), out[1]->view(), links, sx, sy};
    };
    auto fill = [&](const Vector& p) { fill_homogeneous(*p[0], *p[1]); };
    return solve_with({&u, &v}, kernel, fill, tol, max_iterations);
  }

  /// The same for any D: kernel(p, out) is the operator's kernel over the cells (out = (I - s
  /// L) p on open faces, p on fixed ones), fill_homogeneous(p) fills p's ghosts.
  template <class Kernel, class FillHomogeneous>
  solvers::CgResult solve_with(const Vector& x, const Kernel& kernel, const FillHomogeneous& fill_homogeneous, double tol,
                               int max_iterations) {
    Work& w = *work_;
    bool first = true;  // the first apply is to b itself, whose ghosts carry the full rules
    auto apply = [&](const Vector& p, const Vector& out) {
      if (!first) fill_homogeneous(p);
      first = false;
      for_each(w.ctx, "fluid::viscous_apply", w.box, kernel(p, out));
    };
    return w.cg.solve(apply, nullptr, x, constant(x), tol, max_iterations);
  }

 private:
  static std::array<const Field<T, D>*, D> constant(const Vector& x) {
    std::array<const Field<T, D>*, D> b;
    for (int c = 0; c < D; ++c) b[c] = x[c];
    return b;
  }
  struct Work {  // behind a pointer: the solver points at these fields, which must not move
    Context ctx;
    Box<D> box{};
    Field<T, D> r[D], p[D], a[D];
    solvers::ConjugateGradient<T, D, D> cg;
  };
  std::unique_ptr<Work> work_;
};

}  // namespace sim::fluid
