// The 3D Fourier multiplier (spectral/multiplier3.hpp): FFTW's 3D r2c / c2r plans on cpu contexts
// (FFTW_ESTIMATE: the same plan, so the same bits, in every run), cuFFT's on cuda ones.
#include "core/numerics/spectral/multiplier3.hpp"

#include <fftw3.h>

#include <mutex>
#include <string>
#include <vector>

#include "core/array/expr.hpp"
#include "core/kernels/for_each.hpp"
#include "core/numerics/detail/fft_common.hpp"
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
using Cplx = detail::Complex<T>;

template <class T>
struct Gather3 {
  View<const T, 3> in;
  StagedView3<T> real;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { real(i, j, k) = in(i, j, k); }
};

template <class T>
struct Scatter3 {
  StagedView3<T> real;
  View<T, 3> out;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { out(i, j, k) = real(i, j, k); }
};

/// v *= m (the multiplier with the transforms' 1 / points folded in), in place, over the
/// spectrum as one flat range (v and m contiguous, in the same order): the last dimension's
/// n/2 + 1 modes would leave half of a block idle per row.
template <class T>
struct MultiplyFourier3 {
  Cplx<T>* v;
  const T* m;
  SIM_INLINE void operator()(index_t q) const {
    const T f = m[q];
    Cplx<T>& z = v[q];
    z.re *= f, z.im *= f;
  }
};

template <class T>
struct Fftw3d;
template <>
struct Fftw3d<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  static plan r2c(int a, int b, int c, double* r, complex* z) { return fftw_plan_dft_r2c_3d(a, b, c, r, z, FFTW_ESTIMATE); }
  static plan c2r(int a, int b, int c, complex* z, double* r) { return fftw_plan_dft_c2r_3d(a, b, c, z, r, FFTW_ESTIMATE); }
  static void run(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static complex* alloc(std::size_t n) { return static_cast<complex*>(fftw_malloc(n * sizeof(complex))); }
  static void release(complex* z) { fftw_free(z); }
};
template <>
struct Fftw3d<float> {
  using plan = fftwf_plan;
  using complex = fftwf_complex;
  static plan r2c(int a, int b, int c, float* r, complex* z) { return fftwf_plan_dft_r2c_3d(a, b, c, r, z, FFTW_ESTIMATE); }
  static plan c2r(int a, int b, int c, complex* z, float* r) { return fftwf_plan_dft_c2r_3d(a, b, c, z, r, FFTW_ESTIMATE); }
  static void run(plan p) { fftwf_execute(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static complex* alloc(std::size_t n) { return static_cast<complex*>(fftwf_malloc(n * sizeof(complex))); }
  static void release(complex* z) { fftwf_free(z); }
};


}  // namespace

template <class T>
struct FourierMultiplier3<T>::Impl {
  Context ctx;
  index_t n0 = 0, n1 = 0, n2 = 0, h2 = 0;
  Array<T, 3> m;  // the multiplier times 1 / points (the unnormalised transforms' scale)
  std::string multiplication = "a kernel between the transforms";
  bool multiplies_in_transform = false;  // the inverse plan's load callback multiplies (cuda)
  std::mutex mutex;  // cpu: the buffers are shared by calls
  // cpu
  std::vector<T> real, real_out;
  typename Fftw3d<T>::complex* spectrum = nullptr;
  typename Fftw3d<T>::plan forward = nullptr, inverse = nullptr;
  // cuda
  int plan_forward = -1, plan_inverse = -1;
  T* dreal = nullptr;      // the staged input (the r2c transform keeps it)
  T* dreal_out = nullptr;  // the c2r transform's output
  Cplx<T>* dv = nullptr;

