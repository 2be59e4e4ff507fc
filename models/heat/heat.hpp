#pragma once
// Heat diffusion: du/dt = alpha laplacian(u) + source, 1D/2D/3D, float32/float64; explicit
// (Euler, RK2) or implicit (Crank-Nicolson, backward Euler through CG) time stepping.
#include "models/model.hpp"

namespace sim {

/// The heat model's registry entry.
ModelInfo heat_model_info();

}  // namespace sim
