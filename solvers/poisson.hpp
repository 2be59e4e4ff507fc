#pragma once
// The pressure Poisson operator of a 2D cell-centred grid, A p = -div(c grad p), on dense
// (ghost-free) arrays, matrix-free. Each face link has a coefficient c: 1 between two fluid
// cells, 0 across a wall or into a solid cell; a domain face is Neumann (c = 0), Dirichlet
// p = 0 on the face (c = 2: the cell centre is half a cell away), or periodic (c = 1, wrapping).
// Without obstacles the coefficients follow from the boundary kinds alone; with obstacles
// they are stored per face (cx: (nx + 1) x ny, cy: nx x (ny + 1)). Solid cells get the
// identity row, so A stays symmetric positive (semi-)definite on the whole grid.
// On several ranks each holds its box of every level as Fields (one ghost layer): a side
// shared with another rank reads that rank's cells from the ghosts, which the level's Halo
// fills (PoissonLevel::exchange) before every kernel that reads neighbours.
#include <cstdint>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/array/expr.hpp"
#include "core/kernels/for_each.hpp"
#include "core/mesh/grid.hpp"
#include "core/distributed/halo.hpp"
#include "core/numerics/unfused_multiply.hpp"

namespace sim::solvers {

/// The kind of one domain side for the pressure equation.
enum class PressureSide { neumann, dirichlet, periodic };

/// Link coefficient of a domain face of this kind: 2 Dirichlet (the value sits half a cell
/// away), 1 periodic, 0 Neumann.
template <class T>
T side_coefficient(PressureSide side) {
  return side == PressureSide::dirichlet ? T(2) : side == PressureSide::periodic ? T(1) : T(0);
}

/// The operator's data as kernels see it (trivially copyable).
template <class T>
struct PoissonStencil {
  index_t nx = 0, ny = 0;
  T inv_hx2 = 1, inv_hy2 = 1;
  T side_c[4] = {0, 0, 0, 0};        ///< link coefficient of the x-low, x-high, y-low, y-high sides
  bool periodic_x = false, periodic_y = false;  ///< wraps within this box (one rank along the dimension)
  bool halo_x[2] = {false, false}, halo_y[2] = {false, false};  ///< low/high side shared with another rank: read the ghosts
  bool has_links = false;            ///< coefficients per face in cx / cy (obstacles)
  View<const T, 2> cx{}, cy{};       ///< per-face coefficients when has_links
  View<const T, 2> active{};         ///< 1 for fluid cells, 0 for solid (identity rows) when has_links
  T inside_diagonal = 0, inside_inverse = 0;  ///< the diagonal of a row with every link 1, and its inverse (base_stencil)

  /// Coefficient of the x-face at the low side of cell (i, j); i in [0, nx].
  SIM_INLINE T link_x(index_t i, index_t j) const {
    if (has_links) return cx(i, j);
    if (i == 0) return side_c[0];
    if (i == nx) return side_c[1];
    return T(1);
  }
  /// Coefficient of the y-face at the low side of cell (i, j); j in [0, ny].
  SIM_INLINE T link_y(index_t i, index_t j) const {
    if (has_links) return cy(i, j);
    if (j == 0) return side_c[2];
    if (j == ny) return side_c[3];
    return T(1);
  }
  /// True when cell (i, j) has an identity row (solid).
  SIM_INLINE bool solid(index_t i, index_t j) const { return has_links && active(i, j) == T(0); }
  /// p at (i, j) where i or j may be one outside the box: the ghost on a shared side, wrapped
  /// when periodic, else 0. p is a view or anything indexed as one (a fft::StagedView).
  template <class P>
  SIM_INLINE T at(const P& p, index_t i, index_t j) const {
    if ((i < 0 || i >= nx) && !halo_x[i < 0 ? 0 : 1]) {
      if (!periodic_x) return T(0);
      i = i < 0 ? i + nx : i - nx;
    }
    if ((j < 0 || j >= ny) && !halo_y[j < 0 ? 0 : 1]) {
      if (!periodic_y) return T(0);
      j = j < 0 ? j + ny : j - ny;
    }
    return p(i, j);
  }
  // The arithmetic of a row, in products rounded on their own (math::mul_rn): every kernel
  // that uses it (pass by pass, on tiles, in one block) gives the same bits, on both backends.

