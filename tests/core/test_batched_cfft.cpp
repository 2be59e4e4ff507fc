// The batched complex FFTs along the first axis (core/numerics/spectral/batched_cfft.hpp) on
// every backend against the DFT's definition per column: odd, even and the shortest lengths,
// forward and inverse (unnormalised), float32 and float64, the refusals, the periodic
// solve's division fused into the forward, and planes further apart than the shape's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/numerics/spectral/batched_cfft.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

namespace {

/// Row-major host values (n0, n1, 2 m): not symmetric, no zeros.
std::vector<double> values(index_t size) {
  std::vector<double> h(static_cast<std::size_t>(size));
  for (index_t i = 0; i < size; ++i) h[std::size_t(i)] = std::cos(0.73 * double(i) + 0.2) + 0.03 * double(i % 7);
  return h;
}

/// The DFT along axis 0 of the interleaved complex array z (n0, n1, 2 m), sign -1 (forward)
/// or +1 (inverse, unnormalised), by the definition in long double.
std::vector<double> reference(const std::vector<double>& z, const Extents<3>& e, int sign) {
  const long double pi = 3.141592653589793238462643383279502884L;
  const index_t n0 = e.n[0], cols = e.n[1] * (e.n[2] / 2);
  std::vector<double> out(z.size());
  for (index_t c = 0; c < cols; ++c)
    for (index_t q = 0; q < n0; ++q) {
      long double re = 0, im = 0;
      for (index_t i = 0; i < n0; ++i) {
        const long double a = z[std::size_t(2 * (i * cols + c))], b = z[std::size_t(2 * (i * cols + c) + 1)];
        const long double phase = sign * 2 * pi * (long double)(i * q % n0) / n0;
        re += a * std::cos(phase) - b * std::sin(phase), im += a * std::sin(phase) + b * std::cos(phase);
      }
      out[std::size_t(2 * (q * cols + c))] = double(re), out[std::size_t(2 * (q * cols + c) + 1)] = double(im);
    }
  return out;
}

template <class T>
double tolerance() { return sizeof(T) == 4 ? 2e-6 : 1e-14; }

/// Largest |a - b| relative to the largest |b|.
double rel_error(const std::vector<double>& a, const std::vector<double>& b) {
  double err = 0, scale = 1e-300;
  for (std::size_t i = 0; i < a.size(); ++i) err = std::max(err, std::abs(a[i] - b[i])), scale = std::max(scale, std::abs(b[i]));
  return err / scale;
}

template <class T>
std::vector<double> host_of(const Array<T, 3>& a) {
  const std::vector<T> h = a.to_host();
  return std::vector<double>(h.begin(), h.end());
}

/// forward, then inverse, in place, each against the definition; inverse(forward(z)) == n0 z.
template <class T>
void check_shape(const Context& ctx, const Extents<3>& e) {
  fft::BatchedComplexFft<T> f(ctx, e);
  ASSERT_EQ(f.shape(), e);
  const std::vector<double> h = values(e.size());
  Array<T, 3> z = Array<T, 3>::from_host(ctx, e, std::vector<T>(h.begin(), h.end()));
  const std::vector<double> hz = host_of(z);  // the values as T holds them
  const std::vector<double> want = reference(hz, e, -1);
  f.forward(z.view());
  const std::vector<double> got = host_of(z);
  EXPECT_LT(rel_error(got, want), tolerance<T>()) << "forward " << to_string(e);
  Array<T, 3> w = Array<T, 3>::from_host(ctx, e, std::vector<T>(hz.begin(), hz.end()));
  f.inverse(w.view());
  EXPECT_LT(rel_error(host_of(w), reference(hz, e, +1)), tolerance<T>()) << "inverse " << to_string(e);
  f.inverse(z.view());
  std::vector<double> scaled(hz);
  for (double& v : scaled) v *= double(e.n[0]);
  EXPECT_LT(rel_error(host_of(z), scaled), tolerance<T>()) << "round trip " << to_string(e);
}

}  // namespace

template <class B>
class BatchedComplexFftTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(BatchedComplexFftTest);

TYPED_TEST(BatchedComplexFftTest, MatchesTheDefinitionPerColumn) {
  check_shape<double>(this->ctx, extents(8, 3, 6));
  check_shape<double>(this->ctx, extents(7, 2, 4));
  check_shape<double>(this->ctx, extents(2, 5, 2));
  check_shape<double>(this->ctx, extents(1, 3, 4));
  check_shape<double>(this->ctx, extents(12, 1, 10));
  check_shape<float>(this->ctx, extents(9, 4, 6));
  check_shape<float>(this->ctx, extents(16, 3, 2));
}

