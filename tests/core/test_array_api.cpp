// The NumPy-style conveniences on every backend: broadcasting rows and columns in fused
// expressions, slices and scalar assignment, reshape, compound assignment, ones / arange /
// linspace / eye, tanh, floor, %, logical and / or / not, bool arrays as masks.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/array/creation.hpp"
#include "core/array/expr.hpp"
#include "core/kernels/scan.hpp"
#include "core/array/slicing.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

template <class B>
class ArrayApiTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(ArrayApiTest);

TYPED_TEST(ArrayApiTest, RowAndColumnBroadcastInFusedExpressions) {
  for (auto [r, c] : {std::array<index_t, 2>{1, 1}, {3, 5}, {17, 300}, {300, 17}}) {
    std::vector<double> hm(r * c), hrow(c), hcol(r);
    for (index_t i = 0; i < r * c; ++i) hm[i] = 0.5 * double(i % 13);
    for (index_t j = 0; j < c; ++j) hrow[j] = 100.0 + double(j);
    for (index_t i = 0; i < r; ++i) hcol[i] = -double(i);
    auto M = Array<double, 2>::from_host(this->ctx, extents(r, c), hm);
    auto row = Array<double, 1>::from_host(this->ctx, extents(c), hrow);
    auto col = Array<double, 1>::from_host(this->ctx, extents(r), hcol);
    Array<double, 2> out(this->ctx, M.shape());
    out = M + row;  // a vector next to a matrix is a row (NumPy's trailing alignment)
    auto h1 = out.to_host();
    out = 2 * M - as_row(row) * as_column(col);
    auto h2 = out.to_host();
    assign(this->ctx, out.view(), row);  // assigning a vector fills every row
    auto h3 = out.to_host();
    for (index_t i = 0; i < r; ++i)
      for (index_t j = 0; j < c; ++j) {
        ASSERT_EQ(h1[i * c + j], hm[i * c + j] + hrow[j]);
        ASSERT_EQ(h2[i * c + j], 2 * hm[i * c + j] - hrow[j] * hcol[i]);
        ASSERT_EQ(h3[i * c + j], hrow[j]);
      }
    EXPECT_NEAR(sim::sum(M - row), sim::sum(M) - r * sim::sum(row), 1e-9);  // reductions broadcast too
  }
  auto M = Array<double, 2>::zeros(this->ctx, extents(3, 4));
  auto wrong = Array<double, 1>::zeros(this->ctx, extents(3));
  Array<double, 2> out(this->ctx, M.shape());
  EXPECT_THROW(out = M + wrong, ShapeError);  // a row must match the columns
  EXPECT_NO_THROW(out = M + as_column(wrong));
}

TYPED_TEST(ArrayApiTest, SlicesRowsColumnsAndScalarAssignment) {
  auto a = Array<double, 2>::zeros(this->ctx, extents(6, 7));
  assign(this->ctx, slice(a, Range{1, 3}, Range{2, 6}), 5.0);  // a[1:3, 2:6] = 5
  assign(this->ctx, row(a, 5), 1);                              // a[5, :] = 1
  assign(this->ctx, column(a, 0), -2.0);                        // a[:, 0] = -2
  assign(this->ctx, diagonal(a), 9);                            // np.fill_diagonal(a, 9)
  auto h = a.to_host();
  for (index_t i = 0; i < 6; ++i)
    for (index_t j = 0; j < 7; ++j) {
      double e = 0;
      if (i >= 1 && i < 3 && j >= 2 && j < 6) e = 5;
      if (i == 5) e = 1;
      if (j == 0) e = -2;
      if (i == j) e = 9;
      ASSERT_EQ(h[i * 7 + j], e) << i << "," << j;
    }
  // expressions into slices, and slices in expressions
  auto b = Array<double, 2>::zeros(this->ctx, extents(6, 7));
  assign(this->ctx, slice(b, Range{0, 2}, Range{0, 7}), slice(a, Range{4, 6}, Range{0, 7}) * 2);
  auto hb = b.to_host();
  for (index_t j = 0; j < 7; ++j) ASSERT_EQ(hb[j], 2 * h[4 * 7 + j]);
  EXPECT_EQ(sim::sum(this->ctx, column(a, 0)), 9 - 2 * 5);
  EXPECT_THROW(slice(a, Range{0, 7}, Range{0, 1}), ShapeError);
  EXPECT_THROW(row(a, 6), ShapeError);
  // empty slice: nothing happens
  assign(this->ctx, slice(a, Range{2, 2}, Range{0, 7}), 100.0);
  EXPECT_EQ(a.to_host(), h);
}

