#pragma once
// Conjugate gradients, preconditioned or not, for symmetric positive definite operators on
// fields: the one CG of simkit, serving the implicit heat schemes, the pressure solve (plain
// and preconditioned by a multigrid V-cycle) and the fluid's implicit viscosity. A vector is N
// fields of one shape (the viscous solve treats u and v as one vector).
//
// Its scalars (the dot products, alpha, beta, the stopping test) live in device memory and
// small kernels compute them, so an iteration queues its work without waiting for the
// device. The stopping test still runs every iteration, on the device: once the residual is
// small enough (or breaks down, or reaches the precision's floor), the update kernels do nothing, so
// the result is the one a host check after every iteration gives. The host looks at the state
// only once it expects the end (the previous solve's iteration count), and on one GPU rank
// with a fixed operator (set_recordable) it replays each half-iteration as a CUDA graph.
// Dot products are accumulated in double (float32 CG summed in float stalls near a 1e-5
// residual on 1024^2 grids) and, on several ranks, added over the ranks in rank order, so that
// every rank takes the same steps.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <type_traits>
#include <vector>

#include "core/array/array.hpp"
#include "core/distributed/comm.hpp"
#include "core/array/expr.hpp"
#include "core/kernels/for_each.hpp"
#include "core/kernels/for_each_reduce.hpp"
#include "core/runtime/graph.hpp"

namespace sim::solvers {

/// How a solve ended.
struct CgResult {
  int iterations = 0;
  double residual = 0;   ///< final ||r|| / ||b|| (||r|| when b = 0)
  bool converged = false;
  bool stalled = false;  ///< stopped at the precision's floor: r . z no longer positive, or the true residual misses the target
};

/// Replaces the value in slot (device memory: kernels read it) by its sum over comm's ranks,
/// in rank order; a no-op on one rank. Waits for the device on several.
inline void add_over_ranks(const Context& ctx, const Comm& comm, View<double, 1> slot) {
  if (comm.size() == 1) return;
  double local = 0;
  detail::copy_to_host<double, 1>(ctx, slot, &local);
  const double total = comm.sum(local);
  detail::copy_from_host<double, 1>(ctx, &total, slot);
}

namespace cg_detail {

/// Where each scalar lives in the solver's scalar array. The partial dot products of the N
/// component fields follow kParts: pap[N], rr[N], rz[N], bb[N].
enum Slot : int { kActive, kStatus, kIters, kRz, kAlpha, kBeta, kRr, kTarget, kParts };
/// Why a solve stopped (kStatus).
enum Status : int { kRunning, kConverged, kBreakdown, kFloor };

/// The product a(i) b(i) in double, for the dot products.
template <class T, int Rank>
struct DotMap {
  View<const T, Rank> a, b;
  template <class... I>
  SIM_INLINE double operator()(I... i) const {
    return double(a(i...)) * double(b(i...));
  }
};

/// The sum of the N partial dot products starting at slot first.
template <int N>
SIM_INLINE double parts(const double* s, int first) {
  double sum = 0;
  for (int c = 0; c < N; ++c) sum += s[first + c];
  return sum;
}

/// Starts a solve from its initial residual: rr, rz, bb are in their part slots.
template <int N>
struct Start {
  double* s;
  double tol;
  bool preconditioned;
  SIM_INLINE void operator()(index_t) const {
    const double rr = parts<N>(s, kParts + N), bb = parts<N>(s, kParts + 3 * N);
    const double bnorm = std::sqrt(bb);
    s[kTarget] = tol * (bnorm > 0 ? bnorm : 1.0);
    s[kRr] = rr;
    s[kRz] = preconditioned ? parts<N>(s, kParts + 2 * N) : rr;
    s[kIters] = 0;
    const bool done = std::sqrt(rr) <= s[kTarget];
    s[kActive] = done ? 0 : 1;
    s[kStatus] = done ? kConverged : kRunning;
  }
};

/// alpha = rz / (p . A p), or the end of the solve when p . A p is not positive (breakdown).
template <int N>
struct Alpha {
  double* s;
  SIM_INLINE void operator()(index_t) const {
    if (s[kActive] == 0) return;
    const double pap = parts<N>(s, kParts);
    if (!(pap > 0)) {
      s[kActive] = 0, s[kStatus] = kBreakdown;
      return;
    }
    s[kAlpha] = s[kRz] / pap;
  }
};

/// x += alpha p, r -= alpha A p (one component); returns the new r^2 (in double) for r . r.
template <class T, int Rank>
struct UpdateXR {
  const double* s;
  View<T, Rank> x, r;
  View<const T, Rank> p, ap;
  template <class... I>
  SIM_INLINE double operator()(I... i) const {
    if (s[kActive] != 0) {
      const T alpha = T(s[kAlpha]);
      x(i...) = x(i...) + alpha * p(i...);
      r(i...) = r(i...) - alpha * ap(i...);
    }
    const double v = double(r(i...));
    return v * v;
  }
};

/// No scalar step after a sum.
struct NoStep {
  SIM_INLINE void operator()(index_t) const {}
};

/// Runs a one-point kernel F (Alpha, Check, Beta) as ForEachSum's then().
template <class F>
struct Once {
  F f;
  SIM_INLINE void operator()() const { f(0); }
};

/// Counts the iteration and tests ||r|| against the target.
template <int N>
struct Check {
  double* s;
  SIM_INLINE void operator()(index_t) const {
    if (s[kActive] == 0) return;
    const double rr = parts<N>(s, kParts + N);
    s[kRr] = rr;
    s[kIters] += 1;
    if (std::sqrt(rr) <= s[kTarget]) s[kActive] = 0, s[kStatus] = kConverged;
  }
};

/// beta = rz_new / rz, or the end of the solve when rz_new is not positive (the precision's floor).
template <int N>
struct Beta {
  double* s;
  bool preconditioned;
  SIM_INLINE void operator()(index_t) const {
    if (s[kActive] == 0) return;
    const double rz_new = preconditioned ? parts<N>(s, kParts + 2 * N) : s[kRr];
    if (!(rz_new > 0)) {
      s[kActive] = 0, s[kStatus] = kFloor;
      return;
    }
    s[kBeta] = rz_new / s[kRz];
    s[kRz] = rz_new;
  }
};

/// p = z + beta p (one component).
template <class T, int Rank>
struct UpdateP {
  const double* s;
  View<T, Rank> p;
  View<const T, Rank> z;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    if (s[kActive] == 0) return;
    p(i...) = z(i...) + T(s[kBeta]) * p(i...);
  }
};

}  // namespace cg_detail

