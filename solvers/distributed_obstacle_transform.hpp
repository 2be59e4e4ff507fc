#pragma once
// The exact solve of the pressure equation around obstacles (obstacle_transform_poisson.hpp's
// capacitance method) on a box split over ranks, one box per rank, in 2D and 3D. The box
// solves A0^-1 are the distributed transform solve's (distributed_transform.hpp); the rest is
// the one-rank method's, with the k surface cells spread over the ranks:
//   y = A0^-1 b (distributed);  v = P^T y: each rank gathers the surface cells it owns into a
//   vector of k values, zeros elsewhere, and the vectors are summed over the ranks (one small
//   all-reduce: every entry has one nonzero term, so the sum is exact, the same bits on every
//   rank and in any order);  u = K v on every rank alike;  each rank subtracts u at its own
//   surface cells;  x = A0^-1 (b - P u) (distributed).
// Without a Dirichlet side, b's fluid mean is summed over the ranks first (a second all-reduce
// of one value) and the mean of x is u's last entry, the same on every rank. K is built once
// from k distributed box solves in double (columns of G = P^T A0^-1 P, each rank's rows
// gathered in rank order); rank 0 factorises and every rank takes its K, so K is the same bits
// everywhere. A solve is fixed work: two distributed solves, one or two all-reduces of k
// values, one k x k matrix-vector product; between GPUs with NCCL nothing waits for the host.
#include <memory>
#include <string>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/distributed/rank_reduction.hpp"
#include "core/kernels/for_each.hpp"
#include "core/kernels/reduce_async.hpp"
#include "core/kernels/reduce_ops.hpp"
#include "core/numerics/linalg.hpp"
#include "solvers/distributed_transform.hpp"
#include "solvers/obstacle_transform_poisson.hpp"

namespace sim::solvers {

/// v(m) = y at this rank's cell local[m] (flat index into its box), 0 where another rank owns cell m (local[m] < 0).
template <class T>
struct GatherOwnedSurface {
  const T* y;
  const index_t* local;
  T* v;
  SIM_INLINE void operator()(index_t m) const { v[m] = local[m] >= 0 ? y[local[m]] : T(0); }
};

/// z at this rank's cell local[m] -= u(m), for the surface cells this rank owns.
template <class T>
struct ScatterOwnedSurface {
  T* z;
  const index_t* local;
  const T* u;
  SIM_INLINE void operator()(index_t m) const {
    if (local[m] >= 0) z[local[m]] -= u[m];
  }
};

/// The exact solve of the masked operator A x = b around obstacles on a box split over ranks.
template <class T, int Rank>
class DistributedObstacleTransformPoisson {
 public:
  DistributedObstacleTransformPoisson() = default;
  /// The solver of box with obstacle cells where mask (the whole box, row-major, 1 fluid,
  /// 0 solid; the same on every rank) is 0, on comm's ranks, rank r holding boxes[r] (global
  /// indices, none empty), on ctx (collective). Throws Error (on every rank alike) when
  /// obstacle_transform_unsupported says why not or the capacitance matrix is singular.
  DistributedObstacleTransformPoisson(const Comm& comm, const Context& ctx, const TransformBox<Rank>& box,
                                      const std::vector<T>& mask, const std::vector<Box<Rank>>& boxes)
      : ctx_(ctx), box_(box) {
    if (const std::string why = obstacle_transform_unsupported(box, mask); !why.empty())
      throw Error("the obstacle transform solver: " + why);
    if (int(boxes.size()) != comm.size())
      throw Error("the obstacle transform solver: " + std::to_string(boxes.size()) + " boxes for " +
                  std::to_string(comm.size()) + " ranks");
    for (const Box<Rank>& b : boxes)
      if (b.size() == 0) throw Error("the obstacle transform solver: a rank's box is empty; use fewer ranks");
    const CutFaces cf = cut_faces(box, mask);
    surface_ = index_t(cf.cells.size());
    singular_ = box.singular();
    fluid_cells_ = cf.fluid_cells;
    rows_ = surface_ + (singular_ ? 1 : 0);
    mine_ = boxes[std::size_t(comm.rank())];
    TransformProblem<Rank> problem;
    for (int d = 0; d < Rank; ++d) problem.cells[d] = box.n[d], problem.inv_h2[d] = box.inv_h2[d];
    for (int s = 0; s < 2 * Rank; ++s) problem.sides[s] = box.sides[s];
    box_solve_ = std::make_unique<DistributedTransformPoisson<T, Rank>>(comm, ctx, problem, boxes);
    rank_sum_ = RankReduction(comm, ctx);
    const Extents<Rank> shape = mine_.shape();
    std::vector<T> local_mask(std::size_t(mine_.size()));
    for (index_t a = 0; a < mine_.size(); ++a) local_mask[std::size_t(a)] = mask[std::size_t(global_of(a))];
    mask_ = Array<T, Rank>::from_host(ctx, shape, local_mask);
    z_ = Array<T, Rank>::zeros(ctx, shape), y_ = Array<T, Rank>::zeros(ctx, shape);
    std::vector<index_t> local(std::size_t(rows_), -1);
    for (index_t m = 0; m < surface_; ++m) {
      local[std::size_t(m)] = local_of(cf.cells[std::size_t(m)]);
      owned_ += local[std::size_t(m)] >= 0;
    }
    local_ = Array<index_t, 1>::from_host(ctx, extents(rows_), local);
    v_ = Array<T, 1>::zeros(ctx, extents(rows_)), u_ = Array<T, 1>::zeros(ctx, extents(rows_));
    build_correction(comm, cf, local, boxes);
    if (singular_) sum_ = AsyncReduction<double>(ctx), sum_slot_ = Array<double, 1>::zeros(ctx, extents(1));
    Array<T, Rank> zero = Array<T, Rank>::zeros(ctx, shape), out(ctx, shape);
    solve(zero.view(), out.view());  // sizes the reduction's scratch and connects the ranks now, not in a step
    ctx.synchronize();
  }

