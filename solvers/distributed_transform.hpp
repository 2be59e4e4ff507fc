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
// order. When no side is Dirichlet the constant mode is dropped (zero mean).
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/array/expr.hpp"
#include "core/distributed/decomposition.hpp"
#include "core/distributed/redistribute.hpp"
#include "core/kernels/for_each.hpp"
#include "core/numerics/fft.hpp"
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

template <class T, int Rank>
class DistributedTransformPoisson {
  static_assert(Rank == 2 || Rank == 3, "the distributed transform solver is 2D or 3D");

 public:
  DistributedTransformPoisson() = default;
  /// The solver of problem on comm's ranks, rank r holding boxes[r] (global indices), on ctx
  /// (collective). Throws Error when distributed_transform_unsupported(problem) is not "".
  DistributedTransformPoisson(const Comm& comm, const Context& ctx, const TransformProblem<Rank>& problem,
                              const std::vector<Box<Rank>>& boxes)
      : ctx_(ctx) {
    const std::string why = distributed_transform_unsupported(problem);
    if (!why.empty()) throw Error("transform solver: " + why);
    const int ranks = comm.size();
    index_t cells[Rank];
    for (int d = 0; d < Rank; ++d) cells[d] = problem.cells[d];
    a_ = slab_axis(boxes, cells);
    b_ = a_ == 0 ? 1 : 0;
    std::vector<Box<Rank>> slabs_a, slabs_b;
    for (int r = 0; r < ranks; ++r)
      slabs_a.push_back(slab_box<Rank>(cells, a_, ranks, r)), slabs_b.push_back(slab_box<Rank>(cells, b_, ranks, r));
    to_a_ = Redistribution<T, Rank>(comm, ctx, boxes, slabs_a);
    a_to_b_ = Redistribution<T, Rank>(comm, ctx, slabs_a, slabs_b);
    b_to_a_ = Redistribution<T, Rank>(comm, ctx, slabs_b, slabs_a);
    from_a_ = Redistribution<T, Rank>(comm, ctx, slabs_a, boxes);
    const Box<Rank> mine_a = slabs_a[std::size_t(comm.rank())], mine_b = slabs_b[std::size_t(comm.rank())];
    work_a_ = Array<T, Rank>(ctx, nonempty(mine_a.shape()));
    work_b_ = a_to_b_.identity() ? Array<T, Rank>() : Array<T, Rank>(ctx, nonempty(mine_b.shape()));
    double norm = 1;
    for (int d = 0; d < Rank; ++d) {
      axes_.emplace_back(problem.sides[2 * d], problem.sides[2 * d + 1], cells[d]);
      norm *= double(fft::normalisation(axes_[std::size_t(d)].forward, cells[d]));
      // the eigenvalues of this rank's part of slabs B along d, over h^2
      std::vector<T> l(std::size_t(mine_b.extent(d) > 0 ? mine_b.extent(d) : 1), T(0));
      for (index_t i = 0; i < mine_b.extent(d); ++i)
        l[std::size_t(i)] = T(axes_[std::size_t(d)].eigenvalues[std::size_t(mine_b.lo[d] + i)] * problem.inv_h2[d]);
      eigen_[d] = Array<T, 1>::from_host(ctx, extents(index_t(l.size())), l);
    }
    inv_norm_ = T(1.0 / norm);
    if (mine_a.size() > 0)
      for (int d = 0; d < Rank; ++d)
        if (d != a_) {
          forward_a_.emplace_back(ctx, axes_[std::size_t(d)].forward, mine_a.shape(), d);
          backward_a_.emplace_back(ctx, axes_[std::size_t(d)].backward, mine_a.shape(), d);
        }
    if (mine_b.size() > 0) {
      forward_b_ = fft::Transform<T, Rank>(ctx, axes_[std::size_t(a_)].forward, mine_b.shape(), a_);
      backward_b_ = fft::Transform<T, Rank>(ctx, axes_[std::size_t(a_)].backward, mine_b.shape(), a_);
    }
    mine_b_ = mine_b;
    ranks_ = ranks;
  }

