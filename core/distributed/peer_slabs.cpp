// PeerSlabs (peer_slabs.hpp): CUDA IPC between the GPUs of one host; elsewhere unavailable.
#include "core/distributed/peer_slabs.hpp"

#include <algorithm>
#include <string>

#include "core/detail/dispatch.hpp"
#include "core/distributed/redistribute.hpp"
#include "core/runtime/error.hpp"
#include "core/runtime/tuning.hpp"

#if SIM_TU_HAS_CUDA
#define SIMKIT_PEER_SLABS 1
#include <cuda_runtime.h>

#include <cstring>
#include <cuda/atomic>

#include "core/cuda/check.hpp"
#else
#define SIMKIT_PEER_SLABS 0
#endif

namespace sim {

#if SIMKIT_PEER_SLABS

namespace {
constexpr int kMaxRanks = 16;  // ranks a kernel carries as its argument
constexpr int kMaxLanes = 4;   // side streams a rank's copies to one other rank may take (SIMKIT_COPY_LANES)
constexpr int kBlocks = 132;   // blocks of every peer kernel, the same on every rank: a barrier each
constexpr int kThreads = 512;

/// The boxes of every rank, as a kernel argument.
template <int Rank>
struct RankBoxes {
  Box<Rank> box[kMaxRanks];
  int count = 0;
};

/// This rank's from-box rows along dimension 0 as segments of the to-layout's rows (RowSegment), as a kernel argument.
struct RowMap {
  index_t local[4] = {}, global[4] = {};  // (PeerSlabs::kMaxSegments)
  int count = 0;
  /// The to-layout's row of the from-box's row `row` along dimension 0.
  SIM_INLINE index_t operator()(index_t row) const {
    int s = 0;
    while (s + 1 < count && row >= local[s + 1]) ++s;
    return global[s] + (row - local[s]);
  }
};

/// Every rank's buffer as this process sees it (its own, and the others' opened by CUDA IPC):
/// the values, then the barrier flags (flags[block * kMaxRanks + r]: the last barrier of that
/// block rank r has arrived at), and this rank's own count of each block's barriers.
struct PeerBuffers {
  char* base[kMaxRanks] = {};
  unsigned* flags[kMaxRanks] = {};
  unsigned* epochs = nullptr;
  int me = 0, count = 0;
};

/// Every block of every rank's kernel waits here until the same block of every other rank
/// has arrived: the block's writes are made visible to the whole system first, then each
/// other rank's flag for this block is raised to this barrier's number (release), then this
/// rank's flags are awaited (acquire). Barriers are numbered by a count a block keeps.
__device__ void cross_rank_barrier(const PeerBuffers& peers) {
  __shared__ unsigned epoch;
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) epoch = ++peers.epochs[blockIdx.x];
  __syncthreads();
  const int r = int(threadIdx.x);
  if (r < peers.count && r != peers.me) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_system> theirs(peers.flags[r][blockIdx.x * kMaxRanks + peers.me]);
    theirs.store(epoch, cuda::memory_order_release);
    cuda::atomic_ref<unsigned, cuda::thread_scope_system> mine(peers.flags[peers.me][blockIdx.x * kMaxRanks + r]);
    while (mine.load(cuda::memory_order_acquire) < epoch) {
    }
  }
  __syncthreads();
}

/// The row-major offset of global row g (its indices but the last) in box b's rows.
template <int Rank>
SIM_INLINE index_t row_in(const Box<Rank>& b, const index_t (&g)[Rank]) {
  index_t row = 0;
  for (int d = 0; d < Rank - 1; ++d) row = row * (b.hi[d] - b.lo[d]) + (g[d] - b.lo[d]);
  return row;
}

/// Vectors of W elements moved as one (W = 2: 8- or 16-byte loads and stores).
template <class T, int W>
struct alignas(sizeof(T) * W) Packet {
  T v[W];
};