TYPED_TEST(BatchedComplexFftTest, RefusesWrongShapesAndStridedViews) {
  EXPECT_THROW(fft::BatchedComplexFft<double>(this->ctx, extents(0, 4, 4)), ShapeError);
  EXPECT_THROW(fft::BatchedComplexFft<double>(this->ctx, extents(3, 4, 5)), ShapeError);
  EXPECT_THROW(fft::BatchedComplexFft<double>(this->ctx, extents(3, 0, 4)), ShapeError);
  fft::BatchedComplexFft<double> f(this->ctx, extents(4, 3, 4));
  Array<double, 3> wrong(this->ctx, extents(4, 3, 6)), big(this->ctx, extents(4, 4, 4));
  EXPECT_THROW(f.forward(wrong.view()), ShapeError);
  EXPECT_THROW(f.inverse(wrong.view()), ShapeError);
  const View<double, 3> strided = big.view().sub(Box<3>{{0, 0, 0}, {4, 3, 4}});
  ASSERT_FALSE(strided.contiguous());
  EXPECT_THROW(f.forward(strided), ShapeError);
  fft::BatchedComplexFft<float> unplanned;
  Array<float, 3> any(this->ctx, extents(1, 1, 2));
  EXPECT_THROW(unplanned.forward(any.view()), Error);
}

namespace {
/// Rows [j0, j0 + e.n[1]) of every plane of a host array of shape `big`, as a dense vector.
std::vector<double> rows_of(const std::vector<double>& h, const Extents<3>& big, index_t j0, const Extents<3>& e) {
  std::vector<double> out;
  for (index_t i = 0; i < e.n[0]; ++i)
    for (index_t j = j0; j < j0 + e.n[1]; ++j)
      for (index_t k = 0; k < e.n[2]; ++k) out.push_back(h[std::size_t((i * big.n[1] + j) * big.n[2] + k)]);
  return out;
}

/// Planned with planes apart (rows [2, 4) of every plane of a (n0, 5, 6) array): forward and
/// inverse against the definition on those rows, the other rows untouched; the division in the
/// forward on that layout as on a dense copy.
template <class T>
void check_rows_of_planes(const Context& ctx, index_t n0) {
  const Extents<3> big = extents(n0, 5, 6), e = extents(n0, 2, 6);
  const Box<3> rows{{0, 2, 0}, {n0, 4, 6}};
  const std::vector<double> h = values(big.size());
  Array<T, 3> a = Array<T, 3>::from_host(ctx, big, std::vector<T>(h.begin(), h.end()));
  const std::vector<double> hz = host_of(a);
  fft::BatchedComplexFft<T> f(ctx, e, big.n[1] * big.n[2]);
  f.forward(a.view().sub(rows));
  const std::vector<double> got = host_of(a);
  EXPECT_LT(rel_error(rows_of(got, big, 2, e), reference(rows_of(hz, big, 2, e), e, -1)), tolerance<T>()) << "n0 " << n0;
  EXPECT_EQ(rows_of(got, big, 0, extents(n0, 2, 6)), rows_of(hz, big, 0, extents(n0, 2, 6))) << "rows before";
  EXPECT_EQ(rows_of(got, big, 4, extents(n0, 1, 6)), rows_of(hz, big, 4, extents(n0, 1, 6))) << "rows after";
  f.inverse(a.view().sub(rows));
  std::vector<double> scaled = rows_of(hz, big, 2, e);
  for (double& v : scaled) v *= double(n0);
  EXPECT_LT(rel_error(rows_of(host_of(a), big, 2, e), scaled), tolerance<T>()) << "round trip, n0 " << n0;
  // the division in the forward: the strided rows against a dense copy of them
  std::vector<T> l0(static_cast<std::size_t>(n0)), l1 = {T(0.5), T(1.5)}, l2 = {T(0), T(0), T(0.3), T(0.3), T(0.9), T(0.9)};
  for (index_t i = 0; i < n0; ++i) l0[std::size_t(i)] = T(2 - 2 * std::cos(2 * M_PI * double(i) / double(n0)));
  const auto e0 = Array<T, 1>::from_host(ctx, extents(n0), l0), e1 = Array<T, 1>::from_host(ctx, extents(2), l1),
             e2 = Array<T, 1>::from_host(ctx, extents(6), l2);
  fft::BatchedComplexFft<T> dense(ctx, e);
  const bool strided_fused = f.divide_in_forward(e0.view(), e1.view(), e2.view(), T(0.25));
  const bool dense_fused = dense.divide_in_forward(e0.view(), e1.view(), e2.view(), T(0.25));
  EXPECT_EQ(strided_fused, dense_fused);
  const std::vector<double> block = rows_of(hz, big, 2, e);
  Array<T, 3> d = Array<T, 3>::from_host(ctx, e, std::vector<T>(block.begin(), block.end()));
  a = Array<T, 3>::from_host(ctx, big, std::vector<T>(hz.begin(), hz.end()));
  dense.forward(d.view());
  f.forward(a.view().sub(rows));
  const std::vector<double> divided = host_of(a);
  EXPECT_LT(rel_error(rows_of(divided, big, 2, e), host_of(d)), 4 * tolerance<T>()) << "division in the forward, n0 " << n0;
  EXPECT_EQ(rows_of(divided, big, 0, extents(n0, 2, 6)), rows_of(hz, big, 0, extents(n0, 2, 6))) << "rows before, dividing";
  EXPECT_EQ(rows_of(divided, big, 4, extents(n0, 1, 6)), rows_of(hz, big, 4, extents(n0, 1, 6))) << "rows after, dividing";
}

/// The forward with the division fused (divide_in_forward) against the division done on the
/// host between the transforms: the zero mode (eigenvalue sum 0) comes out 0, every other mode
/// divided by its sum times inv_norm. Returns whether the division was fused.
template <class T>
bool check_division(const Context& ctx, const Extents<3>& e) {
  const index_t n0 = e.n[0], n1 = e.n[1], m = e.n[2] / 2;
  std::vector<T> l0 = std::vector<T>(std::size_t(n0)), l1 = std::vector<T>(std::size_t(n1)), l2 = std::vector<T>(std::size_t(2 * m));
  for (index_t i = 0; i < n0; ++i) l0[std::size_t(i)] = T(2 - 2 * std::cos(2 * M_PI * double(i) / double(n0)));
  for (index_t j = 0; j < n1; ++j) l1[std::size_t(j)] = T(0.5 * double(j * j));
  for (index_t k = 0; k < 2 * m; ++k) l2[std::size_t(k)] = T(0.25 * double((k / 2) * (k / 2)));
  const T inv_norm = T(1.0 / double(n0));
  const auto e0 = Array<T, 1>::from_host(ctx, extents(n0), l0), e1 = Array<T, 1>::from_host(ctx, extents(n1), l1),
             e2 = Array<T, 1>::from_host(ctx, extents(2 * m), l2);
  fft::BatchedComplexFft<T> fused(ctx, e), plain(ctx, e);
  const bool in_forward = fused.divide_in_forward(e0.view(), e1.view(), e2.view(), inv_norm);
  const std::vector<double> h = values(e.size());
  auto z = Array<T, 3>::from_host(ctx, e, std::vector<T>(h.begin(), h.end()));
  auto w = Array<T, 3>::from_host(ctx, e, std::vector<T>(h.begin(), h.end()));
  plain.forward(w.view());
  std::vector<T> s = w.to_host();  // the division on the host, in T, as the division kernel does it
  for (index_t i = 0; i < n0; ++i)
    for (index_t j = 0; j < n1; ++j)
      for (index_t k = 0; k < 2 * m; ++k) {
        const T lambda = l0[std::size_t(i)] + l1[std::size_t(j)] + l2[std::size_t(k)];
        T& v = s[std::size_t((i * n1 + j) * 2 * m + k)];
        v = lambda > T(0) ? v * (inv_norm / lambda) : T(0);
      }
  w = Array<T, 3>::from_host(ctx, e, s);
  plain.inverse(w.view());
  fused.forward(z.view());
  if (!in_forward) {  // the caller's division: fused() leaves it out
    z = Array<T, 3>::from_host(ctx, e, s);
  }
  fused.inverse(z.view());
  EXPECT_LT(rel_error(host_of(z), host_of(w)), 4 * tolerance<T>()) << to_string(e) << (in_forward ? ", divided in the forward" : "");
  return in_forward;
}
}  // namespace

