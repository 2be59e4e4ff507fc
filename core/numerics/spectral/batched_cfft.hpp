#pragma once
// Batched complex FFTs along the first axis: for a complex array of shape (n0, n1, m) held as
// reals (n0, n1, 2 m) (real and imaginary parts side by side, as BatchedRealFft2's spectrum),
// the 1D DFT of length n0 of every column (j, k), in place:
//   forward  Z(q, j, k) = sum_i z(i, j, k) e^{-2 pi i i q / n0}
//   inverse  the same with e^{+2 pi i i q / n0} (unnormalised: inverse(forward(z)) == n0 z).
// One strided batched call (cuFFT's cufftPlanMany with stride n1 m or the planes' stride, or FFTW's
// fftw_plan_many_dft), planned once, on the context's stream, no gather or scatter and no
// host synchronisation. The spectrum division of a periodic transform solve runs between the
// two (solvers/distributed_transform.hpp), or, on the GPU, inside the forward (divide_in_forward).
//
//   sim::fft::BatchedComplexFft<double> x(ctx, extents(nx, ny, 2 * (nz / 2 + 1)));
//   x.forward(s);   // s: a contiguous view of that shape, transformed along axis 0 in place
//   x.inverse(s);
#include <memory>

#include "core/array/array.hpp"

namespace sim::fft {

template <class T>
class BatchedComplexFft {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                "batched complex FFTs take float or double arrays");

 public:
  BatchedComplexFft() = default;
  /// Plans the transforms along axis 0 of arrays of shape (n0 >= 1, n1 >= 1, 2 m >= 2, even) on
  /// ctx: contiguous, or, given plane_stride (even, at least n1 2 m), planes that many reals apart
  /// with their rows back to back (rows [j0, j1) of every plane of a larger array).
  BatchedComplexFft(const Context& ctx, const Extents<3>& shape, index_t plane_stride = 0);
  /// z = its forward DFT along axis 0, in place (z: of the planned shape and layout).
  void forward(View<T, 3> z) const;
  /// z = its unnormalised inverse DFT along axis 0, in place.
  void inverse(View<T, 3> z) const;
  /// The planned shape (as reals).
  const Extents<3>& shape() const;
  /// Fuses into forward() the division of every mode (i, j, k) of its result by l0[i] + l1[j] +
  /// l2[2 k], times inv_norm (0 where that sum is not positive): on the GPU in the store callback
  /// of a forward plan of its own (cuFFT links it in). Returns whether it could (false on the
  /// CPU, along an axis of length 1, or where cuFFT cannot link it: the caller then divides
  /// between the transforms). l0, l1, l2 are device arrays that outlive this object.
  bool divide_in_forward(View<const T, 1> l0, View<const T, 1> l1, View<const T, 1> l2, T inv_norm);

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace sim::fft
