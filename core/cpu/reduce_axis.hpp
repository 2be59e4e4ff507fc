#pragma once
// The cpu backend of reductions along one axis. The array is seen as outer x len x inner
// with the reduced axis in the middle; each output is combined in a fixed order (8 lanes
// along a contiguous axis, one sweep per output otherwise), so results do not depend on the
// thread count.
#include <algorithm>

#include "core/cpu/for_each.hpp"
#include "core/cpu/reduce.hpp"
#include "core/types.hpp"

namespace sim::cpu {

/// out[o * inner + p] = fin(op-combination of map(o, m, p) over m < len, o, p, len).
template <class Acc, class Out, class Map, class Op, class Fin>
void reduce_along(index_t outer, index_t len, index_t inner, const Map& map, const Op& op, Acc init, const Fin& fin,
                  Out* out) {
  const bool parallel = outer * inner * std::max<index_t>(len, 1) > parallel_threshold;
  if (inner == 1) {  // the axis is contiguous: one row per output
#pragma omp parallel for schedule(static) if (parallel && outer > 1)
    for (index_t o = 0; o < outer; ++o) {
      Acc lane[8] = {init, init, init, init, init, init, init, init};
      reduce_row(lane, 0, len, [&](index_t m) { return map(o, m, index_t(0)); }, op);
      out[o] = fin(combine_lanes(lane, op), o, index_t(0), len);
    }
    return;
  }
  constexpr index_t block = 256;  // outputs swept together: the inner loop runs along memory
  const index_t blocks = (inner + block - 1) / block;
#pragma omp parallel for schedule(static) if (parallel && outer * blocks > 1)
  for (index_t t = 0; t < outer * blocks; ++t) {
    const index_t o = t / blocks, p0 = (t - o * blocks) * block, pn = std::min(block, inner - p0);
    Acc acc[block];
    for (index_t q = 0; q < pn; ++q) acc[q] = init;
    for (index_t m = 0; m < len; ++m)
      for (index_t q = 0; q < pn; ++q) acc[q] = op(acc[q], map(o, m, p0 + q));
    for (index_t q = 0; q < pn; ++q) out[o * inner + p0 + q] = fin(acc[q], o, p0 + q, len);
  }
}

}  // namespace sim::cpu
