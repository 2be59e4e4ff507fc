// Ghost exchange through host buffers and Comm's non-blocking transfers.
#include "core/distributed/halo.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/array/array.hpp"
#include "core/runtime/error.hpp"
#include "core/runtime/host_buffer.hpp"
#include "core/runtime/tuning.hpp"
#if SIMKIT_HAS_CUDA
#include "core/distributed/copy_stream.hpp"
#endif
#if SIMKIT_HAS_NCCL
#include "core/distributed/nccl_channel.hpp"
#endif

namespace sim {

namespace {
/// The slab of dimension d on `side` (0 low, 1 high): the interior layers a neighbour needs
/// (ghost == false) or the ghost layers it fills (ghost == true); in the other dimensions the
/// ghosted extent (corners == true) or the interior one.
template <int Rank>
Box<Rank> slab(const Box<Rank>& interior, int g, int d, int side, bool ghost, bool corners) {
  Box<Rank> b = corners ? interior.grow(g) : interior;
  const index_t n = interior.hi[d];
  if (ghost) b.lo[d] = side ? n : -g, b.hi[d] = side ? n + g : 0;
  else b.lo[d] = side ? n - g : 0, b.hi[d] = side ? n : g;
  return b;
}

/// The exchange with peer through face (d, side); a message leaving through the high face
/// arrives at the neighbour's low face, so the tags are 2d + side out and 2d + (1 - side) in.
Transfer face_transfer(int peer, int d, int side, const void* send, void* recv, std::size_t bytes) {
  return {peer, 2 * d + side, 2 * d + (1 - side), send, recv, bytes};
}

/// SIMKIT_HALO (core/runtime/tuning.hpp): "nccl", "host", or "auto" (the default).
std::string halo_mode() { return tuning::current().halo; }
// auto: NCCL from this face size on, when some rank has two faces or more. In heat weak
// scaling host staging hides small faces (2D) and one large face per rank behind the interior
// kernel better than NCCL, while two large faces a rank saturate the copy engines and NCCL wins.
// Blocking exchanges (the fluid model and its multigrid levels: small faces, nothing to
// overlap) are latency-bound, where NCCL is ahead. Figures in docs/performance.md.
constexpr double nccl_min_face_bytes = 256 * 1024;
}  // namespace

template <class T, int Rank>
const char* Halo<T, Rank>::transport() const {
  return dev_ ? "NCCL" : "host buffers (MPI)";
}

template <class T, int Rank>
std::vector<std::pair<int, int>> Halo<T, Rank>::faces(int d_first, int d_end, bool receive_order) const {
  std::vector<std::pair<int, int>> list;
  for (int d = d_first; d < d_end; ++d)
    for (int k = 0; k < 2; ++k) {
      const int side = receive_order ? 1 - k : k;
      if (sub_.neighbour[d][side] >= 0) list.push_back({d, side});
    }
  return list;
}

template <class T, int Rank>
bool Halo<T, Rank>::active() const {
  for (int d = 0; d < Rank; ++d)
    if (sub_.neighbour[d][0] >= 0 || sub_.neighbour[d][1] >= 0) return true;
  return false;
}

#if SIMKIT_HAS_NCCL
template <class T, int Rank>
struct Halo<T, Rank>::Device {
  std::shared_ptr<NcclChannel> channel;
  Array<T, 1> send[Rank][2], recv[Rank][2];
};
#else
template <class T, int Rank>
struct Halo<T, Rank>::Device {};
#endif

namespace {
/// The storage of f from plane `first` of dimension 0 on (negative: ghost planes). A slab of
/// dimension 0 is whole planes of the storage, contiguous (the other dimensions' ghosts and
/// row padding included), so NCCL sends it from, and receives it into, the field itself:
/// no packing. The edge ghosts it carries are overwritten by the later dimensions' exchanges
/// or left unread (faces only); padding is never read.
template <class T, int Rank>
T* planes(Field<T, Rank>& f, index_t first) {
  const Array<T, Rank>& a = f.storage();
  return f.storage().data() + (first + f.grid().ghost) * (a.size() / a.shape().n[0]);
}
/// Elements in `count` planes of dimension 0 of f's storage.
template <class T, int Rank>
std::size_t plane_elements(const Field<T, Rank>& f, index_t count) {
  const Array<T, Rank>& a = f.storage();
  return std::size_t(count * (a.size() / a.shape().n[0]));
}

#if SIMKIT_HAS_NCCL
/// The message of dimension 0's ghost planes of f on `side` (0 low, 1 high) with rank
/// `neighbour`: the ghost planes received beyond that side, or the planes sent from the cells
/// next to it; whole planes, straight from and into the field.
template <class T, int Rank>
DeviceTransfer plane_message(int neighbour, Field<T, Rank>& f, int side, int ghost, bool receive) {
  const index_t n0 = f.grid().cells.n[0];
  const index_t first = receive ? (side ? n0 : -index_t(ghost)) : (side ? n0 - ghost : 0);
  return {neighbour, planes(f, first), plane_elements(f, ghost)};
}
#endif

/// A dense view of shape `box` over the start of buf (grown to fit).
template <class T, int Rank>
View<T, Rank> dense(const Context& ctx, Array<T, 1>& buf, const Box<Rank>& box) {
  if (buf.size() < box.size()) buf = Array<T, 1>(ctx, Extents<1>{{box.size()}});
  return dense_view(buf.data(), box.shape());
}
}  // namespace

template <class T, int Rank>
Halo<T, Rank>::Halo(const Comm& comm, const Subdomain& sub, int ghost, const Context& ctx, HaloUse use)
    : comm_(comm), sub_(sub), ghost_(ghost) {
  for (int d = 0; d < Rank; ++d)
    for (int side = 0; side < 2; ++side)
      if (sub.neighbour[d][side] >= 0 && sub.cells[d] < ghost)
        throw Error("halo: a box of " + std::to_string(sub.cells[d]) + " cells cannot feed " + std::to_string(ghost) +
                    " ghost layers to its neighbour; use fewer ranks along that dimension");
  if (ctx.valid() && comm.parallel() && use_nccl(ctx, use)) {  // collective, so here on every rank
#if SIMKIT_HAS_NCCL
    dev_ = std::make_shared<Device>();
    dev_->channel = NcclChannel::get(comm_, ctx);
    connect(ctx);
#endif
  }
}

template <class T, int Rank>
void Halo<T, Rank>::connect(const Context& ctx) {
#if SIMKIT_HAS_NCCL
  // NCCL connects a pair of ranks on their first send/receive (a fraction of a second): one
  // element to and from every neighbour, in the order post_device uses, does it now
  std::vector<DeviceTransfer> sends, recvs;
  for (auto [d, side] : faces(0, Rank, false))
    sends.push_back({sub_.neighbour[d][side], dense(ctx, dev_->send[d][side], Box<1>{{0}, {1}}).ptr, 1});
  for (auto [d, side] : faces(0, Rank, true))
    recvs.push_back({sub_.neighbour[d][side], dense(ctx, dev_->recv[d][side], Box<1>{{0}, {1}}).ptr, 1});
  dev_->channel->start(ctx, sends, recvs, sizeof(T) == 8);
  dev_->channel->finish(ctx);
  ctx.synchronize();
#else
  (void)ctx;
#endif
}

template <class T, int Rank>
bool Halo<T, Rank>::use_nccl(const Context& ctx, HaloUse use) const {
  if (!SIMKIT_HAS_NCCL || !ctx.is_cuda()) return false;
  const std::string mode = halo_mode();
  if (mode != "auto") return mode == "nccl";  // (nccl on ranks that share a GPU: NcclChannel::get says why not)
#if SIMKIT_HAS_NCCL
  if (!NcclChannel::usable(comm_, ctx)) return false;
#endif
  if (use == HaloUse::blocking) return true;
  double face = 0, count = 0;  // this rank's largest face message and its faces, then all ranks' largest
  for (auto [d, side] : faces(0, Rank, false)) {
    double bytes = double(ghost_) * double(sizeof(T));
    for (int e = 0; e < Rank; ++e) bytes *= e == d ? 1.0 : double(sub_.cells[e]);
    face = std::max(face, bytes), count += 1;
  }
  return comm_.max(face) >= nccl_min_face_bytes && comm_.max(count) >= 2;
}

template <class T, int Rank>
void Halo<T, Rank>::post_device(Field<T, Rank>& f, int d_first, int d_end, bool corners) {
#if SIMKIT_HAS_NCCL
  const Context& ctx = f.context();
  auto v = f.view();
  std::vector<DeviceTransfer> sends, recvs;
  for (auto [d, side] : faces(d_first, d_end, false)) {
    if (d == 0 && Rank > 1) {  // whole planes, straight from the field
      sends.push_back(plane_message(sub_.neighbour[d][side], f, side, ghost_, false));
      continue;
    }
    const Box<Rank> out = slab(f.interior(), ghost_, d, side, false, corners);
    View<T, Rank> buf = dense(ctx, dev_->send[d][side], out);
    detail::copy<T, Rank>(ctx, v.sub(out), buf);
    sends.push_back({sub_.neighbour[d][side], buf.ptr, std::size_t(out.size())});
  }
  for (auto [d, side] : faces(d_first, d_end, true)) {
    if (d == 0 && Rank > 1) {  // straight into the ghost planes
      recvs.push_back(plane_message(sub_.neighbour[d][side], f, side, ghost_, true));
      continue;
    }
    const Box<Rank> in = slab(f.interior(), ghost_, d, side, true, corners);
    recvs.push_back({sub_.neighbour[d][side], dense(ctx, dev_->recv[d][side], in).ptr, std::size_t(in.size())});
  }
  dev_->channel->start(ctx, sends, recvs, sizeof(T) == 8);
#else
  (void)f, (void)d_first, (void)d_end, (void)corners;
#endif
}

template <class T, int Rank>
void Halo<T, Rank>::unpack_device(Field<T, Rank>& f, int d_first, int d_end, bool corners) {
#if SIMKIT_HAS_NCCL
  const Context& ctx = f.context();
  dev_->channel->finish(ctx);
  auto v = f.view();
  for (auto [d, side] : faces(d_first, d_end, false)) {
    if (d == 0 && Rank > 1) continue;  // received in place
    const Box<Rank> in = slab(f.interior(), ghost_, d, side, true, corners);
    View<T, Rank> buf = dense(ctx, dev_->recv[d][side], in);
    detail::copy<T, Rank>(ctx, View<const T, Rank>(buf), v.sub(in));
  }
#else
  (void)f, (void)d_first, (void)d_end, (void)corners;
#endif
}

#if SIMKIT_HAS_CUDA
template <class T, int Rank>
struct Halo<T, Rank>::Staging {
  explicit Staging(const Context& ctx) : copies(ctx) {}
  CopyStream copies;
  HostBuffer<T> send[Rank][2], recv[Rank][2];  // pinned
  Array<T, 1> packed[Rank][2];                  // slabs whose rows are too narrow for the copy engines
  std::vector<Transfer> transfers;
};
#else
template <class T, int Rank>
struct Halo<T, Rank>::Staging {};
#endif

namespace {
/// buf, grown to hold n elements.
template <class T>
T* host_room(const Context& ctx, HostBuffer<T>& buf, index_t n) {
  if (buf.size() < std::size_t(n)) buf = HostBuffer<T>(ctx, std::size_t(n));
  return buf.data();
}
}  // namespace

template <class T, int Rank>
void Halo<T, Rank>::post_staged(Field<T, Rank>& f, int d_first, int d_end, bool corners) {
#if SIMKIT_HAS_CUDA
  const Context& ctx = f.context();
  if (!staging_) staging_ = std::make_shared<Staging>(ctx);
  Staging& s = *staging_;
  void* stream = s.copies.stream();
  auto v = f.view();
  s.transfers.clear();
  std::vector<std::pair<int, int>> narrow;
  s.copies.follow(ctx);  // the slabs as the work queued so far leaves them
  for (auto [d, side] : faces(d_first, d_end, false)) {
    const Box<Rank> out = slab(f.interior(), ghost_, d, side, false, corners);
    T* host = host_room(ctx, s.send[d][side], out.size());
    if (!detail::copy_to_host_async<T, Rank>(v.sub(out), host, stream)) narrow.push_back({d, side});
    s.transfers.push_back(face_transfer(sub_.neighbour[d][side], d, side, host, host_room(ctx, s.recv[d][side], out.size()),
                                        std::size_t(out.size()) * sizeof(T)));
  }
  if (narrow.empty()) return;
  for (auto [d, side] : narrow) {  // pack them on the field's stream, then download
    const Box<Rank> out = slab(f.interior(), ghost_, d, side, false, corners);
    detail::copy<T, Rank>(ctx, v.sub(out), dense(ctx, s.packed[d][side], out));
  }
  s.copies.follow(ctx);
  for (auto [d, side] : narrow) {
    const Box<Rank> out = slab(f.interior(), ghost_, d, side, false, corners);
    detail::copy_to_host_async<T, Rank>(dense(ctx, s.packed[d][side], out), s.send[d][side].data(), stream);
  }
#else
  (void)f, (void)d_first, (void)d_end, (void)corners;
#endif
}

template <class T, int Rank>
void Halo<T, Rank>::unpack_staged(Field<T, Rank>& f, int d_first, int d_end, bool corners) {
#if SIMKIT_HAS_CUDA
  const Context& ctx = f.context();
  Staging& s = *staging_;
  void* stream = s.copies.stream();
  s.copies.wait_host();  // the downloads
  comm_.start(s.transfers).wait();
  auto v = f.view();
  std::vector<std::pair<int, int>> narrow;
  for (auto [d, side] : faces(d_first, d_end, false)) {
    const Box<Rank> in = slab(f.interior(), ghost_, d, side, true, corners);
    if (detail::copy_from_host_async<T, Rank>(s.recv[d][side].data(), v.sub(in), stream)) continue;
    detail::copy_from_host_async<T, Rank>(s.recv[d][side].data(), dense(ctx, s.packed[d][side], in), stream);
    narrow.push_back({d, side});
  }
  s.copies.join(ctx);  // the field's stream waits for the uploads
  for (auto [d, side] : narrow) {
    const Box<Rank> in = slab(f.interior(), ghost_, d, side, true, corners);
    detail::copy<T, Rank>(ctx, View<const T, Rank>(dense(ctx, s.packed[d][side], in)), v.sub(in));
  }
#else
  (void)f, (void)d_first, (void)d_end, (void)corners;
#endif
}

template <class T, int Rank>
void Halo<T, Rank>::post(Field<T, Rank>& f, int d_first, int d_end, bool corners) {
  if (dev_) return post_device(f, d_first, d_end, corners);
  if (SIMKIT_HAS_CUDA && f.context().is_cuda()) return post_staged(f, d_first, d_end, corners);
  std::vector<Transfer> transfers;
  auto v = f.view();
  for (auto [d, side] : faces(d_first, d_end, false)) {
    const Box<Rank> out = slab(f.interior(), ghost_, d, side, false, corners);
    send_[d][side].resize(std::size_t(out.size()));
    recv_[d][side].resize(std::size_t(out.size()));
    detail::copy_to_host<T, Rank>(f.context(), v.sub(out), send_[d][side].data());
    transfers.push_back(face_transfer(sub_.neighbour[d][side], d, side, send_[d][side].data(), recv_[d][side].data(),
                                      send_[d][side].size() * sizeof(T)));
  }
  pending_ = comm_.start(transfers);
}

template <class T, int Rank>
void Halo<T, Rank>::unpack(Field<T, Rank>& f, int d_first, int d_end, bool corners) {
  if (dev_) return unpack_device(f, d_first, d_end, corners);
  if (SIMKIT_HAS_CUDA && f.context().is_cuda()) return unpack_staged(f, d_first, d_end, corners);
  pending_.wait();
  auto v = f.view();
  for (auto [d, side] : faces(d_first, d_end, false))
    detail::copy_from_host<T, Rank>(f.context(), recv_[d][side].data(),
                                    v.sub(slab(f.interior(), ghost_, d, side, true, corners)));
}

template <class T, int Rank>
void Halo<T, Rank>::start(Field<T, Rank>& f, int d) { post(f, d, d + 1, true); }
template <class T, int Rank>
void Halo<T, Rank>::finish(Field<T, Rank>& f, int d) { unpack(f, d, d + 1, true); }
template <class T, int Rank>
void Halo<T, Rank>::start_faces(Field<T, Rank>& f) { post(f, 0, Rank, false); }
template <class T, int Rank>
void Halo<T, Rank>::finish_faces(Field<T, Rank>& f) { unpack(f, 0, Rank, false); }

template <class T, int Rank>
Box<Rank> Halo<T, Rank>::inner(const Box<Rank>& interior) const {
  Box<Rank> b = interior;
  for (int d = 0; d < Rank; ++d) {
    if (sub_.neighbour[d][0] >= 0) b.lo[d] += 1;
    if (sub_.neighbour[d][1] >= 0) b.hi[d] -= 1;
  }
  return b;
}

template <class T, int Rank>
std::vector<Box<Rank>> Halo<T, Rank>::rim(const Box<Rank>& interior) const {
  // dimension d's layers span inner's range in dimensions before d and the whole interior after
  const Box<Rank> in = inner(interior);
  std::vector<Box<Rank>> boxes;
  for (int d = 0; d < Rank; ++d)
    for (int side = 0; side < 2; ++side) {
      if (sub_.neighbour[d][side] < 0) continue;
      Box<Rank> b = interior;
      for (int e = 0; e < d; ++e) b.lo[e] = in.lo[e], b.hi[e] = in.hi[e];
      b.lo[d] = side ? interior.hi[d] - 1 : interior.lo[d];
      b.hi[d] = b.lo[d] + 1;
      if (b.size() > 0) boxes.push_back(b);
    }
  return boxes;
}

template <class T, int Rank>
void Halo<T, Rank>::exchange(Field<T, Rank>& f) {
  for (int d = 0; d < Rank; ++d) {
    if (sub_.neighbour[d][0] < 0 && sub_.neighbour[d][1] < 0) continue;
    start(f, d);
    finish(f, d);
  }
}

template <class T, int Rank>
bool Halo<T, Rank>::planes_grouped(std::size_t fields, int d) const {
#if SIMKIT_HAS_NCCL
  return dev_ && d == 0 && Rank > 1 && fields > 0;
#else
  (void)fields, (void)d;
  return false;
#endif
}

template <class T, int Rank>
void Halo<T, Rank>::exchange(std::initializer_list<Field<T, Rank>*> fields, int d) {
  start(fields, d);
  finish(fields, d);
}

template <class T, int Rank>
void Halo<T, Rank>::start(std::initializer_list<Field<T, Rank>*> fields, int d) {
  if (sub_.neighbour[d][0] < 0 && sub_.neighbour[d][1] < 0) return;
#if SIMKIT_HAS_NCCL
  if (planes_grouped(fields.size(), d)) {  // whole planes straight from and into each field, as post_device
    std::vector<DeviceTransfer> sends, recvs;
    for (Field<T, Rank>* f : fields) {
      for (auto [dim, side] : faces(0, 1, false)) sends.push_back(plane_message(sub_.neighbour[dim][side], *f, side, ghost_, false));
      for (auto [dim, side] : faces(0, 1, true)) recvs.push_back(plane_message(sub_.neighbour[dim][side], *f, side, ghost_, true));
    }
    dev_->channel->start((*fields.begin())->context(), sends, recvs, sizeof(T) == 8);
    return;
  }
#endif
  for (Field<T, Rank>* f : fields) start(*f, d), finish(*f, d);
}

template <class T, int Rank>
void Halo<T, Rank>::finish(std::initializer_list<Field<T, Rank>*> fields, int d) {
  if (sub_.neighbour[d][0] < 0 && sub_.neighbour[d][1] < 0) return;
#if SIMKIT_HAS_NCCL
  if (planes_grouped(fields.size(), d)) dev_->channel->finish((*fields.begin())->context());
#endif
}

template class Halo<float, 1>;
template class Halo<float, 2>;
template class Halo<float, 3>;
template class Halo<double, 1>;
template class Halo<double, 2>;
template class Halo<double, 3>;

}  // namespace sim
