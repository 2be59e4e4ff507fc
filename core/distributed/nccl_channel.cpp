// NCCL point-to-point transfers for the halo exchange (see nccl_channel.hpp).
#include "core/distributed/nccl_channel.hpp"

#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/cuda/check.hpp"
#include "core/distributed/gpu_sharing.hpp"
#include "core/runtime/error.hpp"
#include "core/runtime/graph.hpp"
#include "core/runtime/tuning.hpp"

namespace sim {

namespace {
void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw Error(std::string("NCCL: ") + what + " failed: " + ncclGetErrorString(r));
}
}  // namespace

/// Diagnostic orderings of the NCCL stream against the compute stream (SIMKIT_NCCL_ORDER):
/// overlap (default: transfers run beside the kernels queued between start and finish),
/// serial (the compute stream waits for the transfers right after start), deferred (the
/// transfers are issued in finish, after the kernels queued in between), hostsync (finish
/// also blocks the host until the transfers are done).
enum class Order { overlap, serial, deferred, hostsync };

Order order_from_env() {
  const std::string& v = tuning::current().nccl_order;
  return v == "serial" ? Order::serial : v == "deferred" ? Order::deferred : v == "hostsync" ? Order::hostsync : Order::overlap;
}

struct NcclChannel::Impl {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t queued = nullptr, done = nullptr;
  Order order = Order::overlap;
  std::vector<DeviceTransfer> sends, recvs;  // deferred: the transfers finish() issues
  bool is_double = false;

  /// Before messages are queued behind compute's work: inside a capture, notes that the
  /// recording holds messages; outside one, first waits for replayed recordings that hold
  /// messages (without NCCL's graph mixing support, NCCL promises nothing for a call made
  /// while a captured one may still run, whatever the stream order; with it, the wait is one
  /// more than needed, at most once an output).
  void before_queue(cudaStream_t compute) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    SIM_CUDA_CHECK(cudaStreamIsCapturing(compute, &status));
    if (status != cudaStreamCaptureStatusNone) return note_recorded_message();
    if (replayed_messages_in_flight()) {
      SIM_CUDA_CHECK(cudaStreamSynchronize(compute));
      clear_replayed_messages();
    }
  }

  void issue(const std::vector<DeviceTransfer>& out, const std::vector<DeviceTransfer>& in, bool doubles) {
    const ncclDataType_t type = doubles ? ncclFloat64 : ncclFloat32;
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (const DeviceTransfer& t : out) check_nccl(ncclSend(t.data, t.count, type, t.peer, comm, stream), "ncclSend");
    for (const DeviceTransfer& t : in) check_nccl(ncclRecv(t.data, t.count, type, t.peer, comm, stream), "ncclRecv");
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    SIM_CUDA_CHECK(cudaEventRecord(done, stream));
  }

  /// op over the ranks of count elements at data, in place, on the channel's stream after the
  /// work queued on ctx's; ctx's stream waits for the result.
  void all_reduce(const Context& ctx, void* data, std::size_t count, bool doubles, ncclRedOp_t op) {
    auto compute = static_cast<cudaStream_t>(ctx.stream());
    before_queue(compute);
    SIM_CUDA_CHECK(cudaEventRecord(queued, compute));
    SIM_CUDA_CHECK(cudaStreamWaitEvent(stream, queued, 0));
    check_nccl(ncclAllReduce(data, data, count, doubles ? ncclDouble : ncclFloat, op, comm, stream), "ncclAllReduce");
    SIM_CUDA_CHECK(cudaEventRecord(done, stream));
    SIM_CUDA_CHECK(cudaStreamWaitEvent(compute, done, 0));
  }
};

NcclChannel::NcclChannel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

NcclChannel::~NcclChannel() {
  // at process exit: errors cannot be reported any more, and the driver frees the rest
  if (impl_->comm) ncclCommDestroy(impl_->comm);
  if (impl_->queued) cudaEventDestroy(impl_->queued);
  if (impl_->done) cudaEventDestroy(impl_->done);
  if (impl_->stream) cudaStreamDestroy(impl_->stream);
}

namespace {
/// The ranks' GPU keys ("host PCI-bus-id"): collective on the first call, kept after it.
const std::vector<std::string>& gpu_keys(const Comm& comm) {
  static const std::vector<std::string> keys = [&] {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    int device = 0;
    char bus[64] = {};
    SIM_CUDA_CHECK(cudaGetDevice(&device));
    SIM_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
    return comm.allgather(std::string(host) + " " + bus);
  }();
  return keys;
}
}  // namespace

bool NcclChannel::usable(const Comm& comm, const Context& ctx) {
  if (!ctx.is_cuda() || !comm.parallel()) return false;
  static const bool own_gpus = [&] {
    const auto shared = first_shared_gpu(gpu_keys(comm));
    if (shared.first >= 0 && comm.rank() == 0)
      std::fprintf(stderr,
                   "simkit: ranks %d and %d share the GPU %s; NCCL needs a GPU of its own per rank, so the "
                   "exchanges between ranks go through host buffers (MPI)\n",
                   shared.first, shared.second, gpu_keys(comm)[std::size_t(shared.first)].c_str());
    return shared.first < 0;
  }();
  return own_gpus;
}

