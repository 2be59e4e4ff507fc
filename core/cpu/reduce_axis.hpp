#pragma once
// The cpu backend of reductions along one axis. The array is seen as outer x len x inner
// with the reduced axis in the middle; each output is combined in a fixed order (8 lanes
// along a contiguous axis, one sweep per output otherwise), so results do not depend on the
// thread count.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/cpu/for_each.hpp"
#include "core/cpu/pool.hpp"
#include "core/cpu/reduce.hpp"
#include "core/runtime/types.hpp"

namespace sim::cpu {

/// out[o * inner + p] = fin(op-combination of map(o, m, p) over m < len, o, p, len).
template <class Acc, class Out, class Map, class Op, class Fin>
void reduce_along(index_t outer, index_t len, index_t inner, const Map& map, const Op& op, Acc init, const Fin& fin,
                  Out* out) {
  const bool parallel = outer * inner * std::max<index_t>(len, 1) > parallel_threshold;
  if (inner == 1) {  // the axis is contiguous: one row per output
    for_pieces(outer, parallel, [&](index_t o0, index_t o1) {
      for (index_t o = o0; o < o1; ++o) {
        Acc lane[8] = {init, init, init, init, init, init, init, init};
        reduce_row(lane, 0, len, [&](index_t m) { return map(o, m, index_t(0)); }, op);
        out[o] = fin(combine_lanes(lane, op), o, index_t(0), len);
      }
    });
    return;
  }
  constexpr index_t block = 256;  // outputs swept together: the inner loop runs along memory
  const index_t blocks = (inner + block - 1) / block;
  for_pieces(outer * blocks, parallel, [&](index_t t0, index_t t1) {
    for (index_t t = t0; t < t1; ++t) {
      const index_t o = t / blocks, p0 = (t - o * blocks) * block, pn = std::min(block, inner - p0);
      Acc acc[block];
      for (index_t q = 0; q < pn; ++q) acc[q] = init;
      for (index_t m = 0; m < len; ++m)
        for (index_t q = 0; q < pn; ++q) acc[q] = op(acc[q], map(o, m, p0 + q));
      for (index_t q = 0; q < pn; ++q) out[o * inner + p0 + q] = fin(acc[q], o, p0 + q, len);
    }
  });
}

/// reduce_along for an axis other than the last (inner > 1, inner % V == 0) through map.vec<V>:
/// V consecutive outputs of a row per load, so the loops over a row vectorise. Each output is
/// combined in the same order as above (along the axis), so the bits are the same.
template <int V, class Acc, class Out, class Map, class Op, class Fin>
void reduce_along_vec(index_t outer, index_t len, index_t inner, const Map& map, const Op& op, Acc init, const Fin& fin,
                      Out* out) {
  constexpr index_t block = 512;  // outputs swept together (a multiple of V): 2-4 KiB of row per step
  const index_t blocks = (inner + block - 1) / block;
  const bool parallel = outer * inner * std::max<index_t>(len, 1) > parallel_threshold;
  for_pieces(outer * blocks, parallel, [&](index_t t0, index_t t1) {
    for (index_t t = t0; t < t1; ++t) {
      const index_t o = t / blocks, p0 = (t - o * blocks) * block, pn = std::min(block, inner - p0);
      Acc acc[block];
      for (index_t q = 0; q < pn; ++q) acc[q] = init;
      for (index_t m = 0; m < len; ++m)
        for (index_t q = 0; q < pn; q += V) {
          Acc x[V];
          map.template vec<V>(x, o, m, p0 + q);
          for (int k = 0; k < V; ++k) acc[q + k] = op(acc[q + k], x[k]);
        }
      for (index_t q = 0; q < pn; ++q) out[o * inner + p0 + q] = fin(acc[q], o, p0 + q, len);
    }
  });
}

}  // namespace sim::cpu

