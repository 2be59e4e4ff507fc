// Dense linear algebra on every backend against host references: odd shapes, size 0 and 1,
// transposed and strided views, float and double, singular matrices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "core/numerics/linalg.hpp"
#include "core/array/slicing.hpp"
#include "core/array/transpose.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

// The cpu backend once more with OpenBLAS switched off: the plain loops that run where it
// is missing (testing::use_plain_linalg_loops).
struct CpuPlainLoops {
  static constexpr sim::BackendRequest request = sim::BackendRequest::cpu;
  static constexpr const char* name = "cpu_plain_loops";
};

template <class B>
class LinalgTest : public sim_test::OnBackend<B> {
 protected:
  static constexpr bool plain = std::is_same_v<B, CpuPlainLoops>;
  void SetUp() override {
    sim_test::OnBackend<B>::SetUp();
    if (plain) sim::testing::use_plain_linalg_loops(true);
  }
  void TearDown() override {
    if (plain) sim::testing::use_plain_linalg_loops(false);
  }
};
using LinalgBackends = ::testing::Types<sim_test::Cpu, CpuPlainLoops, sim_test::Cuda>;
TYPED_TEST_SUITE(LinalgTest, LinalgBackends, sim_test::BackendName);

namespace {
template <class T>
std::vector<T> values(index_t n, double seed) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) v[i] = T(std::sin(seed + 0.731 * double(i)) + 0.25 * std::cos(1.3 * seed * double(i)));
  return v;
}
// host C = A B, row-major, in double
std::vector<double> host_matmul(const std::vector<double>& a, const std::vector<double>& b, index_t m, index_t k, index_t n) {
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  for (index_t i = 0; i < m; ++i)
    for (index_t p = 0; p < k; ++p)
      for (index_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
  return c;
}
template <class T>
std::vector<double> to_double(const std::vector<T>& v) { return std::vector<double>(v.begin(), v.end()); }
}  // namespace

TYPED_TEST(LinalgTest, MatmulOddShapesBothPrecisions) {
  for (auto [m, k, n] : {std::array<index_t, 3>{1, 1, 1}, {3, 5, 7}, {65, 33, 17}, {130, 1, 9}, {1, 300, 1}, {0, 4, 5}, {4, 0, 5}}) {
    auto ha = values<double>(m * k, 0.1), hb = values<double>(k * n, 0.7);
    auto ref = host_matmul(ha, hb, m, k, n);
    auto A = Array<double, 2>::from_host(this->ctx, extents(m, k), ha);
    auto B = Array<double, 2>::from_host(this->ctx, extents(k, n), hb);
    auto C = matmul(A, B).to_host();
    ASSERT_EQ(C.size(), ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(C[i], ref[i], 1e-12 * (1 + k)) << m << "x" << k << "x" << n << " at " << i;
    auto fa = values<float>(m * k, 0.1), fb = values<float>(k * n, 0.7);
    auto reff = host_matmul(to_double(fa), to_double(fb), m, k, n);
    auto Cf = matmul(Array<float, 2>::from_host(this->ctx, extents(m, k), fa), Array<float, 2>::from_host(this->ctx, extents(k, n), fb)).to_host();
    for (std::size_t i = 0; i < reff.size(); ++i) ASSERT_NEAR(Cf[i], reff[i], 1e-5 * (1 + k)) << i;
  }
}

TYPED_TEST(LinalgTest, MatmulViewsTransposedStridedAndAccumulating) {
  const index_t m = 37, k = 23, n = 19;
  auto ha = values<double>(k * m, 0.3), hb = values<double>(k * (2 * n), 0.9), hc = values<double>(m * n, 1.7);
  auto At = Array<double, 2>::from_host(this->ctx, extents(k, m), ha);     // A = At^T (a transposed view)
  auto Bw = Array<double, 2>::from_host(this->ctx, extents(k, 2 * n), hb);  // B = every other column (strided)
  auto C = Array<double, 2>::from_host(this->ctx, extents(m, n), hc);
  View<const double, 2> bv = slice(Bw.view(), Range{0, k}, Range{0, 2 * n});
  bv.shape.n[1] = n, bv.stride[1] = 2;
  matmul<double>(this->ctx, transposed(At.view()), bv, C.view(), 2.0, 0.5);
  auto hcc = C.to_host();
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) {
      double s = 0;
      for (index_t p = 0; p < k; ++p) s += ha[p * m + i] * hb[p * 2 * n + 2 * j];
      ASSERT_NEAR(hcc[i * n + j], 2.0 * s + 0.5 * hc[i * n + j], 1e-12 * k) << i << "," << j;
    }
  // a result written into a non-contiguous view (a transposed destination)
  Array<double, 2> Ct(this->ctx, extents(n, m));
  Ct.fill(0.0);
  matmul<double>(this->ctx, transposed(At.view()), bv, transposed(Ct.view()));
  auto hct = Ct.to_host();
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < n; ++j) ASSERT_NEAR(hct[j * m + i], (hcc[i * n + j] - 0.5 * hc[i * n + j]) / 2.0, 1e-12 * k);
  Array<double, 2> bad(this->ctx, extents(m + 1, n));
  EXPECT_THROW(matmul<double>(this->ctx, transposed(At.view()), bv, bad.view()), ShapeError);
  EXPECT_THROW(matmul(At, At), ShapeError);
}

