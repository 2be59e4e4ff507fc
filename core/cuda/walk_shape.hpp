#pragma once
// The shape of the 3D for_each launch that walks planes (for_each_kernel_3d_rows in
// for_each.cuh): its rule lives in walk_shape.cpp, next to the knobs that override it.
#include "core/runtime/context.hpp"
#include "core/runtime/types.hpp"

namespace sim::gpu {

/// Block height (rows of dimension 1; blocks are 32 wide along dimension 2) and the planes
/// along dimension 0 a thread walks; rows 0: the one-plane launch instead.
struct WalkShape {
  unsigned block_y;
  index_t rows;
};

/// The walking launch's shape for a box of n0 x n1 x n2 cells.
WalkShape walk_shape(const Context& ctx, index_t n0, index_t n1, index_t n2);

}  // namespace sim::gpu
