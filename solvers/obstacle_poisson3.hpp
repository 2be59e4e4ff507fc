#pragma once
// The pressure equation of a 3D box with solid cells (obstacles): the 7-point operator of
// Poisson7 with per-face links, as solvers/poisson.hpp has them in 2D. A face between two
// fluid cells has link 1, a domain side its side coefficient (0 Neumann, 2 Dirichlet, 1
// periodic), a face touching a solid cell 0; a solid cell's row is the identity (its right-hand
// side is 0, so its pressure is 0). The fluid rows stay symmetric, and with no Dirichlet side
// the constants over the fluid cells are the null space.
// ObstacleCgPoisson3 solves it by conjugate gradients preconditioned by the diagonal (Jacobi):
// iterative, to a tolerance. It has the interface of an exact solve (the box, the fluid mask,
// solve(b, x), description()), so a faster solver can take its place where the model builds it.
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/array/expr.hpp"
#include "core/kernels/for_each.hpp"
#include "solvers/cg.hpp"
#include "solvers/transform_poisson.hpp"

namespace sim::solvers {

/// The low-face links of every cell along each dimension for box with the fluid mask (1 fluid,
/// 0 solid; row-major over the box's cells): link[d] at cell (i, j, k) is the coefficient of
/// its low d-face (at the low side of the box: the side's coefficient, or across a periodic
/// side the link to the last cell), 0 where either cell is solid.
template <class T>
std::array<std::vector<T>, 3> masked_face_links(const PoissonBox3& box, const std::vector<T>& fluid) {
  const index_t n0 = box.n[0], n1 = box.n[1], n2 = box.n[2];
  auto at = [&](index_t i, index_t j, index_t k) { return fluid[std::size_t((i * n1 + j) * n2 + k)] != T(0); };
  std::array<std::vector<T>, 3> links;
  for (int d = 0; d < 3; ++d) {
    links[std::size_t(d)].assign(std::size_t(n0 * n1 * n2), T(0));
    for (index_t i = 0; i < n0; ++i)
      for (index_t j = 0; j < n1; ++j)
        for (index_t k = 0; k < n2; ++k) {
          index_t q[3] = {i, j, k};
          const bool here = at(i, j, k);
          T link = T(0);
          if (q[d] > 0) {
            --q[d];
            link = here && at(q[0], q[1], q[2]) ? T(1) : T(0);
          } else if (box.sides[2 * d] == PressureSide::periodic) {
            q[d] = box.n[d] - 1;
            link = here && at(q[0], q[1], q[2]) ? T(1) : T(0);
          } else {
            link = here ? side_coefficient<T>(box.sides[2 * d]) : T(0);
          }
          links[std::size_t(d)][std::size_t((i * n1 + j) * n2 + k)] = link;
        }
  }
  return links;
}

/// The masked 7-point operator as kernels see it (trivially copyable): the box's Poisson7 for
/// the sides and the periodic wrap, the low-face links of every cell, the fluid mask.
template <class T>
struct MaskedPoisson7 {
  Poisson7<T> box;
  View<const T, 3> links[3];  ///< low-face link of each cell along each dimension
  View<const T, 3> fluid;     ///< 1 fluid, 0 solid
  /// The link of the d-face with index f[d] in [0, n[d]] of the face position f (the high side:
  /// the side's coefficient, or across a periodic side the link of face 0, when the cell below is fluid).
  SIM_INLINE T face_link(int d, index_t i, index_t j, index_t k) const {
    index_t f[3] = {i, j, k};
    if (f[d] < box.n[d]) return links[d](i, j, k);
    f[d] = 0;
    if (box.periodic[d]) return links[d](f[0], f[1], f[2]);
    f[d] = box.n[d] - 1;
    return fluid(f[0], f[1], f[2]) != T(0) ? box.side_c[2 * d + 1] : T(0);
  }
  /// p at (i, j, k), any one index one outside the box: wrapped when periodic, else 0.
  template <class P>
  SIM_INLINE T at(const P& p, index_t i, index_t j, index_t k) const {
    return box.at(p, i, j, k);
  }
  /// (A p)(i, j, k): the identity in a solid cell.
  template <class P>
  SIM_INLINE T apply(const P& p, index_t i, index_t j, index_t k) const {
    const T c = p(i, j, k);
    if (fluid(i, j, k) == T(0)) return c;
    const T lx = links[0](i, j, k), hx = face_link(0, i + 1, j, k), ly = links[1](i, j, k), hy = face_link(1, i, j + 1, k),
            lz = links[2](i, j, k), hz = face_link(2, i, j, k + 1);
    return (lx * (c - at(p, i - 1, j, k)) + hx * (c - at(p, i + 1, j, k))) * box.inv_h2[0] +
           (ly * (c - at(p, i, j - 1, k)) + hy * (c - at(p, i, j + 1, k))) * box.inv_h2[1] +
           (lz * (c - at(p, i, j, k - 1)) + hz * (c - at(p, i, j, k + 1))) * box.inv_h2[2];
  }
  /// The diagonal of A at (i, j, k).
  SIM_INLINE T diagonal(index_t i, index_t j, index_t k) const {
    if (fluid(i, j, k) == T(0)) return T(1);
    return (links[0](i, j, k) + face_link(0, i + 1, j, k)) * box.inv_h2[0] +
           (links[1](i, j, k) + face_link(1, i, j + 1, k)) * box.inv_h2[1] +
           (links[2](i, j, k) + face_link(2, i, j, k + 1)) * box.inv_h2[2];
  }
};

/// out = A p (MaskedPoisson7).
template <class T>
struct MaskedPoisson7Apply {
  MaskedPoisson7<T> s;
  View<const T, 3> p;
  View<T, 3> out;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { out(i, j, k) = s.apply(p, i, j, k); }
};

/// out = in * scale (the Jacobi preconditioner: scale the inverse diagonal).
template <class T>
struct ScaleBy {
  View<const T, 3> in, scale;
  View<T, 3> out;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { out(i, j, k) = in(i, j, k) * scale(i, j, k); }
};

/// out = in (interiors of two 3D views of one box).
template <class T>
struct CopyBox3 {
  View<const T, 3> in;
  View<T, 3> out;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { out(i, j, k) = in(i, j, k); }
};

/// out = 1 / the diagonal of A (1 where it is 0: a fluid cell with no open face).
template <class T>
struct InverseDiagonal {
  MaskedPoisson7<T> s;
  View<T, 3> out;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    const T d = s.diagonal(i, j, k);
    out(i, j, k) = d > T(0) ? T(1) / d : T(1);
  }
};

