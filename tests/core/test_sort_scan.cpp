// sort, argsort and cumsum on every backend against std::stable_sort and a serial running
// sum: odd lengths, 0 and 1 elements, ties, negative values, NaN, strided views; the same
// along every axis of matrices and 3-D arrays, line by line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "core/array/expr.hpp"
#include "core/kernels/scan.hpp"
#include "core/array/slicing.hpp"
#include "core/kernels/sort.hpp"
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

namespace {
/// Keys whose bytes other than those set in `varying` (bit b: byte b) are one fixed value (the
/// varying ones take 5 values), so a radix sort skips the digits where no key differs.
template <class U>
std::vector<U> keys_varying_in(unsigned varying, index_t n) {
  std::vector<U> v(static_cast<std::size_t>(n));
  U state = U(0x9e3779b97f4a7c15ull);
  for (index_t i = 0; i < n; ++i) {
    state = U(state * U(6364136223846793005ull) + U(1442695040888963407ull));
    const U r = U(state ^ (state >> 29)), fixed = U(0xa5c3a5c3a5c3a5c3ull);
    U k = 0;
    for (unsigned b = 0; b < sizeof(U); ++b) {
      const U byte = (varying >> b) & 1u ? U((r >> (8 * ((b * 3) % sizeof(U)))) & 0xff) % 5 : U((fixed >> (8 * b)) & 0xff);
      k |= U(byte << (8 * b));
    }
    v[i] = k;  // (% 5: many ties, so a wrong order of equal keys shows in argsort)
  }
  return v;
}
template <class U>
void check_sort_of(const Context& ctx, const std::vector<U>& h, const std::string& what) {
  const index_t n = index_t(h.size());
  auto x = Array<U, 1>::from_host(ctx, extents(n), h);
  auto ref = h;
  std::sort(ref.begin(), ref.end());
  ASSERT_EQ(sort(x).to_host(), ref) << what;
  std::vector<std::int64_t> ri(h.size());
  std::iota(ri.begin(), ri.end(), 0);
  std::stable_sort(ri.begin(), ri.end(), [&](std::int64_t a, std::int64_t b) { return h[a] < h[b]; });
  ASSERT_EQ(argsort(x).to_host(), ri) << what;
}
}  // namespace

// The cpu radix sort makes one pass per digit in which keys differ (11-bit digits of 32-bit
// keys: 0 to 3 passes; bytes of 64-bit keys: 0 to 8): odd and even numbers of buffered passes,
// the first pass straight from the input, the last straight into the output, on one chunk
// (n < 65536) and on uneven chunks of the pool.
TYPED_TEST(SortScanTest, SortWhateverBytesDiffer) {
  for (index_t n : {1, 2, 1000, 70001}) {
    for (unsigned varying : {0u, 1u, 4u, 5u, 8u, 11u, 14u, 15u})
      check_sort_of(this->ctx, keys_varying_in<std::uint32_t>(varying, n), "uint32 varying " + std::to_string(varying) + " n " + std::to_string(n));
    for (unsigned varying : {0u, 0x80u, 0x81u, 0x15u, 0x55u, 0x7fu, 0xffu})
      check_sort_of(this->ctx, keys_varying_in<std::uint64_t>(varying, n), "uint64 varying " + std::to_string(varying) + " n " + std::to_string(n));
  }
  // floats: all equal (no pass), and the zeros of both signs together (-0.0 == +0.0: their
  // order is unspecified, as in NumPy; CUB keeps them in input order, the cpu radix puts -0.0
  // first), every -0.0 kept, NaN last, across chunks
  for (index_t n : {5, 70001}) {
    check_sort_of(this->ctx, std::vector<float>(static_cast<std::size_t>(n), 1.5f), "equal floats");
    std::vector<double> h(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) h[i] = (i % 3 == 0) ? -0.0 : (i % 3 == 1 ? 0.0 : -2.0 + double(i % 7));
    h[1] = std::numeric_limits<double>::quiet_NaN();
    auto s = sort(Array<double, 1>::from_host(this->ctx, extents(n), h)).to_host();
    auto negative_zero = [](double v) { return v == 0 && std::signbit(v); };
    const index_t zeros = std::count(h.begin(), h.end(), 0.0), below = std::count_if(h.begin(), h.end(), [](double v) { return v < 0; });
    for (index_t i = below; i < below + zeros; ++i) ASSERT_EQ(s[i], 0.0) << i;
    if (below + zeros < n - 1) ASSERT_GT(s[below + zeros], 0.0) << below + zeros;  // (the NaN is last)
    ASSERT_EQ(std::count_if(s.begin(), s.end(), negative_zero), std::count_if(h.begin(), h.end(), negative_zero));
    ASSERT_TRUE(std::isnan(s.back()));
  }
}

