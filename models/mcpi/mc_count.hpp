#pragma once
// The Monte Carlo model's kernel: hit counting, fused. Draws points from the Philox stream,
// tests them and counts hits without storing a sample. The GPU kernel draws with cuRAND's Philox4x32-10 in
// registers and reduces with CUB; the CPU runs the same stream on OpenMP threads. Counts
// are integers, so the result is identical whatever the launch shape, thread count, batch
// split or backend.
#include <cstdint>

#include "core/runtime/context.hpp"

namespace sim {

/// Bits of each coordinate in the exact inside test (coordinates are (k + 1/2) / 2^30).
constexpr int mc_coordinate_bits = 30;

/// What to count.
struct McQuery {
  std::uint64_t seed = 0;       ///< Philox key
  std::uint64_t stream = 0;     ///< Philox subsequence
  std::uint64_t first = 0;      ///< index of the first sample (sample s uses words s*dim .. s*dim+dim-1)
  std::uint64_t count = 0;      ///< samples to draw
  int dim = 2;                  ///< coordinates per sample, 1..16
};

/// Samples of q whose point in [0,1)^dim lies inside the unit ball (sum x_i^2 <= 1), exactly.
std::uint64_t mc_count_in_ball(const Context& ctx, const McQuery& q, int threads_per_block = 256);

}  // namespace sim