  /// The diagonal of a row whose links are cxl, cxh (x-low, x-high), cyl, cyh.
  SIM_INLINE T diagonal_of(T cxl, T cxh, T cyl, T cyh) const {
    return math::mul_rn(cxl + cxh, inv_hx2) + math::mul_rn(cyl + cyh, inv_hy2);
  }
  /// The neighbours' values xl, xh, yl, yh times the links cxl, cxh, cyl, cyh, summed.
  SIM_INLINE T combine_of(T cxl, T cxh, T cyl, T cyh, T xl, T xh, T yl, T yh) const {
    using math::mul_rn;
    return mul_rn(mul_rn(cxl, xl) + mul_rn(cxh, xh), inv_hx2) + mul_rn(mul_rn(cyl, yl) + mul_rn(cyh, yh), inv_hy2);
  }
  /// (A p) of a fluid row of diagonal d given p's value pc there and the neighbours' sum nb.
  SIM_INLINE static T applied_of(T pc, T nb, T d) { return math::mul_rn(d, pc) - nb; }
  /// 1 / d for a row's diagonal d (0 for a cell with every link closed). Smoothing multiplies by
  /// it, so a kernel whose rows share one diagonal divides once, not once a cell.
  SIM_INLINE static T inverse_of(T d) { return d == T(0) ? T(0) : T(1) / d; }
  /// inverse_of(d), without the division when d is the diagonal of a row away from every side.
  SIM_INLINE T inverse(T d) const { return d == inside_diagonal ? inside_inverse : inverse_of(d); }
  /// The value that solves a fluid row given b, the neighbours' sum nb and the diagonal's inverse.
  SIM_INLINE static T relaxed_by(T b, T nb, T inverse) { return math::mul_rn(b + nb, inverse); }
  /// Diagonal of row (i, j) (0 for a cell with every link closed).
  SIM_INLINE T diagonal(index_t i, index_t j) const {
    return diagonal_of(link_x(i, j), link_x(i + 1, j), link_y(i, j), link_y(i, j + 1));
  }
  /// The neighbours' values xl, xh (x-low, x-high), yl, yh of cell (i, j) times their
  /// (positive) link coefficients, summed.
  SIM_INLINE T combine(index_t i, index_t j, T xl, T xh, T yl, T yh) const {
    return combine_of(link_x(i, j), link_x(i + 1, j), link_y(i, j), link_y(i, j + 1), xl, xh, yl, yh);
  }
  /// Sum of the off-diagonal neighbours times their (positive) link coefficients.
  SIM_INLINE T neighbours(const View<const T, 2>& p, index_t i, index_t j) const {
    return combine(i, j, at(p, i - 1, j), at(p, i + 1, j), at(p, i, j - 1), at(p, i, j + 1));
  }
  /// The value that solves row (i, j) for its cell given the neighbours' sum nb (neighbours()):
  /// b on a solid cell, 0 on a cell with every link closed.
  SIM_INLINE T relaxed(T b, T nb, index_t i, index_t j) const {
    const T d = diagonal(i, j);
    if (solid(i, j)) return b;
    return relaxed_by(b, nb, inverse(d));
  }
  /// (A p)(i, j) given p(i, j) = pc and the neighbours' sum nb (neighbours()).
  SIM_INLINE T applied(T pc, T nb, index_t i, index_t j) const {
    if (solid(i, j)) return pc;
    return applied_of(pc, nb, diagonal(i, j));
  }
  /// (A p)(i, j).
  SIM_INLINE T apply(const View<const T, 2>& p, index_t i, index_t j) const {
    if (solid(i, j)) return p(i, j);
    return applied(p(i, j), neighbours(p, i, j), i, j);
  }
};

/// out = A p.
template <class T>
struct PoissonApply {
  PoissonStencil<T> s;
  View<const T, 2> p;
  View<T, 2> out;
  SIM_INLINE void operator()(index_t i, index_t j) const { out(i, j) = s.apply(p, i, j); }
};

/// r = b - A p.
template <class T>
struct PoissonResidual {
  PoissonStencil<T> s;
  View<const T, 2> p, b;
  View<T, 2> r;
  SIM_INLINE void operator()(index_t i, index_t j) const { r(i, j) = b(i, j) - s.apply(p, i, j); }
};

/// One colour of a red-black Gauss-Seidel sweep, in place: the cells with (i + j) % 2 == colour.
/// The launch box is nx x ceil(ny / 2); jj is the position among the row's cells of that colour.
template <class T>
struct PoissonGaussSeidel {
  PoissonStencil<T> s;
  View<T, 2> p;
  View<const T, 2> b;
  int colour;
  SIM_INLINE void operator()(index_t i, index_t jj) const {
    const index_t j = 2 * jj + ((i + colour) & 1);
    if (j < s.ny) p(i, j) = s.relaxed(b(i, j), s.neighbours(p, i, j), i, j);
  }
};

/// The first colour of a sweep from p = 0, over the whole box: the cells of that colour get
/// what PoissonGaussSeidel gives them with every neighbour 0, the others 0. (It replaces a fill
/// with zeros and a pass.)
template <class T>
struct PoissonGaussSeidelFromZero {
  PoissonStencil<T> s;
  View<T, 2> p;
  View<const T, 2> b;
  int colour;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    p(i, j) = ((i + j) & 1) == colour ? s.relaxed(b(i, j), T(0), i, j) : T(0);
  }
};

