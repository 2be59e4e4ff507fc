// Fused Monte Carlo counting (see mc_count.hpp). Each coordinate is the top 30 bits k of a
// 32-bit Philox word, the point (k + 1/2) / 2^30; it is inside the unit ball iff
// sum (k_i^2 + k_i) <= 2^60 - 1, computed exactly in 64-bit integers (no rounding, no FMA).
#include "models/mcpi/mc_count.hpp"

#include <stdexcept>

#include "core/detail/dispatch.hpp"
#include "core/numerics/random/philox.hpp"
#if SIM_TU_HAS_CUDA
#include <cub/block/block_reduce.cuh>
#include <curand_kernel.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

namespace {

constexpr std::uint64_t ball_limit = (std::uint64_t(1) << 60) - 1;
constexpr std::uint64_t samples_per_chunk = 64;  // consecutive samples one thread handles at a time

SIM_INLINE rng::Words4 words_of(std::uint64_t seed, std::uint64_t stream, std::uint64_t block) {
#if SIM_DEVICE_PASS
  uint4 w = curand_Philox4x32_10(make_uint4(std::uint32_t(block), std::uint32_t(block >> 32), std::uint32_t(stream),
                                            std::uint32_t(stream >> 32)),
                                 make_uint2(std::uint32_t(seed), std::uint32_t(seed >> 32)));
  return {w.x, w.y, w.z, w.w};
#else
  return rng::philox_block(seed, stream, block);
#endif
}

SIM_INLINE std::uint32_t word(const rng::Words4& w, int i) { return i == 0 ? w.x : i == 1 ? w.y : i == 2 ? w.z : w.w; }

/// Hits among samples [s0, s1) of q: words are drawn in order, four per Philox block.
/// D > 0 fixes the dimension at compile time (the pi case, D = 2); D = 0 reads q.dim.
template <int D>
SIM_INLINE std::uint64_t count_range(const McQuery& q, std::uint64_t s0, std::uint64_t s1) {
  std::uint64_t hits = 0;
  const std::uint64_t d = D > 0 ? std::uint64_t(D) : std::uint64_t(q.dim);
  std::uint64_t w = s0 * d;  // index of the next word
  rng::Words4 cur = words_of(q.seed, q.stream, w / 4);
  for (std::uint64_t s = s0; s < s1; ++s) {
    std::uint64_t r = 0;
    for (std::uint64_t c = 0; c < d; ++c, ++w) {
      if ((w & 3) == 0 && c + s > s0) cur = words_of(q.seed, q.stream, w / 4);  // next block
      const std::uint64_t k = word(cur, int(w & 3)) >> (32 - mc_coordinate_bits);
      r += k * k + k;
    }
    hits += r <= ball_limit ? 1 : 0;
  }
  return hits;
}

/// 1 when the point of two words lies in the quarter disc: (k + 1/2)^2 + (l + 1/2)^2 <= 2^60.
SIM_INLINE std::uint32_t in_disc(std::uint32_t a, std::uint32_t b) {
  const std::uint64_t k = a >> (32 - mc_coordinate_bits), l = b >> (32 - mc_coordinate_bits);
  return k * (k + 1) + l * (l + 1) <= ball_limit ? 1u : 0u;
}

/// The pi case: two samples per Philox block (sample s uses block s / 2, words x,y or z,w).
template <>
SIM_INLINE std::uint64_t count_range<2>(const McQuery& q, std::uint64_t s0, std::uint64_t s1) {
  std::uint32_t hits = 0;  // at most samples_per_chunk per call
  std::uint64_t s = s0;
  if (s & 1) {
    const rng::Words4 w = words_of(q.seed, q.stream, s / 2);
    hits += in_disc(w.z, w.w), ++s;
  }
  for (; s + 1 < s1; s += 2) {
    const rng::Words4 w = words_of(q.seed, q.stream, s / 2);
    hits += in_disc(w.x, w.y) + in_disc(w.z, w.w);
  }
  if (s < s1) {
    const rng::Words4 w = words_of(q.seed, q.stream, s / 2);
    hits += in_disc(w.x, w.y);
  }
  return hits;
}

#if SIM_TU_HAS_CUDA
template <int Threads, int D>
__global__ void __launch_bounds__(Threads) mc_count_kernel(McQuery q, std::uint64_t chunks, unsigned long long* out) {
  std::uint64_t hits = 0;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * Threads;
  for (std::uint64_t c = std::uint64_t(blockIdx.x) * Threads + threadIdx.x; c < chunks; c += stride) {
    const std::uint64_t s0 = q.first + c * samples_per_chunk;
    const std::uint64_t s1 = s0 + samples_per_chunk < q.first + q.count ? s0 + samples_per_chunk : q.first + q.count;
    hits += count_range<D>(q, s0, s1);
  }
  using Reduce = cub::BlockReduce<unsigned long long, Threads>;
  __shared__ typename Reduce::TempStorage temp;
  const unsigned long long block_hits = Reduce(temp).Sum((unsigned long long)hits);
  if (threadIdx.x == 0) atomicAdd(out, block_hits);  // integer sums: order does not matter
}

template <int Threads>
void launch_mc(const Context& ctx, const McQuery& q, std::uint64_t chunks, unsigned long long* out) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const std::uint64_t want = (chunks + Threads - 1) / Threads;
  const std::uint64_t resident = std::uint64_t(ctx.multiprocessor_count()) * (2048 / Threads) * 4;
  const unsigned blocks = unsigned(want < resident ? (want ? want : 1) : resident);
  if (q.dim == 2)
    mc_count_kernel<Threads, 2><<<blocks, Threads, 0, stream>>>(q, chunks, out);
  else
    mc_count_kernel<Threads, 0><<<blocks, Threads, 0, stream>>>(q, chunks, out);
  SIM_CUDA_CHECK_LAUNCH("sim::mc_count_in_ball", stream);
}
#endif

}  // namespace

