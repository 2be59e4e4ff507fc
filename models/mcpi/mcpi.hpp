#pragma once
// Monte Carlo integration of the indicator of the unit ball: pi (the quarter disc in
// [0,1)^2, times 4) or the volume of the d-ball (d = 2..10). A fused path (draw, test and
// count in one kernel) and an array path (fill arrays, one fused expression, one count).
#include "models/model.hpp"

namespace sim {

/// The Monte Carlo model's registry entry ("mcpi").
ModelInfo mcpi_model_info();

/// Volume of the unit ball in d dimensions: pi^(d/2) / Gamma(d/2 + 1).
double unit_ball_volume(int d);

}  // namespace sim
