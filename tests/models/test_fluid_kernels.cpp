// The fluid's ghost fill in one pass (models/fluid/fluid_kernels.hpp, FillSides) against the
// two passes it replaces on one rank (FillYSides, then FillXSides): the same bits in every
// ghost and boundary face, for every kind of side, on every backend.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "core/for_each.hpp"
#include "core/random.hpp"
#include "models/fluid/fluid_kernels.hpp"
#include "tests/support/backends.hpp"

using namespace sim;
using fluid::Side;

namespace sim_test {

/// How the one-pass fill runs: as a for_each, or (cpu backend) point by point on this thread,
/// first to last or last to first, so a point that depends on another's writes shows.
enum class Order { for_each, ascending, descending };

/// (u, v, d) with random values everywhere (ghosts too), filled by two passes and by one;
/// returns the two results as host vectors, ghosts included.
template <class T>
std::pair<std::vector<T>, std::vector<T>> fill_both_ways(const Context& ctx, const fluid::BoundarySpec<T>& b, bool predict,
                                                         Order order) {
  const double length[2] = {1.0, 1.25};
  const Grid<2> g = Grid<2>::uniform(extents(b.nx, b.ny), length);
  Field<T, 2> u(ctx, g), v(ctx, g), d(ctx, g), u1(ctx, g), v1(ctx, g), d1(ctx, g);
  for (auto [a, c] : {std::pair{&u, &u1}, std::pair{&v, &v1}, std::pair{&d, &d1}}) {
    fill_uniform(a->storage(), T(-1), T(1));
    c->storage().copy_from(a->storage());
  }
  for_each(ctx, "test::fill_y_sides", Box<1>{{0}, {b.nx}}, fluid::FillYSides<T>{b, u.view(), v.view(), d.view()});
  for_each(ctx, "test::fill_x_sides", Box<1>{{-1}, {b.ny + 1}}, fluid::FillXSides<T>{b, u.view(), v.view(), d.view(), predict});
  const fluid::FillSides<T> one{b, u1.view(), v1.view(), d1.view(), predict};
  const index_t points = b.nx + b.ny + 2;
  if (order == Order::for_each) for_each(ctx, "test::fill_sides", Box<1>{{0}, {points}}, one);
  for (index_t k = 0; order == Order::ascending && k < points; ++k) one(k);
  for (index_t k = points - 1; order == Order::descending && k >= 0; --k) one(k);
  std::pair<std::vector<T>, std::vector<T>> out;
  for (auto [a, c] : {std::pair{&u, &u1}, std::pair{&v, &v1}, std::pair{&d, &d1}}) {
    const std::vector<T> x = a->to_host_with_ghosts(), y = c->to_host_with_ghosts();
    out.first.insert(out.first.end(), x.begin(), x.end());
    out.second.insert(out.second.end(), y.begin(), y.end());
  }
  return out;
}

/// The side combinations one rank can have: x (low, high) by y (both the same kind).
inline std::vector<std::pair<std::string, std::array<Side, 4>>> one_rank_sides() {
  return {{"walls", {Side::wall, Side::wall, Side::wall, Side::wall}},
          {"periodic x, walls y", {Side::periodic, Side::periodic, Side::wall, Side::wall}},
          {"walls x, periodic y", {Side::wall, Side::wall, Side::periodic, Side::periodic}},
          {"periodic both", {Side::periodic, Side::periodic, Side::periodic, Side::periodic}},
          {"inflow, outflow, walls y", {Side::inflow, Side::outflow, Side::wall, Side::wall}},
          {"inflow, outflow, periodic y", {Side::inflow, Side::outflow, Side::periodic, Side::periodic}},
          {"inflow, wall, walls y", {Side::inflow, Side::wall, Side::wall, Side::wall}},
          {"wall, outflow, walls y", {Side::wall, Side::outflow, Side::wall, Side::wall}}};
}

}  // namespace sim_test

template <class B>
class FluidKernels : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(FluidKernels);

template <class T>
void expect_one_pass_fill_matches(const Context& ctx, sim_test::Order order) {
  for (const auto& [name, sides] : sim_test::one_rank_sides())
    for (auto [nx, ny] : {std::pair<index_t, index_t>{2, 2}, {7, 5}, {64, 33}})
      for (bool predict : {false, true}) {
        fluid::BoundarySpec<T> b;
        for (int s = 0; s < 4; ++s) b.side[s] = sides[std::size_t(s)], b.wall_velocity[s] = T(0.25 * (s + 1));
        b.parabolic = nx == 7, b.dye_pattern = 1, b.inflow_velocity = T(1.5);
        b.nx = nx, b.ny = ny, b.ny_global = ny, b.hx = T(1.0 / double(nx)), b.hy = T(1.25 / double(ny));
        const auto [two, one] = sim_test::fill_both_ways<T>(ctx, b, predict, order);
        ASSERT_EQ(two.size(), one.size());
        std::size_t differ = 0;
        for (std::size_t k = 0; k < two.size(); ++k) differ += std::memcmp(&two[k], &one[k], sizeof(T)) != 0;
        EXPECT_EQ(differ, 0u) << name << ", " << nx << " x " << ny << (predict ? ", predict" : "") << ", order "
                              << int(order);
      }
}

TYPED_TEST(FluidKernels, OnePassGhostFillGivesTheTwoPassBits) {
  expect_one_pass_fill_matches<double>(this->ctx, sim_test::Order::for_each);
  expect_one_pass_fill_matches<float>(this->ctx, sim_test::Order::for_each);
}

TEST(FluidKernelsOnTheHost, OnePassGhostFillDoesNotDependOnThePointsOrder) {
  const Context ctx = Context::create(BackendRequest::cpu);
  for (auto order : {sim_test::Order::ascending, sim_test::Order::descending}) {
    expect_one_pass_fill_matches<double>(ctx, order);
    expect_one_pass_fill_matches<float>(ctx, order);
  }
}