TYPED_TEST(LinalgTest, MatvecRowMajorTransposedAndStrided) {
  for (auto [m, n] : {std::array<index_t, 2>{1, 1}, {7, 3}, {129, 65}, {0, 3}, {5, 0}}) {
    auto ha = values<float>(m * n, 0.2), hx = values<float>(2 * n, 0.5);
    auto A = Array<float, 2>::from_host(this->ctx, extents(m, n), ha);
    auto X = Array<float, 1>::from_host(this->ctx, extents(2 * n), hx);
    View<const float, 1> xv = X.view();
    xv.shape.n[0] = n, xv.stride[0] = 2;  // every other element
    Array<float, 1> y(this->ctx, extents(m));
    matvec<float>(this->ctx, A.view(), xv, y.view());
    auto hy = y.to_host();
    for (index_t i = 0; i < m; ++i) {
      double s = 0;
      for (index_t j = 0; j < n; ++j) s += double(ha[i * n + j]) * hx[2 * j];
      ASSERT_NEAR(hy[i], s, 1e-5 * (1 + n)) << m << "x" << n << " row " << i;
    }
    // transposed: (A^T) z for z of length m
    auto hz = values<float>(m, 0.8);
    auto z = Array<float, 1>::from_host(this->ctx, extents(m), hz);
    Array<float, 1> w(this->ctx, extents(n));
    matvec<float>(this->ctx, transposed(A.view()), z.view(), w.view());
    auto hw = w.to_host();
    for (index_t j = 0; j < n; ++j) {
      double s = 0;
      for (index_t i = 0; i < m; ++i) s += double(ha[i * n + j]) * hz[i];
      ASSERT_NEAR(hw[j], s, 1e-5 * (1 + m)) << j;
    }
  }
  auto A = Array<double, 2>::full(this->ctx, extents(4, 3), 1.0);
  auto x = Array<double, 1>::full(this->ctx, extents(3), 2.0);
  auto y = matvec(A, x).to_host();
  for (double v : y) EXPECT_EQ(v, 6.0);
  EXPECT_THROW(matvec(A, Array<double, 1>::full(this->ctx, extents(4), 1.0)), ShapeError);
}

