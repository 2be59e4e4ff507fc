// Batched complex FFTs along the first axis (spectral/batched_cfft.hpp): FFTW's advanced
// interface on cpu contexts (FFTW_ESTIMATE: the same plan, so the same bits, in every run),
// cuFFT's on cuda ones.
#include "core/numerics/spectral/batched_cfft.hpp"

#include <fftw3.h>

#include <mutex>
#include <string>

#include "core/detail/dispatch.hpp"
#include "core/numerics/detail/fft_common.hpp"
#include "core/numerics/spectral/spectrum_callbacks.hpp"  // (plain data: every build names SeparableDivision)
#if SIM_TU_HAS_CUDA
#include <cufft.h>

#include <cufftXt.h>

#include "core/numerics/detail/cufft_calls.hpp"
#if SIMKIT_HAS_FFT_CALLBACK
#include "multiply_callback_lto.h"  // simkit_multiply_callback_lto: multiply_callback.cu's LTO-IR (core/CMakeLists.txt)
#endif

#include "core/cuda/check.hpp"
#endif

namespace sim::fft {
namespace {

template <class T>
struct FftwC2c;
template <>
struct FftwC2c<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  static plan make(int n, int batch, int stride, complex* z, int sign) {
    return fftw_plan_many_dft(1, &n, batch, z, nullptr, stride, 1, z, nullptr, stride, 1, sign, FFTW_ESTIMATE | FFTW_UNALIGNED);
  }
  static void run(plan p, complex* z) { fftw_execute_dft(p, z, z); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};
template <>
struct FftwC2c<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  static plan make(int n, int batch, int stride, complex* z, int sign) {
    return fftwf_plan_many_dft(1, &n, batch, z, nullptr, stride, 1, z, nullptr, stride, 1, sign, FFTW_ESTIMATE | FFTW_UNALIGNED);
  }
  static void run(plan p, complex* z) { fftwf_execute_dft(p, z, z); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};

#if SIM_TU_HAS_CUDA
void exec_c2c(cufftHandle h, float* z, int direction) {
  auto* c = reinterpret_cast<cufftComplex*>(z);
  detail::check_cufft(cufftExecC2C(h, c, c, direction), "ExecC2C");
}
void exec_c2c(cufftHandle h, double* z, int direction) {
  auto* c = reinterpret_cast<cufftDoubleComplex*>(z);
  detail::check_cufft(cufftExecZ2Z(h, c, c, direction), "ExecZ2Z");
}
#endif

}  // namespace

template <class T>
struct BatchedComplexFft<T>::Impl {
  Context ctx;
  Extents<3> shape{};
  index_t columns = 0;  // complex columns along axis 0: n1 m
  index_t stride = 0;   // complex numbers from one plane to the next (columns where dense)
  // cpu: planned on the first call's pointer (FFTW_UNALIGNED: any later pointer will do)
  mutable std::mutex mutex;
  mutable typename FftwC2c<T>::plan forward = nullptr, inverse = nullptr;
  // cuda: one plan for both directions, and the forward dividing as it stores (divide_in_forward)
  int plan = -1, dividing_forward = -1;
  void* division = nullptr;  // the dividing plan's SeparableDivision, in device memory

  ~Impl() {
    if (forward || inverse) {
      std::lock_guard<std::mutex> lock(detail::fftw_planner_mutex());
      if (forward) FftwC2c<T>::destroy(forward);
      if (inverse) FftwC2c<T>::destroy(inverse);
    }
#if SIM_TU_HAS_CUDA
    if (plan >= 0) cufftDestroy(cufftHandle(plan));
    if (dividing_forward >= 0) cufftDestroy(cufftHandle(dividing_forward));
    if (division) ctx.deallocate(division, sizeof(detail::SeparableDivision<T>));
#endif
  }

  void plan_cuda() {
#if SIM_TU_HAS_CUDA
    cufftHandle h;
    detail::check_cufft(cufftCreate(&h), "Create");
    plan = int(h);
    detail::check_cufft(cufftSetStream(h, static_cast<cudaStream_t>(ctx.stream())), "SetStream");
    long long n = shape.n[0], embed = shape.n[0];
    std::size_t work = 0;
    detail::check_cufft(cufftMakePlanMany64(h, 1, &n, &embed, stride, 1, &embed, stride, 1,
                                            sizeof(T) == 8 ? CUFFT_Z2Z : CUFFT_C2C, columns, &work),
                        "MakePlanMany64");
#endif
  }

  void run(View<T, 3> z, bool backward) const {
    if (shape.n[0] == 1) return;  // the DFT of length 1 is the identity
    if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
      exec_c2c(cufftHandle(!backward && dividing_forward >= 0 ? dividing_forward : plan), z.ptr, backward ? CUFFT_INVERSE : CUFFT_FORWARD);
#endif
      return;
    }
    auto* c = reinterpret_cast<typename FftwC2c<T>::complex*>(z.ptr);
    std::lock_guard<std::mutex> lock(mutex);
    typename FftwC2c<T>::plan& p = backward ? inverse : forward;
    if (!p) {
      std::lock_guard<std::mutex> planner(detail::fftw_planner_mutex());
      p = FftwC2c<T>::make(int(shape.n[0]), int(columns), int(stride), c, backward ? FFTW_BACKWARD : FFTW_FORWARD);
      if (!p) throw Error("FFTW could not plan batched complex transforms along axis 0 of " + to_string(shape));
    }
    FftwC2c<T>::run(p, c);
  }