  std::size_t points() const { return std::size_t(n0 * n1 * n2); }
  std::size_t modes() const { return std::size_t(n0 * n1 * h2); }
  Box<3> all() const { return Box<3>{{0, 0, 0}, {n0, n1, n2}}; }
  T* buffer() { return ctx.is_cuda() ? dreal : real.data(); }
  T* output() { return ctx.is_cuda() ? dreal_out : real_out.data(); }

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(detail::fftw_planner_mutex());
      if (forward) Fftw3d<T>::destroy(forward);
      if (inverse) Fftw3d<T>::destroy(inverse);
    }
    if (spectrum) Fftw3d<T>::release(spectrum);
#if SIM_TU_HAS_CUDA
    if (plan_forward >= 0) cufftDestroy(cufftHandle(plan_forward));
    if (plan_inverse >= 0) cufftDestroy(cufftHandle(plan_inverse));
#endif
    if (dreal) ctx.deallocate(dreal, points() * sizeof(T));
    if (dreal_out) ctx.deallocate(dreal_out, points() * sizeof(T));
    if (dv) ctx.deallocate(dv, modes() * sizeof(Cplx<T>));
  }

  void plan_cpu() {
    real.resize(points());
    real_out.resize(points());
    std::lock_guard<std::mutex> lock(detail::fftw_planner_mutex());
    spectrum = Fftw3d<T>::alloc(modes());
    if (!spectrum) throw Error("FFTW could not allocate the spectrum of a " + to_string(extents(n0, n1, n2)) + " transform");
    forward = Fftw3d<T>::r2c(int(n0), int(n1), int(n2), real.data(), spectrum);
    inverse = Fftw3d<T>::c2r(int(n0), int(n1), int(n2), spectrum, real_out.data());
    if (!forward || !inverse) throw Error("FFTW could not plan a 3D transform of " + to_string(extents(n0, n1, n2)));
  }

  void plan_cuda() {
#if SIM_TU_HAS_CUDA
    dreal = static_cast<T*>(ctx.allocate(points() * sizeof(T)));
    dreal_out = static_cast<T*>(ctx.allocate(points() * sizeof(T)));
    dv = static_cast<Cplx<T>*>(ctx.allocate(modes() * sizeof(Cplx<T>)));
    const bool f64 = sizeof(T) == 8;
    cufftHandle h;
    detail::check_cufft(cufftPlan3d(&h, int(n0), int(n1), int(n2), f64 ? CUFFT_D2Z : CUFFT_R2C), "Plan3d");
    plan_forward = int(h);
    detail::check_cufft(cufftSetStream(h, static_cast<cudaStream_t>(ctx.stream())), "SetStream");
    plan_inverse = plan_inverse_multiplying();
    if (plan_inverse < 0) {
      detail::check_cufft(cufftPlan3d(&h, int(n0), int(n1), int(n2), f64 ? CUFFT_Z2D : CUFFT_C2R), "Plan3d");
      plan_inverse = int(h);
    }
    detail::check_cufft(cufftSetStream(cufftHandle(plan_inverse), static_cast<cudaStream_t>(ctx.stream())), "SetStream");
#endif
  }

  /// The inverse plan with the multiplication in its load callback (cuFFT links it in when it
  /// plans: JIT LTO through the toolkit's nvJitLink and NVRTC), or -1 when cuFFT cannot make
  /// it; multiplication says which and why.
  int plan_inverse_multiplying() {
#if SIM_TU_HAS_CUDA && SIMKIT_HAS_FFT_CALLBACK
    const bool f64 = sizeof(T) == 8;
    cufftHandle h;
    detail::check_cufft(cufftCreate(&h), "Create");
    void* info = m.data();
    std::size_t work = 0;
    cufftResult r = cufftXtSetJITCallback(h, f64 ? "simkit_multiply_spectrum_z" : "simkit_multiply_spectrum_c",
                                          simkit_multiply_callback_lto, sizeof(simkit_multiply_callback_lto),
                                          f64 ? CUFFT_CB_LD_COMPLEX_DOUBLE : CUFFT_CB_LD_COMPLEX, &info);
    const char* step = "XtSetJITCallback";
    if (r == CUFFT_SUCCESS) r = cufftMakePlan3d(h, int(n0), int(n1), int(n2), f64 ? CUFFT_Z2D : CUFFT_C2R, &work), step = "MakePlan3d";
    if (r == CUFFT_SUCCESS) {
      multiplication = "cuFFT's load callback (inverse transform)";
      multiplies_in_transform = true;
      return int(h);
    }
    cufftDestroy(h);
    multiplication = "a kernel between the transforms (cuFFT's load callback: cufft" + std::string(step) + " returned cufftResult " +
                     std::to_string(int(r)) + (r == CUFFT_MISSING_DEPENDENCY ? ", libnvJitLink or libnvrtc not found" : "") + ")";
#endif
    return -1;
  }

  /// The transform of the staged buffer (kept: r2c keeps its input), the multiplication, and
  /// the inverse into the output buffer.
  void run_staged() {
    const Box<1> half{{0}, {index_t(modes())}};
    if (!ctx.is_cuda()) {
      Fftw3d<T>::run(forward);
      for_each(ctx, "fft::fourier3_multiply", half, MultiplyFourier3<T>{reinterpret_cast<Cplx<T>*>(spectrum), m.data()});
      Fftw3d<T>::run(inverse);
      return;
    }
#if SIM_TU_HAS_CUDA
    detail::exec_r2c(cufftHandle(plan_forward), dreal, dv);
    if (!multiplies_in_transform) for_each(ctx, "fft::fourier3_multiply", half, MultiplyFourier3<T>{dv, m.data()});
    detail::exec_c2r(cufftHandle(plan_inverse), dv, dreal_out);
#endif
  }
};

