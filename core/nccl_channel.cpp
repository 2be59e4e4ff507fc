// NCCL point-to-point transfers for the halo exchange (see nccl_channel.hpp).
#include "core/nccl_channel.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/cuda/check.hpp"
#include "core/error.hpp"

namespace sim {

namespace {
void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw Error(std::string("NCCL: ") + what + " failed: " + ncclGetErrorString(r));
}
}  // namespace

struct NcclChannel::Impl {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t queued = nullptr, done = nullptr;
};

NcclChannel::NcclChannel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

NcclChannel::~NcclChannel() {
  // at process exit: errors cannot be reported any more, and the driver frees the rest
  if (impl_->comm) ncclCommDestroy(impl_->comm);
  if (impl_->queued) cudaEventDestroy(impl_->queued);
  if (impl_->done) cudaEventDestroy(impl_->done);
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

std::shared_ptr<NcclChannel> NcclChannel::get(const Comm& comm, const Context& ctx) {
  static std::shared_ptr<NcclChannel> channel;
  if (channel) return channel;
  if (!ctx.is_cuda()) throw Error("NcclChannel: the context is not a GPU context");
  ncclUniqueId id;
  if (comm.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  const std::string bytes = comm.broadcast(std::string(reinterpret_cast<const char*>(&id), sizeof id));
  std::memcpy(&id, bytes.data(), sizeof id);
  auto impl = std::make_unique<Impl>();
  check_nccl(ncclCommInitRank(&impl->comm, comm.size(), id, comm.rank()), "ncclCommInitRank");
  SIM_CUDA_CHECK(cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking));
  SIM_CUDA_CHECK(cudaEventCreateWithFlags(&impl->queued, cudaEventDisableTiming));
  SIM_CUDA_CHECK(cudaEventCreateWithFlags(&impl->done, cudaEventDisableTiming));
  channel.reset(new NcclChannel(std::move(impl)));
  return channel;
}

void NcclChannel::start(const Context& ctx, const std::vector<DeviceTransfer>& sends,
                        const std::vector<DeviceTransfer>& recvs, bool is_double) {
  auto compute = static_cast<cudaStream_t>(ctx.stream());
  SIM_CUDA_CHECK(cudaEventRecord(impl_->queued, compute));  // the packed send buffers
  SIM_CUDA_CHECK(cudaStreamWaitEvent(impl_->stream, impl_->queued, 0));
  const ncclDataType_t type = is_double ? ncclFloat64 : ncclFloat32;
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (const DeviceTransfer& t : sends) check_nccl(ncclSend(t.data, t.count, type, t.peer, impl_->comm, impl_->stream), "ncclSend");
  for (const DeviceTransfer& t : recvs) check_nccl(ncclRecv(t.data, t.count, type, t.peer, impl_->comm, impl_->stream), "ncclRecv");
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  SIM_CUDA_CHECK(cudaEventRecord(impl_->done, impl_->stream));
}

void NcclChannel::finish(const Context& ctx) {
  SIM_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(ctx.stream()), impl_->done, 0));
}

bool nccl_halos_enabled() {
  static const bool nccl = [] {
    const char* e = std::getenv("SIMKIT_HALO");
    return e && std::string(e) == "nccl";
  }();
  return nccl;
}

}  // namespace sim