template <class T>
void check_solve_inv(const Context& ctx, index_t n, double tol) {
  auto ha = values<T>(n * n, 0.4);
  for (index_t i = 0; i < n; ++i) ha[i * n + i] += T(n);  // well conditioned
  auto hb = values<T>(n, 0.9), hB = values<T>(n * 3, 1.1);
  auto A = Array<T, 2>::from_host(ctx, extents(n, n), ha);
  auto x = solve(A, Array<T, 1>::from_host(ctx, extents(n), hb)).to_host();
  for (index_t i = 0; i < n; ++i) {  // residual A x - b
    double r = -double(hb[i]);
    for (index_t j = 0; j < n; ++j) r += double(ha[i * n + j]) * x[j];
    ASSERT_NEAR(r, 0.0, tol * n) << "solve n=" << n << " row " << i;
  }
  auto X = solve(A, Array<T, 2>::from_host(ctx, extents(n, 3), hB)).to_host();
  for (index_t i = 0; i < n; ++i)
    for (index_t c = 0; c < 3; ++c) {
      double r = -double(hB[i * 3 + c]);
      for (index_t j = 0; j < n; ++j) r += double(ha[i * n + j]) * X[j * 3 + c];
      ASSERT_NEAR(r, 0.0, tol * n) << "solve(3 rhs) n=" << n << " row " << i << " col " << c;
    }
  auto Ai = inv(A).to_host();
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      double s = 0;
      for (index_t p = 0; p < n; ++p) s += double(ha[i * n + p]) * Ai[p * n + j];
      ASSERT_NEAR(s, i == j ? 1.0 : 0.0, tol * n) << "inv n=" << n << " at " << i << "," << j;
    }
}

TYPED_TEST(LinalgTest, SolveAndInvAgainstResiduals) {
  for (index_t n : {1, 2, 17, 100}) {
    check_solve_inv<double>(this->ctx, n, 1e-12);
    check_solve_inv<float>(this->ctx, n, 2e-5);
  }
  // a matrix that needs row exchanges: [[0, 1], [1, 0]]
  auto P = Array<double, 2>::from_host(this->ctx, extents(2, 2), {0, 1, 1, 0});
  auto x = solve(P, Array<double, 1>::from_host(this->ctx, extents(2), {3, 4})).to_host();
  EXPECT_DOUBLE_EQ(x[0], 4);
  EXPECT_DOUBLE_EQ(x[1], 3);
  auto empty = Array<double, 2>(this->ctx, extents(0, 0));
  EXPECT_EQ(inv(empty).size(), 0);
}

TYPED_TEST(LinalgTest, SingularAndNonSquareThrow) {
  // rows 1 and 3 equal and columns 1 and 3 equal: the same operations on equal rows leave an
  // exactly zero pivot whether the factorisation sees A (LAPACKE) or A^T (cuSOLVER on the
  // row-major copy), with or without fused multiply-adds
  auto S = Array<double, 2>::from_host(this->ctx, extents(3, 3), {1, 2, 1, 3, 5, 3, 1, 2, 1});
  EXPECT_THROW(inv(S), LinAlgError);
  auto Z = Array<double, 2>::zeros(this->ctx, extents(3, 3));
  EXPECT_THROW(inv(Z), LinAlgError);
  EXPECT_THROW(solve(Z, Array<double, 1>::full(this->ctx, extents(3), 1.0)), LinAlgError);
  auto R = Array<double, 2>::zeros(this->ctx, extents(3, 4));
  EXPECT_THROW(inv(R), ShapeError);
  EXPECT_THROW(solve(R, Array<double, 1>::full(this->ctx, extents(3), 1.0)), ShapeError);
}

TYPED_TEST(LinalgTest, TransposeCopyOddShapesAndViews) {
  for (auto [r, c] : {std::array<index_t, 2>{1, 1}, {1, 77}, {77, 1}, {33, 65}, {300, 257}, {0, 5}}) {
    std::vector<std::int32_t> h(static_cast<std::size_t>(r * c));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = std::int32_t(i * 7 + 3);
    auto a = Array<std::int32_t, 2>::from_host(this->ctx, extents(r, c), h);
    auto t = transpose(a);
    ASSERT_EQ(t.extent(0), c);
    ASSERT_EQ(t.extent(1), r);
    auto ht = t.to_host();
    for (index_t i = 0; i < r; ++i)
      for (index_t j = 0; j < c; ++j) ASSERT_EQ(ht[j * r + i], h[i * c + j]) << r << "x" << c;
  }
  // a strided source (a sub-block) into a strided destination
  auto a = Array<double, 2>::from_host(this->ctx, extents(40, 50), values<double>(2000, 0.3));
  auto ha = a.to_host();
  auto d = Array<double, 2>::zeros(this->ctx, extents(60, 60));
  transpose<double>(this->ctx, slice(a.view(), Range{5, 36}, Range{3, 48}), slice(d.view(), Range{10, 55}, Range{20, 51}));
  auto hd = d.to_host();
  for (index_t i = 0; i < 31; ++i)
    for (index_t j = 0; j < 45; ++j) ASSERT_EQ(hd[(10 + j) * 60 + 20 + i], ha[(5 + i) * 50 + 3 + j]);
  EXPECT_EQ(hd[0], 0.0);
}

