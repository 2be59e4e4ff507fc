#pragma once
// The cpu backend of for_each: the outer dimensions cut into chunks of whole rows, run on the
// pool's threads (core/cpu/pool.hpp), the contiguous dimension innermost.
#include <algorithm>
#include <type_traits>
#include <utility>

#include "core/cpu/pool.hpp"
#include "core/runtime/types.hpp"

namespace sim::cpu {

/// Below this many points a loop runs on the calling thread (thread start-up would dominate).
constexpr index_t parallel_threshold = 1 << 14;
/// The fewest points of a chunk, and chunks a thread (the caller claims those the others are late for).
constexpr index_t chunk_points_min = 1 << 12, chunks_per_thread = 4;

/// Chunks for a pass over `rows` rows of `points` points in all (1: run it on the calling thread).
inline index_t chunks_for(index_t rows, index_t points) {
  if (points <= parallel_threshold) return 1;
  const int threads = pass_threads();
  if (threads <= 1) return 1;
  return std::max<index_t>(1, std::min({rows, index_t(threads) * chunks_per_thread, points / chunk_points_min}));
}

/// Calls run(a, e) over [0, n) cut into `chunks` contiguous ranges, on the pool's threads (one
/// chunk or fewer: once, on the calling thread).
template <class Run>
void for_ranges(index_t n, index_t chunks, const Run& run) {
  if (chunks <= 1) return run(index_t(0), n);
  parallel_chunks(chunks, [&](index_t c) { run(n * c / chunks, n * (c + 1) / chunks); });
}

/// Calls f(i0, i1) over [0, n) in pieces (for_ranges), four a thread when parallel, else once
/// on the calling thread. Where every output is written by one piece in a fixed order (the
/// axis reductions, scans along an axis, line sorts, the dense fallbacks), the split changes no bit.
template <class F>
void for_pieces(index_t n, bool parallel, const F& f) {
  for_ranges(n, parallel ? std::min<index_t>(n, chunks_per_thread * index_t(pass_threads())) : 1, f);
}

/// Calls run(r0, r1) over [0, rows) in chunks on the pool (contiguous row ranges).
template <class Rows>
void for_row_chunks(index_t rows, index_t points, const Rows& run) {
  for_ranges(rows, chunks_for(rows, points), run);
}

/// A functor with a member row(i, j0, j1) gets whole rows of a 2D box here (the cpu backend
/// only): it can decide what is uniform along a row once and let the compiler vectorise the
/// row's cells. Others are called point by point.
template <class F, class = void>
struct has_rows : std::false_type {};
template <class F>
struct has_rows<F, std::void_t<decltype(std::declval<const F&>().row(index_t(), index_t(), index_t()))>> : std::true_type {};

template <class F>
void for_each(const Box<1>& b, const F& f) {
  const index_t lo = b.lo[0], n = b.hi[0] - lo;
  for_row_chunks(n, n, [&](index_t a, index_t e) {
    for (index_t i = lo + a; i < lo + e; ++i) f(i);
  });
}

template <class F>
void for_each(const Box<2>& b, const F& f) {
  const index_t lo0 = b.lo[0], lo1 = b.lo[1], hi1 = b.hi[1];
  for_row_chunks(b.extent(0), b.size(), [&](index_t a, index_t e) {
    for (index_t i = lo0 + a; i < lo0 + e; ++i) {
      if constexpr (has_rows<F>::value) f.row(i, lo1, hi1);
      else
        for (index_t j = lo1; j < hi1; ++j) f(i, j);
    }
  });
}

template <class F>
void for_each(const Box<3>& b, const F& f) {
  const index_t lo0 = b.lo[0], lo1 = b.lo[1], n1 = b.extent(1), lo2 = b.lo[2], hi2 = b.hi[2];
  for_row_chunks(b.extent(0) * n1, b.size(), [&](index_t a, index_t e) {
    for (index_t r = a; r < e; ++r) {
      const index_t i = lo0 + r / n1, j = lo1 + r % n1;
      for (index_t k = lo2; k < hi2; ++k) f(i, j, k);
    }
  });
}

}  // namespace sim::cpu
