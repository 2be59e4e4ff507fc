#include "core/cuda/check.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/runtime/error.hpp"

namespace sim::gpu {

namespace {
// Errors after which the CUDA context is unusable: every later call fails too.
bool is_sticky(cudaError_t code) {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}
}  // namespace

void fail(cudaError_t code, const char* call, const char* file, int line) {
  std::string msg = std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
                    ") in " + call + " at " + file + ":" + std::to_string(line);
  if (is_sticky(code)) {
    std::fprintf(stderr, "simkit: fatal: %s; the GPU context is unusable, aborting\n", msg.c_str());
    std::abort();
  }
  throw CudaError(msg);
}

void check_launch(const char* name, cudaStream_t stream, const char* file, int line) {
  cudaError_t code = cudaGetLastError();
  if (code != cudaSuccess) fail(code, (std::string("launch of kernel '") + name + "'").c_str(), file, line);
#ifndef NDEBUG
  code = cudaStreamSynchronize(stream);
  if (code != cudaSuccess) fail(code, (std::string("kernel '") + name + "'").c_str(), file, line);
#else
  (void)stream;
#endif
}

}  // namespace sim::gpu
