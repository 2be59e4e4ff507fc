// The cpu backend's row forms of the fluid kernels (models/fluid/fluid_kernels.hpp): the
// momentum stage (MomentumRows) gives MomentumStage's bits point by point, in float and
// double, with and without a base state (Heun's second stage), with closed and open sides, on
// boxes whose rows are longer and shorter than a vector; the staged projection (ProjectRows)
// gives Project's bits on the faces, the stored pressure and the fused maximum speeds, on the
// Makhoul-ordered buffer and on a natural one; the pressure right-hand side (PressureRhsRows)
// gives PressureRhs's bits in the field and in the staged buffer. The ghost fill in one pass
// (FillSides) gives the two passes' bits (FillYSides, then FillXSides) in every ghost and
// boundary face, for every kind of side one rank has, on every backend, whatever the order
// of its points.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "core/cpu/for_each.hpp"
#include "core/kernels/for_each.hpp"
#include "core/kernels/for_each_reduce.hpp"
#include "core/numerics/random.hpp"
#include "models/fluid/fluid_kernels.hpp"
#include "tests/support/backends.hpp"

using namespace sim;
using sim::fluid::MomentumRows;
using sim::fluid::MomentumStage;
using sim::fluid::Project;
using sim::fluid::ProjectRows;
using sim::fluid::PressureRhs;
using sim::fluid::PressureRhsRows;
using sim::fluid::SpeedPair;

namespace {

template <class T>
std::vector<T> host(const Field<T, 2>& f) {
  return f.storage().to_host();
}

template <class T>
void rows_match_points(index_t nx, index_t ny, double w) {
  const Context ctx = Context::create("cpu");
  const double len[2] = {1.0, 1.5};
  const Grid<2> g = Grid<2>::uniform(extents(nx, ny), len);
  Field<T, 2> u(ctx, g), v(ctx, g), u0(ctx, g), v0(ctx, g), p(ctx, g), ua(ctx, g), va(ctx, g), ub(ctx, g), vb(ctx, g);
  for (Field<T, 2>* f : {&u, &v, &u0, &v0, &p}) fill_uniform(f->storage(), T(-1), T(1));
  for (Field<T, 2>* f : {&ua, &va, &ub, &vb}) f->storage().fill(T(7));
  solvers::PoissonStencil<T> links;
  links.nx = nx, links.ny = ny;
  links.side_c[0] = T(0), links.side_c[1] = T(1), links.side_c[2] = T(0), links.side_c[3] = T(1);
  const double dt = 1.0 / 3.0;
  MomentumStage<T> k{u.view(), v.view(), u.view(), u0.view(), v0.view(), u.view(), ua.view(), va.view(), ua.view(), {}, {},
                     p.view(), links, T(nx), T(ny / 1.5), T(nx * nx), T(ny * ny / 2.25), T(0.01), T(0), T(0.25), T(w),
                     T(1 - w), T(w), &dt, 1 - w, 1 - w, 0.0, 0.0, 0.0, 0.01, false, nx, ny, false};
  ASSERT_TRUE(MomentumRows<T>::applies(k));
  const Box<2> box{{0, 0}, {nx, ny}};
  cpu::for_each(box, k);
  MomentumStage<T> kb = k;
  kb.uo = ub.view(), kb.vo = vb.view(), kb.dout = ub.view();
  cpu::for_each(box, MomentumRows<T>{kb});
  const std::vector<T> a = host(ua), b = host(ub), c = host(va), d = host(vb);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)), 0) << "u faces differ";
  EXPECT_EQ(std::memcmp(c.data(), d.data(), c.size() * sizeof(T)), 0) << "v faces differ";
  kb.carry = true;  // a stage the row form does not cover
  EXPECT_FALSE(MomentumRows<T>::applies(kb));
}

}  // namespace

TEST(MomentumRows, SameBitsAsThePointForm) {
  for (double w : {0.0, 0.5}) {
    rows_match_points<float>(37, 29, w);
    rows_match_points<double>(37, 29, w);
    rows_match_points<float>(5, 3, w);
    rows_match_points<double>(130, 131, w);
  }
}

