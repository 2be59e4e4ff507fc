#pragma once
// The exact solve of the pressure equation around obstacles (poisson.hpp's masked operator A:
// links into solid cells closed, identity rows on solid cells) by the box's fast transform
// solve (transform_poisson.hpp) and a capacitance-matrix (Woodbury) correction, in 2D and 3D.
//
// Let A0 be the box's operator without the obstacle. Take A' = A0 with every link across a
// fluid-solid face (a cut face) removed from the fluid row and the solid row's off-diagonal,
// the solid row keeping A0's diagonal:
//   A' = A0 + P M P^T,  M = -sum over cut faces (i fluid, j solid) of (1/h_d^2)(e_i e_i^T - e_i e_j^T - e_j e_i^T)
// with P selecting the k cells touching a cut face. A' is block diagonal: its fluid block is
// A's fluid block exactly, its solid block is A0's principal submatrix on the solid cells
// (nonsingular). With y = A0^-1 b and w = M P^T x, A' x = b becomes
//   x = A0^-1 (b - P w),   (I + M G) w = M P^T y,   G = P^T A0^-1 P   (k x k)
// so a solve is two box solves, a gather of k values, one k x k matrix-vector product with
// K = (I + M G)^-1 M (built once, in double, from k box solves) and a scatter of k values:
// fixed work, no iterations, no host waits (recordable). The solid cells' values are then
// replaced by b's (A's identity rows), so x solves A x = b. On a GPU in float64, where the
// cells times k stay small, Z = A0^-1 P is kept (k columns from the set-up's box solves) and the
// second box solve becomes x = y - Z w, one matrix-vector product: on small grids a box solve's
// many short kernels cost more than reading Z.
// Without a Dirichlet side A0 and A's fluid block are singular (the constants). A0^-1 is then
// the transform's pseudo-inverse (mean-free result, b's mean ignored); b is made mean-free on
// the fluid cells (and zero on the solid ones), one fluid cell f next to the obstacle is pinned
// (M += e_f e_f^T / h_x^2, so x_f = 0 fixes the constant), and the unknown mean c of x joins w:
//   x = A0^+ (b - P w) + c,   (I + M G) w - c M 1 = M P^T y,   1^T w = 0.
// K then has k + 1 rows. Fluid cells cut off from every Dirichlet side in pieces (or more than
// one piece without one) would make K singular: the constructor refuses them, saying so.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/array/expr.hpp"
#include "core/kernels/for_each.hpp"
#include "core/kernels/reduce_async.hpp"
#include "core/kernels/reduce_ops.hpp"
#include "core/numerics/linalg.hpp"
#include "solvers/box_transform3.hpp"
#include "solvers/poisson.hpp"
#include "solvers/transform_poisson.hpp"