/// The masked operator's solve by Jacobi-preconditioned conjugate gradients, one rank. Not
/// movable (the CG holds its work fields): hold it by pointer. The CG's seven work fields are
/// allocated by the first solve, so that a caller using only the operator (stencil()) holds
/// just the links and the mask.
template <class T>
class ObstacleCgPoisson3 {
 public:
  ObstacleCgPoisson3(const ObstacleCgPoisson3&) = delete;
  ObstacleCgPoisson3& operator=(const ObstacleCgPoisson3&) = delete;
  /// The solver of box's masked operator (fluid: 1 fluid, 0 solid, row-major over the box's cells) on ctx.
  ObstacleCgPoisson3(const Context& ctx, const PoissonBox3& box, const std::vector<T>& fluid) : ctx_(ctx), box_(box) {
    const double length[3] = {double(box.n[0]), double(box.n[1]), double(box.n[2])};
    grid_ = Grid<3>::uniform(extents(box.n[0], box.n[1], box.n[2]), length);
    for (Field<T, 3>* f : {&links_[0], &links_[1], &links_[2], &fluid_}) *f = Field<T, 3>(ctx, grid_), f->fill(T(0));
    const std::array<std::vector<T>, 3> links = masked_face_links(box, fluid);
    for (int d = 0; d < 3; ++d) links_[d].copy_from_host(links[std::size_t(d)]);
    fluid_.copy_from_host(fluid);
    fluid_cells_ = 0;
    for (T f : fluid) fluid_cells_ += f != T(0) ? 1.0 : 0.0;
    ops_.box = Poisson7<T>::of(box);
    for (int d = 0; d < 3; ++d) ops_.links[d] = links_[d].view();
    ops_.fluid = fluid_.view();
  }

