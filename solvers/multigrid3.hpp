#pragma once
// Geometric multigrid for the 3D cell-centred pressure operator of poisson3.hpp (7-point, a
// coefficient per face link), the 2D multigrid's method in one more dimension: red-black
// Gauss-Seidel smoothing, trilinear prolongation and its transpose R = P^T / 8 as restriction
// (mg_transfer3.hpp), coarse operators rediscretised on boxes twice as coarse along the strongly
// coupled axes (semi-coarsening where the spacing is anisotropic; around obstacles from the fine
// links, coarsen3), and the coarsest box solved by a dense solution operator on
// the device (the projection onto the range folded in when A is singular). Pre-smoothing runs
// red then black and post-smoothing black then red, so a V-cycle is a symmetric operator: it
// preconditions CG (PoissonMgCg3). One rank: every level is the whole box.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/kernels/reduce.hpp"
#include "solvers/cg.hpp"
#include "solvers/mg_transfer3.hpp"
#include "solvers/multigrid.hpp"
#include "solvers/poisson3.hpp"

namespace sim::solvers {

/// x = M b on the coarsest level, M the dense solution operator (row-major over the cells, in double).
template <class T>
struct Mg3CoarseDense {
  const double* m;
  index_t n1, n2, cells;
  View<const T, 3> b;
  View<T, 3> x;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    const double* row = m + ((i * n1 + j) * n2 + k) * cells;
    double acc = 0;
    index_t q = 0;
    for (index_t a = 0; a < cells / (n1 * n2); ++a)
      for (index_t c = 0; c < n1; ++c)
        for (index_t e = 0; e < n2; ++e, ++q) acc += row[q] * double(b(a, c, e));
    x(i, j, k) = T(acc);
  }
};

/// x = 0.
template <class T>
struct Mg3Zero {
  View<T, 3> x;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { x(i, j, k) = T(0); }
};

/// b on the fluid cells (active, or every cell when null), in double, for the mean.
template <class T>
struct Mg3FluidValue {
  View<const T, 3> b, active;
  SIM_INLINE double operator()(index_t i, index_t j, index_t k) const {
    return active.ptr && active(i, j, k) == T(0) ? 0.0 : double(b(i, j, k));
  }
};

/// out = b - mean on the fluid cells, b on the solid ones.
template <class T>
struct Mg3RemoveMean {
  View<const T, 3> b, active;
  View<T, 3> out;
  T mean;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    out(i, j, k) = active.ptr && active(i, j, k) == T(0) ? b(i, j, k) : b(i, j, k) - mean;
  }
};

template <class T>
class Multigrid3 {
 public:
  /// The hierarchy of grid: coarsens while the box has more than coarsest_cells cells, halving
  /// the axes whose coupling is strong (semi-coarsening, halving()); throws Error when the
  /// coarsest box is too large for the dense solve (then the cell counts need more factors of 2).
  Multigrid3(const Context& ctx, const Poisson3Grid<T>& grid, MgOptions opt = {}) : ctx_(ctx), opt_(opt) {
    if (opt_.pre_smooth == 0) opt_.pre_smooth = sizeof(T) == 4 ? 1 : 2;
    if (opt_.post_smooth == 0) opt_.post_smooth = sizeof(T) == 4 ? 1 : 2;
    opt_ = tuned(opt_);
    grids_.push_back(grid);
    std::vector<std::array<bool, 3>> halved;  // halved[l]: the axes halved from level l to l + 1
    bool halve[3];
    while (grids_.back().cells() > coarsest_cells && halving(grids_.back(), halve)) {
      halved.push_back({halve[0], halve[1], halve[2]});
      grids_.push_back(coarsen3(grids_.back(), halve));
    }
    const Poisson3Grid<T>& last = grids_.back();
    if (last.cells() > dense_cells_max)
      throw Error("multigrid 3D: the grid halves only down to " + shape(last) + " cells, more than the coarsest direct solve takes (" +
                  std::to_string(dense_cells_max) + "); use cell counts with more factors of 2 (e.g. multiples of 16), or "
                  "pressure_solver = \"transform\"");
    for (std::size_t l = 0; l < grids_.size(); ++l) levels_.push_back(make_level(grids_[l], l > 0));
    for (std::size_t l = 0; l + 1 < grids_.size(); ++l) {
      int children = 1;
      for (int d = 0; d < 3; ++d) {
        levels_[l].axis[d] = Mg3Axis<T>{interp(grids_[l + 1], d), halved[l][std::size_t(d)]};
        children *= halved[l][std::size_t(d)] ? 2 : 1;
      }
      levels_[l].inv_children = T(1) / T(children);
      const std::vector<T> s = interpolation_scale3(grids_[l], grids_[l + 1], levels_[l].axis);
      if (!s.empty()) levels_[l].scale = Array<T, 3>::from_host(ctx, cells_of(grids_[l]), s);
    }
    form_dense_coarse(last);
  }
  Multigrid3(const Multigrid3&) = delete;  // the levels' stencils point into their own arrays
  Multigrid3& operator=(const Multigrid3&) = delete;