/// One Jacobi sweep: out = p + omega (b - A p) / diag.
template <class T>
struct PoissonJacobi {
  PoissonStencil<T> s;
  View<const T, 2> p, b;
  View<T, 2> out;
  T omega;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const T d = s.diagonal(i, j);
    if (s.solid(i, j) || d == T(0)) {
      out(i, j) = s.solid(i, j) ? b(i, j) : T(0);
      return;
    }
    out(i, j) = p(i, j) + omega * (b(i, j) + s.neighbours(p, i, j) - d * p(i, j)) / d;
  }
};

/// One level of the whole Poisson problem, host side: the global grid, its sides, and (with
/// obstacles) the per-face coefficients and fluid flags of every cell, row-major.
template <class T>
struct PoissonGrid {
  index_t nx = 0, ny = 0;
  T inv_hx2 = 1, inv_hy2 = 1;
  PressureSide sides[4] = {};
  std::vector<T> cx, cy, active;  ///< empty without obstacles
  bool singular = false;          ///< no Dirichlet side: A has the constants (on fluid cells) as null space
  index_t fluid_cells = 0;
  /// True with per-face coefficients (obstacles).
  bool has_links() const { return !active.empty(); }
};

/// How the grid is split over ranks: every rank's box (level 0) and this rank's index.
struct PoissonPartition {
  Comm comm;
  std::vector<Subdomain> boxes;  ///< boxes[r]: rank r's box and neighbours
  /// One rank holding the whole nx x ny grid.
  static PoissonPartition whole(index_t nx, index_t ny) {
    PoissonPartition p;
    p.boxes.resize(1);
    p.boxes[0].cells[0] = nx, p.boxes[0].cells[1] = ny;
    return p;
  }
  /// This rank's box.
  const Subdomain& mine() const { return boxes[std::size_t(comm.rank())]; }
  /// The same split on the grid twice as coarse (every box's cells must be even).
  PoissonPartition coarser() const {
    PoissonPartition p = *this;
    for (Subdomain& b : p.boxes)
      for (int d = 0; d < 2; ++d) b.offset[d] /= 2, b.cells[d] /= 2;
    return p;
  }
  /// True when every box has an even number of cells in both dimensions.
  bool halvable() const {
    for (const Subdomain& b : boxes)
      if (b.cells[0] % 2 || b.cells[1] % 2) return false;
    return true;
  }
};

