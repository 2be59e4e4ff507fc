#pragma once
// Uniform cell-centred grids and fields with ghost layers. A field's view has its origin at
// the first interior cell, so kernels over grid.interior() read neighbours at i-1 and i+1,
// including ghost cells at -1 and n, which boundary conditions fill (boundary.hpp).
#include <string>

#include "core/array/array.hpp"

namespace sim {

/// A uniform cell-centred grid: cells per dimension, spacing, origin and ghost width.
template <int Rank>
struct Grid {
  Extents<Rank> cells{};
  double dx[Rank] = {};
  double origin[Rank] = {};
  int ghost = 1;

  /// A grid of the given cells over [origin, origin + length) in each dimension.
  static Grid uniform(const Extents<Rank>& cells, const double (&length)[Rank], int ghost = 1,
                      const double (&origin)[Rank] = {}) {
    Grid g;
    g.cells = cells;
    g.ghost = ghost;
    for (int d = 0; d < Rank; ++d) {
      if (cells.n[d] <= 0) throw ShapeError("grid needs at least one cell per dimension, got " + to_string(cells));
      if (!(length[d] > 0)) throw ShapeError("grid length must be positive in every dimension");
      g.dx[d] = length[d] / double(cells.n[d]);
      g.origin[d] = origin[d];
    }
    if (ghost < 0) throw ShapeError("ghost width must be 0 or more");
    return g;
  }
  /// Box of the interior cells [0, cells).
  Box<Rank> interior() const { return box_of(cells); }
  /// Box of interior and ghost cells [-ghost, cells + ghost).
  Box<Rank> with_ghosts() const { return interior().grow(ghost); }
  /// Coordinate of the centre of cell i in dimension d.
  SIM_HOST_DEVICE double center(int d, index_t i) const { return origin[d] + (double(i) + 0.5) * dx[d]; }
  /// Number of interior cells.
  index_t size() const { return cells.size(); }
};

/// A field on a grid: interior cells plus ghost layers, on one context. In 2D and 3D each
/// row's first interior cell sits on a 128-byte boundary (rows are padded): coalesced,
/// aligned loads for stencil kernels. The padding is never read or written by kernels.
template <class T, int Rank>
class Field {
 public:
  using value_type = T;
  static constexpr int rank = Rank;

  Field() = default;
  /// Allocates the field (interior and ghosts), uninitialised.
  Field(const Context& ctx, const Grid<Rank>& grid) : grid_(grid), data_(ctx, padded_shape(grid)) {
    Box<Rank> interior = box_of(data_.shape()).grow(-grid.ghost);
    if constexpr (Rank > 1) interior.lo[Rank - 1] = align, interior.hi[Rank - 1] = align + grid.cells.n[Rank - 1];
    view_ = data_.view().sub(interior);
  }
  /// The grid.
  const Grid<Rank>& grid() const { return grid_; }
  /// The context the field lives on.
  const Context& context() const { return data_.context(); }
  /// View with the origin at the first interior cell; ghosts at negative indices and >= n.
  View<T, Rank> view() { return view_; }
  View<const T, Rank> view() const { return view_; }
  /// Box of the interior cells.
  Box<Rank> interior() const { return grid_.interior(); }
  /// Box of interior and ghost cells.
  Box<Rank> with_ghosts() const { return grid_.with_ghosts(); }
  /// The whole allocation (ghosts and row padding included), indexed from 0.
  Array<T, Rank>& storage() { return data_; }
  const Array<T, Rank>& storage() const { return data_; }
  /// The interior and ghost cells, row-major, as a host vector (for tests and tools).
  std::vector<T> to_host_with_ghosts() const {
    std::vector<T> h(static_cast<std::size_t>(with_ghosts().size()));
    const Box<Rank> b = with_ghosts();
    detail::copy_to_host<T, Rank>(context(), view_.sub(b), h.data());
    return h;
  }
  /// Copies other's interior cells into this field's (same grid shape; ghosts untouched).
  void copy_from(const Field& other) {
    if (other.context() != context()) throw BackendError("copy_from: fields live on different contexts");
    if (other.grid_.cells != grid_.cells)
      throw ShapeError("copy_from: field of " + to_string(other.grid_.cells) + " cells into " + to_string(grid_.cells));
    detail::copy<T, Rank>(context(), other.view_, view_);
  }
  /// Copies a row-major host vector of the interior cells into the field (ghosts untouched).
  void copy_from_host(const std::vector<T>& host) {
    if (index_t(host.size()) != grid_.size())
      throw ShapeError("copy_from_host: " + std::to_string(host.size()) + " host elements for a field of " +
                       to_string(grid_.cells) + " cells");
    detail::copy_from_host<T, Rank>(context(), host.data(), view_);
  }
  /// Sets interior and ghosts to value.
  void fill(T value) { data_.fill(value); }
  /// Evaluates a fused expression into the interior cells.
  template <class E, class = std::enable_if_t<E::is_sim_expression>>
  Field& operator=(const E& expression);

 private:
  /// Elements before each row's first interior cell (128 bytes), 0 in 1D.
  static constexpr index_t align = Rank > 1 ? 128 / index_t(sizeof(T)) : 0;
  static Extents<Rank> padded_shape(const Grid<Rank>& g) {
    Extents<Rank> e = g.with_ghosts().shape();
    if constexpr (Rank > 1) {
      if (g.ghost > align) throw ShapeError("ghost width too large for row alignment");
      const index_t row = align + g.cells.n[Rank - 1] + g.ghost;
      e.n[Rank - 1] = (row + align - 1) / align * align;
    }
    return e;
  }

  Grid<Rank> grid_{};
  Array<T, Rank> data_;
  View<T, Rank> view_{};
};

}  // namespace sim
