#pragma once
// Ghost exchange between ranks for a Field of one rank's box. After fill_ghosts (which fills
// every face from the physical conditions, also those shared with other ranks), exchange()
// overwrites the ghosts of shared faces (and of periodic faces whose partner is another
// rank) with the neighbours' cells. Dimensions go in order 0, 1, 2 and each slab spans the
// ghost layers of the other dimensions, so edges and corners end up as on one rank.
// Slabs travel through host buffers and MPI. For GPU fields the device <-> host copies run on
// a copy stream of their own (core/distributed/copy_stream.hpp) into pinned buffers: start() queues the
// downloads and returns, so kernels queued between start and finish overlap them, the MPI
// transfer and the uploads; finish() makes the field's stream wait for the uploads.
// In builds with NCCL (SIMKIT_HAS_NCCL), a Halo constructed with a GPU context may instead
// exchange its slabs GPU to GPU with NCCL on a stream of their own, again overlapping the
// kernels queued between start and finish: dimension 0's slabs are whole planes of the
// field's storage, sent from and received into the field itself; the others are packed. SIMKIT_HALO=nccl
// or =host forces one path; the default (auto) takes NCCL for faces of 256 KB and more when
// a rank has two or more, where host staging no longer hides behind the interior update,
// and always for HaloUse::blocking, where nothing hides either path (see halo.cpp); never
// when two ranks share a GPU, which NCCL refuses (NcclChannel::usable).
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/distributed/decomposition.hpp"
#include "core/mesh/grid.hpp"

namespace sim {

/// How a Halo's exchanges are used, for the default (SIMKIT_HALO=auto) choice of path on GPUs.
enum class HaloUse {
  overlapped,  ///< start, interior kernels, finish: host staging hides small faces behind the kernels
  blocking,    ///< nothing to hide behind (solvers): the path with the lower latency, NCCL
};

/// The exchanges of one field layout (one grid and ghost width) on one rank.
template <class T, int Rank>
class Halo {
 public:
  /// No neighbours: exchange() does nothing.
  Halo() = default;
  /// Exchanges for rank sub.rank's box with the neighbours sub names, on comm. Given the
  /// fields' context, a GPU one sets up its transfer channel now (NCCL's communicator is
  /// collective over comm: every rank constructs its Halo at the same point) instead of in
  /// the first exchange, where it would be counted in the step loop's time.
  Halo(const Comm& comm, const Subdomain& sub, int ghost, const Context& ctx = {}, HaloUse use = HaloUse::overlapped);
  /// How the slabs travel: "NCCL" or "host buffers (MPI)".
  const char* transport() const;
  /// True when this rank has at least one neighbouring rank.
  bool active() const;
  /// Overwrites the ghosts of f on faces shared with other ranks (blocking: start + finish).
  void exchange(Field<T, Rank>& f);
  /// Overwrites dimension d's shared ghosts of several fields of this layout (blocking): through
  /// NCCL dimension 0's planes of every field go as one group of messages (one latency, not one
  /// a field); otherwise start + finish of each field in turn.
  void exchange(std::initializer_list<Field<T, Rank>*> fields, int d);
  /// exchange(fields, d) in two halves: through NCCL dimension 0's planes of every field leave
  /// here as one group of messages and finish(fields, d) completes them, so that kernels queued
  /// between (which must not touch those planes or the ghosts) overlap them; on other paths
  /// the whole exchange runs here and finish(fields, d) does nothing.
  void start(std::initializer_list<Field<T, Rank>*> fields, int d);
  /// Completes start(fields, d) (the same fields, in the same order).
  void finish(std::initializer_list<Field<T, Rank>*> fields, int d);
  /// Sends dimension d's boundary slabs of f (spanning the other dimensions' ghosts) and posts
  /// the receives; finish(f, d) completes them. exchange() is start + finish for d = 0, 1, 2.
  void start(Field<T, Rank>& f, int d);
  /// Waits for dimension d's slabs and writes them into f's ghosts.
  void finish(Field<T, Rank>& f, int d);
  /// Sends the face slabs of every dimension at once (no edges or corners: enough for
  /// stencils without diagonal neighbours) and posts the receives: update the cells away from
  /// shared faces, then finish_faces(f), then the cells next to them (overlapped() does all).
  void start_faces(Field<T, Rank>& f);
  /// Waits for start_faces' slabs and writes them into f's face ghosts.
  void finish_faces(Field<T, Rank>& f);
  /// Runs pass(box) over the cells of interior (disjoint non-empty boxes covering it) while
  /// f's shared faces are exchanged: the cells away from shared faces first, with every face
  /// in flight (start_faces), then, the faces in (finish_faces), the layer next to them. For
  /// passes whose stencil reads f with radius 1 and no edge or corner. Without neighbouring
  /// ranks, pass(interior) alone.
  template <class Pass>
  void overlapped(Field<T, Rank>& f, const Box<Rank>& interior, const Pass& pass) {
    if (!active()) {
      if (interior.size() > 0) pass(interior);
      return;
    }
    start_faces(f);
    const Box<Rank> in = inner(interior);
    if (in.size() > 0) pass(in);
    finish_faces(f);
    for (const Box<Rank>& b : rim(interior))
      if (b.size() > 0) pass(b);
  }
  /// The cells of box whose stencil (radius 1) reads no ghost of a shared face.
  Box<Rank> inner(const Box<Rank>& interior) const;
  /// The cells of interior not in inner(interior), as disjoint boxes (one per shared face).
  std::vector<Box<Rank>> rim(const Box<Rank>& interior) const;

 private:
  void post(Field<T, Rank>& f, int d_first, int d_end, bool corners);
  void unpack(Field<T, Rank>& f, int d_first, int d_end, bool corners);
  /// Whether start(fields, d) sends every field's planes as one group through NCCL.
  bool planes_grouped(std::size_t fields, int d) const;
  bool use_nccl(const Context& ctx, HaloUse use) const;
  /// The faces (d, side) of dimensions [d_first, d_end) with a neighbouring rank, each
  /// dimension low side first; high side first when receive_order (NCCL matches two ranks'
  /// sends and receives in order, and a neighbour's low slab lands in our high ghosts).
  std::vector<std::pair<int, int>> faces(int d_first, int d_end, bool receive_order) const;
  void connect(const Context& ctx);
  void post_device(Field<T, Rank>& f, int d_first, int d_end, bool corners);
  void unpack_device(Field<T, Rank>& f, int d_first, int d_end, bool corners);
  void post_staged(Field<T, Rank>& f, int d_first, int d_end, bool corners);
  void unpack_staged(Field<T, Rank>& f, int d_first, int d_end, bool corners);

  struct Device;                  // NCCL channel and device slab buffers (halo.cpp)
  std::shared_ptr<Device> dev_;  // NCCL channel: made by the constructor when the slabs go through NCCL
  struct Staging;                 // copy stream, pinned and packing buffers (halo.cpp)
  std::shared_ptr<Staging> staging_;  // made on the first host-path exchange of a GPU field

  Comm comm_;
  Subdomain sub_;
  int ghost_ = 0;
  std::vector<T> send_[Rank][2], recv_[Rank][2];
  Pending pending_;
};

}  // namespace sim