TYPED_TEST(LinalgTest, MatvecContiguousRowsEveryShape) {
  // the row kernel's vector path (whole matrices whose n is a multiple of 4: float4 / double2
  // loads) and its scalar path (other n, slices whose rows do not start 16-byte aligned),
  // odd and even row counts (two rows a warp), beta == 0 and beta != 0
  for (auto [m, n] : {std::array<index_t, 2>{1, 4}, {5, 8}, {33, 64}, {130, 256}, {3, 1028}, {9, 7}, {64, 33}, {2, 1}}) {
    auto ha = values<double>(m * (n + 1), 0.3), hx = values<double>(n, 0.6), hy = values<double>(m, 0.9);
    std::vector<float> fa(ha.begin(), ha.end()), fx(hx.begin(), hx.end()), fy(hy.begin(), hy.end());
    auto Ad = Array<double, 2>::from_host(this->ctx, extents(m, n + 1), ha);
    auto Af = Array<float, 2>::from_host(this->ctx, extents(m, n + 1), fa);
    auto xd = Array<double, 1>::from_host(this->ctx, extents(n), hx);
    auto xf = Array<float, 1>::from_host(this->ctx, extents(n), fx);
    for (index_t first : {index_t(0), index_t(1)}) {  // columns [first, first + n) of an n + 1 wide matrix
      auto yd = Array<double, 1>::from_host(this->ctx, extents(m), hy);
      auto yf = Array<float, 1>::from_host(this->ctx, extents(m), fy);
      matvec<double>(this->ctx, slice(Ad.view(), Range{0, m}, Range{first, first + n}), xd.view(), yd.view(), 2.0, 0.5);
      matvec<float>(this->ctx, slice(Af.view(), Range{0, m}, Range{first, first + n}), xf.view(), yf.view(), 2.0f, 0.0f);
      auto rd = yd.to_host();
      auto rf = yf.to_host();
      for (index_t i = 0; i < m; ++i) {
        double s = 0;
        for (index_t j = 0; j < n; ++j) s += ha[i * (n + 1) + first + j] * hx[j];
        ASSERT_NEAR(rd[i], 2.0 * s + 0.5 * hy[i], 1e-12 * (1 + n)) << m << "x" << n << " first " << first << " row " << i;
        ASSERT_NEAR(rf[i], 2.0 * s, 1e-5 * (1 + n)) << m << "x" << n << " first " << first << " row " << i;
      }
    }
    // a whole matrix (rows n apart: the vector loads when n is a multiple of 16 bytes)
    std::vector<double> hc(static_cast<std::size_t>(m * n));
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) hc[i * n + j] = ha[i * (n + 1) + j];
    std::vector<float> fc(hc.begin(), hc.end());
    auto yd = matvec(Array<double, 2>::from_host(this->ctx, extents(m, n), hc), xd).to_host();
    auto yf = matvec(Array<float, 2>::from_host(this->ctx, extents(m, n), fc), xf).to_host();
    for (index_t i = 0; i < m; ++i) {
      double s = 0;
      for (index_t j = 0; j < n; ++j) s += hc[i * n + j] * hx[j];
      ASSERT_NEAR(yd[i], s, 1e-12 * (1 + n)) << m << "x" << n << " whole, row " << i;
      ASSERT_NEAR(yf[i], s, 1e-5 * (1 + n)) << m << "x" << n << " whole, row " << i;
    }
  }
}