/// Moves every element of this rank's from-box (a) to or from its place in its owner's
/// to-box: a warp a row (every index but the last), each run of the row that one rank's
/// to-box holds moved by the warp's lanes in vectors of W; a barrier with the other ranks'
/// same block before (and, for a scatter, after).
template <class T, int Rank, int W>
__global__ void __launch_bounds__(kThreads) peer_slabs_move(View<T, Rank> a, Box<Rank> from, RowMap rows_of_from,
                                                            RankBoxes<Rank> to, PeerBuffers peers, bool scatter) {
  cross_rank_barrier(peers);
  constexpr int L = Rank - 1;  // the last dimension
  const index_t last = a.shape.n[L], rows = last > 0 ? a.size() / last : 0;
  const index_t warps = index_t(gridDim.x) * (blockDim.x / 32);
  const int lane = int(threadIdx.x % 32);
  for (index_t row = index_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; row < rows; row += warps) {
    index_t local[Rank] = {}, g[Rank] = {};
    index_t rest = row;
    for (int d = L - 1; d >= 0; --d) local[d] = rest % a.shape.n[d], rest /= a.shape.n[d];
    for (int d = 0; d < L; ++d) g[d] = d == 0 ? rows_of_from(local[0]) : from.lo[d] + local[d];
    T* here = a.ptr;
    for (int d = 0; d < L; ++d) here += local[d] * a.stride[d];
    for (int r = 0; r < to.count; ++r) {
      const Box<Rank>& b = to.box[r];
      bool in = true;
      for (int d = 0; d < L; ++d) in = in && g[d] >= b.lo[d] && g[d] < b.hi[d];
      const index_t k0 = from.lo[L] > b.lo[L] ? from.lo[L] : b.lo[L], k1 = from.hi[L] < b.hi[L] ? from.hi[L] : b.hi[L];
      if (!in || k1 <= k0) continue;
      T* there = reinterpret_cast<T*>(peers.base[r]) + row_in(b, g) * (b.hi[L] - b.lo[L]) + (k0 - b.lo[L]);
      auto* h = reinterpret_cast<Packet<T, W>*>(here + (k0 - from.lo[L]));
      auto* t = reinterpret_cast<Packet<T, W>*>(there);
      const Packet<T, W>* src = scatter ? h : t;
      Packet<T, W>* dst = scatter ? t : h;
      const index_t packets = (k1 - k0) / W;
      // U loads in flight a lane before its stores (the other GPU's memory is far away)
      constexpr int U = 4;
      for (index_t p0 = lane; p0 < packets; p0 += 32 * U) {
        Packet<T, W> v[U];
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (p0 + 32 * u < packets) v[u] = src[p0 + 32 * u];
#pragma unroll
        for (int u = 0; u < U; ++u)
          if (p0 + 32 * u < packets) dst[p0 + 32 * u] = v[u];
      }
    }
  }
  if (scatter) cross_rank_barrier(peers);
}

/// Barrier alone (PeerSlabs::barrier): one block, its number 0 among the move kernels' blocks.
__global__ void peer_slabs_barrier(PeerBuffers peers) { cross_rank_barrier(peers); }

/// Every rank's `bytes` bytes at mine (a multiple of 8), in rank order, through Comm::allgather
/// (the bytes carried as doubles, bit for bit).
std::vector<char> allgather_bytes(const Comm& comm, const void* mine, std::size_t bytes) {
  std::vector<double> packed(bytes / sizeof(double));
  std::memcpy(packed.data(), mine, bytes);
  const std::vector<double> all = comm.allgather(packed);
  std::vector<char> out(all.size() * sizeof(double));
  std::memcpy(out.data(), all.data(), out.size());
  return out;
}

/// Why this process's GPU cannot load from and store to every other rank's ("" when it can):
/// every rank on one host, every other rank's GPU visible here (found by its PCI bus id, so
/// that ranks launched with a CUDA_VISIBLE_DEVICES of their own are told apart) and a peer of
/// this one, or the same GPU. Collective; a CUDA error here only makes the path unavailable.
std::string peer_access(const Comm& comm) {
  static std::string why = "unset";
  if (why != "unset") return why;
  std::string mine;
  if (comm.max(std::int64_t(comm.local_rank())) != comm.size() - 1) mine = "the ranks run on several hosts";
  int device = 0;
  char bus[32] = {};
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetPCIBusId(bus, int(sizeof bus) - 1, device) != cudaSuccess)
    mine = "this rank's GPU has no PCI bus id";
  const std::vector<char> all = allgather_bytes(comm, bus, sizeof bus);  // every rank's bus id
  for (int r = 0; r < comm.size() && mine.empty(); ++r) {
    char other[sizeof bus];
    std::memcpy(other, all.data() + sizeof bus * std::size_t(r), sizeof other);
    other[sizeof other - 1] = 0;
    if (std::strcmp(other, bus) == 0) continue;  // the same GPU
    int found = -1, can = 0;
    if (cudaDeviceGetByPCIBusId(&found, other) != cudaSuccess)
      mine = "rank " + std::to_string(r) + "'s GPU (" + other + ") is not visible to rank " + std::to_string(comm.rank());
    else if (cudaDeviceCanAccessPeer(&can, device, found) != cudaSuccess || !can)
      mine = std::string("GPU ") + bus + " cannot reach GPU " + other + " by peer access";
  }
  cudaGetLastError();  // (a failed look-up above is an answer, not an error)
  why = comm.max(std::int64_t(mine.empty() ? 0 : 1)) == 0 ? "" : mine.empty() ? "another rank's GPU lacks peer access" : mine;
  return why;
}

}  // namespace

