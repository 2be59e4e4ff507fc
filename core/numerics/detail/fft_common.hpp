#pragma once
// Internals shared by the fast transforms (fft.cpp) and the spectral multipliers
// (spectral/multiplier2.cpp): cuFFT's complex layout, cos and sin of pi x on either side, Makhoul's
// reordering, and the lock FFTW's planner needs.
#include <cmath>
#include <mutex>

#include "core/runtime/macros.hpp"
#include "core/runtime/types.hpp"

namespace sim::fft::detail {

/// A complex number as cuFFT stores it.
template <class T>
struct Complex {
  T re, im;
};

/// cos(pi x) and sin(pi x), in double on either side.
SIM_INLINE void cos_sin_pi(double x, double& c, double& s) {
#if defined(__CUDA_ARCH__)
  sincospi(x, &s, &c);
#else
  c = std::cos(M_PI * x), s = std::sin(M_PI * x);
#endif
}

/// Where index j of n goes in Makhoul's order (evens ascending, then odds descending), which
/// turns a cosine transform into a real FFT of the same length.
SIM_INLINE index_t makhoul(index_t j, index_t n) { return (j & 1) ? n - 1 - j / 2 : j / 2; }

/// Guards FFTW's planner, which is not thread-safe.
std::mutex& fftw_planner_mutex();

}  // namespace sim::fft::detail
