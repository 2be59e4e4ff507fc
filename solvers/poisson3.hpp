#pragma once
// The 3D pressure Poisson operator with a coefficient per face link, A p = -div(c grad p), on
// a cell-centred box, matrix-free: the 7-point stencil of transform_poisson.hpp's Poisson7 where
// each face link has its own coefficient (1 between two fluid cells, 0 into a solid cell or
// across a Neumann side, 2 at a Dirichlet side, 1 across a periodic side, wrapping) and solid
// cells have identity rows, so A stays symmetric positive (semi-)definite on the whole box.
// Without obstacles the coefficients follow from the sides alone; with them they are stored
// per face (links[d]: n[d] + 1 faces along d). Multigrid (multigrid3.hpp) builds its levels
// from Poisson3Grid, the host-side problem; the kernels see Poisson7Links. One rank.
#include <string>
#include <vector>

#include "core/array/array.hpp"
#include "core/kernels/for_each.hpp"
#include "solvers/transform_poisson.hpp"

namespace sim::solvers {

/// The whole 3D problem of one level, host side: cells, 1 / h^2 per axis, the sides, and (with
/// obstacles) the per-face link coefficients and the fluid flags, row-major.
template <class T>
struct Poisson3Grid {
  index_t n[3] = {1, 1, 1};
  double inv_h2[3] = {1, 1, 1};
  PressureSide sides[6] = {};
  std::vector<T> links[3];  ///< links[d]: faces normal to d, shape n with n[d] + 1 along d (empty without obstacles)
  std::vector<T> active;    ///< 1 fluid, 0 solid (identity row), shape n (empty without obstacles)
  bool singular = false;    ///< no open face on a Dirichlet side: A has the constants (on fluid cells) as null space
  index_t fluid_cells = 0;

