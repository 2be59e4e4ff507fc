// Monte Carlo: exact, deterministic counts (launch shape, split, backend), statistics that a
// correct generator passes and a biased one fails, 1/sqrt(N) error, d-ball volumes, and the
// model's two paths.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "models/mcpi/mc_count.hpp"
#include "core/numerics/random/philox.hpp"
#include "io/config.hpp"
#include "models/mcpi/mcpi.hpp"
#include "models/runner.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

namespace mc_test {

/// Reference count on the host, independent of the library: long double coordinates.
inline std::uint64_t reference_hits(const McQuery& q) {
  std::uint64_t hits = 0;
  for (std::uint64_t s = q.first; s < q.first + q.count; ++s) {
    long double r2 = 0;
    for (int c = 0; c < q.dim; ++c) {
      const std::uint64_t w = s * std::uint64_t(q.dim) + std::uint64_t(c);
      const auto b = rng::philox_block(q.seed, q.stream, w / 4);
      const std::uint32_t word = (w & 3) == 0 ? b.x : (w & 3) == 1 ? b.y : (w & 3) == 2 ? b.z : b.w;
      const long double x = ((long double)(word >> 2) + 0.5L) / 1073741824.0L;  // (k + 1/2) / 2^30
      r2 += x * x;
    }
    hits += r2 <= 1.0L;
  }
  return hits;
}

/// z-score of a pi estimate from hits of n samples.
inline double z_of(std::uint64_t hits, std::uint64_t n, double truth, double scale) {
  const double p = double(hits) / double(n);
  return (scale * p - truth) / (scale * std::sqrt(p * (1 - p) / double(n)));
}

/// True when z-scores look standard normal: mean, spread and 95% coverage within bounds.
inline bool looks_standard_normal(const std::vector<double>& z, double* mean_out = nullptr, double* sd_out = nullptr,
                                  double* cover_out = nullptr) {
  double m = 0, v = 0, cover = 0;
  for (double x : z) m += x, cover += std::fabs(x) <= 1.959964;
  m /= double(z.size());
  for (double x : z) v += (x - m) * (x - m);
  const double sd = std::sqrt(v / double(z.size() - 1));
  cover /= double(z.size());
  if (mean_out) *mean_out = m, *sd_out = sd, *cover_out = cover;
  // 100 draws: the mean has sd 0.1, the spread about 0.07, the coverage about 0.022
  return std::fabs(m) < 0.35 && sd > 0.75 && sd < 1.25 && cover > 0.88 && cover < 0.995;
}

/// Builds a model from [run] and [model] text.
inline std::unique_ptr<Model> make_model(const Context& ctx, const std::string& model, io::Config& cfg) {
  cfg = io::Config::parse("[run]\nmodel = \"mcpi\"\nsteps = 1\nseed = 77\n[model]\n" + model, "mcpi_test.toml");
  auto m = build_model(builtin_models(), ctx, cfg);
  m->initialize();
  return m;
}

inline double diag(Model& m, const std::string& name) {
  for (auto& d : m.diagnostics())
    if (d.name == name) return d.value;
  return NAN;
}

}  // namespace mc_test

template <class B>
class McTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(McTest);

TYPED_TEST(McTest, CountsMatchAnIndependentHostReference) {
  for (int dim : {2, 3, 7}) {
    McQuery q{11, 0, 5, 20011, dim};
    EXPECT_EQ(mc_count_in_ball(this->ctx, q), mc_test::reference_hits(q)) << "dim " << dim;
  }
}

TYPED_TEST(McTest, CountsDoNotDependOnLaunchShapeOrSplit) {
  for (int dim : {2, 5}) {
    McQuery q{2026, 0, 123, 1000037, dim};
    const std::uint64_t whole = mc_count_in_ball(this->ctx, q, 256);
    EXPECT_EQ(mc_count_in_ball(this->ctx, q, 128), whole);
    EXPECT_EQ(mc_count_in_ball(this->ctx, q, 512), whole);
    McQuery a = q, b = q;
    a.count = 333331;
    b.first = q.first + a.count, b.count = q.count - a.count;
    EXPECT_EQ(mc_count_in_ball(this->ctx, a) + mc_count_in_ball(this->ctx, b), whole);
  }
}

TYPED_TEST(McTest, SixtyFourBitSampleIndices) {
  McQuery q{5, 3, (std::uint64_t(1) << 42) + 17, 30001, 2};  // beyond 2^32 blocks of the stream
  EXPECT_EQ(mc_count_in_ball(this->ctx, q), mc_test::reference_hits(q));
}