namespace sim::solvers {

/// The most surface cells (k) the capacitance correction takes: its matrix has k^2 entries,
/// built from k box solves; beyond it choose mg_cg.
constexpr index_t obstacle_transform_max_cells = 4096;

/// The largest A0^-1 P (cells x surface cells entries) kept on a GPU in float64, so that a
/// solve's second box solve becomes one matrix-vector product: the small grids where a box
/// solve's many short kernels cost more than reading the matrix (a channel of 262k cells and 144
/// surface cells: 38M entries). Larger problems, CPUs and float32 run the second box solve: in
/// float32, y - Z w loses digits to cancellation (the cylinder's relative residual rose from
/// 1.4e-6 to 2e-3), where a box solve of b - P w does not.
constexpr double obstacle_transform_max_columns = double(1 << 27);

/// A box of cells for the transform solve: cells, 1 / h^2 and the sides (low, high per axis).
template <int Rank>
struct TransformBox {
  index_t n[Rank] = {};
  double inv_h2[Rank] = {};
  PressureSide sides[2 * Rank] = {};
  /// Number of cells.
  index_t cells() const {
    index_t c = 1;
    for (int d = 0; d < Rank; ++d) c *= n[d];
    return c;
  }
  /// True when no side is Dirichlet (A0 has the constants as null space).
  bool singular() const {
    for (PressureSide s : sides)
      if (s == PressureSide::dirichlet) return false;
    return true;
  }
};

/// The 2D grid's box (its obstacle's links left out).
template <class T>
TransformBox<2> transform_box(const PoissonGrid<T>& g) {
  TransformBox<2> b;
  b.n[0] = g.nx, b.n[1] = g.ny, b.inv_h2[0] = double(g.inv_hx2), b.inv_h2[1] = double(g.inv_hy2);
  for (int k = 0; k < 4; ++k) b.sides[k] = g.sides[k];
  return b;
}
/// The 3D box.
inline TransformBox<3> transform_box(const PoissonBox3& box) {
  TransformBox<3> b;
  for (int d = 0; d < 3; ++d) b.n[d] = box.n[d], b.inv_h2[d] = box.inv_h2[d];
  for (int k = 0; k < 6; ++k) b.sides[k] = box.sides[k];
  return b;
}

/// The cut faces of a mask (1 fluid, 0 solid; row-major over box) and the cells they touch.
struct CutFaces {
  std::vector<index_t> cells;  ///< flat row-major indices of the cells touching a cut face, ascending
  struct Entry {
    index_t row, col;
    double value;
  };
  std::vector<Entry> m;        ///< M's nonzero terms (positions in cells; repeated positions add)
  index_t fluid_cells = 0;
};

/// The cut faces of mask over box: every face between a fluid and a solid cell, periodic wraps included.
template <int Rank, class T>
CutFaces cut_faces(const TransformBox<Rank>& box, const std::vector<T>& mask) {
  CutFaces cf;
  index_t stride[Rank];
  stride[Rank - 1] = 1;
  for (int d = Rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * box.n[d + 1];
  std::vector<std::pair<index_t, index_t>> faces;  // (fluid, solid)
  std::vector<int> face_dim;
  const index_t total = box.cells();
  for (index_t a = 0; a < total; ++a) {
    cf.fluid_cells += mask[std::size_t(a)] != T(0);
    for (int d = 0; d < Rank; ++d) {  // the face on a's high side along d
      const index_t i = (a / stride[d]) % box.n[d];
      index_t b;
      if (i + 1 < box.n[d]) b = a + stride[d];
      else if (box.sides[2 * d] == PressureSide::periodic && box.n[d] > 1) b = a - i * stride[d];
      else continue;
      const bool fa = mask[std::size_t(a)] != T(0), fb = mask[std::size_t(b)] != T(0);
      if (fa == fb) continue;
      faces.emplace_back(fa ? a : b, fa ? b : a), face_dim.push_back(d);
    }
  }
  for (const auto& f : faces) cf.cells.push_back(f.first), cf.cells.push_back(f.second);
  std::sort(cf.cells.begin(), cf.cells.end());
  cf.cells.erase(std::unique(cf.cells.begin(), cf.cells.end()), cf.cells.end());
  auto position = [&](index_t c) { return index_t(std::lower_bound(cf.cells.begin(), cf.cells.end(), c) - cf.cells.begin()); };
  for (std::size_t f = 0; f < faces.size(); ++f) {
    const index_t i = position(faces[f].first), j = position(faces[f].second);
    const double w = box.inv_h2[face_dim[f]];
    cf.m.push_back({i, i, -w}), cf.m.push_back({i, j, w}), cf.m.push_back({j, i, w});
  }
  return cf;
}

/// Fluid pieces (connected through open faces, periodic wraps included) whose pressure level
/// nothing fixes: those touching no Dirichlet side, less the one a pin fixes when the box has none.
template <int Rank, class T>
index_t undetermined_fluid_pieces(const TransformBox<Rank>& box, const std::vector<T>& mask) {
  index_t stride[Rank];
  stride[Rank - 1] = 1;
  for (int d = Rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * box.n[d + 1];
  std::vector<char> seen(mask.size(), 0);
  std::vector<index_t> stack;
  index_t free_pieces = 0;
  for (index_t start = 0; start < box.cells(); ++start) {
    if (seen[std::size_t(start)] || mask[std::size_t(start)] == T(0)) continue;
    bool fixed = false;
    seen[std::size_t(start)] = 1, stack.push_back(start);
    while (!stack.empty()) {
      const index_t a = stack.back();
      stack.pop_back();
      for (int d = 0; d < Rank; ++d) {
        const index_t i = (a / stride[d]) % box.n[d];
        for (int side = 0; side < 2; ++side) {
          const bool inside = side == 0 ? i > 0 : i + 1 < box.n[d];
          const PressureSide kind = box.sides[2 * d + side];
          if (!inside && kind == PressureSide::dirichlet) fixed = true;
          if (!inside && kind != PressureSide::periodic) continue;
          const index_t b = inside ? a + (side == 0 ? -stride[d] : stride[d]) : a + (side == 0 ? box.n[d] - 1 : 1 - box.n[d]) * stride[d];
          if (!seen[std::size_t(b)] && mask[std::size_t(b)] != T(0)) seen[std::size_t(b)] = 1, stack.push_back(b);
        }
      }
    }
    free_pieces += !fixed;
  }
  return box.singular() ? std::max<index_t>(free_pieces - 1, 0) : free_pieces;
}

/// The box's transform solver for rank 2 (TransformPoisson) or 3 (BoxTransform3).
template <class T, int Rank>
using BoxTransform = std::conditional_t<Rank == 2, TransformPoisson<T>, BoxTransform3<T>>;

/// A transform solver of box on ctx.
template <class T, int Rank>
std::unique_ptr<BoxTransform<T, Rank>> make_box_transform(const Context& ctx, const TransformBox<Rank>& box) {
  if constexpr (Rank == 2) {
    PoissonGrid<T> g;
    g.nx = box.n[0], g.ny = box.n[1], g.inv_hx2 = T(box.inv_h2[0]), g.inv_hy2 = T(box.inv_h2[1]);
    for (int k = 0; k < 4; ++k) g.sides[k] = box.sides[k];
    g.singular = box.singular();
    return std::make_unique<TransformPoisson<T>>(ctx, g);
  } else {
    PoissonBox3 b;
    for (int d = 0; d < 3; ++d) b.n[d] = box.n[d], b.inv_h2[d] = box.inv_h2[d];
    for (int k = 0; k < 6; ++k) b.sides[k] = box.sides[k];
    return std::make_unique<BoxTransform3<T>>(ctx, b);
  }
}

/// Why the capacitance solve does not apply to box with mask ("" when it does): a dimension
/// periodic on one side only, no obstacle, or more than obstacle_transform_max_cells surface cells.
template <int Rank, class T>
std::string obstacle_transform_unsupported(const TransformBox<Rank>& box, const std::vector<T>& mask) {
  for (int d = 0; d < Rank; ++d)
    if ((box.sides[2 * d] == PressureSide::periodic) != (box.sides[2 * d + 1] == PressureSide::periodic))
      return std::string("dimension ") + "xyz"[d] + " is periodic on one side only";
  if (index_t(mask.size()) != box.cells()) return "the fluid mask does not have one value per cell";
  const CutFaces cf = cut_faces(box, mask);
  if (cf.fluid_cells == 0) return "every cell is solid";
  if (cf.cells.empty()) return "there is no obstacle";
  if (index_t(cf.cells.size()) > obstacle_transform_max_cells)
    return "the obstacle's surface touches " + std::to_string(cf.cells.size()) + " cells, more than the capacitance " +
           "correction's limit of " + std::to_string(obstacle_transform_max_cells);
  if (undetermined_fluid_pieces(box, mask) > 0)
    return std::string("the obstacle cuts the fluid into pieces, ") +
           (box.singular() ? "each with a pressure level of its own that no Dirichlet side fixes"
                           : "not all of which reach a Dirichlet side (their pressure levels are undetermined)");
  return "";
}

/// K = C^-1 blockdiag(M, 1) (row-major, k or k + 1 rows), C the (bordered) capacitance matrix,
/// from the cut faces cf and G = P^T A0^-1 P (k x k, row-major), in double on ctx. singular: no
/// Dirichlet side (a fluid cell next to the obstacle pinned with weight pin_inv_h2, and the
/// mean's row and column). Throws Error when C is singular.
inline std::vector<double> capacitance_correction(const Context& ctx, const CutFaces& cf, const std::vector<double>& g,
                                                  bool singular, double pin_inv_h2) {
  const index_t k = index_t(cf.cells.size()), n = k + (singular ? 1 : 0);
  std::vector<double> c(std::size_t(n * n), 0.0), mb(std::size_t(n * n), 0.0);
  for (index_t r = 0; r < k; ++r) c[std::size_t(r * n + r)] = 1;
  std::vector<CutFaces::Entry> m = cf.m;
  if (singular) {  // the pin: a fluid cell touching the obstacle
    index_t f = 0;
    for (const CutFaces::Entry& e : m)
      if (e.row == e.col) f = e.row;  // (diagonal terms belong to fluid cells)
    m.push_back({f, f, pin_inv_h2});
  }
  for (const CutFaces::Entry& e : m) {
    mb[std::size_t(e.row * n + e.col)] += e.value;
    for (index_t col = 0; col < k; ++col) c[std::size_t(e.row * n + col)] += e.value * g[std::size_t(e.col * k + col)];
    if (singular) c[std::size_t(e.row * n + k)] -= e.value;  // -M 1 (the mean's column)
  }
  if (singular) {
    for (index_t col = 0; col < k; ++col) c[std::size_t(k * n + col)] = 1;  // 1^T w = 0
    mb[std::size_t(k * n + k)] = 1;
  }
  try {
    return sim::solve(Array<double, 2>::from_host(ctx, extents(n, n), c), Array<double, 2>::from_host(ctx, extents(n, n), mb))
        .to_host();
  } catch (const LinAlgError&) {
    throw Error("the obstacle transform solver: its capacitance matrix is singular; use pressure_solver \"mg_cg\"");
  }
}

/// v(m) = y at cell m (flat index into a dense array) for m < k; 0 for the mean's row m = k.
template <class T>
struct GatherSurface {
  const T* y;
  const index_t* cells;
  T* v;
  index_t k;
  SIM_INLINE void operator()(index_t m) const { v[m] = m < k ? y[cells[m]] : T(0); }
};

/// z at cell m -= u(m): the correction P w (cells are distinct).
template <class T>
struct ScatterSurface {
  T* z;
  const index_t* cells;
  const T* u;
  SIM_INLINE void operator()(index_t m) const { z[cells[m]] -= u[m]; }
};

/// z = b - mean on fluid cells, 0 on solid ones; mean = *sum / fluid_cells, 0 without sum.
template <class T, int Rank>
struct ObstacleRhs {
  View<const T, Rank> b, mask;
  View<T, Rank> z;
  const double* sum;
  double fluid_cells;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    const T mean = sum ? T(*sum / fluid_cells) : T(0);
    z(i...) = mask(i...) != T(0) ? b(i...) - mean : T(0);
  }
};

/// b on fluid cells (0 on solid ones), for its sum.
template <class T, int Rank>
struct FluidPart {
  View<const T, Rank> b, mask;
  template <class... I>
  SIM_INLINE double operator()(I... i) const {
    return mask(i...) != T(0) ? double(b(i...)) : 0.0;
  }
};

/// x += *mean on fluid cells (when mean is set); x = b on solid cells (A's identity rows).
template <class T, int Rank>
struct ObstacleFinish {
  View<T, Rank> x;
  View<const T, Rank> b, mask;
  const T* mean;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    x(i...) = mask(i...) != T(0) ? (mean ? x(i...) + *mean : x(i...)) : b(i...);
  }
};

/// x = y - zw + *mean on fluid cells (zw: y's layout, dense; mean when set); x = b on solid cells.
template <class T, int Rank>
struct ObstacleFinishColumns {
  View<T, Rank> x;
  View<const T, Rank> b, mask, y;
  const T* zw;
  const T* mean;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    const index_t at[Rank] = {index_t(i)...};
    index_t q = 0;
    for (int d = 0; d < Rank; ++d) q += at[d] * y.stride[d];
    x(i...) = mask(i...) != T(0) ? (mean ? y(i...) - zw[q] + *mean : y(i...) - zw[q]) : b(i...);
  }
};

