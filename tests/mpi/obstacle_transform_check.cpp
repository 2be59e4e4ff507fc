// Run under mpirun (or alone): the obstacle transform solve split over this run's ranks
// (solvers/distributed_obstacle_transform.hpp) must equal the one-rank obstacle transform
// solve of the whole grid (solvers/obstacle_transform_poisson.hpp) to rounding,
//     max |p_N - p_1| <= 50 eps max |p_1|      (eps of the element type),
// around a cylinder, a box touching a side and a box across a periodic edge in 2D and a
// sphere in 3D, for singular boxes (Neumann or periodic all round: b made mean-free on the
// fluid, one cell pinned) and boxes with Dirichlet sides, every arrangement of the ranks
// (slabs along each axis, blocks; uneven boxes), float64 and float32. The one-rank reference
// must solve the masked operator to rounding (max |A p_1 - b| <= 100 eps max|p_1| |A|, in
// double on the host), and the ranks' surface cells must add up to the one-rank count. Prints
// the worst ratio; exit 1 on any rank's failure.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/distributed/decomposition.hpp"
#include "solvers/distributed_obstacle_transform.hpp"
#include "solvers/obstacle_transform_poisson.hpp"
#include "tests/mpi/split_solve_check.hpp"
#include "tests/support/obstacle_cases.hpp"