template <class T>
FourierMultiplier3<T>::FourierMultiplier3(const Context& ctx, const Extents<3>& shape, const Array<T, 3>& m)
    : impl_(std::make_shared<Impl>()) {
  Impl& im = *impl_;
  im.ctx = ctx, im.n0 = shape.n[0], im.n1 = shape.n[1], im.n2 = shape.n[2], im.h2 = shape.n[2] / 2 + 1;
  if (im.n0 < 2 || im.n1 < 2 || im.n2 < 2)
    throw ShapeError("fft::FourierMultiplier3 needs at least 2 x 2 x 2 points, got " + to_string(shape));
  if (m.shape() != multiplier_shape(shape))
    throw ShapeError("fft::FourierMultiplier3: multiplier of shape " + to_string(m.shape()) + " for arrays of shape " +
                     to_string(shape) + " (expected " + to_string(multiplier_shape(shape)) + ")");
  if (m.context() != ctx) throw BackendError("fft::FourierMultiplier3: the multiplier lives on another context");
  im.m = m.clone();
  im.m = im.m * T(1.0 / double(im.points()));
  if (ctx.is_cuda()) im.plan_cuda();
  else im.plan_cpu();
}

template <class T>
void FourierMultiplier3<T>::operator()(View<const T, 3> in, View<T, 3> out) const {
  if (!impl_) throw Error("fft::FourierMultiplier3 used before it was planned");
  Impl& im = *impl_;
  const Extents<3> shape = extents(im.n0, im.n1, im.n2);
  if (in.shape != shape || out.shape != shape)
    throw ShapeError("fft::FourierMultiplier3 planned for shape " + to_string(shape) + ", called with " + to_string(in.shape) +
                     " -> " + to_string(out.shape));
  std::unique_lock<std::mutex> lock(im.mutex, std::defer_lock);
  if (!im.ctx.is_cuda()) lock.lock();
  for_each(im.ctx, "fft::fourier3_gather", im.all(), Gather3<T>{in, StagedView3<T>{im.buffer(), im.n1, im.n2}});
  im.run_staged();
  for_each(im.ctx, "fft::fourier3_scatter", im.all(), Scatter3<T>{StagedView3<T>{im.output(), im.n1, im.n2}, out});
}

template <class T>
bool FourierMultiplier3<T>::multiplies_in_transform() const {
  return impl_ && impl_->multiplies_in_transform;
}

template <class T>
const std::string& FourierMultiplier3<T>::multiplication() const {
  if (!impl_) throw Error("fft::FourierMultiplier3 used before it was planned");
  return impl_->multiplication;
}

template <class T>
StagedView3<T> FourierMultiplier3<T>::staged() const {
  if (!impl_) throw Error("fft::FourierMultiplier3 used before it was planned");
  return StagedView3<T>{impl_->buffer(), impl_->n1, impl_->n2};
}

template <class T>
StagedView3<T> FourierMultiplier3<T>::result() const {
  if (!impl_) throw Error("fft::FourierMultiplier3 used before it was planned");
  return StagedView3<T>{impl_->output(), impl_->n1, impl_->n2};
}

template <class T>
void FourierMultiplier3<T>::apply_staged() const {
  if (!impl_) throw Error("fft::FourierMultiplier3 used before it was planned");
  impl_->run_staged();
}

template class FourierMultiplier3<float>;
template class FourierMultiplier3<double>;

}  // namespace sim::fft
