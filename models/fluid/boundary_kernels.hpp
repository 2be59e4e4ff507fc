#pragma once
// The 2D fluid's ghost fill on the MAC grid (fluid_kernels.hpp describes the storage): the
// boundary rules of walls, periodic sides, inflow and outflow, as kernels over a side's rows.
#include "core/mesh/grid.hpp"
#include "models/fluid/side.hpp"

namespace sim::fluid {

/// Everything the boundary kernels need (trivially copyable).
template <class T>
struct BoundarySpec {
  Side side[4] = {Side::wall, Side::wall, Side::wall, Side::wall};
  T wall_velocity[4] = {0, 0, 0, 0};  ///< tangential velocity of each wall (the lid: y-high)
  T inflow_velocity = 1;
  bool parabolic = false;  ///< inflow profile: 6 U y (L - y) / L^2 (mean U) instead of uniform U
  int dye_pattern = 0;     ///< inflow dye: 0 none, 1 stripes (of y)
  index_t nx = 0, ny = 0;  ///< this rank's cells
  index_t oy = 0, ny_global = 0;  ///< global index of its first row, and rows of the whole grid
  T hx = 1, hy = 1;

  /// Inflow velocity at the centre of (local) row j.
  SIM_INLINE T inflow_at(index_t j) const {
    if (!parabolic) return inflow_velocity;
    const T L = T(ny_global) * hy, y = (T(j + oy) + T(0.5)) * hy;
    return T(6) * inflow_velocity * y * (L - y) / (L * L);
  }
  /// Dye carried in by the inflow at (local) row j.
  SIM_INLINE T inflow_dye(index_t j) const { return dye_pattern == 1 ? T(((j + oy) * 8 / ny_global) % 2) : T(0); }
};

/// First pass of the ghost fill: the y-sides (rows j = -1 and ny, and the faces v(i, 0), v(i, ny)), for i in [0, nx).
/// keep_u: leaves u(i, -1) and u(i, ny) alone (FillSides: the x-rule sets them).
template <class T>
struct FillYSides {
  BoundarySpec<T> b;
  View<T, 2> u, v, d;
  SIM_INLINE void operator()(index_t i) const { column(i, false); }
  SIM_INLINE void column(index_t i, bool keep_u) const {
    const index_t ny = b.ny;
    if (b.side[2] == Side::periodic) {
      if (!keep_u) u(i, -1) = u(i, ny - 1), u(i, ny) = u(i, 0);
      v(i, -1) = v(i, ny - 1), v(i, ny) = v(i, 0);
      d(i, -1) = d(i, ny - 1), d(i, ny) = d(i, 0);
      return;
    }
    if (b.side[2] != Side::internal) {
      v(i, 0) = T(0), v(i, -1) = -v(i, 1);
      if (!keep_u) u(i, -1) = T(2) * b.wall_velocity[2] - u(i, 0);
      d(i, -1) = d(i, 0);
    }
    if (b.side[3] != Side::internal) {
      v(i, ny) = T(0);
      if (!keep_u) u(i, ny) = T(2) * b.wall_velocity[3] - u(i, ny - 1);
      d(i, ny) = d(i, ny - 1);
    }
  }
};

/// Second pass: the x-sides (columns -1 and nx, faces u(0, j), u(nx, j)), for j in [-1, ny],
/// so the corners take the x-rule applied to the rows the first pass filled (a ghost row of
/// a shared y-side is skipped: the neighbour fills it for its own row, and the exchange
/// brings it). predict: after a momentum update the outflow face is extrapolated (zero
/// gradient) for the projection to correct; otherwise it is set so the last cell column is
/// exactly divergence-free.
template <class T>
struct FillXSides {
  BoundarySpec<T> b;
  View<T, 2> u, v, d;
  bool predict;
  SIM_INLINE void operator()(index_t j) const { row(j, u, v, d); }
  /// The x-rules for row j, reading the cells of columns [0, nx) through U, V, D.
  template <class Read>
  SIM_INLINE void row(index_t j, const Read& U, const Read& V, const Read& D) const {
    const index_t nx = b.nx;
    if (b.side[0] == Side::periodic) {
      u(-1, j) = U(nx - 1, j), u(nx, j) = U(0, j);
      v(-1, j) = V(nx - 1, j), v(nx, j) = V(0, j);
      d(-1, j) = D(nx - 1, j), d(nx, j) = D(0, j);
      return;
    }
    if ((j < 0 && b.side[2] == Side::internal) || (j >= b.ny && b.side[3] == Side::internal)) return;
    const bool in_rows = j >= 0 && j < b.ny;
    if (b.side[0] == Side::inflow) {
      const T uin = in_rows ? b.inflow_at(j) : T(0);
      u(0, j) = uin, u(-1, j) = uin;
      v(-1, j) = -V(0, j);
      d(-1, j) = in_rows ? b.inflow_dye(j) : T(0);
    } else if (b.side[0] == Side::wall) {
      u(0, j) = T(0), u(-1, j) = -U(1, j);
      v(-1, j) = T(2) * b.wall_velocity[0] - V(0, j);
      d(-1, j) = D(0, j);
    }
    if (b.side[1] == Side::internal) return;
    if (b.side[1] == Side::outflow) {
      if (predict || !in_rows) u(nx, j) = U(nx - 1, j);
      else u(nx, j) = U(nx - 1, j) - b.hx / b.hy * (V(nx - 1, j + 1) - V(nx - 1, j));
      v(nx, j) = V(nx - 1, j);
    } else {
      u(nx, j) = T(0);
      v(nx, j) = T(2) * b.wall_velocity[1] - V(nx - 1, j);
    }
    d(nx, j) = D(nx - 1, j);
  }
};

/// A field of (u, v, d) at (i, j), 0 <= i < nx, as FillYSides leaves it: the rows it fills
/// computed from the cells it reads, every other value as stored (one rank: no shared side).
template <class T>
struct AfterYSides {
  enum Component { u_face, v_face, dye };
  BoundarySpec<T> b;
  View<T, 2> f;
  Component c;
  SIM_INLINE T operator()(index_t i, index_t j) const {
    const index_t ny = b.ny;
    if (j > 0 && j < ny) return f(i, j);
    if (b.side[2] == Side::periodic) return j == -1 ? f(i, ny - 1) : j == ny ? f(i, 0) : f(i, j);
    const bool low = b.side[2] != Side::internal, high = b.side[3] != Side::internal;
    if (c == v_face) {
      if ((j == 0 && low) || (j == ny && high)) return T(0);
      return j == -1 && low ? -f(i, 1) : f(i, j);
    }
    if (j == -1 && low) return c == u_face ? T(2) * b.wall_velocity[2] - f(i, 0) : f(i, 0);
    if (j == ny && high) return c == u_face ? T(2) * b.wall_velocity[3] - f(i, ny - 1) : f(i, ny - 1);
    return f(i, j);
  }
};

/// The whole ghost fill in one pass, for one rank with nx, ny >= 2: the values of FillYSides
/// then FillXSides, bit for bit. Points k < nx fill column k's y-sides (but the u faces of
/// column 0 that an inflow or wall x-rule sets); point nx + 1 + j fills row j's x-sides,
/// j in [-1, ny], reading the y-sides' values through AfterYSides instead of waiting for them.
template <class T>
struct FillSides {
  BoundarySpec<T> b;
  View<T, 2> u, v, d;
  bool predict;
  SIM_INLINE void operator()(index_t k) const {
    if (k < b.nx) {
      const bool x_sets_u0 = b.side[0] == Side::inflow || b.side[0] == Side::wall;
      FillYSides<T>{b, u, v, d}.column(k, k == 0 && x_sets_u0);
      return;
    }
    using A = AfterYSides<T>;
    FillXSides<T>{b, u, v, d, predict}.row(k - b.nx - 1, A{b, u, A::u_face}, A{b, v, A::v_face}, A{b, d, A::dye});
  }
};

}  // namespace sim::fluid