namespace {

using namespace sim;
using solvers::PressureSide;
using P = PressureSide;
using sim_test::split_solve_check::arrangements;
using sim_test::split_solve_check::kBound;
using sim_test::split_solve_check::Tally;

using namespace sim_test::obstacle_cases;

/// The row-major flat index of global cell g of box.
template <int Rank>
index_t flat(const solvers::TransformBox<Rank>& box, const index_t* g) {
  index_t a = 0;
  for (int d = 0; d < Rank; ++d) a = a * box.n[d] + g[d];
  return a;
}

/// Calls f(global index) for every cell of b, row-major.
template <int Rank, class F>
void for_cells(const Box<Rank>& b, const F& f) {
  index_t g[3] = {0, 0, 0};
  for (g[0] = b.lo[0]; g[0] < b.hi[0]; ++g[0])
    for (g[1] = b.lo[1]; g[1] < b.hi[1]; ++g[1])
      for (g[2] = Rank > 2 ? b.lo[2] : 0; g[2] < (Rank > 2 ? b.hi[2] : 1); ++g[2]) f(g);
}

/// max |A p - (b - fluid mean of b when singular)| over the fluid cells, and |p - b| on the
/// solid ones, of the masked operator (poisson.hpp's rules), in double on the host.
template <int Rank>
double residual(const solvers::TransformBox<Rank>& box, const std::vector<double>& mask, const std::vector<double>& p,
                const std::vector<double>& b) {
  double mean = 0, fluid = 0;
  for (std::size_t a = 0; a < b.size(); ++a) mean += mask[a] * b[a], fluid += mask[a];
  mean = box.singular() ? mean / fluid : 0;
  Box<Rank> all;
  for (int d = 0; d < Rank; ++d) all.hi[d] = box.n[d];
  double worst = 0;
  for_cells<Rank>(all, [&](const index_t* g) {
    const index_t at = flat<Rank>(box, g);
    if (mask[std::size_t(at)] == 0) {
      worst = std::max(worst, std::abs(p[std::size_t(at)] - b[std::size_t(at)]));
      return;
    }
    double ap = 0;
    for (int d = 0; d < Rank; ++d)
      for (int side = 0; side < 2; ++side) {
        index_t h[3] = {g[0], g[1], Rank > 2 ? g[2] : 0};
        h[d] += side ? 1 : -1;
        const P kind = box.sides[2 * d + side];
        double c = 1, nb = 0;
        if (h[d] < 0 || h[d] >= box.n[d]) {
          if (kind == P::periodic) h[d] = (h[d] + box.n[d]) % box.n[d];
          else c = kind == P::dirichlet ? 2 : 0;
        }
        if (c == 1) {
          const index_t j = flat<Rank>(box, h);
          if (mask[std::size_t(j)] == 0) c = 0;  // the link into the obstacle is closed
          else nb = p[std::size_t(j)];
        }
        ap += box.inv_h2[d] * c * (p[std::size_t(at)] - nb);
      }
    worst = std::max(worst, std::abs(ap - (b[std::size_t(at)] - mean)));
  });
  return worst;
}

template <class T, int Rank>
void check(const Comm& comm, const Context& ctx, const index_t (&cells)[Rank], const int (&procs)[Rank], const SideSet& set,
           Shape shape, Tally& tally) {
  solvers::TransformBox<Rank> box;
  index_t cells3[3] = {1, 1, 1};
  int procs3[3] = {1, 1, 1};
  for (int d = 0; d < Rank; ++d) {
    box.n[d] = cells3[d] = cells[d], procs3[d] = procs[d];
    box.inv_h2[d] = double(box.n[d] * box.n[d]) * (1.0 + 0.3 * d);  // unequal spacings
    box.sides[2 * d] = set.sides[2 * d], box.sides[2 * d + 1] = set.sides[2 * d + 1];
  }
  const std::vector<double> maskd = mask_of<Rank>(box, shape);
  const std::vector<T> mask(maskd.begin(), maskd.end());
  Box<Rank> all;
  for (int d = 0; d < Rank; ++d) all.hi[d] = box.n[d];
  std::vector<double> b;
  for_cells<Rank>(all, [&](const index_t* g) {
    double v = 0.3;
    for (int d = 0; d < Rank; ++d) v += std::sin(1.7 * double(g[d] + 1) * double(d + 2)) * (1.0 + 0.1 * d);
    b.push_back(v);
  });
  // the one-rank solve of the whole grid
  Extents<Rank> whole = all.shape();
  solvers::ObstacleTransformPoisson<T, Rank> one(ctx, box, mask);
  Array<T, Rank> b1 = Array<T, Rank>::from_host(ctx, whole, std::vector<T>(b.begin(), b.end())), x1(ctx, whole);
  one.solve(b1.view(), x1.view());
  const std::vector<T> p1t = x1.to_host();
  const std::vector<double> p1(p1t.begin(), p1t.end());
  double pmax = 0;
  for (double v : p1) pmax = std::max(pmax, std::abs(v));
  const double eps = std::numeric_limits<T>::epsilon();
  double anorm = 0;
  for (int d = 0; d < Rank; ++d) anorm += 4 * box.inv_h2[d];
  const double res = residual<Rank>(box, maskd, p1, b) / (eps * pmax * anorm);
  // the split solve
  const bool periodic[3] = {box.sides[0] == P::periodic, box.sides[2] == P::periodic, Rank > 2 && box.sides[4] == P::periodic};
  const Decomposition dec(Rank, cells3, procs3, 1);
  std::vector<Subdomain> subs;
  for (int r = 0; r < comm.size(); ++r) subs.push_back(dec.subdomain(r, periodic));
  const std::vector<Box<Rank>> boxes = solvers::boxes_of<Rank>(subs);
  const Box<Rank> mine = boxes[std::size_t(comm.rank())];
  solvers::DistributedObstacleTransformPoisson<T, Rank> split(comm, ctx, box, mask, boxes);
  std::vector<T> bm;
  for_cells<Rank>(mine, [&](const index_t* g) { bm.push_back(T(b[std::size_t(flat<Rank>(box, g))])); });
  Array<T, Rank> bl = Array<T, Rank>::from_host(ctx, mine.shape(), bm), xl(ctx, mine.shape());
  split.solve(bl.view(), xl.view());
  const std::vector<T> xs = xl.to_host();
  std::size_t k = 0;
  double diff = 0;
  for_cells<Rank>(mine, [&](const index_t* g) {
    diff = std::max(diff, std::abs(double(xs[k++]) - p1[std::size_t(flat<Rank>(box, g))]));
  });
  const double ratio = comm.max(diff / (eps * pmax));
  const double owned = comm.sum(double(split.owned_surface_cells()));
  const bool wrong_surface = owned != double(split.surface_cells()) || split.surface_cells() != one.surface_cells();
  if (tally.add(ratio, res, pmax, wrong_surface)) {
    if (comm.rank() == 0) {
      std::string s;
      for (int d = 0; d < Rank; ++d) s += (d ? " x " : "") + std::to_string(cells[d]) + "(" + std::to_string(procs[d]) + ")";
      std::printf("FAIL %dD %s %s, %s, %s: max |p_N - p_1| = %.3g eps max|p_1| (bound %g), one-rank residual %.3g (bound 100), "
                  "surface cells %lld owned of %lld (one rank %lld)\n",
                  Rank, sizeof(T) == 8 ? "float64" : "float32", s.c_str(), set.name, shape_name(shape), ratio, kBound, res,
                  (long long)owned, (long long)split.surface_cells(), (long long)one.surface_cells());
    }
  }
}

template <class T, int Rank>
void run_all(const Comm& comm, const Context& ctx, const index_t (&cells)[Rank], const std::vector<Shape>& shapes,
             int set_stride, Tally& tally) {
  for (const auto& p : arrangements<Rank>(comm.size(), cells, 2)) {
    int procs[Rank];
    for (int d = 0; d < Rank; ++d) procs[d] = p[std::size_t(d)];
    for (Shape shape : shapes)
      for (std::size_t s = 0; s < std::size(kSideSets); s += std::size_t(set_stride)) {
        if (shape == Shape::box_across_edge && kSideSets[s].sides[0] != P::periodic) continue;  // (across a periodic edge only)
        check<T, Rank>(comm, ctx, cells, procs, kSideSets[s], shape, tally);
      }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // usage: obstacle_transform_check [cpu|cuda]   (cuda: one GPU per rank, through NCCL when built with it)
  return sim_test::split_solve_check::run<Tally>(
      argc, argv, "obstacle_transform_check", "obstacle transform", [](const Comm& comm, const Context& ctx, Tally& t64, Tally& t32) {
        const index_t c2[2] = {26, 19}, c3[3] = {11, 9, 8};
        const std::vector<Shape> every = {Shape::round, Shape::box_at_side, Shape::box_across_edge};
        run_all<double, 2>(comm, ctx, c2, every, 1, t64);
        run_all<float, 2>(comm, ctx, c2, every, 1, t32);
        run_all<double, 3>(comm, ctx, c3, {Shape::round}, 1, t64);
        run_all<float, 3>(comm, ctx, c3, {Shape::round, Shape::box_across_edge}, 2, t32);
        return std::string();
      });
}
