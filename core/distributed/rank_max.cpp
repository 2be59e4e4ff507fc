// The maximum of a small buffer over ranks (see rank_max.hpp).
#include "core/distributed/rank_max.hpp"

#include <vector>

#include "core/array/array.hpp"
#if SIMKIT_HAS_NCCL
#include "core/distributed/nccl_channel.hpp"
#endif

namespace sim {

RankMax::RankMax(const Comm& comm, const Context& ctx) : comm_(comm), ctx_(ctx) {
#if SIMKIT_HAS_NCCL
  if (ctx.is_cuda() && comm.parallel()) channel_ = NcclChannel::get(comm, ctx);  // (collective on its first use)
#endif
}

void RankMax::operator()(double* data, std::size_t count) const {
  if (!comm_.parallel() || count == 0) return;
#if SIMKIT_HAS_NCCL
  if (channel_) return channel_->all_reduce_max(ctx_, data, count, true);
#endif
  const View<double, 1> v = dense_view(data, Extents<1>{{index_t(count)}});
  std::vector<double> host(count);
  detail::copy_to_host<double, 1>(ctx_, View<const double, 1>(v), host.data());  // (waits for the queued work)
  for (double& x : host) x = comm_.max(x);
  detail::copy_from_host<double, 1>(ctx_, host.data(), v);
}

bool RankMax::stream_ordered() const { return !comm_.parallel() || channel_ || !ctx_.is_cuda(); }

const char* RankMax::transport() const {
  if (!comm_.parallel()) return "local";
  if (channel_) return "NCCL";
  return ctx_.is_cuda() ? "host buffers (MPI)" : "MPI";
}

}  // namespace sim
