// sort, argsort and cumsum on every backend against std::stable_sort and a serial running
// sum: odd lengths, 0 and 1 elements, ties, negative values, NaN, strided views.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "core/scan.hpp"
#include "core/sort.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

template <class B>
class SortScanTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(SortScanTest);

namespace {
template <class T>
std::vector<T> mixed(index_t n) {  // many ties, negative values for signed types
  std::vector<T> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    const double x = std::sin(0.9 * double(i)) * 1000.0;
    v[i] = std::is_signed<T>::value ? T(std::floor(x / 7)) : T(std::fabs(std::floor(x / 7)));
  }
  return v;
}
template <class T>
void check_sort(const Context& ctx, index_t n) {
  auto h = mixed<T>(n);
  auto x = Array<T, 1>::from_host(ctx, extents(n), h);
  auto s = sort(x).to_host();
  auto ref = h;
  std::sort(ref.begin(), ref.end());
  ASSERT_EQ(s, ref) << "sort n=" << n;
  auto idx = argsort(x).to_host();
  std::vector<std::int64_t> ri(static_cast<std::size_t>(n));
  std::iota(ri.begin(), ri.end(), 0);
  std::stable_sort(ri.begin(), ri.end(), [&](std::int64_t a, std::int64_t b) { return h[a] < h[b]; });
  ASSERT_EQ(idx, ri) << "argsort n=" << n;
}
}  // namespace

TYPED_TEST(SortScanTest, SortAndStableArgsortAllTypes) {
  for (index_t n : {0, 1, 2, 3, 1000, 70001, 300007}) {
    check_sort<float>(this->ctx, n);
    check_sort<double>(this->ctx, n);
    check_sort<std::int32_t>(this->ctx, n);
    check_sort<std::int64_t>(this->ctx, n);
    check_sort<std::uint32_t>(this->ctx, n);
  }
}

TYPED_TEST(SortScanTest, NaNSortsLastAndStridedInput) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto x = Array<double, 1>::from_host(this->ctx, extents(5), {3, nan, -1, 2, -5});
  auto s = sort(x).to_host();
  EXPECT_EQ(std::vector<double>(s.begin(), s.begin() + 4), (std::vector<double>{-5, -1, 2, 3}));
  EXPECT_TRUE(std::isnan(s[4]));
  EXPECT_EQ(argsort(x).to_host(), (std::vector<std::int64_t>{4, 2, 3, 0, 1}));
  // every third element of a vector, into a strided output
  auto big = Array<float, 1>::from_host(this->ctx, extents(30), mixed<float>(30));
  auto hb = big.to_host();
  View<const float, 1> v = big.view();
  v.shape.n[0] = 10, v.stride[0] = 3;
  auto out = Array<float, 1>::zeros(this->ctx, extents(20));
  View<float, 1> o = out.view();
  o.shape.n[0] = 10, o.stride[0] = 2;
  sort<float>(this->ctx, v, o);
  std::vector<float> ref;
  for (int i = 0; i < 10; ++i) ref.push_back(hb[3 * i]);
  std::sort(ref.begin(), ref.end());
  auto ho = out.to_host();
  for (int i = 0; i < 10; ++i) ASSERT_EQ(ho[2 * i], ref[i]);
  EXPECT_EQ(ho[1], 0.0f);
}

TYPED_TEST(SortScanTest, CumsumAgainstSerialSum) {
  for (index_t n : {0, 1, 2, 1000, 100003, 1 << 20}) {
    std::vector<double> h(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) h[i] = std::sin(0.1 * double(i)) + 0.5;
    auto c = cumsum(Array<double, 1>::from_host(this->ctx, extents(n), h)).to_host();
    ASSERT_EQ(index_t(c.size()), n);
    double s = 0;
    for (index_t i = 0; i < n; ++i) {
      s += h[i];
      ASSERT_NEAR(c[i], s, 1e-12 * (1 + std::fabs(s)) * std::log2(2.0 + i)) << "n=" << n << " i=" << i;
    }
    std::vector<std::int32_t> hi(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) hi[i] = std::int32_t(i % 2000) * 1000000;  // overflows 32 bits
    auto ci = cumsum(Array<std::int32_t, 1>::from_host(this->ctx, extents(n), hi));
    static_assert(std::is_same<decltype(ci), Array<std::int64_t, 1>>::value, "integer running sums are 64-bit");
    auto hci = ci.to_host();
    std::int64_t si = 0;
    for (index_t i = 0; i < n; ++i) {
      si += hi[i];
      ASSERT_EQ(hci[i], si) << i;
    }
  }
  std::vector<float> hf(50001, 0.25f);
  auto cf = cumsum(Array<float, 1>::from_host(this->ctx, extents(50001), hf)).to_host();
  EXPECT_EQ(cf.back(), 0.25f * 50001);  // exact in float: multiples of 1/4 below 2^24
  // a strided input
  auto base = Array<double, 1>::from_host(this->ctx, extents(9), {1, 100, 2, 100, 3, 100, 4, 100, 5});
  View<const double, 1> v = base.view();
  v.shape.n[0] = 5, v.stride[0] = 2;
  Array<double, 1> out(this->ctx, extents(5));
  cumsum<double>(this->ctx, v, out.view());
  EXPECT_EQ(out.to_host(), (std::vector<double>{1, 3, 6, 10, 15}));
}
