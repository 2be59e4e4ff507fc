#pragma once
// What transform_check and obstacle_transform_check share: a solve split over this run's ranks
// checked against the one-rank solve of the whole grid, case by case. The arrangements of the
// ranks over the axes, the tally of the cases (the worst error in eps, the worst one-rank
// residual, the failures), and the run: the context from the command line, the summary line
// on rank 0 (scripts/device/mpi-suite.sh and the CTest entries read it), the exit code.
#include <algorithm>
#include <array>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/runtime/context.hpp"

namespace sim_test::split_solve_check {

using sim::index_t;

constexpr double kBound = 50;  // eps times max |p_1|

/// The cases of one element type: how many, how many failed, the worst ratios.
struct Tally {
  int cases = 0, failures = 0;
  double worst = 0, worst_residual = 0;

  /// Counts a case: ratio = max |p_N - p_1| / (eps max|p_1|) over the ranks, residual = the
  /// one-rank solve's residual / (eps max|p_1| |A|); true (a failure, counted) when ratio is over
  /// kBound, residual over 100, max|p_1| not positive, or other_failure.
  bool add(double ratio, double residual, double pmax, bool other_failure) {
    ++cases;
    worst = std::max(worst, ratio);
    worst_residual = std::max(worst_residual, residual);
    const bool failed = ratio > kBound || residual > 100 || !(pmax > 0) || other_failure;
    failures += failed ? 1 : 0;
    return failed;
  }
};

/// Every arrangement procs of ranks over Rank axes with at least min_cells cells per rank.
template <int Rank>
std::vector<std::array<int, Rank>> arrangements(int ranks, const index_t (&cells)[Rank], index_t min_cells) {
  std::vector<std::array<int, Rank>> out;
  for (int p0 = 1; p0 <= ranks; ++p0)
    for (int p1 = 1; p1 <= ranks; ++p1) {
      std::array<int, Rank> p{};
      p[0] = p0, p[1] = p1;
      if constexpr (Rank == 3) p[2] = ranks % (p0 * p1) ? 0 : ranks / (p0 * p1);
      int product = 1;
      bool fits = true;
      for (int d = 0; d < Rank; ++d) product *= p[d], fits = fits && p[d] >= 1 && cells[d] / std::max(p[d], 1) >= min_cells;
      if (product == ranks && fits) out.push_back(p);
    }
  return out;
}

/// The main of a check: cases(comm, ctx, t64, t32) runs the float64 and float32 cases, tallied
/// in TallyT (a Tally, or one with counts of its own), on the backend argv[1] names (cpu, the
/// default, or cuda: one GPU per rank) and returns what the summary adds before its verdict
/// (path counts, or ""). Rank 0 prints
///   "<solve> on N ranks: C cases, max |p_N - p_1| / (eps max|p_1|) = ... float64, ... float32
///    (bound 50); one-rank residual / (eps max|p| |A|) <= ...; <added>OK" (or FAILED).
/// Returns the exit code: 1 on any rank's failure or an error (printed after program).
template <class TallyT, class Cases>
int run(int argc, char** argv, const char* program, const char* solve, const Cases& cases) {
  try {
    const sim::Comm comm = sim::Comm::world();
    const std::string backend = argc > 1 ? argv[1] : "cpu";
    sim::ContextOptions options;
    if (const int gpus = sim::cuda_device_count(); gpus > 0) options.device = comm.local_rank() % gpus;
    const sim::Context ctx =
        sim::Context::create(backend == "cuda" ? sim::BackendRequest::cuda : sim::BackendRequest::cpu, options);
    TallyT t64, t32;
    const std::string added = cases(comm, ctx, t64, t32);
    const int failures = t64.failures + t32.failures;
    if (comm.rank() == 0)
      std::printf("%s on %d ranks: %d cases, max |p_N - p_1| / (eps max|p_1|) = %.3g float64, %.3g float32 (bound %g); "
                  "one-rank residual / (eps max|p| |A|) <= %.3g; %s%s\n",
                  solve, comm.size(), t64.cases + t32.cases, t64.worst, t32.worst, kBound,
                  std::max(t64.worst_residual, t32.worst_residual), added.c_str(), failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 1;
  }
}

}  // namespace sim_test::split_solve_check