/// Column m of Z = A0^-1 P (n x k, row-major) from one box solve y = A0^-1 e_m (dense, double).
template <class T>
struct StoreColumn {
  const double* y;
  T* z;
  index_t m, k;
  SIM_INLINE void operator()(index_t q) const { z[q * k + m] = T(y[q]); }
};

/// e_cell's one entry: v[cell] = value (a one-point kernel).
template <class T>
struct SetOne {
  T* v;
  index_t cell;
  T value;
  SIM_INLINE void operator()(index_t) const { v[cell] = value; }
};

/// The exact solve of the masked operator A x = b (fluid mask over a transformable box) by
/// the box's transform solve and a capacitance correction of the obstacle's surface cells.
template <class T, int Rank>
class ObstacleTransformPoisson {
 public:
  ObstacleTransformPoisson() = default;
  /// The solver of box with obstacle cells where mask (row-major, 1 fluid, 0 solid) is 0, on
  /// ctx; throws Error when obstacle_transform_unsupported says why not, or when the fluid is
  /// cut into pieces the problem leaves undetermined.
  ObstacleTransformPoisson(const Context& ctx, const TransformBox<Rank>& box, const std::vector<T>& mask)
      : ctx_(ctx), box_(box) {
    if (const std::string why = obstacle_transform_unsupported(box, mask); !why.empty())
      throw Error("the obstacle transform solver: " + why);
    const CutFaces cf = cut_faces(box, mask);
    surface_ = index_t(cf.cells.size());
    singular_ = box.singular();
    fluid_cells_ = cf.fluid_cells;
    rows_ = surface_ + (singular_ ? 1 : 0);
    Extents<Rank> shape;
    for (int d = 0; d < Rank; ++d) shape.n[d] = box.n[d];
    box_solve_ = make_box_transform<T, Rank>(ctx, box);
    mask_ = Array<T, Rank>::from_host(ctx, shape, mask);
    z_ = Array<T, Rank>::zeros(ctx, shape), y_ = Array<T, Rank>::zeros(ctx, shape);
    cells_ = Array<index_t, 1>::from_host(ctx, extents(surface_), cf.cells);
    v_ = Array<T, 1>::zeros(ctx, extents(rows_)), u_ = Array<T, 1>::zeros(ctx, extents(rows_));
    if (std::is_same_v<T, double> && ctx.is_cuda() && double(box.cells()) * double(surface_) <= obstacle_transform_max_columns)
      columns_ = Array<T, 2>(ctx, extents(box.cells(), surface_)), zw_ = Array<T, 1>(ctx, extents(box.cells()));
    build_correction(cf);
    if (singular_) sum_ = AsyncReduction<double>(ctx), sum_slot_ = Array<double, 1>::zeros(ctx, extents(1));
    Array<T, Rank> zero = Array<T, Rank>::zeros(ctx, shape), out(ctx, shape);
    solve(zero.view(), out.view());  // sizes the reduction's scratch now, not while a step is recorded
    ctx.synchronize();
  }