/// Copies the values of box `piece` from a dense row-major buffer of box src_box at src to one
/// of box dst_box at dst (any GPUs' memory this process reaches) by the copy engines, on
/// stream: the dimensions the piece spans whole in both buffers merged into the rows, then one
/// 2D or 3D strided copy.
template <class T, int Rank>
void copy_piece(const T* src, const Box<Rank>& src_box, T* dst, const Box<Rank>& dst_box, const Box<Rank>& piece,
                cudaStream_t stream) {
  static_assert(Rank <= 3, "copy_piece: at most 3 dimensions");
  if (piece.size() <= 0) return;
  // (dims outer to inner) counts, and each buffer's stride of every dim, in elements
  index_t count[Rank], ss[Rank], ds[Rank], so = 0, dof = 0;
  index_t s_stride = 1, d_stride = 1;
  for (int d = Rank - 1; d >= 0; --d) {
    count[d] = piece.extent(d), ss[d] = s_stride, ds[d] = d_stride;
    so += (piece.lo[d] - src_box.lo[d]) * s_stride, dof += (piece.lo[d] - dst_box.lo[d]) * d_stride;
    s_stride *= src_box.extent(d), d_stride *= dst_box.extent(d);
  }
  // merge dim d into d - 1 while the rows (dims >= d) are whole in both buffers
  int inner = Rank - 1;
  index_t width = count[Rank - 1];
  while (inner > 0 && width == ss[inner - 1] && width == ds[inner - 1]) width *= count[inner - 1], --inner;
  // what is left: dims 0..inner-1 outer, rows of `width` elements
  const index_t height = inner >= 1 ? count[inner - 1] : 1, depth = inner >= 2 ? count[inner - 2] : 1;
  const char* s = reinterpret_cast<const char*>(src + so);
  char* t = reinterpret_cast<char*>(dst + dof);
  const std::size_t bytes = std::size_t(width) * sizeof(T);
  if (inner <= 1) {
    const std::size_t spitch = inner == 1 ? std::size_t(ss[0]) * sizeof(T) : bytes;
    const std::size_t dpitch = inner == 1 ? std::size_t(ds[0]) * sizeof(T) : bytes;
    SIM_CUDA_CHECK(cudaMemcpy2DAsync(t, dpitch, s, spitch, bytes, std::size_t(height), cudaMemcpyDefault, stream));
    return;
  }
  cudaMemcpy3DParms p{};
  // rows `bytes` long, `height` rows a plane (pitch: the stride of dim inner - 1), `depth` planes
  // (the plane stride, a multiple of the pitch in a dense box, given as ysize)
  p.srcPtr = make_cudaPitchedPtr(const_cast<char*>(s), std::size_t(ss[inner - 1]) * sizeof(T), bytes,
                                 std::size_t(ss[inner - 2] / ss[inner - 1]));
  p.dstPtr = make_cudaPitchedPtr(t, std::size_t(ds[inner - 1]) * sizeof(T), bytes, std::size_t(ds[inner - 2] / ds[inner - 1]));
  p.extent = make_cudaExtent(bytes, std::size_t(height), std::size_t(depth));
  p.kind = cudaMemcpyDefault;
  SIM_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream));
}

/// Rows [lo, hi) along dimension 0 of box b.
template <int Rank>
Box<Rank> rows_of(Box<Rank> b, index_t lo, index_t hi) {
  b.hi[0] = b.lo[0] + hi, b.lo[0] += lo;
  return b;
}

