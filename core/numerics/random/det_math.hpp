#pragma once
// Deterministic double-precision log and sincos(2*pi*u): bit-identical on host and device.
//
// Only +, -, *, / (IEEE round-to-nearest everywhere) and explicit fused multiply-adds are used.
// No product ever feeds an addition or subtraction directly (every such step is an explicit
// fma, or the product is exact), so -ffp-contract / nvcc's -fmad cannot change any result.

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/runtime/macros.hpp"

namespace sim::detmath {

namespace detail {

// Correctly rounded a*b+c on host and device.
SIM_INLINE double fma(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
    return __fma_rn(a, b, c);
#else
    return std::fma(a, b, c);
#endif
}

SIM_INLINE uint64_t to_bits(double x) {
#if defined(__CUDA_ARCH__)
    return static_cast<uint64_t>(__double_as_longlong(x));
#else
    uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
#endif
}

SIM_INLINE double from_bits(uint64_t u) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(static_cast<long long>(u));
#else
    double x;
    std::memcpy(&x, &u, sizeof x);
    return x;
#endif
}

}  // namespace detail

/// Correctly rounded square root (IEEE), identical on host and device.
SIM_INLINE double sqrt(double x) {
#if defined(__CUDA_ARCH__)
    return __dsqrt_rn(x);
#else
    return std::sqrt(x);
#endif
}

/// Natural log for finite x > 0 (subnormals included); fdlibm's algorithm, error < 1 ulp.
SIM_INLINE double log(double x) {
    using detail::fma;
    const double ln2_hi = 6.93147180369123816490e-01;  // 0x3fe62e42fee00000: k*ln2_hi exact
    const double ln2_lo = 1.90821492927058770002e-10;  // 0x3dea39ef35793c76
    const double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01,
                 Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01,
                 Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
                 Lg7 = 1.479819860511658591e-01;

    // Selects, not branches, so that a loop of calls vectorises (the values are the same).
    const uint64_t b_in = detail::to_bits(x), b_scaled = detail::to_bits(x * 0x1p54);
    const bool subnormal = (b_in >> 52) == 0;  // then scale into the normal range (exact)
    const uint64_t b = subnormal ? b_scaled : b_in;
    // x = 2^k * m with m in [sqrt(2)/2, sqrt(2)); 0x6a09c is sqrt(2)'s top 20 fraction bits.
    const uint64_t frac = b & 0x000fffffffffffffull;
    const bool high = (frac >> 32) >= 0x6a09c;
    const uint64_t exp_bits = high ? 0x3fe0000000000000ull : 0x3ff0000000000000ull;
    const int k = static_cast<int>(b >> 52) - 1023 + (subnormal ? -54 : 0) + (high ? 1 : 0);
    const double f = detail::from_bits(frac | exp_bits) - 1.0;  // exact
    const double s = f / (2.0 + f);
    const double z = s * s;
    double p = fma(z, Lg7, Lg6);
    p = fma(z, p, Lg5);
    p = fma(z, p, Lg4);
    p = fma(z, p, Lg3);
    p = fma(z, p, Lg2);
    p = fma(z, p, Lg1);
    const double R = z * p;
    const double h = 0.5 * f;  // hfsq = h*f = f^2/2
    const double dk = static_cast<double>(k);
    // log(1+f) = f - hfsq + s*(hfsq + R);  log(x) = k*ln2_hi + (log(1+f) + k*ln2_lo)
    const double t = fma(s, fma(h, f, R), dk * ln2_lo);
    return fma(dk, ln2_hi, f - fma(h, f, -t));
}

/// sin(2*pi*u) and cos(2*pi*u) for u in [0, 1], absolute error < 1e-15.
SIM_INLINE void sincos_2pi(double u, double& s, double& c) {
    using detail::fma;
    const double two_pi_hi = 6.28318530717958623200e+00;  // 0x401921fb54442d18
    const double two_pi_lo = 2.44929359829470635445e-16;  // 2*pi - two_pi_hi
    // fdlibm __kernel_sin / __kernel_cos minimax coefficients on [-pi/4, pi/4].
    const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                 S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                 S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
    const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                 C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                 C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;

    // u = q/4 + r with q the nearest quarter turn: r is exact and |r| <= 1/8.
    const int octant = static_cast<int>(u * 8.0);  // 0..8 (u*8 exact)
    const int q = (octant + 1) >> 1;               // 0..4
    const double r = fma(-0.25, static_cast<double>(q), u);  // exact
    const double a = fma(r, two_pi_hi, r * two_pi_lo);       // 2*pi*r, |a| <= pi/4
    const double z = a * a;

    double ps = fma(z, S6, S5);
    ps = fma(z, ps, S4);
    ps = fma(z, ps, S3);
    ps = fma(z, ps, S2);
    ps = fma(z, ps, S1);
    const double sa = fma(a * z, ps, a);  // a + a^3 * P(a^2)

    double pc = fma(z, C6, C5);
    pc = fma(z, pc, C4);
    pc = fma(z, pc, C3);
    pc = fma(z, pc, C2);
    pc = fma(z, pc, C1);
    const double ca = fma(z * z, pc, fma(-0.5, z, 1.0));  // 1 - a^2/2 + a^4 * Q(a^2)

    // Quarter turn q: (s, c) = (sa, ca), (ca, -sa), (-sa, -ca), (-ca, sa) for q & 3 = 0, 1, 2, 3;
    // as selects and exact negations, so that a loop of calls vectorises.
    const bool odd = (q & 1) != 0;
    const double s_abs = odd ? ca : sa, c_abs = odd ? sa : ca;
    s = (q & 2) != 0 ? -s_abs : s_abs;
    c = ((q + 1) & 2) != 0 ? -c_abs : c_abs;
}

}  // namespace sim::detmath
