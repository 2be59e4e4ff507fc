#pragma once
// The cpu backend of for_each: OpenMP threads over the outer dimensions, the contiguous
// dimension innermost.
#include "core/types.hpp"

namespace sim::cpu {

/// Below this many points a loop runs on one thread (thread start-up would dominate).
constexpr index_t parallel_threshold = 1 << 14;

template <class F>
void for_each(const Box<1>& b, const F& f) {
  const index_t lo = b.lo[0], hi = b.hi[0];
#pragma omp parallel for schedule(static) if (hi - lo > parallel_threshold)
  for (index_t i = lo; i < hi; ++i) f(i);
}

template <class F>
void for_each(const Box<2>& b, const F& f) {
  const index_t lo0 = b.lo[0], hi0 = b.hi[0], lo1 = b.lo[1], hi1 = b.hi[1];
#pragma omp parallel for schedule(static) if (b.size() > parallel_threshold)
  for (index_t i = lo0; i < hi0; ++i)
    for (index_t j = lo1; j < hi1; ++j) f(i, j);
}

template <class F>
void for_each(const Box<3>& b, const F& f) {
  const index_t lo0 = b.lo[0], hi0 = b.hi[0], lo1 = b.lo[1], hi1 = b.hi[1], lo2 = b.lo[2], hi2 = b.hi[2];
#pragma omp parallel for collapse(2) schedule(static) if (b.size() > parallel_threshold)
  for (index_t i = lo0; i < hi0; ++i)
    for (index_t j = lo1; j < hi1; ++j)
      for (index_t k = lo2; k < hi2; ++k) f(i, j, k);
}

}  // namespace sim::cpu
