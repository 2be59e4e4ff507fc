#pragma once
// The cpu backend of reduce. The index range is cut into fixed chunks (independent of the
// thread count); each chunk is summed in a fixed order in 8 lanes and the chunk results are
// combined in order, so the bits do not depend on the number of threads or the schedule.
#include <algorithm>
#include <vector>

#include "core/cpu/pool.hpp"
#include "core/runtime/types.hpp"

namespace sim::cpu {

constexpr index_t reduce_chunk = 1 << 15;

/// Adds row(0), ..., row(len - 1) into the 8 lanes, point m + s going to lane (m + s) & 7;
/// whole groups of 8 in a plain loop that the compiler can vectorise.
template <class Acc, class Row, class Op>
void reduce_row(Acc (&lane)[8], index_t m, index_t len, const Row& row, const Op& op) {
  index_t s = 0;
  for (; s < len && ((m + s) & 7) != 0; ++s) lane[(m + s) & 7] = op(lane[(m + s) & 7], row(s));
  for (; s + 8 <= len; s += 8)
    for (int l = 0; l < 8; ++l) lane[l] = op(lane[l], row(s + l));
  for (; s < len; ++s) lane[(m + s) & 7] = op(lane[(m + s) & 7], row(s));
}
template <class Acc, class Op>
Acc combine_lanes(const Acc (&lane)[8], const Op& op) {
  return op(op(op(lane[0], lane[1]), op(lane[2], lane[3])), op(op(lane[4], lane[5]), op(lane[6], lane[7])));
}

/// Calls map at the point whose row-major position in box is t, then at t+1, ..., t+count-1,
/// row piece by row piece (point m of the span always goes to lane m & 7).
template <class Acc, class Map, class Op>
Acc reduce_span(const Box<1>& b, index_t t, index_t count, const Map& map, const Op& op, Acc init) {
  Acc lane[8] = {init, init, init, init, init, init, init, init};
  const index_t i0 = b.lo[0] + t;
  reduce_row(lane, 0, count, [&](index_t s) { return map(i0 + s); }, op);
  return combine_lanes(lane, op);
}
template <class Acc, class Map, class Op>
Acc reduce_span(const Box<2>& b, index_t t, index_t count, const Map& map, const Op& op, Acc init) {
  const index_t n1 = b.extent(1);
  index_t i = t / n1, j = t - i * n1;
  Acc lane[8] = {init, init, init, init, init, init, init, init};
  for (index_t m = 0; m < count;) {
    const index_t len = std::min(count - m, n1 - j), gi = b.lo[0] + i, gj = b.lo[1] + j;
    reduce_row(lane, m, len, [&](index_t s) { return map(gi, gj + s); }, op);
    m += len, j += len;
    if (j == n1) j = 0, ++i;
  }
  return combine_lanes(lane, op);
}
template <class Acc, class Map, class Op>
Acc reduce_span(const Box<3>& b, index_t t, index_t count, const Map& map, const Op& op, Acc init) {
  const index_t n1 = b.extent(1), n2 = b.extent(2);
  index_t i = t / (n1 * n2), r = t - i * n1 * n2, j = r / n2, k = r - j * n2;
  Acc lane[8] = {init, init, init, init, init, init, init, init};
  for (index_t m = 0; m < count;) {
    const index_t len = std::min(count - m, n2 - k), gi = b.lo[0] + i, gj = b.lo[1] + j, gk = b.lo[2] + k;
    reduce_row(lane, m, len, [&](index_t s) { return map(gi, gj, gk + s); }, op);
    m += len, k += len;
    if (k == n2) {
      k = 0;
      if (++j == n1) j = 0, ++i;
    }
  }
  return combine_lanes(lane, op);
}

/// Combines map(p) over every point p of box with op, starting from init (op's identity).
template <int Rank, class Acc, class Map, class Op>
Acc reduce(const Box<Rank>& box, const Map& map, const Op& op, Acc init) {
  const index_t n = box.size();
  if (n == 0) return init;
  const index_t chunks = (n + reduce_chunk - 1) / reduce_chunk;
  std::vector<Acc> partial(static_cast<std::size_t>(chunks), init);
  Acc* out = partial.data();
  parallel_chunks(chunks, [&](index_t c) {  // on the pool's threads (pool.hpp)
    const index_t t0 = c * reduce_chunk;
    out[c] = reduce_span(box, t0, std::min(reduce_chunk, n - t0), map, op, init);
  });
  Acc result = init;
  for (const Acc& p : partial) result = op(result, p);
  return result;
}

}  // namespace sim::cpu