  /// Number of levels, finest included.
  int levels() const { return int(levels_.size()); }
  /// The finest level's operator.
  const Poisson7Links<T>& stencil() const { return levels_[0].s; }
  /// The finest problem.
  const Poisson3Grid<T>& grid() const { return grids_[0]; }
  /// Red-black sweeps before and after the coarse correction.
  int smoothing() const { return opt_.pre_smooth; }
  /// The boxes of the levels, e.g. "64x64x64 32x32x32 16x16x16 8x8x8".
  std::string description() const {
    std::string s;
    for (const Poisson3Grid<T>& g : grids_) s += (s.empty() ? "" : " ") + shape(g);
    return s;
  }

  /// out = A p on the finest level.
  void apply(View<const T, 3> p, View<T, 3> out) const {
    for_each(ctx_, "mg3::apply", box(0), Poisson7LinksApply<T>{levels_[0].s, p, out});
  }
  /// r = b - A x on the finest level.
  void residual(View<const T, 3> b, View<const T, 3> x, View<T, 3> r) const {
    for_each(ctx_, "mg3::residual", box(0), Poisson7LinksResidual<T>{levels_[0].s, x, b, r});
  }

  /// One V-cycle on A x = b from the current x.
  void vcycle(View<const T, 3> b, View<T, 3> x) { cycle(0, b, x, false); }
  /// z = M r: one V-cycle from zero (the preconditioner).
  void precondition(View<const T, 3> r, View<T, 3> z) { cycle(0, r, z, true); }

  /// Standalone multigrid: V-cycles until ||b - A x|| <= rel_tol ||b|| or max_cycles, or until
  /// 10 cycles in a row gain less than a factor 2 (the precision's floor: reported as stalled).
  SolveStats solve(View<const T, 3> b, View<T, 3> x, double rel_tol, int max_cycles) {
    SolveStats st;
    const double bnorm = norm(b);
    if (bnorm == 0) {
      for_each(ctx_, "mg3::zero", box(0), Mg3Zero<T>{x});
      st.converged = true;
      return st;
    }
    View<T, 3> r = levels_[0].r.view();
    residual(b, x, r);
    return cycle_until(norm(r) / bnorm, rel_tol, max_cycles, [&] {
      vcycle(b, x);
      residual(b, x, r);
      return norm(r) / bnorm;
    });
  }

  /// ||v|| over the finest box, in double.
  double norm(View<const T, 3> v) const {
    return std::sqrt(reduce(ctx_, "mg3::norm", box(0), cg_detail::DotMap<T, 3>{v, v}, ops::Plus{}, 0.0));
  }

  /// out = b less its mean over the fluid cells (b on solid cells): the part of b in A's range when singular.
  void remove_mean(View<const T, 3> b, View<T, 3> out) const {
    const View<const T, 3> active = levels_[0].s.has_links ? levels_[0].s.active : View<const T, 3>{};
    const double total = reduce(ctx_, "mg3::fluid_sum", box(0), Mg3FluidValue<T>{b, active}, ops::Plus{}, 0.0);
    const double fluid = double(grids_[0].fluid_cells);
    for_each(ctx_, "mg3::remove_mean", box(0), Mg3RemoveMean<T>{b, active, out, T(fluid > 0 ? total / fluid : 0.0)});
  }

 private:
  /// One level's operator and work arrays (b and x on the coarse levels; r on all; the
  /// transfers to the next coarser level: axis[] and, around obstacles, scale).
  struct Level {
    Array<T, 3> links[3], active, r, b, x, scale;
    Poisson7Links<T> s;
    Mg3Axis<T> axis[3];
    T inv_children = 1;  // 1 / (the fine cells of a coarse cell)
  };

