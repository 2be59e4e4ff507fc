#pragma once
// Incompressible fluid: 2D Navier-Stokes by a projection method on a staggered (MAC) grid,
// with walls, a moving lid, periodic sides, inflow/outflow and solid obstacles, a passive
// dye, and the pressure solver chosen in the config (jacobi, cg, multigrid, mg_cg).
#include "models/model.hpp"

namespace sim {

/// The fluid model's registry entry.
ModelInfo fluid_model_info();

}  // namespace sim
