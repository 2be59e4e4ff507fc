#pragma once
// Solvers for the pressure Poisson equation A p = b of poisson.hpp, chosen by name: damped
// Jacobi (the reference), conjugate gradients, multigrid V-cycles, CG preconditioned by
// one multigrid V-cycle, and the exact fast-transform solve of a rectangle (transform_poisson.hpp
// on one rank, distributed_transform.hpp on several; with an obstacle, the box's transform
// solve with a capacitance correction: obstacle_transform_poisson.hpp on one rank,
// distributed_obstacle_transform.hpp on several). Vectors are Fields of this rank's box (poisson.hpp); CG's updates
// are fused expressions and its dot products are summed in double (float32 CG summed in
// float stalls near a 1e-5 residual on 1024^2 grids) and then over the ranks, in rank order,
// so every rank takes the same steps.
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "core/mesh/boundary.hpp"
#include "core/array/expr.hpp"
#include "solvers/cg.hpp"
#include "solvers/distributed_obstacle_transform.hpp"
#include "solvers/distributed_transform.hpp"
#include "solvers/multigrid.hpp"
#include "solvers/obstacle_transform_poisson.hpp"
#include "solvers/poisson.hpp"
#include "solvers/transform_poisson.hpp"

namespace sim::solvers {

enum class PoissonMethod { jacobi, cg, multigrid, mg_cg, transform };

/// The method called name ("jacobi", "cg", "multigrid", "mg_cg", "transform"); throws Error otherwise.
inline PoissonMethod poisson_method(const std::string& name) {
  if (name == "jacobi") return PoissonMethod::jacobi;
  if (name == "cg") return PoissonMethod::cg;
  if (name == "multigrid") return PoissonMethod::multigrid;
  if (name == "mg_cg") return PoissonMethod::mg_cg;
  if (name == "transform") return PoissonMethod::transform;
  throw Error("unknown pressure solver '" + name + "' (expected jacobi, cg, multigrid, mg_cg or transform)");
}

/// The pressure condition on a fluid face of this kind: periodic stays periodic, an outflow
/// holds p = 0 (dirichlet), a wall or an inflow dp/dn = 0 (neumann).
inline PressureSide pressure_side(BcKind kind) {
  return kind == BcKind::periodic ? PressureSide::periodic
         : kind == BcKind::outflow ? PressureSide::dirichlet
                                   : PressureSide::neumann;
}

/// Why the exact transform solve (with a capacitance correction for an obstacle) does not apply
/// to grid split over ranks ("" when it does).
template <class T>
std::string exact_transform_unsupported(const PoissonGrid<T>& grid, int ranks) {
  (void)ranks;  // (several ranks: the distributed solves, with or without an obstacle)
  if (!grid.has_links()) return transform_unsupported(grid, 1);
  return obstacle_transform_unsupported(transform_box(grid), grid.active);
}

/// What `pressure_solver = "auto"` picks for grid on ranks ranks, and why, in words;
/// obstacle names the obstacle ("a cylinder").
struct SolverChoice {
  PoissonMethod method = PoissonMethod::mg_cg;
  std::string name, reason;
};
template <class T>
SolverChoice choose_poisson_solver(const PoissonGrid<T>& grid, int ranks, const std::string& obstacle) {
  SolverChoice c;
  const std::string why_not = exact_transform_unsupported(grid, ranks);
  if (!why_not.empty()) {
    c.name = "mg_cg", c.reason = "auto: mg_cg, since " + why_not;
    return c;
  }
  c.method = PoissonMethod::transform, c.name = "transform";
  if (grid.has_links())
    c.reason = "auto: " + obstacle + " in a transformable box" + (ranks > 1 ? " split over " + std::to_string(ranks) + " ranks" : " on one rank") +
               ": the box's exact transform solve" + (ranks > 1 ? " (distributed by all-to-all transposes)" : "") +
               " with a capacitance correction on the obstacle's surface";
  else if (ranks > 1)
    c.reason = "auto: a rectangle without obstacles, solved exactly by fast transforms distributed over the ranks by all-to-all transposes";
  else
    c.reason = "auto: a rectangle without obstacles on one rank, solved exactly by fast transforms";
  return c;
}

template <class T>
class PoissonSolver {
 public:
  /// A solver of the given method for the operator of grid (the finest), split as part says
  /// (collective over part's ranks).
  PoissonSolver(const Context& ctx, const PoissonGrid<T>& grid, const PoissonPartition& part, PoissonMethod method,
                MgOptions mg = {})
      : method_(method) {
    if (method == PoissonMethod::multigrid && grid.has_links())
      throw Error("pressure solver 'multigrid' alone does not converge around obstacles (its coarse operators are "
                  "rediscretised, not Galerkin); use \"mg_cg\", which keeps the V-cycle as CG's preconditioner");
    if (method == PoissonMethod::transform) {
      const std::string why = exact_transform_unsupported(grid, int(part.boxes.size()));
      if (!why.empty()) throw Error("pressure solver 'transform' does not apply here: " + why + "; use \"mg_cg\" (or \"auto\")");
      if (grid.has_links() && part.boxes.size() > 1) {
        distributed_obstacle_ = std::make_unique<DistributedObstacleTransformPoisson<T, 2>>(
            part.comm, ctx, transform_box(grid), grid.active, boxes_of<2>(part.boxes));
      } else if (grid.has_links()) {
        obstacle_ = std::make_unique<ObstacleTransformPoisson<T, 2>>(ctx, transform_box(grid), grid.active);
      } else if (part.boxes.size() > 1) {
        TransformProblem<2> problem;
        problem.cells[0] = grid.nx, problem.cells[1] = grid.ny;
        problem.inv_h2[0] = double(grid.inv_hx2), problem.inv_h2[1] = double(grid.inv_hy2);
        for (int k = 0; k < 4; ++k) problem.sides[k] = grid.sides[k];
        distributed_ = std::make_unique<DistributedTransformPoisson<T, 2>>(part.comm, ctx, problem, boxes_of<2>(part.boxes));
      } else {
        transform_ = std::make_unique<TransformPoisson<T>>(ctx, grid);
      }
    }
    if (method == PoissonMethod::multigrid || method == PoissonMethod::mg_cg) {
      mg_ = std::make_unique<Multigrid<T>>(ctx, grid, part, mg);
      fine_ = &mg_->finest();
    } else {
      own_ = std::make_unique<PoissonLevel<T>>(make_poisson_level(ctx, grid, part));
      fine_ = own_.get();
    }
    if (method == PoissonMethod::transform) return;  // no iteration vectors
    residual_ = fine_->make_field();
    if (method != PoissonMethod::multigrid) p_ = fine_->make_field(), ap_ = fine_->make_field();
    if (method == PoissonMethod::mg_cg) z_ = fine_->make_field();
    if (method == PoissonMethod::cg || method == PoissonMethod::mg_cg) {
      cg_ = ConjugateGradient<T, 2>(ctx, fine_->box(), fine_->comm, {&residual_}, {&p_}, {&ap_}, {mg_ ? &z_ : &residual_});
      cg_.set_recordable(!mg_ || mg_->recordable());  // the operator is fixed; the V-cycle must not wait for the host
      cg_.set_zero_solution_for_zero_b(true);
    }
  }
  PoissonSolver(const PoissonSolver&) = delete;  // its CG points at its own work fields
  PoissonSolver& operator=(const PoissonSolver&) = delete;

