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

}  // namespace sim
