// Spectral multipliers (spectral/multiplier2.hpp): on either backend a gather, a 2D real FFT (FFTW's
// r2c / c2r plans on cpu contexts, cuFFT on cuda ones), one spectral kernel, the inverse FFT
// and a scatter. The cosine basis goes through the real FFT on the CPU too: FFTW's own 2D
// REDFT10 / REDFT01 pair (FFTW_ESTIMATE) takes several times as long as an r2c / c2r pair of
// the same size (docs/performance.md), and it allocates a work buffer on every call.
// The cosine basis through a real FFT (Makhoul): with v the input reordered along both axes
// (x_0, x_2, x_4, ..., x_5, x_3, x_1) and V = rfft2(v),
//   dctn(x)(a, b) = 2 Re[ W1(a) (W2(b) V(a, b) + conj(W2(b)) V(a, -b)) ],  W(k) = e^{-i pi k / 2n},
// and the inverse of P = m * dctn(x) is the reordered irfft2 of
//   Z(k1, k2) = conj(W1(k1) W2(k2)) [P(k1, k2) - i P(k1, n2 - k2) - i P(n1 - k1, k2) - P(n1 - k1, n2 - k2)]
// (P at index n taken as 0), scaled by 1 / (4 n1 n2).
#include "core/numerics/spectral/multiplier2.hpp"

#include <fftw3.h>

#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "core/numerics/detail/fft_common.hpp"
#include "core/kernels/for_each.hpp"
#if SIM_TU_HAS_CUDA
#include <cufft.h>

#include "core/numerics/detail/cufft_calls.hpp"

#include "core/cuda/check.hpp"
#endif

namespace sim::fft {
namespace {

using detail::makhoul;
template <class T>
using Cplx = detail::Complex<T>;

template <class T>
struct GatherSpectral {
  View<const T, 2> in;
  T* real;
  index_t n1, n2;
  bool cosine;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const index_t a = cosine ? makhoul(i, n1) : i, b = cosine ? makhoul(j, n2) : j;
    real[a * n2 + b] = in(i, j);
  }
};

template <class T>
struct ScatterSpectral {
  const T* real;
  View<T, 2> out;
  index_t n1, n2;
  bool cosine;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const index_t a = cosine ? makhoul(i, n1) : i, b = cosine ? makhoul(j, n2) : j;
    out(i, j) = real[a * n2 + b];
  }
};

/// V *= m * scale (the fourier basis; in place).
template <class T>
struct MultiplyFourier {
  Cplx<T>* v;
  View<const T, 2> m;
  index_t h2;
  T scale;
  SIM_INLINE void operator()(index_t k1, index_t k2) const {
    const T f = m(k1, k2) * scale;
    Cplx<T>& z = v[k1 * h2 + k2];
    z.re *= f, z.im *= f;
  }
};

/// Z(k1, k2) and Z(n1 - k1, k2) from V for the cosine basis (see the top of this file): the
/// two share their four multiplied coefficients P. One thread per k1 <= n1 / 2, k2 < h2;
/// twiddles come from tables tw1 (n1 entries), tw2 (n2): tw(k) = (cos, sin)(pi k / 2n).
template <class T>
struct MultiplyCosine {
  const Cplx<T>* v;
  Cplx<T>* z;
  View<const T, 2> m;
  const Cplx<double>* tw1;
  const Cplx<double>* tw2;
  index_t n1, n2, h2;
  double scale;
  /// k % n for k in [0, n] (no integer division: this kernel's modulos cost more than its arithmetic).
  SIM_INLINE static index_t wrap(index_t k, index_t n) { return k == n ? 0 : k; }
  /// V(a, b) for any a in [0, n1), b in [0, n2) from the half spectrum.
  SIM_INLINE Cplx<double> spectrum(index_t a, index_t b) const {
    if (b < h2) {
      const Cplx<T> c = v[a * h2 + b];
      return {double(c.re), double(c.im)};
    }
    const Cplx<T> c = v[wrap(n1 - a, n1) * h2 + (n2 - b)];
    return {double(c.re), -double(c.im)};
  }
  /// P(a, b) = m(a, b) * dctn(x)(a, b) * scale; 0 at a == n1 or b == n2.
  SIM_INLINE double multiplied(index_t a, index_t b) const {
    if (a == n1 || b == n2) return 0.0;
    const Cplx<double> w1 = tw1[a], w2 = tw2[b], v1 = spectrum(a, b), v2 = spectrum(a, wrap(n2 - b, n2));
    const double c1 = w1.re, s1 = w1.im, c2 = w2.re, s2 = w2.im;
    // W2 V(a, b) + conj(W2) V(a, -b), W2 = c2 - i s2
    const double sr = c2 * v1.re + s2 * v1.im + c2 * v2.re - s2 * v2.im;
    const double si = c2 * v1.im - s2 * v1.re + c2 * v2.im + s2 * v2.re;
    // 2 Re[W1 (sr + i si)], W1 = c1 - i s1
    return 2.0 * (c1 * sr + s1 * si) * double(m(a, b)) * scale;
  }
  /// conj(W1(k1) W2(k2)) q, stored at z(k1, k2).
  SIM_INLINE void store(index_t k1, index_t k2, double qr, double qi) const {
    const double c1 = tw1[k1].re, s1 = tw1[k1].im, c2 = tw2[k2].re, s2 = tw2[k2].im;
    const double wr = c1 * c2 - s1 * s2, wi = c1 * s2 + s1 * c2;  // e^{+i pi (k1/2n1 + k2/2n2)}
    z[k1 * h2 + k2] = Cplx<T>{T(wr * qr - wi * qi), T(wr * qi + wi * qr)};
  }
  SIM_INLINE void operator()(index_t k1, index_t k2) const {
    const index_t a = k1 == 0 ? n1 : n1 - k1, b = k2 == 0 ? n2 : n2 - k2;
    const double p00 = multiplied(k1, k2), p01 = multiplied(k1, b), p10 = multiplied(a, k2), p11 = multiplied(a, b);
    // Z(k1, k2) ~ P(k1,k2) - i P(k1,-k2) - i P(-k1,k2) - P(-k1,-k2); Z(-k1, k2) swaps the roles of k1 and -k1
    store(k1, k2, p00 - p11, -p01 - p10);
    if (a < n1 && a != k1) store(a, k2, p10 - p01, -p11 - p00);
  }
};