TYPED_TEST(ArrayApiTest, ReshapeAndTransposedViews) {
  auto v = arange<std::int32_t>(this->ctx, 0, 12);
  auto m = reshape(v, extents(3, 4));  // shares memory
  Array<std::int32_t, 2> t(this->ctx, extents(4, 3));
  t = transposed(m) * 10;  // strided read in a fused expression
  auto ht = t.to_host();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) ASSERT_EQ(ht[i * 3 + j], 10 * (j * 4 + i));
  assign(this->ctx, m, m + 1);  // writes through the reshaped view
  EXPECT_EQ(v.to_host()[11], 12);
  EXPECT_THROW(reshape(v, extents(5, 2)), ShapeError);
  EXPECT_THROW(reshape(transposed(m), extents(12)), ShapeError);  // not contiguous
  EXPECT_EQ(ravel(m).shape.n[0], 12);
}

TYPED_TEST(ArrayApiTest, CompoundAssignmentTheCupyChain) {
  const index_t n = 1001;
  std::vector<double> h(n);
  for (index_t i = 0; i < n; ++i) h[i] = 0.001 * double(i) - 0.3;
  auto x = Array<double, 1>::from_host(this->ctx, extents(n), h);
  x *= 5;
  x *= x;
  x += x;
  auto y = Array<double, 1>::from_host(this->ctx, extents(n), h);
  x -= y;
  x /= 2;
  auto hx = x.to_host();
  for (index_t i = 0; i < n; ++i) ASSERT_NEAR(hx[i], ((h[i] * 5) * (h[i] * 5) * 2 - h[i]) / 2, 1e-15);
  auto k = arange<std::int64_t>(this->ctx, -7, 8);
  k %= 3;  // Python's sign rule: -7 % 3 == 2
  auto hk = k.to_host();
  for (std::int64_t i = -7; i < 8; ++i) ASSERT_EQ(hk[i + 7], ((i % 3) + 3) % 3);
}

