#pragma once
// The obstacle problems the obstacle transform solve is tested on, one rank and several: the
// side sets (every kind, mixed, the singular boxes), the obstacle shapes and their fluid masks.
#include <cmath>
#include <cstddef>
#include <vector>

#include "solvers/obstacle_transform_poisson.hpp"

namespace sim_test::obstacle_cases {

using sim::index_t;
using P = sim::solvers::PressureSide;

/// A box's six sides (low, high per axis), named.
struct SideSet {
  const char* name;
  P sides[6];
};
/// The side sets tried: every kind, mixed, and the singular boxes.
inline const SideSet kSideSets[] = {
    {"neumann all round (singular)", {P::neumann, P::neumann, P::neumann, P::neumann, P::neumann, P::neumann}},
    {"periodic all round (singular)", {P::periodic, P::periodic, P::periodic, P::periodic, P::periodic, P::periodic}},
    {"dirichlet all round", {P::dirichlet, P::dirichlet, P::dirichlet, P::dirichlet, P::dirichlet, P::dirichlet}},
    {"inflow-outflow channel", {P::neumann, P::dirichlet, P::neumann, P::neumann, P::neumann, P::neumann}},
    {"periodic x, walls and dirichlet", {P::periodic, P::periodic, P::dirichlet, P::neumann, P::neumann, P::dirichlet}},
};

/// The obstacles tried (cell centre (x, y[, z]) in [0, 1]^Rank is solid when solid_at says so).
enum class Shape { round, box_at_side, box_across_edge };
inline const char* shape_name(Shape s) {
  return s == Shape::round ? "cylinder/sphere" : s == Shape::box_at_side ? "box touching x_lo" : "box across the x edge";
}
inline bool solid_at(Shape s, const double* x, int rank) {
  switch (s) {
    case Shape::round: {
      double r2 = (x[0] - 0.4) * (x[0] - 0.4) + (x[1] - 0.55) * (x[1] - 0.55);
      if (rank == 3) r2 += (x[2] - 0.5) * (x[2] - 0.5);
      return r2 < 0.2 * 0.2;
    }
    case Shape::box_at_side: return x[0] < 0.2 && std::abs(x[1] - 0.5) < 0.2 && (rank == 2 || std::abs(x[2] - 0.4) < 0.25);
    default: return (x[0] < 0.12 || x[0] > 0.9) && std::abs(x[1] - 0.3) < 0.15 && (rank == 2 || x[2] > 0.3);
  }
}

/// Row-major fluid mask (1 fluid, 0 solid) of box.
template <int Rank, class T = double>
std::vector<T> mask_of(const sim::solvers::TransformBox<Rank>& box, Shape shape) {
  std::vector<T> m(std::size_t(box.cells()));
  for (index_t a = 0; a < box.cells(); ++a) {
    double x[3] = {0, 0, 0};
    index_t rest = a;
    for (int d = Rank - 1; d >= 0; --d) x[d] = (double(rest % box.n[d]) + 0.5) / double(box.n[d]), rest /= box.n[d];
    m[std::size_t(a)] = T(!solid_at(shape, x, Rank));
  }
  return m;
}

}  // namespace sim_test::obstacle_cases
