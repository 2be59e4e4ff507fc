#pragma once
// Solvers for the pressure Poisson equation A p = b of poisson.hpp, chosen by name: damped
// Jacobi (the reference), conjugate gradients, multigrid V-cycles, and CG preconditioned by
// one multigrid V-cycle. CG's vector operations (dot, nrm2, axpy, scal) go through
// sim::blas: cuBLAS on the GPU, deterministic OpenMP loops on the CPU; except float32 dot
// products and norms, which are summed in double (cuBLAS Sdot sums in float, and float32 CG
// then stalls near a 1e-5 residual on 1024^2 grids).
#include <memory>
#include <string>
#include <utility>

#include <type_traits>

#include "core/blas.hpp"
#include "core/expr.hpp"
#include "solvers/multigrid.hpp"
#include "solvers/poisson.hpp"

namespace sim::solvers {

enum class PoissonMethod { jacobi, cg, multigrid, mg_cg };

/// The method called name ("jacobi", "cg", "multigrid", "mg_cg"); throws Error otherwise.
inline PoissonMethod poisson_method(const std::string& name) {
  if (name == "jacobi") return PoissonMethod::jacobi;
  if (name == "cg") return PoissonMethod::cg;
  if (name == "multigrid") return PoissonMethod::multigrid;
  if (name == "mg_cg") return PoissonMethod::mg_cg;
  throw Error("unknown pressure solver '" + name + "' (expected jacobi, cg, multigrid or mg_cg)");
}

template <class T>
class PoissonSolver {
 public:
  /// A solver of the given method for the operator of level (the finest grid).
  PoissonSolver(PoissonLevel<T> level, const PressureSide (&sides)[4], PoissonMethod method, MgOptions mg = {})
      : method_(method) {
    if (method == PoissonMethod::multigrid && level.stencil.has_links)
      throw Error("pressure solver 'multigrid' alone does not converge around obstacles (its coarse operators are "
                  "rediscretised, not Galerkin); use \"mg_cg\", which keeps the V-cycle as CG's preconditioner");
    if (method == PoissonMethod::multigrid || method == PoissonMethod::mg_cg) {
      mg_ = std::make_unique<Multigrid<T>>(std::move(level), sides, mg);
      fine_ = &mg_->finest();
    } else {
      own_ = std::make_unique<PoissonLevel<T>>(std::move(level));
      fine_ = own_.get();
    }
    r_ = fine_->make_array();
    if (method != PoissonMethod::multigrid) p_ = fine_->make_array(), ap_ = fine_->make_array();
    if (method == PoissonMethod::mg_cg) z_ = fine_->make_array();
  }

  /// The finest level (its stencil and shape).
  const PoissonLevel<T>& level() const { return *fine_; }
  /// Multigrid levels (0 for jacobi and cg).
  int multigrid_levels() const { return mg_ ? mg_->levels() : 0; }

  /// Solves A x = b from the guess in x to ||b - A x|| <= rel_tol ||b||, at most max_iterations
  /// iterations (sweeps for jacobi, V-cycles for multigrid). b must be consistent when A is singular.
  SolveStats solve(const Array<T, 2>& b, Array<T, 2>& x, double rel_tol, int max_iterations) {
    switch (method_) {
      case PoissonMethod::jacobi: return jacobi(b, x, rel_tol, max_iterations);
      case PoissonMethod::multigrid: return mg_->solve(b, x, rel_tol, max_iterations);
      default: return pcg(b, x, rel_tol, max_iterations);
    }
  }

 private:
  /// x . y for CG (see the file comment for float32).
  static double vdot(const Array<T, 2>& x, const Array<T, 2>& y) {
    if constexpr (std::is_same_v<T, float>) return double(sim::dot(x, y));
    else return double(blas::dot(x, y));
  }
  /// ||x|| for CG.
  static double vnorm(const Array<T, 2>& x) {
    if constexpr (std::is_same_v<T, float>) return std::sqrt(double(sim::dot(x, x)));
    else return double(blas::nrm2(x));
  }

  void residual(const Array<T, 2>& b, const Array<T, 2>& x, Array<T, 2>& r) {
    for_each(fine_->ctx, "poisson::residual", fine_->box(), PoissonResidual<T>{fine_->stencil, x.view(), b.view(), r.view()});
  }

  /// Damped Jacobi (omega 0.9, so that the checkerboard mode of periodic grids decays too);
  /// the residual is checked every 20 sweeps.
  SolveStats jacobi(const Array<T, 2>& b, Array<T, 2>& x, double rel_tol, int max_iterations) {
    SolveStats st;
    const double bnorm = vnorm(b);
    if (bnorm == 0) return zero_solution(x);
    residual(b, x, r_);
    st.residual = vnorm(r_) / bnorm;
    while (st.residual > rel_tol && st.iterations < max_iterations) {
      for (int s = 0; s < 10; ++s) {  // sweeps in pairs: x -> p, p -> x
        for_each(fine_->ctx, "poisson::jacobi", fine_->box(), PoissonJacobi<T>{fine_->stencil, x.view(), b.view(), p_.view(), T(0.9)});
        for_each(fine_->ctx, "poisson::jacobi", fine_->box(), PoissonJacobi<T>{fine_->stencil, p_.view(), b.view(), x.view(), T(0.9)});
      }
      st.iterations += 20;
      residual(b, x, r_);
      st.residual = vnorm(r_) / bnorm;
    }
    st.converged = st.residual <= rel_tol;
    return st;
  }

  /// Conjugate gradients; preconditioned by one V-cycle for mg_cg.
  SolveStats pcg(const Array<T, 2>& b, Array<T, 2>& x, double rel_tol, int max_iterations) {
    SolveStats st;
    const double bnorm = vnorm(b);
    if (bnorm == 0) return zero_solution(x);
    const double target = rel_tol * bnorm;
    residual(b, x, r_);
    double rnorm = vnorm(r_);
    Array<T, 2>& z = mg_ ? z_ : r_;
    if (mg_) mg_->precondition(r_, z_);
    p_.copy_from(z);
    double rz = vdot(r_, z);
    while (rnorm > target && st.iterations < max_iterations) {
      for_each(fine_->ctx, "poisson::apply", fine_->box(), PoissonApply<T>{fine_->stencil, p_.view(), ap_.view()});
      const double pap = vdot(p_, ap_);
      if (!(pap > 0)) break;  // breakdown (or an inconsistent singular system): report what we have
      const T alpha = T(rz / pap);
      blas::axpy(alpha, p_, x);
      blas::axpy(T(-alpha), ap_, r_);
      rnorm = vnorm(r_);
      ++st.iterations;
      if (rnorm <= target) break;
      if (mg_) mg_->precondition(r_, z_);
      const double rz_new = vdot(r_, z);
      if (!(rz_new > 0)) break;  // at the precision's floor: report what we have
      blas::scal(T(rz_new / rz), p_);
      blas::axpy(T(1), z, p_);
      rz = rz_new;
    }
    st.residual = rnorm / bnorm;
    st.converged = rnorm <= target;
    return st;
  }

  SolveStats zero_solution(Array<T, 2>& x) {
    x.fill(T(0));
    SolveStats st;
    st.converged = true;
    return st;
  }

  PoissonMethod method_;
  std::unique_ptr<Multigrid<T>> mg_;
  std::unique_ptr<PoissonLevel<T>> own_;
  const PoissonLevel<T>* fine_ = nullptr;
  Array<T, 2> r_, p_, ap_, z_;
};

}  // namespace sim::solvers
