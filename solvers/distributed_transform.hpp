#pragma once
// The exact transform solve of the pressure Poisson equation (transform_poisson.hpp) on a 2D
// or 3D rectangle without obstacles split over any number of ranks, one box per rank (any
// split, uneven or empty boxes included). The data moves between the boxes and two slab
// layouts by all-to-all transposes (core/distributed/redistribute.hpp):
//   boxes -> slabs A (split along axis a, whole along the others): batched 1D transforms
//            along every axis but a;
//   slabs A -> slabs B (split along axis b != a, whole along a): the transform along a,
//            division by the eigenvalues, the inverse along a;
//   slabs B -> slabs A: the inverses along the other axes; slabs A -> boxes.
// Axis a is the axis the boxes are split along when they form slabs already (the usual split
// over a few ranks), so that the first and last moves are local copies, and are skipped. Per
// axis the transform pair and eigenvalues are TransformAxis's (the one-rank solver's). The
// solution equals the one-rank solve to rounding: the same separable transforms, in another
// order. When no side is Dirichlet the constant mode is dropped (zero mean). Cut into pieces
// along a (SIMKIT_TRANSPOSE_CHUNKS), the transposes between GPUs overlap the transforms: each
// piece's move to slabs B runs beside the next piece's transforms, and on the way back each
// piece's inverse transforms beside the next piece's move.
//
// In 3D, when the boxes are split along x (a = 0) and y and z are both periodic (at least 2
// cells each), a faster path replaces the four per-axis transforms along y and z: slabs A go
// through one batched 2D real FFT over (y, z) per x-plane (fft::BatchedRealFft2); its
// spectrum, viewed as a real array
// nx x ny x 2 (nz / 2 + 1) of interleaved real and imaginary parts, is transposed to slabs
// split along y. There, when x is periodic, one batched complex FFT along x
// (fft::BatchedComplexFft: a strided call on the spectrum in place, no gather or scatter),
// the division and its inverse; when x is walled, the real transform along x acts on the real
// and imaginary columns alike (the complex transform's real-linear action). The division uses
// the DFT's eigenvalues 2 - 2 cos(2 pi k / n) along y and z, and the way back mirrors the way
// in, ending in one batched 2D complex-to-real FFT. Between the GPUs of one host slabs B are
// held in memory the other GPUs open by CUDA IPC (core/distributed/peer_slabs.hpp) and the
// transposes are copies by the copy engines, in pieces along x beside the 2D FFTs of the
// next (plan_copies; on 2 ranks with x periodic each rank's buffer holds the whole spectrum,
// its slab A transformed in place, so that only the other rank's parts move: PeerSlabs held
// in place; the way back goes in pieces along x, each beside the inverse 2D FFTs of the one
// before, or with SIMKIT_COPIES_BACK=columns and x periodic in pieces along y, each beside
// the transforms along x of the next: plan_back_by_columns; SIMKIT_TRANSPOSE_PATH=kernels: whole, one kernel
// each way that stores (loads) every value straight into (from) its place; nccl: the
// all-to-all with its pack and unpack, whole). On
// one rank with every axis periodic this is the one-rank 3D Fourier solve's sequence (a real
// FFT over two axes, a complex FFT over the third, the division, and back).
//
// In 2D, when every side is a wall (Neumann: cosine x cosine) and the boxes are split along x,
// the fused one-rank solve's reduction of the 2D cosine transform to a 2D real FFT (Makhoul)
// is cut at the transpose (distributed_cosine2.hpp): slabs A's rows are reordered and go
// through one batched real FFT along y; the half spectrum (n / 2 + 1 columns of complex
// numbers, held as reals) is transposed to slabs of whole columns, reordered along x, and
// goes through one batched complex FFT along x, the division of each pair of rows k, n - k
// (in place), the inverse complex FFT, and back. Between the GPUs of one host the reordering
// along x rides in the transposes: each slab's rows are gathered in the order of
// makhoul_segments (its even rows, then its odd rows backwards), runs that land in Makhoul's
// order in slabs B (PeerSlabs' row segments); with SIMKIT_TRANSPOSE_PATH=copies the transposes
// are the copy engines', in pieces of the columns: each piece moves while the ranks transform
// the piece before it along x, and moves back while they transform the next (plan_cos2_copies).
//
// In 3D with walls on y and z (cosine x cosine over (y, z)) and the boxes split along x, the
// same reduction replaces the per-axis cosine transforms along y and z in slabs A
// (distributed_cosine_yz.hpp): each x-plane is reordered along y and z and goes through one
// batched 2D real FFT (fft::BatchedRealFft2), and a twiddle kernel turns its half spectrum into
// the per-axis path's cosine coefficients, which move to slabs B as on that path (the transform
// along x, the division, its inverse); the way back builds the half spectrum from the
// coefficients, inverts the FFT and undoes the reordering. Its transposes are whole (one
// piece). passes() lists every path's passes over the data.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/array/expr.hpp"
#include "core/distributed/decomposition.hpp"
#include "core/distributed/peer_slabs.hpp"
#include "core/distributed/redistribute.hpp"
#include "core/kernels/for_each.hpp"
#include "core/numerics/fft.hpp"
#include "core/runtime/stream_marks.hpp"
#include "core/runtime/tuning.hpp"
#include "core/numerics/spectral/batched_cfft.hpp"
#include "core/numerics/spectral/batched_rfft2.hpp"
#include "solvers/distributed_cosine2.hpp"
#include "solvers/distributed_cosine_yz.hpp"
#include "solvers/transform_poisson.hpp"

namespace sim::solvers {

/// s *= 1 / (sum over axes of l_d) * inv_norm (0 for the null mode), 2D.
template <class T>
struct SlabDivide2 {
  View<T, 2> s;
  View<const T, 1> l0, l1;
  T inv_norm;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const T lambda = l0(i) + l1(j);
    s(i, j) = lambda > T(0) ? s(i, j) * (inv_norm / lambda) : T(0);
  }
};

/// The same in 3D.
template <class T>
struct SlabDivide3 {
  View<T, 3> s;
  View<const T, 1> l0, l1, l2;
  T inv_norm;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    const T lambda = l0(i) + l1(j) + l2(k);
    s(i, j, k) = lambda > T(0) ? s(i, j, k) * (inv_norm / lambda) : T(0);
  }
};

/// SlabDivide3 on a spectrum whose last dimension holds complex numbers as pairs of reals, one
/// eigenvalue a pair (l2(2k) == l2(2k + 1)), and whose rows lie back to back in each plane
/// (stride[1] == shape[2], stride[2] == 1: a dense array, or rows [j0, j1) of every plane of
/// one). A call (i, t) divides pairs t + q * quarter (q < kPairs) of plane i, counted along the
/// plane's rows: the warp's loads are contiguous whatever the row length, and a thread loads
/// all of its pairs before it stores any, 2 kPairs loads in flight where SlabDivide3 keeps one
/// (which held it to half the copy rate in float32). The same values as SlabDivide3.
template <class T>
struct SlabDividePairs3 {
  static constexpr index_t kPairs = 4;
  View<T, 3> s;
  View<const T, 1> l0, l1, l2;
  T inv_norm;
  index_t m = 0, plane_pairs = 0, quarter = 0;  // pairs a row and a plane; calls a plane
  /// The division of s (rows back to back in each plane, an even last extent).
  static SlabDividePairs3 over(View<T, 3> s, View<const T, 1> l0, View<const T, 1> l1, View<const T, 1> l2, T inv_norm) {
    if (s.size() > 0 && (s.stride[2] != 1 || s.stride[1] != s.shape.n[2] || s.shape.n[2] % 2 != 0))
      throw ShapeError("poisson::slab_divide_pairs: rows of complex pairs back to back in each plane expected, got " +
                       to_string(s.shape));
    SlabDividePairs3 f{s, l0, l1, l2, inv_norm};
    f.m = s.shape.n[2] / 2, f.plane_pairs = s.shape.n[1] * f.m, f.quarter = (f.plane_pairs + kPairs - 1) / kPairs;
    return f;
  }
  /// The box of calls.
  Box<2> calls() const { return Box<2>{{0, 0}, {s.shape.n[0], quarter}}; }
  SIM_INLINE void operator()(index_t i, index_t t) const {
    T* plane = s.ptr + i * s.stride[0];
    T re[kPairs] = {}, im[kPairs] = {};
    for (index_t q = 0; q < kPairs; ++q) {
      const index_t r = t + q * quarter;
      if (r < plane_pairs) re[q] = plane[2 * r], im[q] = plane[2 * r + 1];
    }
    for (index_t q = 0; q < kPairs; ++q) {
      const index_t r = t + q * quarter;
      if (r >= plane_pairs) continue;
      const index_t j = plane_pairs < (index_t(1) << 31) ? index_t(unsigned(r) / unsigned(m)) : r / m, k = r - j * m;
      const T lambda = l0(i) + l1(j) + l2(2 * k);
      plane[2 * r] = lambda > T(0) ? re[q] * (inv_norm / lambda) : T(0);
      plane[2 * r + 1] = lambda > T(0) ? im[q] * (inv_norm / lambda) : T(0);
    }
  }
};

/// Rank r's slab of a grid of `cells` split over `ranks` along `axis` (balanced: the first
/// cells % ranks slabs get one cell more; empty when there are more ranks than cells).
template <int Rank>
Box<Rank> slab_box(const index_t (&cells)[Rank], int axis, int ranks, int r) {
  Box<Rank> b;
  for (int d = 0; d < Rank; ++d) b.lo[d] = 0, b.hi[d] = cells[d];
  const index_t n = cells[axis], base = n / ranks, extra = n % ranks;
  auto start = [&](int c) { return index_t(c) * base + (index_t(c) < extra ? index_t(c) : extra); };
  b.lo[axis] = start(r), b.hi[axis] = start(r + 1);
  return b;
}