template <class T, int Rank>
struct PeerSlabs<T, Rank>::Impl {
  Context ctx;
  Comm comm;
  RankBoxes<Rank> to;
  std::vector<RowSegment> segments;   // the from-box's rows along dimension 0 in the to-layout
  PeerBuffers peers;
  char* own = nullptr;
  bool in_place = false;  // every buffer holds `hold` (the constructor with hold)
  Box<Rank> hold{};
  // the copy engines' moves (push, pull): side[r * lanes + l] to and from rank r (this rank's
  // own piece too), lane l of `lanes` taking the l-th part of each copy along its outermost
  // dimension, every rank's beside the others' on the engines
  int streams = 0, lanes = 1;
  cudaStream_t side[kMaxRanks * kMaxLanes] = {};
  cudaEvent_t queued = nullptr;                               // the stream's work before a push or a pull
  cudaEvent_t pushed[kMaxRanks * kMaxLanes] = {};             // each side stream's pushes so far
  std::vector<cudaEvent_t> pulled[kMaxRanks * kMaxLanes];     // piece k of the last pull, on each side stream
  std::vector<cudaEvent_t> pushed_part[kMaxRanks * kMaxLanes];  // part k of the last push_parts, on each side stream
  /// The side streams and their events, made at planning (on the stream's GPU).
  void copies_ready() {
    if (streams > 0) return;
    lanes = tuning::current().copy_lanes > 0 ? std::min(tuning::current().copy_lanes, kMaxLanes) : 1;
    streams = peers.count * lanes;
    SIM_CUDA_CHECK(cudaEventCreateWithFlags(&queued, cudaEventDisableTiming));
    for (int i = 0; i < streams; ++i) {
      SIM_CUDA_CHECK(cudaStreamCreateWithFlags(&side[i], cudaStreamNonBlocking));
      SIM_CUDA_CHECK(cudaEventCreateWithFlags(&pushed[i], cudaEventDisableTiming));
      pulled[i].resize(kMaxPieces), pushed_part[i].resize(kMaxPieces);
      for (cudaEvent_t& e : pulled[i]) SIM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      for (cudaEvent_t& e : pushed_part[i]) SIM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }
  }
  /// The side streams wait for the stream's work so far.
  void side_after_stream() {
    SIM_CUDA_CHECK(cudaEventRecord(queued, static_cast<cudaStream_t>(ctx.stream())));
    for (int i = 0; i < streams; ++i) SIM_CUDA_CHECK(cudaStreamWaitEvent(side[i], queued, 0));
  }
  /// Box b (global indices, inside hold) in this rank's buffer held in place.
  View<T, Rank> held(const Box<Rank>& b) const {
    return dense_view(reinterpret_cast<T*>(own), hold.shape()).sub(relative_to(b, hold));
  }
  /// copy_piece() of `piece` to or from rank r, in parts along its outermost dimension of at
  /// least `lanes` elements, one on each of r's lanes.
  void copy(const T* src, const Box<Rank>& src_box, T* dst, const Box<Rank>& dst_box, const Box<Rank>& piece, int r) const {
    int d = 0;
    while (d + 1 < Rank && piece.extent(d) < lanes) ++d;
    const index_t n = piece.extent(d);
    for (int l = 0; l < lanes; ++l) {
      Box<Rank> part = piece;
      part.lo[d] = piece.lo[d] + n * l / lanes, part.hi[d] = piece.lo[d] + n * (l + 1) / lanes;
      copy_piece<T, Rank>(src, src_box, dst, dst_box, part, side[r * lanes + l]);
    }
  }
  ~Impl() {
    // kernels queued on the buffers may still run; the others must have closed this rank's
    // buffer before it is freed (collective, as planning was); errors cannot be reported here
    for (int i = 0; i < streams; ++i) cudaStreamSynchronize(side[i]);
    if (own) cudaStreamSynchronize(static_cast<cudaStream_t>(ctx.stream()));
    for (int r = 0; r < peers.count; ++r)
      if (r != peers.me && peers.base[r]) cudaIpcCloseMemHandle(peers.base[r]);
    try {
      comm.barrier();
    } catch (...) {
    }
    if (own) cudaFree(own);
    if (peers.epochs) cudaFree(peers.epochs);
    if (streams > 0) {
      cudaEventDestroy(queued);
      for (int i = 0; i < streams; ++i) {
        cudaEventDestroy(pushed[i]);
        for (cudaEvent_t e : pulled[i]) cudaEventDestroy(e);
        for (cudaEvent_t e : pushed_part[i]) cudaEventDestroy(e);
        cudaStreamDestroy(side[i]);
      }
    }
  }
  /// Segment s of the from-box (from): its rows in the to-layout, and where they start in a dense buffer at a.
  Box<Rank> segment_box(const Box<Rank>& from, const RowSegment& s) const {
    Box<Rank> b = from;
    b.lo[0] = s.global, b.hi[0] = s.global + s.count;
    return b;
  }
  /// f(segment's box, its rows among from-rows [lo, hi), its first element's offset in a dense
  /// from buffer) for each segment those rows meet: the copies' pieces.
  template <class F>
  void segment_pieces(const Box<Rank>& from, index_t lo, index_t hi, F f) const {
    index_t row = 1;  // elements a row along dimension 0
    for (int d = 1; d < Rank; ++d) row *= from.extent(d);
    for (const RowSegment& s : segments) {
      const index_t l0 = std::max(lo, s.local), l1 = std::min(hi, s.local + s.count);
      if (l1 <= l0) continue;
      const Box<Rank> seg = segment_box(from, s);
      f(seg, rows_of(seg, l0 - s.local, l1 - s.local), s.local * row);
    }
  }
  /// push_parts' and pull_parts' arguments (`what`: which): a part number k below kMaxPieces,
  /// one box of parts a rank, and a (ptr, shape) the dense from-box (held in place: its view there).
  void check_parts(const char* what, const T* ptr, const Extents<Rank>& shape, bool contiguous, const Box<Rank>& from,
                   std::size_t parts, int k) const {
    if (k < 0 || k >= kMaxPieces || parts != std::size_t(to.count))
      throw Error(std::string("peer transposes: ") + what + " takes a part number below " + std::to_string(kMaxPieces) +
                  " and one box a rank");
    if (from.size() > 0 && (in_place ? ptr != held(from).ptr || shape != from.shape() : shape != from.shape() || !contiguous))
      throw ShapeError(std::string("peer transposes: ") + what + " takes the dense from-box " + to_string(from.shape()) +
                       " (held in place: from_view())");
  }
  /// push_parts (push) and pull_parts: after the stream's work so far, the values of the
  /// from-box `from` (at a, dense; held in place: in this rank's buffer) that parts[r] holds
  /// copied to (push) or from rank r's buffer by the copy engines. A push only reads a.
  void copy_parts(T* a, const Box<Rank>& from, const std::vector<Box<Rank>>& parts, bool push) {
    side_after_stream();
    for (int r = 0; r < to.count && from.size() > 0; ++r) {
      const Box<Rank> part = intersect(parts[std::size_t(r)], to.box[r]);
      T* theirs = reinterpret_cast<T*>(peers.base[r]);
      if (in_place && r != peers.me) {
        T* mine = reinterpret_cast<T*>(own);
        if (push) copy(mine, hold, theirs, hold, intersect(from, part), r);
        else copy(theirs, hold, mine, hold, intersect(from, part), r);
      }
      if (!in_place)
        segment_pieces(from, 0, from.extent(0), [&](const Box<Rank>& seg, const Box<Rank>& rows, index_t offset) {
          if (push) copy(a + offset, seg, theirs, to.box[r], intersect(rows, part), r);
          else copy(theirs, to.box[r], a + offset, seg, intersect(rows, part), r);
        });
    }
  }
  /// The segments as the move kernel's argument.
  RowMap row_map() const {
    RowMap m;
    m.count = int(segments.size());
    for (std::size_t k = 0; k < segments.size(); ++k) m.local[k] = segments[k].local, m.global[k] = segments[k].global;
    return m;
  }
  void move(View<T, Rank> a, const Box<Rank>& from, bool scatter) const {
    auto stream = static_cast<cudaStream_t>(ctx.stream());
    // pairs where every run starts and ends on an even element, here and there
    bool pairs = reinterpret_cast<std::uintptr_t>(a.ptr) % (2 * sizeof(T)) == 0 && from.lo[Rank - 1] % 2 == 0 &&
                 from.hi[Rank - 1] % 2 == 0;
    for (int d = 0; d < Rank - 1; ++d) pairs = pairs && a.stride[d] % 2 == 0;
    for (int r = 0; r < to.count; ++r) pairs = pairs && to.box[r].lo[Rank - 1] % 2 == 0 && to.box[r].hi[Rank - 1] % 2 == 0;
    const RowMap rows = row_map();
    if (pairs) peer_slabs_move<T, Rank, 2><<<kBlocks, kThreads, 0, stream>>>(a, from, rows, to, peers, scatter);
    else peer_slabs_move<T, Rank, 1><<<kBlocks, kThreads, 0, stream>>>(a, from, rows, to, peers, scatter);
    SIM_CUDA_CHECK_LAUNCH(scatter ? "distributed::peer_slabs_scatter" : "distributed::peer_slabs_gather", stream);
  }
};

