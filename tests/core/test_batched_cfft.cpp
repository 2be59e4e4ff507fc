// The batched complex FFTs along the first axis (core/numerics/spectral/batched_cfft.hpp) on
// every backend against the DFT's definition per column: odd, even and the shortest lengths,
// forward and inverse (unnormalised), float32 and float64, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
