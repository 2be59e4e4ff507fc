// The fast transforms on every backend against their O(n^2) definitions (fft.hpp), every
// kind, every axis of 1-3D arrays, odd and even lengths, lengths 1 and 2, strided views,
// in place, and the scipy-style inverses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>

#include "core/array/expr.hpp"
#include "core/numerics/fft.hpp"
#include "core/kernels/for_each.hpp"
#include "core/numerics/spectral/multiplier2.hpp"
#include "core/numerics/spectral/multiplier3.hpp"
#include "core/mesh/grid.hpp"
#include "tests/support/backends.hpp"

using namespace sim;
using sim::fft::Kind;

namespace {

/// The kind's definition on one line x of length n (host, long double).
std::vector<double> reference(Kind kind, const std::vector<double>& x) {
  const long n = long(x.size());
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<double> out(static_cast<std::size_t>(n), 0.0);
  for (long k = 0; k < n; ++k) {
    long double s = 0;
    for (long j = 0; j < n; ++j) {
      const long double xj = x[std::size_t(j)];
      switch (kind) {
        case Kind::dct2: s += 2 * xj * std::cos(pi * (j + 0.5L) * k / n); break;
        case Kind::dct3: s += (j == 0 ? 1 : 2) * xj * std::cos(pi * j * (k + 0.5L) / n); break;
        case Kind::dct4: s += 2 * xj * std::cos(pi * (j + 0.5L) * (k + 0.5L) / n); break;
        case Kind::dst2: s += 2 * xj * std::sin(pi * (j + 0.5L) * (k + 1) / n); break;
        case Kind::dst3:
          s += j == n - 1 ? ((k % 2) ? -xj : xj) : 2 * xj * std::sin(pi * (j + 1) * (k + 0.5L) / n);
          break;
        case Kind::dst4: s += 2 * xj * std::sin(pi * (j + 0.5L) * (k + 0.5L) / n); break;
        case Kind::r2hc:
          if (2 * k <= n) s += xj * std::cos(2 * pi * j * k / n);
          else s -= xj * std::sin(2 * pi * j * (n - k) / n);
          break;
        case Kind::hc2r: {  // x holds r_0..r_{n/2}, i_{(n-1)/2}..i_1
          if (j == 0) s += xj;
          else if (2 * j < n) s += 2 * (xj * std::cos(2 * pi * j * k / n) - x[std::size_t(n - j)] * std::sin(2 * pi * j * k / n));
          else if (2 * j == n) s += xj * std::cos(pi * k);
          break;
        }
      }
    }
    out[std::size_t(k)] = double(s);
  }
  return out;
}

const Kind all_kinds[] = {Kind::dct2, Kind::dct3, Kind::dct4, Kind::dst2, Kind::dst3, Kind::dst4, Kind::r2hc, Kind::hc2r};

/// Row-major host values of a test array: not symmetric, no zeros.
std::vector<double> values(index_t size) {
  std::vector<double> h(static_cast<std::size_t>(size));
  for (index_t i = 0; i < size; ++i) h[std::size_t(i)] = std::sin(0.37 * double(i) + 0.2) + 0.01 * double(i % 7);
  return h;
}

/// The reference transform of a row-major host array of shape along axis.
template <int Rank>
std::vector<double> reference_along(Kind kind, const std::vector<double>& h, const Extents<Rank>& shape, int axis) {
  index_t outer = 1, inner = 1;
  const index_t n = shape.n[axis];
  for (int d = 0; d < axis; ++d) outer *= shape.n[d];
  for (int d = axis + 1; d < Rank; ++d) inner *= shape.n[d];
  std::vector<double> out(h.size());
  for (index_t o = 0; o < outer; ++o)
    for (index_t i = 0; i < inner; ++i) {
      std::vector<double> line(static_cast<std::size_t>(n));
      for (index_t m = 0; m < n; ++m) line[std::size_t(m)] = h[std::size_t((o * n + m) * inner + i)];
      const std::vector<double> r = reference(kind, line);
      for (index_t m = 0; m < n; ++m) out[std::size_t((o * n + m) * inner + i)] = r[std::size_t(m)];
    }
  return out;
}

template <class T>
double tolerance() { return sizeof(T) == 4 ? 2e-5 : 1e-12; }

/// Largest |a - b| relative to the largest |b|.
double rel_error(const std::vector<double>& a, const std::vector<double>& b) {
  double err = 0, scale = 1e-300;
  for (std::size_t i = 0; i < a.size(); ++i) err = std::max(err, std::abs(a[i] - b[i])), scale = std::max(scale, std::abs(b[i]));
  return err / scale;
}

template <class T, int Rank>
std::vector<double> to_double(const Array<T, Rank>& a) {
  const std::vector<T> h = a.to_host();
  return std::vector<double>(h.begin(), h.end());
}

template <class T, int Rank>
void check_every_kind_and_axis(const Context& ctx, const Extents<Rank>& shape) {
  const std::vector<double> h = values(shape.size());
  const auto x = Array<T, Rank>::from_host(ctx, shape, std::vector<T>(h.begin(), h.end()));
  const std::vector<double> hx = to_double(x);  // the values as T holds them
  for (int axis = 0; axis < Rank; ++axis)
    for (Kind kind : all_kinds) {
      const Array<T, Rank> y = fft::transform(x, kind, axis);
      const double err = rel_error(to_double(y), reference_along(kind, hx, shape, axis));
      EXPECT_LT(err, tolerance<T>()) << fft::name(kind) << " along axis " << axis << " of " << to_string(shape);
    }
}

}  // namespace