template <class T>
struct Fftw2;
template <>
struct Fftw2<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  static plan r2c(int n1, int n2, double* r, complex* c) { return fftw_plan_dft_r2c_2d(n1, n2, r, c, FFTW_ESTIMATE); }
  static plan c2r(int n1, int n2, complex* c, double* r) { return fftw_plan_dft_c2r_2d(n1, n2, c, r, FFTW_ESTIMATE); }
  static void run(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static complex* alloc(std::size_t n) { return static_cast<complex*>(fftw_malloc(n * sizeof(complex))); }
  static void release(complex* c) { fftw_free(c); }
};
template <>
struct Fftw2<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  static plan r2c(int n1, int n2, float* r, complex* c) { return fftwf_plan_dft_r2c_2d(n1, n2, r, c, FFTW_ESTIMATE); }
  static plan c2r(int n1, int n2, complex* c, float* r) { return fftwf_plan_dft_c2r_2d(n1, n2, c, r, FFTW_ESTIMATE); }
  static void run(plan p) { fftwf_execute(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static complex* alloc(std::size_t n) { return static_cast<complex*>(fftwf_malloc(n * sizeof(complex))); }
  static void release(complex* c) { fftwf_free(c); }
};


}  // namespace

template <class T>
struct SpectralMultiplier<T>::Impl {
  Context ctx;
  Basis2D basis = Basis2D::cosine;
  index_t n1 = 0, n2 = 0, h2 = 0;
  Array<T, 2> m;
  std::mutex mutex;  // cpu: the work buffers are shared by calls
  // cpu
  std::vector<T> real;
  typename Fftw2<T>::complex *spectrum = nullptr, *multiplied = nullptr;  // V, and Z (cosine)
  std::vector<Cplx<double>> twiddle1, twiddle2;                          // (cos, sin)(pi k / 2n) per axis (cosine)
  typename Fftw2<T>::plan forward = nullptr, inverse = nullptr;
  // cuda
  int plan_forward = -1, plan_inverse = -1;
  T* dreal = nullptr;
  Cplx<T>*dv = nullptr, *dz = nullptr;
  Cplx<double>*tw1 = nullptr, *tw2 = nullptr;  // (cos, sin)(pi k / 2n) per axis

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(detail::fftw_planner_mutex());
      if (forward) Fftw2<T>::destroy(forward);
      if (inverse) Fftw2<T>::destroy(inverse);
    }
    if (spectrum) Fftw2<T>::release(spectrum);
    if (multiplied) Fftw2<T>::release(multiplied);
#if SIM_TU_HAS_CUDA
    if (plan_forward >= 0) cufftDestroy(cufftHandle(plan_forward));
    if (plan_inverse >= 0) cufftDestroy(cufftHandle(plan_inverse));
