#pragma once
// The kinds of side the 2D fluid's kernels tell apart.

namespace sim::fluid {

/// What one side of the domain is (sides ordered x-low, x-high, y-low, y-high).
enum class Side { wall, periodic, inflow, outflow, internal };

}  // namespace sim::fluid