template <class B>
class FftTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(FftTest);

TYPED_TEST(FftTest, EveryKindMatchesItsDefinition1D) {
  for (index_t n : {1, 2, 3, 4, 5, 8, 17, 64, 100}) {
    check_every_kind_and_axis<double, 1>(this->ctx, extents(n));
    check_every_kind_and_axis<float, 1>(this->ctx, extents(n));
  }
}

TYPED_TEST(FftTest, EveryKindAndAxis2D3D) {
  check_every_kind_and_axis<double, 2>(this->ctx, extents(6, 9));
  check_every_kind_and_axis<float, 2>(this->ctx, extents(7, 16));
  check_every_kind_and_axis<double, 2>(this->ctx, extents(1, 5));
  check_every_kind_and_axis<double, 3>(this->ctx, extents(4, 5, 6));
  check_every_kind_and_axis<float, 3>(this->ctx, extents(3, 8, 2));
}

TYPED_TEST(FftTest, StridedViewsAndInPlace) {
  // the interior of a field with ghosts (a padded pitch), transformed in place and out of place
  const double len[2] = {1.0, 1.0};
  const Grid<2> grid = Grid<2>::uniform(extents(12, 10), len, 1);
  Field<double, 2> f(this->ctx, grid), g(this->ctx, grid);
  const std::vector<double> h = values(120);
  detail::copy_from_host<double, 2>(this->ctx, h.data(), f.view());
  for (int axis : {0, 1}) {
    const fft::Transform<double, 2> t(this->ctx, Kind::dct2, extents(12, 10), axis);
    t(f.view(), g.view());
    std::vector<double> out(120);
    detail::copy_to_host<double, 2>(this->ctx, g.view(), out.data());
    EXPECT_LT(rel_error(out, reference_along(Kind::dct2, h, extents(12, 10), axis)), 1e-12) << "axis " << axis;
  }
  const fft::Transform<double, 2> t(this->ctx, Kind::dst4, extents(12, 10), 0);
  t(f.view(), f.view());  // in place
  std::vector<double> out(120);
  detail::copy_to_host<double, 2>(this->ctx, f.view(), out.data());
  EXPECT_LT(rel_error(out, reference_along(Kind::dst4, h, extents(12, 10), 0)), 1e-12);
}

TYPED_TEST(FftTest, InversesGiveBackTheInput) {
  const std::vector<double> h = values(8 * 9 * 5);
  const auto x = Array<double, 3>::from_host(this->ctx, extents(8, 9, 5), h);
  for (int type : {2, 3, 4}) {
    EXPECT_LT(rel_error(to_double(fft::idct(fft::dct(x, 1, type), 1, type)), h), 1e-13) << "dct type " << type;
    EXPECT_LT(rel_error(to_double(fft::idst(fft::dst(x, 2, type), 2, type)), h), 1e-13) << "dst type " << type;
    EXPECT_LT(rel_error(to_double(fft::idctn(fft::dctn(x, type), type)), h), 1e-13) << "dctn type " << type;
  }
  EXPECT_LT(rel_error(to_double(fft::irfft(fft::rfft(x, 0), 0)), h), 1e-13);
  EXPECT_THROW(fft::dct(x, 3), ShapeError);
  EXPECT_THROW(fft::dct(x, 0, 1), Error);
}

TYPED_TEST(FftTest, EmptyAndWrongShape) {
  Array<double, 2> e(this->ctx, extents(0, 4));
  EXPECT_EQ(fft::dct(e, 1).size(), 0);
  const fft::Transform<double, 2> t(this->ctx, Kind::dct2, extents(4, 4), 0);
  Array<double, 2> a = Array<double, 2>::zeros(this->ctx, extents(4, 5));
  EXPECT_THROW(t(a, a), ShapeError);
}

