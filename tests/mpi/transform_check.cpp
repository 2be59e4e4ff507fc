// Run under mpirun (or alone): the distributed transform Poisson solve
// (solvers/distributed_transform.hpp) on this run's ranks must equal the one-rank solve of
// the whole grid to rounding,
//     max |p_N - p_1| <= 50 eps max |p_1|      (eps of the element type),
// for 2D and 3D grids with uneven sizes, every side combination per axis (periodic, Neumann,
// Dirichlet, Neumann-Dirichlet, Dirichlet-Neumann), every arrangement of the ranks (slabs
// along each axis, and blocks, which move through both slab layouts; slabs left empty where an
// axis has fewer cells than ranks), the transposes whole or in 2 or 3 pieces (overlapped with
// the transforms on GPUs), float64 and float32. In 3D with y and z periodic and the boxes
// split along x (or blocks), the solver takes its 2D-FFT-over-(y, z) path: those cases (x
// periodic or walled, odd and even sizes, uneven slabs) are checked to take it, and the
// others not to; with x periodic they take the complex FFT along x. The one-rank reference
// is the one-rank solver of transform_poisson.hpp (TransformPoisson in 2D, TransformPoisson3
// in 3D); it must satisfy A p = b - mean(b) (singular problems) to rounding, evaluated in
// double on the host. Prints the worst ratio and the count of cases on the 2D-FFT path and
// of those on the complex FFT along x; in 2D with walls all round (Neumann) and the boxes split
// along x (or blocks), the solver's path of real FFTs of the rows and complex FFTs along x
// (distributed_cosine2.hpp), checked to be taken there and only there (odd and even sizes,
// slabs of the half spectrum left empty), and counted, and where every box is a slab along x
// solved once more through its staged rows (the right-hand side written there by the caller, the
// solution read from staged_result()), which must give solve()'s bits and be offered there
// only; in 3D with walls on y and z (Neumann)
// and the boxes split along x (or blocks), the path of batched 2D real FFTs over (y, z) of
// the reordered planes (distributed_cosine_yz.hpp), checked to be taken there and only there
// (x periodic, walled or Dirichlet, odd and even sizes, empty slabs), and counted; exit 1 on
// any rank's failure.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/distributed/decomposition.hpp"
#include "solvers/distributed_transform.hpp"
#include "tests/mpi/split_solve_check.hpp"

