// The batched 2D real FFTs (core/numerics/spectral/batched_rfft2.hpp) on every backend against the 2D
// DFT's definition per plane: odd, even and the shortest lengths, contiguous inputs and outputs,
// strided ones with contiguous rows (read and written in place) and without (staged), the
// inverse, float32 and float64, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/numerics/spectral/batched_rfft2.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

namespace {

/// Row-major host values: not symmetric, no zeros.
std::vector<double> values(index_t size) {
  std::vector<double> h(static_cast<std::size_t>(size));
  for (index_t i = 0; i < size; ++i) h[std::size_t(i)] = std::sin(0.61 * double(i) + 0.3) + 0.02 * double(i % 5);
  return h;
}

/// The interleaved spectrum (n0, n1, 2 (n2 / 2 + 1)) of row-major x (n0, n1, n2) by the definition
/// X(i, k1, k2) = sum_{j1, j2} x(i, j1, j2) e^{-2 pi i (j1 k1 / n1 + j2 k2 / n2)}, in long double.
std::vector<double> reference(const std::vector<double>& x, const Extents<3>& e) {
  const long double pi = 3.141592653589793238462643383279502884L;
  const index_t n0 = e.n[0], n1 = e.n[1], n2 = e.n[2], h2 = n2 / 2 + 1;
  std::vector<double> out(std::size_t(n0 * n1 * 2 * h2));
  for (index_t i = 0; i < n0; ++i)
    for (index_t k1 = 0; k1 < n1; ++k1)
      for (index_t k2 = 0; k2 < h2; ++k2) {
        long double re = 0, im = 0;
        for (index_t j1 = 0; j1 < n1; ++j1)
          for (index_t j2 = 0; j2 < n2; ++j2) {
            const long double v = x[std::size_t((i * n1 + j1) * n2 + j2)];
            const long double phase = 2 * pi * ((long double)(j1 * k1 % n1) / n1 + (long double)(j2 * k2 % n2) / n2);
            re += v * std::cos(phase), im -= v * std::sin(phase);
          }
        out[std::size_t(((i * n1 + k1) * h2 + k2) * 2)] = double(re);
        out[std::size_t(((i * n1 + k1) * h2 + k2) * 2 + 1)] = double(im);
      }
  return out;
}

template <class T>
double tolerance() { return sizeof(T) == 4 ? 1e-5 : 1e-13; }

/// Largest |a - b| relative to the largest |b|.
double rel_error(const std::vector<double>& a, const std::vector<double>& b) {
  double err = 0, scale = 1e-300;
  for (std::size_t i = 0; i < a.size(); ++i) err = std::max(err, std::abs(a[i] - b[i])), scale = std::max(scale, std::abs(b[i]));
  return err / scale;
}

/// The values of view v, row-major, as doubles (through a contiguous copy).
template <class T>
std::vector<double> host_of(const Context& ctx, View<const T, 3> v) {
  Array<T, 3> a(ctx, v.shape);
  detail::copy<T, 3>(ctx, v, a.view());
  const std::vector<T> h = a.to_host();
  return std::vector<double>(h.begin(), h.end());
}

/// The box of shape e inside a larger array, off every edge (a strided view).
Box<3> inner_box(const Extents<3>& e) { return Box<3>{{1, 2, 1}, {1 + e.n[0], 2 + e.n[1], 1 + e.n[2]}}; }
Extents<3> outer_shape(const Extents<3>& e) { return extents(e.n[0] + 2, e.n[1] + 3, e.n[2] + 3); }

/// forward on a contiguous and on a strided input against the definition; the inverse into a
/// contiguous and a strided output gives back n1 n2 times the input.
template <class T>
void check_shape(const Context& ctx, const Extents<3>& e) {
  const index_t planes = e.n[1] * e.n[2];
  fft::BatchedRealFft2<T> f(ctx, e);
  ASSERT_EQ(f.shape(), e);
  ASSERT_EQ(f.spectrum().shape, fft::BatchedRealFft2<T>::spectrum_shape(e));
  const std::vector<double> h = values(e.size());
  const Array<T, 3> x = Array<T, 3>::from_host(ctx, e, std::vector<T>(h.begin(), h.end()));
  const std::vector<double> hx = host_of<T>(ctx, x.view());  // the values as T holds them
  const std::vector<double> want = reference(hx, e);

  f.forward(x.view());
  EXPECT_LT(rel_error(host_of<T>(ctx, f.spectrum()), want), tolerance<T>()) << "contiguous input " << to_string(e);
  Array<T, 3> back(ctx, e);
  f.inverse(back.view());
  std::vector<double> scaled(hx);
  for (double& v : scaled) v *= double(planes);
  EXPECT_LT(rel_error(host_of<T>(ctx, back.view()), scaled), tolerance<T>()) << "contiguous output " << to_string(e);

  Array<T, 3> big(ctx, outer_shape(e)), big_out(ctx, outer_shape(e));
  big.fill(T(7)), big_out.fill(T(-3));
  const View<T, 3> in = big.view().sub(inner_box(e)), out = big_out.view().sub(inner_box(e));
  detail::copy<T, 3>(ctx, View<const T, 3>(x.view()), in);
  ASSERT_FALSE(in.contiguous());
  f.forward(in);
  EXPECT_LT(rel_error(host_of<T>(ctx, f.spectrum()), want), tolerance<T>()) << "strided input " << to_string(e);
  f.inverse(out);
  EXPECT_LT(rel_error(host_of<T>(ctx, out), scaled), tolerance<T>()) << "strided output " << to_string(e);
  // nothing outside the strided output was written
  const std::vector<T> all = big_out.to_host();
  std::size_t untouched = 0;
  for (T v : all) untouched += v == T(-3) ? 1 : 0;
  EXPECT_EQ(untouched, all.size() - std::size_t(e.size()));

  // every other element along the last axis (rows not contiguous: through the staged buffer)
  Array<T, 3> wide(ctx, extents(e.n[0], e.n[1], 2 * e.n[2])), wide_out(ctx, extents(e.n[0], e.n[1], 2 * e.n[2]));
  wide.fill(T(5)), wide_out.fill(T(-3));
  View<T, 3> skip_in = wide.view(), skip_out = wide_out.view();
  skip_in.shape = skip_out.shape = e, skip_in.stride[2] = skip_out.stride[2] = 2;
  detail::copy<T, 3>(ctx, View<const T, 3>(x.view()), skip_in);
  f.forward(skip_in);
  EXPECT_LT(rel_error(host_of<T>(ctx, f.spectrum()), want), tolerance<T>()) << "every other input " << to_string(e);
  f.inverse(skip_out);
  EXPECT_LT(rel_error(host_of<T>(ctx, skip_out), scaled), tolerance<T>()) << "every other output " << to_string(e);
  const std::vector<T> skipped = wide_out.to_host();
  untouched = 0;
  for (T v : skipped) untouched += v == T(-3) ? 1 : 0;
  EXPECT_EQ(untouched, skipped.size() - std::size_t(e.size()));
  // back to the contiguous layout after the others
  f.forward(x.view());
  EXPECT_LT(rel_error(host_of<T>(ctx, f.spectrum()), want), tolerance<T>()) << "contiguous input again " << to_string(e);
}

}  // namespace

