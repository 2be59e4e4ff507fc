#pragma once
// Real-to-real fast transforms along one axis of 1-3D arrays, batched over the other axes:
// the cosine, sine and real Fourier transforms of FFTW's r2r interface (and of
// scipy.fft.dct / dst with norm="backward"), on cuFFT on the GPU and FFTW on the CPU.
//
//   sim::fft::Transform<double, 2> t(ctx, sim::fft::Kind::dct2, a.shape(), 1);  // plan once
//   t(a.view(), b.view());                        // b = DCT-II of a along axis 1 (asynchronous)
//   auto c = sim::fft::dct(a, 1);                 // the same, planned per call
//   auto back = sim::fft::idct(c, 1);             // back == a (to rounding)
//
// Definitions (n the length along the axis, all unnormalised, as FFTW and scipy):
//   dct2  X_k = 2 sum_j x_j cos(pi (j + 1/2) k / n)
//   dct3  X_k = x_0 + 2 sum_{j>0} x_j cos(pi j (k + 1/2) / n)        (dct2's inverse times 2n)
//   dct4  X_k = 2 sum_j x_j cos(pi (j + 1/2) (k + 1/2) / n)          (its own inverse times 2n)
//   dst2  X_k = 2 sum_j x_j sin(pi (j + 1/2) (k + 1) / n)
//   dst3  X_k = (-1)^k x_{n-1} + 2 sum_{j<n-1} x_j sin(pi (j + 1) (k + 1/2) / n)
//   dst4  X_k = 2 sum_j x_j sin(pi (j + 1/2) (k + 1/2) / n)
//   r2hc  the DFT sum_j x_j e^{-2 pi i j k / n} in FFTW's halfcomplex order: Re X_0 .. Re X_{n/2},
//         then Im X_{(n-1)/2} .. Im X_1
//   hc2r  the inverse of r2hc times n
// Inputs and outputs may be strided views (a Field's interior, a sub-box) and may be the
// same view (in place). On the GPU a transform is a gather kernel, one batched cuFFT call and
// a scatter kernel, all on the context's stream; no host synchronisation.
#include <memory>

#include "core/array/array.hpp"

namespace sim::fft {

/// The transform kinds (FFTW's REDFT10, REDFT01, REDFT11, RODFT10, RODFT01, RODFT11, R2HC, HC2R).
enum class Kind { dct2, dct3, dct4, dst2, dst3, dst4, r2hc, hc2r };

/// The kind's name ("dct2", ...).
const char* name(Kind kind);
/// The kind that undoes kind (up to the factor normalisation(kind, n)).
Kind inverse(Kind kind);
/// N such that inverse(kind) applied after kind multiplies by N: 2n for cosine and sine
/// transforms, n for the real Fourier pair.
index_t normalisation(Kind kind, index_t n);

/// A planned transform of one kind along one axis of arrays of one shape. Plans, cuFFT
/// handles and work buffers are made once here and reused by every call. Copies share them.
template <class T, int Rank>
class Transform {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                "fast transforms take float or double arrays");

 public:
  Transform() = default;
  /// Plans kind along axis for arrays of shape on ctx's backend.
  Transform(const Context& ctx, Kind kind, const Extents<Rank>& shape, int axis);
  /// out = the transform of in (both of the planned shape; out may be in).
  void operator()(View<const T, Rank> in, View<T, Rank> out) const;
  /// The same on whole arrays.
  void operator()(const Array<T, Rank>& in, Array<T, Rank>& out) const { (*this)(in.view(), out.view()); }
  /// The planned kind.
  Kind kind() const;
  /// The planned axis.
  int axis() const;
  /// The planned shape.
  const Extents<Rank>& shape() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

/// A new array: the transform of x of the given kind along axis (planned for this call).
template <class T, int Rank>
Array<T, Rank> transform(const Array<T, Rank>& x, Kind kind, int axis);

/// The discrete cosine transform of type 2, 3 or 4 along axis (scipy.fft.dct, norm="backward").
template <class T, int Rank>
Array<T, Rank> dct(const Array<T, Rank>& x, int axis, int type = 2);
/// The inverse of dct(x, axis, type): idct(dct(x)) == x (scipy.fft.idct).
template <class T, int Rank>
Array<T, Rank> idct(const Array<T, Rank>& x, int axis, int type = 2);
/// The discrete sine transform of type 2, 3 or 4 along axis (scipy.fft.dst, norm="backward").
template <class T, int Rank>
Array<T, Rank> dst(const Array<T, Rank>& x, int axis, int type = 2);
/// The inverse of dst(x, axis, type) (scipy.fft.idst).
template <class T, int Rank>
Array<T, Rank> idst(const Array<T, Rank>& x, int axis, int type = 2);
/// dct over every axis (scipy.fft.dctn).
template <class T, int Rank>
Array<T, Rank> dctn(const Array<T, Rank>& x, int type = 2);
/// The inverse of dctn (scipy.fft.idctn).
template <class T, int Rank>
Array<T, Rank> idctn(const Array<T, Rank>& x, int type = 2);
/// The real DFT along axis in halfcomplex order (numpy.fft.rfft packed into n reals).
template <class T, int Rank>
Array<T, Rank> rfft(const Array<T, Rank>& x, int axis);
/// The inverse of rfft: irfft(rfft(x)) == x.
template <class T, int Rank>
Array<T, Rank> irfft(const Array<T, Rank>& x, int axis);

}  // namespace sim::fft