// The 2D spectral multiplier against the separable transforms on the same backend:
// idctn(dctn(x) * m) and irfft2(rfft2(x) * m) (rfft2 built from two real DFTs here).
TYPED_TEST(FftTest, SpectralMultiplierMatchesTheSeparableTransforms) {
  for (auto [n1, n2] : {std::pair<index_t, index_t>{6, 10}, {7, 9}, {2, 2}, {16, 33}}) {
    const std::vector<double> h = values(n1 * n2);
    const auto x = Array<double, 2>::from_host(this->ctx, extents(n1, n2), h);
    // cosine: m = a smooth positive field
    std::vector<double> mh(std::size_t(n1 * n2));
    for (std::size_t k = 0; k < mh.size(); ++k) mh[k] = 1.0 / (1.0 + 0.1 * double(k));
    const auto m = Array<double, 2>::from_host(this->ctx, extents(n1, n2), mh);
    const fft::SpectralMultiplier<double> cosine(this->ctx, fft::Basis2D::cosine, extents(n1, n2), m);
    Array<double, 2> out(this->ctx, extents(n1, n2));
    cosine(x.view(), out.view());
    Array<double, 2> spec = fft::dctn(x);
    spec = spec * m;
    const std::vector<double> want = to_double(fft::idctn(spec));
    EXPECT_LT(rel_error(to_double(out), want), 1e-13) << "cosine " << n1 << "x" << n2;
    // fourier: m depends on |frequency| only (so the output is real), on (n1, n2/2 + 1)
    const index_t h2 = n2 / 2 + 1;
    std::vector<double> fh(std::size_t(n1 * h2)), full(std::size_t(n1 * n2));
    for (index_t a = 0; a < n1; ++a)
      for (index_t b = 0; b < n2; ++b) {
        const double fa = double(std::min(a, n1 - a)), fb = double(std::min(b, n2 - b));
        full[std::size_t(a * n2 + b)] = 1.0 / (1.0 + fa * fa + 0.5 * fb);
        if (b < h2) fh[std::size_t(a * h2 + b)] = full[std::size_t(a * n2 + b)];
      }
    const auto mf = Array<double, 2>::from_host(this->ctx, extents(n1, h2), fh);
    const fft::SpectralMultiplier<double> fourier(this->ctx, fft::Basis2D::fourier, extents(n1, n2), mf);
    fourier(x.view(), out.view());
    // separable: halfcomplex along both axes; a multiplier even in each frequency acts on each
    // halfcomplex coefficient pair alike
    Array<double, 2> s = fft::rfft(fft::rfft(x, 0), 1);
    const auto mfull = Array<double, 2>::from_host(this->ctx, extents(n1, n2), full);
    s = s * mfull;
    const std::vector<double> want_f = to_double(fft::irfft(fft::irfft(s, 1), 0));
    EXPECT_LT(rel_error(to_double(out), want_f), 1e-13) << "fourier " << n1 << "x" << n2;
  }
  EXPECT_THROW(fft::SpectralMultiplier<double>(this->ctx, fft::Basis2D::cosine, extents(4, 4),
                                                Array<double, 2>::zeros(this->ctx, extents(4, 3))),
               ShapeError);
}

