#pragma once
// A diagonal operator in a 2D transform basis, applied in one fused pass per transform:
//   cosine:  out = idctn(dctn(in) * m)          (scipy.fft, type 2; m has the array's shape,
//                                                m(k1, k2) multiplies cosine mode (k1, k2))
//   fourier: out = irfft2(rfft2(in) * m)        (numpy.fft; m has shape (n1, n2 / 2 + 1),
//                                                row k1 is frequency k1 (k1 > n1/2: k1 - n1))
// The exact solve of a constant-coefficient Poisson or Helmholtz problem on a rectangle with
// zero-flux (cosine) or periodic (fourier) sides is one such operator, m = 1 / eigenvalue;
// so are spectral filters and exact diffusion steps. On the GPU: one gather, a 2D real FFT
// (cuFFT), one kernel that turns the spectrum into the multiplied one (Makhoul's reordering
// makes the 2D cosine transform a 2D real FFT plus twiddles), the inverse FFT, one scatter;
// asynchronous, no host synchronisation. The CPU takes the same steps with FFTW's 2D r2c / c2r
// plans and OpenMP kernels.
#include <memory>

#include "core/array/array.hpp"
#include "core/numerics/detail/fft_common.hpp"
#include "core/runtime/macros.hpp"

namespace sim::fft {

/// The basis a SpectralMultiplier works in.
enum class Basis2D { cosine, fourier };

/// The buffer a SpectralMultiplier transforms, addressed by the input's own (i, j): a
/// kernel can write its output there directly (fusing the gather into it) and read the result
/// back from it (fusing the scatter). Storage may be permuted (Makhoul's order in the cosine
/// basis); operator() hides that. Trivially copyable.
template <class T>
struct StagedView {
  T* data = nullptr;
  index_t n1 = 0, n2 = 0;
  bool permuted = false;
  /// Where index j of n is stored.
  SIM_INLINE static index_t position(index_t j, index_t n, bool permuted) { return permuted ? detail::makhoul(j, n) : j; }
  /// Element (i, j), 0 <= i < n1, 0 <= j < n2.
  SIM_INLINE T& operator()(index_t i, index_t j) const { return data[position(i, n1, permuted) * n2 + position(j, n2, permuted)]; }
};

template <class T>
class SpectralMultiplier {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                "spectral multipliers take float or double arrays");

 public:
  SpectralMultiplier() = default;
  /// Plans the operator for arrays of shape on ctx, with the multiplier m (copied; its shape:
  /// shape for cosine, (shape[0], shape[1] / 2 + 1) for fourier).
  SpectralMultiplier(const Context& ctx, Basis2D basis, const Extents<2>& shape, const Array<T, 2>& m);
  /// out = the operator applied to in (both of the planned shape; out may be in).
  void operator()(View<const T, 2> in, View<T, 2> out) const;
  /// The staged buffer (see StagedView): fill it, apply_staged(), read the result from it.
  StagedView<T> staged() const;
  /// The operator applied to the staged buffer in place (asynchronous on the GPU).
  void apply_staged() const;
  /// The multiplier's shape for a basis and array shape.
  static Extents<2> multiplier_shape(Basis2D basis, const Extents<2>& shape) {
    return basis == Basis2D::cosine ? shape : extents(shape.n[0], shape.n[1] / 2 + 1);
  }

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace sim::fft
