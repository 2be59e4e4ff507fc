#pragma once
// The move of a distributed array from one split over ranks to another (a transpose between
// slab layouts, or between a run's boxes and slabs): every rank holds one box of the global
// grid before ("from") and one after ("to"); each rank sends every other rank the
// intersection of its from-box with that rank's to-box. The pieces are packed into one
// contiguous buffer in rank order, exchanged by one all-to-all (MPI_Alltoallv on the CPU,
// grouped NCCL sends and receives between GPUs, host staging and MPI for GPUs without NCCL or shared by two ranks),
// and unpacked; a rank's own piece is copied directly. Where the pieces a rank sends (receives)
// follow one another, in rank order, in its contiguous from-box (to-box), as between slabs
// split along the first axis and slabs split along another, the exchange sends from that
// array (receives into it) in place, with no pack (unpack). Boxes may be uneven or empty.
#include <memory>
#include <vector>

#include "core/array/array.hpp"
#include "core/distributed/comm.hpp"

namespace sim {

/// The intersection of two boxes (empty when they do not meet).
template <int Rank>
Box<Rank> intersect(const Box<Rank>& a, const Box<Rank>& b) {
  Box<Rank> c;
  for (int d = 0; d < Rank; ++d) c.lo[d] = a.lo[d] > b.lo[d] ? a.lo[d] : b.lo[d], c.hi[d] = a.hi[d] < b.hi[d] ? a.hi[d] : b.hi[d];
  return c;
}

/// box moved so that origin's first cell is index 0 (an empty box stays empty, at 0).
template <int Rank>
Box<Rank> relative_to(const Box<Rank>& box, const Box<Rank>& origin) {
  if (box.size() == 0) return Box<Rank>{};
  Box<Rank> b = box;
  for (int d = 0; d < Rank; ++d) b.lo[d] -= origin.lo[d], b.hi[d] -= origin.lo[d];
  return b;
}

/// A planned redistribution of T values between two splits of one global grid over comm's ranks.
template <class T, int Rank>
class Redistribution {
 public:
  Redistribution() = default;
  /// The move from the split `from` (from[r]: rank r's box, global indices) to the split `to`
  /// on ctx (collective for GPUs with NCCL: every rank plans at the same point). Both lists
  /// have one box per rank of comm; every rank gets the same lists.
  Redistribution(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from, const std::vector<Box<Rank>>& to);
  /// out (this rank's to-box, its shape) = the values of in (this rank's from-box, its shape)
  /// gathered from every rank. Collective; asynchronous on GPUs with NCCL (stream ordered).
  void operator()(View<const T, Rank> in, View<T, Rank> out) const {
    start(in, out);
    finish(out);
  }
  /// The first half of operator(): packs in, copies this rank's own piece into out and starts
  /// the exchange. Between GPUs with NCCL the exchange runs beside the work queued after it,
  /// until finish(out), and may read in and write out until then; elsewhere it is complete on return.
  void start(View<const T, Rank> in, View<T, Rank> out) const;
  /// The second half: waits for the exchange (stream ordered) and unpacks into out.
  void finish(View<T, Rank> out) const;
  /// True when a call on a contiguous from-box packs the pieces it sends into a buffer (false:
  /// sent in place, or nothing to send).
  bool packs() const;
  /// True when a call on a contiguous to-box unpacks the pieces it receives from a buffer.
  bool unpacks() const;
  /// True when every rank's from-box equals its to-box (the move is a copy).
  bool identity() const { return identity_; }
  /// Bytes this rank sends to other ranks in one call.
  std::size_t bytes_sent() const { return sent_; }
  /// How the pieces travel: "NCCL", "MPI" or "host buffers (MPI)"; "local" on one rank.
  const char* transport() const;
  /// This rank's from-box and to-box.
  const Box<Rank>& from_box() const { return mine_from_; }
  const Box<Rank>& to_box() const { return mine_to_; }

  struct Plan;

 private:
  std::shared_ptr<Plan> plan_;
  Box<Rank> mine_from_{}, mine_to_{};
  bool identity_ = true;
  std::size_t sent_ = 0;
};

}  // namespace sim
