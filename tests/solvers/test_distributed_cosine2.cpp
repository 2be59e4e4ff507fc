// solvers/distributed_cosine2.hpp: a slab's rows held in makhoul_segments' order land in
// Makhoul's order when each segment is moved to its place (what the peer transposes do), for
// every split of odd and even row counts, empty slabs included; on one rank the order is
// Makhoul's itself.
#include <gtest/gtest.h>

#include <vector>

#include "solvers/distributed_cosine2.hpp"
#include "solvers/distributed_transform.hpp"

using namespace sim;
using namespace sim::solvers;

TEST(DistributedCosine2, SegmentsPutEverySlabsRowsInMakhoulsOrder) {
  for (index_t n : {1, 2, 3, 4, 5, 8, 9, 17, 64}) {
    for (int ranks : {1, 2, 3, 4, 7}) {
      std::vector<int> hits(std::size_t(n), 0);
      const index_t cells[1] = {n};
      for (int r = 0; r < ranks; ++r) {
        const Box<1> slab = slab_box<1>(cells, 0, ranks, r);
        const std::vector<RowSegment> segments = makhoul_segments(slab.lo[0], slab.hi[0], n);
        ASSERT_EQ(segments.size(), 2u);
        EXPECT_EQ(segments[0].local, 0);
        EXPECT_EQ(segments[1].local, segments[0].count);
        EXPECT_EQ(segments[0].count + segments[1].count, slab.extent(0)) << "n " << n << ", rank " << r << " of " << ranks;
        const SlabRowPlace place = SlabRowPlace::of(slab.lo[0], slab.hi[0], n, true);
        for (index_t i = 0; i < slab.extent(0); ++i) {
          const index_t local = place(i);
          ASSERT_GE(local, 0);
          ASSERT_LT(local, slab.extent(0));
          // the local row's place in Makhoul's order of all n, through its segment
          const RowSegment& s = local < segments[1].local ? segments[0] : segments[1];
          const index_t global = s.global + (local - s.local);
          EXPECT_EQ(global, makhoul_position(slab.lo[0] + i, n)) << "n " << n << ", rank " << r << " of " << ranks << ", row " << i;
          ++hits[std::size_t(global)];
        }
        EXPECT_EQ(SlabRowPlace::of(slab.lo[0], slab.hi[0], n, false)(slab.extent(0) - 1), slab.extent(0) - 1);
      }
      for (index_t p = 0; p < n; ++p) EXPECT_EQ(hits[std::size_t(p)], 1) << "n " << n << ", " << ranks << " ranks, place " << p;
    }
  }
}

TEST(DistributedCosine2, OnOneRankThePlaceIsMakhoulsPosition) {
  for (index_t n : {2, 7, 10}) {
    const SlabRowPlace place = SlabRowPlace::of(0, n, n, true);
    for (index_t i = 0; i < n; ++i) EXPECT_EQ(place(i), makhoul_position(i, n)) << "n " << n << ", row " << i;
  }
}