/// The boxes of a decomposition's ranks, as global index boxes.
template <int Rank>
std::vector<Box<Rank>> boxes_of(const std::vector<Subdomain>& subs) {
  std::vector<Box<Rank>> boxes;
  for (const Subdomain& s : subs) {
    Box<Rank> b;
    for (int d = 0; d < Rank; ++d) b.lo[d] = s.offset[d], b.hi[d] = s.offset[d] + s.cells[d];
    boxes.push_back(b);
  }
  return boxes;
}

/// The problem a DistributedTransformPoisson solves: cells, spacing and sides per axis.
template <int Rank>
struct TransformProblem {
  index_t cells[Rank] = {};
  double inv_h2[Rank] = {};         ///< 1 / h^2 per axis
  PressureSide sides[2 * Rank] = {};  ///< low, high side per axis
};

/// Why the problem cannot be solved by the distributed transform ("" when it can).
template <int Rank>
std::string distributed_transform_unsupported(const TransformProblem<Rank>& problem) {
  for (int d = 0; d < Rank; ++d)
    if ((problem.sides[2 * d] == PressureSide::periodic) != (problem.sides[2 * d + 1] == PressureSide::periodic))
      return "a dimension is periodic on one side only";
  return "";
}

/// Pieces the slab transposes are cut into (the tuning knob SIMKIT_TRANSPOSE_CHUNKS, default 1):
/// with k > 1 the transpose of each piece of slabs A runs beside the transforms of the next.
inline int transpose_chunks_from_tuning() {
  const long long k = tuning::current().transpose_chunks;
  return k >= 1 ? int(k) : 1;
}

template <class T, int Rank>
class DistributedTransformPoisson {
  static_assert(Rank == 2 || Rank == 3, "the distributed transform solver is 2D or 3D");

 public:
  DistributedTransformPoisson() = default;
  /// The solver of problem on comm's ranks, rank r holding boxes[r] (global indices), on ctx
  /// (collective). chunks: pieces of slabs A whose transposes overlap the next piece's
  /// transforms (0: the tuning knob SIMKIT_TRANSPOSE_CHUNKS, default 1). Throws Error when
  /// distributed_transform_unsupported(problem) is not "".
  DistributedTransformPoisson(const Comm& comm, const Context& ctx, const TransformProblem<Rank>& problem,
                              const std::vector<Box<Rank>>& boxes, int chunks = 0)
      : ctx_(ctx) {
    const std::string why = distributed_transform_unsupported(problem);
    if (!why.empty()) throw Error("transform solver: " + why);
    const int ranks = comm.size();
    ranks_ = ranks, requested_chunks_ = chunks;
    index_t cells[Rank];
    for (int d = 0; d < Rank; ++d) cells[d] = problem.cells[d];
    a_ = slab_axis(boxes, cells);
    b_ = a_ == 0 ? 1 : 0;
    std::vector<Box<Rank>> slabs_a, slabs_b;
    for (int r = 0; r < ranks; ++r)
      slabs_a.push_back(slab_box<Rank>(cells, a_, ranks, r)), slabs_b.push_back(slab_box<Rank>(cells, b_, ranks, r));
    to_a_ = Redistribution<T, Rank>(comm, ctx, boxes, slabs_a);
    from_a_ = Redistribution<T, Rank>(comm, ctx, slabs_a, boxes);
    mine_a_ = slabs_a[std::size_t(comm.rank())], mine_b_ = slabs_b[std::size_t(comm.rank())];
    transposed_ = ranks > 1;
    for (int d = 0; d < Rank; ++d) axes_.emplace_back(problem.sides[2 * d], problem.sides[2 * d + 1], cells[d]);
    if constexpr (Rank == 2) {
      cos2_ = a_ == 0 && axes_[0].forward == fft::Kind::dct2 && axes_[1].forward == fft::Kind::dct2 && cells[0] >= 2 &&
              cells[1] >= 2;
      if (cos2_) {
        plan_cos2(comm, ctx, problem);
        return;
      }
    }
    if constexpr (Rank == 3) {
      yz_fft_ = a_ == 0 && axes_[1].forward == fft::Kind::r2hc && axes_[2].forward == fft::Kind::r2hc && cells[1] >= 2 &&
                cells[2] >= 2;
      if (yz_fft_) {
        plan_yz(comm, ctx, problem);
        return;
      }
    }
    if constexpr (Rank == 3)
      cos_yz_ = a_ == 0 && axes_[1].forward == fft::Kind::dct2 && axes_[2].forward == fft::Kind::dct2 && cells[1] >= 2 &&
                cells[2] >= 2;
    chunks_ = transposed_ && !cos_yz_ ? (chunks > 0 ? chunks : transpose_chunks_from_tuning()) : 1;
    work_a_ = Array<T, Rank>(ctx, nonempty(mine_a_.shape()));
    if (transposed_) work_b_ = Array<T, Rank>(ctx, nonempty(mine_b_.shape()));
    double norm = 1;
    for (int d = 0; d < Rank; ++d) {
      norm *= double(fft::normalisation(axes_[std::size_t(d)].forward, cells[d]));
      // the eigenvalues of this rank's part of slabs B along d, over h^2
      std::vector<T> l(std::size_t(mine_b_.extent(d) > 0 ? mine_b_.extent(d) : 1), T(0));
      for (index_t i = 0; i < mine_b_.extent(d); ++i)
        l[std::size_t(i)] = T(axes_[std::size_t(d)].eigenvalues[std::size_t(mine_b_.lo[d] + i)] * problem.inv_h2[d]);
      eigen_[d] = Array<T, 1>::from_host(ctx, extents(index_t(l.size())), l);
    }
    inv_norm_ = T(1.0 / norm);
    // chunk k of every rank's slab A: its share k of the slab's cells along a
    for (int k = 0; k < chunks_; ++k) {
      std::vector<Box<Rank>> chunk;
      for (const Box<Rank>& slab : slabs_a) chunk.push_back(chunk_of(slab, k));
      const Box<Rank> mine = chunk[std::size_t(comm.rank())];
      chunk_.push_back(relative_to(mine, mine_a_));
      forward_a_.emplace_back(), backward_a_.emplace_back();
      if (mine.size() > 0 && !cos_yz_)  // (the cosine path over y and z has its own transforms in slabs A)
        for (int d = 0; d < Rank; ++d)
          if (d != a_) {
            forward_a_.back().emplace_back(ctx, axes_[std::size_t(d)].forward, mine.shape(), d);
            backward_a_.back().emplace_back(ctx, axes_[std::size_t(d)].backward, mine.shape(), d);
          }
      if (transposed_) {
        a_to_b_.emplace_back(comm, ctx, chunk, slabs_b);
        b_to_a_.emplace_back(comm, ctx, slabs_b, chunk);
      }
    }
    if (mine_b_.size() > 0) {
      forward_b_ = fft::Transform<T, Rank>(ctx, axes_[std::size_t(a_)].forward, mine_b_.shape(), a_);
      backward_b_ = fft::Transform<T, Rank>(ctx, axes_[std::size_t(a_)].backward, mine_b_.shape(), a_);
    }
    if (cos_yz_) plan_cos_yz(ctx);
  }

  /// x = the solution of A x = b on this rank's box (b and x: views of its shape, e.g. a
  /// Field's interior); collective, asynchronous where the transport is.
  void solve(View<const T, Rank> b, View<T, Rank> x) {
    marks_.clear();
    marks_.mark("start");
    if (yz_fft_) solve_yz(b, x);
    else if (cos2_) solve_cos2(b, x);
    else if (cos_yz_) solve_cos_yz(b, x);
    else solve_per_axis(b, x);
    marks_.mark("the way back: transposes to slabs A and the inverse transforms");
  }
  /// Where a caller's kernel may write the right-hand side itself (2D, walls all round, every box
  /// a slab along x: the reordered rows of plan_cos2), so that solve_staged() skips the gather;
  /// null data on the other paths. The rows keep it until the next solve_staged().
  CosineSlabRows<T> staged() { return cos_staged_out_.size() > 0 ? cos_rows() : CosineSlabRows<T>{}; }
  /// Where solve_staged() leaves the solution, in the same order (null data where staged() is).
  CosineSlabRows<T> staged_result() { return cos_staged_out_.size() > 0 ? slab_rows(cos_staged_out_) : CosineSlabRows<T>{}; }
  /// solve() of the right-hand side written through staged(), its solution in staged_result()
  /// (collective: every rank calls it, one with an empty box too).
  void solve_staged() {
    marks_.clear();
    marks_.mark("start");
    solve_cos2_rows(cos_staged_out_.size() > 0 ? cos_staged_out_.view() : View<T, 3>{});
    marks_.mark("the way back: transposes to slabs A and the inverse transforms");
  }
  /// Diagnostic: while on, each solve marks its phases on the stream (StreamMarks; not inside a
  /// recording); phase_ms() then gives the last solve's, on this rank.
  void mark_phases(bool on) { marks_ = on ? StreamMarks(ctx_) : StreamMarks(); }
  /// The last solve's phases and their ms on this rank (mark_phases; waits for the stream).
  std::vector<std::pair<std::string, double>> phase_ms() const { return marks_.spans_ms(); }