/// Conjugate gradients on vectors of N fields over box (each rank's box on several ranks).
template <class T, int Rank, int N = 1>
class ConjugateGradient {
 public:
  using Vector = std::array<Field<T, Rank>*, N>;
  using ConstVector = std::array<const Field<T, Rank>*, N>;
  /// out = A p; it may fill p's ghosts (on several ranks: exchange them).
  using Apply = std::function<void(const Vector& p, const Vector& out)>;
  /// z = M r, an approximation of A^-1 r that is symmetric positive definite.
  using Precondition = std::function<void(const Vector& r, const Vector& z)>;

  ConjugateGradient() = default;
  /// A solver whose work vectors are r, p, ap (and z for a preconditioned solve; null fields
  /// in z, or z == r, mean none). The fields must outlive the solver.
  ConjugateGradient(const Context& ctx, const Box<Rank>& box, const Comm& comm, Vector r, Vector p, Vector ap,
                    Vector z = {})
      : ctx_(ctx), box_(box), comm_(comm), residual_(r), p_(p), ap_(ap), z_(z[0] ? z : r), sums_(ctx),
        scalars_(ctx, Extents<1>{{cg_detail::kParts + 4 * N}}), host_(std::size_t(cg_detail::kParts + 4 * N), 0.0) {
    scalars_.fill(0.0);
  }

  /// Lets the solver record its half-iterations as CUDA graphs and replay them. Only for an
  /// apply and preconditioner that queue the same work on every call (no coefficient that
  /// changes between solves) and never wait for the device; one rank only.
  void set_recordable(bool on) { recordable_ = on; }
  /// Makes a solve with b = 0 return x = 0 at once: right when apply is linear (not when its
  /// first call reads boundary values from x's ghosts, as the viscous solve's does).
  void set_zero_solution_for_zero_b(bool on) { zero_for_zero_b_ = on; }

