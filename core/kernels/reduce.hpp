#pragma once
// sim::reduce(ctx, "name", box, map, op, init): combines map(i[, j[, k]]) over a box with an
// associative op (ops::Plus, ops::Minimum, ops::Maximum or your own). CUB on the GPU,
// OpenMP on the CPU; the same input gives the same bits on every run on the same backend.
#include "core/runtime/context.hpp"
#include "core/cpu/reduce.hpp"
#include "core/detail/dispatch.hpp"
#include "core/kernels/reduce_ops.hpp"
#include "core/runtime/types.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/reduce.cuh"
#endif

namespace sim {
inline namespace SIM_TU_NS {

/// Combines map(point) over box with op; init must be op's identity. Waits for the result.
template <int Rank, class Acc, class Map, class Op>
Acc reduce(const Context& ctx, const char* name, const Box<Rank>& box, const Map& map, const Op& op, Acc init) {
  if (box.size() == 0) return init;
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    return gpu::reduce(ctx, name, box, map, op, init);
#else
    throw detail::not_compiled_for_cuda(name);
#endif
  }
  return cpu::reduce(box, map, op, init);
}

}  // namespace SIM_TU_NS
}  // namespace sim
