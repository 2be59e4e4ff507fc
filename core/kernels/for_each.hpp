#pragma once
// sim::for_each(ctx, "name", box, SIM_LAMBDA(index_t i, index_t j) { ... }): runs the body
// once for every index point of a 1-3D box, on the context's backend. The name shows in
// error messages and profiles. The body captures views and scalars by value, never `this`.
#include "core/runtime/context.hpp"
#include "core/cpu/for_each.hpp"
#include "core/detail/dispatch.hpp"
#include "core/runtime/types.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/for_each.cuh"
#endif

namespace sim {
inline namespace SIM_TU_NS {

/// Runs f(i[, j[, k]]) for every point of box on ctx's backend (asynchronous on the GPU).
template <int Rank, class F>
void for_each(const Context& ctx, const char* name, const Box<Rank>& box, const F& f) {
  if (box.size() == 0) return;
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    gpu::launch_for_each(ctx, name, box, f);
#else
    throw detail::not_compiled_for_cuda(name);
#endif
  } else {
    cpu::for_each(box, f);
  }
}

}  // namespace SIM_TU_NS
}  // namespace sim
