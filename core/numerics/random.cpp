// Random fills. Element e of a fill uses Philox block (first + e / per_block), where
// per_block is 4 for 32-bit words and float uniforms, 2 for double uniforms and normals
// (a Box-Muller pair from two 52-bit uniforms, computed in double for both precisions).
#include "core/numerics/random.hpp"

#include <cstdint>

#include "core/kernels/for_each.hpp"
#include "core/numerics/random/det_math.hpp"
#include "core/numerics/random/philox.hpp"
#if SIM_TU_HAS_CUDA
#include <curand_kernel.h>
#endif

namespace sim {

namespace {
// The Philox block of the stream: cuRAND's own function on the device, ours on the host.
SIM_INLINE rng::Words4 block_words(std::uint64_t seed, std::uint64_t sub, std::uint64_t block) {
#if SIM_DEVICE_PASS
  uint4 w = curand_Philox4x32_10(make_uint4(std::uint32_t(block), std::uint32_t(block >> 32), std::uint32_t(sub),
                                            std::uint32_t(sub >> 32)),
                                 make_uint2(std::uint32_t(seed), std::uint32_t(seed >> 32)));
  return rng::Words4{w.x, w.y, w.z, w.w};
#else
  return rng::philox_block(seed, sub, block);
#endif
}

// a * b + c rounded twice (never fused), so both backends give the same bits.
SIM_INLINE float mul_add_unfused(float a, float b, float c) {
#if SIM_DEVICE_PASS
  return __fadd_rn(__fmul_rn(a, b), c);
#else
  return a * b + c;  // this file is compiled with -ffp-contract=off
#endif
}
SIM_INLINE double mul_add_unfused(double a, double b, double c) {
#if SIM_DEVICE_PASS
  return __dadd_rn(__dmul_rn(a, b), c);
#else
  return a * b + c;
#endif
}

enum class Dist { bits, uniform, normal };

template <class T, Dist D>
struct FillFn {
  T* out;
  index_t n;
  std::uint64_t seed, sub, first;
  T a, b;  // uniform: lo, hi - lo; normal: mean, stddev
  static constexpr int per_block = (D == Dist::bits || (D == Dist::uniform && sizeof(T) == 4)) ? 4 : 2;

  SIM_INLINE void operator()(index_t blk) const {
    const rng::Words4 w = block_words(seed, sub, first + std::uint64_t(blk));
    T v[4];
    if constexpr (D == Dist::bits) {
      v[0] = T(w.x), v[1] = T(w.y), v[2] = T(w.z), v[3] = T(w.w);
    } else if constexpr (D == Dist::uniform && sizeof(T) == 4) {
      v[0] = T(rng::uniform_float(w.x)), v[1] = T(rng::uniform_float(w.y));
      v[2] = T(rng::uniform_float(w.z)), v[3] = T(rng::uniform_float(w.w));
    } else if constexpr (D == Dist::uniform) {
      v[0] = T(rng::uniform_double(w.x, w.y)), v[1] = T(rng::uniform_double(w.z, w.w));
    } else {
      double z0, z1;
      rng::box_muller(rng::uniform_double(w.x, w.y), rng::uniform_double(w.z, w.w), z0, z1);
      v[0] = T(z0), v[1] = T(z1);
    }
    Words r;
    for (int l = 0; l < per_block; ++l) {
      if constexpr (D == Dist::bits)
        r.v[l] = v[l];
      else
        r.v[l] = mul_add_unfused(b, v[l], a);  // lo + (hi - lo) u, or mean + stddev z
    }
    const index_t e0 = blk * per_block;
#if SIM_DEVICE_PASS
    if (aligned && e0 + per_block <= n) {  // one vector store a thread (8 or 16 bytes), not per_block
      *reinterpret_cast<Words*>(out + e0) = r;
      return;
    }
#endif
    for (int l = 0; l < per_block && e0 + l < n; ++l) out[e0 + l] = r.v[l];
  }
  // A block's values, aligned for one store.
  struct alignas(per_block * sizeof(T)) Words {
    T v[per_block];
  };
  bool aligned = false;  // out is aligned for Words
};

#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && defined(__x86_64__)
// The cpu backend's fills take `lanes` Philox blocks at a time: the Philox rounds, the
// conversions to uniforms, the Box-Muller transform and the final a + b v are each a plain loop
// over the lanes, which the compiler turns into vector instructions. Every lane does the same
// operations in the same order as FillFn (philox_block, uniform_*, box_muller,
// mul_add_unfused), so the values are the same bits. The loops are compiled for x86-64-v4
// (AVX-512), x86-64-v3 (AVX2 + FMA) and baseline x86-64 (GCC's target_clones picks one when the
// program loads) with every call inlined (flatten). No fused multiply-add is formed
// (-ffp-contract=off); the explicit ones in det_math.hpp are correctly rounded whether an
// instruction or a call. The file is compiled with -fno-math-errno (sqrt an instruction: its
// argument here is never negative) and -fno-trapping-math (the selects of det_math.hpp may be
// if-converted without AVX-512's masks); neither changes a value.
#define SIM_CPU_FILL_LOOPS 1

/// Philox words of `lanes` consecutive blocks, one array a word.
struct PhiloxLanes {
  static constexpr int lanes = 16;
  std::uint32_t x[lanes], y[lanes], z[lanes], w[lanes];

