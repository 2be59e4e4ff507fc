// Assignments whose source shares memory with the destination give NumPy's answer (the
// right-hand side as it was before any write) on every backend: shifts both ways, the
// in-place transpose, reversed and strided slices, the in-place stencil, broadcasts of a
// row of the destination, and a random sweep of slice pairs against a host reference.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/array/expr.hpp"
#include "core/array/slicing.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

template <class B>
class ExprOverlapTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(ExprOverlapTest);

namespace {
std::vector<double> iota_host(index_t n) {
  std::vector<double> h(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) h[i] = double(i) * 0.5 + 1.0;
  return h;
}
/// The indices NumPy's lo:hi:step selects in a dimension of n (explicit bounds only).
std::vector<index_t> numpy_indices(index_t lo, index_t hi, index_t step, index_t n) {
  if (lo < 0) lo += n;
  if (hi < 0) hi += n;
  std::vector<index_t> out;
  if (step > 0)
    for (index_t i = lo; i < hi; i += step) out.push_back(i);
  else
    for (index_t i = lo; i > hi; i += step) out.push_back(i);
  return out;
}
}  // namespace

TYPED_TEST(ExprOverlapTest, ShiftsBothWays) {
  const index_t n = 100003;
  const auto h = iota_host(n);
  auto a = Array<double, 1>::from_host(this->ctx, extents(n), h);
  assign(this->ctx, slice(a, Range{1, none}), slice(a, Range{0, -1}));  // a[1:] = a[:-1]
  auto r = a.to_host();
  ASSERT_EQ(r[0], h[0]);
  for (index_t i = 1; i < n; ++i) ASSERT_EQ(r[i], h[i - 1]) << i;
  a.copy_from_host(h);
  assign(this->ctx, slice(a, Range{0, -1}), slice(a, Range{1, none}) * 2.0);  // a[:-1] = 2 * a[1:]
  r = a.to_host();
  for (index_t i = 0; i + 1 < n; ++i) ASSERT_EQ(r[i], 2 * h[i + 1]) << i;
  ASSERT_EQ(r[n - 1], h[n - 1]);
}

TYPED_TEST(ExprOverlapTest, InPlaceTransposeAndReverse) {
  const index_t m = 257;
  const auto h = iota_host(m * m);
  auto M = Array<double, 2>::from_host(this->ctx, extents(m, m), h);
  assign(this->ctx, M.view(), transposed(M));  // M = M.T
  auto r = M.to_host();
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < m; ++j) ASSERT_EQ(r[i * m + j], h[j * m + i]) << i << "," << j;
  M.copy_from_host(h);
  M = transposed(M) + M;  // the symmetric part, twice
  r = M.to_host();
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < m; ++j) ASSERT_EQ(r[i * m + j], h[j * m + i] + h[i * m + j]);
  const index_t n = 5001;
  auto a = Array<double, 1>::from_host(this->ctx, extents(n), iota_host(n));
  assign(this->ctx, a.view(), slice(a, Range{none, none, -1}));  // a = a[::-1]
  auto ra = a.to_host();
  const auto ha = iota_host(n);
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(ra[i], ha[n - 1 - i]) << i;
  a.copy_from_host(ha);
  a += slice(a, Range{none, none, -1});  // a += a[::-1]
  ra = a.to_host();
  for (index_t i = 0; i < n; ++i) ASSERT_EQ(ra[i], ha[i] + ha[n - 1 - i]) << i;
}

TYPED_TEST(ExprOverlapTest, StridedSlices) {
  const index_t n = 4000;
  const auto h = iota_host(n);
  auto a = Array<double, 1>::from_host(this->ctx, extents(n), h);
  // a[2::2] = a[:-2:2] + a[1::2][:-1]: every even element from the ones before it
  assign(this->ctx, slice(a, Range{2, none, 2}), slice(a, Range{0, -2, 2}) + slice(a, Range{1, -2, 2}));
  auto r = a.to_host();
  for (index_t i = 0; i < n; ++i) {
    const double e = (i % 2 == 0 && i >= 2) ? h[i - 2] + h[i - 1] : h[i];
    ASSERT_EQ(r[i], e) << i;
  }
}

TYPED_TEST(ExprOverlapTest, InPlaceStencilMatchesNumPy) {
  const index_t n = 3001;
  std::vector<double> h(n, 0.0);
  for (index_t i = n / 3; i < 2 * n / 3; ++i) h[i] = 100.0;
  auto u = Array<double, 1>::from_host(this->ctx, extents(n), h);
  for (int it = 0; it < 10; ++it) {
    // u[1:-1] = u[1:-1] + 0.25 * (u[:-2] - 2 * u[1:-1] + u[2:]), written on one array
    assign(this->ctx, slice(u, Range{1, -1}),
           slice(u, Range{1, -1}) + 0.25 * (slice(u, Range{0, -2}) - 2.0 * slice(u, Range{1, -1}) + slice(u, Range{2, none})));
    std::vector<double> next = h;
    for (index_t i = 1; i + 1 < n; ++i) next[i] = h[i] + 0.25 * (h[i - 1] - 2.0 * h[i] + h[i + 1]);
    h = next;
  }
  const auto r = u.to_host();
  for (index_t i = 0; i < n; ++i) ASSERT_NEAR(r[i], h[i], 1e-12) << i;
}