template <class B>
class BatchedFftTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(BatchedFftTest);

TYPED_TEST(BatchedFftTest, MatchesTheDefinitionPerPlane) {
  check_shape<double>(this->ctx, extents(3, 4, 6));
  check_shape<double>(this->ctx, extents(2, 5, 7));
  check_shape<double>(this->ctx, extents(4, 2, 3));
  check_shape<double>(this->ctx, extents(2, 3, 2));
  check_shape<double>(this->ctx, extents(1, 2, 2));
  check_shape<double>(this->ctx, extents(4, 1, 6));  // rows alone: 1D transforms
  check_shape<double>(this->ctx, extents(3, 1, 5));
  check_shape<float>(this->ctx, extents(2, 1, 2));
  check_shape<float>(this->ctx, extents(3, 8, 5));
  check_shape<float>(this->ctx, extents(5, 3, 2));
}

TYPED_TEST(BatchedFftTest, RefusesWrongShapes) {
  EXPECT_THROW(fft::BatchedRealFft2<double>(this->ctx, extents(0, 4, 4)), ShapeError);
  EXPECT_THROW(fft::BatchedRealFft2<double>(this->ctx, extents(3, 0, 4)), ShapeError);
  EXPECT_THROW(fft::BatchedRealFft2<double>(this->ctx, extents(3, 4, 1)), ShapeError);
  fft::BatchedRealFft2<double> f(this->ctx, extents(2, 4, 4));
  Array<double, 3> wrong(this->ctx, extents(2, 4, 5));
  EXPECT_THROW(f.forward(wrong.view()), ShapeError);
  EXPECT_THROW(f.inverse(wrong.view()), ShapeError);
  fft::BatchedRealFft2<float> unplanned;
  Array<float, 3> any(this->ctx, extents(1, 1, 1));
  EXPECT_THROW(unplanned.forward(any.view()), Error);
}