// On the GPU the periodic solve's division rides in the forward transform's store callback
// (where cuFFT links it): the same result as the division between the transforms. On the CPU
// divide_in_forward() declines and the caller divides.
TYPED_TEST(BatchedComplexFftTest, DivisionInTheForwardIsTheDivisionBetween) {
  for (const Extents<3>& e : {extents(6, 5, 8), extents(7, 3, 2), extents(16, 4, 10)}) {
    const bool fused64 = check_division<double>(this->ctx, e), fused32 = check_division<float>(this->ctx, e);
    if (!this->ctx.is_cuda()) EXPECT_FALSE(fused64 || fused32);
    std::printf("[ %s %s: division %s ]\n", this->ctx.is_cuda() ? "cuda" : "cpu", to_string(e).c_str(),
                fused64 && fused32 ? "in cuFFT's forward" : "between the transforms");
  }
  fft::BatchedComplexFft<double> one(this->ctx, extents(1, 3, 4));  // (length 1: nothing to fuse into)
  const auto l = Array<double, 1>::zeros(this->ctx, extents(4));
  EXPECT_FALSE(one.divide_in_forward(l.view(), l.view(), l.view(), 1.0));
  EXPECT_THROW(one.divide_in_forward(l.view(), l.view(), l.view().sub(Box<1>{{0}, {2}}), 1.0), ShapeError);  // (l2: 2 m needed)
}

// Planes further apart than the shape's (rows of every plane of a larger array, as a slab of a
// spectrum held whole): the same transforms, the same division in the forward.
TYPED_TEST(BatchedComplexFftTest, PlanesApartTransformRowsOfALargerArray) {
  for (index_t n0 : {6, 7}) {
    check_rows_of_planes<double>(this->ctx, n0);
    check_rows_of_planes<float>(this->ctx, n0);
  }
  EXPECT_THROW(fft::BatchedComplexFft<double>(this->ctx, extents(4, 3, 4), 10), ShapeError);  // (planes of 12 reals)
}
