// Fast real-to-real transforms: FFTW on cpu contexts, cuFFT with gather/scatter kernels on
// cuda ones (see fft.hpp for the definitions). The GPU reductions to complex FFTs:
//   dct2 (Makhoul): v = (x_0, x_2, x_4, ..., x_5, x_3, x_1), V = rfft(v), X_k = 2 Re(e^{-i pi k/2n} V_k)
//   dct3: Z_k = e^{i pi k/2n} (x_k - i x_{n-k}), z = irfft(Z) (unnormalised), X_2m = z_m, X_2m+1 = z_{n-1-m}
//   dct4: W = DFT_2n of (x_j e^{-i pi j/2n}, zero padded), X_k = 2 Re(e^{-i pi (k+1/2)/2n} W_k)
//   dst2(x)_k = dct2((-1)^j x_j)_{n-1-k}; dst3(x)_k = (-1)^k dct3(x_{n-1-j})_k; dst4(x)_k = dct4((-1)^j x_j)_{n-1-k}
// Work buffers are laid out (outer, axis, inner) like the array, so gathers and scatters are
// coalesced for every axis and cuFFT runs batched with stride `inner`.
#include "core/numerics/fft.hpp"

#include <fftw3.h>

#include <cmath>
#include <map>
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

std::mutex& detail::fftw_planner_mutex() {
  static std::mutex m;
  return m;
}
using detail::cos_sin_pi;
using detail::fftw_planner_mutex;
using detail::makhoul;
template <class T>
using Cx = detail::Complex<T>;

const char* name(Kind kind) {
  switch (kind) {
    case Kind::dct2: return "dct2";
    case Kind::dct3: return "dct3";
    case Kind::dct4: return "dct4";
    case Kind::dst2: return "dst2";
    case Kind::dst3: return "dst3";
    case Kind::dst4: return "dst4";
    case Kind::r2hc: return "r2hc";
    case Kind::hc2r: return "hc2r";
  }
  return "?";
}

Kind inverse(Kind kind) {
  switch (kind) {
    case Kind::dct2: return Kind::dct3;
    case Kind::dct3: return Kind::dct2;
    case Kind::dst2: return Kind::dst3;
    case Kind::dst3: return Kind::dst2;
    case Kind::r2hc: return Kind::hc2r;
    case Kind::hc2r: return Kind::r2hc;
    default: return kind;  // dct4, dst4
  }
}

index_t normalisation(Kind kind, index_t n) { return kind == Kind::r2hc || kind == Kind::hc2r ? n : 2 * n; }

namespace {


/// Where element (idx) of an array sits in a work buffer laid out (outer, L, inner), with the
/// axis index replaced by m.
template <int Rank>
struct WorkLayout {
  int axis = 0;
  index_t ext[Rank] = {};
  SIM_INLINE index_t inner_size() const {
    index_t s = 1;
    for (int d = axis + 1; d < Rank; ++d) s *= ext[d];
    return s;
  }
  /// Elements from one outer index's lines to the next: rounded up to even, so that every
  /// cuFFT call of a loop over outer indices starts on a complex-aligned address.
  SIM_INLINE index_t slab(index_t L) const { return (L * inner_size() + 1) / 2 * 2; }
  SIM_INLINE index_t offset(const index_t* idx, index_t m, index_t L) const {
    index_t outer = 0, inner = 0;
    for (int d = 0; d < axis; ++d) outer = outer * ext[d] + idx[d];
    for (int d = axis + 1; d < Rank; ++d) inner = inner * ext[d] + idx[d];
    return outer * slab(L) + m * inner_size() + inner;
  }
};

template <class T, int Rank>
SIM_INLINE T& at(const View<T, Rank>& v, const index_t* idx) {
  index_t off = 0;
  for (int d = 0; d < Rank; ++d) off += idx[d] * v.stride[d];
  return v.ptr[off];
}

/// Gather for dct2, dst2 and r2hc: the real input of the forward real FFT (Makhoul's order for
/// the cosine and sine kinds, the plain order for r2hc). Runs over the input's shape.
template <class T, int Rank>
struct GatherReal {
  View<const T, Rank> in;
  T* work;
  WorkLayout<Rank> lay;
  Kind kind;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    index_t idx[Rank] = {index_t(i)...};
    const index_t n = lay.ext[lay.axis], j = idx[lay.axis];
    T x = at(in, idx);
    index_t m = j;
    if (kind != Kind::r2hc) {
      if (kind == Kind::dst2 && (j & 1)) x = -x;
      m = makhoul(j, n);
    }
    work[lay.offset(idx, m, n)] = x;
  }
};

