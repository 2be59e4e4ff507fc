// Sums and maxima of small buffers over ranks (see rank_reduction.hpp).
#include "core/distributed/rank_reduction.hpp"

#include <vector>

#include "core/array/array.hpp"
#if SIMKIT_HAS_NCCL
#include "core/distributed/nccl_channel.hpp"
#endif

namespace sim {

namespace {

/// data[0 .. count) on ctx through the host: copied out (after the queued work), changed by
/// reduce(host values), copied back.
template <class T, class Reduce>
void through_host(const Context& ctx, T* data, std::size_t count, const Reduce& reduce) {
  const View<T, 1> v = dense_view(data, Extents<1>{{index_t(count)}});
  std::vector<T> host(count);
  detail::copy_to_host<T, 1>(ctx, View<const T, 1>(v), host.data());  // (waits for the queued work)
  reduce(host);
  detail::copy_from_host<T, 1>(ctx, host.data(), v);
}

}  // namespace

RankReduction::RankReduction(const Comm& comm, const Context& ctx) : comm_(comm), ctx_(ctx) {
#if SIMKIT_HAS_NCCL
  if (NcclChannel::usable(comm, ctx)) channel_ = NcclChannel::get(comm, ctx);  // (collective on its first use)
#endif
}

template <class T>
void RankReduction::sum(T* data, std::size_t count) const {
  if (!comm_.parallel() || count == 0) return;
#if SIMKIT_HAS_NCCL
  if (channel_) return channel_->all_reduce_sum(ctx_, data, count, sizeof(T) == 8);
#endif
  through_host(ctx_, data, count, [&](std::vector<T>& host) {
    const std::vector<double> all = comm_.allgather(std::vector<double>(host.begin(), host.end()));
    for (std::size_t i = 0; i < count; ++i) {
      double s = 0;
      for (int r = 0; r < comm_.size(); ++r) s += all[std::size_t(r) * count + i];
      host[i] = T(s);
    }
  });
}

void RankReduction::max(double* data, std::size_t count) const {
  if (!comm_.parallel() || count == 0) return;
#if SIMKIT_HAS_NCCL
  if (channel_) return channel_->all_reduce_max(ctx_, data, count, true);
#endif
  through_host(ctx_, data, count, [&](std::vector<double>& host) {
    for (double& x : host) x = comm_.max(x);
  });
}

bool RankReduction::stream_ordered() const { return !comm_.parallel() || channel_ || !ctx_.is_cuda(); }

const char* RankReduction::transport() const {
  if (!comm_.parallel()) return "local";
  if (channel_) return "NCCL";
  return ctx_.is_cuda() ? "host buffers (MPI)" : "MPI";
}

template void RankReduction::sum<float>(float*, std::size_t) const;
template void RankReduction::sum<double>(double*, std::size_t) const;

}  // namespace sim
