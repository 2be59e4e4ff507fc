#pragma once
// sim::flux_pass: finite-volume (flux-form) updates on the stencil pass. A conservative update
// writes each cell's change as the difference of the fluxes through its faces,
//
//   un = u - dt sum_d (F(d, u, u_hi[d]) - F(d, u_lo[d], u)) / dx_d,
//
// and a zero-flux wall is a face whose flux is zero, not a ghost value (an upwind flux cannot
// be made zero by any ghost). flux_pass runs the update like stencil_pass (the tuned tiled
// kernel on the GPU, for_each on the CPU) and hands it the cell's walls as well:
//
//   struct Step {                                 // the update of a flux-form model
//     MyFlux flux; Spacing<T, 2> h; T dt;
//     template <class Cell>
//     SIM_INLINE void operator()(const Cell& x, Walls walls) const {
//       x.write(0, x.in[0].c - dt * flux_divergence(x.in[0], flux, h, walls));
//     }
//   };
//   flux_pass(ctx, "model::step", grid.interior(), wall_faces(bc, sub), Step{...}, reads(u), writes(un), faces);
//
// The box is cut into the cells next to walls and the rest; each part is one pass whose
// update knows its walls as a constant, so the bulk of the cells runs the plain kernel. Each
// interior face's flux is computed by both its cells from the same two values, so the fluxes
// cancel in the sum over cells and the total is conserved to rounding.
#include <string>

#include "core/distributed/decomposition.hpp"
#include "core/mesh/boundary.hpp"
#include "core/mesh/stencil.hpp"
#include "core/mesh/stencil_pass.hpp"

namespace sim {

/// Which faces of a cell (or of every cell of a part of a box) are zero-flux walls: bit 2d
/// for the low face of dimension d, bit 2d + 1 for the high face.
struct Walls {
  unsigned bits = 0;
  /// True when the low face of dimension d is a wall.
  SIM_HOST_DEVICE bool lo(int d) const { return (bits >> (2 * d)) & 1u; }
  /// True when the high face of dimension d is a wall.
  SIM_HOST_DEVICE bool hi(int d) const { return (bits >> (2 * d + 1)) & 1u; }
};

/// The zero-flux faces of this rank's box `sub`: faces whose condition is `wall` and that lie
/// on the global boundary (a face shared with another rank is never a wall).
template <int Rank>
Walls wall_faces(const Boundary<Rank>& bc, const Subdomain& sub) {
  Walls w;
  for (int d = 0; d < Rank; ++d) {
    if (bc.lo[d].kind == BcKind::wall && sub.at_boundary(d, 0)) w.bits |= 1u << (2 * d);
    if (bc.hi[d].kind == BcKind::wall && sub.at_boundary(d, 1)) w.bits |= 1u << (2 * d + 1);
  }
  return w;
}

/// bc with every wall as a zero-gradient face, for fill_ghosts before a flux_pass: the flux
/// across a wall is zero and never reads its ghosts, which then just hold finite values.
template <int Rank>
Boundary<Rank> wall_ghosts_copy_cells(const Boundary<Rank>& bc) {
  Boundary<Rank> b = bc;
  for (int d = 0; d < Rank; ++d) {
    if (b.lo[d].kind == BcKind::wall) b.lo[d] = {BcKind::neumann, 0.0};
    if (b.hi[d].kind == BcKind::wall) b.hi[d] = {BcKind::neumann, 0.0};
  }
  return b;
}

/// The flux-form divergence of the star u: sum over d of (F(d, c, hi) - F(d, lo, c)) / dx_d,
/// with the flux zero through walls. flux(d, left, right) is the flux through the face
/// between two cells neighbouring in dimension d (right at the higher index), per unit area.
template <class T, int Rank, class Flux>
SIM_INLINE T flux_divergence(const Star<T, Rank>& u, const Flux& flux, const Spacing<T, Rank>& h, Walls walls) {
  T div = T(0);
  for (int d = 0; d < Rank; ++d) {
    const T hi = walls.hi(d) ? T(0) : flux(d, u.c, u.hi[d]);
    const T lo = walls.lo(d) ? T(0) : flux(d, u.lo[d], u.c);
    div += (hi - lo) * h.inv_dx[d];
  }
  return div;
}

/// A flux_pass update as stencil_pass calls it: the model's update with one part's walls.
template <class U>
struct WithWalls {
  U update;
  Walls walls;
  template <class Cell>
  SIM_INLINE void operator()(const Cell& x) const {
    update(x, walls);
  }
};

inline namespace SIM_TU_NS {

/// One pass over box like stencil_pass, with update(x, walls) also told which of the cell's
/// faces are walls: the faces of `walls` (wall_faces) that the cell touches, cells at index 0
/// and n - 1 of the fields' extents being next to the box's faces. The update is a functor
/// (its operator() a template on the cell type, marked SIM_INLINE) holding values and views.
template <class T, int Rank, int S, int P, int O, class U>
void flux_pass(const Context& ctx, const char* name, const Box<Rank>& box, Walls walls, const U& update,
               const Reads<T, Rank, S>& in, const PointReads<T, Rank, P>& point, const Writes<T, Rank, O>& out,
               const LastDimFaces<T>& faces = {}) {
  if (box.size() == 0) return;
  const Extents<Rank> shape = in.v[0].shape;
  // per dimension up to three segments of box: the wall layer at 0, the middle, the wall layer at n - 1
  index_t lo[Rank][3], hi[Rank][3];
  unsigned bits[Rank][3];
  int count[Rank];
  for (int d = 0; d < Rank; ++d) {
    const index_t n = shape.n[d];
    const unsigned lo_bit = walls.lo(d) ? 1u << (2 * d) : 0u, hi_bit = walls.hi(d) ? 1u << (2 * d + 1) : 0u;
    index_t a = box.lo[d], b = box.hi[d];
    count[d] = 0;
    auto segment = [&](index_t s, index_t e, unsigned m) {
      if (e > s) lo[d][count[d]] = s, hi[d][count[d]] = e, bits[d][count[d]] = m, ++count[d];
    };
    if (n == 1) {  // one cell: both faces
      segment(a, b, lo_bit | hi_bit);
      continue;
    }
    const index_t first = lo_bit && a == 0 ? 1 : a, last = hi_bit && b == n ? n - 1 : b;
    if (first > a) segment(a, first, lo_bit);
    segment(first, last > first ? last : first, 0u);
    if (last < b) segment(last > first ? last : first, b, hi_bit);
  }
  int at[Rank] = {};
  for (;;) {
    Box<Rank> part;
    Walls w;
    for (int d = 0; d < Rank; ++d) part.lo[d] = lo[d][at[d]], part.hi[d] = hi[d][at[d]], w.bits |= bits[d][at[d]];
    stencil_pass(ctx, name, part, WithWalls<U>{update, w}, in, point, out, faces);
    int d = Rank - 1;
    while (d >= 0 && ++at[d] == count[d]) at[d--] = 0;
    if (d < 0) break;
  }
}

/// The flux pass without fields read at the cell only.
template <class T, int Rank, int S, int O, class U>
void flux_pass(const Context& ctx, const char* name, const Box<Rank>& box, Walls walls, const U& update,
               const Reads<T, Rank, S>& in, const Writes<T, Rank, O>& out, const LastDimFaces<T>& faces = {}) {
  flux_pass(ctx, name, box, walls, update, in, PointReads<T, Rank, 0>{}, out, faces);
}

}  // namespace SIM_TU_NS
}  // namespace sim
