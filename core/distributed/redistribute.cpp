// Redistribution between two splits of a grid: pack by strided copies, one all-to-all, unpack.
#include "core/distributed/redistribute.hpp"

#include <string>

#include "core/runtime/error.hpp"
#if SIMKIT_HAS_NCCL
#include "core/distributed/nccl_channel.hpp"
#endif

namespace sim {

namespace {
/// box moved so that origin becomes index 0.
template <int Rank>
Box<Rank> relative(const Box<Rank>& box, const Box<Rank>& origin) {
  Box<Rank> b = box;
  for (int d = 0; d < Rank; ++d) b.lo[d] -= origin.lo[d], b.hi[d] -= origin.lo[d];
  return b;
}

template <int Rank>
bool same(const Box<Rank>& a, const Box<Rank>& b) {
  if (a.size() == 0 && b.size() == 0) return true;
  for (int d = 0; d < Rank; ++d)
    if (a.lo[d] != b.lo[d] || a.hi[d] != b.hi[d]) return false;
  return true;
}

template <int Rank>
std::string text(const Extents<Rank>& e) {
  std::string s;
  for (int d = 0; d < Rank; ++d) s += (d ? " x " : "") + std::to_string(e.n[d]);
  return s;
}
}  // namespace

/// Where each rank's piece of box starts in box's row-major layout (elements), when the pieces
/// (pieces[r]: the part of box that goes to or comes from rank r, this rank's own included),
/// taken in rank order, follow one another in that layout: each spans box's whole extent in
/// every dimension but the first, and each starts where the previous one ends. Empty when
/// they do not (the pieces are then packed into, or unpacked from, a buffer of their own).
template <int Rank>
std::vector<std::size_t> consecutive_offsets(const Box<Rank>& box, const std::vector<Box<Rank>>& pieces) {
  std::vector<std::size_t> offsets(pieces.size(), 0);
  std::size_t row = 1;
  for (int d = 1; d < Rank; ++d) row *= std::size_t(box.extent(d));
  index_t next = box.lo[0];
  for (std::size_t r = 0; r < pieces.size(); ++r) {
    const Box<Rank>& p = pieces[r];
    if (p.size() == 0) continue;
    for (int d = 1; d < Rank; ++d)
      if (p.lo[d] != box.lo[d] || p.hi[d] != box.hi[d]) return {};
    if (p.lo[0] != next) return {};
    offsets[r] = std::size_t(p.lo[0] - box.lo[0]) * row, next = p.hi[0];
  }
  return offsets;
}

/// One rank's piece: where it sits in this rank's box and in the packed buffer.
template <int Rank>
struct Piece {
  int rank = 0;
  Box<Rank> local{};       // in this rank's from-box (sends) or to-box (receives)
  std::size_t offset = 0;  // elements into the packed buffer
};

template <class T, int Rank>
struct Redistribution<T, Rank>::Plan {
  Comm comm;
  Context ctx;
  std::vector<Piece<Rank>> sends, recvs;      // other ranks' pieces, in rank order
  Box<Rank> own_in{}, own_out{};              // this rank's piece to itself
  std::vector<std::size_t> send_counts, send_offsets, recv_counts, recv_offsets;  // elements, per rank
  mutable Array<T, 1> send_buf, recv_buf;     // packed pieces on ctx
  mutable std::vector<T> host_send, host_recv;  // GPU without NCCL: staging for MPI
  // where each piece sits in a contiguous from-box (to-box) when the pieces follow one another
  // in its layout: the exchange then sends from it (receives into it) directly, no pack (unpack)
  std::vector<std::size_t> direct_send_offsets, direct_recv_offsets;
  bool sends_direct(const void* ptr, bool contiguous) const { return !direct_send_offsets.empty() && contiguous && ptr; }
  bool recvs_direct(const void* ptr, bool contiguous) const { return !direct_recv_offsets.empty() && contiguous && ptr; }
#if SIMKIT_HAS_NCCL
  std::shared_ptr<NcclChannel> channel;
#endif
  bool through_nccl() const {
#if SIMKIT_HAS_NCCL
    return bool(channel);
#else
    return false;
#endif
  }
};

template <class T, int Rank>
Redistribution<T, Rank>::Redistribution(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from,
                                        const std::vector<Box<Rank>>& to)
    : plan_(std::make_shared<Plan>()) {
  const std::size_t ranks = std::size_t(comm.size());
  if (from.size() != ranks || to.size() != ranks)
    throw Error("redistribution: " + std::to_string(from.size()) + " from-boxes and " + std::to_string(to.size()) +
                " to-boxes for " + std::to_string(ranks) + " ranks");
  Plan& p = *plan_;
  p.comm = comm, p.ctx = ctx;
  const int me = comm.rank();
  mine_from_ = from[std::size_t(me)], mine_to_ = to[std::size_t(me)];
  for (std::size_t r = 0; r < ranks; ++r) identity_ = identity_ && same(from[r], to[r]);
  p.send_counts.assign(ranks, 0), p.send_offsets.assign(ranks, 0), p.recv_counts.assign(ranks, 0), p.recv_offsets.assign(ranks, 0);
  std::size_t out = 0, in = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    const Box<Rank> send = intersect(mine_from_, to[r]), recv = intersect(from[r], mine_to_);
    if (int(r) == me) {
      p.own_in = relative(send, mine_from_), p.own_out = relative(recv, mine_to_);
      continue;
    }
    p.send_offsets[r] = out, p.recv_offsets[r] = in;
    if (send.size() > 0) {
      p.sends.push_back({int(r), relative(send, mine_from_), out});
      p.send_counts[r] = std::size_t(send.size()), out += std::size_t(send.size());
    }
    if (recv.size() > 0) {
      p.recvs.push_back({int(r), relative(recv, mine_to_), in});
      p.recv_counts[r] = std::size_t(recv.size()), in += std::size_t(recv.size());
    }
  }
  sent_ = out * sizeof(T);
  std::vector<Box<Rank>> send_pieces, recv_pieces;
  for (std::size_t r = 0; r < ranks; ++r)
    send_pieces.push_back(intersect(mine_from_, to[r])), recv_pieces.push_back(intersect(from[r], mine_to_));
  p.send_buf = Array<T, 1>(ctx, Extents<1>{{index_t(out > 0 ? out : 1)}});
  p.recv_buf = Array<T, 1>(ctx, Extents<1>{{index_t(in > 0 ? in : 1)}});
  if (!comm.parallel() || identity_) return;  // (nothing ever leaves a rank: no channel)
#if SIMKIT_HAS_NCCL
  if (NcclChannel::usable(comm, ctx)) {  // (else: ranks share a GPU, staged through the host)
    p.channel = NcclChannel::get(comm, ctx);  // (collective on its first use)
    // NCCL connects a pair of ranks on their first transfer (a fraction of a second): one
    // element to and from every peer now, so that it is not the first solve that pays
    std::vector<std::size_t> one_out(ranks, 0), one_in(ranks, 0);
    for (std::size_t r = 0; r < ranks; ++r) one_out[r] = p.send_counts[r] > 0, one_in[r] = p.recv_counts[r] > 0;
    p.channel->all_to_all_v(ctx, p.send_buf.data(), one_out, p.send_offsets, p.recv_buf.data(), one_in, p.recv_offsets,
                            sizeof(T) == 8);
    ctx.synchronize();
  }
#endif
  if (ctx.is_cuda() && !p.through_nccl()) {
    p.host_send.resize(out), p.host_recv.resize(in);
    return;  // staged through the host: packed and unpacked there
  }
  if (mine_from_.size() > 0) p.direct_send_offsets = consecutive_offsets(mine_from_, send_pieces);
  if (mine_to_.size() > 0) p.direct_recv_offsets = consecutive_offsets(mine_to_, recv_pieces);
}

