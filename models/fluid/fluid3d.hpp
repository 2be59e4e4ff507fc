#pragma once
// The fluid model on 3D grids (chosen by fluid_model_info when grid.cells has three counts).
#include <memory>

#include "models/model.hpp"

namespace sim {

/// The 3D incompressible fluid of setup (one rank, periodic sides and walls, the transform solver).
std::unique_ptr<Model> make_fluid3d(const ModelSetup& setup);

}  // namespace sim
