// Host tests for core/random: Philox known answers and cuRAND counter mapping, exact uniform
// conversions, accuracy of the deterministic log / sincos_2pi, Box-Muller moments.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>

#include "core/numerics/random/det_math.hpp"
#include "core/numerics/random/philox.hpp"

namespace {

using sim::rng::Words4;

constexpr double kTwoPi = 6.283185307179586476925286766559;

void expect_words(const Words4& got, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
    EXPECT_EQ(got.x, x);
    EXPECT_EQ(got.y, y);
    EXPECT_EQ(got.z, z);
    EXPECT_EQ(got.w, w);
}

bool same(const Words4& a, const Words4& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

// Line-by-line model of curandStatePhilox4_32_10_t from curand_kernel.h (curand_init,
// skipahead, skipahead_sequence, curand4, Philox_State_Incr, Philox_State_Incr_hi).
struct CurandPhiloxModel {
    Words4 ctr{0, 0, 0, 0}, output{0, 0, 0, 0};
    uint32_t key0, key1;
    unsigned state = 0;

    CurandPhiloxModel(uint64_t seed, uint64_t subsequence, uint64_t offset)
        : key0(static_cast<uint32_t>(seed)), key1(static_cast<uint32_t>(seed >> 32)) {
        skipahead_sequence(subsequence);
        skipahead(offset);
    }
    void refresh() { output = sim::rng::philox4x32_10(ctr, key0, key1); }
    void incr() {
        if (++ctr.x) return;
        if (++ctr.y) return;
        if (++ctr.z) return;
        ++ctr.w;
    }
    void incr(uint64_t n) {
        const uint32_t nlo = static_cast<uint32_t>(n);
        uint32_t nhi = static_cast<uint32_t>(n >> 32);
        ctr.x += nlo;
        if (ctr.x < nlo) nhi++;
        ctr.y += nhi;
        if (nhi <= ctr.y) return;
        if (++ctr.z) return;
        ++ctr.w;
    }
    void incr_hi(uint64_t n) {
        const uint32_t nlo = static_cast<uint32_t>(n);
        uint32_t nhi = static_cast<uint32_t>(n >> 32);
        ctr.z += nlo;
        if (ctr.z < nlo) nhi++;
        ctr.w += nhi;
    }
    void skipahead(uint64_t n) {
        state += static_cast<unsigned>(n & 3);
        n /= 4;
        if (state > 3) {
            n += 1;
            state -= 4;
        }
        incr(n);
        refresh();
    }
    void skipahead_sequence(uint64_t n) {
        incr_hi(n);
        refresh();
    }
    Words4 curand4() {
        const Words4 tmp = output;
        incr();
        refresh();
        switch (state) {
            case 1: return Words4{tmp.y, tmp.z, tmp.w, output.x};
            case 2: return Words4{tmp.z, tmp.w, output.x, output.y};
            case 3: return Words4{tmp.w, output.x, output.y, output.z};
            default: return tmp;
        }
    }
};

// ---------------------------------------------------------------- Philox

TEST(Philox, Random123KnownAnswers) {
    using sim::rng::philox4x32_10;
    expect_words(philox4x32_10({0, 0, 0, 0}, 0, 0), 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu,
                 0x9b00dbd8u);
    expect_words(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                               0xffffffffu, 0xffffffffu),
                 0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu);
    expect_words(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                               0xa4093822u, 0x299f31d0u),
                 0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u);
}

TEST(Philox, BlockCounterLayout) {
    const uint64_t seed = 0x0123456789abcdefull, sub = 0xfedcba9876543210ull;
    const uint64_t block = 0x1122334455667788ull;
    const Words4 expect = sim::rng::philox4x32_10({0x55667788u, 0x11223344u, 0x76543210u, 0xfedcba98u},
                                                  0x89abcdefu, 0x01234567u);
    EXPECT_TRUE(same(sim::rng::philox_block(seed, sub, block), expect));
}

TEST(Philox, BlockMatchesCurandInit) {
    const uint64_t seeds[] = {0, 42, 0xdeadbeefcafebabeull};
    const uint64_t subs[] = {0, 1, 7, 0xffffffffull, 0x100000000ull, ~0ull};
    const uint64_t blocks[] = {0, 1, 2, 0xfffffffeull, 0xffffffffull, 0x100000000ull,
                               0x100000001ull, 0x1ffffffffull, (1ull << 62) - 1};
    for (uint64_t seed : seeds)
        for (uint64_t sub : subs)
            for (uint64_t block : blocks) {
                CurandPhiloxModel st(seed, sub, 4 * block);
                EXPECT_TRUE(same(st.curand4(), sim::rng::philox_block(seed, sub, block)))
                    << "seed " << seed << " sub " << sub << " block " << block;
                // The following curand4() calls continue with block+1, block+2.
                EXPECT_TRUE(same(st.curand4(), sim::rng::philox_block(seed, sub, block + 1)));
                EXPECT_TRUE(same(st.curand4(), sim::rng::philox_block(seed, sub, block + 2)));
            }
}