/// Scatter after the forward real FFT (n/2 + 1 complex values per line): dct2, dst2, r2hc.
template <class T, int Rank>
struct ScatterFromComplex {
  const Cx<T>* work;
  View<T, Rank> out;
  WorkLayout<Rank> lay;
  Kind kind;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    index_t idx[Rank] = {index_t(i)...};
    const index_t n = lay.ext[lay.axis], k = idx[lay.axis], h = n / 2 + 1;
    if (kind == Kind::r2hc) {
      at(out, idx) = k <= n / 2 ? work[lay.offset(idx, k, h)].re : work[lay.offset(idx, n - k, h)].im;
      return;
    }
    const index_t kk = kind == Kind::dst2 ? n - 1 - k : k;
    Cx<T> v = kk <= n / 2 ? work[lay.offset(idx, kk, h)] : work[lay.offset(idx, n - kk, h)];
    if (kk > n / 2) v.im = -v.im;
    double c, s;
    cos_sin_pi(double(kk) / double(2 * n), c, s);
    at(out, idx) = T(2 * (c * double(v.re) + s * double(v.im)));
  }
};

/// Gather for dct3, dst3 and hc2r: the n/2 + 1 complex values of the inverse real FFT. Runs
/// over the shape with the axis cut to n/2 + 1.
template <class T, int Rank>
struct GatherComplex {
  View<const T, Rank> in;
  Cx<T>* work;
  WorkLayout<Rank> lay;
  Kind kind;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    index_t idx[Rank] = {index_t(i)...};
    const index_t n = lay.ext[lay.axis], k = idx[lay.axis], h = n / 2 + 1;
    auto x = [&](index_t j) {  // the input at axis position j (0 at n), reversed for dst3
      if (j >= n) return T(0);
      index_t p[Rank];
      for (int d = 0; d < Rank; ++d) p[d] = idx[d];
      p[lay.axis] = kind == Kind::dst3 ? n - 1 - j : j;
      return at(in, p);
    };
    Cx<T> z;
    if (kind == Kind::hc2r) {
      z.re = x(k);
      z.im = (k > 0 && 2 * k != n) ? x(n - k) : T(0);
    } else {
      double c, s;
      cos_sin_pi(double(k) / double(2 * n), c, s);
      const double a = double(x(k)), b = -double(k > 0 ? x(n - k) : T(0));  // a + i b
      z.re = T(c * a - s * b), z.im = T(s * a + c * b);
    }
    work[lay.offset(idx, k, h)] = z;
  }
};

/// Scatter after the inverse real FFT: dct3, dst3 (Makhoul's order undone) and hc2r.
template <class T, int Rank>
struct ScatterFromReal {
  const T* work;
  View<T, Rank> out;
  WorkLayout<Rank> lay;
  Kind kind;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    index_t idx[Rank] = {index_t(i)...};
    const index_t n = lay.ext[lay.axis], k = idx[lay.axis];
    if (kind == Kind::hc2r) {
      at(out, idx) = work[lay.offset(idx, k, n)];
      return;
    }
    const index_t m = makhoul(k, n);
    const T z = work[lay.offset(idx, m, n)];
    at(out, idx) = (kind == Kind::dst3 && (k & 1)) ? -z : z;
  }
};

/// Gather for dct4 and dst4: x_j e^{-i pi j / 2n}, zero padded to 2n. Runs over the shape
/// with the axis doubled.
template <class T, int Rank>
struct GatherQuarter {
  View<const T, Rank> in;
  Cx<T>* work;
  WorkLayout<Rank> lay;
  Kind kind;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    index_t idx[Rank] = {index_t(i)...};
    const index_t n = lay.ext[lay.axis], m = idx[lay.axis];
    Cx<T> z{T(0), T(0)};
    if (m < n) {
      double x = double(at(in, idx));
      if (kind == Kind::dst4 && (m & 1)) x = -x;
      double c, s;
      cos_sin_pi(double(m) / double(2 * n), c, s);
      z.re = T(c * x), z.im = T(-s * x);
    }
    work[lay.offset(idx, m, 2 * n)] = z;
  }
};