  /// Solves A x = b from the guess in x to ||b - A x|| <= rel_tol ||b||, at most max_iterations
  /// iterations. b is read only before the first iteration (it may be x itself).
  CgResult solve(const Apply& apply, const Precondition& precondition, const Vector& x, const ConstVector& b,
                 double rel_tol, int max_iterations) {
    using namespace cg_detail;
    const bool pre = bool(precondition) && z_[0] != residual_[0];
    apply(x, ap_);
    for (int c = 0; c < N; ++c) {
      *residual_[c] = *b[c] - *ap_[c];
      dot(*b[c], *b[c], kParts + 3 * N + c);
    }
    if (pre) precondition(residual_, z_);
    for (int c = 0; c < N; ++c) {
      *p_[c] = *z_[c] * 1;
      dot(*residual_[c], *residual_[c], kParts + N + c);
      if (pre) dot(*residual_[c], *z_[c], kParts + 2 * N + c);
    }
    for_each(ctx_, "cg::start", Box<1>{{0}, {1}}, Start<N>{scalars_.data(), rel_tol, pre});

    const bool record = recordable_ && ctx_.is_cuda() && comm_.size() == 1;
    auto first_half = [&] { iterate_first_half(apply, x); };
    auto second_half = [&] { iterate_second_half(precondition, pre); };
    Recorded* halves = record ? recording(x, first_half, second_half) : nullptr;
    const int quiet = std::max(0, expected_ - 1);  // iterations queued without looking at the state
    int queued = 0;
    if (parts<N>(read_state().data(), kParts + 3 * N) == 0 && zero_for_zero_b_) {
      for (int c = 0; c < N; ++c) x[c]->fill(T(0));
      expected_ = 0;
      return CgResult{0, 0.0, true, false};
    }
    if (max_iterations > 0 && host_[kActive] != 0) {
      while (queued < max_iterations) {
        halves ? halves[0].replay() : first_half();
        ++queued;
        if (queued >= quiet && read_state()[kActive] == 0) break;
        halves ? halves[1].replay() : second_half();
      }
    }
    const std::vector<double>& st = read_state();
    CgResult res;
    res.iterations = int(st[kIters]);
    const double bnorm = std::sqrt(parts<N>(st.data(), kParts + 3 * N));
    res.residual = std::sqrt(st[kRr]) / (bnorm > 0 ? bnorm : 1.0);
    res.converged = st[kStatus] == double(kConverged);
    res.stalled = st[kStatus] == double(kFloor);
    expected_ = res.iterations;
    if (res.converged && rel_tol < 10 * double(std::numeric_limits<T>::epsilon()) && b[0] != x[0])
      check_true_residual(apply, x, b, bnorm, st[kTarget], res);
    return res;
  }

 private:
  /// Runs f at every point of this rank's box, its values summed into slot (then added over
  /// the ranks), then the one-point kernel step (Alpha, Check, Beta; on one rank in the same launch).
  template <class F, class Step = cg_detail::NoStep>
  void sum_into(const char* name, const F& f, int slot, const Step& step = {}) {
    constexpr bool stepping = !std::is_same_v<Step, cg_detail::NoStep>;
    if (comm_.size() == 1 && stepping) return sums_.queue(name, box_, f, scalars_.data() + slot, cg_detail::Once<Step>{step});
    sums_.queue(name, box_, f, scalars_.data() + slot);
    add_over_ranks(ctx_, comm_, scalars_.view().sub(Box<1>{{slot}, {slot + 1}}));
    if constexpr (stepping) for_each(ctx_, name, Box<1>{{0}, {1}}, step);
  }
  /// The dot product a . b of this rank's boxes into slot (then added over the ranks), then step.
  template <class Step = cg_detail::NoStep>
  void dot(const Field<T, Rank>& a, const Field<T, Rank>& b, int slot, const Step& step = {}) {
    sum_into("cg::dot", cg_detail::DotMap<T, Rank>{a.view(), b.view()}, slot, step);
  }