namespace {

using namespace sim;
using solvers::PressureSide;
using sim_test::split_solve_check::arrangements;
using sim_test::split_solve_check::kBound;

/// The five side pairs of an axis.
const PressureSide kPairs[5][2] = {{PressureSide::periodic, PressureSide::periodic},
                                   {PressureSide::neumann, PressureSide::neumann},
                                   {PressureSide::dirichlet, PressureSide::dirichlet},
                                   {PressureSide::neumann, PressureSide::dirichlet},
                                   {PressureSide::dirichlet, PressureSide::neumann}};

/// A right-hand side that differs at every cell (the same on every rank).
double rhs_at(const index_t* g, int rank) {
  double v = 0.3;
  for (int d = 0; d < rank; ++d) v += std::sin(1.7 * double(g[d] + 1) * double(d + 2)) * (1.0 + 0.1 * d);
  return v;
}

/// Row-major values of box (global indices) given by f(index).
template <int Rank, class F>
std::vector<double> on_box(const Box<Rank>& box, const F& f) {
  std::vector<double> v;
  index_t p[3] = {0, 0, 0};
  for (p[0] = box.lo[0]; p[0] < box.hi[0]; ++p[0])
    for (p[1] = box.lo[1]; p[1] < box.hi[1]; ++p[1])
      for (p[2] = Rank > 2 ? box.lo[2] : 0; p[2] < (Rank > 2 ? box.hi[2] : 1); ++p[2]) v.push_back(f(p));
  return v;
}

template <int Rank>
Box<Rank> whole_box(const index_t (&cells)[Rank]) {
  Box<Rank> b;
  for (int d = 0; d < Rank; ++d) b.lo[d] = 0, b.hi[d] = cells[d];
  return b;
}

/// max |A p - (b - mean b when singular)| over the grid, in double, row-major p and b of the whole grid.
template <int Rank>
double residual(const solvers::TransformProblem<Rank>& pr, const std::vector<double>& p, const std::vector<double>& b) {
  bool singular = true;
  for (PressureSide s : pr.sides) singular = singular && s != PressureSide::dirichlet;
  double mean = 0;
  for (double x : b) mean += x;
  mean = singular ? mean / double(b.size()) : 0;
  index_t n[3] = {1, 1, 1}, stride[3] = {0, 0, 1};
  for (int d = 0; d < Rank; ++d) n[d] = pr.cells[d];
  stride[1] = n[2], stride[0] = n[1] * n[2];
  double worst = 0;
  index_t i[3];
  for (i[0] = 0; i[0] < n[0]; ++i[0])
    for (i[1] = 0; i[1] < n[1]; ++i[1])
      for (i[2] = 0; i[2] < n[2]; ++i[2]) {
        const index_t at = i[0] * stride[0] + i[1] * stride[1] + i[2] * stride[2];
        double ap = 0;
        for (int d = 0; d < Rank; ++d)
          for (int side = 0; side < 2; ++side) {
            const index_t j = i[d] + (side ? 1 : -1);
            const PressureSide kind = pr.sides[2 * d + side];
            double c = 1, nb = 0;
            if (j >= 0 && j < n[d]) nb = p[std::size_t(at + (j - i[d]) * stride[d])];
            else if (kind == PressureSide::periodic) nb = p[std::size_t(at + (j < 0 ? n[d] - 1 : -(n[d] - 1)) * stride[d])];
            else c = kind == PressureSide::dirichlet ? 2 : 0;
            ap += pr.inv_h2[d] * c * (p[std::size_t(at)] - nb);
          }
        worst = std::max(worst, std::abs(ap - (b[std::size_t(at)] - mean)));
      }
  return worst;
}

/// The one-rank solution of the whole grid, row-major, on ctx.
template <class T, int Rank>
std::vector<double> one_rank(const Context& ctx, const solvers::TransformProblem<Rank>& pr, const std::vector<double>& b) {
  std::vector<T> bt(b.begin(), b.end());
  Extents<Rank> e;
  for (int d = 0; d < Rank; ++d) e.n[d] = pr.cells[d];
  Array<T, Rank> bb = Array<T, Rank>::from_host(ctx, e, bt);
  std::vector<T> x;
  if constexpr (Rank == 2) {  // the one-rank solver of transform_poisson.hpp
    const PressureSide sides[4] = {pr.sides[0], pr.sides[1], pr.sides[2], pr.sides[3]};
    const auto grid = solvers::make_poisson_grid<T>(pr.cells[0], pr.cells[1], 1 / std::sqrt(pr.inv_h2[0]),
                                                    1 / std::sqrt(pr.inv_h2[1]), sides);
    const Grid<2> g = Grid<2>::uniform(e, {1.0, 1.0});
    Field<T, 2> fb(ctx, g), fx(ctx, g);
    detail::copy<T, 2>(ctx, View<const T, 2>(bb.view()), fb.view());
    solvers::TransformPoisson<T>(ctx, grid).solve(fb, fx);
    Array<T, 2> out(ctx, e);
    detail::copy<T, 2>(ctx, View<const T, 2>(fx.view()), out.view());
    x = out.to_host();
  } else {  // the one-rank solver of transform_poisson.hpp
    solvers::PoissonBox3 box;
    for (int d = 0; d < 3; ++d) box.n[d] = pr.cells[d], box.inv_h2[d] = pr.inv_h2[d];
    for (int s = 0; s < 6; ++s) box.sides[s] = pr.sides[s];
    solvers::TransformPoisson3<T> solver(ctx, box);
    Array<T, Rank> out(ctx, e);
    solver.solve(bb.view(), out.view());
    x = out.to_host();
  }
  return std::vector<double>(x.begin(), x.end());
}

/// The cases, and how many took each of the solver's special paths.
struct Tally : sim_test::split_solve_check::Tally {
  int yz_fft = 0;     // cases on the 2D-FFT-over-(y, z) path
  int x_complex = 0;  // of those, x periodic: the complex FFT along x
  int cosine2 = 0;    // 2D walls all round by real FFTs (Makhoul)
  int cosine_yz = 0;  // 3D walls on y and z by 2D real FFTs over (y, z)
  int peer = 0;       // transposes stored straight into the other GPUs' memory (PeerSlabs)
  int copies = 0;     // of those, copied by the copy engines in pieces beside the FFTs
  int staged = 0;     // 2D cases also solved through the staged rows, to the same bits
};

/// One case: the split procs of the grid, sides given per axis by pair indices.
template <class T, int Rank>
void check(const Comm& comm, const Context& ctx, const index_t (&cells)[Rank], const int (&procs)[Rank],
           const int (&pairs)[Rank], int chunks, Tally& tally) {
  solvers::TransformProblem<Rank> pr;
  index_t cells3[3] = {1, 1, 1};
  int procs3[3] = {1, 1, 1};
  for (int d = 0; d < Rank; ++d) {
    pr.cells[d] = cells3[d] = cells[d], procs3[d] = procs[d];
    pr.inv_h2[d] = double((d + 2) * (d + 2)) * 1.5;  // unequal spacings
    pr.sides[2 * d] = kPairs[pairs[d]][0], pr.sides[2 * d + 1] = kPairs[pairs[d]][1];
  }
  const std::vector<double> b = on_box<Rank>(whole_box<Rank>(cells), [](const index_t* g) { return rhs_at(g, Rank); });
  const std::vector<double> p1 = one_rank<T, Rank>(ctx, pr, b);
  double pmax = 0;
  for (double v : p1) pmax = std::max(pmax, std::abs(v));
  const double eps = std::numeric_limits<T>::epsilon();
  // the reference solves the problem (the bound of a backward-stable solve: 100 eps max|p| times A's norm)
  double anorm = 0;
  for (int d = 0; d < Rank; ++d) anorm += 4 * pr.inv_h2[d];
  const double res = residual<Rank>(pr, p1, b) / (eps * pmax * anorm);

  const bool periodic[3] = {pr.sides[0] == PressureSide::periodic, pr.sides[2] == PressureSide::periodic,
                            Rank > 2 && pr.sides[4] == PressureSide::periodic};
  const Decomposition dec(Rank, cells3, procs3, 1);
  std::vector<Subdomain> subs;
  for (int r = 0; r < comm.size(); ++r) subs.push_back(dec.subdomain(r, periodic));
  const std::vector<Box<Rank>> boxes = solvers::boxes_of<Rank>(subs);
  const Box<Rank> mine = boxes[std::size_t(comm.rank())];
  solvers::DistributedTransformPoisson<T, Rank> solver(comm, ctx, pr, boxes, chunks);
  // the 2D FFT over (y, z) when y and z are periodic and the boxes are not slabs along y or z
  int split = 0, split_axis = 0;
  for (int d = 0; d < Rank; ++d)
    if (procs[d] > 1) ++split, split_axis = d;
  const bool want_yz = Rank == 3 && pairs[1] == 0 && pairs[2] == 0 && !(split == 1 && split_axis != 0) && cells[1] >= 2 &&
                       (Rank < 3 || cells[Rank - 1] >= 2);
  const bool took_yz = solver.description().find("2D real FFT over y,z") != std::string::npos;
  const bool want_complex = want_yz && pairs[0] == 0;
  const bool took_complex = took_yz && solver.description().find("complex FFT along x") != std::string::npos;
  // 2D, Neumann all round, the boxes not slabs along y: real FFTs of the rows, complex FFTs along x
  const bool want_cosine = Rank == 2 && pairs[0] == 1 && pairs[1] == 1 && !(split == 1 && split_axis != 0) &&
                           cells[0] >= 2 && cells[Rank - 1] >= 2;
  const bool took_cosine = solver.description().find("(Makhoul)") != std::string::npos;
  // 3D, Neumann on y and z, the boxes not slabs along y or z: 2D real FFTs over (y, z)
  const bool want_cos_yz = Rank == 3 && pairs[1] == 1 && pairs[2] == 1 && !(split == 1 && split_axis != 0) &&
                           cells[1] >= 2 && cells[Rank - 1] >= 2;
  const bool took_cos_yz = solver.description().find("DCT-II/III over y,z by a 2D real FFT") != std::string::npos;
  tally.cosine_yz += took_cos_yz ? 1 : 0;
  const bool copies = solver.description().find("by the copy engines") != std::string::npos;
  tally.peer += copies || solver.description().find("stores into the other GPUs' memory") != std::string::npos ? 1 : 0;
  tally.copies += copies ? 1 : 0;
  tally.yz_fft += took_yz ? 1 : 0;
  tally.x_complex += took_complex ? 1 : 0;
  tally.cosine2 += took_cosine ? 1 : 0;
  const std::vector<double> bm = on_box<Rank>(mine, [](const index_t* g) { return rhs_at(g, Rank); });
  Array<T, Rank> bl = Array<T, Rank>::from_host(ctx, mine.shape(), std::vector<T>(bm.begin(), bm.end()));
  Array<T, Rank> xl(ctx, mine.shape());
  solver.solve(bl.view(), xl.view());
  const std::vector<T> xs = xl.to_host();
  index_t n[3] = {1, 1, 1};
  for (int d = 0; d < Rank; ++d) n[d] = cells[d];
  std::size_t k = 0;
  double diff = 0;
  on_box<Rank>(mine, [&](const index_t* g) {
    const double want = p1[std::size_t((g[0] * n[1] + g[1]) * n[2] + (Rank > 2 ? g[2] : 0))];
    diff = std::max(diff, std::abs(double(xs[k++]) - want));
    return 0.0;
  });
  const double ratio = comm.max(diff / (eps * pmax));
  // the staged rows (the 2D cosine path with every box a slab along x): the right-hand side
  // written there, solve_staged(), the solution read there: solve()'s bits
  bool staged_wrong = false;
  if constexpr (Rank == 2) {
    const solvers::CosineSlabRows<T> rows = solver.staged();
    const bool want_staged = took_cosine && procs[1] == 1 && mine.size() > 0;
    bool differs = want_staged != (rows.data != nullptr);
    if (comm.max(rows.data ? 1.0 : 0.0) > 0) {
      Array<T, Rank> xs2(ctx, mine.shape());
      if (rows.data) for_each(ctx, "test::staged_gather", box_of(mine.shape()), solvers::CosineRowsGather<T>{bl.view(), rows});
      solver.solve_staged();
      if (rows.data) {
        for_each(ctx, "test::staged_scatter", box_of(mine.shape()), solvers::CosineRowsScatter<T>{solver.staged_result(), xs2.view()});
        const std::vector<T> staged_x = xs2.to_host();
        for (std::size_t i = 0; i < xs.size(); ++i) differs = differs || !(staged_x[i] == xs[i]);
      }
      tally.staged += rows.data ? 1 : 0;
    }
    staged_wrong = comm.max(differs ? 1.0 : 0.0) > 0;
    if (staged_wrong && comm.rank() == 0)
      std::printf("FAIL 2D %s %lld x %lld (%d x %d ranks): the solve through the staged rows %s\n", sizeof(T) == 8 ? "float64" : "float32",
                  (long long)cells[0], (long long)cells[Rank - 1], procs[0], procs[Rank - 1],
                  want_staged != (rows.data != nullptr) ? "was not offered where expected (or offered where not)" : "gave other bits than solve()");
  }
  const bool wrong_path = want_yz != took_yz || want_complex != took_complex || want_cosine != took_cosine ||
                          want_cos_yz != took_cos_yz || staged_wrong;
  if (tally.add(ratio, res, pmax, wrong_path)) {
    if (comm.rank() == 0) {
      std::string s;
      for (int d = 0; d < Rank; ++d) s += (d ? " x " : "") + std::to_string(cells[d]) + "(" + std::to_string(procs[d]) + " ranks, sides " + std::to_string(pairs[d]) + ")";
      s += ", " + std::to_string(chunks) + " pieces";
      std::printf("FAIL %dD %s %s: max |p_N - p_1| = %.3g eps max|p_1| (bound %g), one-rank residual %.3g (bound 100), "
                  "path \"%s\" (2D FFT over y,z expected: %s, complex FFT along x expected: %s, 2D cosine by real FFTs "
                  "expected: %s, cosine over y,z by 2D real FFTs expected: %s)\n",
                  Rank, sizeof(T) == 8 ? "float64" : "float32", s.c_str(), ratio, kBound, res, solver.description().c_str(),
                  want_yz ? "yes" : "no", want_complex ? "yes" : "no", want_cosine ? "yes" : "no", want_cos_yz ? "yes" : "no");
    }
  }
}

template <class T, int Rank>
void run_all(const Comm& comm, const Context& ctx, const index_t (&cells)[Rank], bool every_side, Tally& tally) {
  for (const auto& p : arrangements<Rank>(comm.size(), cells, 1)) {
    int procs[Rank];
    for (int d = 0; d < Rank; ++d) procs[d] = p[std::size_t(d)];
    int count = 1;
    for (int d = 0; d < Rank; ++d) count *= 5;
    for (int c = 0; c < count; ++c) {
      int pairs[Rank], rest = c;
      for (int d = 0; d < Rank; ++d) pairs[d] = rest % 5, rest /= 5;
      if (!every_side && c % 7 != 0 && c != count - 1) continue;  // a spread of the combinations
      check<T, Rank>(comm, ctx, cells, procs, pairs, 1 + c % 3, tally);  // transposes in 1, 2 or 3 pieces
    }
  }
}

/// Every arrangement with y and z periodic and each side pair along x.
template <class T>
void run_periodic_yz(const Comm& comm, const Context& ctx, const index_t (&cells)[3], Tally& tally) {
  for (const auto& p : arrangements<3>(comm.size(), cells, 1)) {
    const int procs[3] = {p[0], p[1], p[2]};
    for (int x = 0; x < 5; ++x) {
      const int pairs[3] = {x, 0, 0};
      check<T, 3>(comm, ctx, cells, procs, pairs, 1 + x % 3, tally);
    }
  }
}

/// Every arrangement with walls on y and z (Neumann) and each side pair along x: the path of
/// 2D real FFTs over (y, z) where the boxes are not slabs along y or z.
template <class T>
void run_walls_yz(const Comm& comm, const Context& ctx, const index_t (&cells)[3], Tally& tally) {
  for (const auto& p : arrangements<3>(comm.size(), cells, 1)) {
    const int procs[3] = {p[0], p[1], p[2]};
    for (int x = 0; x < 5; ++x) {
      const int pairs[3] = {x, 1, 1};
      check<T, 3>(comm, ctx, cells, procs, pairs, 1 + x % 3, tally);
    }
  }
}

/// Every arrangement of a 2D grid with walls all round (Neumann): the path of real FFTs of the
/// rows where the boxes are not slabs along y.
template <class T>
void run_walls_2d(const Comm& comm, const Context& ctx, const index_t (&cells)[2], Tally& tally) {
  for (const auto& p : arrangements<2>(comm.size(), cells, 1)) {
    const int procs[2] = {p[0], p[1]}, pairs[2] = {1, 1};
    check<T, 2>(comm, ctx, cells, procs, pairs, 1 + int(cells[0] % 3), tally);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // usage: transform_check [cpu|cuda]   (cuda: one GPU per rank, transposes through NCCL when built with it)
  return sim_test::split_solve_check::run<Tally>(
      argc, argv, "transform_check", "distributed transform", [](const Comm& comm, const Context& ctx, Tally& t64, Tally& t32) {
        const index_t c2[2] = {13, 10}, thin[2] = {3, 11}, c3[3] = {7, 6, 5}, flat[3] = {9, 2, 3};
        const index_t yz_even[3] = {10, 8, 6}, yz_odd[3] = {5, 7, 9}, yz_thin[3] = {3, 5, 2};
        run_all<double, 2>(comm, ctx, c2, true, t64);
        run_all<double, 2>(comm, ctx, thin, true, t64);
        run_all<float, 2>(comm, ctx, c2, true, t32);
        run_all<double, 3>(comm, ctx, c3, true, t64);
        run_all<double, 3>(comm, ctx, flat, false, t64);
        run_all<float, 3>(comm, ctx, c3, false, t32);
        const index_t walls[][2] = {{10, 13}, {8, 7}, {2, 5}, {5, 2}, {4, 3}, {9, 16}};
        for (const auto& cells : walls) {
          run_walls_2d<double>(comm, ctx, cells, t64);
          run_walls_2d<float>(comm, ctx, cells, t32);
        }
        for (const auto* cells : {&yz_even, &yz_odd, &yz_thin}) {
          run_periodic_yz<double>(comm, ctx, *cells, t64);
          run_periodic_yz<float>(comm, ctx, *cells, t32);
          run_walls_yz<double>(comm, ctx, *cells, t64);
          run_walls_yz<float>(comm, ctx, *cells, t32);
        }
        char paths[512];
        std::snprintf(paths, sizeof paths,
                      "%d cases by the 2D FFT over y,z, %d of them with the complex FFT along x; %d 2D cases by real FFTs "
                      "(walls all round); %d 3D cases by 2D real FFTs over y,z (walls on y and z); %d cases with "
                      "transposes stored into the other GPUs' memory, %d of them by the copy engines; %d 2D cases also "
                      "solved through the staged rows, to the same bits; ",
                      t64.yz_fft + t32.yz_fft, t64.x_complex + t32.x_complex, t64.cosine2 + t32.cosine2,
                      t64.cosine_yz + t32.cosine_yz, t64.peer + t32.peer, t64.copies + t32.copies, t64.staged + t32.staged);
        return std::string(paths);
      });
}