  /// solve() by per-axis transforms (the general path).
  void solve_per_axis(View<const T, Rank> b, View<T, Rank> x) {
    View<T, Rank> a = slabs_a_view(), s = slabs_b_view();
    View<const T, Rank> in = b;
    if (!to_a_.identity()) to_a_(b, a), in = a;
    // forward along every axis but a in slabs A, piece by piece (the first transform from b
    // when b is slabs A already), each piece's transpose to slabs B started behind it
    for (int k = 0; k < chunks_; ++k) {
      const View<T, Rank> ak = a.sub(chunk_[std::size_t(k)]);
      const std::vector<fft::Transform<T, Rank>>& f = forward_a_[std::size_t(k)];
      for (std::size_t t = 0; t < f.size(); ++t) f[t](t == 0 ? in.sub(chunk_[std::size_t(k)]) : View<const T, Rank>(ak), ak);
      if (transposed_) a_to_b_[std::size_t(k)].start(ak, s);
    }
    if (transposed_)
      for (int k = 0; k < chunks_; ++k) a_to_b_[std::size_t(k)].finish(s);
    marks_.mark("forward transforms and the transposes to slabs B");
    if (mine_b_.size() > 0) {
      forward_b_(s, s);
      divide(s);
      backward_b_(s, s);
    }
    marks_.mark("the transform along the slabs' axis, the division, its inverse");
    // back to slabs A piece by piece, each piece's inverse transforms beside the next piece's
    // transpose; the last transform straight into x when x is slabs A
    const View<T, Rank> out = from_a_.identity() ? x : a;
    if (transposed_) b_to_a_[0].start(s, a.sub(chunk_[0]));
    for (int k = 0; k < chunks_; ++k) {
      const View<T, Rank> ak = a.sub(chunk_[std::size_t(k)]);
      if (transposed_) b_to_a_[std::size_t(k)].finish(ak);
      if (transposed_ && k + 1 < chunks_) b_to_a_[std::size_t(k + 1)].start(s, a.sub(chunk_[std::size_t(k + 1)]));
      const std::vector<fft::Transform<T, Rank>>& g = backward_a_[std::size_t(k)];
      const std::size_t n = g.size();
      for (std::size_t t = 0; t < n; ++t) g[n - 1 - t](ak, t + 1 == n ? out.sub(chunk_[std::size_t(k)]) : ak);
    }
    if (!from_a_.identity()) from_a_(a, x);
  }

  /// True when a solve queues its transposes on the stream without the host waiting (one rank,
  /// CPU ranks, NCCL between GPUs; not host staging): a step that solves may be recorded.
  bool stream_ordered() const {
    auto on_stream = [](const Redistribution<T, Rank>& r) { return std::string(r.transport()) != "host buffers (MPI)"; };
    bool ok = on_stream(to_a_) && on_stream(from_a_);
    for (const Redistribution<T, Rank>& r : a_to_b_) ok = ok && on_stream(r);
    return ok && std::string(cos_to_b_.transport()) != "host buffers (MPI)";
  }

  /// Whether the transposes run on the copy engines beside the stream (plan_copies): a step
  /// recorded with them replays faster per step than inside a CUDA graph's device loop, whose
  /// body runs the copies slower (bench/results/2026-11-28-h200x2-multi-gpu).
  bool copies_beside_stream() const { return copies_; }
  /// The transforms and the layout, e.g. "DCT-II/III x real DFT, slabs along x then y over 2 ranks (NCCL all-to-all)".
  std::string description() const {
    static const char* names[3] = {"x", "y", "z"};
    std::string s;
    if (yz_fft_)
      s = std::string("2D real FFT over y,z per slab + ") + (x_complex_ ? "complex FFT" : axes_[0].label()) + " along x" +
          (x_divides_ ? " (the division in its forward's cuFFT store callback)" : "");
    else if (cos2_) s = "DCT-II/III x DCT-II/III as real FFTs along y per slab + complex FFT along x (Makhoul)";
    else if (cos_yz_) s = std::string("DCT-II/III over y,z by a 2D real FFT per slab + ") + axes_[0].label() + " along x";
    else
      for (int d = 0; d < Rank; ++d) s += (d ? " x " : "") + std::string(axes_[std::size_t(d)].label());
    if (!transposed_) return s;
    std::string moves = copies_ ? std::string(in_place_ ? "each rank holding the whole spectrum, " : "") +
                                      "copies into the other GPUs' memory by the copy engines, in " +
                                      std::to_string(cos2_ ? cos_parts_.size() : copy_bounds_.empty() ? 0 : copy_bounds_.size() - 1) +
                                      " pieces beside the FFTs"
                        : peer_ ? std::string("stores into the other GPUs' memory")
                              : std::string(cos2_ ? cos_to_b_.transport() : a_to_b_[0].transport()) + " all-to-all";
    if (!peer_why_.empty()) moves += "; no stores into the other GPUs' memory: " + peer_why_;
    return s + ", slabs along " + names[a_] + " then " + names[b_] + " over " + std::to_string(ranks_) + " ranks (" + moves +
           (chunks_ > 1 ? ", " + std::to_string(chunks_) + " pieces" : "") + ")";
  }
  /// The passes over memory of one solve on this rank, in order: kernels, library transform
  /// calls, and each move's pack (with the copy of this rank's own piece) and unpack where it
  /// has them (a transpose sends from, or receives into, a contiguous slab in place where the
  /// pieces follow one another there); the all-to-alls themselves and the libraries' internal
  /// passes not counted. For b and x with contiguous rows (a Field's interior).
  std::vector<std::string> passes() const {
    static const char* names[3] = {"x", "y", "z"};
    std::vector<std::string> p;
    auto move = [&p](const char* what, const auto* r, bool contiguous) {
      if (!r || r->identity()) return;
      if (r->packs() || !contiguous) p.push_back(std::string(what) + ": pack");
      else if (intersect(r->from_box(), r->to_box()).size() > 0) p.push_back(std::string(what) + ": copy of this rank's own piece");
      if (r->unpacks() || !contiguous) p.push_back(std::string(what) + ": unpack");
    };
    auto first = [](const std::vector<Redistribution<T, Rank>>& v) { return v.empty() ? nullptr : &v[0]; };
    const bool whole = chunks_ == 1;  // slabs A in one piece: contiguous
    move("boxes to slabs", &to_a_, false);
    if (cos2_) {
      if (mine_a_.size() > 0) p.push_back("gather rows (reordered)");
      if (mine_a_.size() > 0) p.push_back("real FFT along y");
      if (copies_)
        p.push_back("pieces of the columns copied to slabs along y (in Makhoul's order along x) by the copy engines, each beside the FFTs along x of the one before");
      if (peer_ && !copies_)
        p.push_back("transpose to slabs along y: stores into the other GPUs' memory in Makhoul's order along x (and this rank's own piece)");
      if (transposed_) move("transpose to slabs along y", &cos_to_b_, true);
      if (cos_b_box_.size() > 0) {
        if (transposed_ && !cos_reordered_) p.push_back("reorder along x");
        p.insert(p.end(), {"complex FFT along x", "divide (cosine pairs)", "inverse complex FFT along x"});
        if (transposed_ && !cos_reordered_) p.push_back("reorder back along x");
      }
      if (peer_ && !copies_) p.push_back("transpose back: loads from the other GPUs' memory (and this rank's own piece)");
      if (transposed_) move("transpose back", &cos_back_, true);
      if (copies_) p.push_back("the solved pieces copied back by the copy engines, each beside the FFTs along x of the next");
      if (mine_a_.size() > 0) p.push_back("complex-to-real FFT along y");
      if (mine_a_.size() > 0) p.push_back("scatter rows");
    } else if (cos_yz_) {
      if (mine_a_.size() > 0) p.insert(p.end(), {"gather (reordered along y,z)", "2D real FFT over y,z", "cosine coefficients"});
      move("transpose to slabs along y", first(a_to_b_), true);
      if (mine_b_.size() > 0) {
        add_transform_passes(p, ctx_, axes_[0].forward, "x", false);
        p.push_back("divide");
        add_transform_passes(p, ctx_, axes_[0].backward, "x", false);
      }
      move("transpose back", first(b_to_a_), true);
      if (mine_a_.size() > 0) p.insert(p.end(), {"half spectrum of the coefficients", "2D complex-to-real FFT over y,z", "scatter (reordered back)"});
    } else if (yz_fft_) {
      if (copies_ && in_place_)
        p.push_back("2D real FFT over y,z in pieces, in place, each's part of the other rank's slab along y copied there by the copy engines beside the next");
      else if (copies_) p.push_back("2D real FFT over y,z in pieces, each copied to slabs along y by the copy engines beside the next");
      else if (mine_a_.size() > 0) p.push_back("2D real FFT over y,z");
      if (peer_ && !copies_) p.push_back("transpose to slabs along y: stores into the other GPUs' memory (and this rank's own piece)");
      move("transpose to slabs along y", first(a_to_b_), true);
      if (spectrum_b_box_.size() > 0 && x_complex_ && x_divides_)
        p.insert(p.end(), {"complex FFT along x, dividing as it stores", "inverse complex FFT along x"});
      else if (spectrum_b_box_.size() > 0 && x_complex_)
        p.insert(p.end(), {"complex FFT along x", "divide", "inverse complex FFT along x"});
      else if (spectrum_b_box_.size() > 0) {
        add_transform_passes(p, ctx_, axes_[0].forward, "x", false);
        p.push_back("divide");
        add_transform_passes(p, ctx_, axes_[0].backward, "x", false);
      }
      if (peer_ && !copies_) p.push_back("transpose back: loads from the other GPUs' memory (and this rank's own piece)");
      move("transpose back", first(b_to_a_), true);
      if (copies_) p.push_back("2D complex-to-real FFT over y,z in pieces, each after its copy back by the copy engines");
      else if (mine_a_.size() > 0) p.push_back("2D complex-to-real FFT over y,z");
    } else {
      bool at_first = true;
      for (int d = 0; d < Rank && mine_a_.size() > 0; ++d)
        if (d != a_)
          add_transform_passes(p, ctx_, axes_[std::size_t(d)].forward, names[d], at_first && to_a_.identity()), at_first = false;
      move("transpose to the other slabs", first(a_to_b_), whole);
      if (mine_b_.size() > 0) {
        add_transform_passes(p, ctx_, axes_[std::size_t(a_)].forward, names[a_], false);
        p.push_back("divide");
        add_transform_passes(p, ctx_, axes_[std::size_t(a_)].backward, names[a_], false);
      }
      move("transpose back", first(b_to_a_), whole);
      const int lowest = a_ == 0 ? 1 : 0;  // its inverse runs last, into x when x is slabs A
      for (int d = Rank - 1; d >= 0 && mine_a_.size() > 0; --d)
        if (d != a_) add_transform_passes(p, ctx_, axes_[std::size_t(d)].backward, names[d], d == lowest && from_a_.identity());
    }
    move("slabs to boxes", &from_a_, false);
    return p;
  }
  /// The slab transposes of one solve alone (A to B and back, every piece; no transforms), on
  /// the solver's work arrays: what a benchmark times as the solve's transposes (by the copy
  /// engines, marked as phases too: the pushes, the barrier, the pulls).
  void transposes_alone() {
    if (!transposed_) return;
    if (cos2_) {
      const View<T, 3> sa = cos_spectrum_a(), sb = cos_spectrum_b();
      cos_spectrum_to_b(sa, sb);
      cos_spectrum_from_b(sb, sa);
      return;
    }
    if (yz_fft_) {
      const View<T, Rank> sa = spectrum_a_view(), sb = spectrum_b_view();
      if (copies_) {  // the copy engines' moves, whole (held in place: the other ranks' parts alone)
        marks_.clear();
        marks_.mark("start");
        peer_.push(sa, 0, mine_a_.extent(0));
        peer_.join();
        marks_.mark("push");
        peer_.barrier();
        marks_.mark("barrier");
        peer_.pull(sa, {0, mine_a_.extent(0)});
        peer_.wait_pulled(0);
        marks_.mark("pull");
        return;
      }
      to_spectrum_b(sa, sb);
      from_spectrum_b(sb, sa);
      return;
    }
    View<T, Rank> a = slabs_a_view(), s = slabs_b_view();
    for (int k = 0; k < chunks_; ++k) a_to_b_[std::size_t(k)](a.sub(chunk_[std::size_t(k)]), s);
    for (int k = 0; k < chunks_; ++k) b_to_a_[std::size_t(k)](s, a.sub(chunk_[std::size_t(k)]));
  }
  /// Bytes this rank sends to other ranks in the slab transposes of one solve.
  std::size_t transpose_bytes() const {
    std::size_t bytes = 0;
    for (std::size_t k = 0; k < a_to_b_.size(); ++k) bytes += a_to_b_[k].bytes_sent() + b_to_a_[k].bytes_sent();
    if (cos2_ && transposed_) bytes += cos_to_b_.bytes_sent() + cos_back_.bytes_sent();
    if (peer_) bytes += 2 * peer_.bytes_sent();
    return bytes;
  }
  /// True when the boxes are not slabs A, so that a solve also moves the data between them (two more transposes).
  bool moves_boxes() const { return !to_a_.identity(); }

