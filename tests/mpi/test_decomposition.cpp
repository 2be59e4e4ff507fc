// The split of a grid over ranks: which arrangement, which boxes, which neighbours; and the
// box copy the runner uses to take a rank's part of a checkpoint. No MPI needed.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "core/distributed/decomposition.hpp"
#include "core/runtime/error.hpp"
#include "core/distributed/halo.hpp"

namespace {

using sim::Decomposition;
using sim::index_t;

const bool closed[3] = {false, false, false};

TEST(Decomposition, AutomaticCutsTheFewestFaces) {
  const index_t square[2] = {64, 64}, wide[2] = {37, 29}, box[3] = {14, 11, 17};
  const Decomposition a = Decomposition::automatic(2, square, 2, 1);
  EXPECT_EQ(a.procs(0), 2);  // a tie: the slowest dimension is split
  EXPECT_EQ(a.procs(1), 1);
  const Decomposition b = Decomposition::automatic(2, wide, 4, 1);
  EXPECT_EQ(b.text(), "2 x 2");  // cut 29 + 37 < 3 x 29 < 3 x 37
  const Decomposition c = Decomposition::automatic(3, box, 4, 1);
  EXPECT_EQ(c.text(), "2 x 1 x 2");  // cut 11*17 + 14*11 is the smallest of the six
  EXPECT_EQ(Decomposition::automatic(1, square, 4, 1).text(), "4");
}

TEST(Decomposition, BoxesCoverTheGridOnceWithBalancedSizes) {
  const index_t cells[2] = {10, 7};
  const int procs[2] = {3, 2};
  const Decomposition d(2, cells, procs, 1);
  std::vector<int> owner(70, -1);
  for (int r = 0; r < d.ranks(); ++r) {
    const sim::Subdomain s = d.subdomain(r, closed);
    EXPECT_EQ(s.rank, r);
    for (index_t i = 0; i < s.cells[0]; ++i)
      for (index_t j = 0; j < s.cells[1]; ++j) {
        int& o = owner[std::size_t((s.offset[0] + i) * 7 + s.offset[1] + j)];
        EXPECT_EQ(o, -1);
        o = r;
      }
  }
  for (int o : owner) EXPECT_GE(o, 0);
  EXPECT_EQ(d.subdomain(0, closed).cells[0], 4);  // 10 = 4 + 3 + 3
  EXPECT_EQ(d.subdomain(2, closed).offset[0], 4);
  EXPECT_EQ(d.subdomain(4, closed).offset[0], 7);
  EXPECT_EQ(d.subdomain(1, closed).cells[1], 3);  // 7 = 4 + 3
}

TEST(Decomposition, NeighboursWrapOnlyAcrossPeriodicFaces) {
  const index_t cells[2] = {8, 8};
  const int procs[2] = {2, 2};
  const Decomposition d(2, cells, procs, 1);
  const sim::Subdomain s = d.subdomain(0, closed);  // coord (0, 0)
  EXPECT_EQ(s.neighbour[0][0], -1);
  EXPECT_EQ(s.neighbour[0][1], 2);
  EXPECT_EQ(s.neighbour[1][0], -1);
  EXPECT_EQ(s.neighbour[1][1], 1);
  const bool periodic_x[3] = {true, false, false};
  const sim::Subdomain p = d.subdomain(0, periodic_x);
  EXPECT_EQ(p.neighbour[0][0], 2);  // two ranks along x: the same rank on both sides
  EXPECT_EQ(p.neighbour[0][1], 2);
  EXPECT_TRUE(p.at_boundary(1, 0));
  const int one[2] = {1, 4};
  const sim::Subdomain q = Decomposition(2, cells, one, 1).subdomain(3, periodic_x);
  EXPECT_EQ(q.neighbour[0][0], -1);  // one rank along x: its own ghost fill wraps
  EXPECT_EQ(q.neighbour[1][0], 2);
  EXPECT_EQ(q.neighbour[1][1], -1);
}

TEST(Decomposition, TooSmallForTheRanksIsAnError) {
  const index_t cells[1] = {3};
  EXPECT_THROW(Decomposition::automatic(1, cells, 4, 1), sim::Error);
  const int procs[1] = {2};
  EXPECT_THROW(Decomposition(1, cells, procs, 2), sim::Error);  // 1 cell cannot feed 2 ghost layers
  try {
    Decomposition::automatic(1, cells, 4, 1);
  } catch (const sim::Error& e) {
    EXPECT_NE(std::string(e.what()).find("fewer ranks"), std::string::npos) << e.what();
  }
}

TEST(Decomposition, CopyBoxTakesARanksPartOfAGlobalArray) {
  const index_t shape[3] = {4, 5, 6}, offset[3] = {1, 2, 3}, count[3] = {2, 3, 2};
  std::vector<double> whole(120);
  std::iota(whole.begin(), whole.end(), 0.0);
  std::vector<double> part(12);
  sim::copy_box(whole.data(), 3, shape, offset, count, sizeof(double), part.data());
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < 3; ++j)
      for (index_t k = 0; k < 2; ++k)
        EXPECT_EQ(part[std::size_t((i * 3 + j) * 2 + k)], double(((1 + i) * 5 + 2 + j) * 6 + 3 + k));
}

TEST(Halo, InnerAndRimCoverTheInteriorOnce) {
  // a 3D box with shared faces at x low, y both sides and z high (the others on the boundary)
  sim::Subdomain sub;
  sub.neighbour[0][0] = 1, sub.neighbour[1][0] = 2, sub.neighbour[1][1] = 3, sub.neighbour[2][1] = 4;
  const sim::Halo<double, 3> halo(sim::Comm(), sub, 1);
  const sim::Box<3> interior{{0, 0, 0}, {5, 4, 6}};
  std::vector<int> covered(5 * 4 * 6, 0);
  auto mark = [&](const sim::Box<3>& b) {
    for (index_t i = b.lo[0]; i < b.hi[0]; ++i)
      for (index_t j = b.lo[1]; j < b.hi[1]; ++j)
        for (index_t k = b.lo[2]; k < b.hi[2]; ++k) ++covered[std::size_t((i * 4 + j) * 6 + k)];
  };
  const sim::Box<3> in = halo.inner(interior);
  EXPECT_EQ(in.lo[0], 1);  // one layer off each shared face, none off the others
  EXPECT_EQ(in.hi[0], 5);
  EXPECT_EQ(in.lo[1], 1);
  EXPECT_EQ(in.hi[1], 3);
  EXPECT_EQ(in.hi[2], 5);
  mark(in);
  const auto rim = halo.rim(interior);
  EXPECT_EQ(rim.size(), 4u);
  for (const auto& b : rim) mark(b);
  for (int c : covered) EXPECT_EQ(c, 1);
}

}  // namespace
