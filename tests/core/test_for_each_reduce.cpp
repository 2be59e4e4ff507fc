// sim::ForEachReduce / ForEachSum: the function runs at every point (its writes land), the
// values it returns are reduced into memory kernels read, the same bits on every run, then()
// runs once after the result is written; 1D, 2D and 3D boxes, rows shorter and longer than a
// block, a box with a single point, and the maximum of a pair of values.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/array/array.hpp"
#include "core/kernels/for_each_reduce.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

namespace {

/// a(i, j) = 2 b(i, j); returns b(i, j)^2 (a pass that writes and a value to sum).
struct DoubleAndSquare {
  View<double, 2> a;
  View<const double, 2> b;
  SIM_INLINE double operator()(index_t i, index_t j) const {
    a(i, j) = 2 * b(i, j);
    return b(i, j) * b(i, j);
  }
};

/// Returns i + 1 (1D and 3D boxes: k runs along the contiguous dimension).
struct Index1D {
  SIM_INLINE double operator()(index_t i) const { return double(i + 1); }
};
struct Index3D {
  index_t n1, n2;
  SIM_INLINE double operator()(index_t i, index_t j, index_t k) const { return double((i * n1 + j) * n2 + k + 1); }
};

/// out[1] = 10 * out[0]: reads what the sum wrote (a then()).
struct TenTimes {
  double* out;
  SIM_INLINE void operator()() const { out[1] = 10 * out[0]; }
};

/// Two maxima in one pass.
struct Pair {
  double a, b;
};
struct LargerOfEach {
  SIM_INLINE Pair operator()(const Pair& x, const Pair& y) const { return {x.a < y.a ? y.a : x.a, x.b < y.b ? y.b : x.b}; }
};
struct AbsPair {
  View<const double, 2> b;
  SIM_INLINE Pair operator()(index_t i, index_t j) const {
    const double v = b(i, j);
    return {v < 0 ? -v : v, double(i)};
  }
};

template <class B>
class ForEachSumTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(ForEachSumTest);

TYPED_TEST(ForEachSumTest, SumsWhatTheFunctionReturnsAfterItsWrites) {
  for (const index_t n0 : {1, 3, 300}) {
    for (const index_t n1 : {1, 17, 300, 1000}) {
      Array<double, 2> a(this->ctx, Extents<2>{{n0, n1}}), b(this->ctx, Extents<2>{{n0, n1}});
      std::vector<double> hb(static_cast<std::size_t>(n0 * n1));
      double want = 0;
      for (std::size_t k = 0; k < hb.size(); ++k) hb[k] = std::sin(0.37 * double(k)) + 0.5, want += hb[k] * hb[k];
      b.copy_from_host(hb);
      Array<double, 1> out(this->ctx, Extents<1>{{2}});
      out.fill(-1.0);
      ForEachSum sum(this->ctx);
      const Box<2> box{{0, 0}, {n0, n1}};
      sum.queue("test::double_and_square", box, DoubleAndSquare{a.view(), b.view()}, out.data(), TenTimes{out.data()});
      const std::vector<double> first = out.to_host();
      EXPECT_NEAR(first[0], want, 1e-12 * want) << n0 << " x " << n1;
      EXPECT_EQ(first[1], 10 * first[0]) << "then() ran after the sum was written";
      const std::vector<double> ha = a.to_host();
      for (std::size_t k = 0; k < ha.size(); ++k) ASSERT_EQ(ha[k], 2 * hb[k]) << "the function's writes, at " << k;
      sum.queue("test::double_and_square", box, DoubleAndSquare{a.view(), b.view()}, out.data());
      EXPECT_EQ(out.to_host()[0], first[0]) << "the same bits on a second run (" << n0 << " x " << n1 << ")";
    }
  }
}

TYPED_TEST(ForEachSumTest, OneAndThreeDimensionalBoxes) {
  Array<double, 1> out(this->ctx, Extents<1>{{1}});
  ForEachSum sum(this->ctx);
  for (const index_t n : {1, 255, 100000}) {
    sum.queue("test::index_1d", Box<1>{{0}, {n}}, Index1D{}, out.data());
    EXPECT_EQ(out.to_host()[0], double(n) * double(n + 1) / 2) << n;
  }
  const index_t n0 = 5, n1 = 7, n2 = 300, all = n0 * n1 * n2;
  sum.queue("test::index_3d", Box<3>{{0, 0, 0}, {n0, n1, n2}}, Index3D{n1, n2}, out.data());
  EXPECT_EQ(out.to_host()[0], double(all) * double(all + 1) / 2);
}

TYPED_TEST(ForEachSumTest, ReducesPairsWithAnyOp) {
  const index_t n0 = 129, n1 = 513;
  Array<double, 2> b(this->ctx, Extents<2>{{n0, n1}});
  std::vector<double> hb(static_cast<std::size_t>(n0 * n1));
  for (std::size_t k = 0; k < hb.size(); ++k) hb[k] = std::cos(0.11 * double(k)) * double(k % 97);
  hb[std::size_t(77 * n1 + 300)] = -1000.0;  // the largest |b|
  b.copy_from_host(hb);
  Array<double, 1> slot(this->ctx, Extents<1>{{2}});
  ForEachReduce<Pair, LargerOfEach> most(this->ctx, LargerOfEach{}, Pair{0.0, 0.0});
  Pair* out = reinterpret_cast<Pair*>(slot.data());
  most.queue("test::abs_pair", Box<2>{{0, 0}, {n0, n1}}, AbsPair{b.view()}, out);
  const std::vector<double> h = slot.to_host();
  const Pair got{h[0], h[1]};
  EXPECT_EQ(got.a, 1000.0);
  EXPECT_EQ(got.b, double(n0 - 1));
}

}  // namespace