namespace sim_test_fft {
/// staged(i, j) = x(i, j): a kernel's own gather into a SpectralMultiplier's buffer.
template <class T>
struct StageIn {
  sim::View<const T, 2> x;
  sim::fft::StagedView<T> s;
  SIM_INLINE void operator()(sim::index_t i, sim::index_t j) const { s(i, j) = x(i, j); }
};
/// y(i, j) = staged(i, j): the scatter of the result.
template <class T>
struct StageOut {
  sim::fft::StagedView<T> s;
  sim::View<T, 2> y;
  SIM_INLINE void operator()(sim::index_t i, sim::index_t j) const { y(i, j) = s(i, j); }
};

/// The operator through its staged buffer equals its call bit for bit; in T against the double call.
template <class T>
void check_staged(const sim::Context& ctx, sim::fft::Basis2D basis, sim::index_t n1, sim::index_t n2) {
  using namespace sim;
  const Extents<2> shape = extents(n1, n2), ms = fft::SpectralMultiplier<T>::multiplier_shape(basis, shape);
  std::vector<double> h(std::size_t(shape.size())), mh(std::size_t(ms.size()));
  for (std::size_t k = 0; k < h.size(); ++k) h[k] = std::sin(0.37 * double(k) + 0.2) + 0.01 * double(k % 7);
  for (index_t a = 0; a < ms.n[0]; ++a)  // even in the first frequency, so the fourier operator stays real
    for (index_t b = 0; b < ms.n[1]; ++b) mh[std::size_t(a * ms.n[1] + b)] = 1.0 / (1.0 + double(std::min(a, n1 - a)) + 0.5 * double(b));
  const auto x = Array<T, 2>::from_host(ctx, shape, std::vector<T>(h.begin(), h.end()));
  const fft::SpectralMultiplier<T> op(ctx, basis, shape, Array<T, 2>::from_host(ctx, ms, std::vector<T>(mh.begin(), mh.end())));
  Array<T, 2> called(ctx, shape), staged(ctx, shape);
  op(x.view(), called.view());
  for_each(ctx, "test::stage_in", x.box(), StageIn<T>{x.view(), op.staged()});
  op.apply_staged();
  for_each(ctx, "test::stage_out", x.box(), StageOut<T>{op.staged(), staged.view()});
  const std::vector<T> a = called.to_host(), b = staged.to_host();
  EXPECT_EQ(a, b) << (basis == fft::Basis2D::cosine ? "cosine " : "fourier ") << n1 << "x" << n2;
  // the double operator on the same (rounded) input, as the reference for float
  const std::vector<T> xr = x.to_host();
  const auto xd = Array<double, 2>::from_host(ctx, shape, std::vector<double>(xr.begin(), xr.end()));
  const fft::SpectralMultiplier<double> opd(ctx, basis, shape, Array<double, 2>::from_host(ctx, ms, mh));
  Array<double, 2> want(ctx, shape);
  opd(xd.view(), want.view());
  const std::vector<double> w = want.to_host();
  double err = 0, scale = 1e-300;
  for (std::size_t k = 0; k < w.size(); ++k) err = std::max(err, std::abs(double(a[k]) - w[k])), scale = std::max(scale, std::abs(w[k]));
  EXPECT_LT(err / scale, sizeof(T) == 4 ? 1e-5 : 1e-15) << n1 << "x" << n2;
}
}  // namespace sim_test_fft

// A kernel that fills the staged buffer itself (the fluid's pressure solve) gets what the call
// gives, whatever order the backend stores the buffer in; float32 close to float64.
TYPED_TEST(FftTest, StagedBufferGivesWhatTheCallGives) {
  for (auto [n1, n2] : {std::pair<index_t, index_t>{6, 10}, {7, 9}, {2, 2}, {16, 33}, {128, 128}}) {
    for (fft::Basis2D basis : {fft::Basis2D::cosine, fft::Basis2D::fourier}) {
      sim_test_fft::check_staged<float>(this->ctx, basis, n1, n2);
      sim_test_fft::check_staged<double>(this->ctx, basis, n1, n2);
    }
  }
}

