#pragma once
// cuBLAS and cuSOLVER, opened on first use (dlopen) rather than linked: loading libcublas at
// start-up costs every process a noticeable part of a short run's time (docs/performance.md),
// which runs that never multiply matrices (every model) should not pay. cuFFT, cheap to load, stays linked.
// Call sites read as the library's own calls: cuda_libs::cublas().cublasDgemm_64(...).
#include <cublas_v2.h>
#include <cusolverDn.h>

namespace sim::cuda_libs {

// (cuBLAS's names are macros for their _v2 symbols: the member takes the symbol's name, so
// `.cublasDgemm_64` expands to the same member as the declaration.)
#define SIMKIT_CUBLAS_FUNCTIONS(X)                                                                                     \
  X(cublasCreate) X(cublasDestroy) X(cublasSetStream) X(cublasSetWorkspace) X(cublasGetStatusName) X(cublasGetStatusString)                 \
  X(cublasSaxpy_64) X(cublasDaxpy_64) X(cublasSscal_64) X(cublasDscal_64) X(cublasSdot_64) X(cublasDdot_64)           \
  X(cublasSnrm2_64) X(cublasDnrm2_64) X(cublasSgemm_64) X(cublasDgemm_64) X(cublasSsyrk_64) X(cublasDsyrk_64) X(cublasSgemv_64) X(cublasDgemv_64)         \
  X(cublasStrsm_64) X(cublasDtrsm_64)
#define SIMKIT_CUSOLVER_FUNCTIONS(X)                                                                                   \
  X(cusolverDnCreate) X(cusolverDnSetStream) X(cusolverDnCreateParams) X(cusolverDnXgetrf_bufferSize) X(cusolverDnXgetrf) X(cusolverDnXgetrs)

#define SIMKIT_LIBRARY_MEMBER(f) decltype(&::f) f = nullptr;

/// cuBLAS's entry points that simkit calls.
struct Cublas {
  SIMKIT_CUBLAS_FUNCTIONS(SIMKIT_LIBRARY_MEMBER)
};
/// cuSOLVER's entry points that simkit calls.
struct Cusolver {
  SIMKIT_CUSOLVER_FUNCTIONS(SIMKIT_LIBRARY_MEMBER)
};

#undef SIMKIT_LIBRARY_MEMBER

/// cuBLAS, opened on the first call (thread-safe); throws sim::Error if it cannot be opened.
const Cublas& cublas();
/// cuSOLVER, opened on the first call (thread-safe); throws sim::Error if it cannot be opened.
const Cusolver& cusolver();

}  // namespace sim::cuda_libs