  /// x = the solution of A x = b (b made mean-free on the fluid cells first when A is
  /// singular; x then 0 at one fluid cell next to the obstacle); x and b may be a Field's
  /// interior and may not overlap; asynchronous, recordable.
  void solve(View<const T, Rank> b, View<T, Rank> x) {
    const Box<Rank> all = mask_.box();
    const double* sum = nullptr;
    if (singular_) {
      sum_.queue_into("poisson::obstacle_fluid_sum", all, FluidPart<T, Rank>{b, mask_.view()}, ops::Plus{}, 0.0,
                      sum_slot_.data());
      sum = sum_slot_.data();
    }
    for_each(ctx_, "poisson::obstacle_rhs", all, ObstacleRhs<T, Rank>{b, mask_.view(), z_.view(), sum, double(fluid_cells_)});
    box_solve_->solve(View<const T, Rank>(z_.view()), y_.view());
    for_each(ctx_, "poisson::obstacle_gather", Box<1>{{0}, {rows_}}, GatherSurface<T>{y_.data(), cells_.data(), v_.data(), surface_});
    matvec<T>(ctx_, View<const T, 2>(k_.view()), View<const T, 1>(v_.view()), u_.view());
    const T* mean = singular_ ? u_.data() + surface_ : nullptr;
    if (columns_.size() > 0) {  // x = y - Z w, Z = A0^-1 P
      matvec<T>(ctx_, View<const T, 2>(columns_.view()), View<const T, 1>(u_.view().sub(Box<1>{{0}, {surface_}})), zw_.view());
      for_each(ctx_, "poisson::obstacle_finish_columns", all,
               ObstacleFinishColumns<T, Rank>{x, b, mask_.view(), View<const T, Rank>(y_.view()), zw_.data(), mean});
      return;
    }
    for_each(ctx_, "poisson::obstacle_scatter", Box<1>{{0}, {surface_}}, ScatterSurface<T>{z_.data(), cells_.data(), u_.data()});
    box_solve_->solve(View<const T, Rank>(z_.view()), x);
    for_each(ctx_, "poisson::obstacle_finish", all, ObstacleFinish<T, Rank>{x, b, mask_.view(), mean});
  }
  /// The same on fields (interiors).
  void solve(const Field<T, Rank>& b, Field<T, Rank>& x) { solve(b.view(), x.view()); }