  /// The updated residual keeps falling below what the precision can give (float32 CG "reaches"
  /// 1e-14); near that floor, measure b - A x itself, and report a stall when it misses the target.
  void check_true_residual(const Apply& apply, const Vector& x, const ConstVector& b, double bnorm, double target,
                           CgResult& res) {
    using namespace cg_detail;
    apply(x, ap_);
    for (int c = 0; c < N; ++c) {
      *residual_[c] = *b[c] - *ap_[c];
      dot(*residual_[c], *residual_[c], kParts + N + c);
    }
    const double rr = parts<N>(read_state().data(), kParts + N);
    res.residual = std::sqrt(rr) / (bnorm > 0 ? bnorm : 1.0);
    if (std::sqrt(rr) > target) res.converged = false, res.stalled = true;
  }

  void iterate_first_half(const Apply& apply, const Vector& x) {
    using namespace cg_detail;
    apply(p_, ap_);
    for (int c = 0; c + 1 < N; ++c) dot(*p_[c], *ap_[c], kParts + c);
    dot(*p_[N - 1], *ap_[N - 1], kParts + N - 1, Alpha<N>{scalars_.data()});
    for (int c = 0; c < N; ++c) {
      const UpdateXR<T, Rank> update{scalars_.data(), x[c]->view(), residual_[c]->view(), p_[c]->view(), ap_[c]->view()};
      if (c + 1 < N) sum_into("cg::update_x_r", update, kParts + N + c);
      else sum_into("cg::update_x_r", update, kParts + N + c, Check<N>{scalars_.data()});
    }
  }

  void iterate_second_half(const Precondition& precondition, bool pre) {
    using namespace cg_detail;
    if (pre) {
      precondition(residual_, z_);
      for (int c = 0; c + 1 < N; ++c) dot(*residual_[c], *z_[c], kParts + 2 * N + c);
      dot(*residual_[N - 1], *z_[N - 1], kParts + 3 * N - 1, Beta<N>{scalars_.data(), pre});
    } else {
      for_each(ctx_, "cg::beta", Box<1>{{0}, {1}}, Beta<N>{scalars_.data(), pre});
    }
    for (int c = 0; c < N; ++c)
      for_each(ctx_, "cg::update_p", box_, UpdateP<T, Rank>{scalars_.data(), p_[c]->view(), z_[c]->view()});
  }

  /// The two recorded half-iterations for solution vector x (recorded on first use).
  template <class First, class Second>
  Recorded* recording(const Vector& x, const First& first, const Second& second) {
    std::vector<const void*> key;
    for (int c = 0; c < N; ++c) key.push_back(x[c]->view().ptr);
    auto it = recorded_.find(key);
    if (it == recorded_.end()) {
      std::array<Recorded, 2> halves{record(ctx_, first), record(ctx_, second)};
      it = recorded_.emplace(key, halves).first;
    }
    return it->second.data();
  }

  /// Waits for the device and copies the scalars to the host.
  const std::vector<double>& read_state() {
    detail::copy_to_host<double, 1>(ctx_, scalars_.view(), host_.data());
    return host_;
  }

  Context ctx_;
  Box<Rank> box_{};
  Comm comm_;
  Vector residual_{}, p_{}, ap_{}, z_{};
  ForEachSum sums_;
  Array<double, 1> scalars_;
  std::vector<double> host_;
  std::map<std::vector<const void*>, std::array<Recorded, 2>> recorded_;
  bool recordable_ = false;
  bool zero_for_zero_b_ = false;
  int expected_ = 0;  ///< the previous solve's iterations
};

/// Solves A x = b from the initial guess in x, to ||b - A x|| <= rel_tol ||b||, with
/// ConjugateGradient. apply(p, out) must compute out = A p on the interior (it may fill p's
/// ghosts). r, p, ap are work fields. On several ranks the fields are each rank's box, and comm
/// adds the dot products over ranks.
template <class T, int Rank, class Apply>
CgResult cg(const Apply& apply, Field<T, Rank>& x, const Field<T, Rank>& b, Field<T, Rank>& r, Field<T, Rank>& p,
            Field<T, Rank>& ap, double rel_tol, int max_iterations, const Comm& comm = Comm()) {
  const Box<Rank> box = x.grid().interior();
  ConjugateGradient<T, Rank, 1> solver(x.context(), box, comm, {&r}, {&p}, {&ap});
  return solver.solve([&apply](const auto& in, const auto& out) { apply(*in[0], *out[0]); }, nullptr, {&x}, {&b},
                      rel_tol, max_iterations);
}

}  // namespace sim::solvers
