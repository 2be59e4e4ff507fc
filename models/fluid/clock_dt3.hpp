#pragma once
// The 3D fluid's adaptive dt on the device, for its device-clocked steps (Model::run_device_steps):
// FluidModel3::next_dt's formula, the same bits, from the largest face speeds along each axis
// in memory that kernels read (over every rank: RankReduction::max), and the one-point kernel that hands
// the clock's dt to the step's kernels.
#include "core/runtime/device_clock.hpp"
#include "core/runtime/macros.hpp"
#include "models/fluid/fluid3d_kernels.hpp"

namespace sim::fluid3d {

/// cfl / (viscous_rate + sum_d max|u_d| / dx_d), max|u_0| at least 1e-300 (next_dt()'s order of operations).
struct CflDt3 {
  const SpeedTriple* speeds;
  double cfl, dx[3], viscous_rate;
  SIM_INLINE double operator()() const {
    double rate = viscous_rate;
    for (int d = 0; d < 3; ++d) {
      const double s = speeds->s[d];
      rate += (d == 0 && s < 1e-300 ? 1e-300 : s) / dx[d];  // (std::max(s, 1e-300) along x)
    }
    return cfl / rate;
  }
};

/// *to = the clock's dt: the step's kernels read dt from one place (StepInput) in both kinds of step.
struct ClockDtInto {
  const ClockState* clock;
  double* to;
  SIM_INLINE void operator()(index_t) const { *to = clock->dt; }
};

}  // namespace sim::fluid3d
