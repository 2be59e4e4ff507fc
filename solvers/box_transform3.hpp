#pragma once
// The exact transform solve of a 3D box on one rank, by the fastest path its sides allow: with
// walls on y and z, the distributed transform solve on a single rank (distributed_transform.hpp:
// the cosine transforms over y and z as one batched 2D real FFT of each reordered x-plane,
// 13 passes over memory on a GPU), otherwise TransformPoisson3's per-axis transforms (19 passes
// for walls all round) or its fused 3D Fourier solve (periodic all round). Both are exact; the
// one-rank distributed solve matches TransformPoisson3 to a few eps (tests/mpi/transform_check).
#include <memory>
#include <string>

#include "core/distributed/comm.hpp"
#include "solvers/distributed_transform.hpp"
#include "solvers/transform_poisson.hpp"

namespace sim::solvers {

template <class T>
class BoxTransform3 {
 public:
  /// The solver of box's operator on ctx (box must be transform-solvable).
  BoxTransform3(const Context& ctx, const PoissonBox3& box) {
    if (!walls_on_y_and_z(box)) {
      per_axis_ = std::make_unique<TransformPoisson3<T>>(ctx, box);
      return;
    }
    TransformProblem<3> problem;
    Box<3> whole;
    for (int d = 0; d < 3; ++d) problem.cells[d] = box.n[d], problem.inv_h2[d] = box.inv_h2[d], whole.lo[d] = 0, whole.hi[d] = box.n[d];
    for (int s = 0; s < 6; ++s) problem.sides[s] = box.sides[s];
    one_rank_ = std::make_unique<DistributedTransformPoisson<T, 3>>(Comm{}, ctx, problem, std::vector<Box<3>>{whole});
  }

  /// x = the solution of A x = b (views of the box's cells; they may not overlap); asynchronous.
  void solve(View<const T, 3> b, View<T, 3> x) {
    if (one_rank_) one_rank_->solve(b, x);
    else per_axis_->solve(b, x);
  }

  /// The fused Fourier solve of a box periodic all round (TransformPoisson3::fused), else null.
  const fft::FourierMultiplier3<T>* fused() const { return per_axis_ ? per_axis_->fused() : nullptr; }

  /// The transforms used.
  std::string description() const { return one_rank_ ? one_rank_->description() : per_axis_->description(); }

 private:
  /// True when box has walls (zero-flux sides) on both sides of y and of z, at least 2 cells each.
  static bool walls_on_y_and_z(const PoissonBox3& box) {
    for (int s = 2; s < 6; ++s)
      if (box.sides[s] != PressureSide::neumann) return false;
    return box.n[1] >= 2 && box.n[2] >= 2;
  }

  std::unique_ptr<DistributedTransformPoisson<T, 3>> one_rank_;  // walls on y and z
  std::unique_ptr<TransformPoisson3<T>> per_axis_;               // the other sides
};

}  // namespace sim::solvers
