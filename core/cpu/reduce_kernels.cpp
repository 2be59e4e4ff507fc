// The cpu reductions of core/cpu/reduce_kernels.hpp, compiled by the host compiler only.
// The loop bodies (reduce_kernels_body.inc) are compiled three times, for AVX-512, AVX2 and
// baseline x86-64 (`#pragma GCC target`, each in a namespace of its own); a table picks one at
// run time. They are plain element-wise IEEE operations in a fixed order (no FMA:
// -ffp-contract=off, and no reassociation), so the three give the same bits.
#include "core/cpu/reduce_kernels.hpp"

#include "core/cpu/pool.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>
#include <vector>

// The vector helpers below take and return 64-byte vectors; they are always inlined into the
// AVX-512 functions, so the ABI note GCC gives for them does not apply.
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#pragma GCC diagnostic ignored "-Wpsabi"
// GCC 12's _mm512_cvtps_pd starts from _mm512_undefined_pd(), which -Wmaybe-uninitialized flags.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace sim::cpu {
namespace {

#define SIM_AI __attribute__((always_inline)) inline

// ---- threads: chunks run on the cpu backend's pool (core/cpu/pool.hpp: the caller never
// waits for a worker that has not started) when there is enough work; each chunk writes its
// own outputs, so which thread runs it changes nothing
template <class F>
void for_chunks(index_t chunks, bool parallel, const F& f) {
  if (parallel) return parallel_chunks(chunks, f);
  for (index_t c = 0; c < chunks; ++c) f(c);
}
constexpr index_t parallel_elements = 1 << 16;  // fewer elements than this: the calling thread alone

constexpr index_t arg_block = 1 << 12;  // argmin / argmax: elements a block
// column sums: rows a tile sweeps before the next tile. Few: on 2048-column matrices rows are
// 8 or 16 KiB apart, so a tile's lines share one L1 set, and more rows evict each other.
constexpr index_t col_rows = 8;
// column sums: columns a chunk (a thread's unit of work). Wide: longer runs of each row, which
// the prefetcher follows (docs/performance.md).
constexpr index_t col_chunk = 512;

template <class T>
struct ArgBlock {  // a block's first extreme, or its first NaN
  index_t where;
  T best;
  bool nan;
};

// VB-byte vectors of floats, of their halves, and of doubles
template <int VB>
struct Vec {
  typedef float F __attribute__((vector_size(VB)));
  typedef float H __attribute__((vector_size(VB / 2)));
  typedef double D __attribute__((vector_size(VB)));
};
template <class V>
SIM_AI V load(const void* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
template <class V>
SIM_AI void store(void* p, const V& v) {
  std::memcpy(p, &v, sizeof(V));
}

// one compiled version of every loop
template <class T>
struct Kernels {
  void (*arg_max)(const T*, index_t, index_t, index_t, ArgBlock<T>*);
  void (*arg_min)(const T*, index_t, index_t, index_t, ArgBlock<T>*);
  void (*columns)(const T*, index_t, index_t, index_t, T*);
  void (*rows)(const T*, index_t, index_t, index_t, T*);
};

}  // namespace
}  // namespace sim::cpu

// The three versions. Column tiles, in registers of doubles: AVX-512 (32 registers) 16 for
// float (128 columns), 8 for double (64); AVX2 and SSE2 (16 registers) 8 (32 and 16 columns).
// Rows summed together: 4 (AVX-512: 4 registers; AVX2: 8), 2 on SSE2 (8 registers).
#if defined(__x86_64__)
#pragma GCC push_options
#pragma GCC target("avx512f")
namespace sim::cpu::avx512_loops {
namespace {
#define SIM_LOOPS_VB 64
constexpr int KF = 16, KD = 8, KR = 4;
#include "core/cpu/reduce_kernels_body.inc"
#undef SIM_LOOPS_VB
}  // namespace
}  // namespace sim::cpu::avx512_loops
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2")
namespace sim::cpu::avx2_loops {
namespace {
#define SIM_LOOPS_VB 32
constexpr int KF = 8, KD = 8, KR = 4;
#include "core/cpu/reduce_kernels_body.inc"
#undef SIM_LOOPS_VB
}  // namespace
}  // namespace sim::cpu::avx2_loops
#pragma GCC pop_options
#endif
namespace sim::cpu::base_loops {  // the build's own flags (x86-64: SSE2)
namespace {
#define SIM_LOOPS_VB 16
constexpr int KF = 8, KD = 8, KR = 2;
#include "core/cpu/reduce_kernels_body.inc"
#undef SIM_LOOPS_VB
}  // namespace
}  // namespace sim::cpu::base_loops