  /// Blocks first .. first + lanes - 1 of the (seed, sub) stream (rng::philox_block's rounds
  /// unrolled inside the loop over lanes, which is the loop that vectorises).
  SIM_INLINE void generate(std::uint64_t seed, std::uint64_t sub, std::uint64_t first) {
    for (int l = 0; l < lanes; ++l) {
      const rng::Words4 w4 = rng::philox_block(seed, sub, first + std::uint64_t(l));
      x[l] = w4.x, y[l] = w4.y, z[l] = w4.z, w[l] = w4.w;
    }
  }
};

/// Blocks [b0, b1) of fn's fill: whole groups of `lanes` blocks vectorised, the rest one by one.
template <class T, Dist D>
SIM_INLINE void fill_blocks(const FillFn<T, D>& fn, index_t b0, index_t b1) {
  constexpr int L = PhiloxLanes::lanes, per = FillFn<T, D>::per_block;
  // local copies: the stores through out could otherwise alias fn's fields
  const T lo = fn.a, scale = fn.b;
  const std::uint64_t seed = fn.seed, sub = fn.sub, first = fn.first;
  index_t b = b0;
  for (; b + L <= b1 && (b + L) * per <= fn.n; b += L) {
    PhiloxLanes p;
    p.generate(seed, sub, first + std::uint64_t(b));
    T* out = fn.out + b * per;
    if constexpr (D == Dist::bits) {
      for (int l = 0; l < L; ++l) out[4 * l] = p.x[l], out[4 * l + 1] = p.y[l], out[4 * l + 2] = p.z[l], out[4 * l + 3] = p.w[l];
    } else if constexpr (D == Dist::uniform && sizeof(T) == 4) {
      for (int l = 0; l < L; ++l) {
        out[4 * l] = mul_add_unfused(scale, T(rng::uniform_float(p.x[l])), lo);
        out[4 * l + 1] = mul_add_unfused(scale, T(rng::uniform_float(p.y[l])), lo);
        out[4 * l + 2] = mul_add_unfused(scale, T(rng::uniform_float(p.z[l])), lo);
        out[4 * l + 3] = mul_add_unfused(scale, T(rng::uniform_float(p.w[l])), lo);
      }
    } else if constexpr (D == Dist::uniform) {
      for (int l = 0; l < L; ++l) {
        out[2 * l] = mul_add_unfused(scale, T(rng::uniform_double(p.x[l], p.y[l])), lo);
        out[2 * l + 1] = mul_add_unfused(scale, T(rng::uniform_double(p.z[l], p.w[l])), lo);
      }
    } else {
      double z0[L], z1[L];
      for (int l = 0; l < L; ++l)
        rng::box_muller(rng::uniform_double(p.x[l], p.y[l]), rng::uniform_double(p.z[l], p.w[l]), z0[l], z1[l]);
      for (int l = 0; l < L; ++l) {
        out[2 * l] = mul_add_unfused(scale, T(z0[l]), lo);
        out[2 * l + 1] = mul_add_unfused(scale, T(z1[l]), lo);
      }
    }
  }
  for (; b < b1; ++b) fn(b);
}

#define SIM_FILL_CHUNK(T, D)                                                                       \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), flatten, noinline)) void fill_chunk( \
      const FillFn<T, D>& fn, index_t b0, index_t b1) {                                            \
    fill_blocks(fn, b0, b1);                                                                       \
  }
SIM_FILL_CHUNK(float, Dist::normal)
SIM_FILL_CHUNK(double, Dist::normal)
SIM_FILL_CHUNK(float, Dist::uniform)
SIM_FILL_CHUNK(double, Dist::uniform)
SIM_FILL_CHUNK(std::uint32_t, Dist::bits)
#undef SIM_FILL_CHUNK

/// Chunk c of the fill's blocks, for the cpu threads.
template <class Fn>
struct FillChunkFn {
  static constexpr index_t chunk = 1024;  // blocks per call
  Fn fn;
  index_t blocks;
  void operator()(index_t c) const {
    const index_t b0 = c * chunk, b1 = b0 + chunk < blocks ? b0 + chunk : blocks;
    fill_chunk(fn, b0, b1);
  }
};
#else
#define SIM_CPU_FILL_LOOPS 0
#endif

template <Dist D, class T, int Rank>
void fill_random(Array<T, Rank>& x, T a, T b, const char* name) {
  using Fn = FillFn<T, D>;
  const index_t blocks = (x.size() + Fn::per_block - 1) / Fn::per_block;
  const Context& ctx = x.context();
  const std::uint64_t first = ctx.reserve_rng_blocks(std::uint64_t(blocks));
  Fn fn{x.data(), x.size(), ctx.rng_seed(), ctx.rng_stream(), first, a, b};
  fn.aligned = reinterpret_cast<std::uintptr_t>(x.data()) % alignof(typename Fn::Words) == 0;
#if SIM_CPU_FILL_LOOPS
  if (!ctx.is_cuda()) {
    using C = FillChunkFn<Fn>;
    for_each(ctx, name, Box<1>{{0}, {(blocks + C::chunk - 1) / C::chunk}}, C{fn, blocks});
    return;
  }
#endif
  for_each(ctx, name, Box<1>{{0}, {blocks}}, fn);
}
}  // namespace

