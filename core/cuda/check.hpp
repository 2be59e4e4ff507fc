#pragma once
// Checking CUDA calls: recoverable errors throw CudaError with the call site; errors that
// poison the CUDA context (illegal address, launch failure, ...) abort, since nothing on
// that context can run afterwards.
#include <cuda_runtime.h>

namespace sim::gpu {

/// Handles a non-success code from call at file:line (throws or aborts).
[[noreturn]] void fail(cudaError_t code, const char* call, const char* file, int line);

/// Checks the launch of the kernel called name (and, in debug builds, its completion).
void check_launch(const char* name, cudaStream_t stream, const char* file, int line);

}  // namespace sim::gpu

/// Checks the cudaError_t of a CUDA runtime call.
#define SIM_CUDA_CHECK(call)                                              \
  do {                                                                    \
    cudaError_t sim_cuda_status_ = (call);                                \
    if (sim_cuda_status_ != cudaSuccess)                                  \
      ::sim::gpu::fail(sim_cuda_status_, #call, __FILE__, __LINE__);     \
  } while (0)

/// Checks a kernel launch named name on stream.
#define SIM_CUDA_CHECK_LAUNCH(name, stream) ::sim::gpu::check_launch(name, stream, __FILE__, __LINE__)
