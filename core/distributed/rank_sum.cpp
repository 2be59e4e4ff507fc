// The sum of a small buffer over ranks (see rank_sum.hpp).
#include "core/distributed/rank_sum.hpp"

#include "core/array/array.hpp"
#if SIMKIT_HAS_NCCL
#include "core/distributed/nccl_channel.hpp"
#endif

namespace sim {

RankSum::RankSum(const Comm& comm, const Context& ctx) : comm_(comm), ctx_(ctx) {
#if SIMKIT_HAS_NCCL
  if (ctx.is_cuda() && comm.parallel()) channel_ = NcclChannel::get(comm, ctx);  // (collective on its first use)
#endif
}

template <class T>
void RankSum::operator()(T* data, std::size_t count) const {
  if (!comm_.parallel() || count == 0) return;
#if SIMKIT_HAS_NCCL
  if (channel_) return channel_->all_reduce_sum(ctx_, data, count, sizeof(T) == 8);
#endif
  const View<T, 1> v = dense_view(data, Extents<1>{{index_t(count)}});
  std::vector<T> host(count);
  detail::copy_to_host<T, 1>(ctx_, View<const T, 1>(v), host.data());  // (waits for the queued work)
  const std::vector<double> all = comm_.allgather(std::vector<double>(host.begin(), host.end()));
  for (std::size_t i = 0; i < count; ++i) {
    double s = 0;
    for (int r = 0; r < comm_.size(); ++r) s += all[std::size_t(r) * count + i];
    host[i] = T(s);
  }
  detail::copy_from_host<T, 1>(ctx_, host.data(), v);
}

const char* RankSum::transport() const {
  if (!comm_.parallel()) return "local";
  if (channel_) return "NCCL";
  return ctx_.is_cuda() ? "host buffers (MPI)" : "MPI";
}

template void RankSum::operator()<float>(float*, std::size_t) const;
template void RankSum::operator()<double>(double*, std::size_t) const;

}  // namespace sim