TYPED_TEST(ExprOverlapTest, BroadcastOfARowOfTheDestination) {
  const index_t rows = 300, cols = 301;
  const auto h = iota_host(rows * cols);
  auto M = Array<double, 2>::from_host(this->ctx, extents(rows, cols), h);
  M = M - row(M, 0);  // M -= M[0]: every row against the original first row
  auto r = M.to_host();
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) ASSERT_EQ(r[i * cols + j], h[i * cols + j] - h[j]) << i << "," << j;
  M.copy_from_host(h);
  M = M / as_column(column(M, 0));  // M /= M[:, :1]
  r = M.to_host();
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) ASSERT_EQ(r[i * cols + j], h[i * cols + j] / h[i * cols]) << i << "," << j;
  // the same array element for element stays one pass and right: x = x * 2 + 1
  M.copy_from_host(h);
  M = M * 2.0 + 1.0;
  r = M.to_host();
  for (index_t t = 0; t < rows * cols; ++t) ASSERT_EQ(r[t], h[t] * 2 + 1);
}

TYPED_TEST(ExprOverlapTest, RandomSlicePairsAgainstHostReference) {
  const index_t n = 263;
  std::mt19937 rng(35);
  auto pick = [&](index_t a, index_t b) { return std::uniform_int_distribution<index_t>(a, b)(rng); };
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    index_t step = pick(1, 4) * (pick(0, 1) ? 1 : -1);
    const index_t slo = step > 0 ? pick(-n, n) : pick(-n, n - 1), shi = pick(-n, n);
    const auto src = numpy_indices(slo, shi, step, n);
    if (src.empty()) continue;
    // a destination slice of the same length, chosen at random among those that fit
    const index_t dstep = pick(1, 4) * (pick(0, 1) ? 1 : -1);
    const index_t span = (index_t(src.size()) - 1) * (dstep > 0 ? dstep : -dstep);
    if (span >= n) continue;
    const index_t first = dstep > 0 ? pick(0, n - 1 - span) : pick(span, n - 1);
    const index_t dlo = first - (pick(0, 1) ? n : 0);  // sometimes written from the end
    const index_t dhi = dstep > 0 ? first + span + 1 : (first - span - 1 < 0 ? none : first - span - 1);
    std::vector<double> h = iota_host(n), want = h;
    const auto dst = dhi == none ? numpy_indices(dlo, -n - 1, dstep, n) : numpy_indices(dlo, dhi, dstep, n);
    ASSERT_EQ(dst.size(), src.size());
    for (std::size_t t = 0; t < src.size(); ++t) want[dst[t]] = 3.0 * h[src[t]] - 1.0;
    auto a = Array<double, 1>::from_host(this->ctx, extents(n), h);
    assign(this->ctx, slice(a, Range{dlo, dhi, dstep}), 3.0 * slice(a, Range{slo, shi, step}) - 1.0);
    ASSERT_EQ(a.to_host(), want) << "a[" << dlo << ":" << dhi << ":" << dstep << "] = 3 * a[" << slo << ":" << shi
                                 << ":" << step << "] - 1";
    ++checked;
  }
  EXPECT_GT(checked, 100);
  // matrices: a random block written from a random (maybe transposed) block of the same array
  const index_t m = 40;
  for (int trial = 0; trial < 100; ++trial) {
    const index_t r0 = pick(1, m), c0 = pick(1, m);
    const bool t = pick(0, 1);
    const index_t sr = t ? c0 : r0, sc = t ? r0 : c0;
    const index_t si = pick(0, m - sr), sj = pick(0, m - sc), di = pick(0, m - r0), dj = pick(0, m - c0);
    std::vector<double> h = iota_host(m * m), want = h;
    for (index_t i = 0; i < r0; ++i)
      for (index_t j = 0; j < c0; ++j)
        want[(di + i) * m + dj + j] = t ? h[(si + j) * m + sj + i] + 1.0 : h[(si + i) * m + sj + j] + 1.0;
    auto M = Array<double, 2>::from_host(this->ctx, extents(m, m), h);
    auto s = slice(M, Range{si, si + sr}, Range{sj, sj + sc});
    auto d = slice(M, Range{di, di + r0}, Range{dj, dj + c0});
    if (t) assign(this->ctx, d, transposed(s) + 1.0);
    else assign(this->ctx, d, s + 1.0);
    ASSERT_EQ(M.to_host(), want) << "trial " << trial;
  }
}

TYPED_TEST(ExprOverlapTest, NegativeAndOpenSliceBounds) {
  auto a = Array<double, 1>::from_host(this->ctx, extents(10), iota_host(10));
  EXPECT_EQ(slice(a, Range{1, -1}).shape.n[0], 8);
  EXPECT_EQ(slice(a, whole).shape.n[0], 10);
  EXPECT_EQ(slice(a, Range{-3, none}).shape.n[0], 3);
  EXPECT_EQ(slice(a, Range{none, none, -2}).shape.n[0], 5);
  EXPECT_EQ(sum(this->ctx, slice(a, Range{-3, none})), 1.0 + 0.5 * (7 + 8 + 9) + 2.0);
  EXPECT_EQ(sum(this->ctx, slice(a, Range{none, none, -3})), 4 * 1.0 + 0.5 * (9 + 6 + 3 + 0));
  EXPECT_THROW(slice(a, Range{0, 11}), ShapeError);
  EXPECT_THROW(slice(a, Range{-11, 2}), ShapeError);
  EXPECT_THROW(slice(a, Range{0, 5, 0}), ShapeError);
}
