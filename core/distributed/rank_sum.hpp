#pragma once
// The sum over ranks of a small buffer in a context's memory, in place, with the same bits on
// every rank: between GPUs through NCCL's all-reduce on the channel the halos and transposes
// use (stream ordered, no host wait); elsewhere (CPU ranks, GPUs without NCCL) through the
// host and MPI, the ranks' values added in rank order.
#include <cstddef>
#include <memory>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/runtime/context.hpp"

namespace sim {

class NcclChannel;

/// A planned in-place sum over comm's ranks of buffers of float or double on ctx.
class RankSum {
 public:
  RankSum() = default;
  /// The sum over comm's ranks on ctx (collective on GPUs with NCCL: every rank plans at the same point).
  RankSum(const Comm& comm, const Context& ctx);
  /// data[0 .. count) = its sum over the ranks, after the work queued on the context; on GPUs
  /// with NCCL stream ordered, elsewhere complete on return. Collective.
  template <class T>
  void operator()(T* data, std::size_t count) const;
  /// How the values travel: "NCCL", "MPI", "host buffers (MPI)", or "local" on one rank.
  const char* transport() const;

 private:
  Comm comm_;
  Context ctx_;
  std::shared_ptr<NcclChannel> channel_;
};

}  // namespace sim