#endif
    if (dreal) ctx.deallocate(dreal, std::size_t(n1 * n2) * sizeof(T));
    if (dv) ctx.deallocate(dv, std::size_t(n1 * h2) * sizeof(Cplx<T>));
    if (dz) ctx.deallocate(dz, std::size_t(n1 * h2) * sizeof(Cplx<T>));
    if (tw1) ctx.deallocate(tw1, std::size_t(n1) * sizeof(Cplx<double>));
    if (tw2) ctx.deallocate(tw2, std::size_t(n2) * sizeof(Cplx<double>));
  }

  double scale() const { return basis == Basis2D::cosine ? 1.0 / (4.0 * double(n1 * n2)) : 1.0 / double(n1 * n2); }

  /// The real buffer (Makhoul's order for the cosine basis), the half spectra, the twiddle
  /// tables and FFTW's r2c / c2r plans between them (FFTW_ESTIMATE: the same plan, so the same
  /// bits, in every run).
  void plan_cpu() {
    const bool cosine = basis == Basis2D::cosine;
    real.resize(std::size_t(n1 * n2));
    if (cosine) {
      auto table = [](index_t n) {
        std::vector<Cplx<double>> t(static_cast<std::size_t>(n));
        for (index_t k = 0; k < n; ++k) detail::cos_sin_pi(double(k) / double(2 * n), t[std::size_t(k)].re, t[std::size_t(k)].im);
        return t;
      };
      twiddle1 = table(n1), twiddle2 = table(n2);
    }
    std::lock_guard<std::mutex> lock(detail::fftw_planner_mutex());
    spectrum = Fftw2<T>::alloc(std::size_t(n1 * h2));
    multiplied = cosine ? Fftw2<T>::alloc(std::size_t(n1 * h2)) : nullptr;
    if (!spectrum || (cosine && !multiplied))
      throw Error("FFTW could not allocate the spectra of a " + std::to_string(n1) + " x " + std::to_string(n2) + " transform");
    forward = Fftw2<T>::r2c(int(n1), int(n2), real.data(), spectrum);
    inverse = Fftw2<T>::c2r(int(n1), int(n2), cosine ? multiplied : spectrum, real.data());
    if (!forward || !inverse) throw Error("FFTW could not plan a 2D transform of " + std::to_string(n1) + " x " + std::to_string(n2));
  }

  void run_cpu(View<const T, 2> in, View<T, 2> out) {
    std::lock_guard<std::mutex> lock(mutex);
    const bool cosine = basis == Basis2D::cosine;
    const Box<2> all{{0, 0}, {n1, n2}};
    for_each(ctx, "fft::spectral_gather", all, GatherSpectral<T>{in, real.data(), n1, n2, cosine});
    run_cpu_staged();
    for_each(ctx, "fft::spectral_scatter", all, ScatterSpectral<T>{real.data(), out, n1, n2, cosine});
  }

  /// The transform, multiplication and inverse on real, in place (the GPU's steps on FFTW).
  void run_cpu_staged() {
    Fftw2<T>::run(forward);
    auto* v = reinterpret_cast<Cplx<T>*>(spectrum);  // fftw_complex is {re, im}, as Cplx
    if (basis == Basis2D::cosine) {
      const Box<2> pairs{{0, 0}, {n1 / 2 + 1, h2}};  // k1 and n1 - k1 together
      for_each(ctx, "fft::spectral_multiply_cosine", pairs,
               MultiplyCosine<T>{v, reinterpret_cast<Cplx<T>*>(multiplied), m.view(), twiddle1.data(), twiddle2.data(), n1, n2,
                                 h2, scale()});
    } else {
      for_each(ctx, "fft::spectral_multiply_fourier", Box<2>{{0, 0}, {n1, h2}}, MultiplyFourier<T>{v, m.view(), h2, T(scale())});
    }
    Fftw2<T>::run(inverse);
  }

  void plan_cuda() {
#if SIM_TU_HAS_CUDA
    dreal = static_cast<T*>(ctx.allocate(std::size_t(n1 * n2) * sizeof(T)));
    dv = static_cast<Cplx<T>*>(ctx.allocate(std::size_t(n1 * h2) * sizeof(Cplx<T>)));
    if (basis == Basis2D::cosine) {
      dz = static_cast<Cplx<T>*>(ctx.allocate(std::size_t(n1 * h2) * sizeof(Cplx<T>)));
      auto table = [&](index_t n) {
        std::vector<Cplx<double>> h(static_cast<std::size_t>(n));
        for (index_t k = 0; k < n; ++k) detail::cos_sin_pi(double(k) / double(2 * n), h[std::size_t(k)].re, h[std::size_t(k)].im);
        auto* d = static_cast<Cplx<double>*>(ctx.allocate(std::size_t(n) * sizeof(Cplx<double>)));
        SIM_CUDA_CHECK(cudaMemcpy(d, h.data(), std::size_t(n) * sizeof(Cplx<double>), cudaMemcpyHostToDevice));
        return d;
      };
      ctx.synchronize();  // the pool's memory is stream-ordered; the plain copies below are not
      tw1 = table(n1), tw2 = table(n2);
    }
    const bool f64 = sizeof(T) == 8;
    cufftHandle h;
    detail::check_cufft(cufftPlan2d(&h, int(n1), int(n2), f64 ? CUFFT_D2Z : CUFFT_R2C), "Plan2d");
    plan_forward = int(h);
    detail::check_cufft(cufftSetStream(h, static_cast<cudaStream_t>(ctx.stream())), "SetStream");
    detail::check_cufft(cufftPlan2d(&h, int(n1), int(n2), f64 ? CUFFT_Z2D : CUFFT_C2R), "Plan2d");
    plan_inverse = int(h);
    detail::check_cufft(cufftSetStream(h, static_cast<cudaStream_t>(ctx.stream())), "SetStream");
#endif
  }

  void run_cuda(View<const T, 2> in, View<T, 2> out) {
#if SIM_TU_HAS_CUDA
    const bool cosine = basis == Basis2D::cosine;
    const Box<2> all{{0, 0}, {n1, n2}};
    for_each(ctx, "fft::spectral_gather", all, GatherSpectral<T>{in, dreal, n1, n2, cosine});
    run_cuda_staged();
    for_each(ctx, "fft::spectral_scatter", all, ScatterSpectral<T>{dreal, out, n1, n2, cosine});
#else
    (void)in, (void)out;
#endif
  }

  /// The transform, multiplication and inverse on dreal, in place.
  void run_cuda_staged() {
#if SIM_TU_HAS_CUDA
    const bool cosine = basis == Basis2D::cosine;
    const Box<2> half{{0, 0}, {n1, h2}};
    detail::exec_r2c(cufftHandle(plan_forward), dreal, dv);
    Cplx<T>* spectrum_in = dv;
    if (cosine) {
      const Box<2> pairs{{0, 0}, {n1 / 2 + 1, h2}};  // k1 and n1 - k1 together
      for_each(ctx, "fft::spectral_multiply_cosine", pairs, MultiplyCosine<T>{dv, dz, m.view(), tw1, tw2, n1, n2, h2, scale()});
      spectrum_in = dz;
    } else {
      for_each(ctx, "fft::spectral_multiply_fourier", half, MultiplyFourier<T>{dv, m.view(), h2, T(scale())});
    }
    detail::exec_c2r(cufftHandle(plan_inverse), spectrum_in, dreal);
#endif
  }
};