template <class T, int Rank>
std::string PeerSlabs<T, Rank>::unavailable(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from,
                                            const std::vector<Box<Rank>>& to) {
  if (!comm.parallel()) return "one rank";
  if (!ctx.is_cuda()) return "not on GPUs";
  if (tuning::current().transpose_path == "nccl") return "SIMKIT_TRANSPOSE_PATH=nccl";
  if (from.size() > std::size_t(kMaxRanks) || to.size() > std::size_t(kMaxRanks))
    return "more than " + std::to_string(kMaxRanks) + " ranks";
  return peer_access(comm);
}

template <class T, int Rank>
PeerSlabs<T, Rank>::PeerSlabs(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from,
                              const std::vector<Box<Rank>>& to)
    : PeerSlabs(comm, ctx, from, to,
                {RowSegment{0, from.at(std::size_t(comm.rank())).lo[0], from.at(std::size_t(comm.rank())).extent(0)}}) {}

template <class T, int Rank>
PeerSlabs<T, Rank>::PeerSlabs(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from,
                              const std::vector<Box<Rank>>& to, const std::vector<RowSegment>& rows) {
  plan(comm, ctx, from, to, rows, nullptr);
}

template <class T, int Rank>
PeerSlabs<T, Rank>::PeerSlabs(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from,
                              const std::vector<Box<Rank>>& to, const Box<Rank>& hold) {
  for (std::size_t r = 0; r < from.size() && r < to.size(); ++r)
    if (intersect(from[r], hold).size() != from[r].size() || intersect(to[r], hold).size() != to[r].size())
      throw Error("peer transposes: the held box " + to_string(hold) + " must contain every rank's from-box and to-box");
  const std::size_t me = std::size_t(comm.rank());
  plan(comm, ctx, from, to, {RowSegment{0, from.at(me).lo[0], from.at(me).extent(0)}}, &hold);
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::plan(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from,
                              const std::vector<Box<Rank>>& to, const std::vector<RowSegment>& rows, const Box<Rank>* hold) {
  impl_ = std::make_shared<Impl>();
  const std::string why = unavailable(comm, ctx, from, to);
  if (!why.empty()) throw Error("peer transposes: " + why);
  Impl& im = *impl_;
  im.ctx = ctx, im.comm = comm;
  const std::size_t me = std::size_t(comm.rank());
  from_ = from[me], to_ = to[me];
  // the segments: in the buffer's order, back to back, covering the from-box's rows
  if (rows.empty() || rows.size() > std::size_t(kMaxSegments))
    throw Error("peer transposes: " + std::to_string(rows.size()) + " row segments (1 to " + std::to_string(kMaxSegments) + " expected)");
  index_t next = 0;
  for (const RowSegment& s : rows) {
    if (s.local != next || s.count < 0)
      throw Error("peer transposes: row segments must follow one another from row 0 of the from-box");
    next += s.count;
  }
  if (next != from_.extent(0))
    throw Error("peer transposes: row segments of " + std::to_string(next) + " rows for a from-box of " +
                std::to_string(from_.extent(0)));
  im.segments = rows;
  im.to.count = int(to.size());
  std::size_t largest = 1;
  for (std::size_t r = 0; r < to.size(); ++r) {
    im.to.box[r] = to[r];
    largest = std::size_t(to[r].size()) > largest ? std::size_t(to[r].size()) : largest;
    if (r == me) continue;
    for (const RowSegment& s : rows) sent_ += std::size_t(intersect(im.segment_box(from_, s), to[r]).size()) * sizeof(T);
  }
  if (hold) im.in_place = true, im.hold = *hold, largest = std::size_t(std::max<index_t>(1, hold->size()));
  // this rank's to-box (or the held box), then the flags; the same size on every rank, rounded
  // up to whole 2 MB pages: on 2 H200s the copy engines moved data between buffers that ended
  // 8448 bytes (the flags) past a 2 MB multiple at 0.73 of the rate they reach between buffers
  // ending 64 KB, 1 MB or 2 MB past one (bench/results/2026-11-29-h200x2-multi-gpu)
  const std::size_t values = (largest * sizeof(T) + 255) / 256 * 256;
  const std::size_t flags = std::size_t(kBlocks) * kMaxRanks * sizeof(unsigned);
  const std::size_t page = std::size_t(2) << 20;
  SIM_CUDA_CHECK(cudaMalloc(&im.own, (values + flags + page - 1) / page * page));
  SIM_CUDA_CHECK(cudaMemset(im.own + values, 0, flags));
  SIM_CUDA_CHECK(cudaMalloc(&im.peers.epochs, kBlocks * sizeof(unsigned)));
  SIM_CUDA_CHECK(cudaMemset(im.peers.epochs, 0, kBlocks * sizeof(unsigned)));
  cudaIpcMemHandle_t handle;
  SIM_CUDA_CHECK(cudaIpcGetMemHandle(&handle, im.own));
  static_assert(sizeof handle % sizeof(double) == 0, "a CUDA IPC handle travels as doubles");
  const std::vector<char> handles = allgather_bytes(comm, &handle, sizeof handle);
  im.peers.me = comm.rank(), im.peers.count = comm.size();
  for (int r = 0; r < comm.size(); ++r) {
    if (r == comm.rank()) {
      im.peers.base[r] = im.own;
    } else {
      cudaIpcMemHandle_t theirs;
      std::memcpy(&theirs, handles.data() + sizeof theirs * std::size_t(r), sizeof theirs);
      void* p = nullptr;
      SIM_CUDA_CHECK(cudaIpcOpenMemHandle(&p, theirs, cudaIpcMemLazyEnablePeerAccess));
      im.peers.base[r] = static_cast<char*>(p);
    }
    im.peers.flags[r] = reinterpret_cast<unsigned*>(im.peers.base[r] + values);
  }
  im.copies_ready();  // (here, not at a first push that a CUDA graph's capture may record)
  comm.barrier();     // every buffer open (and its flags zero) before any kernel
}

template <class T, int Rank>
View<T, Rank> PeerSlabs<T, Rank>::local() const {
  if (!impl_) throw Error("peer transposes: not planned");
  if (impl_->in_place) return impl_->held(to_);
  return dense_view(reinterpret_cast<T*>(impl_->own), to_.shape());
}

template <class T, int Rank>
View<T, Rank> PeerSlabs<T, Rank>::from_view() const {
  if (!impl_ || !impl_->in_place) throw Error("peer transposes: from_view() is for the buffers held in place");
  return impl_->held(from_);
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::scatter(View<const T, Rank> a) const {
  if (!impl_) throw Error("peer transposes: not planned");
  if (a.shape != from_.shape() && a.size() + from_.size() > 0)
    throw ShapeError("peer transposes: an array of shape " + to_string(a.shape) + " for a box of " + to_string(from_.shape()));
  if (a.size() > 0 && a.stride[Rank - 1] != 1) throw ShapeError("peer transposes: the last dimension must be contiguous");
  if (impl_->in_place) throw Error("peer transposes: scatter() needs buffers of the to-boxes, not held in place");
  View<T, Rank> w{const_cast<T*>(a.ptr), a.shape};
  for (int d = 0; d < Rank; ++d) w.stride[d] = a.stride[d];
  impl_->move(w, from_, true);
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::barrier() const {
  if (!impl_) throw Error("peer transposes: not planned");
  auto stream = static_cast<cudaStream_t>(impl_->ctx.stream());
  peer_slabs_barrier<<<1, 32, 0, stream>>>(impl_->peers);
  SIM_CUDA_CHECK_LAUNCH("distributed::peer_slabs_barrier", stream);
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::push(View<const T, Rank> a, index_t lo, index_t hi) const {
  if (!impl_) throw Error("peer transposes: not planned");
  if (from_.size() == 0 || hi <= lo) return;
  Impl& im = *impl_;
  if (im.in_place) {
    if (a.ptr != from_view().ptr || a.shape != from_.shape())
      throw ShapeError("peer transposes: push takes from_view() where the buffers are held in place");
    im.side_after_stream();
    const Box<Rank> rows = rows_of(from_, lo, hi);
    for (int r = 0; r < im.to.count; ++r)
      if (r != im.peers.me)
        im.copy(reinterpret_cast<const T*>(im.own), im.hold, reinterpret_cast<T*>(im.peers.base[r]), im.hold,
                intersect(rows, im.to.box[r]), r);
    for (int i = 0; i < im.streams; ++i) SIM_CUDA_CHECK(cudaEventRecord(im.pushed[i], im.side[i]));
    return;
  }
  if (a.shape != from_.shape() || !a.contiguous())
    throw ShapeError("peer transposes: push takes the dense from-box " + to_string(from_.shape()) + ", got " + to_string(a.shape));
  im.side_after_stream();
  im.segment_pieces(from_, lo, hi, [&](const Box<Rank>& seg, const Box<Rank>& rows, index_t offset) {
    for (int r = 0; r < im.to.count; ++r)
      im.copy(a.ptr + offset, seg, reinterpret_cast<T*>(im.peers.base[r]), im.to.box[r], intersect(rows, im.to.box[r]), r);
  });
  for (int i = 0; i < im.streams; ++i) SIM_CUDA_CHECK(cudaEventRecord(im.pushed[i], im.side[i]));
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::join() const {
  if (!impl_) throw Error("peer transposes: not planned");
  for (int i = 0; i < impl_->streams; ++i)
    SIM_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(impl_->ctx.stream()), impl_->pushed[i], 0));
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::pull(View<T, Rank> a, const std::vector<index_t>& bounds) const {
  if (!impl_) throw Error("peer transposes: not planned");
  if (bounds.size() > std::size_t(kMaxPieces) + 1)
    throw Error("peer transposes: a pull in more than " + std::to_string(kMaxPieces) + " pieces");
  Impl& im = *impl_;
  if (im.in_place && from_.size() > 0 && (a.ptr != from_view().ptr || a.shape != from_.shape()))
    throw ShapeError("peer transposes: pull takes from_view() where the buffers are held in place");
  if (!im.in_place && from_.size() > 0 && (a.shape != from_.shape() || !a.contiguous()))
    throw ShapeError("peer transposes: pull takes the dense from-box " + to_string(from_.shape()) + ", got " + to_string(a.shape));
  im.side_after_stream();
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    if (im.in_place && from_.size() > 0)
      for (int r = 0; r < im.to.count; ++r)
        if (r != im.peers.me)
          im.copy(reinterpret_cast<const T*>(im.peers.base[r]), im.hold, reinterpret_cast<T*>(im.own), im.hold,
                  intersect(rows_of(from_, bounds[k], bounds[k + 1]), im.to.box[r]), r);
    if (!im.in_place && from_.size() > 0)
      im.segment_pieces(from_, bounds[k], bounds[k + 1], [&](const Box<Rank>& seg, const Box<Rank>& rows, index_t offset) {
        for (int r = 0; r < im.to.count; ++r)
          im.copy(reinterpret_cast<const T*>(im.peers.base[r]), im.to.box[r], a.ptr + offset, seg, intersect(rows, im.to.box[r]), r);
      });
    for (int i = 0; i < im.streams; ++i) SIM_CUDA_CHECK(cudaEventRecord(im.pulled[i][k], im.side[i]));
  }
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::wait_pulled(int k) const {
  if (!impl_ || k < 0 || k >= kMaxPieces) throw Error("peer transposes: wait_pulled for no piece");
  for (int i = 0; i < impl_->streams; ++i)
    SIM_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(impl_->ctx.stream()), impl_->pulled[i][std::size_t(k)], 0));
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::push_parts(View<const T, Rank> a, const std::vector<Box<Rank>>& parts, int k) const {
  if (!impl_) throw Error("peer transposes: not planned");
  Impl& im = *impl_;
  im.check_parts("push_parts", a.ptr, a.shape, a.contiguous(), from_, parts.size(), k);
  im.copy_parts(const_cast<T*>(a.ptr), from_, parts, true);
  for (int i = 0; i < im.streams; ++i) SIM_CUDA_CHECK(cudaEventRecord(im.pushed_part[i][std::size_t(k)], im.side[i]));
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::wait_pushed(int k) const {
  if (!impl_ || k < 0 || k >= kMaxPieces) throw Error("peer transposes: wait_pushed for no part");
  for (int i = 0; i < impl_->streams; ++i)
    SIM_CUDA_CHECK(
        cudaStreamWaitEvent(static_cast<cudaStream_t>(impl_->ctx.stream()), impl_->pushed_part[i][std::size_t(k)], 0));
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::pull_parts(View<T, Rank> a, const std::vector<Box<Rank>>& parts, int k) const {
  if (!impl_) throw Error("peer transposes: not planned");
  Impl& im = *impl_;
  im.check_parts("pull_parts", a.ptr, a.shape, a.contiguous(), from_, parts.size(), k);
  im.copy_parts(a.ptr, from_, parts, false);
  for (int i = 0; i < im.streams; ++i) SIM_CUDA_CHECK(cudaEventRecord(im.pulled[i][std::size_t(k)], im.side[i]));
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::gather(View<T, Rank> a) const {
  if (!impl_) throw Error("peer transposes: not planned");
  if (a.shape != from_.shape() && a.size() + from_.size() > 0)
    throw ShapeError("peer transposes: an array of shape " + to_string(a.shape) + " for a box of " + to_string(from_.shape()));
  if (a.size() > 0 && a.stride[Rank - 1] != 1) throw ShapeError("peer transposes: the last dimension must be contiguous");
  if (impl_->in_place) throw Error("peer transposes: gather() needs buffers of the to-boxes, not held in place");
  impl_->move(a, from_, false);
}

#else  // compiled without nvcc: never available

template <class T, int Rank>
struct PeerSlabs<T, Rank>::Impl {};

template <class T, int Rank>
std::string PeerSlabs<T, Rank>::unavailable(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>&,
                                            const std::vector<Box<Rank>>&) {
  if (!comm.parallel()) return "one rank";
  if (!ctx.is_cuda()) return "not on GPUs";
  return "built without CUDA";
}

template <class T, int Rank>
PeerSlabs<T, Rank>::PeerSlabs(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from,
                              const std::vector<Box<Rank>>& to) {
  throw Error("peer transposes: " + unavailable(comm, ctx, from, to));
}

template <class T, int Rank>
PeerSlabs<T, Rank>::PeerSlabs(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from,
                              const std::vector<Box<Rank>>& to, const std::vector<RowSegment>&) {
  throw Error("peer transposes: " + unavailable(comm, ctx, from, to));
}

template <class T, int Rank>
PeerSlabs<T, Rank>::PeerSlabs(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from,
                              const std::vector<Box<Rank>>& to, const Box<Rank>&) {
  throw Error("peer transposes: " + unavailable(comm, ctx, from, to));
}

template <class T, int Rank>
View<T, Rank> PeerSlabs<T, Rank>::local() const {
  throw Error("peer transposes: not available in this build");
}

template <class T, int Rank>
View<T, Rank> PeerSlabs<T, Rank>::from_view() const {
  throw Error("peer transposes: not available in this build");
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::scatter(View<const T, Rank>) const {
  throw Error("peer transposes: not available in this build");
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::gather(View<T, Rank>) const {
  throw Error("peer transposes: not available in this build");
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::barrier() const {
  throw Error("peer transposes: not available in this build");
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::push(View<const T, Rank>, index_t, index_t) const {
  throw Error("peer transposes: not available in this build");
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::join() const {
  throw Error("peer transposes: not available in this build");
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::pull(View<T, Rank>, const std::vector<index_t>&) const {
  throw Error("peer transposes: not available in this build");
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::wait_pulled(int) const {
  throw Error("peer transposes: not available in this build");
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::push_parts(View<const T, Rank>, const std::vector<Box<Rank>>&, int) const {
  throw Error("peer transposes: not available in this build");
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::wait_pushed(int) const {
  throw Error("peer transposes: not available in this build");
}

template <class T, int Rank>
void PeerSlabs<T, Rank>::pull_parts(View<T, Rank>, const std::vector<Box<Rank>>&, int) const {
  throw Error("peer transposes: not available in this build");
}

#endif

template class PeerSlabs<float, 2>;
template class PeerSlabs<float, 3>;
template class PeerSlabs<double, 2>;
template class PeerSlabs<double, 3>;

}  // namespace sim