 private:
  /// The axis the boxes are split along when every box spans the whole grid in the others (else 0).
  static int slab_axis(const std::vector<Box<Rank>>& boxes, const index_t (&cells)[Rank]) {
    int axis = -1;
    for (const Box<Rank>& b : boxes)
      for (int d = 0; d < Rank; ++d)
        if (b.size() > 0 && (b.lo[d] != 0 || b.hi[d] != cells[d])) {
          if (axis >= 0 && axis != d) return 0;
          axis = d;
        }
    return axis < 0 ? 0 : axis;
  }
  /// Piece k of chunks_ of slab along a.
  Box<Rank> chunk_of(const Box<Rank>& slab, int k) const {
    Box<Rank> c = slab;
    const index_t n = slab.extent(a_);
    c.lo[a_] = slab.lo[a_] + n * k / chunks_, c.hi[a_] = slab.lo[a_] + n * (k + 1) / chunks_;
    return c;
  }
  /// The box of shape box.shape() at the origin.
  static Box<Rank> whole(const Box<Rank>& box) {
    Box<Rank> b;
    for (int d = 0; d < Rank; ++d) b.lo[d] = 0, b.hi[d] = box.extent(d);
    return b;
  }
  /// shape, with at least one element (arrays for empty slabs).
  static Extents<Rank> nonempty(Extents<Rank> e) {
    if (e.size() == 0)
      for (int d = 0; d < Rank; ++d) e.n[d] = 1;
    return e;
  }
  View<T, Rank> slabs_a_view() { return work_a_.view().sub(whole(mine_a_)); }
  View<T, Rank> slabs_b_view() { return transposed_ ? work_b_.view().sub(whole(mine_b_)) : slabs_a_view(); }
  void divide(View<T, Rank> s) {
    if constexpr (Rank == 2)
      for_each(ctx_, "poisson::slab_divide", s.box(), SlabDivide2<T>{s, eigen_[0].view(), eigen_[1].view(), inv_norm_});
    else
      for_each(ctx_, "poisson::slab_divide", s.box(),
               SlabDivide3<T>{s, eigen_[0].view(), eigen_[1].view(), eigen_[2].view(), inv_norm_});
  }