namespace detail {
template <class T, int Rank>
void fill_uniform(Array<T, Rank>& x, T lo, T hi) {
  static_assert(std::is_floating_point<T>::value, "fill_uniform fills float or double arrays");
  if (!(lo < hi)) throw Error("fill_uniform: lo must be less than hi");
  fill_random<Dist::uniform>(x, lo, T(hi - lo), "sim::fill_uniform");
}

template <class T, int Rank>
void fill_normal(Array<T, Rank>& x, T mean, T stddev) {
  static_assert(std::is_floating_point<T>::value, "fill_normal fills float or double arrays");
  if (!(stddev >= 0)) throw Error("fill_normal: stddev must be non-negative");
  fill_random<Dist::normal>(x, mean, stddev, "sim::fill_normal");
}
}  // namespace detail

template <int Rank>
void fill_bits(Array<std::uint32_t, Rank>& x) {
  fill_random<Dist::bits>(x, 0u, 0u, "sim::fill_bits");
}

#define SIM_INSTANTIATE_RANDOM(T, R)                          \
  template void detail::fill_uniform<T, R>(Array<T, R>&, T, T); \
  template void detail::fill_normal<T, R>(Array<T, R>&, T, T);
SIM_INSTANTIATE_RANDOM(float, 1)
SIM_INSTANTIATE_RANDOM(float, 2)
SIM_INSTANTIATE_RANDOM(float, 3)
SIM_INSTANTIATE_RANDOM(double, 1)
SIM_INSTANTIATE_RANDOM(double, 2)
SIM_INSTANTIATE_RANDOM(double, 3)
template void fill_bits<1>(Array<std::uint32_t, 1>&);
template void fill_bits<2>(Array<std::uint32_t, 2>&);
template void fill_bits<3>(Array<std::uint32_t, 3>&);

}  // namespace sim