  static Extents<3> cells_of(const Poisson3Grid<T>& g) { return Extents<3>{{g.n[0], g.n[1], g.n[2]}}; }
  static std::string shape(const Poisson3Grid<T>& g) {
    return std::to_string(g.n[0]) + "x" + std::to_string(g.n[1]) + "x" + std::to_string(g.n[2]);
  }
  /// Which axes of g to halve (halve[d]); false when none, or when g cannot be smoothed (a
  /// periodic axis of an odd count above 1 breaks the red-black colouring). An axis is halved
  /// when its count is even and its coupling strong: 1 / h^2 at least a quarter of the largest
  /// (of the axes of 2 cells or more); a weakly coupled axis is kept (point smoothing leaves its
  /// smooth errors, which a coarse grid averaging across it would not see: a box two cells thick
  /// took 34-44 mg_cg iterations with every axis halved).
  static bool halving(const Poisson3Grid<T>& g, bool (&halve)[3]) {
    double strongest = 0;
    for (int d = 0; d < 3; ++d) {
      if (g.sides[2 * d] == PressureSide::periodic && g.n[d] > 1 && g.n[d] % 2) return false;
      if (g.n[d] >= 2) strongest = std::max(strongest, g.inv_h2[d]);
    }
    bool any = false;
    for (int d = 0; d < 3; ++d) {
      halve[d] = g.n[d] >= 2 && g.n[d] % 2 == 0 && 4 * g.inv_h2[d] >= strongest;
      any |= halve[d];
    }
    return any;
  }
  Box<3> box(std::size_t l) const { return Box<3>{{0, 0, 0}, {levels_[l].s.n[0], levels_[l].s.n[1], levels_[l].s.n[2]}}; }

  Level make_level(const Poisson3Grid<T>& g, bool coarse) const {
    Level L;
    if (g.has_links()) {
      for (int d = 0; d < 3; ++d) L.links[d] = Array<T, 3>::from_host(ctx_, g.face_shape(d), g.links[d]);
      L.active = Array<T, 3>::from_host(ctx_, cells_of(g), g.active);
    }
    L.s = poisson7_links(g, L.links, L.active);
    L.r = Array<T, 3>(ctx_, cells_of(g));
    if (coarse) L.b = Array<T, 3>(ctx_, cells_of(g)), L.x = Array<T, 3>(ctx_, cells_of(g));
    return L;
  }

  /// The interpolation along d to the coarse box c: wrapping when periodic, mirrored with the sides' signs otherwise.
  static Interp1D<T> interp(const Poisson3Grid<T>& c, int d) {
    Interp1D<T> f;
    f.n_coarse = c.n[d];
    f.periodic = c.sides[2 * d] == PressureSide::periodic;
    f.sign_lo = c.sides[2 * d] == PressureSide::dirichlet ? T(-1) : T(1);
    f.sign_hi = c.sides[2 * d + 1] == PressureSide::dirichlet ? T(-1) : T(1);
    return f;
  }

  /// Red-black Gauss-Seidel sweeps; from_zero: x is 0 on entry (not read: the first colour writes every cell).
  void smooth(std::size_t l, View<const T, 3> b, View<T, 3> x, int sweeps, bool red_first, bool from_zero) {
    const Poisson7Links<T>& s = levels_[l].s;
    const Box<3> half{{0, 0, 0}, {s.n[0], s.n[1], (s.n[2] + 1) / 2}};
    for (int sweep = 0; sweep < sweeps; ++sweep)
      for (int c = 0; c < 2; ++c) {
        const int colour = red_first ? c : 1 - c;
        if (from_zero && sweep == 0 && c == 0)
          for_each(ctx_, "mg3::gauss_seidel_from_zero", box(l), Poisson7LinksGaussSeidelFromZero<T>{s, x, b, colour});
        else
          for_each(ctx_, "mg3::gauss_seidel", half, Poisson7LinksGaussSeidel<T>{s, x, b, colour});
      }
  }

  /// One V-cycle on level l from the guess in x (x_zero: the guess is 0, and x may hold anything).
  void cycle(std::size_t l, View<const T, 3> b, View<T, 3> x, bool x_zero) {
    Level& L = levels_[l];
    if (l + 1 == levels_.size()) {
      for_each(ctx_, "mg3::coarse_dense", box(l), Mg3CoarseDense<T>{dense_.data(), L.s.n[1], L.s.n[2], dense_n_, b, x});
      return;
    }
    Level& C = levels_[l + 1];
    smooth(l, b, x, opt_.pre_smooth, true, x_zero);
    for_each(ctx_, "mg3::residual", box(l), Poisson7LinksResidual<T>{L.s, x, b, L.r.view()});
    const index_t nf[3] = {L.s.n[0], L.s.n[1], L.s.n[2]};
    for_each(ctx_, "mg3::restrict", box(l + 1),
             Mg3Restrict<T>{{L.axis[0], L.axis[1], L.axis[2]}, {nf[0], nf[1], nf[2]}, L.inv_children, L.r.view(), C.b.view(), C.s,
                            scale(l)});
    cycle(l + 1, C.b.view(), C.x.view(), true);
    for_each(ctx_, "mg3::prolong_add", box(l), Mg3ProlongAdd<T>{{L.axis[0], L.axis[1], L.axis[2]}, C.x.view(), x, scale(l)});
    smooth(l, b, x, opt_.post_smooth, false, false);
  }