  /// The 2D path for walls all round and slabs along x (solvers/distributed_cosine2.hpp): the
  /// real FFTs of the rows, the spectrum's slabs and transposes, the complex FFT along x, the
  /// eigenvalues and twiddles.
  void plan_cos2(const Comm& comm, const Context& ctx, const TransformProblem<Rank>& problem) {
    const int ranks = comm.size(), me = comm.rank();
    const index_t n1 = problem.cells[0], n2 = problem.cells[1];
    const index_t modes[3] = {n1, n2 / 2 + 1, 2};  // the half spectrum: rows, columns, real and imaginary part
    std::vector<Box<3>> spectrum_a, spectrum_b;
    for (int r = 0; r < ranks; ++r)
      spectrum_a.push_back(slab_box<3>(modes, 0, ranks, r)), spectrum_b.push_back(slab_box<3>(modes, 1, ranks, r));
    cos_b_box_ = spectrum_b[std::size_t(me)];
    auto nonempty3 = [](Extents<3> e) { return e.size() > 0 ? e : extents(1, 1, 1); };
    if (!to_a_.identity()) work_a_ = Array<T, Rank>(ctx, nonempty(mine_a_.shape()));  // the boxes moved to slabs A
    cos_empty_ = Array<T, 3>(ctx, extents(1, 1, 1));
    if (mine_a_.size() > 0) {
      const Extents<3> rows = extents(mine_a_.extent(0), 1, n2);
      rows_ = fft::BatchedRealFft2<T>(ctx, rows), rows_real_ = Array<T, 3>(ctx, rows);
    }
    if (transposed_) {
      // the same moves on the spectrum seen as reals (rows, 2 columns)
      std::vector<Box<Rank>> flat_a, flat_b;
      for (int r = 0; r < ranks; ++r) {
        const Box<3>& a = spectrum_a[std::size_t(r)];
        const Box<3>& b = spectrum_b[std::size_t(r)];
        Box<Rank> fa, fb;
        fa.lo[0] = a.lo[0], fa.hi[0] = a.hi[0], fa.lo[Rank - 1] = 2 * a.lo[1], fa.hi[Rank - 1] = 2 * a.hi[1];
        fb.lo[0] = b.lo[0], fb.hi[0] = b.hi[0], fb.lo[Rank - 1] = 2 * b.lo[1], fb.hi[Rank - 1] = 2 * b.hi[1];
        flat_a.push_back(fa), flat_b.push_back(fb);
      }
      // between GPUs the moves place this rank's rows, held in makhoul_segments' order, in
      // Makhoul's order along x (no reordering pass)
      if (plan_peer(comm, ctx, flat_a, flat_b, makhoul_segments(mine_a_.lo[0], mine_a_.hi[0], n1))) {
        cos_reordered_ = true;
        const std::string& path = tuning::current().transpose_path;
        // (auto: the copy engines on 2 ranks, where they ran the cavity 4096^2 step in 1.25-1.26 /
        // 0.794 ms (float64 / float32) against the kernels' 1.29 / 0.827 on 2 H200s,
        // bench/results/2026-11-29-h200x2-multi-gpu; the kernels on more, where the copy engines
        // were not measured)
        if (path == "copies" || (path == "auto" && ranks == 2)) plan_cos2_copies(ctx, n2, flat_b);
      } else {
        cos_v_ = Array<T, 3>(ctx, nonempty3(cos_b_box_.shape()));
        cos_b_ = Array<T, 3>(ctx, nonempty3(cos_b_box_.shape()));
        cos_to_b_ = Redistribution<T, 3>(comm, ctx, spectrum_a, spectrum_b);
        cos_back_ = Redistribution<T, 3>(comm, ctx, spectrum_b, spectrum_a);
      }
    }
    // slab A's rows in Makhoul's order on one rank (the whole grid), in makhoul_segments'
    // order where the peer moves put them in Makhoul's order, else as they are
    cos_place_ = SlabRowPlace::of(mine_a_.lo[0], mine_a_.hi[0], n1, !transposed_ || cos_reordered_);
    // boxes that are slabs A take the right-hand side in the rows themselves (staged()), and the
    // solution in rows of their own, so that the right-hand side stays
    if (to_a_.identity() && from_a_.identity() && mine_a_.size() > 0) cos_staged_out_ = Array<T, 3>(ctx, rows_real_.shape());
    if (cos_b_box_.size() > 0) cos_x_ = fft::BatchedComplexFft<T>(ctx, cos_b_box_.shape());
    std::vector<double> lx(static_cast<std::size_t>(n1)), ly(static_cast<std::size_t>(n2));
    std::vector<double> t1(static_cast<std::size_t>(2 * n1)), t2(static_cast<std::size_t>(2 * n2));
    const double pi = 3.14159265358979323846;
    for (index_t k = 0; k < n1; ++k) {
      lx[std::size_t(k)] = axes_[0].eigenvalues[std::size_t(k)] * problem.inv_h2[0];
      t1[std::size_t(2 * k)] = std::cos(pi * double(k) / double(2 * n1)), t1[std::size_t(2 * k + 1)] = std::sin(pi * double(k) / double(2 * n1));
    }
    for (index_t k = 0; k < n2; ++k) {
      ly[std::size_t(k)] = axes_[1].eigenvalues[std::size_t(k)] * problem.inv_h2[1];
      t2[std::size_t(2 * k)] = std::cos(pi * double(k) / double(2 * n2)), t2[std::size_t(2 * k + 1)] = std::sin(pi * double(k) / double(2 * n2));
    }
    cos_lx_ = Array<double, 1>::from_host(ctx, extents(n1), lx), cos_ly_ = Array<double, 1>::from_host(ctx, extents(n2), ly);
    cos_tw1_ = Array<double, 1>::from_host(ctx, extents(2 * n1), t1), cos_tw2_ = Array<double, 1>::from_host(ctx, extents(2 * n2), t2);
  }
  /// The half spectrum's transposes by the copy engines, in pieces of every rank's columns
  /// overlapping the FFTs along x: after the real FFTs along y, piece k of every rank's columns
  /// is copied there while the ranks transform (FFT along x, division, inverse) the pieces
  /// before it, and each solved piece is copied back while the next is transformed. Pieces:
  /// SIMKIT_TRANSPOSE_CHUNKS where set, else 4 in float64 and 2 in float32 (on 2 H200s the
  /// cavity 4096^2 step took 1.294 / 1.263 / 1.367 ms in 2 / 4 / 8 pieces in float64, 0.794 /
  /// 0.847 / 1.017 in float32: an FFT along x of fewer columns runs below the GPU's rate); at
  /// most PeerSlabs::kMaxPieces and the fewest columns of a rank that has any.
  void plan_cos2_copies(const Context& ctx, index_t n2, const std::vector<Box<Rank>>& flat_b) {
    if constexpr (Rank == 2) {
      const long long knob = tuning::current().transpose_chunks;
      const index_t fallback = sizeof(T) == 4 ? 2 : 4;
      index_t pieces = std::min<index_t>(knob > 0 ? index_t(knob) : fallback, index_t(PeerSlabs<T, Rank>::kMaxPieces));
      for (const Box<Rank>& b : flat_b)
        if (b.extent(1) > 0) pieces = std::min(pieces, b.extent(1) / 2);
      // piece k of rank r's columns (as pairs of reals), every row
      cos_parts_.assign(std::size_t(pieces), {});
      for (index_t k = 0; k < pieces; ++k)
        for (const Box<Rank>& b : flat_b) {
          const index_t columns = b.extent(1) / 2, c0 = b.lo[1] / 2;
          Box<Rank> part = b;
          part.lo[1] = 2 * (c0 + columns * k / pieces), part.hi[1] = 2 * (c0 + columns * (k + 1) / pieces);
          cos_parts_[std::size_t(k)].push_back(part);
        }
      // this rank's FFTs along x, a plan for each piece of its columns (its rows a slab row apart)
      cos_x_parts_.clear();
      const index_t mine = cos_b_box_.extent(1);
      for (index_t k = 0; k < pieces && cos_b_box_.size() > 0; ++k) {
        const index_t c0 = mine * k / pieces, c1 = mine * (k + 1) / pieces;
        cos_x_parts_.emplace_back(ctx, extents(cos_b_box_.extent(0), c1 - c0, 2), 2 * mine);
      }
      const index_t rows = mine_a_.extent(0);
      if (rows > 0) {
        const Extents<3> shape = extents(rows, 1, n2);
        cos_copy_spectrum_ = Array<T, 3>(ctx, fft::BatchedRealFft2<T>::spectrum_shape(shape));
        rows_ = fft::BatchedRealFft2<T>(ctx, shape, cos_copy_spectrum_.view().ptr);  // (its spectrum where the copies take it)
      }
      copies_ = true;
    }
  }
  /// This rank's part of the half spectrum in slabs A (rows along x) and B (columns), as
  /// (rows, columns, 2) reals.
  View<T, 3> cos_spectrum_a() {
    if (mine_a_.size() == 0) return cos_empty_.view().sub(Box<3>{});
    View<T, 3> v = copies_ ? cos_copy_spectrum_.view() : rows_.spectrum();  // (rows, 1, 2 (n2 / 2 + 1))
    const index_t columns = v.shape.n[2] / 2;
    v.shape = extents(v.shape.n[0], columns, 2), v.stride[0] = 2 * columns, v.stride[1] = 2, v.stride[2] = 1;
    return v;
  }
  View<T, 3> cos_spectrum_b() {
    if (!transposed_) return cos_spectrum_a();
    if (cos_b_box_.size() == 0) return cos_empty_.view().sub(Box<3>{});
    if (peer_) {
      const View<T, Rank> flat = peer_.local();
      return dense_view(flat.ptr, cos_b_box_.shape());
    }
    Box<3> whole3{{0, 0, 0}, {cos_b_box_.extent(0), cos_b_box_.extent(1), cos_b_box_.extent(2)}};
    return cos_b_.view().sub(whole3);
  }
  /// Plans peer_ (slabs B in memory the other GPUs reach) for the moves between the splits
  /// from and to when the peer kernels can make them (true); else keeps why in peer_why_ for
  /// description() where they were expected (on GPUs, the path not turned off).
  /// rows: this rank's from-rows as segments of the to-layout's (PeerSlabs), where not in order.
  /// (hold: every rank's buffer holds that box, PeerSlabs held in place)
  bool plan_peer(const Comm& comm, const Context& ctx, const std::vector<Box<Rank>>& from, const std::vector<Box<Rank>>& to,
                 const std::vector<RowSegment>& rows = {}, const Box<Rank>* hold = nullptr) {
    const std::string why = PeerSlabs<T, Rank>::unavailable(comm, ctx, from, to);
    if (why.empty()) {
      peer_ = hold           ? PeerSlabs<T, Rank>(comm, ctx, from, to, *hold)
              : rows.empty() ? PeerSlabs<T, Rank>(comm, ctx, from, to)
                             : PeerSlabs<T, Rank>(comm, ctx, from, to, rows);
      return true;
    }
    if (ctx.is_cuda() && tuning::current().transpose_path != "nccl") peer_why_ = why;
    return false;
  }
  /// The half spectrum's transposes between slabs A (sa) and B (sb): the peer kernels on it as
  /// reals (rows, 2 columns), else the all-to-alls.
  void cos_spectrum_to_b(View<T, 3> sa, View<T, 3> sb) {
    if (peer_) peer_.scatter(flat_rows(sa));
    else cos_to_b_(sa, sb);
  }
  void cos_spectrum_from_b(View<T, 3> sb, View<T, 3> sa) {
    if (peer_) peer_.gather(flat_rows(sa));
    else cos_back_(sb, sa);
  }
  /// A (rows, columns, 2) spectrum view with dense rows as (rows, 2 columns) reals (2D only).
  static View<T, Rank> flat_rows(View<T, 3> v) {
    View<T, Rank> f;
    if constexpr (Rank == 2) {
      f.ptr = v.ptr, f.shape = extents(v.shape.n[0], 2 * v.shape.n[1]);
      f.stride[0] = v.stride[0], f.stride[1] = 1;
    }
    return f;
  }
  /// solve() on the path of plan_cos2: the gather into the reordered rows, their solve, the scatter.
  void solve_cos2(View<const T, Rank> b, View<T, Rank> x) {
    if constexpr (Rank == 2) {
      View<const T, 2> in = b;
      const View<T, 2> a = to_a_.identity() ? View<T, 2>{} : slabs_a_view();
      if (!to_a_.identity()) to_a_(b, a), in = a;
      const View<T, 2> out = from_a_.identity() ? x : a;
      const CosineSlabRows<T> rows = cos_rows();
      if (mine_a_.size() > 0) for_each(ctx_, "poisson::cosine_rows_gather", box_of(mine_a_.shape()), CosineRowsGather<T>{in, rows});
      solve_cos2_rows();
      if (mine_a_.size() > 0) for_each(ctx_, "poisson::cosine_rows_scatter", box_of(mine_a_.shape()), CosineRowsScatter<T>{rows, out});
      if (!from_a_.identity()) from_a_(a, x);
    }
  }
  /// This rank's reordered rows of slab A (plan_cos2), null data where it has none.
  CosineSlabRows<T> cos_rows() { return cos2_ && mine_a_.size() > 0 ? slab_rows(rows_real_) : CosineSlabRows<T>{}; }
  /// Rows of this rank's slab A in plan_cos2's order, held in `a` (of rows_real_'s shape).
  CosineSlabRows<T> slab_rows(Array<T, 3>& a) {
    return {a.view().ptr, index_t(axes_[Rank - 1].eigenvalues.size()), cos_place_};
  }
  /// The reordered rows (cos_rows()) solved: their real FFTs along y, the transposes, the FFTs
  /// along x with the division, and the way back, into `solved` (rows of the same shape) where
  /// given, else in place.
  void solve_cos2_rows(View<T, 3> solved = {}) {
    if constexpr (Rank == 2) {
      const index_t n1 = index_t(axes_[0].eigenvalues.size()), n2 = index_t(axes_[1].eigenvalues.size());
      const View<T, 3> real = mine_a_.size() > 0 ? rows_real_.view() : View<T, 3>{};
      const View<T, 3> back = solved.ptr ? solved : real;
      const View<T, 3> sa = cos_spectrum_a(), sb = cos_spectrum_b();
      if (copies_) {  // (plan_cos2_copies)
        const View<T, 2> flat = flat_rows(sa);
        const int pieces = int(cos_parts_.size());
        if (mine_a_.size() > 0) rows_.forward(real);
        for (int k = 0; k < pieces; ++k) peer_.push_parts(flat, cos_parts_[std::size_t(k)], k);
        marks_.mark("row FFTs");
        for (int k = 0; k < pieces; ++k) {
          peer_.wait_pushed(k);
          peer_.barrier();  // every rank's piece k in this rank's slab B, and piece k - 1 solved on every rank
          if (k > 0) peer_.pull_parts(flat, cos_parts_[std::size_t(k - 1)], k - 1);
          solve_cos_columns(sb, n1, n2, k);
        }
        marks_.mark("the pieces' copies there, FFTs along x, divisions, inverses and copies back");
        peer_.barrier();  // the last piece solved on every rank
        peer_.pull_parts(flat, cos_parts_[std::size_t(pieces - 1)], pieces - 1);
        for (int k = 0; k < pieces; ++k) peer_.wait_pulled(k);
        marks_.mark("the last piece's copy back");
        if (mine_a_.size() > 0) rows_.inverse(back);
      } else {
        if (mine_a_.size() > 0) rows_.forward(real);
        if (transposed_) cos_spectrum_to_b(sa, sb);
        marks_.mark("row FFTs and the transposes to slabs B");
        solve_cos_columns(sb, n1, n2);
        marks_.mark("the FFTs along x, the division, their inverses");
        if (transposed_) cos_spectrum_from_b(sb, sa);
        if (mine_a_.size() > 0) rows_.inverse(back);
      }
    }
  }
  /// The complex FFT along x of this rank's columns of the half spectrum (sb, in slabs B), the
  /// division of each pair of rows and the inverse; reordered into Makhoul's order along x
  /// first (and back after) where the transposes did not.
  /// piece >= 0 (plan_cos2_copies): that piece of the columns alone.
  void solve_cos_columns(View<T, 3> sb, index_t n1, index_t n2, int piece = -1) {
    if (cos_b_box_.size() == 0) return;
    if (piece >= 0) {
      const index_t mine = cos_b_box_.extent(1), pieces = index_t(cos_x_parts_.size());
      const index_t c0 = mine * piece / pieces, c1 = mine * (piece + 1) / pieces;
      const View<T, 3> v = sb.sub(Box<3>{{0, c0, 0}, {n1, c1, 2}});
      const fft::BatchedComplexFft<T>& x = cos_x_parts_[std::size_t(piece)];
      x.forward(v);
      const Box<2> pairs{{0, 0}, {n1 / 2 + 1, c1 - c0}};
      for_each(ctx_, "poisson::cosine_columns_divide", pairs,
               CosineColumnsDivide<T>{v, cos_lx_.view(), cos_ly_.view(), cos_tw1_.view(), cos_tw2_.view(), n1, n2, n2 / 2 + 1,
                                      cos_b_box_.lo[1] + c0, 1.0 / (4.0 * double(n1) * double(n2))});
      x.inverse(v);
      return;
    }
    const bool reorder = transposed_ && !cos_reordered_;
    const View<T, 3> v = reorder ? cos_v_.view() : sb;
    const Box<3> all{{0, 0, 0}, {n1, cos_b_box_.extent(1), 2}};
    if (reorder) for_each(ctx_, "poisson::cosine_columns_reorder", all, CosineColumnsReorder<T>{sb, v, n1, false});
    cos_x_.forward(v);
    const Box<2> pairs{{0, 0}, {n1 / 2 + 1, cos_b_box_.extent(1)}};
    for_each(ctx_, "poisson::cosine_columns_divide", pairs,
             CosineColumnsDivide<T>{v, cos_lx_.view(), cos_ly_.view(), cos_tw1_.view(), cos_tw2_.view(), n1, n2, n2 / 2 + 1,
                                    cos_b_box_.lo[1], 1.0 / (4.0 * double(n1) * double(n2))});
    cos_x_.inverse(v);
    if (reorder) for_each(ctx_, "poisson::cosine_columns_reorder_back", all, CosineColumnsReorder<T>{v, sb, n1, true});
  }

