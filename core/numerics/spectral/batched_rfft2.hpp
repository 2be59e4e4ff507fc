#pragma once
// Batched 2D real FFTs: for arrays of shape (n0, n1, n2), one 2D real-to-complex DFT over the
// last two axes of every plane i (numpy.fft.rfft2 along axes (1, 2)), and its inverse. The
// spectrum is held as a real array of shape (n0, n1, 2 (n2 / 2 + 1)): mode (i, k1, k2) at
// (i, k1, 2 k2) (real part) and (i, k1, 2 k2 + 1) (imaginary part), k1 in 0..n1-1 (k1 > n1 / 2
// standing for k1 - n1), k2 in 0..n2/2. Unnormalised, as FFTW and cuFFT: inverse(forward(x))
// == n1 n2 x. One batched cuFFT call (cufftPlanMany) on the GPU, one FFTW plan
// (fftw_plan_many_dft_r2c / c2r) on the CPU, on the context's stream, no host
// synchronisation. An input or output with contiguous rows (a Field's interior, a sub-box) is
// read or written in place through a plan for its row and plane strides (made on the first
// call with that layout, kept while calls keep it); any other view goes through a staged
// contiguous buffer.
//
//   sim::fft::BatchedRealFft2<double> f(ctx, extents(nx, ny, nz));
//   f.forward(u.view());                      // f.spectrum() = the rfft2 of every x-plane of u
//   ... work on f.spectrum() ...
//   f.inverse(u.view());                      // u = the inverse (times ny nz); spectrum overwritten
#include <memory>

#include "core/array/array.hpp"

namespace sim::fft {

template <class T>
class BatchedRealFft2 {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                "batched real FFTs take float or double arrays");

 public:
  BatchedRealFft2() = default;
  /// Plans the transforms of arrays of shape (n0 >= 1 planes of n1 >= 1 x n2 >= 2) on ctx; with
  /// n1 == 1 they are 1D real FFTs of every row (numpy.fft.rfft along the last axis).
  BatchedRealFft2(const Context& ctx, const Extents<3>& shape);
  /// The same with the spectrum in memory the caller owns (spectrum_shape(shape) reals at
  /// `spectrum`, outliving this object; on a GPU, device memory): a piece of a larger spectrum.
  BatchedRealFft2(const Context& ctx, const Extents<3>& shape, T* spectrum);
  /// spectrum() = the 2D real DFT over axes 1 and 2 of every plane of in (of the planned shape).
  void forward(View<const T, 3> in) const;
  /// out = the unnormalised inverse of spectrum() (of the planned shape); the spectrum is
  /// overwritten (FFTW's and cuFFT's complex-to-real transforms use it as scratch).
  void inverse(View<T, 3> out) const;
  /// The spectrum, interleaved real and imaginary parts, of shape spectrum_shape(shape).
  View<T, 3> spectrum() const;
  /// The planned shape.
  const Extents<3>& shape() const;
  /// The spectrum's shape as reals for arrays of shape: (n0, n1, 2 (n2 / 2 + 1)).
  static Extents<3> spectrum_shape(const Extents<3>& shape) {
    return extents(shape.n[0], shape.n[1], 2 * (shape.n[2] / 2 + 1));
  }

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace sim::fft