TYPED_TEST(ArrayApiTest, CreationFunctions) {
  EXPECT_EQ(ones<float>(this->ctx, extents(2, 2)).to_host(), (std::vector<float>{1, 1, 1, 1}));
  EXPECT_EQ(arange<std::int32_t>(this->ctx, 5).to_host(), (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange<std::int32_t>(this->ctx, 10, 0, -3).to_host(), (std::vector<std::int32_t>{10, 7, 4, 1}));
  EXPECT_EQ(arange<double>(this->ctx, 0.0, 1.0, 0.25).to_host(), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(arange<double>(this->ctx, 1.0, 1.0).size(), 0);
  EXPECT_THROW(arange<double>(this->ctx, 0.0, 1.0, 0.0), Error);
  EXPECT_EQ(linspace<double>(this->ctx, 0.0, 1.0, 5).to_host(), (std::vector<double>{0, 0.25, 0.5, 0.75, 1.0}));
  EXPECT_EQ(linspace<double>(this->ctx, 0.0, 1.0, 4, false).to_host(), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(linspace<double>(this->ctx, 2.0, 3.0, 1).to_host(), (std::vector<double>{2.0}));
  EXPECT_EQ(linspace<double>(this->ctx, 2.0, 3.0, 0).size(), 0);
  auto l = linspace<float>(this->ctx, -1.0f, 0.3f, 1001).to_host();
  EXPECT_EQ(l.back(), 0.3f);
  EXPECT_NEAR(l[500], -0.35f, 1e-6f);
  EXPECT_EQ(eye<double>(this->ctx, 2, 3, 1).to_host(), (std::vector<double>{0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(eye<std::int32_t>(this->ctx, 3).to_host(), (std::vector<std::int32_t>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
}

TYPED_TEST(ArrayApiTest, TanhFloorModLogical) {
  std::vector<float> h = {-2.5f, -1.0f, -0.2f, 0.0f, 0.7f, 3.5f, 7.25f};
  const index_t n = index_t(h.size());
  auto x = Array<float, 1>::from_host(this->ctx, extents(n), h);
  Array<float, 1> r(this->ctx, extents(n));
  r = tanh(x);
  auto t = r.to_host();
  r = floor(x);
  auto f = r.to_host();
  r = x % 2.0f;
  auto m = r.to_host();
  r = (x > 0.0f) && (x < 5.0f);
  auto a = r.to_host();
  r = (x < -1.5f) || !(x < 7.0f);
  auto o = r.to_host();
  r = logical_not(x);
  auto z = r.to_host();
  for (index_t i = 0; i < n; ++i) {
    ASSERT_NEAR(t[i], std::tanh(h[i]), 1e-6f);
    ASSERT_EQ(f[i], std::floor(h[i]));
    float e = std::fmod(h[i], 2.0f);
    if (e != 0 && e < 0) e += 2.0f;
    ASSERT_NEAR(m[i], e, 1e-6f) << h[i];
    ASSERT_EQ(a[i], (h[i] > 0 && h[i] < 5) ? 1.0f : 0.0f);
    ASSERT_EQ(o[i], (h[i] < -1.5f || !(h[i] < 7)) ? 1.0f : 0.0f);
    ASSERT_EQ(z[i], h[i] == 0 ? 1.0f : 0.0f);
  }
  EXPECT_EQ(count(logical_and(x > -1.0f, x < 1.0f)), 3);
  auto k = Array<std::int32_t, 1>::from_host(this->ctx, extents(4), {7, -7, 7, 5});
  auto d = Array<std::int32_t, 1>::from_host(this->ctx, extents(4), {3, 3, -3, 0});
  Array<std::int32_t, 1> q(this->ctx, extents(4));
  q = k % d;  // integer % 0 gives 0 (NumPy gives 0 and warns), not a crash
  EXPECT_EQ(q.to_host(), (std::vector<std::int32_t>{1, 2, -2, 0}));
}

// Arrays of bool with NumPy's meaning: comparisons make masks, & | ^ ~ combine them, a mask
// selects (where), counts (count, sum), answers any / all, whole and along an axis.
TYPED_TEST(ArrayApiTest, BoolArraysAsMasks) {
  const index_t r = 37, c = 53;  // odd sizes: no vector width divides them
  std::vector<float> hx(r * c), hy(r * c);
  for (index_t t = 0; t < r * c; ++t) hx[t] = float(std::sin(0.37 * double(t))), hy[t] = float(t % 7) - 3.0f;
  auto x = Array<float, 2>::from_host(this->ctx, extents(r, c), hx);
  auto y = Array<float, 2>::from_host(this->ctx, extents(r, c), hy);
  Array<bool, 2> pos(this->ctx, x.shape()), m(this->ctx, x.shape());
  pos = x > 0.0f;                    // a comparison stored as a mask
  m = (x > 0.0f) & ~(y < 0.0f);      // NumPy's (x > 0) & ~(y < 0)
  auto hm = m.to_host();
  static_assert(std::is_same<decltype(hm), std::vector<bool>>::value, "a bool array comes back as vector<bool>");
  std::int64_t n_and = 0, n_pos = 0;
  for (index_t t = 0; t < r * c; ++t) {
    const bool e = hx[t] > 0 && !(hy[t] < 0);
    ASSERT_EQ(hm[t], e) << t;
    n_and += e, n_pos += hx[t] > 0;
  }
  EXPECT_EQ(count(m), n_and);
  EXPECT_EQ(sim::sum(m), n_and);  // the sum of a mask counts (int64, as NumPy)
  EXPECT_NEAR(mean(pos), double(n_pos) / double(r * c), 1e-12);
  // | and ^ and their compound forms on masks
  Array<bool, 2> o(this->ctx, x.shape());
  o = pos | (y == 0.0f);
  auto ho = o.to_host();
  o ^= pos;  // now exactly y == 0 where x <= 0
  auto hxo = o.to_host();
  for (index_t t = 0; t < r * c; ++t) {
    ASSERT_EQ(ho[t], hx[t] > 0 || hy[t] == 0);
    ASSERT_EQ(hxo[t], !(hx[t] > 0) && hy[t] == 0);
  }
  // selection with a mask: y[m] = 0 is where(m, 0, y); a mask times values keeps them
  Array<float, 2> z(this->ctx, x.shape());
  z = where(m, 0.0f, y);
  auto hz = z.to_host();
  z = m * x;
  auto hmx = z.to_host();
  for (index_t t = 0; t < r * c; ++t) {
    ASSERT_EQ(hz[t], hm[t] ? 0.0f : hy[t]);
    ASSERT_EQ(hmx[t], hm[t] ? hx[t] : 0.0f);
  }
  // any / all, whole and along each axis, against host loops
  EXPECT_TRUE(any(m));
  EXPECT_FALSE(all(m));
  EXPECT_TRUE(all(x < 2.0f));
  EXPECT_FALSE(any(x > 2.0f));
  auto cnt0 = count(m, 0).to_host(), cnt1 = count(m, 1).to_host();
  auto any0 = any(m, 0).to_host(), all1 = all(pos | (y >= 0.0f), 1).to_host();
  auto sum1 = sim::sum(m, 1).to_host();
  static_assert(std::is_same<decltype(sum1), std::vector<std::int64_t>>::value, "a mask's axis sum is int64");
  for (index_t j = 0; j < c; ++j) {
    std::int64_t k = 0;
    for (index_t i = 0; i < r; ++i) k += hm[i * c + j];
    ASSERT_EQ(cnt0[j], k) << j;
    ASSERT_EQ(any0[j], k > 0) << j;
  }
  for (index_t i = 0; i < r; ++i) {
    std::int64_t k = 0;
    bool every = true;
    for (index_t j = 0; j < c; ++j) k += hm[i * c + j], every = every && (hx[i * c + j] > 0 || hy[i * c + j] >= 0);
    ASSERT_EQ(cnt1[i], k);
    ASSERT_EQ(sum1[i], k);
    ASSERT_EQ(all1[i], every) << i;
  }
  // argmax of a mask is its first true element (NumPy); a strided mask view reads right
  std::int64_t first = 0;
  while (!hm[first]) ++first;
  EXPECT_EQ(argmax(m), first);
  auto mt = transposed(m);
  EXPECT_EQ(count(this->ctx, mt), n_and);
  EXPECT_EQ(count(this->ctx, column(m, 2)), count(m, 0).to_host()[2]);
  // empty: any is false, all is true; host round trip and cast
  auto e = Array<bool, 1>::zeros(this->ctx, extents(0));
  EXPECT_FALSE(any(e));
  EXPECT_TRUE(all(e));
  auto b = Array<bool, 1>::from_host(this->ctx, extents(5), {true, false, false, true, true});
  EXPECT_EQ(b.to_host(), (std::vector<bool>{true, false, false, true, true}));
  Array<bool, 1> nz(this->ctx, extents(4));
  nz = cast<bool>(Array<double, 1>::from_host(this->ctx, extents(4), {0.0, -0.5, 2.0, 0.0}));
  EXPECT_EQ(nz.to_host(), (std::vector<bool>{false, true, true, false}));
  EXPECT_EQ(cumsum(b).to_host(), (std::vector<std::int64_t>{1, 1, 1, 2, 3}));
  // integers keep the bitwise meaning
  auto k = Array<std::int32_t, 1>::from_host(this->ctx, extents(3), {12, 10, -1});
  Array<std::int32_t, 1> kb(this->ctx, extents(3));
  kb = (k & 6) | (~k ^ 1);
  EXPECT_EQ(kb.to_host(), (std::vector<std::int32_t>{(12 & 6) | (~12 ^ 1), (10 & 6) | (~10 ^ 1), (-1 & 6) | (~-1 ^ 1)}));
}

// Shapes that take the GPU's vector-load assignment (long contiguous ranges with a tail after
// the last vector; rows of whole vectors with a broadcast row or column; rank 3; a bool
// destination; double) and ones that must not (an unaligned slice), against host loops.
TYPED_TEST(ArrayApiTest, VectorisedAssignmentShapesAgainstHost) {
  const index_t n = 10007;  // n % 4 == 3
  std::vector<float> ha(n), hb(n);
  for (index_t t = 0; t < n; ++t) ha[t] = float(t % 101) * 0.5f - 7.0f, hb[t] = float(t % 13) + 1.0f;
  auto a = Array<float, 1>::from_host(this->ctx, extents(n), ha);
  auto b = Array<float, 1>::from_host(this->ctx, extents(n), hb);
  Array<float, 1> c(this->ctx, extents(n));
  c = a * 5.0f + b / 2.0f - sim::max(a, 0.0f);
  auto hc = c.to_host();
  for (index_t t = 0; t < n; ++t) ASSERT_EQ(hc[t], ha[t] * 5.0f + hb[t] / 2.0f - std::max(ha[t], 0.0f)) << t;
  c += a;  // in place
  auto hc2 = c.to_host();
  for (index_t t = 0; t < n; ++t) ASSERT_EQ(hc2[t], hc[t] + ha[t]) << t;
  Array<bool, 1> m(this->ctx, extents(n));
  m = (a > 0.0f) | (b == 1.0f);  // a bool destination, float operands
  auto hm = m.to_host();
  for (index_t t = 0; t < n; ++t) ASSERT_EQ(hm[t], ha[t] > 0 || hb[t] == 1.0f) << t;
  Array<double, 1> d(this->ctx, extents(n));
  d = cast<double>(a) * 0.25 + where(m, 1.0, -1.0);  // double: 2 per vector; a mask selecting
  auto hd = d.to_host();
  for (index_t t = 0; t < n; ++t) ASSERT_EQ(hd[t], double(ha[t]) * 0.25 + (hm[t] ? 1.0 : -1.0)) << t;
  // rows: (r, c) with c a multiple of 4, a row and a column broadcast
  const index_t r = 97, cols = 1024;
  std::vector<float> hM(r * cols), hr(cols), hcol(r);
  for (index_t t = 0; t < r * cols; ++t) hM[t] = float(t % 71) - 30.0f;
  for (index_t j = 0; j < cols; ++j) hr[j] = float(j % 17) * 0.5f;
  for (index_t i = 0; i < r; ++i) hcol[i] = float(i) * 2.0f;
  auto M = Array<float, 2>::from_host(this->ctx, extents(r, cols), hM);
  auto row_ = Array<float, 1>::from_host(this->ctx, extents(cols), hr);
  auto col_ = Array<float, 1>::from_host(this->ctx, extents(r), hcol);
  Array<float, 2> out(this->ctx, M.shape());
  out = M + row_;  // NumPy's A + r[None, :]
  auto h1 = out.to_host();
  out = M * as_column(col_) - as_row(row_);
  auto h2 = out.to_host();
  for (index_t i = 0; i < r; ++i)
    for (index_t j = 0; j < cols; ++j) {
      ASSERT_EQ(h1[i * cols + j], hM[i * cols + j] + hr[j]) << i << "," << j;
      ASSERT_EQ(h2[i * cols + j], hM[i * cols + j] * hcol[i] - hr[j]) << i << "," << j;
    }
  // an unaligned destination slice (columns 1..1021): the element kernel, same values
  auto z = Array<float, 2>::zeros(this->ctx, M.shape());
  assign(this->ctx, slice(z, Range{0, r}, Range{1, 1021}), slice(M, Range{0, r}, Range{0, 1020}) + 1.0f);
  auto hz = z.to_host();
  for (index_t i = 0; i < r; ++i)
    for (index_t j = 0; j < cols; ++j)
      ASSERT_EQ(hz[i * cols + j], (j >= 1 && j < 1021) ? hM[i * cols + j - 1] + 1.0f : 0.0f) << i << "," << j;
  // rank 3: a matrix broadcast over the first dimension
  const index_t p = 6, q = 9, s = 64;
  std::vector<double> h3(p * q * s), h2d(q * s);
  for (index_t t = 0; t < p * q * s; ++t) h3[t] = double(t % 37);
  for (index_t t = 0; t < q * s; ++t) h2d[t] = double(t) * 0.5;
  auto X = Array<double, 3>::from_host(this->ctx, extents(p, q, s), h3);
  auto Y = Array<double, 2>::from_host(this->ctx, extents(q, s), h2d);
  Array<double, 3> W(this->ctx, X.shape());
  W = X - Y;
  auto hw = W.to_host();
  for (index_t t = 0; t < p * q * s; ++t) ASSERT_EQ(hw[t], h3[t] - h2d[t % (q * s)]) << t;
  // a copy between arrays (the device's copy engine on the GPU) and a clone
  auto W2 = W.clone();
  EXPECT_EQ(W2.to_host(), hw);
}