/// One level of the Poisson problem on this rank: the stencil of its box, the arrays it
/// points into, and the ghost exchange with the neighbouring ranks.
template <class T>
struct PoissonLevel {
  Context ctx;
  PoissonStencil<T> stencil;
  Array<T, 2> cx, cy, active;  ///< per-face coefficients and fluid flags (only with obstacles)
  bool singular = false;       ///< no Dirichlet side: A has the constants (on fluid cells) as null space
  index_t fluid_cells = 0;     ///< over the whole grid
  Comm comm;                   ///< the ranks (dot products add over them)
  Halo<T, 2> halo;             ///< ghost exchange of this level's fields (inactive on one rank)
  std::uint64_t exchanges = 0;  ///< ghost exchanges made so far (with corners or faces only; for profiles)

  /// The cells of this rank's box as a box.
  Box<2> box() const { return Box<2>{{0, 0}, {stencil.nx, stencil.ny}}; }
  /// The grid of this rank's box with one ghost layer (the shape of make_field's fields).
  Grid<2> grid() const {
    const index_t n[2] = {stencil.nx, stencil.ny};
    const double len[2] = {double(n[0]), double(n[1])};
    return Grid<2>::uniform(Extents<2>{{n[0], n[1]}}, len, 1);
  }
  /// A new field with this level's shape, zero (ghosts included).
  Field<T, 2> make_field() const {
    Field<T, 2> f(ctx, grid());
    f.fill(T(0));
    return f;
  }
  /// Fills f's ghosts on sides shared with other ranks, corners included (no-op on one rank).
  void exchange(Field<T, 2>& f) {
    if (halo.active()) halo.exchange(f), ++exchanges;
  }
  /// The same without corners, in one round of messages: enough for the 5-point stencil.
  void exchange_faces(Field<T, 2>& f) {
    if (!halo.active()) return;
    ++exchanges;
    halo.start_faces(f);
    halo.finish_faces(f);
  }
  /// r = b - A x on this rank's box (exchanges x's ghosts first).
  void residual(const Field<T, 2>& b, Field<T, 2>& x, Field<T, 2>& r) {
    exchange_faces(x);
    for_each(ctx, "poisson::residual", box(), PoissonResidual<T>{stencil, x.view(), b.view(), r.view()});
  }
  /// x . y over every rank's box, accumulated in double.
  double dot(const Field<T, 2>& x, const Field<T, 2>& y) const { return comm.sum(double(sim::dot(x, y))); }
};

/// The whole finest grid: nx x ny cells of size hx x hy, sides (x-low, x-high, y-low,
/// y-high); fluid (optional, host, row-major nx * ny, 1 = fluid) marks obstacles.
template <class T>
PoissonGrid<T> make_poisson_grid(index_t nx, index_t ny, double hx, double hy, const PressureSide (&sides)[4],
                                 const std::vector<T>* fluid = nullptr);

/// The grid twice as coarse as fine (nx and ny must be even).
template <class T>
PoissonGrid<T> coarsen(const PoissonGrid<T>& fine);

/// This rank's level of grid, split as part says (collective: every rank calls it together).
template <class T>
PoissonLevel<T> make_poisson_level(const Context& ctx, const PoissonGrid<T>& grid, const PoissonPartition& part);

/// The stencil of the whole grid over its host arrays (for the coarsest direct solve).
template <class T>
PoissonStencil<T> host_stencil(const PoissonGrid<T>& grid);

}  // namespace sim::solvers

#include "solvers/poisson_level.inl"