template <class T>
void check_solve_pivoting(const Context& ctx, index_t n, index_t k, double tol) {
  // not diagonally dominant: the factorisation exchanges rows
  auto ha = values<T>(n * n, 1.7), hB = values<T>(n * k, 2.3);
  auto A = Array<T, 2>::from_host(ctx, extents(n, n), ha);
  auto X = solve(A, Array<T, 2>::from_host(ctx, extents(n, k), hB)).to_host();
  double scale = 0;
  for (auto v : X) scale = std::max(scale, std::fabs(double(v)));
  for (index_t i = 0; i < n; ++i)
    for (index_t c = 0; c < k; ++c) {
      double r = -double(hB[i * k + c]);
      for (index_t j = 0; j < n; ++j) r += double(ha[i * n + j]) * X[j * k + c];
      ASSERT_NEAR(r, 0.0, tol * n * (1 + scale)) << "solve n=" << n << " k=" << k << " row " << i << " col " << c;
    }
  std::vector<T> hb(hB.begin(), hB.begin() + n);  // one right-hand side, as a vector
  auto x = solve(A, Array<T, 1>::from_host(ctx, extents(n), hb)).to_host();
  for (index_t i = 0; i < n; ++i) {
    double r = -double(hb[i]);
    for (index_t j = 0; j < n; ++j) r += double(ha[i * n + j]) * x[j];
    ASSERT_NEAR(r, 0.0, tol * n * (1 + scale)) << "solve(vector) n=" << n << " row " << i;
  }
}

TYPED_TEST(LinalgTest, SolveWithRowExchangesManyRightHandSides) {
  for (auto [n, k] : {std::array<index_t, 2>{3, 1}, {37, 5}, {64, 64}, {130, 41}, {257, 300}}) {
    check_solve_pivoting<double>(this->ctx, n, k, 1e-11);
    check_solve_pivoting<float>(this->ctx, n, k, 2e-4);
  }
}

TYPED_TEST(LinalgTest, TransposeOddShapesAndViews) {
  // shapes below, at and across the 64 x 64 tiles of the GPU kernel (even extents: its
  // float path in pairs; odd ones: one element at a time), and a strided source
  for (auto [m, n] : {std::array<index_t, 2>{1, 1}, {1, 100}, {100, 1}, {63, 65}, {64, 64}, {129, 200}, {300, 7},
                      {130, 66}, {2, 98}, {66, 2}}) {
    auto ha = values<double>(m * n, 0.5);
    auto A = Array<double, 2>::from_host(this->ctx, extents(m, n), ha);
    auto T = transpose(A).to_host();
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) ASSERT_EQ(T[j * m + i], ha[i * n + j]) << m << "x" << n << " at " << i << "," << j;
    std::vector<float> fa(ha.begin(), ha.end());
    auto F = Array<float, 2>::from_host(this->ctx, extents(m, n), fa);
    auto FT = transpose(F).to_host();  // 4-byte elements, contiguous
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < n; ++j) ASSERT_EQ(FT[j * m + i], fa[i * n + j]) << m << "x" << n << " float at " << i << "," << j;
    const index_t half = (n + 1) / 2;
    View<const float, 2> every_other = F.view();  // columns 0, 2, 4, ...
    every_other.shape.n[1] = half, every_other.stride[1] = 2;
    Array<float, 2> Ft(this->ctx, extents(half, m));
    transpose<float>(this->ctx, every_other, Ft.view());
    auto ft = Ft.to_host();
    for (index_t i = 0; i < m; ++i)
      for (index_t j = 0; j < half; ++j) ASSERT_EQ(ft[j * m + i], fa[i * n + 2 * j]) << m << "x" << n << " at " << i << "," << j;
  }
}

// Without OpenBLAS, the cpu matvec of a row-major matrix gives the bits of its documented order on every
// compiled version (default, AVX2, AVX-512, picked by the processor): each row in 32 lanes
// (element j into lane j % 32), the lanes added as a tree (16 + 16, 8 + 8, ...), no FMA.
namespace {
template <class T>
std::vector<T> matvec_32_lanes(const std::vector<T>& a, const std::vector<T>& x, index_t m, index_t n) {
  std::vector<T> y(static_cast<std::size_t>(m));
  for (index_t i = 0; i < m; ++i) {
    T lane[32] = {};
    for (index_t j = 0; j < n; ++j) lane[j % 32] += a[i * n + j] * x[j];
    for (int w = 16; w > 0; w /= 2)
      for (int l = 0; l < w; ++l) lane[l] += lane[l + w];
    y[i] = T(1) * lane[0];
  }
  return y;
}
}  // namespace