std::uint64_t mc_count_in_ball(const Context& ctx, const McQuery& q, int threads_per_block) {
  if (q.dim < 1 || q.dim > 16) throw Error("mc_count_in_ball: dimension must be 1..16");
  if (q.count == 0) return 0;
  const std::uint64_t chunks = (q.count + samples_per_chunk - 1) / samples_per_chunk;
#if SIM_TU_HAS_CUDA
  if (ctx.is_cuda()) {
    auto stream = static_cast<cudaStream_t>(ctx.stream());
    auto* out = static_cast<unsigned long long*>(ctx.allocate(sizeof(unsigned long long)));
    SIM_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof *out, stream));
    switch (threads_per_block) {
      case 128: launch_mc<128>(ctx, q, chunks, out); break;
      case 512: launch_mc<512>(ctx, q, chunks, out); break;
      default: launch_mc<256>(ctx, q, chunks, out); break;
    }
    unsigned long long hits = 0;
    SIM_CUDA_CHECK(cudaMemcpyAsync(&hits, out, sizeof hits, cudaMemcpyDeviceToHost, stream));
    SIM_CUDA_CHECK(cudaStreamSynchronize(stream));
    ctx.deallocate(out, sizeof *out);
    return hits;
  }
#endif
  (void)threads_per_block;
  std::uint64_t hits = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : hits)
  for (std::int64_t c = 0; c < std::int64_t(chunks); ++c) {
    const std::uint64_t s0 = q.first + std::uint64_t(c) * samples_per_chunk;
    const std::uint64_t s1 = s0 + samples_per_chunk < q.first + q.count ? s0 + samples_per_chunk : q.first + q.count;
    hits += q.dim == 2 ? count_range<2>(q, s0, s1) : count_range<0>(q, s0, s1);
  }
  return hits;
}

}  // namespace sim