TEST(Philox, BlockCarryAtTwoPow64) {
    // Reach block 2^64-4 with skipahead (curand_init's offset alone stops at 2^62 blocks),
    // then step with curand4 across 2^64-1: the counter carries into the subsequence words.
    const uint64_t seed = 0x9e3779b97f4a7c15ull, sub = 5;
    CurandPhiloxModel st(seed, sub, 0);
    for (int i = 0; i < 4; ++i) st.skipahead(~0ull - 3);  // 4 * (2^62 - 1) blocks in all
    for (uint64_t b = ~0ull - 3; b != 0; ++b)
        EXPECT_TRUE(same(st.curand4(), sim::rng::philox_block(seed, sub, b))) << b;
    EXPECT_TRUE(same(st.curand4(), sim::rng::philox_block(seed, sub + 1, 0)));
    EXPECT_TRUE(same(st.curand4(), sim::rng::philox_block(seed, sub + 1, 1)));
    EXPECT_FALSE(same(sim::rng::philox_block(seed, sub, ~0ull), sim::rng::philox_block(seed, sub, 0)));
}

// ---------------------------------------------------------------- uniforms

TEST(Uniform, EdgeWordsExact) {
    using sim::rng::uniform_double;
    using sim::rng::uniform_float;
    EXPECT_EQ(uniform_float(0u), 0x1p-24f);
    EXPECT_EQ(uniform_float(0xffffffffu), 1.0f - 0x1p-24f);
    EXPECT_EQ(uniform_float(0x80000000u), 0.5f + 0x1p-24f);
    EXPECT_EQ(uniform_double(0u, 0u), 0x1p-53);
    EXPECT_EQ(uniform_double(0xffffffffu, 0xffffffffu), 1.0 - 0x1p-53);
    EXPECT_EQ(uniform_double(0u, 0x80000000u), 0.5 + 0x1p-53);
    EXPECT_EQ(uniform_double(0xfffu, 0u), 0x1p-53);       // low 12 bits are dropped
    EXPECT_EQ(uniform_double(0x1000u, 0u), 3 * 0x1p-53);
}

TEST(Uniform, OpenIntervalAndMean) {
    const int n = 1000000;
    double sum_f = 0, sum_d = 0;
    for (int i = 0; i < n / 4; ++i) {
        const Words4 w = sim::rng::philox_block(1234, 0, static_cast<uint64_t>(i));
        const uint32_t ws[4] = {w.x, w.y, w.z, w.w};
        for (int j = 0; j < 4; ++j) {
            const float f = sim::rng::uniform_float(ws[j]);
            const double d = sim::rng::uniform_double(ws[j], ws[(j + 1) & 3]);
            ASSERT_GT(f, 0.0f);
            ASSERT_LT(f, 1.0f);
            ASSERT_GT(d, 0.0);
            ASSERT_LT(d, 1.0);
            sum_f += f;
            sum_d += d;
        }
    }
    EXPECT_NEAR(sum_f / n, 0.5, 0.002);
    EXPECT_NEAR(sum_d / n, 0.5, 0.002);
}

// ---------------------------------------------------------------- det_math

double max_rel_log_error(double x, double worst) {
    const double ref = std::log(x);
    const double got = sim::detmath::log(x);
    const double err = ref == 0.0 ? std::fabs(got) : std::fabs(got - ref) / std::fabs(ref);
    return err > worst ? err : worst;
}

