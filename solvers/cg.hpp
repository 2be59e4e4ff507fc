#pragma once
// Matrix-free conjugate gradients for symmetric positive definite operators on fields,
// written against the array API only (fused expressions and deterministic reductions), so
// it runs on every backend and gives the same bits on every run.
#include <cmath>

#include "core/comm.hpp"
#include "core/expr.hpp"

namespace sim::solvers {

/// How a solve ended.
struct CgResult {
  int iterations = 0;
  double residual = 0;  ///< final ||r|| / ||b|| (||r|| when b = 0)
  bool converged = false;
};

/// Solves A x = b from the initial guess in x, to ||b - A x|| <= rel_tol ||b||. apply(p, out)
/// must compute out = A p on the interior (it may fill p's ghosts). r, p, ap are work fields.
/// On several ranks the fields are each rank's box, and comm adds the dot products over ranks
/// (in rank order: the iterations are the same on every rank).
template <class T, int Rank, class Apply>
CgResult cg(const Apply& apply, Field<T, Rank>& x, const Field<T, Rank>& b, Field<T, Rank>& r, Field<T, Rank>& p,
            Field<T, Rank>& ap, double rel_tol, int max_iterations, const Comm& comm = Comm()) {
  auto dot = [&comm](const Field<T, Rank>& u, const Field<T, Rank>& v) { return comm.sum(double(sim::dot(u, v))); };
  CgResult res;
  apply(x, ap);
  r = b - ap;
  p = r * 1;
  double rr = dot(r, r);
  const double bnorm = std::sqrt(dot(b, b));
  const double target = rel_tol * (bnorm > 0 ? bnorm : 1.0);
  while (std::sqrt(rr) > target && res.iterations < max_iterations) {
    apply(p, ap);
    const double pap = dot(p, ap);
    if (!(pap > 0)) break;  // not SPD, or breakdown: stop and report
    const T alpha = T(rr / pap);
    x = x + alpha * p;
    r = r - alpha * ap;
    const double rr_new = dot(r, r);
    const T beta = T(rr_new / rr);
    p = r + beta * p;
    rr = rr_new;
    ++res.iterations;
  }
  res.residual = std::sqrt(rr) / (bnorm > 0 ? bnorm : 1.0);
  res.converged = std::sqrt(rr) <= target;
  return res;
}

}  // namespace sim::solvers
