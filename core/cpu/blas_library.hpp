#pragma once
// The cpu backend's BLAS and LAPACK (OpenBLAS + LAPACKE), opened on first use (dlopen)
// rather than linked, so that simkit can tell OpenBLAS how long its threads may spin.
// OpenBLAS's workers spin after every call, by default for 2^28 cycles (about 0.1 s), and
// only read the limit (OPENBLAS_THREAD_TIMEOUT) when the library loads; a linked OpenBLAS
// loads before any simkit code runs. Spinning beside the cpu pool, they slowed whatever
// followed a matmul or a solve on a machine with few cores (docs/performance.md).
// Opened here, OpenBLAS spins 2^20 cycles (a fraction of a millisecond: back-to-back calls,
// as inside a solve, still find its threads awake) unless OPENBLAS_THREAD_TIMEOUT is set.
// Call sites read as the library's own calls: cpu_libs::blas()->cblas_dgemm(...).
#ifndef SIMKIT_HAS_CBLAS
#error "core/cpu/blas_library.hpp is for linalg.cpp and blas_library.cpp (CMake defines SIMKIT_HAS_CBLAS for them)"
#endif
#if SIMKIT_HAS_CBLAS
#include <cblas.h>
#include <lapacke.h>
#endif

namespace sim::cpu_libs {

#if SIMKIT_HAS_CBLAS
#define SIMKIT_CPU_BLAS_FUNCTIONS(X)                                                                                   \
  X(cblas_sgemm) X(cblas_dgemm) X(cblas_ssyrk) X(cblas_dsyrk) X(cblas_sgemv) X(cblas_dgemv) X(cblas_strsm) X(cblas_dtrsm)                            \
  X(LAPACKE_sgetrf_work) X(LAPACKE_dgetrf_work) X(LAPACKE_sgetrf) X(LAPACKE_dgetrf) X(LAPACKE_sgetri) X(LAPACKE_dgetri)

#define SIMKIT_LIBRARY_MEMBER(f) decltype(&::f) f = nullptr;
/// The BLAS and LAPACKE entry points that simkit calls.
struct Blas {
  SIMKIT_CPU_BLAS_FUNCTIONS(SIMKIT_LIBRARY_MEMBER)
};
#undef SIMKIT_LIBRARY_MEMBER
#else
struct Blas {};
#endif

/// OpenBLAS + LAPACKE, opened on the first call (thread-safe); nullptr when simkit was built
/// without their headers or they cannot be opened (then a note on stderr, once, and the
/// cpu backend's linear algebra runs plain loops on the pool).
const Blas* blas();

/// What the cpu backend's linear algebra runs on, in words.
const char* blas_description();

/// While set, blas() returns nullptr, so the plain loops run (sim::testing::use_plain_linalg_loops).
void use_plain_loops(bool on);

}  // namespace sim::cpu_libs