std::shared_ptr<NcclChannel> NcclChannel::get(const Comm& comm, const Context& ctx) {
  static std::shared_ptr<NcclChannel> channel;
  if (channel) return channel;
  if (!ctx.is_cuda()) throw Error("NcclChannel: the context is not a GPU context");
  if (comm.parallel() && !usable(comm, ctx)) {
    const auto [a, b] = first_shared_gpu(gpu_keys(comm));
    throw Error("NCCL: ranks " + std::to_string(a) + " and " + std::to_string(b) + " share the GPU " +
                gpu_keys(comm)[std::size_t(a)] +
                " and NCCL needs a GPU of its own per rank; start at most as many ranks as GPUs, or leave "
                "SIMKIT_HALO and SIMKIT_TRANSPOSE_PATH at auto (exchanges through host buffers)");
  }
  ncclUniqueId id;
  if (comm.rank() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  const std::string bytes = comm.broadcast(std::string(reinterpret_cast<const char*>(&id), sizeof id));
  std::memcpy(&id, bytes.data(), sizeof id);
  // A device loop (SIMKIT_DECOMPOSED_STEPS=loop, and auto) holds NCCL's kernels in a
  // conditional node's body, where CUDA refuses the event-wait nodes NCCL adds so that
  // captured and uncaptured calls may be in flight together (its graph mixing support).
  // Without it, a call outside a recording first waits for replayed ones (before_queue).
  const std::string& steps = tuning::current().decomposed_steps;
  if (steps == "loop" || steps == "auto") setenv("NCCL_GRAPH_MIXING_SUPPORT", "0", 0);
  auto impl = std::make_unique<Impl>();
  check_nccl(ncclCommInitRank(&impl->comm, comm.size(), id, comm.rank()), "ncclCommInitRank");
  // The NCCL stream runs at the highest priority. At the compute stream's priority, the
  // block scheduler hands the interior update's pending blocks out before the NCCL kernel's,
  // so the transfer only began once the interior was done and nothing overlapped
  // (docs/performance.md).
  // SIMKIT_NCCL_PRIORITY=low (diagnostic) gives it the compute stream's priority again.
  const std::string& priority = tuning::current().nccl_priority;
  int least = 0, greatest = 0;
  SIM_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  SIM_CUDA_CHECK(cudaStreamCreateWithPriority(&impl->stream, cudaStreamNonBlocking,
                                              priority == "low" ? least : greatest));
  impl->order = order_from_env();
  SIM_CUDA_CHECK(cudaEventCreateWithFlags(&impl->queued, cudaEventDisableTiming));
  SIM_CUDA_CHECK(cudaEventCreateWithFlags(&impl->done, cudaEventDisableTiming));
  channel.reset(new NcclChannel(std::move(impl)));
  return channel;
}

void NcclChannel::start(const Context& ctx, const std::vector<DeviceTransfer>& sends,
                        const std::vector<DeviceTransfer>& recvs, bool is_double) {
  auto compute = static_cast<cudaStream_t>(ctx.stream());
  impl_->before_queue(compute);
  SIM_CUDA_CHECK(cudaEventRecord(impl_->queued, compute));  // the packed send buffers
  SIM_CUDA_CHECK(cudaStreamWaitEvent(impl_->stream, impl_->queued, 0));
  if (impl_->order == Order::deferred) {  // kept for finish()
    impl_->sends = sends, impl_->recvs = recvs, impl_->is_double = is_double;
    return;
  }
  impl_->issue(sends, recvs, is_double);
  if (impl_->order == Order::serial) SIM_CUDA_CHECK(cudaStreamWaitEvent(compute, impl_->done, 0));
}

void NcclChannel::finish(const Context& ctx) {
  if (impl_->order == Order::deferred) impl_->issue(impl_->sends, impl_->recvs, impl_->is_double);
  if (impl_->order == Order::hostsync) SIM_CUDA_CHECK(cudaEventSynchronize(impl_->done));
  SIM_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(ctx.stream()), impl_->done, 0));
}

void NcclChannel::all_to_all_v(const Context& ctx, const void* send, const std::vector<std::size_t>& send_counts,
                                const std::vector<std::size_t>& send_offsets, void* recv,
                                const std::vector<std::size_t>& recv_counts, const std::vector<std::size_t>& recv_offsets,
                                bool is_double, bool wait) {
  auto compute = static_cast<cudaStream_t>(ctx.stream());
  impl_->before_queue(compute);
  SIM_CUDA_CHECK(cudaEventRecord(impl_->queued, compute));  // the packed send buffer
  SIM_CUDA_CHECK(cudaStreamWaitEvent(impl_->stream, impl_->queued, 0));
  const ncclDataType_t type = is_double ? ncclFloat64 : ncclFloat32;
  const std::size_t element = is_double ? 8 : 4;
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (std::size_t r = 0; r < send_counts.size(); ++r)
    if (send_counts[r] > 0)
      check_nccl(ncclSend(static_cast<const char*>(send) + send_offsets[r] * element, send_counts[r], type, int(r),
                          impl_->comm, impl_->stream),
                 "ncclSend");
  for (std::size_t r = 0; r < recv_counts.size(); ++r)
    if (recv_counts[r] > 0)
      check_nccl(ncclRecv(static_cast<char*>(recv) + recv_offsets[r] * element, recv_counts[r], type, int(r), impl_->comm,
                          impl_->stream),
                 "ncclRecv");
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  SIM_CUDA_CHECK(cudaEventRecord(impl_->done, impl_->stream));
  if (wait) SIM_CUDA_CHECK(cudaStreamWaitEvent(compute, impl_->done, 0));
}

void NcclChannel::join(const Context& ctx) {
  SIM_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(ctx.stream()), impl_->done, 0));
}

void NcclChannel::all_reduce_sum(const Context& ctx, void* data, std::size_t count, bool is_double) {
  impl_->all_reduce(ctx, data, count, is_double, ncclSum);
}

void NcclChannel::all_reduce_max(const Context& ctx, void* data, std::size_t count, bool is_double) {
  impl_->all_reduce(ctx, data, count, is_double, ncclMax);
}

}  // namespace sim
