// Batched 2D real FFTs (spectral/batched_rfft2.hpp): FFTW's advanced interface on cpu contexts
// (FFTW_ESTIMATE: the same plan, so the same bits, in every run), cuFFT's on cuda ones.
#include "core/numerics/spectral/batched_rfft2.hpp"

#include <fftw3.h>

#include <mutex>
#include <string>

#include "core/kernels/for_each.hpp"
#include "core/numerics/detail/fft_common.hpp"
#if SIM_TU_HAS_CUDA
#include <cufft.h>

#include "core/numerics/detail/cufft_calls.hpp"

#include "core/cuda/check.hpp"
#endif

namespace sim::fft {
namespace {

template <class T>
using Cplx = detail::Complex<T>;

/// The contiguous staged array (n0, n1, n2) = in.
template <class T>
struct StageIn {
  View<const T, 3> in;
  View<T, 3> staged;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { staged(i, j, k) = in(i, j, k); }
};

/// out = the contiguous staged array.
template <class T>
struct StageOut {
  View<const T, 3> staged;
  View<T, 3> out;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { out(i, j, k) = staged(i, j, k); }
};

template <class T>
struct FftwMany;
template <>
struct FftwMany<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  static plan r2c(const int* n, int batch, double* r, complex* z) {
    return fftw_plan_many_dft_r2c(2, n, batch, r, nullptr, 1, n[0] * n[1], z, nullptr, 1, n[0] * (n[1] / 2 + 1),
                                  FFTW_ESTIMATE);
  }
  static plan c2r(const int* n, int batch, complex* z, double* r) {
    return fftw_plan_many_dft_c2r(2, n, batch, z, nullptr, 1, n[0] * (n[1] / 2 + 1), r, nullptr, 1, n[0] * n[1],
                                  FFTW_ESTIMATE);
  }
  static void run_r2c(plan p, double* r, complex* z) { fftw_execute_dft_r2c(p, r, z); }
  static void run_c2r(plan p, complex* z, double* r) { fftw_execute_dft_c2r(p, z, r); }
  static int alignment(const double* r) { return fftw_alignment_of(const_cast<double*>(r)); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static void* alloc(std::size_t bytes) { return fftw_malloc(bytes); }
  static void release(void* p) { fftw_free(p); }
};
template <>
struct FftwMany<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  static plan r2c(const int* n, int batch, float* r, complex* z) {
    return fftwf_plan_many_dft_r2c(2, n, batch, r, nullptr, 1, n[0] * n[1], z, nullptr, 1, n[0] * (n[1] / 2 + 1),
                                   FFTW_ESTIMATE);
  }
  static plan c2r(const int* n, int batch, complex* z, float* r) {
    return fftwf_plan_many_dft_c2r(2, n, batch, z, nullptr, 1, n[0] * (n[1] / 2 + 1), r, nullptr, 1, n[0] * n[1],
                                   FFTW_ESTIMATE);
  }
  static void run_r2c(plan p, float* r, complex* z) { fftwf_execute_dft_r2c(p, r, z); }
  static void run_c2r(plan p, complex* z, float* r) { fftwf_execute_dft_c2r(p, z, r); }
  static int alignment(const float* r) { return fftwf_alignment_of(const_cast<float*>(r)); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static void* alloc(std::size_t bytes) { return fftwf_malloc(bytes); }
  static void release(void* p) { fftwf_free(p); }
};


}  // namespace

template <class T>
struct BatchedRealFft2<T>::Impl {
  Context ctx;
  Extents<3> shape{};
  index_t h2 = 0;  // complex modes along the last axis
  T* real = nullptr;      // the staged contiguous real array
  T* spectrum = nullptr;  // n0 x n1 x h2 complex, as reals
  // cpu
  typename FftwMany<T>::plan forward = nullptr, inverse = nullptr;
  // cuda
  int plan_forward = -1, plan_inverse = -1;

  std::size_t points() const { return std::size_t(shape.size()); }
  std::size_t spectrum_reals() const { return std::size_t(shape.n[0] * shape.n[1] * 2 * h2); }
  View<T, 3> real_view() const { return contiguous_view(real, shape); }
  View<T, 3> spectrum_view() const { return contiguous_view(spectrum, spectrum_shape(shape)); }
  static View<T, 3> contiguous_view(T* p, const Extents<3>& e) {
    View<T, 3> v;
    v.ptr = p, v.shape = e, v.stride[0] = e.n[1] * e.n[2], v.stride[1] = e.n[2], v.stride[2] = 1;
    return v;
  }

  ~Impl() {
    if (forward || inverse) {
      std::lock_guard<std::mutex> lock(detail::fftw_planner_mutex());
      if (forward) FftwMany<T>::destroy(forward);
      if (inverse) FftwMany<T>::destroy(inverse);
    }
#if SIM_TU_HAS_CUDA
    if (plan_forward >= 0) cufftDestroy(cufftHandle(plan_forward));
    if (plan_inverse >= 0) cufftDestroy(cufftHandle(plan_inverse));
#endif
    if (!real && !spectrum) return;
    if (ctx.is_cuda()) {
      if (real) ctx.deallocate(real, points() * sizeof(T));
      if (spectrum) ctx.deallocate(spectrum, spectrum_reals() * sizeof(T));
    } else {
      if (real) FftwMany<T>::release(real);
      if (spectrum) FftwMany<T>::release(spectrum);
    }
  }

