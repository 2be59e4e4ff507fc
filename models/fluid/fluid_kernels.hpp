#pragma once
// Kernels of the incompressible fluid model on a staggered (MAC) grid. Storage: u(i, j) is
// the x-velocity on the low x-face of cell (i, j), v(i, j) the y-velocity on its low y-face;
// both are Fields of the cell grid, so the high faces u(nx, j) and v(i, ny) sit in the ghost
// layer. p and the dye live at cell centres. On several ranks each holds a box of cells; a
// side shared with another rank (Side::internal) is left to the ghost exchange, and the
// high faces u(nx, j), v(i, ny) of such a side are the neighbour's low faces.
//
// The kernels live by purpose: boundary_kernels.hpp (ghost fill), momentum_kernels.hpp
// (momentum and dye stage, viscous operator), pressure_kernels.hpp (the pressure equation
// and its guess), projection_kernels.hpp (projection, speeds, the device's dt); the output
// fields' kernel is here.
#include "core/mesh/grid.hpp"
#include "models/fluid/boundary_kernels.hpp"
#include "models/fluid/momentum_kernels.hpp"
#include "models/fluid/pressure_kernels.hpp"
#include "models/fluid/projection_kernels.hpp"

namespace sim::fluid {

/// Cell-centred velocity and vorticity (the mean of the four corner circulations) for output.
template <class T>
struct CellOutputs {
  View<const T, 2> u, v;
  View<T, 2> uc, vc, vort;
  T inv_hx, inv_hy;
  SIM_INLINE T corner(index_t i, index_t j) const {
    return (v(i, j) - v(i - 1, j)) * inv_hx - (u(i, j) - u(i, j - 1)) * inv_hy;
  }
  SIM_INLINE void operator()(index_t i, index_t j) const {
    uc(i, j) = T(0.5) * (u(i, j) + u(i + 1, j));
    vc(i, j) = T(0.5) * (v(i, j) + v(i, j + 1));
    vort(i, j) = T(0.25) * (corner(i, j) + corner(i + 1, j) + corner(i, j + 1) + corner(i + 1, j + 1));
  }
};

}  // namespace sim::fluid