template <class T>
SpectralMultiplier<T>::SpectralMultiplier(const Context& ctx, Basis2D basis, const Extents<2>& shape, const Array<T, 2>& m)
    : impl_(std::make_shared<Impl>()) {
  Impl& im = *impl_;
  im.ctx = ctx, im.basis = basis, im.n1 = shape.n[0], im.n2 = shape.n[1], im.h2 = shape.n[1] / 2 + 1;
  if (im.n1 < 2 || im.n2 < 2)
    throw ShapeError("fft::SpectralMultiplier needs at least 2 x 2 points, got " + to_string(shape));
  if (m.shape() != multiplier_shape(basis, shape))
    throw ShapeError("fft::SpectralMultiplier: multiplier of shape " + to_string(m.shape()) + " for arrays of shape " +
                     to_string(shape) + " (expected " + to_string(multiplier_shape(basis, shape)) + ")");
  if (m.context() != ctx) throw BackendError("fft::SpectralMultiplier: the multiplier lives on another context");
  im.m = m.clone();
  if (ctx.is_cuda()) im.plan_cuda();
  else im.plan_cpu();
}

template <class T>
void SpectralMultiplier<T>::operator()(View<const T, 2> in, View<T, 2> out) const {
  if (!impl_) throw Error("fft::SpectralMultiplier used before it was planned");
  const Extents<2> shape = extents(impl_->n1, impl_->n2);
  if (in.shape != shape || out.shape != shape)
    throw ShapeError("fft::SpectralMultiplier planned for shape " + to_string(shape) + ", called with " + to_string(in.shape) +
                     " -> " + to_string(out.shape));
  if (impl_->ctx.is_cuda()) impl_->run_cuda(in, out);
  else impl_->run_cpu(in, out);
}

template <class T>
StagedView<T> SpectralMultiplier<T>::staged() const {
  if (!impl_) throw Error("fft::SpectralMultiplier used before it was planned");
  const Impl& im = *impl_;
  if (im.ctx.is_cuda()) return StagedView<T>{im.dreal, im.n1, im.n2, im.basis == Basis2D::cosine};
  return StagedView<T>{const_cast<T*>(im.real.data()), im.n1, im.n2, im.basis == Basis2D::cosine};
}

template <class T>
void SpectralMultiplier<T>::apply_staged() const {
  if (!impl_) throw Error("fft::SpectralMultiplier used before it was planned");
  if (impl_->ctx.is_cuda()) impl_->run_cuda_staged();
  else impl_->run_cpu_staged();
}

template class SpectralMultiplier<float>;
template class SpectralMultiplier<double>;

}  // namespace sim::fft