  /// Cells touching the obstacle's surface (k, the capacitance matrix's order).
  index_t surface_cells() const { return surface_; }
  /// The box's transforms and the correction, e.g. "DCT-IV x DCT-II/III with a capacitance correction of 180 surface cells".
  std::string description() const {
    return box_solve_->description() + " with a capacitance correction of " + std::to_string(surface_) + " surface cells" +
           (columns_.size() > 0 ? " (A0^-1 P kept: one box solve a solve)" : "");
  }

 private:
  /// K (capacitance_correction) from G = P^T A0^-1 P (k box solves in double, whatever T is).
  void build_correction(const CutFaces& cf) {
    const std::vector<double> kh = capacitance_correction(ctx_, cf, surface_green(cf), singular_, box_.inv_h2[0]);
    k_ = Array<T, 2>::from_host(ctx_, extents(rows_, rows_), std::vector<T>(kh.begin(), kh.end()));
  }

  /// G = P^T A0^-1 P (k x k, row-major, symmetric): column m from one double box solve of e_m.
  std::vector<double> surface_green(const CutFaces& cf) {
    Extents<Rank> shape;
    for (int d = 0; d < Rank; ++d) shape.n[d] = box_.n[d];
    const std::unique_ptr<BoxTransform<double, Rank>> solver = make_box_transform<double, Rank>(ctx_, box_);
    Array<double, Rank> e = Array<double, Rank>::zeros(ctx_, shape), y(ctx_, shape);
    Array<index_t, 1> cells = Array<index_t, 1>::from_host(ctx_, extents(surface_), cf.cells);
    Array<double, 2> g(ctx_, extents(surface_, surface_));
    for (index_t m = 0; m < surface_; ++m) {
      const index_t cell = cf.cells[std::size_t(m)];
      for_each(ctx_, "poisson::obstacle_unit", Box<1>{{0}, {1}}, SetOne<double>{e.data(), cell, 1.0});
      solver->solve(View<const double, Rank>(e.view()), y.view());
      for_each(ctx_, "poisson::obstacle_unit", Box<1>{{0}, {1}}, SetOne<double>{e.data(), cell, 0.0});
      for_each(ctx_, "poisson::obstacle_green", Box<1>{{0}, {surface_}},
               GatherSurface<double>{y.data(), cells.data(), g.data() + m * surface_, surface_});
      if (columns_.size() > 0)
        for_each(ctx_, "poisson::obstacle_column", Box<1>{{0}, {box_.cells()}},
                 StoreColumn<T>{y.data(), columns_.data(), m, surface_});
    }
    return g.to_host();
  }