template <class T, int Rank>
void Redistribution<T, Rank>::start(View<const T, Rank> in, View<T, Rank> out) const {
  if (!plan_) throw Error("redistribution: not planned");
  const Plan& p = *plan_;
  auto fits = [](const Extents<Rank>& e, const Box<Rank>& b) { return e == b.shape() || (e.size() == 0 && b.size() == 0); };
  if (!fits(in.shape, mine_from_) || !fits(out.shape, mine_to_))
    throw ShapeError("redistribution: arrays of shape " + text(in.shape) + " and " + text(out.shape) +
                     " for this rank's boxes of " + text(mine_from_.shape()) + " and " + text(mine_to_.shape()));
  if (p.own_in.size() > 0) detail::copy<T, Rank>(p.ctx, in.sub(p.own_in), out.sub(p.own_out));
  if (!p.comm.parallel() || identity_) return;
  const bool send_direct = p.sends_direct(in.ptr, in.contiguous()), recv_direct = p.recvs_direct(out.ptr, out.contiguous());
  T* send = send_direct ? const_cast<T*>(in.ptr) : p.send_buf.data();
  T* recv = recv_direct ? out.ptr : p.recv_buf.data();
  const std::vector<std::size_t>& send_offsets = send_direct ? p.direct_send_offsets : p.send_offsets;
  const std::vector<std::size_t>& recv_offsets = recv_direct ? p.direct_recv_offsets : p.recv_offsets;
  if (!send_direct)
    for (const Piece<Rank>& s : p.sends)
      detail::copy<T, Rank>(p.ctx, in.sub(s.local), dense_view(send + s.offset, s.local.shape()));
  auto bytes = [](std::vector<std::size_t> v) {
    for (std::size_t& x : v) x *= sizeof(T);
    return v;
  };
  if (p.through_nccl()) {
#if SIMKIT_HAS_NCCL
    p.channel->all_to_all_v(p.ctx, send, p.send_counts, send_offsets, recv, p.recv_counts, recv_offsets, sizeof(T) == 8,
                            false);
#endif
  } else if (p.ctx.is_cuda()) {  // download (waits), MPI, upload
    const std::size_t ns = p.host_send.size(), nr = p.host_recv.size();
    if (ns > 0) detail::copy_to_host<T, 1>(p.ctx, dense_view(send, Extents<1>{{index_t(ns)}}), p.host_send.data());
    p.comm.alltoallv(p.host_send.data(), bytes(p.send_counts), bytes(p.send_offsets), p.host_recv.data(),
                     bytes(p.recv_counts), bytes(p.recv_offsets));
    if (nr > 0) detail::copy_from_host<T, 1>(p.ctx, p.host_recv.data(), dense_view(recv, Extents<1>{{index_t(nr)}}));
  } else {
    p.ctx.synchronize();  // the packing threads are done
    p.comm.alltoallv(send, bytes(p.send_counts), bytes(send_offsets), recv, bytes(p.recv_counts), bytes(recv_offsets));
  }
}

