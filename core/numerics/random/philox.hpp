#pragma once
// Philox4x32-10 counter-based RNG, bit-identical to cuRAND's curandStatePhilox4_32_10_t,
// plus exact conversions to uniforms and a deterministic Box-Muller transform.
// Header-only, host + device, no CUDA headers needed.
//
// Counter mapping (derived from curand_kernel.h / curand_philox4x32_x.h):
//   curand_init(seed, sub, offset) sets key = (lo32(seed), hi32(seed)), ctr = 0, then
//   skipahead_sequence(sub) (Philox_State_Incr_hi: ctr.z,ctr.w += sub; from ctr = 0 no carry
//   is possible) and skipahead(offset) (Philox_State_Incr: ctr.x,ctr.y += offset/4; from
//   ctr.x = ctr.y = 0 no carry into ctr.z is possible), and caches output = Philox(ctr, key).
//   curand4() returns that cached output, i.e. the block computed BEFORE the counter is
//   incremented. Hence, for offset = 4*block:
//     philox_block(seed, sub, block) = Philox4x32_10(
//         ctr = {lo32(block), hi32(block), lo32(sub), hi32(sub)},
//         key = {lo32(seed), hi32(seed)}).
//   For every block in [0, 2^64) this is also the (block+1)-th curand4() result after
//   curand_init(seed, sub, 0) (curand_init's offset itself only reaches block 2^62 - 1);
//   the block after 2^64 - 1 carries into ctr.z, i.e. it is philox_block(seed, sub + 1, 0).

#include <cstdint>

#include "core/runtime/macros.hpp"
#include "core/numerics/random/det_math.hpp"

namespace sim::rng {

struct Words4 {
    uint32_t x, y, z, w;
};

namespace detail {

SIM_INLINE uint32_t mulhilo(uint32_t a, uint32_t b, uint32_t& hi) {
#if defined(__CUDA_ARCH__)
    hi = __umulhi(a, b);
    return a * b;
#else
    const uint64_t p = static_cast<uint64_t>(a) * static_cast<uint64_t>(b);
    hi = static_cast<uint32_t>(p >> 32);
    return static_cast<uint32_t>(p);
#endif
}

SIM_INLINE Words4 philox_round(Words4 c, uint32_t k0, uint32_t k1) {
    uint32_t hi0, hi1;
    const uint32_t lo0 = mulhilo(0xD2511F53u, c.x, hi0);
    const uint32_t lo1 = mulhilo(0xCD9E8D57u, c.z, hi1);
    return Words4{hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0};
}

}  // namespace detail

/// The 10-round Philox4x32 bijection, exactly cuRAND's curand_Philox4x32_10(ctr, key).
SIM_INLINE Words4 philox4x32_10(Words4 counter, uint32_t key0, uint32_t key1) {
    for (int i = 0; i < 9; ++i) {
        counter = detail::philox_round(counter, key0, key1);
        key0 += 0x9E3779B9u;
        key1 += 0xBB67AE85u;
    }
    return detail::philox_round(counter, key0, key1);
}

/// curand4() right after curand_init(seed, subsequence, 4*block) (see mapping above).
SIM_INLINE Words4 philox_block(uint64_t seed, uint64_t subsequence, uint64_t block) {
    const Words4 ctr{static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                     static_cast<uint32_t>(subsequence), static_cast<uint32_t>(subsequence >> 32)};
    return philox4x32_10(ctr, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

/// Uniform float in (0,1) from the top 23 bits of w: (2*(w>>9)+1) * 2^-24, exact.
SIM_INLINE float uniform_float(uint32_t w) {
    return static_cast<float>((w >> 9) * 2u + 1u) * 0x1p-24f;
}

/// Uniform double in (0,1) from the top 52 bits of hi:lo: (2*(bits>>12)+1) * 2^-53, exact.
SIM_INLINE double uniform_double(uint32_t lo, uint32_t hi) {
    const uint64_t bits = (static_cast<uint64_t>(hi) << 32) | lo;
    // below 2^53: the signed conversion is exact too, and has a vector instruction on more CPUs
    return static_cast<double>(static_cast<int64_t>((bits >> 12) * 2u + 1u)) * 0x1p-53;
}

/// Standard normal pair from uniforms u1, u2 in (0,1]; same bits on host and device.
SIM_INLINE void box_muller(double u1, double u2, double& z0, double& z1) {
    const double r = detmath::sqrt(-2.0 * detmath::log(u1));
    double s, c;
    detmath::sincos_2pi(u2, s, c);
    z0 = r * c;
    z1 = r * s;
}

}  // namespace sim::rng
