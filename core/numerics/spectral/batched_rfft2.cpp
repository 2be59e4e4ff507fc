// Batched 2D real FFTs (spectral/batched_rfft2.hpp): FFTW's advanced interface on cpu contexts
// (FFTW_ESTIMATE: the same plan, so the same bits, in every run), cuFFT's on cuda ones.
#include "core/numerics/spectral/batched_rfft2.hpp"

#include <fftw3.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "core/detail/dispatch.hpp"
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

/// Where a plane's rows sit: element (i, j, k) at i * plane + j * row + k (k contiguous).
struct Layout {
  index_t plane = 0, row = 0;
  int alignment = 0;  // FFTW's alignment class of the pointer planned for (cpu)
  bool operator==(const Layout& o) const { return plane == o.plane && row == o.row && alignment == o.alignment; }
};

template <class T>
struct FftwMany;
template <>
struct FftwMany<double> {
  using plan = fftw_plan;
  using complex = fftw_complex;
  /// n[0] x n[1] r2c per plane, batch planes: the real side laid out as lay, the spectrum dense.
  static plan r2c(const int* n, int batch, double* r, const Layout& lay, complex* z) {
    const int embed[2] = {n[0], int(lay.row)};
    return fftw_plan_many_dft_r2c(2, n, batch, r, embed, 1, int(lay.plane), z, nullptr, 1, n[0] * (n[1] / 2 + 1),
                                  FFTW_ESTIMATE);
  }
  static plan c2r(const int* n, int batch, complex* z, double* r, const Layout& lay) {
    const int embed[2] = {n[0], int(lay.row)};
    return fftw_plan_many_dft_c2r(2, n, batch, z, nullptr, 1, n[0] * (n[1] / 2 + 1), r, embed, 1, int(lay.plane),
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
  static plan r2c(const int* n, int batch, float* r, const Layout& lay, complex* z) {
    const int embed[2] = {n[0], int(lay.row)};
    return fftwf_plan_many_dft_r2c(2, n, batch, r, embed, 1, int(lay.plane), z, nullptr, 1, n[0] * (n[1] / 2 + 1),
                                   FFTW_ESTIMATE);
  }
  static plan c2r(const int* n, int batch, complex* z, float* r, const Layout& lay) {
    const int embed[2] = {n[0], int(lay.row)};
    return fftwf_plan_many_dft_c2r(2, n, batch, z, nullptr, 1, n[0] * (n[1] / 2 + 1), r, embed, 1, int(lay.plane),
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
  index_t h2 = 0;          // complex modes along the last axis
  T* spectrum = nullptr;   // n0 x n1 x h2 complex, as reals
  bool owns_spectrum = true;
  mutable T* real = nullptr;  // a staged contiguous real array, for views the transforms cannot read in place
  // the layout each direction's plan is made for (its real side), re-planned when a call's differs
  mutable Layout planned_forward{-1, -1, -1}, planned_inverse{-1, -1, -1};
  // cpu
  mutable typename FftwMany<T>::plan forward = nullptr, inverse = nullptr;
  // cuda
  mutable int plan_forward = -1, plan_inverse = -1;

  std::size_t points() const { return std::size_t(shape.size()); }
  std::size_t spectrum_reals() const { return std::size_t(shape.n[0] * shape.n[1] * 2 * h2); }
  View<T, 3> spectrum_view() const { return contiguous_view(spectrum, spectrum_shape(shape)); }
  static View<T, 3> contiguous_view(T* p, const Extents<3>& e) {
    View<T, 3> v;
    v.ptr = p, v.shape = e, v.stride[0] = e.n[1] * e.n[2], v.stride[1] = e.n[2], v.stride[2] = 1;
    return v;
  }

  ~Impl() {
    destroy_plans(true), destroy_plans(false);
    if (ctx.is_cuda()) {
      if (real) ctx.deallocate(real, points() * sizeof(T));
      if (spectrum && owns_spectrum) ctx.deallocate(spectrum, spectrum_reals() * sizeof(T));
    } else {
      if (real) FftwMany<T>::release(real);
      if (spectrum && owns_spectrum) FftwMany<T>::release(spectrum);
    }
  }

  void destroy_plans(bool forward_plan) const {
    typename FftwMany<T>::plan& p = forward_plan ? forward : inverse;
    if (p) {
      std::lock_guard<std::mutex> lock(detail::fftw_planner_mutex());
      FftwMany<T>::destroy(p);
      p = nullptr;
    }
#if SIM_TU_HAS_CUDA
    int& h = forward_plan ? plan_forward : plan_inverse;
    if (h >= 0) cufftDestroy(cufftHandle(h)), h = -1;
#endif
  }

  /// The staged contiguous array (allocated on first use).
  View<T, 3> real_view() const {
    if (!real) {
      real = static_cast<T*>(ctx.is_cuda() ? ctx.allocate(points() * sizeof(T)) : FftwMany<T>::alloc(points() * sizeof(T)));
      if (!real) throw Error("could not allocate the staging buffer of batched 2D transforms of " + to_string(shape));
    }
    return contiguous_view(real, shape);
  }

  /// The layout of v when a transform can read or write it in place (rows contiguous, planes
  /// and rows apart by at least their lengths, within int; on a GPU dense, or starting on complex boundaries), else plane = -1.
  Layout layout_of(const View<T, 3>& v) const {
    Layout lay{-1, -1, 0};
    const index_t n1 = shape.n[1], n2 = shape.n[2];
    const bool rows = v.stride[2] == 1 && v.stride[1] >= n2 && v.stride[0] >= n1 * v.stride[1];
    // (cuFFT refused to run a real transform over padded rows unless the first row and every
    // row and plane after it start on a boundary of the complex type, 2 x sizeof(T), as a
    // Field's rows do; dense arrays of any length run from such a boundary (a piece of planes
    // of an odd size may start off it): the others go through the staging buffer)
    const bool dense = v.stride[1] == n2 && v.stride[0] == n1 * n2;
    const bool paired = reinterpret_cast<std::uintptr_t>(v.ptr) % (2 * sizeof(T)) == 0;
    const bool even = !ctx.is_cuda() || (paired && (dense || (v.stride[0] % 2 == 0 && v.stride[1] % 2 == 0)));
    if (!rows || !even || v.stride[0] > index_t(1) << 30 || reinterpret_cast<std::uintptr_t>(v.ptr) % sizeof(T) != 0) return lay;
    lay.plane = v.stride[0], lay.row = v.stride[1];
    lay.alignment = ctx.is_cuda() ? 0 : FftwMany<T>::alignment(v.ptr);
    return lay;
  }

  /// (Re)plans the direction for real arrays of layout lay at r (r: a pointer of that layout; cpu plans use it).
  void plan(bool forward_plan, const Layout& lay, T* r) const {
    Layout& planned = forward_plan ? planned_forward : planned_inverse;
    if (planned == lay) return;
    if (ctx.is_cuda()) ctx.synchronize();  // no queued execution may still use the plan replaced
    destroy_plans(forward_plan);
    if (ctx.is_cuda()) plan_cuda(forward_plan, lay);
    else {
      const int n[2] = {int(shape.n[1]), int(shape.n[2])};
      auto* z = reinterpret_cast<typename FftwMany<T>::complex*>(spectrum);
      std::lock_guard<std::mutex> lock(detail::fftw_planner_mutex());
      if (forward_plan) forward = FftwMany<T>::r2c(n, int(shape.n[0]), r, lay, z);
      else inverse = FftwMany<T>::c2r(n, int(shape.n[0]), z, r, lay);
      if (!(forward_plan ? bool(forward) : bool(inverse)))
        throw Error("FFTW could not plan batched 2D transforms of " + to_string(shape));
    }
    planned = lay;
  }

  void plan_cuda(bool forward_plan, const Layout& lay) const {
#if SIM_TU_HAS_CUDA
    const bool f64 = sizeof(T) == 8;
    // planes of one row: 1D transforms (rank 1, the row's sizes)
    const int rank = shape.n[1] == 1 ? 1 : 2, first = 2 - rank;
    long long n[2] = {shape.n[1], shape.n[2]};
    long long real_embed[2] = {shape.n[1], lay.row}, complex_embed[2] = {shape.n[1], h2};
    const long long real_dist = lay.plane, complex_dist = shape.n[1] * h2;
    cufftHandle h;
    detail::check_cufft(cufftCreate(&h), "Create");
    (forward_plan ? plan_forward : plan_inverse) = int(h);
    detail::check_cufft(cufftSetStream(h, static_cast<cudaStream_t>(ctx.stream())), "SetStream");
    const cufftType type = forward_plan ? (f64 ? CUFFT_D2Z : CUFFT_R2C) : (f64 ? CUFFT_Z2D : CUFFT_C2R);
    std::size_t work = 0;
    if (forward_plan)
      detail::check_cufft(cufftMakePlanMany64(h, rank, n + first, real_embed + first, 1, real_dist, complex_embed + first, 1,
                                              complex_dist, type, shape.n[0], &work),
                          "MakePlanMany64");
    else
      detail::check_cufft(cufftMakePlanMany64(h, rank, n + first, complex_embed + first, 1, complex_dist, real_embed + first, 1,
                                              real_dist, type, shape.n[0], &work),
                          "MakePlanMany64");
#else
    (void)forward_plan, (void)lay;
#endif
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
BatchedRealFft2<T>::BatchedRealFft2(const Context& ctx, const Extents<3>& shape) : BatchedRealFft2(ctx, shape, nullptr) {}

template <class T>
BatchedRealFft2<T>::BatchedRealFft2(const Context& ctx, const Extents<3>& shape, T* spectrum) {
  if (shape.n[0] < 1 || shape.n[1] < 1 || shape.n[2] < 2)
    throw ShapeError("fft::BatchedRealFft2 needs at least 1 plane of 1 x 2 points, got " + to_string(shape));
  impl_ = std::make_shared<Impl>();
  Impl& im = *impl_;
  im.ctx = ctx, im.shape = shape, im.h2 = shape.n[2] / 2 + 1;
  im.spectrum = spectrum, im.owns_spectrum = spectrum == nullptr;
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    if (!im.spectrum) im.spectrum = static_cast<T*>(ctx.allocate(im.spectrum_reals() * sizeof(T)));
#else
    throw sim::detail::not_compiled_for_cuda("fft::BatchedRealFft2");
#endif
  } else if (!im.spectrum) {
    im.spectrum = static_cast<T*>(FftwMany<T>::alloc(im.spectrum_reals() * sizeof(T)));
    if (!im.spectrum) throw Error("FFTW could not allocate the spectrum of batched 2D transforms of " + to_string(shape));
  }
  const View<T, 3> dense = Impl::contiguous_view(nullptr, shape);  // plans for dense arrays now, the usual case
  if (ctx.is_cuda()) im.plan(true, im.layout_of(dense), nullptr), im.plan(false, im.layout_of(dense), nullptr);
}

template <class T>
void BatchedRealFft2<T>::forward(View<const T, 3> in) const {
  if (!impl_) throw Error("fft::BatchedRealFft2 used before it was planned");
  const Impl& im = *impl_;
  if (in.shape != im.shape)
    throw ShapeError("fft::BatchedRealFft2 planned for shape " + to_string(im.shape) + ", called with " + to_string(in.shape));
  View<T, 3> v;
  v.ptr = const_cast<T*>(in.ptr), v.shape = in.shape;
  for (int d = 0; d < 3; ++d) v.stride[d] = in.stride[d];
  const Layout lay = im.layout_of(v);
  if (lay.plane >= 0) {  // read in place, through the plan for its layout
    im.plan(true, lay, v.ptr);
    return im.r2c(in.ptr);
  }
  const View<T, 3> staged = im.real_view();
  for_each(im.ctx, "fft::batched_rfft2_stage_in", box_of(im.shape), StageIn<T>{in, staged});
  im.plan(true, im.layout_of(staged), staged.ptr);
  im.r2c(staged.ptr);
}

template <class T>
void BatchedRealFft2<T>::inverse(View<T, 3> out) const {
  if (!impl_) throw Error("fft::BatchedRealFft2 used before it was planned");
  const Impl& im = *impl_;
  if (out.shape != im.shape)
    throw ShapeError("fft::BatchedRealFft2 planned for shape " + to_string(im.shape) + ", called with " + to_string(out.shape));
  const Layout lay = im.layout_of(out);
  if (lay.plane >= 0) {  // written in place, through the plan for its layout
    im.plan(false, lay, out.ptr);
    return im.c2r(out.ptr);
  }
  const View<T, 3> staged = im.real_view();
  im.plan(false, im.layout_of(staged), staged.ptr);
  im.c2r(staged.ptr);
  for_each(im.ctx, "fft::batched_rfft2_stage_out", box_of(im.shape), StageOut<T>{staged, out});
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
