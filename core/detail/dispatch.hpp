#pragma once
// SIM_TU_NS: header templates that launch kernels live in an inline namespace named after
// the compiler of the translation unit. A file compiled by nvcc and one compiled by the
// host compiler then instantiate different symbols (no ODR clash between a GPU-capable and
// a CPU-only body of the same template); user code never names it.
#include <string>

#include "core/runtime/context.hpp"
#include "core/runtime/error.hpp"

#if defined(__CUDACC__)
#define SIM_TU_NS cuda_tu
#define SIM_TU_HAS_CUDA 1
#else
#define SIM_TU_NS host_tu
#define SIM_TU_HAS_CUDA 0
#endif

namespace sim::detail {

/// The error for a kernel asked to run on the GPU from a file that nvcc did not compile.
inline BackendError not_compiled_for_cuda(const char* kernel) {
  return BackendError(std::string("kernel '") + kernel +
                      "' was asked to run on a cuda context, but the file that defines it was compiled "
                      "without nvcc; list that file in simkit_kernel_sources() in CMake");
}

}  // namespace sim::detail