template <class T, int Rank>
void Redistribution<T, Rank>::finish(View<T, Rank> out) const {
  if (!plan_) throw Error("redistribution: not planned");
  const Plan& p = *plan_;
  if (!p.comm.parallel() || identity_) return;
#if SIMKIT_HAS_NCCL
  if (p.through_nccl()) p.channel->join(p.ctx);
#endif
  if (p.recvs_direct(out.ptr, out.contiguous())) return;  // received in place
  const T* recv = p.recv_buf.data();
  for (const Piece<Rank>& r : p.recvs)
    detail::copy<T, Rank>(p.ctx, dense_view(recv + r.offset, r.local.shape()), out.sub(r.local));
}

template <class T, int Rank>
bool Redistribution<T, Rank>::packs() const {
  return plan_ && plan_->comm.parallel() && !plan_->sends.empty() && plan_->direct_send_offsets.empty();
}

template <class T, int Rank>
bool Redistribution<T, Rank>::unpacks() const {
  return plan_ && plan_->comm.parallel() && !plan_->recvs.empty() && plan_->direct_recv_offsets.empty();
}

template <class T, int Rank>
const char* Redistribution<T, Rank>::transport() const {
  if (!plan_ || !plan_->comm.parallel() || identity_) return "local";
  if (plan_->through_nccl()) return "NCCL";
  return plan_->ctx.is_cuda() ? "host buffers (MPI)" : "MPI";
}

template class Redistribution<float, 2>;
template class Redistribution<float, 3>;
template class Redistribution<double, 2>;
template class Redistribution<double, 3>;

}  // namespace sim