namespace sim::cpu {
namespace {

VectorIsa detect_isa() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return VectorIsa::avx512;
  if (__builtin_cpu_supports("avx2")) return VectorIsa::avx2;
#endif
  return VectorIsa::baseline;
}
const VectorIsa host_isa = detect_isa();
std::atomic<int> current_isa{static_cast<int>(host_isa)};

template <class T>
const Kernels<T>& kernels() {
  switch (static_cast<VectorIsa>(current_isa.load(std::memory_order_relaxed))) {
#if defined(__x86_64__)
    case VectorIsa::avx512: return avx512_loops::kernels<T>;
    case VectorIsa::avx2: return avx2_loops::kernels<T>;
#endif
    default: return base_loops::kernels<T>;
  }
}

template <class T>
index_t first_extreme_impl(const T* x, index_t n, bool max) {
  const Kernels<T>& k = kernels<T>();
  const auto blocks_fn = max ? k.arg_max : k.arg_min;
  const index_t blocks = (n + arg_block - 1) / arg_block;
  constexpr index_t per_chunk = 16;  // blocks a chunk
  std::vector<ArgBlock<T>> r(static_cast<std::size_t>(blocks));
  const index_t chunks = (blocks + per_chunk - 1) / per_chunk;
  for_chunks(chunks, n > parallel_elements, [&](index_t c) {
    const index_t b0 = c * per_chunk, b1 = std::min(blocks, b0 + per_chunk);
    blocks_fn(x, n, b0, b1, r.data() + b0);
  });
  index_t where = r[0].where;
  T best = r[0].best;
  for (index_t c = 0; c < blocks; ++c) {
    if (r[c].nan) return r[c].where;
    if (max ? best < r[c].best : r[c].best < best) best = r[c].best, where = r[c].where;
  }
  return where;
}

template <class T>
void column_sums_impl(const T* a, index_t rows, index_t cols, index_t ld, T* out) {
  const auto fn = kernels<T>().columns;
  const index_t chunks = (cols + col_chunk - 1) / col_chunk;
  for_chunks(chunks, rows * cols > parallel_elements, [&](index_t c) {
    const index_t j0 = c * col_chunk;
    fn(a + j0, rows, std::min(col_chunk, cols - j0), ld, out + j0);
  });
}

template <class T>
void row_sums_impl(const T* a, index_t rows, index_t cols, index_t ld, T* out) {
  const auto fn = kernels<T>().rows;
  // chunks of whole groups of 4 rows, at least 16 Ki elements each
  const index_t per = std::max<index_t>(4, (index_t(1) << 14) / std::max<index_t>(cols, 1) / 4 * 4);
  const index_t chunks = (rows + per - 1) / per;
  for_chunks(chunks, rows * cols > parallel_elements, [&](index_t c) {
    const index_t i0 = c * per;
    fn(a + i0 * ld, std::min(per, rows - i0), cols, ld, out + i0);
  });
}

}  // namespace

index_t first_extreme(const float* x, index_t n, bool max) { return first_extreme_impl(x, n, max); }
index_t first_extreme(const double* x, index_t n, bool max) { return first_extreme_impl(x, n, max); }
void column_sums(const float* a, index_t rows, index_t cols, index_t ld, float* out) { column_sums_impl(a, rows, cols, ld, out); }
void column_sums(const double* a, index_t rows, index_t cols, index_t ld, double* out) { column_sums_impl(a, rows, cols, ld, out); }
void row_sums(const float* a, index_t rows, index_t cols, index_t ld, float* out) { row_sums_impl(a, rows, cols, ld, out); }
void row_sums(const double* a, index_t rows, index_t cols, index_t ld, double* out) { row_sums_impl(a, rows, cols, ld, out); }

VectorIsa vector_isa() { return static_cast<VectorIsa>(current_isa.load()); }
VectorIsa force_vector_isa(VectorIsa isa) {
  const VectorIsa use = static_cast<int>(isa) < static_cast<int>(host_isa) ? isa : host_isa;
  current_isa.store(static_cast<int>(use));
  return use;
}

}  // namespace sim::cpu