  /// The 3D path for walls on y and z and slabs along x (see the top of this file; the
  /// transposes, the transforms along x and the division are the per-axis path's): the
  /// reordered planes, their batched 2D real FFT and the twiddles along y and z.
  void plan_cos_yz(const Context& ctx) {
    if constexpr (Rank == 3) {
      if (mine_a_.size() == 0) return;
      const index_t ny = mine_a_.extent(1), nz = mine_a_.extent(2);
      yz_ = fft::BatchedRealFft2<T>(ctx, mine_a_.shape()), yz_real_ = Array<T, Rank>(ctx, mine_a_.shape());
      cos_tw1_ = Array<double, 1>::from_host(ctx, extents(2 * ny), quarter_twiddles(ny));
      cos_tw2_ = Array<double, 1>::from_host(ctx, extents(2 * nz), quarter_twiddles(nz));
    }
  }
  /// (cos, sin)(pi k / 2n) side by side, k < n.
  static std::vector<double> quarter_twiddles(index_t n) {
    std::vector<double> t(static_cast<std::size_t>(2 * n));
    const double pi = 3.14159265358979323846;
    for (index_t k = 0; k < n; ++k)
      t[std::size_t(2 * k)] = std::cos(pi * double(k) / double(2 * n)), t[std::size_t(2 * k + 1)] = std::sin(pi * double(k) / double(2 * n));
    return t;
  }
  /// solve() on the path of plan_cos_yz.
  void solve_cos_yz(View<const T, Rank> b, View<T, Rank> x) {
    if constexpr (Rank == 3) {
      const View<T, 3> a = slabs_a_view(), s = slabs_b_view();
      View<const T, 3> in = b;
      if (!to_a_.identity()) to_a_(b, a), in = a;
      const index_t ny = mine_a_.extent(1), nz = mine_a_.extent(2);
      const View<T, 3> real = mine_a_.size() > 0 ? yz_real_.view() : View<T, 3>{};
      if (mine_a_.size() > 0) {  // (a is free once gathered: the coefficients go there)
        for_each(ctx_, "poisson::cosine_yz_gather", box_of(mine_a_.shape()), CosineYzGather<T>{in, real, ny, nz});
        yz_.forward(real);
        for_each(ctx_, "poisson::cosine_yz_coefficients", box_of(mine_a_.shape()),
                 CosineYzCoefficients<T>{yz_.spectrum(), a, cos_tw1_.view(), cos_tw2_.view(), ny, nz, nz / 2 + 1});
      }
      if (transposed_) a_to_b_[0](a, s);
      marks_.mark("cosine transforms over y,z and the transposes to slabs B");
      if (mine_b_.size() > 0) {
        forward_b_(s, s);
        divide(s);
        backward_b_(s, s);
      }
      marks_.mark("the transform along x, the division, its inverse");
      if (transposed_) b_to_a_[0](s, a);
      const View<T, 3> out = from_a_.identity() ? x : a;
      if (mine_a_.size() > 0) {
        const Box<3> modes{{0, 0, 0}, {mine_a_.extent(0), ny / 2 + 1, nz / 2 + 1}};
        for_each(ctx_, "poisson::cosine_yz_spectrum", modes,
                 CosineYzSpectrum<T>{a, yz_.spectrum(), cos_tw1_.view(), cos_tw2_.view(), ny, nz});
        yz_.inverse(real);
        for_each(ctx_, "poisson::cosine_yz_scatter", box_of(mine_a_.shape()), CosineYzScatter<T>{real, out, ny, nz});
      }
      if (!from_a_.identity()) from_a_(a, x);
    }
  }