  /// x = the solution of A x = b on this rank's box (b and x: views of its shape, e.g. a
  /// Field's interior); collective, asynchronous where the transport is.
  void solve(View<const T, Rank> b, View<T, Rank> x) {
    View<T, Rank> a = work_a_.view().sub(to_a_.to_box().size() > 0 ? whole(to_a_.to_box()) : Box<Rank>{});
    View<const T, Rank> in = b;
    if (!to_a_.identity()) to_a_(b, a), in = a;
    // forward along every axis but a, in slabs A (the first from b when b is slabs A already;
    // none on a rank whose slab is empty)
    for (std::size_t t = 0; t < forward_a_.size(); ++t) forward_a_[t](t == 0 ? in : View<const T, Rank>(a), a);
    View<T, Rank> s = a;
    if (!a_to_b_.identity()) s = work_b_.view().sub(whole(mine_b_)), a_to_b_(a, s);
    if (mine_b_.size() > 0) {
      forward_b_(s, s);
      divide(s);
      backward_b_(s, s);
    }
    if (!b_to_a_.identity()) b_to_a_(s, a);
    // inverse along the other axes, in reverse order; the last straight into x when x is slabs A
    const std::size_t n = backward_a_.size();
    for (std::size_t t = 0; t < n; ++t) {
      const bool last = t + 1 == n;
      backward_a_[n - 1 - t](a, last && from_a_.identity() ? x : a);
    }
    if (!from_a_.identity()) from_a_(a, x);
  }

  /// The transforms and the layout, e.g. "DCT-II/III x real DFT, slabs along x then y over 2 ranks (NCCL)".
  std::string description() const {
    static const char* names[3] = {"x", "y", "z"};
    std::string s;
    for (int d = 0; d < Rank; ++d) s += (d ? " x " : "") + std::string(axes_[std::size_t(d)].label());
    return s + ", slabs along " + names[a_] + " then " + names[b_] + " over " + std::to_string(ranks_) + " ranks (" +
           a_to_b_.transport() + " all-to-all)";
  }
  /// The transposes of one solve: box/slab moves that are not local copies, and slabs A <-> B.
  int transposes() const { return 2 + (to_a_.identity() ? 0 : 1) + (from_a_.identity() ? 0 : 1); }
  /// The slab transposes (for benchmarks: run them alone to time them).
  const Redistribution<T, Rank>& a_to_b() const { return a_to_b_; }
  const Redistribution<T, Rank>& b_to_a() const { return b_to_a_; }
  /// This rank's part of slabs A and B as arrays of their shapes (benchmark data for a_to_b / b_to_a).
  View<T, Rank> slabs_a_view() { return work_a_.view().sub(whole(a_to_b_.from_box())); }
  View<T, Rank> slabs_b_view() { return a_to_b_.identity() ? slabs_a_view() : work_b_.view().sub(whole(mine_b_)); }

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
  void divide(View<T, Rank> s) {
    if constexpr (Rank == 2)
      for_each(ctx_, "poisson::slab_divide", whole(mine_b_), SlabDivide2<T>{s, eigen_[0].view(), eigen_[1].view(), inv_norm_});
    else
      for_each(ctx_, "poisson::slab_divide", whole(mine_b_),
               SlabDivide3<T>{s, eigen_[0].view(), eigen_[1].view(), eigen_[2].view(), inv_norm_});
  }

  Context ctx_;
  int a_ = 0, b_ = 1, ranks_ = 1;
  std::vector<TransformAxis> axes_;
  Redistribution<T, Rank> to_a_, a_to_b_, b_to_a_, from_a_;
  Array<T, Rank> work_a_, work_b_;
  Box<Rank> mine_b_{};
  std::array<Array<T, 1>, Rank> eigen_;
  T inv_norm_ = 1;
  std::vector<fft::Transform<T, Rank>> forward_a_, backward_a_;  // along every axis but a
  fft::Transform<T, Rank> forward_b_, backward_b_;               // along a
};

}  // namespace sim::solvers
