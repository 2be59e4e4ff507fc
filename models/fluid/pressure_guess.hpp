#pragma once
// The initial guess of the 2D fluid's pressure solves. An explicit stage's pressure scales with
// the weight f of its dt F(u) (1, then 1/2 in rk2's second stage; 1, 1/4, 2/3 in rk3's): the previous stage's
// pressure, rescaled by f over that stage's weight, starts the solve. Unscaled, rk2's guesses
// were off by about the pressure itself (cylinder float32 with mg_cg on the CPU, iterations a
// step: 1024 x 256 over its first 155 steps 9-10 unscaled, 5 scaled; 512 x 128 shedding, t = 4
// to 8: 10 unscaled, 6-8 scaled). Euler steps with an iterative solver extrapolate instead
// through the last order + 1 pressures (a cubic is off by O(dt^4) instead of O(dt): mg_cg on
// the cavity, float64, 4-5 iterations a step with p as the guess, 2 with the cubic).
#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/array/expr.hpp"
#include "core/kernels/for_each.hpp"
#include "models/field_ref.hpp"
#include "models/fluid/pressure_kernels.hpp"
#include "solvers/extrapolation.hpp"
#include "solvers/poisson.hpp"
#include "solvers/time_integrators.hpp"

namespace sim::fluid {

/// The pressure history and guess of the 2D fluid's solves (see the file's comment).
template <class T>
class PressureGuess {
 public:
  /// scale: rescale by the stages' weights (a run starts with its scheme's last stage's); stages:
  /// the time scheme's; order: the extrapolation's degree, used by Euler steps (one stage) whose
  /// solver iterates (exact false).
  void configure(bool scale, int stages, int order, bool exact) {
    scale_ = scale && !exact;
    stage_weight_ = solvers::ShuOsherWeights{stages}.flux(stages - 1);
    order_ = order;
    extrapolates_ = stages == 1 && order > 0 && !exact;  // (the transform solves exactly: it takes no guess)
  }

  /// True when the Euler steps extrapolate (and the history exists).
  bool extrapolates() const { return extrapolates_; }

  /// Allocates the history, shaped like the level's fields, at 0.
  void allocate(const solvers::PoissonLevel<T>& level) {
    if (!extrapolates_) return;
    for (int k = 0; k < order_; ++k) history_[k] = level.make_field(), history_[k].fill(T(0));
  }

  /// Starts the history afresh (the first solves use p).
  void restart() {
    if (!extrapolates_) return;
    for (int k = 0; k < order_; ++k) history_[k].fill(T(0));
    solves_ = 0, spacing_ = {0, 0, 0};
  }

  /// Rescales p, the next solve's initial guess, for a stage of weight f.
  void scale(Field<T, 2>& p, double f) {
    if (scale_ && f != stage_weight_) p = p * T(f / stage_weight_);
    stage_weight_ = f;
  }

  /// An Euler step's initial guess into q over this rank's cells (p or an increment's field): p extrapolated in time
  /// through the last order + 1 steps' (fewer while there are fewer; uneven dt allowed), each
  /// made mean-free by *mean_of / fluid_cells when mean_of is set (a singular problem), so that
  /// no constant builds up through the extrapolation; then p joins the history.
  void extrapolate(const Context& ctx, const Box<2>& cells, Field<T, 2>& p, Field<T, 2>& q, const solvers::PoissonStencil<T>& stencil,
                   const double* mean_of, double fluid_cells, double dt) {
    const int points = std::max(1, std::min(solves_, order_ + 1));
    const std::array<double, 4> w = solvers::extrapolation_weights(points, spacing_, dt);
    const bool cubic = order_ == 3;
    for_each(ctx, "fluid::extrapolate_pressure", cells,
             ExtrapolatePressure<T>{p.view(), history_[0].view(), history_[cubic ? 1 : 0].view(),
                                    history_[cubic ? 2 : 0].view(), q.view(), stencil, mean_of, fluid_cells, T(w[0]),
                                    T(w[1]), T(w[2]), T(w[3]), cubic ? 3 : 1});
    spacing_ = {dt, spacing_[0], spacing_[1]};
    solves_ = std::min(solves_ + 1, 4);
  }

  /// The history's fields, for checkpoints only (restarts stay bit-identical; a checkpoint
  /// without them, or of another degree, restarts the history).
  void add_fields(std::vector<FieldRef>& f, const Subdomain& sub, const Extents<2>& all) {
    if (!extrapolates_) return;
    for (int k = 0; k < order_; ++k) {
      f.push_back(field_ref("p_history_" + std::to_string(k + 1), "m^2/s^2", history_[k], sub, all));
      f.back().snapshot = false, f.back().optional = true;
    }
  }

  /// The history's counters and spacing, for a checkpoint.
  void save(std::map<std::string, std::uint64_t>& counters, std::map<std::string, double>& reals) const {
    if (!extrapolates_) return;
    counters["fluid_pressure_solves"] = std::uint64_t(solves_);
    counters["fluid_guess_order"] = std::uint64_t(order_);
    for (int k = 0; k < 3; ++k) reals["fluid_history_spacing_" + std::to_string(k + 1)] = spacing_[k];
  }

  /// Restores what save() wrote. The history the checkpoint holds is used only if it is of
  /// this run's degree (a checkpoint written before the guess, or with another pressure_tol,
  /// starts it afresh: the next steps solve from p, then extrapolate again as the history refills).
  void load(const std::map<std::string, std::uint64_t>& counters, const std::map<std::string, double>& reals) {
    if (!extrapolates_) return;
    const auto order = counters.find("fluid_guess_order");
    const bool same = order != counters.end() && int(order->second) == order_ && counters.count("fluid_pressure_solves");
    solves_ = same ? int(counters.at("fluid_pressure_solves")) : 0;
    for (int k = 0; k < 3; ++k) {
      const auto it = reals.find("fluid_history_spacing_" + std::to_string(k + 1));
      spacing_[k] = it == reals.end() ? 0.0 : it->second;
    }
  }

 private:
  bool scale_ = true;          // rescale by the stages' weights (never for an exact solver)
  double stage_weight_ = 1;    // the weight of the stage that solved for p (between steps, the last stage's)
  bool extrapolates_ = false;  // Euler steps with an iterative solver extrapolate
  int order_ = 0;              // the extrapolation's degree: order_ pressures before p (mean-free)
  Field<T, 2> history_[3];
  std::array<double, 3> spacing_{0, 0, 0};  // the dt between each pressure and the next
  int solves_ = 0;                          // the solves seen (0-4)
};

}  // namespace sim::fluid