TEST(DetMath, LogAccuracy) {
    std::mt19937_64 gen(7);
    std::uniform_real_distribution<double> unit(0.0, 1.0), big(1.0, 1e6), expo(-60.0, 0.0);
    double worst = 0;
    for (int i = 0; i < 1000000; ++i) {
        worst = max_rel_log_error(std::exp2(expo(gen)), worst);  // log-uniform in [2^-60, 1]
        worst = max_rel_log_error(1.0 - unit(gen), worst);       // uniform in (0, 1]
        worst = max_rel_log_error(big(gen), worst);              // uniform in [1, 1e6)
        worst = max_rel_log_error(std::exp2(20 * unit(gen)), worst);  // log-uniform in [1, 2^20)
        const Words4 w = sim::rng::philox_block(99, 0, static_cast<uint64_t>(i));
        worst = max_rel_log_error(sim::rng::uniform_double(w.x, w.y), worst);  // Box-Muller inputs
    }
    for (int j = 1; j < 100000; ++j) {  // around 1, where log(x) -> 0
        worst = max_rel_log_error(1.0 + j * 0x1p-52, worst);
        worst = max_rel_log_error(1.0 - j * 0x1p-53, worst);
    }
    for (int e = -1074; e <= 1023; ++e) worst = max_rel_log_error(std::ldexp(1.0, e), worst);
    worst = max_rel_log_error(1e6, worst);
    EXPECT_EQ(sim::detmath::log(1.0), 0.0);
    EXPECT_LT(worst, 4e-16);
    std::printf("[          ] log: max relative error %.3g\n", worst);
}

TEST(DetMath, SinCos2PiAccuracy) {
    const long double two_pi = 6.283185307179586476925286766559005768L;
    double worst = 0;
    auto check = [&](double u) {
        double s, c;
        sim::detmath::sincos_2pi(u, s, c);
        const long double a = two_pi * static_cast<long double>(u);
        const double es = static_cast<double>(std::fabs(static_cast<long double>(s) - std::sin(a)));
        const double ec = static_cast<double>(std::fabs(static_cast<long double>(c) - std::cos(a)));
        worst = std::fmax(worst, std::fmax(es, ec));
        // Cross-check against libm in double as well (looser: the reference rounds 2*pi*u).
        EXPECT_NEAR(s, std::sin(kTwoPi * u), 2e-15);
        EXPECT_NEAR(c, std::cos(kTwoPi * u), 2e-15);
    };
    std::mt19937_64 gen(11);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int i = 0; i < 1000000; ++i) check(unit(gen));
    for (int k = 0; k <= (1 << 20); ++k) check(k * 0x1p-20);  // dyadic points, octant edges
    for (int k = 0; k <= 8; ++k) {  // just around the octant edges
        check(std::nextafter(k / 8.0, 0.0));
        check(std::nextafter(k / 8.0, 2.0));
    }
    check(0x1p-60);
    check(1.0 - 0x1p-53);
    EXPECT_LT(worst, 1e-15);
    std::printf("[          ] sincos_2pi: max absolute error %.3g\n", worst);

    double s, c;
    sim::detmath::sincos_2pi(0.0, s, c);
    EXPECT_EQ(s, 0.0);
    EXPECT_EQ(c, 1.0);
    sim::detmath::sincos_2pi(0.25, s, c);
    EXPECT_EQ(s, 1.0);
    EXPECT_EQ(c, 0.0);
    sim::detmath::sincos_2pi(0.5, s, c);
    EXPECT_EQ(s, 0.0);
    EXPECT_EQ(c, -1.0);
    sim::detmath::sincos_2pi(1.0, s, c);
    EXPECT_EQ(s, 0.0);
    EXPECT_EQ(c, 1.0);
}

TEST(DetMath, BoxMullerMoments) {
    const int pairs = 1000000;
    double sum = 0, sum_sq = 0, sum_cross = 0;
    for (int i = 0; i < pairs; ++i) {
        const Words4 w = sim::rng::philox_block(2024, 3, static_cast<uint64_t>(i));
        const double u1 = sim::rng::uniform_double(w.x, w.y);
        const double u2 = sim::rng::uniform_double(w.z, w.w);
        double z0, z1;
        sim::rng::box_muller(u1, u2, z0, z1);
        if (i < 1000) {  // same values as libm's Box-Muller up to rounding
            const double r = std::sqrt(-2.0 * std::log(u1));
            EXPECT_NEAR(z0, r * std::cos(kTwoPi * u2), 1e-13);
            EXPECT_NEAR(z1, r * std::sin(kTwoPi * u2), 1e-13);
        }
        sum += z0 + z1;
        sum_sq += z0 * z0 + z1 * z1;
        sum_cross += z0 * z1;
    }
    const double n = 2.0 * pairs;
    const double mean = sum / n;
    const double var = sum_sq / n - mean * mean;
    EXPECT_LT(std::fabs(mean), 0.01);
    EXPECT_NEAR(var, 1.0, 0.01);
    EXPECT_LT(std::fabs(sum_cross / pairs), 0.01);
}

}  // namespace