  /// The 3D path for y and z periodic and slabs along x (see the top of this file): the
  /// spectrum's slabs, transposes, the transforms along x and the eigenvalues.
  void plan_yz(const Comm& comm, const Context& ctx, const TransformProblem<Rank>& problem) {
    const int ranks = comm.size(), me = comm.rank();
    const index_t nx = problem.cells[0], ny = problem.cells[1], nz = problem.cells[2];
    const index_t modes[Rank] = {nx, ny, 2 * (nz / 2 + 1)};  // the spectrum as reals
    std::vector<Box<Rank>> spectrum_a, spectrum_b;
    for (int r = 0; r < ranks; ++r)
      spectrum_a.push_back(slab_box<Rank>(modes, 0, ranks, r)), spectrum_b.push_back(slab_box<Rank>(modes, 1, ranks, r));
    spectrum_b_box_ = spectrum_b[std::size_t(me)];
    if (!to_a_.identity()) work_a_ = Array<T, Rank>(ctx, nonempty(mine_a_.shape()));  // the boxes moved to slabs A
    empty_ = Array<T, Rank>(ctx, nonempty(Extents<Rank>{}));
    if (mine_a_.size() > 0) yz_ = fft::BatchedRealFft2<T>(ctx, mine_a_.shape());
    // the copy engines on 2 ranks; on 4 the kernels measured faster (bench/results/2026-11-28-h200x4-multi-gpu)
    const std::string& path = tuning::current().transpose_path;
    const bool copies = path == "copies" || (path == "auto" && ranks == 2);
    // on 2 ranks by the copy engines with x periodic, each rank's buffer holds the whole spectrum
    // (2 slabs, as slabs A and B take apart): the 2D FFTs write in place and only the other
    // rank's parts move (PeerSlabs held in place: on one H200 the copy of a rank's own part beside
    // the FFTs cost about as long as itself; on 2 H200s the phases are bound by the link and the
    // solve measured the same, bench/results/2026-11-29-h200x2-multi-gpu)
    const Box<Rank> whole_spectrum{{0, 0, 0}, {modes[0], modes[1], modes[2]}};
    in_place_ = copies && ranks == 2 && axes_[0].forward == fft::Kind::r2hc;
    if (transposed_ && !plan_peer(comm, ctx, spectrum_a, spectrum_b, {}, in_place_ ? &whole_spectrum : nullptr)) {
      in_place_ = false;
      spectrum_b_ = Array<T, Rank>(ctx, nonempty(spectrum_b_box_.shape()));
      a_to_b_.emplace_back(comm, ctx, spectrum_a, spectrum_b);
      b_to_a_.emplace_back(comm, ctx, spectrum_b, spectrum_a);
    }
    // eigenvalues over h^2 by the slab's modes: x's transform order, the DFT's k along y
    // (TransformAxis's periodic eigenvalue of k is 2 - 2 cos(2 pi k / n)), k / 2 along z
    // (real and imaginary part of mode k side by side)
    const Box<Rank>& mine = spectrum_b_box_;
    std::array<std::vector<T>, Rank> l;
    for (int d = 0; d < Rank; ++d) l[std::size_t(d)].assign(std::size_t(mine.extent(d) > 0 ? mine.extent(d) : 1), T(0));
    for (index_t i = 0; i < mine.extent(0); ++i) l[0][std::size_t(i)] = T(axes_[0].eigenvalues[std::size_t(i)] * problem.inv_h2[0]);
    for (index_t j = 0; j < mine.extent(1); ++j)
      l[1][std::size_t(j)] = T(axes_[1].eigenvalues[std::size_t(mine.lo[1] + j)] * problem.inv_h2[1]);
    for (index_t k = 0; k < mine.extent(2); ++k) l[2][std::size_t(k)] = T(axes_[2].eigenvalues[std::size_t(k / 2)] * problem.inv_h2[2]);
    for (int d = 0; d < Rank; ++d)
      eigen_[std::size_t(d)] = Array<T, 1>::from_host(ctx, extents(index_t(l[std::size_t(d)].size())), l[std::size_t(d)]);
    inv_norm_ = T(1.0 / (double(fft::normalisation(axes_[0].forward, nx)) * double(ny) * double(nz)));
    x_complex_ = axes_[0].forward == fft::Kind::r2hc;  // the DFT along x: one complex FFT, its k's eigenvalue at k
    if (mine.size() > 0 && x_complex_) {
      x_fft_ = fft::BatchedComplexFft<T>(ctx, mine.shape(), in_place_ ? modes[1] * modes[2] : 0);
      // in double only: the division in cuFFT's Z2Z callback measured faster than its own pass,
      // in the C2C slower, as a load callback of the inverse (bench/results/2026-11-28-h200x2-multi-gpu)
      // and as a store callback of the forward; in the Z2Z the store callback beats the load
      // callback (bench/results/2026-11-29-h200-fft-callbacks)
      if (sizeof(T) == 8)
        x_divides_ = x_fft_.divide_in_forward(View<const T, 1>(eigen_[0].view()), View<const T, 1>(eigen_[1].view()),
                                              View<const T, 1>(eigen_[2].view()), inv_norm_);
    } else if (mine.size() > 0) {
      forward_b_ = fft::Transform<T, Rank>(ctx, axes_[0].forward, mine.shape(), 0);
      backward_b_ = fft::Transform<T, Rank>(ctx, axes_[0].backward, mine.shape(), 0);
    }
    if (peer_ && copies) plan_copies(ctx, spectrum_b);
  }
  /// The transposes by the copy engines, in pieces along x overlapping the 2D FFTs over y,z:
  /// the forward FFT of piece k runs while piece k - 1's values are copied into the other
  /// ranks' slabs B, and the inverse FFT of piece k while piece k + 1's are copied back (the
  /// copy engines leave the SMs to the FFTs; stores from a kernel would not,
  /// bench/results/2026-11-28-h200x2-multi-gpu). Pieces: the constructor's chunks where more than 1, else
  /// SIMKIT_TRANSPOSE_CHUNKS where set, else 8 (on 2 H200s the 512^3 solve took 3.50 ms in 4
  /// pieces, 3.42 in 8, 3.40 in 16); at most PeerSlabs::kMaxPieces, and the slab's planes.
  void plan_copies(const Context& ctx, const std::vector<Box<Rank>>& spectrum_b) {
    if constexpr (Rank == 3) {
      const long long knob = tuning::current().transpose_chunks;
      const index_t planes = mine_a_.extent(0);
      const index_t wanted = requested_chunks_ > 1 ? requested_chunks_ : knob > 0 ? index_t(knob) : 8;
      const index_t pieces = std::min<index_t>({planes, wanted, index_t(PeerSlabs<T, Rank>::kMaxPieces)});
      copy_bounds_.clear(), yz_pieces_.clear();
      for (index_t k = 0; k <= pieces && planes > 0; ++k) copy_bounds_.push_back(planes * k / pieces);
      // the pieces' FFTs share one spectrum (held in place: this rank's slab A of the peer
      // buffer); yz_'s plans (and their work areas) are let go
      if (planes > 0 && !in_place_) copy_spectrum_ = Array<T, Rank>(ctx, fft::BatchedRealFft2<T>::spectrum_shape(mine_a_.shape()));
      yz_ = fft::BatchedRealFft2<T>();
      const View<T, Rank> sa = in_place_ ? peer_.from_view() : copy_spectrum_.view();
      for (index_t k = 0; k < pieces && planes > 0; ++k) {
        Extents<3> e = mine_a_.shape();
        e.n[0] = copy_bounds_[std::size_t(k + 1)] - copy_bounds_[std::size_t(k)];
        yz_pieces_.emplace_back(ctx, e, sa.ptr + copy_bounds_[std::size_t(k)] * sa.stride[0]);
      }
      copies_ = true;
      if (x_complex_ && tuning::current().copies_back == "columns") plan_back_by_columns(ctx, spectrum_b, wanted);
    }
  }
  /// SIMKIT_COPIES_BACK=columns: the way back in pieces of every rank's slab B along y, each
  /// copied back while the ranks transform the next along x (the inverse 2D FFTs after them
  /// all): this rank's FFTs along x, one plan a piece (the float64 division in each forward's
  /// callback, as x_fft_'s), and every rank's pieces. At most `wanted` pieces, PeerSlabs'
  /// kMaxPieces and the fewest rows along y of a rank that has any.
  void plan_back_by_columns(const Context& ctx, const std::vector<Box<Rank>>& spectrum_b, index_t wanted) {
    index_t pieces = std::min<index_t>(wanted, index_t(PeerSlabs<T, Rank>::kMaxPieces));
    for (const Box<Rank>& b : spectrum_b)
      if (b.size() > 0) pieces = std::min(pieces, b.extent(1));
    back_parts_.assign(std::size_t(pieces), {});
    for (index_t k = 0; k < pieces; ++k)
      for (const Box<Rank>& b : spectrum_b) {
        Box<Rank> part = b;
        part.lo[1] = b.lo[1] + b.extent(1) * k / pieces, part.hi[1] = b.lo[1] + b.extent(1) * (k + 1) / pieces;
        back_parts_[std::size_t(k)].push_back(part);
      }
    x_fft_parts_.clear();
    const Box<Rank>& mine = spectrum_b_box_;
    for (index_t k = 0; k < pieces && mine.size() > 0; ++k) {
      const index_t y0 = mine.extent(1) * k / pieces, y1 = mine.extent(1) * (k + 1) / pieces;
      const View<T, Rank> sb = spectrum_b_view();
      fft::BatchedComplexFft<T> x(ctx, extents(mine.extent(0), y1 - y0, mine.extent(2)), sb.stride[0]);
      if (x_divides_)
        x.divide_in_forward(View<const T, 1>(eigen_[0].view()), View<const T, 1>(eigen_[1].view().sub(Box<1>{{y0}, {y1}})),
                            View<const T, 1>(eigen_[2].view()), inv_norm_);
      x_fft_parts_.push_back(x);
    }
    x_fft_ = fft::BatchedComplexFft<T>();  // (the whole slab's plan and its work area: this path transforms by pieces)
  }
  /// Piece k of this rank's slab B (sb) along y (plan_back_by_columns): the FFT along x, the division, its inverse.
  void solve_along_x_piece(View<T, Rank> sb, int k) {
    if constexpr (Rank == 3) {
      if (spectrum_b_box_.size() == 0) return;
      const index_t ny = spectrum_b_box_.extent(1), pieces = index_t(x_fft_parts_.size());
      const index_t y0 = ny * k / pieces, y1 = ny * (k + 1) / pieces;
      const View<T, Rank> v = sb.sub(Box<Rank>{{0, y0, 0}, {sb.shape.n[0], y1, sb.shape.n[2]}});
      const fft::BatchedComplexFft<T>& x = x_fft_parts_[std::size_t(k)];
      x.forward(v);
      if (!x_divides_) {
        const auto f = SlabDividePairs3<T>::over(v, eigen_[0].view(), eigen_[1].view().sub(Box<1>{{y0}, {y1}}), eigen_[2].view(), inv_norm_);
        for_each(ctx_, "poisson::slab_divide_pairs", f.calls(), f);
      }
      x.inverse(v);
    }
  }
  /// This rank's part of the spectrum in slabs A (split along x) and B (split along y).
  View<T, Rank> spectrum_a_view() {
    if constexpr (Rank == 3)
      if (mine_a_.size() > 0) return in_place_ ? peer_.from_view() : copies_ ? copy_spectrum_.view() : yz_.spectrum();
    return empty_.view().sub(Box<Rank>{});
  }
  View<T, Rank> spectrum_b_view() {
    if (!transposed_) return spectrum_a_view();
    if (spectrum_b_box_.size() == 0) return empty_.view().sub(Box<Rank>{});
    return peer_ ? peer_.local() : spectrum_b_.view().sub(whole(spectrum_b_box_));
  }
  /// The spectrum's transposes between slabs A (sa) and B (sb): the peer kernels, else the all-to-alls.
  void to_spectrum_b(View<T, Rank> sa, View<T, Rank> sb) {
    if (peer_) peer_.scatter(sa);
    else a_to_b_[0](sa, sb);
  }
  void from_spectrum_b(View<T, Rank> sb, View<T, Rank> sa) {
    if (peer_) peer_.gather(sa);
    else b_to_a_[0](sb, sa);
  }
  /// The transform along x of this rank's slab B of the spectrum (sb), the division by the
  /// eigenvalues and the inverse transform.
  void solve_along_x(View<T, Rank> sb) {
    if (spectrum_b_box_.size() > 0 && x_complex_) {
      x_fft_.forward(sb);  // (dividing as it stores where x_divides_)
      if (!x_divides_) divide_pairs(sb);
      x_fft_.inverse(sb);
    } else if (spectrum_b_box_.size() > 0) {
      forward_b_(sb, sb);
      divide_pairs(sb);
      backward_b_(sb, sb);
    }
  }
  /// divide() on plan_yz's spectrum (complex numbers along z as pairs of reals).
  void divide_pairs(View<T, Rank> s) {
    if constexpr (Rank == 3)
      if (s.size() > 0) {
        const auto f = SlabDividePairs3<T>::over(s, eigen_[0].view(), eigen_[1].view(), eigen_[2].view(), inv_norm_);
        for_each(ctx_, "poisson::slab_divide_pairs", f.calls(), f);
      }
  }
  /// The planes [lo, hi) along x of a slab A (a box of this rank's slab A's shape).
  Box<Rank> planes(index_t lo, index_t hi) const {
    Box<Rank> b = whole(mine_a_);
    b.lo[0] = lo, b.hi[0] = hi;
    return b;
  }
  /// solve() on the path of plan_yz.
  void solve_yz(View<const T, Rank> b, View<T, Rank> x) {
    if constexpr (Rank == 3) {
      View<const T, Rank> in = b;
      const View<T, Rank> a = to_a_.identity() ? View<T, Rank>{} : slabs_a_view();
      if (!to_a_.identity()) to_a_(b, a), in = a;
      const View<T, Rank> sa = spectrum_a_view(), sb = spectrum_b_view();
      if (copies_) {  // (plan_copies)
        const View<T, Rank> out = from_a_.identity() ? x : a;
        for (std::size_t k = 0; k < yz_pieces_.size(); ++k) {
          const index_t lo = copy_bounds_[k], hi = copy_bounds_[k + 1];
          yz_pieces_[k].forward(in.sub(planes(lo, hi)));
          peer_.push(sa, lo, hi);
        }
        peer_.join();
        marks_.mark("2D FFTs over y,z and the pushes to slabs B");
        peer_.barrier();  // every rank's pieces in this rank's slab B
        marks_.mark("the wait for every rank's pushes");
        if (!back_parts_.empty()) {  // (plan_back_by_columns)
          for (std::size_t k = 0; k < back_parts_.size(); ++k) {
            solve_along_x_piece(sb, int(k));
            peer_.barrier();  // piece k of every rank's slab B solved
            peer_.pull_parts(sa, back_parts_[k], int(k));
          }
          marks_.mark("the transform along x, the division, its inverse in pieces, each copied back beside the next");
          for (std::size_t k = 0; k < back_parts_.size(); ++k) peer_.wait_pulled(int(k));
          marks_.mark("the wait for the last piece");
          for (std::size_t k = 0; k < yz_pieces_.size(); ++k)
            yz_pieces_[k].inverse(out.sub(planes(copy_bounds_[k], copy_bounds_[k + 1])));
          if (!from_a_.identity()) from_a_(a, x);
          return;
        }
        solve_along_x(sb);
        marks_.mark("the transform along x, the division, its inverse");
        peer_.barrier();  // every rank's slab B solved
        marks_.mark("the wait for every rank's slab B");
        peer_.pull(sa, copy_bounds_);
        for (std::size_t k = 0; k < yz_pieces_.size(); ++k) {
          peer_.wait_pulled(int(k));
          yz_pieces_[k].inverse(out.sub(planes(copy_bounds_[k], copy_bounds_[k + 1])));
        }
        if (!from_a_.identity()) from_a_(a, x);
        return;
      }
      if (mine_a_.size() > 0) yz_.forward(in);
      if (transposed_) to_spectrum_b(sa, sb);
      marks_.mark("2D FFTs over y,z and the transposes to slabs B");
      solve_along_x(sb);
      marks_.mark("the transform along x, the division, its inverse");
      if (transposed_) from_spectrum_b(sb, sa);
      const View<T, Rank> out = from_a_.identity() ? x : a;
      if (mine_a_.size() > 0) yz_.inverse(out);
      if (!from_a_.identity()) from_a_(a, x);
    }
  }