/// Scatter for dct4 and dst4: X_k = 2 Re(e^{-i pi (k + 1/2) / 2n} W_k).
template <class T, int Rank>
struct ScatterQuarter {
  const Cx<T>* work;
  View<T, Rank> out;
  WorkLayout<Rank> lay;
  Kind kind;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    index_t idx[Rank] = {index_t(i)...};
    const index_t n = lay.ext[lay.axis], k = idx[lay.axis];
    const index_t kk = kind == Kind::dst4 ? n - 1 - k : k;
    const Cx<T> w = work[lay.offset(idx, kk, 2 * n)];
    double c, s;
    cos_sin_pi((double(kk) + 0.5) / double(2 * n), c, s);
    at(out, idx) = T(2 * (c * double(w.re) + s * double(w.im)));
  }
};

/// v *= s.
template <class T, int Rank>
struct ScaleFn {
  View<T, Rank> v;
  T s;
  template <class... I>
  SIM_INLINE void operator()(I... i) const { v(i...) *= s; }
};


template <class T>
struct Fftw;
template <>
struct Fftw<double> {
  using plan = fftw_plan;
  static plan make(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany, double* p,
                   fftw_r2r_kind kind) {
    return fftw_plan_guru64_r2r(rank, dims, howmany_rank, howmany, p, p, &kind, FFTW_ESTIMATE | FFTW_UNALIGNED);
  }
  static void run(plan p, double* x) { fftw_execute_r2r(p, x, x); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};
template <>
struct Fftw<float> {
  using plan = fftwf_plan;
  static plan make(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany, float* p,
                   fftw_r2r_kind kind) {
    return fftwf_plan_guru64_r2r(rank, dims, howmany_rank, howmany, p, p, &kind, FFTW_ESTIMATE | FFTW_UNALIGNED);
  }
  static void run(plan p, float* x) { fftwf_execute_r2r(p, x, x); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};

fftw_r2r_kind fftw_kind(Kind kind) {
  switch (kind) {
    case Kind::dct2: return FFTW_REDFT10;
    case Kind::dct3: return FFTW_REDFT01;
    case Kind::dct4: return FFTW_REDFT11;
    case Kind::dst2: return FFTW_RODFT10;
    case Kind::dst3: return FFTW_RODFT01;
    case Kind::dst4: return FFTW_RODFT11;
    case Kind::r2hc: return FFTW_R2HC;
    case Kind::hc2r: return FFTW_HC2R;
  }
  return FFTW_R2HC;
}

#if SIM_TU_HAS_CUDA
using detail::check_cufft;
template <class T>
struct CufftTypes;
template <>
struct CufftTypes<float> {
  static constexpr cufftType r2c = CUFFT_R2C, c2r = CUFFT_C2R, c2c = CUFFT_C2C;
  static void c2c_exec(cufftHandle h, Cx<float>* x) {
    check_cufft(cufftExecC2C(h, reinterpret_cast<cufftComplex*>(x), reinterpret_cast<cufftComplex*>(x), CUFFT_FORWARD),
                "ExecC2C");
  }
};
template <>
struct CufftTypes<double> {
  static constexpr cufftType r2c = CUFFT_D2Z, c2r = CUFFT_Z2D, c2c = CUFFT_Z2Z;
  static void c2c_exec(cufftHandle h, Cx<double>* x) {
    check_cufft(cufftExecZ2Z(h, reinterpret_cast<cufftDoubleComplex*>(x), reinterpret_cast<cufftDoubleComplex*>(x),
                             CUFFT_FORWARD),
                "ExecZ2Z");
  }
};
#endif

}  // namespace

template <class T, int Rank>
struct Transform<T, Rank>::Impl {
  Context ctx;
  Kind kind = Kind::dct2;
  int axis = 0;
  Extents<Rank> shape{};
  index_t n = 0, outer = 1, inner = 1;
  WorkLayout<Rank> lay;
  // cpu: one FFTW plan for the output strides it was made for
  mutable std::mutex mutex;
  mutable typename Fftw<T>::plan plan = nullptr;
  mutable index_t plan_stride[Rank] = {};
  // cuda: the cuFFT plan and the work buffers
  int cufft = -1;
  index_t real_len = 0, complex_len = 0;  ///< per line, in the work buffers
  T* real_work = nullptr;
  Cx<T>* complex_work = nullptr;