  /// The same on one rank holding the whole grid.
  PoissonSolver(const Context& ctx, const PoissonGrid<T>& grid, PoissonMethod method, MgOptions mg = {})
      : PoissonSolver(ctx, grid, PoissonPartition::whole(grid.nx, grid.ny), method, mg) {}

  /// The finest level (its stencil, shape and ghost exchange).
  const PoissonLevel<T>& level() const { return *fine_; }
  PoissonLevel<T>& level() { return *fine_; }
  /// Multigrid levels (0 for jacobi and cg).
  int multigrid_levels() const { return mg_ ? mg_->levels() : 0; }
  /// The multigrid hierarchy (null for the other methods).
  Multigrid<T>* multigrid() { return mg_.get(); }

  /// The one-rank exact transform solver (null for the iterative methods and on several ranks).
  const TransformPoisson<T>* transform() const { return transform_.get(); }
  /// The one-rank exact solve around an obstacle (null otherwise).
  const ObstacleTransformPoisson<T, 2>* obstacle_transform() const { return obstacle_.get(); }
  /// The exact solve around an obstacle on several ranks (null otherwise).
  const DistributedObstacleTransformPoisson<T, 2>* distributed_obstacle_transform() const { return distributed_obstacle_.get(); }
  /// True for the exact transform solve, on one rank or several, with or without an obstacle.
  bool exact() const { return transform_ || distributed_ || obstacle_ || distributed_obstacle_; }
  /// True for an exact solve on one rank: no host waits, no messages (a step may be recorded).
  bool exact_on_one_rank() const { return transform_ || obstacle_; }
  /// The distributed transform solve without an obstacle (several ranks; null otherwise).
  const DistributedTransformPoisson<T, 2>* distributed_transform() const { return distributed_.get(); }
  /// The distributed transform solve's staged rows (DistributedTransformPoisson::staged(); null
  /// data where there are none): write the right-hand side there, solve_staged(), read p from
  /// staged_result().
  CosineSlabRows<T> staged_rows() const { return distributed_ ? distributed_->staged() : CosineSlabRows<T>{}; }
  /// Where solve_staged() leaves the solution (DistributedTransformPoisson::staged_result()).
  CosineSlabRows<T> staged_result() const { return distributed_ ? distributed_->staged_result() : CosineSlabRows<T>{}; }
  /// The distributed transform solve of the right-hand side in staged_rows().
  void solve_staged() { distributed_->solve_staged(); }
  /// The transforms (and, on several ranks, the transposes; with an obstacle, the correction) of
  /// the exact solve; "" for the iterative methods.
  std::string transform_description() const {
    return transform_ ? transform_->description()
           : distributed_ ? distributed_->description()
           : obstacle_    ? obstacle_->description()
           : distributed_obstacle_ ? distributed_obstacle_->description()
                                   : std::string();
  }

