#pragma once
// The cpu backend of reductions along one axis. The array is seen as outer x len x inner
// with the reduced axis in the middle; each output is combined in a fixed order (8 lanes
// along a contiguous axis, one sweep per output otherwise), so results do not depend on the
// thread count.
#include <algorithm>
#include <vector>

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

namespace sim::cpu {

/// Shifted sums of a contiguous sequence value(0..n-1) in double, 8 lanes per chunk of a
/// fixed size, chunks combined in order (vectorisable; independent of the thread count).
template <class Value>
void shifted_sums(index_t n, const Value& value, double k, double& s, double& s2) {
  const index_t chunks = (n + reduce_chunk - 1) / reduce_chunk;
  std::vector<double> ps(static_cast<std::size_t>(chunks)), ps2(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (index_t c = 0; c < chunks; ++c) {
    const index_t lo = c * reduce_chunk, hi = std::min(n, lo + reduce_chunk);
    double a[8] = {}, b[8] = {};
    index_t t = lo;
    for (; t + 8 <= hi; t += 8)
      for (int l = 0; l < 8; ++l) {
        const double d = static_cast<double>(value(t + l)) - k;
        a[l] += d, b[l] += d * d;
      }
    for (; t < hi; ++t) {
      const double d = static_cast<double>(value(t)) - k;
      a[t & 7] += d, b[t & 7] += d * d;
    }
    ps[c] = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
    ps2[c] = ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
  }
  s = 0, s2 = 0;
  for (index_t c = 0; c < chunks; ++c) s += ps[c], s2 += ps2[c];
}

/// Index of the first largest (Max) or smallest value(0..n-1), a NaN counting as the extreme;
/// per block a vectorisable extreme first, then a search for its first position.
template <bool Max, class T, class Value>
index_t arg_extreme(index_t n, const Value& value) {
  constexpr index_t block = 1 << 12;
  const index_t blocks = (n + block - 1) / block;
  std::vector<index_t> where(static_cast<std::size_t>(blocks));
  std::vector<T> best(static_cast<std::size_t>(blocks));
  std::vector<char> nan(static_cast<std::size_t>(blocks));
#pragma omp parallel for schedule(static) if (blocks > 8)
  for (index_t c = 0; c < blocks; ++c) {
    const index_t lo = c * block, hi = std::min(n, lo + block);
    T lane[8];
    for (int l = 0; l < 8; ++l) lane[l] = value(lo);
    bool any_nan = false;
    index_t t = lo;
    for (; t + 8 <= hi; t += 8)
      for (int l = 0; l < 8; ++l) {
        const T v = value(t + l);
        lane[l] = Max ? (lane[l] < v ? v : lane[l]) : (v < lane[l] ? v : lane[l]);
        any_nan |= (v != v);
      }
    for (; t < hi; ++t) {
      const T v = value(t);
      lane[0] = Max ? (lane[0] < v ? v : lane[0]) : (v < lane[0] ? v : lane[0]);
      any_nan |= (v != v);
    }
    T m = lane[0];
    for (int l = 1; l < 8; ++l) m = Max ? (m < lane[l] ? lane[l] : m) : (lane[l] < m ? lane[l] : m);
    index_t i = lo;
    if (any_nan) {
      while (!(value(i) != value(i))) ++i;
    } else {
      while (!(value(i) == m)) ++i;
    }
    where[c] = i, best[c] = m, nan[c] = any_nan;
  }
  index_t r = 0;
  T b = best.empty() ? T(0) : best[0];
  for (index_t c = 0; c < blocks; ++c) {
    if (nan[c]) return where[c];
    if (c == 0 || (Max ? b < best[c] : best[c] < b)) b = best[c], r = where[c];
  }
  return r;
}

}  // namespace sim::cpu