  ~Impl() {
    if (plan) {
      std::lock_guard<std::mutex> lock(fftw_planner_mutex());
      Fftw<T>::destroy(plan);
    }
#if SIM_TU_HAS_CUDA
    if (cufft >= 0) cufftDestroy(cufftHandle(cufft));
#endif
    if (real_work) ctx.deallocate(real_work, std::size_t(outer * lay.slab(real_len)) * sizeof(T));
    if (complex_work) ctx.deallocate(complex_work, std::size_t(outer * lay.slab(complex_len)) * sizeof(Cx<T>));
  }

  /// The FFTW plan for an output of these strides, in place (made on first use).
  typename Fftw<T>::plan fftw_plan_for(const View<T, Rank>& out) const {
    bool same = plan != nullptr;
    for (int d = 0; d < Rank; ++d) same = same && plan_stride[d] == out.stride[d];
    if (same) return plan;
    std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    if (plan) Fftw<T>::destroy(plan), plan = nullptr;
    fftw_iodim64 dim{n, out.stride[axis], out.stride[axis]};
    fftw_iodim64 howmany[Rank];
    int h = 0;
    for (int d = 0; d < Rank; ++d)
      if (d != axis) howmany[h++] = fftw_iodim64{shape.n[d], out.stride[d], out.stride[d]};
    plan = Fftw<T>::make(1, &dim, h, howmany, out.ptr, fftw_kind(kind));
    if (!plan) throw Error(std::string("FFTW could not plan a ") + name(kind) + " of length " + std::to_string(n));
    for (int d = 0; d < Rank; ++d) plan_stride[d] = out.stride[d];
    return plan;
  }

  void run(View<const T, Rank> in, View<T, Rank> out) const {
    if (shape.size() == 0) return;
    if (!ctx.is_cuda()) {
      if (in.ptr != out.ptr) sim::detail::copy<T, Rank>(ctx, in, out);
      std::lock_guard<std::mutex> lock(mutex);  // one execution at a time per plan (its strides)
      Fftw<T>::run(fftw_plan_for(out), out.ptr);
      return;
    }
#if SIM_TU_HAS_CUDA
    const cufftHandle h = cufftHandle(cufft);
    const Box<Rank> all = box_of(shape);
    Extents<Rank> e = shape;
    switch (kind) {
      case Kind::dct2:
      case Kind::dst2:
      case Kind::r2hc:
        for_each(ctx, "fft::gather_real", all, GatherReal<T, Rank>{in, real_work, lay, kind});
        for (index_t o = 0; o < batch_launches(); ++o)
          detail::exec_r2c(h, real_work + o * lay.slab(real_len), complex_work + o * lay.slab(complex_len));
        for_each(ctx, "fft::scatter_from_complex", all, ScatterFromComplex<T, Rank>{complex_work, out, lay, kind});
        break;
      case Kind::dct3:
      case Kind::dst3:
      case Kind::hc2r:
        e.n[axis] = n / 2 + 1;
        for_each(ctx, "fft::gather_complex", box_of(e), GatherComplex<T, Rank>{in, complex_work, lay, kind});
        for (index_t o = 0; o < batch_launches(); ++o)
          detail::exec_c2r(h, complex_work + o * lay.slab(complex_len), real_work + o * lay.slab(real_len));
        for_each(ctx, "fft::scatter_from_real", all, ScatterFromReal<T, Rank>{real_work, out, lay, kind});
        break;
      case Kind::dct4:
      case Kind::dst4:
        e.n[axis] = 2 * n;
        for_each(ctx, "fft::gather_quarter", box_of(e), GatherQuarter<T, Rank>{in, complex_work, lay, kind});
        for (index_t o = 0; o < batch_launches(); ++o) CufftTypes<T>::c2c_exec(h, complex_work + o * lay.slab(complex_len));
        for_each(ctx, "fft::scatter_quarter", all, ScatterQuarter<T, Rank>{complex_work, out, lay, kind});
        break;
    }
#endif
  }