  /// The forward plan whose store callback divides by d (copied to the device), or false where
  /// cuFFT cannot make it.
  bool plan_dividing_forward(const detail::SeparableDivision<T>& d) {
#if SIM_TU_HAS_CUDA && SIMKIT_HAS_FFT_CALLBACK
    division = ctx.allocate(sizeof(d));
    SIM_CUDA_CHECK(cudaMemcpy(division, &d, sizeof(d), cudaMemcpyHostToDevice));  // (at planning: a synchronous copy)
    cufftHandle h;
    detail::check_cufft(cufftCreate(&h), "Create");
    const bool f64 = sizeof(T) == 8;
    // offsets in 32 bits where every one the plan stores fits (the narrow callbacks index faster)
    const bool narrow = (unsigned long long)shape.n[0] * (unsigned long long)stride < (1ull << 32);
    const char* name = f64 ? (narrow ? "simkit_divide_spectrum_z_narrow" : "simkit_divide_spectrum_z")
                           : (narrow ? "simkit_divide_spectrum_c_narrow" : "simkit_divide_spectrum_c");
    cufftResult r = cufftXtSetJITCallback(h, name, simkit_multiply_callback_lto, sizeof(simkit_multiply_callback_lto),
                                          f64 ? CUFFT_CB_ST_COMPLEX_DOUBLE : CUFFT_CB_ST_COMPLEX, &division);
    long long n = shape.n[0], embed = shape.n[0];
    std::size_t work = 0;
    if (r == CUFFT_SUCCESS)
      r = cufftMakePlanMany64(h, 1, &n, &embed, stride, 1, &embed, stride, 1, f64 ? CUFFT_Z2Z : CUFFT_C2C, columns, &work);
    if (r == CUFFT_SUCCESS) r = cufftSetStream(h, static_cast<cudaStream_t>(ctx.stream()));
    if (r == CUFFT_SUCCESS) {
      dividing_forward = int(h);
      return true;
    }
    cufftDestroy(h);
#else
    (void)d;
#endif
    return false;
  }

  void check(const View<T, 3>& z) const {
    const bool laid_out = z.stride[2] == 1 && z.stride[1] == shape.n[2] && (z.stride[0] == 2 * stride || shape.n[0] == 1);
    if (z.shape != shape || !laid_out)
      throw ShapeError("fft::BatchedComplexFft planned for arrays of shape " + to_string(shape) + " with planes " +
                       std::to_string(2 * stride) + " apart, called with " + (laid_out ? "" : "another layout of ") +
                       to_string(z.shape));
  }
};

template <class T>
BatchedComplexFft<T>::BatchedComplexFft(const Context& ctx, const Extents<3>& shape, index_t plane_stride) {
  if (shape.n[0] < 1 || shape.n[1] < 1 || shape.n[2] < 2 || shape.n[2] % 2 != 0)
    throw ShapeError("fft::BatchedComplexFft needs n0, n1 >= 1 and an even last extent (real and imaginary parts) >= 2, got " +
                     to_string(shape));
  if (plane_stride != 0 && (plane_stride < shape.n[1] * shape.n[2] || plane_stride % 2 != 0))
    throw ShapeError("fft::BatchedComplexFft: planes " + std::to_string(plane_stride) + " reals apart cannot hold " +
                     to_string(shape) + "'s planes");
  impl_ = std::make_shared<Impl>();
  Impl& im = *impl_;
  im.ctx = ctx, im.shape = shape, im.columns = shape.n[1] * (shape.n[2] / 2);
  im.stride = plane_stride != 0 ? plane_stride / 2 : im.columns;
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    if (shape.n[0] > 1) im.plan_cuda();
#else
    throw sim::detail::not_compiled_for_cuda("fft::BatchedComplexFft");
#endif
  }
}

template <class T>
void BatchedComplexFft<T>::forward(View<T, 3> z) const {
  if (!impl_) throw Error("fft::BatchedComplexFft used before it was planned");
  impl_->check(z);
  impl_->run(z, false);
}

template <class T>
void BatchedComplexFft<T>::inverse(View<T, 3> z) const {
  if (!impl_) throw Error("fft::BatchedComplexFft used before it was planned");
  impl_->check(z);
  impl_->run(z, true);
}

template <class T>
const Extents<3>& BatchedComplexFft<T>::shape() const {
  if (!impl_) throw Error("fft::BatchedComplexFft used before it was planned");
  return impl_->shape;
}

template <class T>
bool BatchedComplexFft<T>::divide_in_forward(View<const T, 1> l0, View<const T, 1> l1, View<const T, 1> l2, T inv_norm) {
  if (!impl_) throw Error("fft::BatchedComplexFft used before it was planned");
  Impl& im = *impl_;
  const index_t m = im.shape.n[2] / 2;
  if (l0.shape.n[0] < im.shape.n[0] || l1.shape.n[0] < im.shape.n[1] || l2.shape.n[0] < 2 * m)
    throw ShapeError("fft::BatchedComplexFft::divide_in_forward: eigenvalues of " + std::to_string(l0.shape.n[0]) + ", " +
                     std::to_string(l1.shape.n[0]) + ", " + std::to_string(l2.shape.n[0]) + " for a spectrum of " + to_string(im.shape));
  if (!im.ctx.is_cuda() || im.shape.n[0] == 1 || im.dividing_forward >= 0) return im.dividing_forward >= 0;
  return im.plan_dividing_forward(detail::SeparableDivision<T>{l0.ptr, l1.ptr, l2.ptr, (unsigned long long)im.stride,
                                                              (unsigned long long)m, inv_norm});
}

template class BatchedComplexFft<float>;
template class BatchedComplexFft<double>;

}  // namespace sim::fft
