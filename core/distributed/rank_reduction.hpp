#pragma once
// The sum or the maximum over ranks of a small buffer in a context's memory, in place, with the
// same bits on every rank: between GPUs through NCCL's all-reduce on the channel the halos and
// transposes use (stream ordered, no host wait, recordable in a CUDA graph); elsewhere (CPU
// ranks, GPUs without NCCL or shared by two ranks) through the host and MPI, a sum's values added in rank order. A
// maximum is exact.
#include <cstddef>
#include <memory>

#include "core/distributed/comm.hpp"
#include "core/runtime/context.hpp"

namespace sim {

class NcclChannel;

/// Planned in-place reductions over comm's ranks of buffers on ctx.
class RankReduction {
 public:
  RankReduction() = default;
  /// The reductions over comm's ranks on ctx (collective on GPUs with NCCL: every rank plans at the same point).
  RankReduction(const Comm& comm, const Context& ctx);
  /// data[0 .. count) = its sum over the ranks (float or double), after the work queued on the
  /// context; on GPUs with NCCL stream ordered, elsewhere complete on return. Collective.
  template <class T>
  void sum(T* data, std::size_t count) const;
  /// data[0 .. count) = its largest value over the ranks, as sum() does it.
  void max(double* data, std::size_t count) const;
  /// True when a call queues on the stream without waiting for the device (one rank, or NCCL):
  /// it may be recorded. On CPU ranks it runs MPI at once, which a CPU recording repeats.
  bool stream_ordered() const;
  /// How the values travel: "NCCL", "MPI", "host buffers (MPI)", or "local" on one rank.
  const char* transport() const;

 private:
  Comm comm_;
  Context ctx_;
  std::shared_ptr<NcclChannel> channel_;
};

}  // namespace sim