  Context ctx_;
  StreamMarks marks_;  // mark_phases
  int a_ = 0, b_ = 1, ranks_ = 1, chunks_ = 1, requested_chunks_ = 0;  // (requested: the constructor's chunks)
  bool transposed_ = false;  // several ranks: slabs A and B differ
  bool yz_fft_ = false;      // the path of plan_yz
  std::vector<TransformAxis> axes_;
  Redistribution<T, Rank> to_a_, from_a_;
  std::vector<Redistribution<T, Rank>> a_to_b_, b_to_a_;  // per piece of slabs A
  Array<T, Rank> work_a_, work_b_;
  Box<Rank> mine_a_{}, mine_b_{};
  std::vector<Box<Rank>> chunk_;  // this rank's pieces of slabs A, relative to its slab
  std::array<Array<T, 1>, Rank> eigen_;
  T inv_norm_ = 1;
  std::vector<std::vector<fft::Transform<T, Rank>>> forward_a_, backward_a_;  // per piece: along every axis but a
  fft::Transform<T, Rank> forward_b_, backward_b_;                            // along a
  fft::BatchedRealFft2<T> yz_;          // plan_yz, plan_cos_yz: over y and z in slabs A
  bool cos_yz_ = false;                 // the path of plan_cos_yz (3D, walls on y and z)
  Array<T, Rank> yz_real_;              // plan_cos_yz: slabs A reordered along y and z
  bool cos2_ = false;                   // the path of plan_cos2 (2D, walls all round)
  fft::BatchedRealFft2<T> rows_;        // plan_cos2: the real FFTs of slabs A's rows
  Array<T, 3> rows_real_, cos_b_, cos_v_, cos_empty_;  // plan_cos2: reordered rows; the spectrum's slab B, reordered
  Array<T, 3> cos_staged_out_;          // plan_cos2, boxes that are slabs A: solve_staged()'s solution
  bool cos_reordered_ = false;          // plan_cos2: the peer moves place the rows in Makhoul's order along x
  SlabRowPlace cos_place_;              // plan_cos2: where the gather puts slab A's rows
  std::vector<std::vector<Box<Rank>>> cos_parts_;     // plan_cos2_copies: piece k of every rank's columns (as reals)
  std::vector<fft::BatchedComplexFft<T>> cos_x_parts_;  // plan_cos2_copies: along x in each piece of this rank's columns
  Array<T, 3> cos_copy_spectrum_;       // plan_cos2_copies: this rank's half spectrum in slabs A
  Redistribution<T, 3> cos_to_b_, cos_back_;           // plan_cos2: the half spectrum's transposes
  fft::BatchedComplexFft<T> cos_x_;     // plan_cos2: along x in slabs B
  Array<double, 1> cos_lx_, cos_ly_, cos_tw1_, cos_tw2_;  // plan_cos2: eigenvalues over h^2, twiddles (plan_cos_yz: along y and z)
  Box<3> cos_b_box_{};                  // plan_cos2: this rank's part of the half spectrum in slabs B
  bool x_complex_ = false;              // plan_yz: x periodic, transformed by x_fft_
  fft::BatchedComplexFft<T> x_fft_;     // plan_yz: along x in slabs B of the spectrum
  std::vector<std::vector<Box<Rank>>> back_parts_;    // plan_back_by_columns: piece k of every rank's slab B along y
  std::vector<fft::BatchedComplexFft<T>> x_fft_parts_;  // plan_back_by_columns: along x in each piece of this rank's slab B
  bool x_divides_ = false;              // plan_yz: x_fft_'s forward divides by the eigenvalues as it stores (cuFFT's callback)
  Array<T, Rank> spectrum_b_, empty_;   // plan_yz: the spectrum in slabs B; a stand-in for empty slabs
  Box<Rank> spectrum_b_box_{};          // plan_yz: this rank's part of the spectrum in slabs B
  PeerSlabs<T, Rank> peer_;             // plan_yz, plan_cos2 between GPUs of one host: slabs B of the spectrum, the kernels moving it
  bool copies_ = false;                 // plan_copies: the transposes by the copy engines, in pieces beside the 2D FFTs
  bool in_place_ = false;               // plan_yz: peer_ held in place (the whole spectrum on each of 2 ranks)
  std::vector<index_t> copy_bounds_;    // plan_copies: the pieces' planes along x in slab A
  std::vector<fft::BatchedRealFft2<T>> yz_pieces_;  // plan_copies: the 2D FFTs over y,z of each piece, into copy_spectrum_
  Array<T, Rank> copy_spectrum_;        // plan_copies: this rank's part of the spectrum in slabs A
  std::string peer_why_;                // why peer_ is not planned on GPUs ("" where it is, or cannot apply)
};

}  // namespace sim::solvers
