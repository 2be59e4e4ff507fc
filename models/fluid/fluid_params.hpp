#pragma once
// The fluid model's parameters: its [model] schema (2D and 3D), and the 2D model's [model]
// and [boundary] sections read into a plain struct, checked (inflow and outflow sides, the
// obstacle), with the tuning knobs applied where the file leaves a choice unset.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/mesh/grid.hpp"
#include "io/config.hpp"
#include "models/boundary_config.hpp"
#include "models/model.hpp"
#include "models/fluid/side.hpp"

namespace sim::fluid {

/// The kernels' side of a face of this kind (the schema admits wall, periodic, inflow, outflow).
inline Side side_of(BcKind k) {
  return k == BcKind::periodic  ? Side::periodic
         : k == BcKind::inflow  ? Side::inflow
         : k == BcKind::outflow ? Side::outflow
                                : Side::wall;
}

/// The [boundary] condition of side k (0 x_lo, 1 x_hi, 2 y_lo, 3 y_hi).
inline const FaceBc& face_of(const Boundary<2>& b, int k) { return k % 2 ? b.hi[k / 2] : b.lo[k / 2]; }

/// Initial face velocities and dye (host side, once).
struct InitialState {
  std::string kind, dye;
  double amplitude = 1, length[2] = {1, 1};
  /// u on the low x-face of cell (i, j) at (x, y); v likewise on the low y-face.
  double u(double x, double y) const {
    if (kind == "taylor_green") return amplitude * std::sin(2 * M_PI * x / length[0]) * std::cos(2 * M_PI * y / length[1]);
    return kind == "uniform" ? amplitude : 0.0;
  }
  double v(double x, double y) const {
    if (kind == "taylor_green")
      return -amplitude * length[1] / length[0] * std::cos(2 * M_PI * x / length[0]) * std::sin(2 * M_PI * y / length[1]);
    return 0.0;
  }
  double d(double x, double y) const {
    if (dye == "stripes") return double(int(std::floor(8 * y / length[1])) % 2);
    if (dye == "half") return x < 0.5 * length[0] ? 1.0 : 0.0;
    return 0.0;
  }
};

/// Everything the 2D fluid reads from its config.
struct FluidParams {
  double viscosity = 0;             ///< nu (m^2/s)
  double dye_diffusivity = 0;       ///< kappa (m^2/s)
  int stages = 2;                   ///< time_scheme's stages: euler 1, rk2 2, rk3 3
  bool implicit_viscosity = false;  ///< viscous_scheme = "implicit"
  double viscous_tol = 1e-8;
  int viscous_max_iterations = 1000;
  double upwind_weight = 0;  ///< 0 with advection = "central"
  double pressure_tol = 1e-8;
  int pressure_max_iterations = 1000;
  std::string pressure_solver;  ///< as configured ("auto" not yet resolved)
  bool mg_smooth_set = false;     ///< pressure_mg_smooth is in the file (else the knob or the default)
  int mg_smooth[2] = {0, 0};     ///< its red-black sweeps [before, after] the coarse correction
  InitialState init;
  Boundary<2> faces;            ///< the [boundary] section
  bool parabolic_inflow = false;  ///< inflow_profile = "parabolic"
  bool scale_pressure_guess = true;  ///< rescale the previous stage's pressure by the stages' weights
  int guess_order = 1;              ///< degree of the Euler steps' extrapolated pressure guess (0: the last pressure)
  bool fill_every_stage = false;    ///< fill ghosts after every explicit stage, even where no projection needs it
};

/// The fluid's [model] schema and its [boundary] kinds, into m (2D and 3D).
void describe_fluid_params(ModelInfo& m);

/// The config's 2D fluid parameters on the global grid, checked: inflow on x_lo only with its
/// velocity set, outflow on x_hi only.
FluidParams read_fluid_params(const io::Config& c, const Grid<2>& global);

/// The stages of the config's time_scheme (euler 1, rk2 2, rk3 3; 2D and 3D); throws at
/// time_scheme when rk3 is asked for with implicit viscosity, whose schemes are euler and rk2.
int time_scheme_stages(const io::Config& c);

/// The speed scale of a start at rest: the inflow's peak where there is one, else 1 m/s, or a
/// wall's or the initial flow's speed where faster.
double start_speed_scale(const FluidParams& p);

/// Mask of the whole grid's fluid cells (1) and obstacle cells (0), i * ny + j; empty without
/// an obstacle. Throws when the obstacle covers no cell centre, or every one.
std::vector<double> obstacle_mask(const io::Config& c, const Grid<2>& global);

}  // namespace sim::fluid