  /// The relative residual ||b - A x|| / ||b|| a solve reaches, and its iteration cap.
  void set_tolerance(double rel_tol, int max_iterations) { tol_ = rel_tol, max_iterations_ = max_iterations; }

  /// x = the solution of A x = b (views of the box's cells), starting from x's values. b's
  /// mean over the fluid cells is dropped when A is singular (no Dirichlet side), as the
  /// transform solves drop it; b must be 0 in solid cells.
  void solve(View<const T, 3> b, View<T, 3> x) {
    if (!cg_ready_) prepare_cg();
    for_each(ctx_, "obstacle_poisson::load_b", grid_.interior(), CopyBox3<T>{b, b_.view()});
    for_each(ctx_, "obstacle_poisson::load_x", grid_.interior(), CopyBox3<T>{View<const T, 3>(x), x_.view()});
    if (box_.singular()) b_ = b_ - T(double(sum(b_)) / fluid_cells_) * fluid_;
    const MaskedPoisson7<T> ops = ops_;
    auto apply = [this, ops](const std::array<Field<T, 3>*, 1>& p, const std::array<Field<T, 3>*, 1>& out) {
      for_each(ctx_, "obstacle_poisson::apply", grid_.interior(), MaskedPoisson7Apply<T>{ops, p[0]->view(), out[0]->view()});
    };
    auto precondition = [this](const std::array<Field<T, 3>*, 1>& r, const std::array<Field<T, 3>*, 1>& z) {
      for_each(ctx_, "obstacle_poisson::jacobi", grid_.interior(),
               ScaleBy<T>{r[0]->view(), inverse_diagonal_.view(), z[0]->view()});
    };
    last_ = cg_.solve(apply, precondition, {&x_}, {&b_}, tol_, max_iterations_);
    for_each(ctx_, "obstacle_poisson::store_x", grid_.interior(), CopyBox3<T>{x_.view(), x});
  }

  /// The operator the solver inverts (views into its link and mask fields).
  MaskedPoisson7<T> stencil() const { return ops_; }
  /// How the last solve ended.
  const CgResult& last() const { return last_; }
  /// What the solver is.
  std::string description() const { return "conjugate gradients preconditioned by the diagonal (Jacobi), masked 7-point operator"; }

 private:
  /// The CG's work fields, the preconditioner's inverse diagonal and the CG itself.
  void prepare_cg() {
    for (Field<T, 3>* f : {&inverse_diagonal_, &x_, &b_, &r_, &p_, &ap_, &z_}) *f = Field<T, 3>(ctx_, grid_), f->fill(T(0));
    for_each(ctx_, "obstacle_poisson::inverse_diagonal", grid_.interior(), InverseDiagonal<T>{ops_, inverse_diagonal_.view()});
    cg_ = ConjugateGradient<T, 3>(ctx_, grid_.interior(), Comm{}, {&r_}, {&p_}, {&ap_}, {&z_});
    cg_.set_zero_solution_for_zero_b(true);  // (the operator is linear: b = 0 has x = 0)
    cg_ready_ = true;
  }

  Context ctx_;
  PoissonBox3 box_;
  Grid<3> grid_;
  MaskedPoisson7<T> ops_;
  bool cg_ready_ = false;
  Field<T, 3> links_[3], fluid_, inverse_diagonal_, x_, b_, r_, p_, ap_, z_;
  double fluid_cells_ = 1;
  ConjugateGradient<T, 3> cg_;
  double tol_ = 1e-8;
  int max_iterations_ = 20000;
  CgResult last_;
};

}  // namespace sim::solvers