  /// True with per-face coefficients (obstacles).
  bool has_links() const { return !active.empty(); }
  /// Cells of the box.
  index_t cells() const { return n[0] * n[1] * n[2]; }
  /// The shape of the array of faces normal to d.
  Extents<3> face_shape(int d) const {
    Extents<3> e{{n[0], n[1], n[2]}};
    e.n[d] += 1;
    return e;
  }
  /// Row-major position of cell (i, j, k).
  std::size_t cell(index_t i, index_t j, index_t k) const { return std::size_t((i * n[1] + j) * n[2] + k); }
  /// Row-major position of the face normal to d at the low side of cell (i, j, k) (index n[d] along d: the high side).
  std::size_t face(int d, index_t i, index_t j, index_t k) const {
    const Extents<3> e = face_shape(d);
    return std::size_t((i * e.n[1] + j) * e.n[2] + k);
  }
};

/// The problem of box without obstacles (coefficients from the sides).
template <class T>
Poisson3Grid<T> poisson3_grid(const PoissonBox3& box) {
  Poisson3Grid<T> g;
  g.singular = box.singular();
  for (int d = 0; d < 3; ++d) g.n[d] = box.n[d], g.inv_h2[d] = box.inv_h2[d];
  for (int s = 0; s < 6; ++s) g.sides[s] = box.sides[s];
  g.fluid_cells = g.cells();
  return g;
}

/// The problem of box with the given per-face coefficients and fluid flags (row-major; links[d]
/// of shape face_shape(d), active of the cells' shape): the operator the caller's links define
/// (a periodic dimension's face 0 and face n[d] are the same face and must agree). Throws Error
/// on a wrong size.
template <class T>
Poisson3Grid<T> poisson3_grid(const PoissonBox3& box, std::vector<T> cx, std::vector<T> cy, std::vector<T> cz,
                              std::vector<T> active) {
  Poisson3Grid<T> g = poisson3_grid<T>(box);
  g.links[0] = std::move(cx), g.links[1] = std::move(cy), g.links[2] = std::move(cz), g.active = std::move(active);
  if (g.active.size() != std::size_t(g.cells()))
    throw Error("poisson3_grid: " + std::to_string(g.active.size()) + " fluid flags for " + std::to_string(g.cells()) + " cells");
  for (int d = 0; d < 3; ++d)
    if (g.links[d].size() != std::size_t(g.face_shape(d).size()))
      throw Error(std::string("poisson3_grid: ") + std::to_string(g.links[d].size()) + " link coefficients normal to " + "xyz"[d] +
                  " for " + std::to_string(g.face_shape(d).size()) + " faces");
  g.fluid_cells = 0;
  for (T a : g.active) g.fluid_cells += a != T(0);
  g.singular = true;  // unless a face on a Dirichlet side is open
  for (int d = 0; d < 3; ++d)
    for (int side = 0; side < 2; ++side) {
      if (box.sides[2 * d + side] != PressureSide::dirichlet) continue;
      const int e = (d + 1) % 3, f = (d + 2) % 3;
      for (index_t a = 0; a < g.n[e]; ++a)
        for (index_t b = 0; b < g.n[f]; ++b) {
          index_t q[3];
          q[d] = side ? g.n[d] : 0, q[e] = a, q[f] = b;
          if (g.links[d][g.face(d, q[0], q[1], q[2])] != T(0)) g.singular = false;
        }
    }
  return g;
}

/// The problem of box around obstacles: fluid (row-major over the cells, 1 fluid, 0 solid)
/// gives the links: 1 between two fluid cells, the side's coefficient between a fluid cell and
/// the domain side, 0 wherever a solid cell is.
template <class T>
Poisson3Grid<T> poisson3_grid(const PoissonBox3& box, const std::vector<T>& fluid) {
  Poisson3Grid<T> g = poisson3_grid<T>(box);
  if (fluid.size() != std::size_t(g.cells()))
    throw Error("poisson3_grid: " + std::to_string(fluid.size()) + " fluid flags for " + std::to_string(g.cells()) + " cells");
  std::vector<T> links[3];
  for (int d = 0; d < 3; ++d) {
    const Extents<3> e = g.face_shape(d);
    links[d].assign(std::size_t(e.size()), T(0));
    for (index_t i = 0; i < e.n[0]; ++i)
      for (index_t j = 0; j < e.n[1]; ++j)
        for (index_t k = 0; k < e.n[2]; ++k) {
          index_t hi[3] = {i, j, k}, lo[3] = {i, j, k};  // the cells on the face's two sides
          lo[d] -= 1;
          const bool low_side = hi[d] == 0, high_side = hi[d] == g.n[d];
          const bool periodic = box.sides[2 * d] == PressureSide::periodic;
          if (periodic) lo[d] = (lo[d] + g.n[d]) % g.n[d], hi[d] = hi[d] % g.n[d];
          auto is_fluid = [&](const index_t (&q)[3]) { return fluid[g.cell(q[0], q[1], q[2])] != T(0); };
          T c;
          if (!periodic && low_side) c = is_fluid(hi) ? side_coefficient<T>(box.sides[2 * d]) : T(0);
          else if (!periodic && high_side) c = is_fluid(lo) ? side_coefficient<T>(box.sides[2 * d + 1]) : T(0);
          else c = T(is_fluid(lo) && is_fluid(hi));
          links[d][g.face(d, i, j, k)] = c;
        }
  }
  return poisson3_grid<T>(box, std::move(links[0]), std::move(links[1]), std::move(links[2]), fluid);
}

/// The grid twice as coarse as fine along the axes halve marks (their n[d] even), the same
/// along the others (semi-coarsening): 1 / h^2 of a halved axis divided by 4; with obstacles a
/// coarse face averages the fine faces it covers (a closed one counts 0, so a face half blocked
/// is half open), a coarse cell is fluid if any of its children is, and links into a solid
/// coarse cell close (so solid rows stay identity rows), as the 2D coarsen() does.
template <class T>
Poisson3Grid<T> coarsen3(const Poisson3Grid<T>& f, const bool (&halve)[3]) {
  Poisson3Grid<T> g;
  index_t r[3];  // fine cells per coarse cell along each axis
  for (int d = 0; d < 3; ++d) r[d] = halve[d] ? 2 : 1, g.n[d] = f.n[d] / r[d], g.inv_h2[d] = f.inv_h2[d] / double(r[d] * r[d]);
  for (int s = 0; s < 6; ++s) g.sides[s] = f.sides[s];
  g.singular = f.singular;
  g.fluid_cells = g.cells();
  if (!f.has_links()) return g;
  g.active.assign(std::size_t(g.cells()), T(0));
  g.fluid_cells = 0;
  for (index_t i = 0; i < g.n[0]; ++i)
    for (index_t j = 0; j < g.n[1]; ++j)
      for (index_t k = 0; k < g.n[2]; ++k) {
        bool any = false;
        for (index_t a = 0; a < r[0]; ++a)
          for (index_t b = 0; b < r[1]; ++b)
            for (index_t c = 0; c < r[2]; ++c) any |= f.active[f.cell(r[0] * i + a, r[1] * j + b, r[2] * k + c)] != T(0);
        g.active[g.cell(i, j, k)] = T(any);
        g.fluid_cells += any;
      }
  auto solid = [&](index_t (&q)[3]) {  // a face's cell outside the box: the wrapped one, or the face's own
    for (int d = 0; d < 3; ++d)
      if (q[d] < 0 || q[d] >= g.n[d])
        q[d] = f.sides[2 * d] == PressureSide::periodic ? (q[d] + g.n[d]) % g.n[d] : (q[d] < 0 ? 0 : g.n[d] - 1);
    return g.active[g.cell(q[0], q[1], q[2])] == T(0);
  };
  for (int d = 0; d < 3; ++d) {
    const int e = (d + 1) % 3, h = (d + 2) % 3;
    const Extents<3> shape = g.face_shape(d);
    g.links[d].assign(std::size_t(shape.size()), T(0));
    for (index_t i = 0; i < shape.n[0]; ++i)
      for (index_t j = 0; j < shape.n[1]; ++j)
        for (index_t k = 0; k < shape.n[2]; ++k) {
          const index_t q[3] = {i, j, k};
          T sum = 0;
          for (index_t a = 0; a < r[e]; ++a)
            for (index_t b = 0; b < r[h]; ++b) {
              index_t fq[3];
              fq[d] = r[d] * q[d], fq[e] = r[e] * q[e] + a, fq[h] = r[h] * q[h] + b;
              sum += f.links[d][f.face(d, fq[0], fq[1], fq[2])];
            }
          index_t lo[3] = {i, j, k}, hi[3] = {i, j, k};
          lo[d] -= 1;
          g.links[d][g.face(d, i, j, k)] = solid(lo) || solid(hi) ? T(0) : sum / T(r[e] * r[h]);
        }
  }
  return g;
}

/// The operator's data as kernels see it (trivially copyable).
template <class T>
struct Poisson7Links {
  index_t n[3] = {1, 1, 1};
  T inv_h2[3] = {1, 1, 1};
  T side_c[6] = {0, 0, 0, 0, 0, 0};  ///< link coefficient of each side (without obstacles)
  bool periodic[3] = {false, false, false};
  bool has_links = false;              ///< coefficients per face in c[], fluid flags in active
  View<const T, 3> c[3] = {};          ///< per-face coefficients when has_links
  View<const T, 3> active{};           ///< 1 fluid, 0 solid when has_links
  T inside_diagonal = 0, inside_inverse = 0;  ///< the diagonal of a row with every link 1, and its inverse

