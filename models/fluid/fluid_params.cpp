// The 2D fluid's config read into FluidParams (fluid_params.hpp).
#include "models/fluid/fluid_params.hpp"
#include "models/fluid/obstacle_mask.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/runtime/tuning.hpp"

namespace sim::fluid {
namespace {

/// Inflow on x_lo only (with its speed given), outflow on x_hi only: the flow runs along +x.
/// (boundary_from_config checked the periodic pairs.)
void check_sides(const io::Config& c, const Boundary<2>& faces) {
  for (int k = 0; k < 4; ++k) {
    const Side side = side_of(face_of(faces, k).kind);
    const std::string face = face_name({k / 2, k % 2}), key = c.is_set("boundary", face) ? face : "default";
    if (side == Side::inflow && k != 0)
      throw c.error_at("boundary", key, "inflow is supported on x_lo only (flow along +x); set " + face + " = \"wall\"");
    if (side == Side::outflow && k != 1)
      throw c.error_at("boundary", key, "outflow is supported on x_hi only (flow along +x); set " + face + " = \"wall\"");
  }
  if (side_of(faces.lo[0].kind) == Side::inflow && !c.is_set("boundary", "x_lo_value") && !c.is_set("boundary", "default_value"))
    throw c.error_at("boundary", "x_lo", "an inflow needs its mean velocity: set x_lo_value (m/s), e.g. x_lo_value = 1.0");
}

/// The pressure guess and stage-fill choices: the [model] key where the file sets it, else
/// the tuning knob where set, else the default.
void choose_solve_start(const io::Config& c, FluidParams& p) {
  if (c.is_set("model", "pressure_guess_scale")) p.scale_pressure_guess = c.boolean("model", "pressure_guess_scale");
  else if (const int knob = tuning::current().fluid_scale_guess; knob >= 0) p.scale_pressure_guess = knob == 1;
  // A cubic through the last four pressures when they are solved tightly; a line when the
  // tolerance is loose, since extrapolation multiplies each pressure's own error (by 3 for a
  // line, 15 for a cubic: a loose tolerance then needs more iterations with a cubic)
  p.guess_order = p.pressure_tol < 1e-6 ? 3 : 1;
  const std::string& order = c.string("model", "pressure_guess_order");
  if (c.is_set("model", "pressure_guess_order")) {
    if (order != "auto") p.guess_order = order == "last" ? 0 : order == "linear" ? 1 : 3;
  } else if (const int knob = tuning::current().fluid_guess_order; knob >= 0) {
    p.guess_order = knob;
  }
  p.fill_every_stage = c.is_set("model", "fill_every_stage") ? c.boolean("model", "fill_every_stage")
                                                             : tuning::current().fluid_fill_every_stage == 1;
}

/// The [model] keys of the fluid (2D and 3D), with their defaults, ranges and docs.
void add_model_keys(io::Schema& schema) {
  using io::Param;
  auto p = [&](Param q) { schema.params.push_back(std::move(q)); };
  p(Param::real("viscosity", 0.01).at_least(0).in("m^2/s").says("kinematic viscosity nu (Re = U L / nu)"));
  p(Param::string("inflow_profile", "uniform").one_of({"uniform", "parabolic"})
     .says("profile of the inflow ([boundary] x_lo = \"inflow\", its mean velocity x_lo_value)"));
  p(Param::string("advection", "central").one_of({"central", "upwind"})
     .says("central (second order) or upwind-blended (robust at high Reynolds numbers)"));
  p(Param::real("upwind_weight", 1.0).range(0, 1).says("advection = upwind: 0 central ... 1 full donor-cell"));
  p(Param::string("time_scheme", "rk2").one_of({"euler", "rk2", "rk3"})
     .says("euler (one projection per step), rk2 (Heun, two projections, second order) or rk3 (SSP-RK3, three "
           "projections, third order; its stability holds central advection's imaginary axis up to sqrt(3), so "
           "it runs at a larger cfl than rk2; explicit viscosity only)"));
  p(Param::string("viscous_scheme", "explicit").one_of({"explicit", "implicit"})
     .says("viscous term: explicit (dt limited by h^2 / nu), or implicit by CG (backward Euler with euler, the "
         "trapezoidal rule with rk2; dt then limited by advection only)"));
  p(Param::real("viscous_tol", 1e-8).positive().at_most(1)
     .says("viscous_scheme = implicit: relative residual of the CG solve"));
  p(Param::integer("viscous_max_iterations", 1000).range(1, 1e9).says("implicit viscous solve iteration cap"));
  p(Param::string("pressure_solver", "auto").one_of({"auto", "transform", "jacobi", "cg", "multigrid", "mg_cg"})
     .says("pressure Poisson solver: auto (transform where it applies, else mg_cg; --dry-run says which), "
         "transform (exact, by fast cosine/sine/Fourier transforms, distributed by all-to-all transposes on several ranks; "
         "around an obstacle with a capacitance correction on its surface), jacobi, cg, multigrid "
         "(V-cycles) or mg_cg (CG preconditioned by a V-cycle)"));
  p(Param::real("pressure_tol", 1e-8).positive().at_most(1).says("relative residual the pressure solve reaches"));
  p(Param::integer("pressure_max_iterations", 20000).range(1, 1e9).says("pressure solver iteration cap"));
  p(Param::string("pressure_guess_order", "auto").one_of({"auto", "last", "linear", "cubic"})
     .says("2D, euler with an iterative pressure solver: each solve's first guess extrapolated in time from the "
           "last pressures: auto (cubic when pressure_tol < 1e-6, else linear), last (the last pressure), linear "
           "or cubic; results agree to pressure_tol (SIMKIT_FLUID_GUESS_ORDER where unset)"));
  p(Param::boolean("pressure_guess_scale", true)
     .says("2D, rk2: a stage's pressure solve starts from the previous stage's pressure rescaled by the stages' "
           "weights (false: unscaled); results agree to pressure_tol (SIMKIT_FLUID_SCALE_GUESS where unset)"));
  p(Param::boolean("fill_every_stage", false)
     .says("2D: fill ghost cells after every explicit stage, also with walls on every side where the projection "
           "needs none; the same results (SIMKIT_FLUID_FILL_EVERY_STAGE where unset)"));
  p(Param::integers("pressure_mg_smooth", {0, 0}).lengths(2, 2).range(0, 64)
     .says("2D, pressure_solver multigrid or mg_cg: red-black sweeps [before, after] the coarse correction; 0: "
           "the precision's default, 1 in float32 and 2 in float64 (SIMKIT_MG_SMOOTH where unset)"));
  p(Param::string("init", "rest").one_of({"rest", "uniform", "taylor_green"})
     .says("initial velocity: rest, uniform (init_velocity along x) or the Taylor-Green vortex"));
  p(Param::real("init_velocity", 1.0).in("m/s").says("amplitude of the initial velocity"));
  p(Param::string("obstacle", "none").one_of({"none", "cylinder", "sphere", "box", "mask"})
     .says("solid obstacle (no-slip): cylinder (in 3D along z), sphere (3D), box, or mask (0 solid / 1 fluid cells "
           "from obstacle_file)"));
  p(Param::reals("obstacle_center", {0.5, 0.5}).in("m").says("obstacle centre [x, y] (3D: [x, y, z])"));
  p(Param::real("obstacle_radius", 0.1).at_least(0).in("m").says("cylinder or sphere radius"));
  p(Param::reals("obstacle_size", {0.2, 0.2}).at_least(0).in("m").says("box [width, height] (3D: [x, y, z] lengths)"));
  p(Param::string("obstacle_file", "").says("obstacle = \"mask\": a simkit snapshot or checkpoint holding the mask field"));
  p(Param::string("obstacle_dataset", "mask").says("obstacle = \"mask\": the field of obstacle_file (shape grid.cells)"));
  p(Param::string("dye", "none").one_of({"none", "stripes", "half"})
     .says("passive scalar: initial pattern (stripes also stream in through an inflow)"));
  p(Param::real("dye_diffusivity", 0.0).at_least(0).in("m^2/s").says("diffusivity of the dye"));
}

}  // namespace

void describe_fluid_params(ModelInfo& m) {
  m.schema.section = "model";
  m.schema.doc = "incompressible fluid parameters";
  add_model_keys(m.schema);
  m.uses_boundary = true;
  m.boundary_kinds = {"wall", "periodic", "inflow", "outflow"};
  m.boundary_default = "wall";
  m.boundary_value_doc = "a wall's tangential velocity (m/s; along +y on x faces, +x on y and z faces: a lid), an inflow's "
                         "mean velocity (m/s)";
  const std::string renamed = "was replaced by [boundary] ";
  m.schema.retired = {
      {"left", renamed + "x_lo (wall, periodic, inflow or outflow), e.g. x_lo = \"inflow\""},
      {"right", renamed + "x_hi, e.g. x_hi = \"outflow\""},
      {"bottom", renamed + "y_lo, e.g. y_lo = \"wall\""},
      {"top", renamed + "y_hi, e.g. y_hi = \"wall\""},
      {"lid_velocity", renamed + "y_hi_value (the y_hi wall's tangential velocity), e.g. y_hi_value = 1.0"},
      {"inflow_velocity", renamed + "x_lo_value (the inflow's mean velocity, with x_lo = \"inflow\"), e.g. x_lo_value = 1.0"},
  };
}

FluidParams read_fluid_params(const io::Config& c, const Grid<2>& global) {
  FluidParams p;
  p.viscosity = c.real("model", "viscosity");
  p.dye_diffusivity = c.real("model", "dye_diffusivity");
  p.stages = time_scheme_stages(c);
  p.implicit_viscosity = c.string("model", "viscous_scheme") == "implicit";
  p.viscous_tol = c.real("model", "viscous_tol");
  p.viscous_max_iterations = int(c.integer("model", "viscous_max_iterations"));
  p.upwind_weight = c.string("model", "advection") == "upwind" ? c.real("model", "upwind_weight") : 0.0;
  p.pressure_tol = c.real("model", "pressure_tol");
  p.pressure_max_iterations = int(c.integer("model", "pressure_max_iterations"));
  p.init.kind = c.string("model", "init");
  p.init.dye = c.string("model", "dye");
  p.init.amplitude = c.real("model", "init_velocity");
  p.init.length[0] = global.dx[0] * double(global.cells.n[0]), p.init.length[1] = global.dx[1] * double(global.cells.n[1]);
  p.faces = boundary_from_config<2>(c);
  check_sides(c, p.faces);
  p.parabolic_inflow = c.string("model", "inflow_profile") == "parabolic";
  choose_solve_start(c, p);
  p.pressure_solver = c.string("model", "pressure_solver");
  if (c.is_set("model", "pressure_mg_smooth")) {  // (0: the precision's default)
    const std::vector<std::int64_t>& sweeps = c.integers("model", "pressure_mg_smooth");
    p.mg_smooth_set = true, p.mg_smooth[0] = int(sweeps[0]), p.mg_smooth[1] = int(sweeps[1]);
  }
  return p;
}

int time_scheme_stages(const io::Config& c) {
  const std::string& scheme = c.string("model", "time_scheme");
  if (scheme == "rk3" && c.string("model", "viscous_scheme") == "implicit")
    throw c.error_at("model", "time_scheme", "rk3 runs with explicit viscosity; with viscous_scheme = \"implicit\" set "
                                             "time_scheme = \"rk2\" (the trapezoidal rule) or \"euler\"");
  return scheme == "euler" ? 1 : scheme == "rk2" ? 2 : 3;
}

double start_speed_scale(const FluidParams& p) {
  const bool inflow = side_of(p.faces.lo[0].kind) == Side::inflow;
  double speed = std::max(std::abs(inflow ? p.faces.lo[0].value : 1.0) * (p.parabolic_inflow ? 1.5 : 1.0),
                          std::abs(p.init.amplitude) * (p.init.kind == "rest" ? 0.0 : 1.0));
  for (int k = 0; k < 4; ++k)
    if (face_of(p.faces, k).kind == BcKind::wall) speed = std::max(speed, std::abs(face_of(p.faces, k).value));
  return speed;
}

std::vector<double> obstacle_mask(const io::Config& c, const Grid<2>& global) {
  const std::string kind = c.string("model", "obstacle");
  if (kind == "none") return {};
  if (kind == "mask" || kind == "sphere") return obstacle_fluid_mask<2>(c, global);  // (the shared reader: a mask file, or the refusal of a sphere)
  const std::vector<double>& centre = c.reals("model", "obstacle_center");
  const std::vector<double>& size = c.reals("model", "obstacle_size");
  if (centre.size() != 2) throw c.error_at("model", "obstacle_center", "expected 2 coordinates [x, y]");
  if (size.size() != 2) throw c.error_at("model", "obstacle_size", "expected 2 lengths [width, height]");
  const double r = c.real("model", "obstacle_radius");
  const index_t nx = global.cells.n[0], ny = global.cells.n[1];
  std::vector<double> f(std::size_t(nx * ny), 1.0);
  index_t solid = 0;
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j < ny; ++j) {
      const double x = global.center(0, i) - centre[0], y = global.center(1, j) - centre[1];
      const bool inside = kind == "cylinder" ? x * x + y * y <= r * r
                                             : std::abs(x) <= 0.5 * size[0] && std::abs(y) <= 0.5 * size[1];
      if (inside) f[std::size_t(i * ny + j)] = 0.0, ++solid;
    }
  if (solid == 0)
    throw c.error_at("model", "obstacle", "the " + kind + " covers no cell centre; enlarge it or refine the grid");
  if (solid == nx * ny) throw c.error_at("model", "obstacle", "the " + kind + " covers the whole domain");
  return f;
}

}  // namespace sim::fluid
