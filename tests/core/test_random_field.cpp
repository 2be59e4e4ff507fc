// Random fields keyed by the global cell index: on every backend, each box of a split grid
// holds the bits of the same box of one whole-grid fill, whatever the split.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "core/distributed/decomposition.hpp"
#include "core/numerics/random.hpp"
#include "core/numerics/random_field.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

template <class B>
class RandomFieldTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(RandomFieldTest);

namespace {

/// The whole-grid draw: fill_uniform (or fill_normal) of an array of the global cells.
template <class T, int Rank>
std::vector<T> whole_draw(const Context& ctx, const Extents<Rank>& cells, bool normal, std::uint64_t offset) {
  ctx.set_rng_state(ctx.rng_seed(), offset);
  Array<T, Rank> a(ctx, cells);
  if (normal)
    fill_normal(a, T(1), T(2));
  else
    fill_uniform(a, T(-1), T(3));
  return a.to_host();
}

/// The keyed draw of every box of a procs[0] x procs[1] x ... split, each from the same stream
/// state (as every rank's context is), put together row-major over the global grid.
template <class T, int Rank>
std::vector<T> split_draw(const Context& ctx, const Extents<Rank>& cells, const int (&procs)[3], bool normal,
                          std::uint64_t offset) {
  index_t n[3] = {1, 1, 1};
  for (int d = 0; d < Rank; ++d) n[d] = cells.n[d];
  const Decomposition split(Rank, n, procs, 1);
  const bool periodic[3] = {false, false, false};
  std::vector<T> whole(std::size_t(cells.size()));
  for (int r = 0; r < split.ranks(); ++r) {
    const Subdomain sub = split.subdomain(r, periodic);
    Extents<Rank> box;
    double length[Rank];
    for (int d = 0; d < Rank; ++d) box.n[d] = sub.cells[d], length[d] = 1.0;
    Field<T, Rank> f(ctx, Grid<Rank>::uniform(box, length));
    ctx.set_rng_state(ctx.rng_seed(), offset);
    if (normal)
      fill_normal(f, sub, cells, T(1), T(2));
    else
      fill_uniform(f, sub, cells, T(-1), T(3));
    const std::vector<T> h = f.to_host_with_ghosts();
    const index_t g = 1;  // ghost layer
    const index_t w1 = Rank > 1 ? sub.cells[1] + 2 * g : 1, w2 = Rank > 2 ? sub.cells[2] + 2 * g : 1;
    const index_t c1 = Rank > 1 ? sub.cells[1] : 1, c2 = Rank > 2 ? sub.cells[2] : 1;
    const index_t n1 = Rank > 1 ? cells.n[1] : 1, n2 = Rank > 2 ? cells.n[2] : 1;
    for (index_t i = 0; i < sub.cells[0]; ++i)
      for (index_t j = 0; j < c1; ++j)
        for (index_t k = 0; k < c2; ++k) {
          const index_t src = ((i + g) * w1 + (Rank > 1 ? j + g : 0)) * w2 + (Rank > 2 ? k + g : 0);
          const index_t dst = ((i + sub.offset[0]) * n1 + (j + sub.offset[1])) * n2 + (k + sub.offset[2]);
          whole[std::size_t(dst)] = h[std::size_t(src)];
        }
  }
  return whole;
}

template <class T, int Rank>
void expect_split_independent(const Context& ctx, const Extents<Rank>& cells, bool normal) {
  const std::uint64_t offset = 77;  // a stream already in use
  const std::vector<T> reference = whole_draw<T, Rank>(ctx, cells, normal, offset);
  const std::uint64_t after = ctx.rng_offset();
  for (const auto& procs : {std::array<int, 3>{1, 1, 1}, std::array<int, 3>{2, 1, 1}, std::array<int, 3>{3, 1, 1},
                            std::array<int, 3>{1, Rank > 1 ? 3 : 1, 1}, std::array<int, 3>{2, Rank > 1 ? 2 : 1, Rank > 2 ? 2 : 1}}) {
    const int p[3] = {procs[0], procs[1], procs[2]};
    const std::vector<T> got = split_draw<T, Rank>(ctx, cells, p, normal, offset);
    ASSERT_EQ(got.size(), reference.size());
    for (std::size_t e = 0; e < got.size(); ++e)
      ASSERT_EQ(got[e], reference[e]) << "split " << p[0] << "x" << p[1] << "x" << p[2] << ", cell " << e;
    EXPECT_EQ(ctx.rng_offset(), after) << "a keyed fill takes the whole grid's blocks on every rank";
  }
}

}  // namespace

TYPED_TEST(RandomFieldTest, UniformIsTheWholeGridDrawOnAnySplit) {
  expect_split_independent<double, 2>(this->ctx, extents(37, 29), false);
  expect_split_independent<float, 2>(this->ctx, extents(31, 43), false);  // 4 floats a block: lanes cross boxes
  expect_split_independent<float, 3>(this->ctx, extents(9, 11, 13), false);
  expect_split_independent<double, 1>(this->ctx, extents(101), false);
}

TYPED_TEST(RandomFieldTest, NormalIsTheWholeGridDrawOnAnySplit) {
  expect_split_independent<double, 3>(this->ctx, extents(7, 10, 9), true);
  expect_split_independent<float, 2>(this->ctx, extents(25, 19), true);
}

TYPED_TEST(RandomFieldTest, SuccessiveFieldsDiffer) {
  Field<double, 2> a(this->ctx, Grid<2>::uniform(extents(16, 16), {1.0, 1.0}));
  Field<double, 2> b(this->ctx, Grid<2>::uniform(extents(16, 16), {1.0, 1.0}));
  fill_uniform(a);
  fill_uniform(b);
  EXPECT_NE(a.to_host_with_ghosts(), b.to_host_with_ghosts());
}

TYPED_TEST(RandomFieldTest, ABoxOutsideTheGridIsRefused) {
  Field<double, 2> f(this->ctx, Grid<2>::uniform(extents(8, 8), {1.0, 1.0}));
  Subdomain sub;
  sub.cells[0] = 8, sub.cells[1] = 8, sub.offset[1] = 4;
  EXPECT_THROW(fill_uniform(f, sub, extents(8, 10)), ShapeError);  // 4 + 8 > 10
  sub.offset[1] = 2;
  EXPECT_NO_THROW(fill_uniform(f, sub, extents(8, 10)));
  sub.cells[0] = 7;  // not the field's box
  EXPECT_THROW(fill_uniform(f, sub, extents(8, 10)), ShapeError);
  EXPECT_THROW(fill_uniform(f, 1.0, 1.0), Error);
}
