// sim::one_block: a chain of passes on one block of threads, each pass seeing everything the
// passes before it wrote (team.sync()), gives what the same passes as separate for_each
// launches give; boxes larger and smaller than the block, and an empty one.
#include <gtest/gtest.h>

#include <vector>

#include "core/array/array.hpp"
#include "core/kernels/for_each.hpp"
#include "core/kernels/one_block.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

namespace {

/// a(i, j) = i * 1000 + j.
struct Seed {
  View<double, 2> a;
  SIM_INLINE void operator()(index_t i, index_t j) const { a(i, j) = double(i * 1000 + j); }
};

/// b(i, j) = sum of a's four neighbours (wrapped): reads what other threads wrote.
struct Neighbours {
  View<const double, 2> a;
  View<double, 2> b;
  index_t n0, n1;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    b(i, j) = a((i + 1) % n0, j) + a((i + n0 - 1) % n0, j) + a(i, (j + 1) % n1) + a(i, (j + n1 - 1) % n1);
  }
};

/// a(i, j) = b(n0 - 1 - i, n1 - 1 - j): reads the far side of b.
struct Mirror {
  View<const double, 2> b;
  View<double, 2> a;
  index_t n0, n1;
  SIM_INLINE void operator()(index_t i, index_t j) const { a(i, j) = b(n0 - 1 - i, n1 - 1 - j); }
};

struct Chain {
  View<double, 2> a, b;
  index_t n0, n1;
  int rounds;
  SIM_INLINE void operator()(const BlockTeam& team) const {
    const Box<2> box{{0, 0}, {n0, n1}};
    team.for_each(box, Seed{a});
    team.sync();
    for (int r = 0; r < rounds; ++r) {
      team.for_each(box, Neighbours{a, b, n0, n1});
      team.sync();
      team.for_each(box, Mirror{b, a, n0, n1});
      team.sync();
    }
  }
};

template <class B>
class OneBlock : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(OneBlock);

TYPED_TEST(OneBlock, ChainedPassesSeeEachOthersWrites) {
  for (const index_t n0 : {1, 7, 40, 64}) {
    const index_t n1 = n0 == 1 ? 3 : n0 + 5;  // 3 .. 69 x 69 = 4416 cells: fewer and more than the block's threads
    Array<double, 2> a(this->ctx, Extents<2>{{n0, n1}}), b(this->ctx, Extents<2>{{n0, n1}});
    Array<double, 2> ra(this->ctx, Extents<2>{{n0, n1}}), rb(this->ctx, Extents<2>{{n0, n1}});
    one_block(this->ctx, "test::chain", Chain{a.view(), b.view(), n0, n1, 3});
    const Box<2> box{{0, 0}, {n0, n1}};
    for_each(this->ctx, "test::seed", box, Seed{ra.view()});
    for (int r = 0; r < 3; ++r) {
      for_each(this->ctx, "test::neighbours", box, Neighbours{ra.view(), rb.view(), n0, n1});
      for_each(this->ctx, "test::mirror", box, Mirror{rb.view(), ra.view(), n0, n1});
    }
    const std::vector<double> got = a.to_host(), want = ra.to_host();
    EXPECT_EQ(got, want) << n0 << " x " << n1;
    EXPECT_GT(want[want.size() / 2], 0.0);
  }
}

TYPED_TEST(OneBlock, AnEmptyBoxDoesNothing) {
  Array<double, 2> a(this->ctx, Extents<2>{{4, 4}});
  a.fill(-1.0);
  one_block(this->ctx, "test::empty", Chain{a.view(), a.view(), 0, 4, 1});
  for (double v : a.to_host()) EXPECT_EQ(v, -1.0);
}

}  // namespace