  /// x = the solution of A x = b on this rank's box (b and x: views of its shape, e.g. a
  /// Field's interior; b made mean-free on the fluid cells first when A is singular);
  /// collective, asynchronous where the transport is.
  void solve(View<const T, Rank> b, View<T, Rank> x) {
    const Box<Rank> all = mask_.box();
    const double* sum = nullptr;
    if (singular_) {
      sum_.queue_into("poisson::obstacle_fluid_sum", all, FluidPart<T, Rank>{b, mask_.view()}, ops::Plus{}, 0.0,
                      sum_slot_.data());
      rank_sum_.sum(sum_slot_.data(), 1);
      sum = sum_slot_.data();
    }
    for_each(ctx_, "poisson::obstacle_rhs", all, ObstacleRhs<T, Rank>{b, mask_.view(), z_.view(), sum, double(fluid_cells_)});
    box_solve_->solve(View<const T, Rank>(z_.view()), y_.view());
    for_each(ctx_, "poisson::obstacle_gather_owned", Box<1>{{0}, {rows_}},
             GatherOwnedSurface<T>{y_.data(), local_.data(), v_.data()});
    rank_sum_.sum(v_.data(), std::size_t(rows_));
    matvec<T>(ctx_, View<const T, 2>(k_.view()), View<const T, 1>(v_.view()), u_.view());
    for_each(ctx_, "poisson::obstacle_scatter_owned", Box<1>{{0}, {surface_}},
             ScatterOwnedSurface<T>{z_.data(), local_.data(), u_.data()});
    box_solve_->solve(View<const T, Rank>(z_.view()), x);
    for_each(ctx_, "poisson::obstacle_finish", all,
             ObstacleFinish<T, Rank>{x, b, mask_.view(), singular_ ? u_.data() + surface_ : nullptr});
  }

  /// Cells touching the obstacle's surface (k, over all ranks).
  index_t surface_cells() const { return surface_; }
  /// Of those, the cells in this rank's box.
  index_t owned_surface_cells() const { return owned_; }
  /// The distributed transforms and the correction, e.g. "DCT-II/III x real DFT, slabs along x
  /// then y over 2 ranks (MPI all-to-all) with a capacitance correction of 180 surface cells, their values summed over
  /// the ranks by MPI".
  std::string description() const {
    return box_solve_->description() + " with a capacitance correction of " + std::to_string(surface_) +
           " surface cells, their values summed over the ranks by " + rank_sum_.transport();
  }

 private:
  /// The global row-major index of the cell at flat index a of this rank's box.
  index_t global_of(index_t a) const {
    index_t g = 0, rest = a, local_stride = mine_.size();
    for (int d = 0; d < Rank; ++d) {
      local_stride /= mine_.extent(d);
      const index_t i = rest / local_stride;
      rest -= i * local_stride;
      g = g * box_.n[d] + mine_.lo[d] + i;
    }
    return g;
  }
  /// The flat index in this rank's box of the global cell g (row-major), -1 when outside it.
  index_t local_of(index_t g) const { return local_of_on(mine_, g); }