// sort from a strided view long enough for several chunks; on the cpu also in place (the
// input and the output the same memory: CUB does not promise that on the GPU)
TYPED_TEST(SortScanTest, SortStridedAndInPlace) {
  const index_t n = 70001;
  auto h = mixed<float>(3 * n);
  auto big = Array<float, 1>::from_host(this->ctx, extents(3 * n), h);
  View<const float, 1> v = big.view();
  v.shape.n[0] = n, v.stride[0] = 3;
  std::vector<float> ref;
  for (index_t i = 0; i < n; ++i) ref.push_back(h[3 * i]);
  auto idx = Array<std::int64_t, 1>::zeros(this->ctx, extents(n));
  argsort<float>(this->ctx, v, idx.view());
  std::vector<std::int64_t> ri(static_cast<std::size_t>(n));
  std::iota(ri.begin(), ri.end(), 0);
  std::stable_sort(ri.begin(), ri.end(), [&](std::int64_t a, std::int64_t b) { return ref[a] < ref[b]; });
  ASSERT_EQ(idx.to_host(), ri);
  std::sort(ref.begin(), ref.end());
  Array<float, 1> out(this->ctx, extents(n));
  sort<float>(this->ctx, v, out.view());
  ASSERT_EQ(out.to_host(), ref);
  if (this->ctx.is_cuda()) return;
  for (index_t m : {index_t(1000), n})
    for (unsigned varying : {1u, 3u, 7u, 15u}) {  // 1 to 4 passes: the first reads the input, the last writes the output
      auto hm = keys_varying_in<std::uint32_t>(varying, m);
      auto a = Array<std::uint32_t, 1>::from_host(this->ctx, extents(m), hm);
      sort<std::uint32_t>(this->ctx, a.view(), a.view());
      std::sort(hm.begin(), hm.end());
      ASSERT_EQ(a.to_host(), hm) << m << " varying " << varying;
    }
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

// ---- along an axis (NumPy's axis=): every line against a host reference on the same line
namespace {
/// The lines of a dense row-major host array of shape s along axis: f(line) replaces each.
template <class Out, class T, int R, class F>
std::vector<Out> by_lines(const std::vector<T>& h, const Extents<R>& s, int axis, F f) {
  index_t st[R];
  row_major_strides(s, st);
  std::vector<Out> r(h.size());
  const index_t len = s.n[axis], lines = len ? s.size() / len : 0;
  for (index_t l = 0; l < lines; ++l) {
    index_t base = 0, rest = l;  // the line's first element: l over the other dimensions
    for (int d = R - 1; d >= 0; --d)
      if (d != axis) base += (rest % s.n[d]) * st[d], rest /= s.n[d];
    std::vector<T> line(static_cast<std::size_t>(len));
    for (index_t m = 0; m < len; ++m) line[m] = h[base + m * st[axis]];
    auto out = f(line);
    for (index_t m = 0; m < len; ++m) r[base + m * st[axis]] = out[m];
  }
  return r;
}
template <class T>
std::vector<T> sorted(std::vector<T> v) {
  std::stable_sort(v.begin(), v.end(), [](T a, T b) { return a < b || (a == a && b != b); });  // NaN last
  return v;
}
template <class T>
std::vector<std::int64_t> order(const std::vector<T>& v) {
  std::vector<std::int64_t> i(v.size());
  std::iota(i.begin(), i.end(), 0);
  std::stable_sort(i.begin(), i.end(), [&](std::int64_t a, std::int64_t b) { return v[a] < v[b] || (v[a] == v[a] && v[b] != v[b]); });
  return i;
}
template <class S, class T>
std::vector<S> running(const std::vector<T>& v) {
  std::vector<S> r(v.size());
  S s = 0;
  for (std::size_t m = 0; m < v.size(); ++m) r[m] = s += S(v[m]);
  return r;
}
template <class T>
bool same(T a, T b) { return a == b || (a != a && b != b); }

/// sort, argsort and cumsum of x along every axis (also as a negative axis) against by_lines.
template <class T, int R>
void check_axes(const Context& ctx, const Extents<R>& s) {
  using S = sum_t<T>;
  std::vector<T> h = mixed<T>(s.size());  // many ties, negative values for signed types
  if constexpr (std::is_floating_point<T>::value)
    if (s.size() > 3) h[2] = std::numeric_limits<T>::quiet_NaN();  // NaN sorts last in its line
  auto x = Array<T, R>::from_host(ctx, s, h);
  for (int axis = -R; axis < R; ++axis) {
    const int a = axis < 0 ? axis + R : axis;
    auto so = sort(x, axis).to_host();
    auto rs = by_lines<T>(h, s, a, [](const std::vector<T>& l) { return sorted(l); });
    for (std::size_t t = 0; t < h.size(); ++t) ASSERT_TRUE(same(so[t], rs[t])) << to_string(s) << " axis " << axis << " at " << t;
    ASSERT_EQ(argsort(x, axis).to_host(), by_lines<std::int64_t>(h, s, a, [](const std::vector<T>& l) { return order(l); }))
        << to_string(s) << " axis " << axis;
    if constexpr (!std::is_floating_point<T>::value) {  // integers: exact
      ASSERT_EQ(cumsum(x, axis).to_host(), by_lines<S>(h, s, a, [](const std::vector<T>& l) { return running<S>(l); }))
          << to_string(s) << " axis " << axis;
    }
  }
}
}  // namespace

TYPED_TEST(SortScanTest, AlongAxesOfMatricesAndCubes) {
  // empty, single elements, one line, odd shapes; both GPU scan paths (by key for few or
  // contiguous lines, a thread per line for many strided lines: (9, 2500) along axis 0)
  for (auto s : {extents(0, 5), extents(5, 0), extents(1, 1), extents(1, 9), extents(9, 1), extents(3, 5), extents(33, 17),
                 extents(65, 300), extents(9, 2500), extents(3, 12001)}) {
    check_axes<float>(this->ctx, s);
    check_axes<std::int32_t>(this->ctx, s);
  }
  for (auto s : {extents(0, 2, 3), extents(1, 1, 1), extents(4, 5, 6), extents(3, 1, 7), extents(2, 33, 65), extents(3, 40, 700)}) {
    check_axes<double>(this->ctx, s);
    check_axes<std::uint32_t>(this->ctx, s);
  }
  check_axes<std::int64_t>(this->ctx, extents(17, 31));
  auto m = Array<float, 2>::zeros(this->ctx, extents(2, 3));
  EXPECT_THROW(sort(m, 2), ShapeError);
  EXPECT_THROW(cumsum(m, -3), ShapeError);
  EXPECT_EQ(sort(m).shape(), m.shape());  // np.sort(M): the last axis
}

TYPED_TEST(SortScanTest, AlongAxesFloatSumsAndStridedViews) {
  // float running sums: each line within rounding of the serial sum (any combination order)
  const index_t r = 70, c = 3001;
  std::vector<double> h(r * c);
  for (index_t t = 0; t < r * c; ++t) h[t] = std::sin(0.01 * double(t)) + 0.25;
  auto x = Array<double, 2>::from_host(this->ctx, extents(r, c), h);
  for (int axis : {0, 1}) {
    auto got = cumsum(x, axis).to_host();
    auto ref = by_lines<double>(h, extents(r, c), axis, [](const std::vector<double>& l) { return running<double>(l); });
    for (index_t t = 0; t < r * c; ++t) ASSERT_NEAR(got[t], ref[t], 1e-10 * (1 + std::fabs(ref[t]))) << axis << " " << t;
  }
  // a transposed (strided) input, into a transposed output: sort along axis 1 of M.T is
  // sorting the columns of M
  auto hm = mixed<std::int32_t>(12 * 7);
  auto M = Array<std::int32_t, 2>::from_host(this->ctx, extents(12, 7), hm);
  auto out = Array<std::int32_t, 2>::zeros(this->ctx, extents(12, 7));
  sort<std::int32_t, 2>(this->ctx, transposed(M), 1, transposed(out));
  EXPECT_EQ(out.to_host(), sort(M, 0).to_host());
  auto idx = Array<std::int64_t, 2>::zeros(this->ctx, extents(7, 12));
  argsort<std::int32_t, 2>(this->ctx, transposed(M), -1, idx.view());
  std::vector<std::int32_t> hmt(84);
  for (index_t i = 0; i < 12; ++i)
    for (index_t j = 0; j < 7; ++j) hmt[j * 12 + i] = hm[i * 7 + j];
  EXPECT_EQ(idx.to_host(), by_lines<std::int64_t>(hmt, extents(7, 12), 1, [](const std::vector<std::int32_t>& l) { return order(l); }));
  // a slice (rows 2..9, every column), cumsum along rows into a slice of a larger output
  auto big = Array<std::int64_t, 2>::zeros(this->ctx, extents(12, 9));
  View<std::int64_t, 2> dst = big.view();
  dst.shape = extents(8, 7);
  View<const std::int32_t, 2> src = M.view();
  src.ptr += 2 * 7, src.shape = extents(8, 7);
  cumsum<std::int32_t, 2>(this->ctx, src, 1, dst);
  auto hb = big.to_host();
  for (index_t i = 0; i < 8; ++i) {
    std::int64_t sum = 0;
    for (index_t j = 0; j < 7; ++j) ASSERT_EQ(hb[i * 9 + j], sum += hm[(i + 2) * 7 + j]) << i << "," << j;
    ASSERT_EQ(hb[i * 9 + 7], 0);
  }
  // no axis: the flattened running sum (np.cumsum(M))
  auto flat = cumsum(M).to_host();
  ASSERT_EQ(flat.size(), 84u);
  EXPECT_EQ(flat.back(), std::accumulate(hm.begin(), hm.end(), std::int64_t(0)));
}

// a[mask] (np.extract) and np.flatnonzero on every backend: in row-major order, from strided
// views too, with no element or every element selected.
TYPED_TEST(SortScanTest, ExtractAndFlatnonzeroByMask) {
  const index_t r = 301, c = 77;
  std::vector<double> h(r * c);
  for (index_t t = 0; t < r * c; ++t) h[t] = std::sin(0.7 * double(t));
  auto a = Array<double, 2>::from_host(this->ctx, extents(r, c), h);
  Array<bool, 2> m(this->ctx, a.shape());
  m = a > 0.5;
  std::vector<double> ref;
  std::vector<std::int64_t> where;
  for (index_t t = 0; t < r * c; ++t)
    if (h[t] > 0.5) ref.push_back(h[t]), where.push_back(t);
  EXPECT_EQ(extract(m, a).to_host(), ref);
  EXPECT_EQ(flatnonzero(m).to_host(), where);
  // strided: the transposed mask picks from the transposed array, column by column
  auto sel = extract<double, 2>(this->ctx, transposed(m), transposed(a)).to_host();
  std::vector<double> reft;
  for (index_t j = 0; j < c; ++j)
    for (index_t i = 0; i < r; ++i)
      if (h[i * c + j] > 0.5) reft.push_back(h[i * c + j]);
  EXPECT_EQ(sel, reft);
  m = a > 2.0;
  EXPECT_EQ(extract(m, a).size(), 0);
  m = a < 2.0;
  EXPECT_EQ(extract(m, a).to_host(), h);
  auto e = Array<bool, 1>::zeros(this->ctx, extents(0));
  EXPECT_EQ(flatnonzero(e).size(), 0);
  auto wrong = Array<double, 2>::zeros(this->ctx, extents(c, r));
  EXPECT_THROW(extract(m, wrong), ShapeError);
}