  Context ctx_;
  TransformBox<Rank> box_;
  index_t surface_ = 0, rows_ = 0, fluid_cells_ = 0;
  bool singular_ = false;
  std::unique_ptr<BoxTransform<T, Rank>> box_solve_;
  Array<T, Rank> mask_, z_, y_;
  Array<index_t, 1> cells_;
  Array<T, 1> v_, u_;
  Array<T, 2> k_;
  Array<T, 2> columns_;  // Z = A0^-1 P where kept (obstacle_transform_max_columns), else empty
  Array<T, 1> zw_;       // Z w
  AsyncReduction<double> sum_;
  Array<double, 1> sum_slot_;
};

/// The 3D obstacle solve: ObstacleTransformPoisson3<T>(ctx, box, fluid_mask), solve(b, x), description().
template <class T>
class ObstacleTransformPoisson3 : public ObstacleTransformPoisson<T, 3> {
 public:
  ObstacleTransformPoisson3() = default;
  /// The solver of box with obstacle cells where fluid_mask (row-major nx * ny * nz, 1 fluid, 0 solid) is 0.
  ObstacleTransformPoisson3(const Context& ctx, const PoissonBox3& box, const std::vector<T>& fluid_mask)
      : ObstacleTransformPoisson<T, 3>(ctx, transform_box(box), fluid_mask) {}
};

}  // namespace sim::solvers
