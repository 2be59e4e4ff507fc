#pragma once
// A diagonal operator in the 3D Fourier basis, out = irfftn(rfftn(in) * m) (numpy.fft's
// rfftn / irfftn; m has shape (n0, n1, n2 / 2 + 1), index (k0, k1, k2) the frequency (k0, k1,
// k2), k > n / 2 standing for k - n), in one 3D real FFT each way: one gather, the r2c
// transform (cuFFT on the GPU, FFTW on the CPU), the multiplication, the c2r transform, one
// scatter; asynchronous, no host synchronisation. On the GPU cuFFT's c2r multiplies as it loads
// the spectrum (a load callback it links in when it plans, multiply_callback.cu), so the
// multiplication costs no pass of its own; where cuFFT cannot link it (no nvJitLink or NVRTC
// at run time) a kernel multiplies between the transforms, and multiplication() says why. The exact solve of a constant-coefficient
// Poisson problem in a periodic box is one (solvers/transform_poisson.hpp). A kernel may write
// the input straight into the staged buffer and read the result from the result buffer
// (StagedView3), fusing the gather and the scatter into its own passes; the staged buffer keeps
// its input, so both stay readable until the next application.
#include <memory>
#include <string>

#include "core/array/array.hpp"
#include "core/runtime/macros.hpp"

namespace sim::fft {

/// The buffer a FourierMultiplier3 transforms, row-major n0 x n1 x n2 (trivially copyable).
template <class T>
struct StagedView3 {
  T* data = nullptr;
  index_t n1 = 0, n2 = 0;
  /// Element (i, j, k).
  SIM_INLINE T& operator()(index_t i, index_t j, index_t k) const { return data[(i * n1 + j) * n2 + k]; }
};

template <class T>
class FourierMultiplier3 {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                "spectral multipliers take float or double arrays");

 public:
  FourierMultiplier3() = default;
  /// Plans the operator for arrays of shape (each extent at least 2) on ctx, with the
  /// multiplier m (copied) of shape multiplier_shape(shape).
  FourierMultiplier3(const Context& ctx, const Extents<3>& shape, const Array<T, 3>& m);
  /// out = the operator applied to in (both of the planned shape; out may be in).
  void operator()(View<const T, 3> in, View<T, 3> out) const;
  /// The staged buffer: fill it, apply_staged(), read the result from result().
  StagedView3<T> staged() const;
  /// The buffer apply_staged() writes the result into.
  StagedView3<T> result() const;
  /// result = the operator applied to the staged buffer, which keeps its input (asynchronous on the GPU).
  void apply_staged() const;
  /// Whether cuFFT's inverse transform multiplies as it loads the spectrum (no pass of its own).
  bool multiplies_in_transform() const;
  /// Where the spectrum is multiplied, and why not in cuFFT's callback when it could not be.
  const std::string& multiplication() const;
  /// The multiplier's shape for arrays of shape: (n0, n1, n2 / 2 + 1).
  static Extents<3> multiplier_shape(const Extents<3>& shape) { return extents(shape.n[0], shape.n[1], shape.n[2] / 2 + 1); }

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace sim::fft
