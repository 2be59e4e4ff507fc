#pragma once
// GPU-to-GPU transfers between ranks through NCCL: point-to-point sends and receives on a
// stream of their own, ordered after the work already queued on the compute stream, so the
// kernels queued after start() overlap them. Built when CUDA, MPI and NCCL are all there
// (SIMKIT_HAS_NCCL); the halo exchange uses it for fields on the GPU.
#include <cstddef>
#include <memory>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/runtime/context.hpp"

namespace sim {

/// One device buffer to send to, or receive from, a peer rank.
struct DeviceTransfer {
  int peer = -1;
  void* data = nullptr;
  std::size_t count = 0;  ///< elements
};

/// The NCCL communicator of all ranks, on this process's GPU, with its stream and events.
class NcclChannel {
 public:
  /// The process's channel for comm's ranks on ctx's GPU, created on first use (collective:
  /// every rank must make its first call at the same point).
  /// Throws when two ranks share a GPU (see usable).
  static std::shared_ptr<NcclChannel> get(const Comm& comm, const Context& ctx);
  /// True when comm has several ranks on GPUs and each has a GPU of its own (NCCL refuses two
  /// ranks on one GPU). Collective on the first call; rank 0 then says which ranks share one.
  static bool usable(const Comm& comm, const Context& ctx);
  ~NcclChannel();
  /// After the work queued so far on ctx's stream: every send and receive, as one group.
  /// Between two ranks, receives match sends in the order each side lists them.
  void start(const Context& ctx, const std::vector<DeviceTransfer>& sends, const std::vector<DeviceTransfer>& recvs,
             bool is_double);
  /// Makes ctx's stream wait for the transfers of the last start().
  void finish(const Context& ctx);
  /// After the work queued on ctx's stream: send_counts[r] elements from send + send_offsets[r]
  /// to rank r and recv_counts[r] from rank r into recv + recv_offsets[r] (offsets in elements),
  /// as one group of sends and receives; ctx's stream waits for it when wait, else join() does.
  void all_to_all_v(const Context& ctx, const void* send, const std::vector<std::size_t>& send_counts,
                    const std::vector<std::size_t>& send_offsets, void* recv, const std::vector<std::size_t>& recv_counts,
                    const std::vector<std::size_t>& recv_offsets, bool is_double, bool wait = true);
  /// Makes ctx's stream wait for every transfer issued so far on the channel's stream.
  void join(const Context& ctx);
  /// Sums count elements of a device buffer over all ranks, in place, after the work queued
  /// on ctx's stream; ctx's stream waits for the result (the bus bandwidth's reference).
  void all_reduce_sum(const Context& ctx, void* data, std::size_t count, bool is_double);
  /// The largest of count elements over all ranks, in place, after the work queued on ctx's
  /// stream; ctx's stream waits for the result (exact: the same bits on every rank).
  void all_reduce_max(const Context& ctx, void* data, std::size_t count, bool is_double);

  struct Impl;

 private:
  explicit NcclChannel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sim