TYPED_TEST(LinalgTest, MatvecRowsGiveTheirDocumentedBits) {
  if (this->ctx.is_cuda()) GTEST_SKIP() << "the GPU's row kernel combines its lanes in its own order";
  if (cpu_blas_available()) GTEST_SKIP() << "with OpenBLAS the cpu matvec gives its gemv's bits (the cpu_plain_loops instance checks the row kernel)";
  for (auto [m, n] : {std::array<index_t, 2>{1, 7}, {3, 33}, {130, 1028}, {70, 2048}}) {  // the last two on the pool
    auto hd = values<double>(m * n, 0.7), xd = values<double>(n, 0.2);
    std::vector<float> hf(hd.begin(), hd.end()), xf(xd.begin(), xd.end());
    EXPECT_EQ(matvec(Array<double, 2>::from_host(this->ctx, extents(m, n), hd), Array<double, 1>::from_host(this->ctx, extents(n), xd)).to_host(),
              matvec_32_lanes(hd, xd, m, n)) << m << "x" << n;
    EXPECT_EQ(matvec(Array<float, 2>::from_host(this->ctx, extents(m, n), hf), Array<float, 1>::from_host(this->ctx, extents(n), xf)).to_host(),
              matvec_32_lanes(hf, xf, m, n)) << m << "x" << n;
  }
}

TYPED_TEST(LinalgTest, CpuLibraryIsNamedAndTheHookSwitchesIt) {
  if (this->ctx.is_cuda()) GTEST_SKIP() << "the cpu backend's libraries";
  if (this->plain) {
    EXPECT_FALSE(cpu_blas_available());
    EXPECT_NE(cpu_linalg_library().find("plain loops"), std::string::npos) << cpu_linalg_library();
    return;
  }
  if (!cpu_blas_available()) GTEST_SKIP() << "no OpenBLAS + LAPACKE here: " << cpu_linalg_library();
  EXPECT_NE(cpu_linalg_library().find("lapacke"), std::string::npos) << cpu_linalg_library();
  // opened after simkit told OpenBLAS how long its threads may spin (cpu/blas_library.hpp)
  const char* timeout = std::getenv("OPENBLAS_THREAD_TIMEOUT");
  ASSERT_NE(timeout, nullptr);
  EXPECT_GE(std::atoi(timeout), 4);
}

TYPED_TEST(LinalgTest, MatvecWithBetaZeroNeverReadsY) {
  // BLAS leaves y unread when beta is 0; a NaN already in y must not survive (0 * NaN is NaN)
  for (auto [m, n, trans] : {std::array<index_t, 3>{5, 7, 0}, {300, 260, 0}, {33, 65, 1}}) {
    auto ha = values<double>(m * n, 0.4), hx = values<double>(n, 0.8);
    auto A = Array<double, 2>::from_host(this->ctx, trans ? extents(n, m) : extents(m, n), ha);
    auto x = Array<double, 1>::from_host(this->ctx, extents(n), hx);
    auto y = Array<double, 1>::full(this->ctx, extents(m), std::nan(""));
    const View<const double, 2> Av = trans ? View<const double, 2>(transposed(A.view())) : View<const double, 2>(A.view());
    matvec<double>(this->ctx, Av, x.view(), y.view());
    auto hy = y.to_host();
    for (index_t i = 0; i < m; ++i) {
      double ref = 0;
      for (index_t j = 0; j < n; ++j) ref += (trans ? ha[j * m + i] : ha[i * n + j]) * hx[j];
      ASSERT_NEAR(hy[i], ref, 1e-12 * n) << m << "x" << n << (trans ? " transposed" : "") << " row " << i;
    }
  }
}