  /// Solves A x = b from the guess in x to ||b - A x|| <= rel_tol ||b||, at most max_iterations
  /// iterations (sweeps for jacobi, V-cycles for multigrid). b must be consistent when A is
  /// singular. x's ghosts are left stale. The transform method solves exactly, ignores the
  /// guess, tolerance and cap, and reports 0 iterations and an uncomputed (NaN) residual: it
  /// never waits for the device.
  SolveStats solve(const Field<T, 2>& b, Field<T, 2>& x, double rel_tol, int max_iterations) {
    switch (method_) {
      case PoissonMethod::transform: {
        if (distributed_) distributed_->solve(b.view(), x.view());
        else if (distributed_obstacle_) distributed_obstacle_->solve(b.view(), x.view());
        else if (obstacle_) obstacle_->solve(b, x);
        else transform_->solve(b, x);
        SolveStats st;
        st.converged = true;
        st.residual = std::nan("");
        return st;
      }
      case PoissonMethod::jacobi: return jacobi(b, x, rel_tol, max_iterations);
      case PoissonMethod::multigrid: return mg_->solve(b, x, rel_tol, max_iterations);
      default: return pcg(b, x, rel_tol, max_iterations);
    }
  }

 private:
  double vnorm(const Field<T, 2>& x) const { return std::sqrt(fine_->dot(x, x)); }

  /// out = omega-damped Jacobi sweep of in (exchanges in's ghosts first).
  void jacobi_sweep(const Field<T, 2>& b, Field<T, 2>& in, Field<T, 2>& out) {
    fine_->exchange_faces(in);
    for_each(fine_->ctx, "poisson::jacobi", fine_->box(), PoissonJacobi<T>{fine_->stencil, in.view(), b.view(), out.view(), T(0.9)});
  }

  /// Damped Jacobi (omega 0.9, so that the checkerboard mode of periodic grids decays too);
  /// the residual is checked every 20 sweeps.
  SolveStats jacobi(const Field<T, 2>& b, Field<T, 2>& x, double rel_tol, int max_iterations) {
    SolveStats st;
    const double bnorm = vnorm(b);
    if (bnorm == 0) return zero_solution(x);
    fine_->residual(b, x, residual_);
    st.residual = vnorm(residual_) / bnorm;
    while (st.residual > rel_tol && st.iterations < max_iterations) {
      for (int s = 0; s < 10; ++s) jacobi_sweep(b, x, p_), jacobi_sweep(b, p_, x);  // sweeps in pairs: x -> p, p -> x
      st.iterations += 20;
      fine_->residual(b, x, residual_);
      st.residual = vnorm(residual_) / bnorm;
    }
    st.converged = st.residual <= rel_tol;
    return st;
  }

  /// Conjugate gradients (cg.hpp); preconditioned by one V-cycle for mg_cg.
  SolveStats pcg(const Field<T, 2>& b, Field<T, 2>& x, double rel_tol, int max_iterations) {
    auto apply = [this](const auto& p, const auto& out) {
      fine_->exchange_faces(*p[0]);
      for_each(fine_->ctx, "poisson::apply", fine_->box(), PoissonApply<T>{fine_->stencil, p[0]->view(), out[0]->view()});
    };
    typename ConjugateGradient<T, 2>::Precondition precondition;
    if (mg_) precondition = [this](const auto& r, const auto& z) { mg_->precondition(*r[0], *z[0]); };
    const CgResult res = cg_.solve(apply, precondition, {&x}, {&b}, rel_tol, max_iterations);
    SolveStats st;
    st.iterations = res.iterations;
    st.residual = res.residual;
    st.converged = res.converged;
    st.stalled = res.stalled;
    return st;
  }

  SolveStats zero_solution(Field<T, 2>& x) {
    x.fill(T(0));
    SolveStats st;
    st.converged = true;
    return st;
  }

  PoissonMethod method_;
  std::unique_ptr<Multigrid<T>> mg_;
  std::unique_ptr<TransformPoisson<T>> transform_;
  std::unique_ptr<DistributedTransformPoisson<T, 2>> distributed_;
  std::unique_ptr<ObstacleTransformPoisson<T, 2>> obstacle_;
  std::unique_ptr<DistributedObstacleTransformPoisson<T, 2>> distributed_obstacle_;
  std::unique_ptr<PoissonLevel<T>> own_;
  PoissonLevel<T>* fine_ = nullptr;
  Field<T, 2> residual_, p_, ap_, z_;
  ConjugateGradient<T, 2> cg_;  // (points at the work fields above: the solver is not movable)
};

}  // namespace sim::solvers