namespace {

template <class T>
void project_rows_match_points(index_t nx, index_t ny, bool permuted, bool fused) {
  const Context ctx = Context::create("cpu");
  const double len[2] = {1.0, 1.5};
  const Grid<2> g = Grid<2>::uniform(extents(nx, ny), len);
  Field<T, 2> ua(ctx, g), va(ctx, g), sa(ctx, g), ub(ctx, g), vb(ctx, g), sb(ctx, g);
  fill_uniform(ua.storage(), T(-1), T(1));
  fill_uniform(va.storage(), T(-1), T(1));
  ub.storage().copy_from(ua.storage()), vb.storage().copy_from(va.storage());
  sa.storage().fill(T(3)), sb.storage().fill(T(3));
  Array<T, 2> staged(ctx, extents(nx, ny));
  fill_uniform(staged, T(-2), T(2));
  const fft::StagedView<T> p{staged.data(), nx, ny, permuted};
  solvers::PoissonStencil<T> links;
  links.nx = nx, links.ny = ny;
  links.side_c[0] = T(0), links.side_c[1] = T(1), links.side_c[2] = T(0), links.side_c[3] = T(1);
  const double dt = 0.7;
  const Project<T, fft::StagedView<T>> ka{ua.view(), va.view(), p, links, &dt, double(nx), ny / 1.5, sa.view()};
  Project<T, fft::StagedView<T>> kb = ka;
  kb.u = ub.view(), kb.v = vb.view(), kb.store = sb.view();
  ASSERT_TRUE(ProjectRows<T>::applies(kb));
  const Box<2> faces{{0, 0}, {nx + 1, ny + 1}};
  if (fused) {
    ForEachReduce<SpeedPair, fluid::LargerSpeeds> pass(ctx, fluid::LargerSpeeds{}, SpeedPair{0.0, 0.0});
    SpeedPair a{-1, -1}, b{-2, -2};
    pass.queue("test::project", faces, ka, &a);
    pass.queue("test::project_rows", faces, ProjectRows<T>{kb}, &b);
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "speeds differ: " << a.u << " " << a.v << " / " << b.u << " " << b.v;
  } else {
    cpu::for_each(faces, [&](index_t i, index_t j) { ka(i, j); });
    cpu::for_each(faces, ProjectRows<T>{kb});
  }
  for (auto [x, y] : {std::pair{&ua, &ub}, std::pair{&va, &vb}, std::pair{&sa, &sb}}) {
    const std::vector<T> hx = host(*x), hy = host(*y);
    EXPECT_EQ(std::memcmp(hx.data(), hy.data(), hx.size() * sizeof(T)), 0) << "fields differ";
  }
  links.periodic_x = true;
  kb.links = links;
  EXPECT_FALSE(ProjectRows<T>::applies(kb));
}

}  // namespace

TEST(ProjectRows, SameBitsAsThePointForm) {
  for (bool fused : {false, true})
    for (bool permuted : {true, false}) {
      project_rows_match_points<float>(37, 29, permuted, fused);
      project_rows_match_points<double>(37, 29, permuted, fused);
      project_rows_match_points<float>(6, 3, permuted, fused);
      project_rows_match_points<double>(130, 128, permuted, fused);
    }
}

namespace {

template <class T>
void rhs_rows_match_points(index_t nx, index_t ny, bool permuted) {
  const Context ctx = Context::create("cpu");
  const double len[2] = {1.0, 1.5};
  const Grid<2> g = Grid<2>::uniform(extents(nx, ny), len);
  Field<T, 2> u(ctx, g), v(ctx, g), ba(ctx, g), bb(ctx, g);
  fill_uniform(u.storage(), T(-1), T(1));
  fill_uniform(v.storage(), T(-1), T(1));
  ba.storage().fill(T(5)), bb.storage().fill(T(5));
  Array<T, 2> sa(ctx, extents(nx, ny)), sb(ctx, extents(nx, ny));
  sa.fill(T(6)), sb.fill(T(6));
  solvers::PoissonStencil<T> links;
  links.nx = nx, links.ny = ny;
  const double dt = 0.3;
  const PressureRhs<T> ka{u.view(), v.view(), ba.view(), links, T(nx), T(ny / 1.5), &dt, fft::StagedView<T>{sa.data(), nx, ny, permuted}};
  PressureRhs<T> kb = ka;
  kb.b = bb.view(), kb.staged.data = sb.data();
  ASSERT_TRUE(PressureRhsRows<T>::applies(kb));
  const Box<2> box{{0, 0}, {nx, ny}};
  cpu::for_each(box, [&](index_t i, index_t j) { ka(i, j); });
  cpu::for_each(box, PressureRhsRows<T>{kb});
  const std::vector<T> x = host(ba), y = host(bb), p = sa.to_host(), q = sb.to_host();
  EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(T)), 0) << "b differs";
  EXPECT_EQ(std::memcmp(p.data(), q.data(), p.size() * sizeof(T)), 0) << "the staged buffer differs";
}

}  // namespace

TEST(PressureRhsRows, SameBitsAsThePointForm) {
  for (bool permuted : {true, false}) {
    rhs_rows_match_points<float>(37, 29, permuted);
    rhs_rows_match_points<double>(37, 29, permuted);
    rhs_rows_match_points<float>(4, 3, permuted);
    rhs_rows_match_points<double>(128, 130, permuted);
  }
}

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
