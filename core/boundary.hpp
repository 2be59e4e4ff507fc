#pragma once
// Boundary conditions, applied by filling ghost cells as a step of its own (before each
// stencil sweep). Models never write boundary loops: they state a Boundary and call
// fill_ghosts. Cell-centred: a Dirichlet value and a Neumann flux hold on the face.
#include <string>

#include "core/grid.hpp"

namespace sim {

enum class BcKind { periodic, dirichlet, neumann };

/// Name of a boundary kind ("periodic", "dirichlet", "neumann").
const char* bc_name(BcKind k);

/// The condition on one face: dirichlet (u = value on the face) or neumann (du/dn = value,
/// n the outward normal), or periodic (both faces of the dimension must say periodic).
struct FaceBc {
  BcKind kind = BcKind::neumann;
  double value = 0.0;
};

/// One condition per face: lo[d] at the low end of dimension d, hi[d] at the high end.
template <int Rank>
struct Boundary {
  FaceBc lo[Rank];
  FaceBc hi[Rank];
  /// The same condition on every face.
  static Boundary all(FaceBc face) {
    Boundary b;
    for (int d = 0; d < Rank; ++d) b.lo[d] = b.hi[d] = face;
    return b;
  }
  /// Periodic in every dimension.
  static Boundary periodic() { return all({BcKind::periodic, 0.0}); }
};

/// Checks a boundary against a grid (periodic on both faces, enough cells for the ghosts);
/// throws Error saying which face is wrong.
template <int Rank>
void validate(const Boundary<Rank>& bc, const Grid<Rank>& grid);

/// Fills every ghost cell of f from its interior according to bc (edges and corners too).
template <class T, int Rank>
void fill_ghosts(Field<T, Rank>& f, const Boundary<Rank>& bc);

/// Fills the ghosts of the faces of dimensions [0, dims) only (their edges and corners too):
/// for a stencil pass that applies the other faces' rules itself (face_rule).
template <class T, int Rank>
void fill_ghosts(Field<T, Rank>& f, const Boundary<Rank>& bc, int dims);

/// One face's first ghost layer as a rule on the interior: ghost = sign * u(q) + add, where q
/// is the cell next to the face (Dirichlet, Neumann) or the far end's cell (periodic). `on`
/// is false where the ghosts come from elsewhere (a neighbouring rank's cells).
template <class T>
struct FaceRule {
  bool on = false, periodic = false;
  T sign = T(1), add = T(0);
};

/// The rule fill_ghosts applies to the first ghost layer of face (d, side): the same bits.
template <class T, int Rank>
FaceRule<T> face_rule(const Boundary<Rank>& bc, const Grid<Rank>& grid, int d, int side) {
  const FaceBc& face = side ? bc.hi[d] : bc.lo[d];
  FaceRule<T> r;
  r.on = true;
  r.periodic = face.kind == BcKind::periodic;
  // written as fill_ghosts composes its rules (add starts at 0, sign at 1), so the same bits
  if (face.kind == BcKind::dirichlet) r.add = r.add + r.sign * (T(2) * T(face.value)), r.sign = -r.sign;
  if (face.kind == BcKind::neumann) r.add = r.add + r.sign * (T(1) * T(grid.dx[d]) * T(face.value));
  return r;
}

}  // namespace sim