namespace sim_test_fft {
/// staged(i, j, k) = x(i, j, k): a kernel's own gather into a FourierMultiplier3's buffer.
template <class T>
struct StageIn3 {
  sim::View<const T, 3> x;
  sim::fft::StagedView3<T> s;
  SIM_INLINE void operator()(sim::index_t i, sim::index_t j, sim::index_t k) const { s(i, j, k) = x(i, j, k); }
};
/// y(i, j, k) = s(i, j, k): a kernel's read of the staged or the result buffer.
template <class T>
struct StageOut3 {
  sim::fft::StagedView3<T> s;
  sim::View<T, 3> y;
  SIM_INLINE void operator()(sim::index_t i, sim::index_t j, sim::index_t k) const { y(i, j, k) = s(i, j, k); }
};

/// The 3D operator through its buffers: the result equals the call bit for bit, the staged
/// buffer keeps its input, and three Fourier modes come out multiplied each by its multiplier
/// (on the GPU the multiplication may run inside cuFFT's inverse transform: the same result).
template <class T>
void check_staged3(const sim::Context& ctx, sim::index_t n0, sim::index_t n1, sim::index_t n2) {
  using namespace sim;
  const Extents<3> shape = extents(n0, n1, n2), ms = fft::FourierMultiplier3<T>::multiplier_shape(shape);
  auto m_at = [&](index_t a, index_t b, index_t c) {  // even in each frequency: a real operator
    c = std::min(c, n2 - c);
    return 1.0 / (1.0 + double(std::min(a, n0 - a)) + 0.5 * double(std::min(b, n1 - b)) + 0.25 * double(c * c));
  };
  std::vector<T> mh(std::size_t(ms.size()));
  for (index_t a = 0; a < ms.n[0]; ++a)
    for (index_t b = 0; b < ms.n[1]; ++b)
      for (index_t c = 0; c < ms.n[2]; ++c) mh[std::size_t((a * ms.n[1] + b) * ms.n[2] + c)] = T(m_at(a, b, c));
  const fft::FourierMultiplier3<T> op(ctx, shape, Array<T, 3>::from_host(ctx, ms, mh));
  const double pi = 3.14159265358979323846;
  // three modes: negative and Nyquist-side frequencies among them, each with its own multiplier
  const index_t modes[3][3] = {{1 % n0, n1 - 1, n2 / 2}, {0, 1 % n1, 1 % n2}, {n0 / 2, 0, 1 % n2}};
  const double amplitude[3] = {1.0, 0.5, -0.75}, phase[3] = {0.3, -1.1, 0.7};
  std::vector<T> h(std::size_t(shape.size()));
  std::vector<double> want(h.size());
  for (index_t i = 0; i < n0; ++i)
    for (index_t j = 0; j < n1; ++j)
      for (index_t k = 0; k < n2; ++k) {
        double x = 0, y = 0;
        for (int m = 0; m < 3; ++m) {
          const auto& f = modes[m];
          const double wave = amplitude[m] * std::cos(2 * pi * (double(f[0] * i) / double(n0) + double(f[1] * j) / double(n1) +
                                                                double(f[2] * k) / double(n2)) + phase[m]);
          x += wave, y += m_at(f[0], f[1], f[2]) * wave;
        }
        h[std::size_t((i * n1 + j) * n2 + k)] = T(x), want[std::size_t((i * n1 + j) * n2 + k)] = y;
      }
  const auto x = Array<T, 3>::from_host(ctx, shape, h);
  Array<T, 3> called(ctx, shape), result(ctx, shape), kept(ctx, shape);
  op(x.view(), called.view());
  for_each(ctx, "test::stage_in3", x.box(), StageIn3<T>{x.view(), op.staged()});
  op.apply_staged();
  for_each(ctx, "test::stage_out3", x.box(), StageOut3<T>{op.result(), result.view()});
  for_each(ctx, "test::stage_kept3", x.box(), StageOut3<T>{op.staged(), kept.view()});
  const std::vector<T> a = called.to_host(), b = result.to_host(), k = kept.to_host();
  EXPECT_EQ(a, b) << "result against the call, " << n0 << "x" << n1 << "x" << n2;
  EXPECT_EQ(k, h) << "the staged buffer lost its input, " << n0 << "x" << n1 << "x" << n2;
  double err = 0;
  for (std::size_t q = 0; q < h.size(); ++q) err = std::max(err, std::abs(double(a[q]) - want[q]));
  EXPECT_LT(err, sizeof(T) == 4 ? 2e-5 : 1e-13) << n0 << "x" << n1 << "x" << n2 << ", multiplied in " << op.multiplication();
}
}  // namespace sim_test_fft

// The fluid's fused pressure solve reads p from the result buffer and its right-hand side from
// the staged one: both stay as the kernels and the transform left them.
TYPED_TEST(FftTest, Staged3DBufferKeepsItsInputAndTheResultIsTheCalls) {
  for (auto [n0, n1, n2] : {std::tuple<index_t, index_t, index_t>{6, 5, 8}, {7, 4, 9}, {2, 2, 2}, {16, 32, 24}}) {
    sim_test_fft::check_staged3<float>(this->ctx, n0, n1, n2);
    sim_test_fft::check_staged3<double>(this->ctx, n0, n1, n2);
  }
}

// The 3D operator says where it multiplies: on the CPU between the transforms; on the GPU in
// cuFFT's inverse transform when cuFFT could link the load callback, else between them with
// the reason. (Printed: which one ran is the machine's, both give the results above.)
TYPED_TEST(FftTest, Multiplier3SaysWhereItMultiplies) {
  const Extents<3> shape = extents(8, 6, 10);
  const auto m = Array<double, 3>::full(this->ctx, fft::FourierMultiplier3<double>::multiplier_shape(shape), 0.5);
  const fft::FourierMultiplier3<double> op(this->ctx, shape, m);
  const std::string& where = op.multiplication();
  EXPECT_EQ(op.multiplies_in_transform(), where.rfind("cuFFT's load callback", 0) == 0) << where;
  if (!this->ctx.is_cuda()) EXPECT_FALSE(op.multiplies_in_transform());
  std::cout << "[ multiplies in ] " << where << "\n";
}