TYPED_TEST(McTest, ZScoresOfHundredSeedsAreStandardNormal) {
  std::vector<double> z, biased;
  const std::uint64_t n = 1000000;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const std::uint64_t hits = mc_count_in_ball(this->ctx, McQuery{seed, 0, 0, n, 2});
    z.push_back(mc_test::z_of(hits, n, M_PI, 4));
    biased.push_back(mc_test::z_of(hits + n / 500, n, M_PI, 4));  // a generator 0.2% too generous
  }
  double m, sd, cover;
  const bool ok = mc_test::looks_standard_normal(z, &m, &sd, &cover);
  std::printf("      z-scores: mean %.3f, sd %.3f, 95%% coverage %.2f\n", m, sd, cover);
  EXPECT_TRUE(ok);
  EXPECT_FALSE(mc_test::looks_standard_normal(biased));
}

TYPED_TEST(McTest, ErrorShrinksAsOneOverSqrtN) {
  std::vector<double> rms;
  for (std::uint64_t n : {10000ull, 100000ull, 1000000ull}) {
    double s = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      const double est = 4.0 * double(mc_count_in_ball(this->ctx, McQuery{seed, 1, 0, n, 2})) / double(n);
      s += (est - M_PI) * (est - M_PI);
    }
    rms.push_back(std::sqrt(s / 40));
  }
  const double slope = std::log10(rms[2] / rms[0]) / 2;
  std::printf("      rms error %.2e, %.2e, %.2e: slope %.3f per decade\n", rms[0], rms[1], rms[2], slope);
  EXPECT_GT(slope, -0.65);
  EXPECT_LT(slope, -0.35);
}

TYPED_TEST(McTest, BallVolumesWithinTheirIntervals) {
  for (int d = 2; d <= 10; ++d) {
    const std::uint64_t n = 2000000;
    const std::uint64_t hits = mc_count_in_ball(this->ctx, McQuery{99, 0, 0, n, d});
    const double z = mc_test::z_of(hits, n, unit_ball_volume(d), std::ldexp(1.0, d));
    EXPECT_LT(std::fabs(z), 4.0) << "d = " << d << ": volume " << std::ldexp(double(hits) / n, d) << " vs "
                                  << unit_ball_volume(d);
  }
  EXPECT_NEAR(unit_ball_volume(3), 4.0 / 3.0 * M_PI, 1e-12);
  EXPECT_NEAR(unit_ball_volume(10), std::pow(M_PI, 5) / 120, 1e-12);
}

TYPED_TEST(McTest, ModelBatchSplitAndResumeGiveTheSameCount) {
  io::Config c1, c2, c3;
  auto whole = mc_test::make_model(this->ctx, "batch = 400000\n", c1);
  whole->step(1);
  auto split = mc_test::make_model(this->ctx, "batch = 100000\n", c2);
  for (int i = 0; i < 2; ++i) split->step(1);
  std::map<std::string, std::uint64_t> counters;
  std::map<std::string, double> reals;
  split->save_state(counters, reals);
  auto resumed = mc_test::make_model(this->ctx, "batch = 100000\n", c3);
  resumed->load_state(counters, reals);
  for (int i = 0; i < 2; ++i) resumed->step(1);
  EXPECT_EQ(mc_test::diag(*resumed, "hits"), mc_test::diag(*whole, "hits"));
  EXPECT_EQ(mc_test::diag(*resumed, "samples"), 400000.0);
}

TYPED_TEST(McTest, ArrayPathAgreesWithTheFusedPath) {
  io::Config c1, c2;
  auto fused = mc_test::make_model(this->ctx, "batch = 2000000\n", c1);
  auto array = mc_test::make_model(this->ctx, "batch = 2000000\npath = \"array\"\n", c2);
  fused->step(1);
  array->step(1);
  const double a = mc_test::diag(*fused, "estimate"), b = mc_test::diag(*array, "estimate");
  const double se = std::hypot(mc_test::diag(*fused, "std_error"), mc_test::diag(*array, "std_error"));
  EXPECT_LT(std::fabs(a - b), 4 * se) << a << " vs " << b;
  EXPECT_LT(std::fabs(a - M_PI), 4 * mc_test::diag(*fused, "std_error"));
  EXPECT_LT(std::fabs(b - M_PI), 4 * mc_test::diag(*array, "std_error"));
}

TEST(McGpuVsCpu, IdenticalCounts) {
  SIM_REQUIRE_GPU();
  auto gpu = Context::create("cuda"), cpu = Context::create("cpu");
  for (int dim : {2, 3, 4, 10}) {
    McQuery q{424242, 7, (std::uint64_t(1) << 36) + 3, 3000001, dim};
    EXPECT_EQ(mc_count_in_ball(gpu, q), mc_count_in_ball(cpu, q)) << "dim " << dim;
  }
}
