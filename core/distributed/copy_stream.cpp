// The copy stream of core/distributed/copy_stream.hpp.
#include "core/distributed/copy_stream.hpp"

#include <cuda_runtime.h>

#include "core/cuda/check.hpp"

namespace sim {

struct CopyStream::Impl {
  cudaStream_t stream = nullptr;
  cudaEvent_t queued = nullptr, copied = nullptr;
};

CopyStream::CopyStream(const Context& ctx) : impl_(std::make_unique<Impl>()) {
  (void)ctx;  // the context's device is current on this thread
  // the highest priority: its few small copies and kernels should not queue behind a stencil
  int least = 0, greatest = 0;
  SIM_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  SIM_CUDA_CHECK(cudaStreamCreateWithPriority(&impl_->stream, cudaStreamNonBlocking, greatest));
  SIM_CUDA_CHECK(cudaEventCreateWithFlags(&impl_->queued, cudaEventDisableTiming));
  SIM_CUDA_CHECK(cudaEventCreateWithFlags(&impl_->copied, cudaEventDisableTiming));
}

CopyStream::~CopyStream() {
  // no throwing from a destructor: errors here would only repeat an earlier one
  cudaStreamSynchronize(impl_->stream);
  cudaEventDestroy(impl_->queued);
  cudaEventDestroy(impl_->copied);
  cudaStreamDestroy(impl_->stream);
}

void* CopyStream::stream() const { return impl_->stream; }

void CopyStream::follow(const Context& ctx) {
  SIM_CUDA_CHECK(cudaEventRecord(impl_->queued, static_cast<cudaStream_t>(ctx.stream())));
  SIM_CUDA_CHECK(cudaStreamWaitEvent(impl_->stream, impl_->queued, 0));
}

void CopyStream::wait_host() { SIM_CUDA_CHECK(cudaStreamSynchronize(impl_->stream)); }

void CopyStream::join(const Context& ctx) {
  SIM_CUDA_CHECK(cudaEventRecord(impl_->copied, impl_->stream));
  SIM_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(ctx.stream()), impl_->copied, 0));
}

}  // namespace sim