  /// Level l's transfers' scaling (null without obstacles).
  View<const T, 3> scale(std::size_t l) const {
    const Array<T, 3>& a = levels_[l].scale;
    return a.size() > 0 ? View<const T, 3>(a.view()) : View<const T, 3>{};
  }

  /// The dense solution operator of the coarsest box g on the device: A^-1 from a Cholesky
  /// factor of A (of A + c f f^T when singular, f the fluid cells' indicator, which gives the
  /// solution with no null-space part), times the projection of b onto the range.
  void form_dense_coarse(const Poisson3Grid<T>& g) {
    const index_t n = g.cells();
    dense_n_ = n;
    std::vector<double> a(std::size_t(n * n), 0.0), fluid(std::size_t(n), 1.0);
    const Array<T, 3> none[3];
    const Array<T, 3> no_active;
    Poisson7Links<T> s = poisson7_links(g, none, no_active);
    if (g.has_links()) {
      s.has_links = true;
      for (int d = 0; d < 3; ++d) s.c[d] = dense_view<const T, 3>(g.links[d].data(), g.face_shape(d));
      s.active = dense_view<const T, 3>(g.active.data(), cells_of(g));
      for (index_t q = 0; q < n; ++q) fluid[std::size_t(q)] = g.active[std::size_t(q)] != T(0) ? 1.0 : 0.0;
    }
    std::vector<T> e(std::size_t(n), T(0));
    const View<const T, 3> ev = dense_view<const T, 3>(e.data(), cells_of(g));
    double diag_mean = 0, fluid_count = 0;
    for (index_t q = 0; q < n; ++q) {  // column q of A
      e[std::size_t(q)] = T(1);
      for (index_t i = 0; i < g.n[0]; ++i)
        for (index_t j = 0; j < g.n[1]; ++j)
          for (index_t k = 0; k < g.n[2]; ++k) a[g.cell(i, j, k) * std::size_t(n) + std::size_t(q)] = double(s.apply(ev, i, j, k));
      e[std::size_t(q)] = T(0);
      diag_mean += a[std::size_t(q * n + q)] / double(n);
      fluid_count += fluid[std::size_t(q)];
    }
    if (g.singular)
      for (index_t i = 0; i < n; ++i)
        for (index_t q = 0; q < n; ++q) a[std::size_t(i * n + q)] += diag_mean / fluid_count * fluid[std::size_t(i)] * fluid[std::size_t(q)];
    cholesky(a, n);
    std::vector<double> m(std::size_t(n * n), 0.0), col(std::size_t(n), 0.0);
    for (index_t q = 0; q < n; ++q) {
      std::fill(col.begin(), col.end(), 0.0);
      col[std::size_t(q)] = 1;
      if (g.singular)  // the projection onto the range: mean zero on the fluid cells
        for (index_t i = 0; i < n; ++i) col[std::size_t(i)] -= fluid[std::size_t(q)] * fluid[std::size_t(i)] / fluid_count;
      solve_factored(a, n, col);
      for (index_t i = 0; i < n; ++i) m[std::size_t(i * n + q)] = col[std::size_t(i)];
    }
    dense_ = Array<double, 1>::from_host(ctx_, Extents<1>{{n * n}}, m);
  }

