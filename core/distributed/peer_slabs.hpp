#pragma once
// A slab transpose between the GPUs of one host as one kernel, with no pack, no unpack and no
// separate transfer: every rank's part of the "to" layout (its to-box, row-major) lives in a
// buffer the other ranks' GPUs open by CUDA IPC and reach by load and store over NVLink, and a
// kernel on each rank stores its from-box's values straight into the other ranks' to-boxes
// (scatter) or loads them back from there (gather), each element at its place. A barrier
// between the ranks' kernels, block by block (flags in those buffers: each block raises its
// number in the others' after a system-wide fence, then waits for theirs in its own), orders
// the stores against the reads that follow and precede them: a scatter waits for every rank
// to arrive (their earlier reads of their to-boxes are done) and again at its end (every store
// into this rank's to-box has landed); a gather waits for every rank to arrive (their writes
// to their to-boxes are done). Stream ordered, no host wait, recordable in a CUDA graph.
//
// The same moves by the copy engines (push, pull): rows of the from-box along dimension 0
// copied into (out of) the ranks' to-boxes by cudaMemcpy2D/3DAsync on side streams, one per
// rank, beside the caller's kernels (which keep the SMs: a kernel's stores over NVLink would
// hold them for the link's whole time); join(), wait_pulled() and barrier() order them.
//
// Available where every rank (at most 16) runs on one host and its GPU has peer access to
// every other rank's. Any boxes: a warp moves a row (every index but the last) of the
// from-box, each run of it that one rank's to-box holds at once. The from-box's rows along
// dimension 0 may be segments of the to-layout's rows in another order (RowSegment): the move
// then also reorders dimension 0, at no cost of its own. The moves are copies: the
// same values as the all-to-all's (Redistribution). Planning and destruction are collective.
#include <memory>
#include <string>
#include <vector>

#include "core/array/array.hpp"
#include "core/distributed/comm.hpp"

namespace sim {

/// This rank's part of a split grid in GPU memory the other ranks' kernels reach, and the
/// kernels that move another split's values into it and back.
/// Rows [local, local + count) along dimension 0 of a rank's from-box buffer hold rows
/// [global, global + count) of the to-layout.
struct RowSegment {
  index_t local = 0, global = 0, count = 0;
};

template <class T, int Rank>
class PeerSlabs {
 public:
  /// Segments a from-box's rows may come in.
  static constexpr int kMaxSegments = 4;
  PeerSlabs() = default;
  /// Why the peer path cannot move between the splits from and to on comm's GPUs ("" when it
  /// can; collective on GPUs: every rank asks at the same point).
  static std::string unavailable(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from,
                                 const std::vector<Box<Rank>>& to);
  /// The buffer for this rank's to-box, opened by every other rank (collective; unavailable() must be "").
  PeerSlabs(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from, const std::vector<Box<Rank>>& to);
  /// The same with this rank's from-box rows along dimension 0 in segments of the to-layout's
  /// rows (at most kMaxSegments, in the buffer's order, their counts summing to the from-box's
  /// extent along dimension 0, whose place is then given by the segments alone; the from-boxes
  /// of the ranks together cover the to-boxes' rows once). Throws Error on segments that do not fit.
  PeerSlabs(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from, const std::vector<Box<Rank>>& to,
            const std::vector<RowSegment>& rows);
  /// Held in place: every rank's buffer holds the box `hold` of the global layout (containing
  /// every rank's from-box and to-box, each at its global place), and this rank writes its
  /// from-box's values there itself (from_view()). push() and pull() then move only the parts
  /// that other ranks hold: none of this rank's own, which the other constructors copy within
  /// its GPU (on one H200 that copy slowed 2D FFTs beside it by about its own time,
  /// bench/results/2026-11-29-h200-solve-parts; on 2 H200s, where the link bounds those phases,
  /// leaving it out changed nothing measurable). The move kernels (scatter, gather) need the
  /// other layout and refuse. hold's size a rank.
  PeerSlabs(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from, const std::vector<Box<Rank>>& to,
            const Box<Rank>& hold);
  /// This rank's to-box values in the buffer the other ranks reach: row-major (held in place: a
  /// view of the held box, its rows back to back in each plane where hold spans the to-box in
  /// every dimension but 0 and 1).
  View<T, Rank> local() const;
  /// Held in place: this rank's from-box in its buffer, where the caller writes its values.
  View<T, Rank> from_view() const;
  /// Every rank's to-box (in the shared buffers) = the values of every rank's from-box
  /// (a: this rank's, of its shape, the last dimension contiguous). Collective, stream ordered.
  void scatter(View<const T, Rank> a) const;
  /// a (this rank's from-box) = its values from the ranks' to-boxes. Collective, stream ordered.
  void gather(View<T, Rank> a) const;
  /// Every rank's queued work before it is done (its stores into the ranks' buffers landed)
  /// before any rank's work after it starts: one small kernel. Collective, stream ordered.
  void barrier() const;
  /// Pieces a pull() may come in.
  static constexpr int kMaxPieces = 16;
  /// The copy engines' moves, beside the stream (on side streams of this rank's, one per rank,
  /// so that the copies run while the stream's kernels do): after the stream's work so far, the values
  /// of rows [lo, hi) along dimension 0 of this rank's from-box (a, dense, of its shape; held
  /// in place: from_view()) copied into every rank's to-box buffer (held in place: every other's). join() makes the stream wait for them; a
  /// barrier() after it orders them before the other ranks' reads.
  void push(View<const T, Rank> a, index_t lo, index_t hi) const;
  /// The stream waits for every push() so far.
  void join() const;
  /// After the stream's work so far, by the copy engines beside it: rows [bounds[k],
  /// bounds[k + 1]) along dimension 0 of a (this rank's from-box, dense) loaded from the ranks'
  /// to-box buffers, piece k after piece k - 1. wait_pulled(k) makes the stream wait for piece
  /// k (at most kMaxPieces). Call after a barrier() that follows the other ranks' last writes.
  void pull(View<T, Rank> a, const std::vector<index_t>& bounds) const;
  void wait_pulled(int k) const;
  /// push() by parts of the to-layout: after the stream's work so far, every value of this
  /// rank's from-box (a, as for push) that parts[r] (a box of the to-layout, r < the ranks)
  /// holds copied into rank r's to-box buffer, recorded as part k (< kMaxPieces):
  /// wait_pushed(k) makes the stream wait for it. A rank's columns can so move piece by piece
  /// while the pieces before them are transformed.
  void push_parts(View<const T, Rank> a, const std::vector<Box<Rank>>& parts, int k) const;
  void wait_pushed(int k) const;
  /// pull() by parts: after the stream's work so far, the values of this rank's from-box (a)
  /// that parts[r] holds loaded from rank r's to-box buffer, recorded as piece k for wait_pulled(k).
  void pull_parts(View<T, Rank> a, const std::vector<Box<Rank>>& parts, int k) const;
  /// Bytes this rank stores into other ranks' memory in one scatter (and loads in one gather).
  std::size_t bytes_sent() const { return sent_; }
  /// This rank's from-box (its rows along dimension 0 the segments' where given) and to-box.
  const Box<Rank>& from_box() const { return from_; }
  const Box<Rank>& to_box() const { return to_; }
  explicit operator bool() const { return bool(impl_); }

  struct Impl;

 private:
  void plan(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from, const std::vector<Box<Rank>>& to,
            const std::vector<RowSegment>& rows, const Box<Rank>* hold);
  std::shared_ptr<Impl> impl_;
  Box<Rank> from_{}, to_{};
  std::size_t sent_ = 0;
};

}  // namespace sim