namespace sim::cpu {

/// Shifted sums of a contiguous sequence value(0..n-1) in double, 8 lanes per chunk of a
/// fixed size, chunks combined in order (vectorisable; independent of the thread count).
template <class Value>
void shifted_sums(index_t n, const Value& value, double k, double& s, double& s2) {
  const index_t chunks = (n + reduce_chunk - 1) / reduce_chunk;
  std::vector<double> ps(static_cast<std::size_t>(chunks)), ps2(static_cast<std::size_t>(chunks));
  for_pieces(chunks, chunks > 1, [&](index_t c0, index_t c1) {
    for (index_t c = c0; c < c1; ++c) {
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
  });
  s = 0, s2 = 0;
  for (index_t c = 0; c < chunks; ++c) s += ps[c], s2 += ps2[c];
}

/// Index of the first largest (Max) or smallest value(0..n-1), a NaN counting as the extreme.
/// Per block of 4096: the extreme (NaN-blind) and the sum in 32 lanes each, one compare-select
/// and one add per value, so the loop vectorises and keeps 8 registers in flight; a NaN makes
/// the sum NaN (so can inf - inf: then the block is searched and found clean). Then a search
/// of the block, now in L1, for the first NaN or else the first position of the extreme.
/// (The two-pass order keeps NumPy's answer: the first extreme, or the first NaN.)
template <bool Max, class T, class Value>
index_t arg_extreme(index_t n, const Value& value_in) {
  constexpr index_t block = 1 << 12;
  constexpr int L = 32;
  constexpr bool floating = std::is_floating_point<T>::value;  // integers: no NaN, and no sum to overflow
  const index_t blocks = (n + block - 1) / block;
  std::vector<index_t> where(static_cast<std::size_t>(blocks));
  std::vector<T> best(static_cast<std::size_t>(blocks));
  std::vector<char> nan(static_cast<std::size_t>(blocks));
  for_pieces(blocks, blocks > 8, [&](index_t c0, index_t c1) {
    for (index_t c = c0; c < c1; ++c) {
      const Value value = value_in;  // a local copy: its pointers stay in registers through the loop
      const index_t lo = c * block, hi = std::min(n, lo + block);
      T lane[L], sum[L];
      for (int l = 0; l < L; ++l) lane[l] = value(lo), sum[l] = T(0);
      index_t t = lo;
      for (; t + L <= hi; t += L)
        for (int l = 0; l < L; ++l) {
          const T v = value(t + l);
          lane[l] = Max ? (lane[l] < v ? v : lane[l]) : (v < lane[l] ? v : lane[l]);
          if constexpr (floating) sum[l] += v;
        }
      for (; t < hi; ++t) {
        const T v = value(t);
        lane[0] = Max ? (lane[0] < v ? v : lane[0]) : (v < lane[0] ? v : lane[0]);
        if constexpr (floating) sum[0] += v;
      }
      T m = lane[0], total = T(0);
      for (int l = 1; l < L; ++l) m = Max ? (m < lane[l] ? lane[l] : m) : (lane[l] < m ? lane[l] : m);
      if constexpr (floating)
        for (int l = 0; l < L; ++l) total += sum[l];
      bool any_nan = false;
      index_t i = lo;
      if (total != total || m != m) {  // maybe a NaN: look for the first
        while (i < hi && !(value(i) != value(i))) ++i;
        any_nan = i < hi;
        if (!any_nan) i = lo;
      }
      if (!any_nan) {  // the first m: whole groups of L compared at once (vectorised), then one by one
        using Count = std::conditional_t<sizeof(T) == 8, std::int64_t, std::int32_t>;
        for (; i + L <= hi; i += L) {
          Count hits = 0;
          for (int l = 0; l < L; ++l) hits += value(i + l) == m ? 1 : 0;
          if (hits) break;
        }
        while (!(value(i) == m)) ++i;
      }
      where[c] = i, best[c] = m, nan[c] = any_nan;
    }
  });
  index_t r = 0;
  T b = best.empty() ? T(0) : best[0];
  for (index_t c = 0; c < blocks; ++c) {
    if (nan[c]) return where[c];
    if (c == 0 || (Max ? b < best[c] : best[c] < b)) b = best[c], r = where[c];
  }
  return r;
}

}  // namespace sim::cpu
