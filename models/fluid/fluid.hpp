#pragma once
// Incompressible fluid: Navier-Stokes by a projection method on a staggered (MAC) grid. In 2D
// with walls, a moving lid, periodic sides, inflow/outflow and solid obstacles, a passive
// dye, and the pressure solver chosen in the config (jacobi, cg, multigrid, mg_cg); on 3D grids
// (fluid3d.hpp) with walls, moving walls and periodic sides and the transform solver.
#include "models/model.hpp"

namespace sim {

/// The fluid model's registry entry.
ModelInfo fluid_model_info();

}  // namespace sim