  /// K from G = P^T A0^-1 P: column m from a distributed double box solve of e_m, each rank's
  /// rows of G gathered in rank order; rank 0 factorises, every rank takes its K.
  void build_correction(const Comm& comm, const CutFaces& cf, const std::vector<index_t>& local,
                        const std::vector<Box<Rank>>& boxes) {
    const index_t k = surface_;
    TransformProblem<Rank> problem;
    for (int d = 0; d < Rank; ++d) problem.cells[d] = box_.n[d], problem.inv_h2[d] = box_.inv_h2[d];
    for (int s = 0; s < 2 * Rank; ++s) problem.sides[s] = box_.sides[s];
    DistributedTransformPoisson<double, Rank> solver(comm, ctx_, problem, boxes);
    const Extents<Rank> shape = mine_.shape();
    Array<double, Rank> e = Array<double, Rank>::zeros(ctx_, shape), y(ctx_, shape);
    Array<index_t, 1> cells = Array<index_t, 1>::from_host(ctx_, extents(k), std::vector<index_t>(local.begin(), local.begin() + k));
    Array<double, 2> gt(ctx_, extents(k, k));  // row m: column m of G over this rank's surface cells, 0 elsewhere
    for (index_t m = 0; m < k; ++m) {
      const index_t cell = local[std::size_t(m)];
      if (cell >= 0) for_each(ctx_, "poisson::obstacle_unit", Box<1>{{0}, {1}}, SetOne<double>{e.data(), cell, 1.0});
      solver.solve(View<const double, Rank>(e.view()), y.view());
      if (cell >= 0) for_each(ctx_, "poisson::obstacle_unit", Box<1>{{0}, {1}}, SetOne<double>{e.data(), cell, 0.0});
      for_each(ctx_, "poisson::obstacle_green", Box<1>{{0}, {k}},
               GatherOwnedSurface<double>{y.data(), cells.data(), gt.data() + m * k});
    }
    const std::vector<double> columns = gt.to_host();
    std::vector<double> mine;  // G's rows of this rank's surface cells: G(r, m) is gt(m, r)
    for (index_t r = 0; r < k; ++r)
      if (local[std::size_t(r)] >= 0)
        for (index_t m = 0; m < k; ++m) mine.push_back(columns[std::size_t(m * k + r)]);
    const std::vector<double> rows = comm.allgather(mine);  // in rank order: each rank's rows ascending
    std::vector<index_t> owner(static_cast<std::size_t>(k), 0);
    for (int r = 0; r < comm.size(); ++r)
      for (index_t m = 0; m < k; ++m)
        if (local_of_on(boxes[std::size_t(r)], cf.cells[std::size_t(m)]) >= 0) owner[std::size_t(m)] = r;
    std::vector<double> g(std::size_t(k * k));
    std::size_t at = 0;
    for (int r = 0; r < comm.size(); ++r)
      for (index_t m = 0; m < k; ++m)
        if (owner[std::size_t(m)] == r)
          for (index_t col = 0; col < k; ++col) g[std::size_t(m * k + col)] = rows[at++];
    std::vector<double> kh;
    std::string failure;
    if (comm.rank() == 0) {
      try {
        kh = capacitance_correction(ctx_, cf, g, singular_, box_.inv_h2[0]);
      } catch (const Error& err) {
        failure = err.what();
      }
    }
    failure = comm.broadcast(failure);
    if (!failure.empty()) throw Error(failure);
    kh = comm.allgather(kh);  // rank 0's K on every rank (the others send none)
    k_ = Array<T, 2>::from_host(ctx_, extents(rows_, rows_), std::vector<T>(kh.begin(), kh.end()));
  }
  /// The flat index in box b of the global cell g, -1 when outside it.
  index_t local_of_on(const Box<Rank>& b, index_t g) const {
    index_t at[Rank];
    for (int d = Rank - 1; d >= 0; --d) at[d] = g % box_.n[d], g /= box_.n[d];
    index_t a = 0;
    for (int d = 0; d < Rank; ++d) {
      if (at[d] < b.lo[d] || at[d] >= b.hi[d]) return -1;
      a = a * b.extent(d) + at[d] - b.lo[d];
    }
    return a;
  }

  Context ctx_;
  TransformBox<Rank> box_;
  Box<Rank> mine_{};
  index_t surface_ = 0, rows_ = 0, fluid_cells_ = 0, owned_ = 0;
  bool singular_ = false;
  std::unique_ptr<DistributedTransformPoisson<T, Rank>> box_solve_;
  RankReduction rank_sum_;
  Array<T, Rank> mask_, z_, y_;
  Array<index_t, 1> local_;
  Array<T, 1> v_, u_;
  Array<T, 2> k_;
  AsyncReduction<double> sum_;
  Array<double, 1> sum_slot_;
};

}  // namespace sim::solvers