  /// a = L L^T in place (L in the lower triangle), a symmetric positive definite n x n.
  static void cholesky(std::vector<double>& a, index_t n) {
    for (index_t j = 0; j < n; ++j) {
      double d = a[std::size_t(j * n + j)];
      for (index_t k = 0; k < j; ++k) d -= a[std::size_t(j * n + k)] * a[std::size_t(j * n + k)];
      if (!(d > 0)) throw Error("multigrid 3D: the coarsest operator is not positive definite (a fluid region closed off?)");
      d = std::sqrt(d);
      a[std::size_t(j * n + j)] = d;
      for (index_t i = j + 1; i < n; ++i) {
        double v = a[std::size_t(i * n + j)];
        for (index_t k = 0; k < j; ++k) v -= a[std::size_t(i * n + k)] * a[std::size_t(j * n + k)];
        a[std::size_t(i * n + j)] = v / d;
      }
    }
  }
  /// y = (L L^T)^-1 y with L from cholesky().
  static void solve_factored(const std::vector<double>& l, index_t n, std::vector<double>& y) {
    for (index_t i = 0; i < n; ++i) {
      double v = y[std::size_t(i)];
      for (index_t k = 0; k < i; ++k) v -= l[std::size_t(i * n + k)] * y[std::size_t(k)];
      y[std::size_t(i)] = v / l[std::size_t(i * n + i)];
    }
    for (index_t i = n - 1; i >= 0; --i) {
      double v = y[std::size_t(i)];
      for (index_t k = i + 1; k < n; ++k) v -= l[std::size_t(k * n + i)] * y[std::size_t(k)];
      y[std::size_t(i)] = v / l[std::size_t(i * n + i)];
    }
  }

  /// Coarsen while a box has more cells than this: the dense coarsest solve costs its cell count
  /// in multiply-adds per cell.
  static constexpr index_t coarsest_cells = 512;
  /// The largest coarsest box the dense solve takes (its factor and inverse: n^3 work on the host, once).
  static constexpr index_t dense_cells_max = 1024;

  Context ctx_;
  MgOptions opt_;
  std::vector<Poisson3Grid<T>> grids_;  // the problem of each level, host side
  std::vector<Level> levels_;
  Array<double, 1> dense_;  // the coarsest solve as a dense operator
  index_t dense_n_ = 0;
};

/// mg_cg in 3D: conjugate gradients preconditioned by one Multigrid3 V-cycle, on fields of the
/// problem's box (interiors). A singular problem's right-hand side is projected onto the range
/// (its mean over the fluid cells removed) before the solve.
template <class T>
class PoissonMgCg3 {
 public:
  /// The solver of grid's operator on ctx.
  PoissonMgCg3(const Context& ctx, const Poisson3Grid<T>& grid, MgOptions opt = {}) : mg_(ctx, grid, opt) {
    const double len[3] = {double(grid.n[0]), double(grid.n[1]), double(grid.n[2])};
    const Grid<3> shape = Grid<3>::uniform(Extents<3>{{grid.n[0], grid.n[1], grid.n[2]}}, len, 1);
    for (Field<T, 3>* f : {&b_, &r_, &p_, &ap_, &z_}) *f = Field<T, 3>(ctx, shape), f->fill(T(0));
    cg_ = ConjugateGradient<T, 3>(ctx, shape.interior(), Comm(), {&r_}, {&p_}, {&ap_}, {&z_});
    cg_.set_recordable(true);  // the operator is fixed and the V-cycle never waits for the host
    cg_.set_zero_solution_for_zero_b(true);
  }
  PoissonMgCg3(const PoissonMgCg3&) = delete;  // its CG points at its own work fields
  PoissonMgCg3& operator=(const PoissonMgCg3&) = delete;

  /// Solves A x = b from the guess in x to ||b - A x|| <= rel_tol ||b||, at most max_iterations
  /// iterations (x's ghosts untouched).
  SolveStats solve(const Field<T, 3>& b, Field<T, 3>& x, double rel_tol, int max_iterations) {
    const Field<T, 3>* rhs = &b;
    if (mg_.grid().singular) mg_.remove_mean(b.view(), b_.view()), rhs = &b_;
    auto apply = [this](const auto& p, const auto& out) { mg_.apply(p[0]->view(), out[0]->view()); };
    auto precondition = [this](const auto& r, const auto& z) { mg_.precondition(r[0]->view(), z[0]->view()); };
    const CgResult res = cg_.solve(apply, precondition, {&x}, {rhs}, rel_tol, max_iterations);
    SolveStats st;
    st.iterations = res.iterations;
    st.residual = res.residual;
    st.converged = res.converged;
    st.stalled = res.stalled;
    return st;
  }

  /// The hierarchy (its operator, levels and description).
  Multigrid3<T>& multigrid() { return mg_; }
  const Multigrid3<T>& multigrid() const { return mg_; }

 private:
  Multigrid3<T> mg_;
  Field<T, 3> b_, r_, p_, ap_, z_;
  ConjugateGradient<T, 3> cg_;  // (points at the work fields above: the solver is not movable)
};

}  // namespace sim::solvers