  /// cuFFT calls per transform: one when the lines are contiguous (inner == 1), else one per outer index.
  index_t batch_launches() const { return inner == 1 ? 1 : outer; }

  void plan_cuda() {
#if SIM_TU_HAS_CUDA
    const bool quarter = kind == Kind::dct4 || kind == Kind::dst4;
    real_len = quarter ? 0 : n;
    complex_len = quarter ? 2 * n : n / 2 + 1;
    if (real_len) real_work = static_cast<T*>(ctx.allocate(std::size_t(outer * lay.slab(real_len)) * sizeof(T)));
    complex_work = static_cast<Cx<T>*>(ctx.allocate(std::size_t(outer * lay.slab(complex_len)) * sizeof(Cx<T>)));
    cufftHandle h;
    check_cufft(cufftCreate(&h), "Create");
    cufft = int(h);
    check_cufft(cufftSetStream(h, static_cast<cudaStream_t>(ctx.stream())), "SetStream");
    const bool to_real = kind == Kind::dct3 || kind == Kind::dst3 || kind == Kind::hc2r;  // complex -> real
    long long len = quarter ? 2 * n : n;
    long long in_len = quarter ? complex_len : to_real ? complex_len : real_len;
    long long out_len = quarter ? complex_len : to_real ? real_len : complex_len;
    const long long stride = inner, dist = inner == 1 ? lay.slab(in_len) : 1, odist = inner == 1 ? lay.slab(out_len) : 1;
    const long long batch = inner == 1 ? outer : inner;
    const cufftType type = quarter ? CufftTypes<T>::c2c : to_real ? CufftTypes<T>::c2r : CufftTypes<T>::r2c;
    std::size_t work_size = 0;
    check_cufft(cufftMakePlanMany64(h, 1, &len, &in_len, stride, dist, &out_len, stride, odist, type, batch, &work_size),
                "MakePlanMany64");
#endif
  }
};

template <class T, int Rank>
Transform<T, Rank>::Transform(const Context& ctx, Kind kind, const Extents<Rank>& shape, int axis)
    : impl_(std::make_shared<Impl>()) {
  if (axis < 0 || axis >= Rank)
    throw ShapeError("fft: axis " + std::to_string(axis) + " of a rank-" + std::to_string(Rank) + " array");
  Impl& im = *impl_;
  im.ctx = ctx, im.kind = kind, im.axis = axis, im.shape = shape;
  im.n = shape.n[axis];
  for (int d = 0; d < axis; ++d) im.outer *= shape.n[d];
  for (int d = axis + 1; d < Rank; ++d) im.inner *= shape.n[d];
  im.lay.axis = axis;
  for (int d = 0; d < Rank; ++d) im.lay.ext[d] = shape.n[d];
  if (ctx.is_cuda() && shape.size() > 0) {
#if SIM_TU_HAS_CUDA
    im.plan_cuda();
#else
    throw sim::detail::not_compiled_for_cuda("fft::Transform");
#endif
  }
}

template <class T, int Rank>
void Transform<T, Rank>::operator()(View<const T, Rank> in, View<T, Rank> out) const {
  if (!impl_) throw Error("fft::Transform used before it was planned");
  if (in.shape != impl_->shape || out.shape != impl_->shape)
    throw ShapeError(std::string("fft::Transform (") + name(impl_->kind) + ") planned for shape " + to_string(impl_->shape) +
                     ", called with " + to_string(in.shape) + " -> " + to_string(out.shape));
  impl_->run(in, out);
}

template <class T, int Rank>
Kind Transform<T, Rank>::kind() const { return impl_->kind; }
template <class T, int Rank>
int Transform<T, Rank>::axis() const { return impl_->axis; }
template <class T, int Rank>
const Extents<Rank>& Transform<T, Rank>::shape() const { return impl_->shape; }

template <class T, int Rank>
Array<T, Rank> transform(const Array<T, Rank>& x, Kind kind, int axis) {
  Array<T, Rank> out(x.context(), x.shape());
  Transform<T, Rank>(x.context(), kind, x.shape(), axis)(x.view(), out.view());
  return out;
}

namespace {
Kind cosine_kind(int type, const char* fn) {
  if (type == 2) return Kind::dct2;
  if (type == 3) return Kind::dct3;
  if (type == 4) return Kind::dct4;
  throw Error(std::string("fft::") + fn + ": type " + std::to_string(type) + " (expected 2, 3 or 4)");
}
Kind sine_kind(int type, const char* fn) {
  if (type == 2) return Kind::dst2;
  if (type == 3) return Kind::dst3;
  if (type == 4) return Kind::dst4;
  throw Error(std::string("fft::") + fn + ": type " + std::to_string(type) + " (expected 2, 3 or 4)");
}
/// out *= 1 / normalisation(kind, n).
template <class T, int Rank>
Array<T, Rank> normalised(Array<T, Rank> a, Kind kind, int axis) {
  const index_t n = a.shape().n[axis];
  if (n > 0) {
    const T s = T(1.0 / double(normalisation(kind, n)));
    View<T, Rank> v = a.view();
    for_each(a.context(), "fft::normalise", a.box(), ScaleFn<T, Rank>{v, s});
  }
  return a;
}
}  // namespace

template <class T, int Rank>
Array<T, Rank> dct(const Array<T, Rank>& x, int axis, int type) { return transform(x, cosine_kind(type, "dct"), axis); }
template <class T, int Rank>
Array<T, Rank> idct(const Array<T, Rank>& x, int axis, int type) {
  const Kind k = inverse(cosine_kind(type, "idct"));
  return normalised(transform(x, k, axis), k, axis);
}
template <class T, int Rank>
Array<T, Rank> dst(const Array<T, Rank>& x, int axis, int type) { return transform(x, sine_kind(type, "dst"), axis); }
template <class T, int Rank>
Array<T, Rank> idst(const Array<T, Rank>& x, int axis, int type) {
  const Kind k = inverse(sine_kind(type, "idst"));
  return normalised(transform(x, k, axis), k, axis);
}
template <class T, int Rank>
Array<T, Rank> dctn(const Array<T, Rank>& x, int type) {
  Array<T, Rank> a = dct(x, 0, type);
  for (int d = 1; d < Rank; ++d) a = dct(a, d, type);
  return a;
}
template <class T, int Rank>
Array<T, Rank> idctn(const Array<T, Rank>& x, int type) {
  Array<T, Rank> a = idct(x, 0, type);
  for (int d = 1; d < Rank; ++d) a = idct(a, d, type);
  return a;
}
template <class T, int Rank>
Array<T, Rank> rfft(const Array<T, Rank>& x, int axis) { return transform(x, Kind::r2hc, axis); }
template <class T, int Rank>
Array<T, Rank> irfft(const Array<T, Rank>& x, int axis) { return normalised(transform(x, Kind::hc2r, axis), Kind::hc2r, axis); }

#define SIM_INSTANTIATE_FFT(T, R)                                            \
  template class Transform<T, R>;                                            \
  template Array<T, R> transform<T, R>(const Array<T, R>&, Kind, int);       \
  template Array<T, R> dct<T, R>(const Array<T, R>&, int, int);              \
  template Array<T, R> idct<T, R>(const Array<T, R>&, int, int);             \
  template Array<T, R> dst<T, R>(const Array<T, R>&, int, int);              \
  template Array<T, R> idst<T, R>(const Array<T, R>&, int, int);             \
  template Array<T, R> dctn<T, R>(const Array<T, R>&, int);                  \
  template Array<T, R> idctn<T, R>(const Array<T, R>&, int);                 \
  template Array<T, R> rfft<T, R>(const Array<T, R>&, int);                  \
  template Array<T, R> irfft<T, R>(const Array<T, R>&, int);
SIM_INSTANTIATE_FFT(float, 1)
SIM_INSTANTIATE_FFT(float, 2)
SIM_INSTANTIATE_FFT(float, 3)
SIM_INSTANTIATE_FFT(double, 1)
SIM_INSTANTIATE_FFT(double, 2)
SIM_INSTANTIATE_FFT(double, 3)

}  // namespace sim::fft
