// The shape of the 3D for_each launch (for_each_kernel_3d_rows in for_each.cuh): how many rows
// of dimension 1 a block covers and how many planes a thread walks. Kept out of the header so
// that the rule is in one place, next to the knobs that override it.
#include <algorithm>

#include "core/cuda/walk_shape.hpp"
#include "core/runtime/tuning.hpp"

namespace sim::gpu {

/// Blocks 32 x 8, each thread walking up to 4 planes, fewer where the grid would have under 16
/// blocks a multiprocessor (two waves of resident blocks); SIMKIT_FOR_EACH_ROWS and
/// SIMKIT_FOR_EACH_BLOCK_Y override them. Boxes narrower than a warp, or beyond the grid's
/// limits, take the one-plane launch (rows 0).
WalkShape walk_shape(const Context& ctx, index_t n0, index_t n1, index_t n2) {
  const tuning::Values& knobs = tuning::current();  // validated when set
  const unsigned block_y = knobs.for_each_block_y > 0 ? unsigned(knobs.for_each_block_y) : 8u;
  const index_t plane_blocks = ((n2 + 31) / 32) * ((n1 + block_y - 1) / block_y);
  if (n2 < 32 || (n1 + block_y - 1) / block_y > 65535) return {block_y, 0};
  index_t rows = knobs.for_each_rows;
  if (rows < 0) {
    const index_t enough = 16 * index_t(std::max(1, ctx.multiprocessor_count()));
    rows = 4;
    while (rows > 1 && plane_blocks * ((n0 + rows - 1) / rows) < enough) rows /= 2;
  }
  while (rows > 0 && (n0 + rows - 1) / rows > 65535) rows *= 2;
  return {block_y, rows};
}

}  // namespace sim::gpu