  /// Coefficient of the face normal to d at the low side of cell (i, j, k) (index n[d] along d: the high side).
  SIM_INLINE T link(int d, index_t i, index_t j, index_t k) const {
    if (has_links) return c[d](i, j, k);
    const index_t f = d == 0 ? i : d == 1 ? j : k;
    return f == 0 ? side_c[2 * d] : f == n[d] ? side_c[2 * d + 1] : T(1);
  }
  /// True when cell (i, j, k) has an identity row (solid).
  SIM_INLINE bool solid(index_t i, index_t j, index_t k) const { return has_links && active(i, j, k) == T(0); }
  /// Index q of dimension d wrapped into the box when periodic; -1 when outside and not periodic.
  SIM_INLINE index_t wrap(int d, index_t q) const {
    if (q >= 0 && q < n[d]) return q;
    if (!periodic[d]) return -1;
    return q < 0 ? q + n[d] : q - n[d];
  }
  /// p at (i, j, k), any one index one outside the box: wrapped when periodic, else 0.
  template <class P>
  SIM_INLINE T at(const P& p, index_t i, index_t j, index_t k) const {
    i = wrap(0, i), j = wrap(1, j), k = wrap(2, k);
    return i < 0 || j < 0 || k < 0 ? T(0) : T(p(i, j, k));
  }
  /// Row (i, j, k) of a fluid cell: its diagonal d and the sum nb of the neighbours' values times their links.
  template <class P>
  SIM_INLINE void row(const P& p, index_t i, index_t j, index_t k, T& d, T& nb) const {
    if (!has_links && i > 0 && j > 0 && k > 0 && i + 1 < n[0] && j + 1 < n[1] && k + 1 < n[2]) {  // every link 1, no wrap
      d = inside_diagonal;
      nb = (T(p(i - 1, j, k)) + T(p(i + 1, j, k))) * inv_h2[0] + (T(p(i, j - 1, k)) + T(p(i, j + 1, k))) * inv_h2[1] +
           (T(p(i, j, k - 1)) + T(p(i, j, k + 1))) * inv_h2[2];
      return;
    }
    const T lx = link(0, i, j, k), hx = link(0, i + 1, j, k), ly = link(1, i, j, k), hy = link(1, i, j + 1, k);
    const T lz = link(2, i, j, k), hz = link(2, i, j, k + 1);
    d = (lx + hx) * inv_h2[0] + (ly + hy) * inv_h2[1] + (lz + hz) * inv_h2[2];
    nb = (lx * at(p, i - 1, j, k) + hx * at(p, i + 1, j, k)) * inv_h2[0] +
         (ly * at(p, i, j - 1, k) + hy * at(p, i, j + 1, k)) * inv_h2[1] +
         (lz * at(p, i, j, k - 1) + hz * at(p, i, j, k + 1)) * inv_h2[2];
  }
  /// (A p)(i, j, k).
  template <class P>
  SIM_INLINE T apply(const P& p, index_t i, index_t j, index_t k) const {
    const T pc = T(p(i, j, k));
    if (solid(i, j, k)) return pc;
    T d, nb;
    row(p, i, j, k, d, nb);
    return d * pc - nb;
  }
  /// The value that solves row (i, j, k) for its cell, the neighbours as p holds them: b on a
  /// solid cell, 0 on a cell with every link closed.
  template <class P>
  SIM_INLINE T relaxed(const P& p, T b, index_t i, index_t j, index_t k) const {
    if (solid(i, j, k)) return b;
    T d, nb;
    row(p, i, j, k, d, nb);
    const T inv = d == inside_diagonal ? inside_inverse : d == T(0) ? T(0) : T(1) / d;
    return (b + nb) * inv;
  }
};

/// The kernels' operator of grid, its per-face arrays read through links[] and active
/// (device arrays the caller keeps alive; ignored without obstacles).
template <class T>
Poisson7Links<T> poisson7_links(const Poisson3Grid<T>& g, const Array<T, 3> (&links)[3], const Array<T, 3>& active) {
  Poisson7Links<T> s;
  for (int d = 0; d < 3; ++d) {
    s.n[d] = g.n[d], s.inv_h2[d] = T(g.inv_h2[d]);
    s.periodic[d] = g.sides[2 * d] == PressureSide::periodic;
    s.side_c[2 * d] = side_coefficient<T>(g.sides[2 * d]), s.side_c[2 * d + 1] = side_coefficient<T>(g.sides[2 * d + 1]);
  }
  s.inside_diagonal = T(2) * (s.inv_h2[0] + s.inv_h2[1] + s.inv_h2[2]);
  s.inside_inverse = T(1) / s.inside_diagonal;
  if (!g.has_links()) return s;
  s.has_links = true;
  for (int d = 0; d < 3; ++d) s.c[d] = links[d].view();
  s.active = active.view();
  return s;
}

/// out = A p.
template <class T>
struct Poisson7LinksApply {
  Poisson7Links<T> s;
  View<const T, 3> p;
  View<T, 3> out;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { out(i, j, k) = s.apply(p, i, j, k); }
};

/// r = b - A p.
template <class T>
struct Poisson7LinksResidual {
  Poisson7Links<T> s;
  View<const T, 3> p, b;
  View<T, 3> r;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { r(i, j, k) = b(i, j, k) - s.apply(p, i, j, k); }
};

/// One colour of a red-black Gauss-Seidel sweep, in place: the cells with (i + j + k) % 2 ==
/// colour. The launch box is n0 x n1 x ceil(n2 / 2); kk is the position among the cells of that
/// colour along k.
template <class T>
struct Poisson7LinksGaussSeidel {
  Poisson7Links<T> s;
  View<T, 3> p;
  View<const T, 3> b;
  int colour;
  SIM_INLINE void operator()(index_t i, index_t j, index_t kk) const {
    const index_t k = 2 * kk + ((i + j + colour) & 1);
    if (k < s.n[2]) p(i, j, k) = s.relaxed(p, b(i, j, k), i, j, k);
  }
};

/// The first colour of a sweep from p = 0, over the whole box: the cells of that colour get what
/// Poisson7LinksGaussSeidel gives them with every neighbour 0, the others 0 (a fill and a pass in one).
template <class T>
struct Poisson7LinksGaussSeidelFromZero {
  Poisson7Links<T> s;
  View<T, 3> p;
  View<const T, 3> b;
  int colour;
  /// A stand-in for p whose every value is 0.
  struct Zero {
    SIM_INLINE T operator()(index_t, index_t, index_t) const { return T(0); }
  };
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    p(i, j, k) = ((i + j + k) & 1) == colour ? s.relaxed(Zero{}, b(i, j, k), i, j, k) : T(0);
  }
};

}  // namespace sim::solvers