  void plan_cpu() {
    real = static_cast<T*>(FftwMany<T>::alloc(points() * sizeof(T)));
    spectrum = static_cast<T*>(FftwMany<T>::alloc(spectrum_reals() * sizeof(T)));
    if (!real || !spectrum) throw Error("FFTW could not allocate the buffers of batched 2D transforms of " + to_string(shape));
    const int n[2] = {int(shape.n[1]), int(shape.n[2])};
    auto* z = reinterpret_cast<typename FftwMany<T>::complex*>(spectrum);
    std::lock_guard<std::mutex> lock(detail::fftw_planner_mutex());
    forward = FftwMany<T>::r2c(n, int(shape.n[0]), real, z);
    inverse = FftwMany<T>::c2r(n, int(shape.n[0]), z, real);
    if (!forward || !inverse) throw Error("FFTW could not plan batched 2D transforms of " + to_string(shape));
  }

  void plan_cuda() {
#if SIM_TU_HAS_CUDA
    real = static_cast<T*>(ctx.allocate(points() * sizeof(T)));
    spectrum = static_cast<T*>(ctx.allocate(spectrum_reals() * sizeof(T)));
    const bool f64 = sizeof(T) == 8;
    long long n[2] = {shape.n[1], shape.n[2]};
    const long long real_dist = shape.n[1] * shape.n[2], complex_dist = shape.n[1] * h2;
    for (int inverse_plan = 0; inverse_plan < 2; ++inverse_plan) {
      cufftHandle h;
      detail::check_cufft(cufftCreate(&h), "Create");
      (inverse_plan ? plan_inverse : plan_forward) = int(h);
      detail::check_cufft(cufftSetStream(h, static_cast<cudaStream_t>(ctx.stream())), "SetStream");
      const cufftType type = inverse_plan ? (f64 ? CUFFT_Z2D : CUFFT_C2R) : (f64 ? CUFFT_D2Z : CUFFT_R2C);
      std::size_t work = 0;
      detail::check_cufft(cufftMakePlanMany64(h, 2, n, nullptr, 1, inverse_plan ? complex_dist : real_dist, nullptr, 1,
                                           inverse_plan ? real_dist : complex_dist, type, shape.n[0], &work),
                       "MakePlanMany64");
    }
#endif
  }

  /// True when v can be handed to the transform as is (dense row-major; on the CPU aligned as planned).
  bool direct(const T* p, bool contiguous) const {
    if (!contiguous) return false;
    return ctx.is_cuda() || FftwMany<T>::alignment(p) == FftwMany<T>::alignment(real);
  }

  void r2c(const T* in) const {
    if (!ctx.is_cuda()) {
      FftwMany<T>::run_r2c(forward, const_cast<T*>(in), reinterpret_cast<typename FftwMany<T>::complex*>(spectrum));
      return;
    }
#if SIM_TU_HAS_CUDA
    detail::exec_r2c(cufftHandle(plan_forward), in, reinterpret_cast<Cplx<T>*>(spectrum));
#endif
  }

  void c2r(T* out) const {
    if (!ctx.is_cuda()) {
      FftwMany<T>::run_c2r(inverse, reinterpret_cast<typename FftwMany<T>::complex*>(spectrum), out);
      return;
    }
#if SIM_TU_HAS_CUDA
    detail::exec_c2r(cufftHandle(plan_inverse), reinterpret_cast<Cplx<T>*>(spectrum), out);
#endif
  }
};

template <class T>
BatchedRealFft2<T>::BatchedRealFft2(const Context& ctx, const Extents<3>& shape) {
  if (shape.n[0] < 1 || shape.n[1] < 2 || shape.n[2] < 2)
    throw ShapeError("fft::BatchedRealFft2 needs at least 1 plane of 2 x 2 points, got " + to_string(shape));
  impl_ = std::make_shared<Impl>();
  Impl& im = *impl_;
  im.ctx = ctx, im.shape = shape, im.h2 = shape.n[2] / 2 + 1;
  if (ctx.is_cuda()) im.plan_cuda();
  else im.plan_cpu();
}

template <class T>
void BatchedRealFft2<T>::forward(View<const T, 3> in) const {
  if (!impl_) throw Error("fft::BatchedRealFft2 used before it was planned");
  const Impl& im = *impl_;
  if (in.shape != im.shape)
    throw ShapeError("fft::BatchedRealFft2 planned for shape " + to_string(im.shape) + ", called with " + to_string(in.shape));
  if (im.direct(in.ptr, in.contiguous())) return im.r2c(in.ptr);
  for_each(im.ctx, "fft::batched_rfft2_stage_in", box_of(im.shape), StageIn<T>{in, im.real_view()});
  im.r2c(im.real);
}

template <class T>
void BatchedRealFft2<T>::inverse(View<T, 3> out) const {
  if (!impl_) throw Error("fft::BatchedRealFft2 used before it was planned");
  const Impl& im = *impl_;
  if (out.shape != im.shape)
    throw ShapeError("fft::BatchedRealFft2 planned for shape " + to_string(im.shape) + ", called with " + to_string(out.shape));
  if (im.direct(out.ptr, out.contiguous())) return im.c2r(out.ptr);
  im.c2r(im.real);
  for_each(im.ctx, "fft::batched_rfft2_stage_out", box_of(im.shape), StageOut<T>{im.real_view(), out});
}

template <class T>
View<T, 3> BatchedRealFft2<T>::spectrum() const {
  if (!impl_) throw Error("fft::BatchedRealFft2 used before it was planned");
  return impl_->spectrum_view();
}

template <class T>
const Extents<3>& BatchedRealFft2<T>::shape() const {
  if (!impl_) throw Error("fft::BatchedRealFft2 used before it was planned");
  return impl_->shape;
}

template class BatchedRealFft2<float>;
template class BatchedRealFft2<double>;

}  // namespace sim::fft
