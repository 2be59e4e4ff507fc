#pragma once
// Boundary conditions, applied by filling ghost cells as a step of its own (before each
// stencil sweep). Models never write boundary loops: they state a Boundary and call
// fill_ghosts. Cell-centred: a Dirichlet value and a Neumann flux hold on the face.
// One vocabulary for every model: faces are named x_lo, x_hi, y_lo, ... (Face), and a face's
// condition is one BcKind; a model accepts the kinds that mean something to it (a scalar
// field: periodic, dirichlet, neumann; the fluid: wall, periodic, inflow, outflow).
#include <string>

#include "core/mesh/grid.hpp"

namespace sim {

/// The condition on a face, for every model: scalar fields take periodic, dirichlet and
/// neumann; the fluid takes wall, periodic, inflow and outflow.
enum class BcKind { periodic, dirichlet, neumann, wall, inflow, outflow };

/// Name of a boundary kind as configs spell it ("periodic", "dirichlet", ..., "outflow").
const char* bc_name(BcKind k);

/// The kind called name (as bc_name spells it); false, kind untouched, when none is.
bool bc_kind_from_name(const std::string& name, BcKind& kind);

/// One face of a grid: dimension axis (0 x, 1 y, 2 z) and side (0 low, 1 high).
struct Face {
  int axis = 0;
  int side = 0;
};

/// The config name of a face: "x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi".
std::string face_name(Face f);

/// The face called name (as face_name spells it, of a grid of rank `rank`); false when none is.
bool face_from_name(const std::string& name, int rank, Face& face);

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
/// throws Error saying which face is wrong. Any kind passes; fill_ghosts takes only the
/// scalar ones (periodic, dirichlet, neumann).
template <int Rank>
void validate(const Boundary<Rank>& bc, const Grid<Rank>& grid);

/// Fills every ghost cell of f from its interior according to bc (edges and corners too);
/// throws Error naming the face when one is not periodic, dirichlet or neumann.
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
