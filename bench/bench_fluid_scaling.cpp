// Scaling of the fluid's exact pressure solve over ranks (run under mpirun, one GPU per rank,
// or alone): per case, the one-rank figure (rank 0 alone, in the same run) and the N-rank one.
//   bench_fluid_scaling [--backend B] [--cells2 4096] [--cells3 512] [--tg3 512] [--steps 10] [--solves-only]
//                       [--json FILE]
// Rows:
//   all-to-all      a plain all-to-all of the bytes one slab transpose moves (NCCL on GPUs,
//                   MPI on CPUs): its bus bandwidth (bytes leaving a rank per second), the
//                   reference for the transposes;
//   cavity 2D       the lid-driven cavity step (explicit Euler, transform solver), strong
//                   scaling of n^2 cells: ms per step (a fixed dt; on several ranks the
//                   recorded step, its halos, transposes and speeds' maximum on the stream), ms in
//                   the two slab transposes of its solve, their bandwidth and its fraction of the
//                   all-to-all's, speedup and efficiency t1 / (N tN); then ms per step with an
//                   adaptive dt, as simulate runs it: in device-clocked batches of --batch steps
//                   (ms_adaptive: dt chosen on the device from the speeds' maximum over the ranks,
//                   SIMKIT_DECOMPOSED_STEPS's path, one wait a batch in a device loop) and
//                   unrecorded with dt reduced on the host each step (ms_adaptive_unrecorded: the
//                   path of SIMKIT_DECOMPOSED_STEPS=host, one host round trip a step);
//   mg_cg 2D        the cavity's pressure solve by mg_cg (for obstacle flows) from zero to
//                   the tolerance: ms per solve on 1 and N ranks, its iterations, the ghost
//                   exchanges a solve makes (every level split over the ranks), the time of one
//                   exchange of each such level alone, and their product: the time a solve
//                   spends in exchanges (an estimate: latency-bound exchanges do not overlap);
//   poisson 3D      the 3D periodic pressure solve (the Taylor-Green box's), strong (n^3 in
//                   all) and weak (n^3 per rank) scaling: ms per solve, transposes as above,
//                   efficiency t1 / (N tN) strong, t1 / tN weak;
//   solve alone     the pressure solve alone, the 3D periodic box's (n^3 = cells3), the 3D
//                   walled box's (the cavity's and the sphere's y and z walls, n^3 = cells3)
//                   and the 2D cavity's (walls, n^2 = cells2), three ways: the one-rank solve
//                   (transform_poisson.hpp: one 3D or 2D real FFT each way, fused; the walled
//                   box's per-axis cosine transforms), the distributed
//                   solve on rank 0 alone, and on the N ranks: ms per solve, passes over
//                   memory per solve (kernels, library transform calls, transpose packs and
//                   unpacks; the passes themselves are listed after the table), ms in the
//                   transposes and outside them, ms per solve recorded once and replayed (no
//                   host work: 0 where it cannot be recorded) and the host's ms to queue one
//                   unrecorded solve; after the table, each distributed solve's phases
//                   (marked on the stream: transforms and transposes there, the waits for the
//                   other ranks, the transform along the slabs, the way back) (--solves-only:
//                   these rows alone);
//   taylor-green 3D the whole 3D fluid step (Heun's two stages: ghost fills and halo
//                   exchanges, momentum, the distributed pressure solve, projection) of the
//                   Taylor-Green vortex, split as simulate splits it, strong (n^3 in all) and
//                   weak (n^3 per rank: N n x n x n cells) scaling: ms per step, cell updates
//                   per second, speedup and efficiency as above, and the adaptive dt's two
//                   paths as in the cavity's rows (--tg3 0: none);
//   step phases     beside each cavity and Taylor-Green row, on 1 rank and on N: the step's
//                   phases marked on the stream (Model::marked_step: ghost fills and exchanges,
//                   momentum, the pressure's right-hand side, its solve, its exchange, the
//                   projection), each summed over the stages, and their total (a step queued
//                   as it goes, not replayed: the total runs above the replayed step's ms).
// Times are medians of --steps samples, the slowest rank's.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "core/distributed/comm.hpp"
#include "core/distributed/decomposition.hpp"
#include "core/runtime/device_clock.hpp"
#include "core/runtime/graph.hpp"
#include "core/runtime/tuning.hpp"
#include "io/config.hpp"
#include "models/model.hpp"
#include "models/runner.hpp"
#include "solvers/distributed_transform.hpp"
#include "solvers/pressure_solver.hpp"
#if SIMKIT_HAS_NCCL
#include "core/distributed/nccl_channel.hpp"
#endif

using namespace sim;

namespace {

/// Seconds of the slowest rank for the median of repeat calls of fn (comm: the ranks taking part).
double timed(const Comm& comm, const Context& ctx, int repeat, const std::function<void()>& fn) {
  // every rank starts each timed run together (a barrier before it): a run that waits for the
  // other ranks inside (the transposes' barriers) would otherwise also time how late they start
  return comm.max(bench::time_it(ctx, repeat, fn, [&] { comm.barrier(); }).median);
}

/// A step's phases: each label and its ms.
using Phases = std::vector<std::pair<std::string, double>>;

/// The phases run() returns (a label that comes again summed: a step's stages), as medians of
/// repeat runs (every rank starting each together), the slowest rank's, in the order they first come.
Phases median_phases(const Comm& comm, const Context& ctx, int repeat, const std::function<Phases()>& run) {
  std::vector<std::string> labels;
  std::vector<std::vector<double>> ms;
  for (int r = 0; r < repeat; ++r) {
    ctx.synchronize();
    comm.barrier();
    std::vector<double> sums(labels.size(), 0.0);
    for (const auto& [label, span] : run()) {
      const std::size_t i = std::size_t(std::find(labels.begin(), labels.end(), label) - labels.begin());
      if (i == labels.size()) labels.push_back(label), sums.push_back(0.0), ms.emplace_back();
      sums[i] += span;
    }
    for (std::size_t i = 0; i < sums.size(); ++i) ms[i].push_back(sums[i]);
  }
  Phases out;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    std::sort(ms[i].begin(), ms[i].end());
    out.emplace_back(labels[i], comm.max(ms[i][ms[i].size() / 2]));
  }
  return out;
}

/// head, then each phase's label and ms.
std::string phase_line(std::string head, const Phases& phases) {
  for (const auto& [label, ms] : phases) {
    char figure[32];
    std::snprintf(figure, sizeof figure, " %.3f", ms);
    head += " " + label + figure + ";";
  }
  return head;
}

/// The row of a step's phases (median_phases), with their total.
bench::Row phases_row(const std::string& name, const Phases& phases) {
  bench::Row row{name, {}};
  double total = 0;
  for (const auto& [label, ms] : phases) row.figures.push_back({"ms " + label, ms}), total += ms;
  row.figures.push_back({"ms total", total});
  return row;
}

/// A plain all-to-all of `bytes` per rank (an equal share to every rank): the bus bandwidth
/// in GB/s, counting the bytes that leave a rank.
double all_to_all_gbs(const Comm& comm, const Context& ctx, double bytes, int repeat, std::vector<bench::Row>& rows) {
  const std::size_t n = std::size_t(comm.size());
  const std::size_t share = std::size_t(bytes / 8 / double(n));  // float64 elements to each rank
  Array<double, 1> send(ctx, extents(index_t(share * n))), recv(ctx, extents(index_t(share * n)));
  send.fill(1.0 + comm.rank());
  std::vector<std::size_t> counts(n, share), offsets(n);
  for (std::size_t r = 0; r < n; ++r) offsets[r] = r * share;
  std::function<void()> exchange;
#if SIMKIT_HAS_NCCL
  std::shared_ptr<NcclChannel> channel;
  if (ctx.is_cuda() && comm.parallel() && !NcclChannel::usable(comm, ctx)) {  // (ranks sharing a GPU: nothing to compare with)
    rows.push_back({"all-to-all float64: none (ranks share a GPU, which NCCL refuses)", {{"GB/s_bus", 0.0}}});
    return 0;
  }
  if (ctx.is_cuda()) {
    channel = NcclChannel::get(comm, ctx);
    exchange = [&] { channel->all_to_all_v(ctx, send.data(), counts, offsets, recv.data(), counts, offsets, true); };
  }
#endif
  std::vector<std::size_t> byte_counts(n, share * 8), byte_offsets(n);
  for (std::size_t r = 0; r < n; ++r) byte_offsets[r] = offsets[r] * 8;
  if (!exchange) {
    if (ctx.is_cuda()) throw Error("bench_fluid_scaling: GPUs without NCCL have no device all-to-all to compare with");
    exchange = [&] { comm.alltoallv(send.data(), byte_counts, byte_offsets, recv.data(), byte_counts, byte_offsets); };
  }
  const double s = timed(comm, ctx, repeat, exchange);
  const double leaving = double(share * 8 * (n - 1));
  const double gbs = leaving / s / 1e9;
  char name[96];
  std::snprintf(name, sizeof name, "all-to-all float64, %.4g MB per rank", bytes / 1e6);
  rows.push_back({name,
                  {{"ms", s * 1e3}, {"MB_leaving_per_rank", leaving / 1e6}, {"GB/s_bus", gbs}}});
  return gbs;
}

/// ms per step of adaptive steps in device-clocked batches of `batch` steps (Model::run_device_steps:
/// dt chosen on the device), after a batch that records them; -1 where the model cannot.
double clocked_ms(const Comm& comm, const Context& ctx, Model& model, double cfl, int repeat, int batch) {
  DeviceClock clock(ctx);
  ClockState s;
  s.dt = s.dt_chosen = model.default_dt(cfl);
  bool can = true;
  auto one_batch = [&] {
    s.horizon_step = s.step + batch;
    clock.start(s);
    const std::int64_t ran = model.run_device_steps(clock, cfl);
    if (ran < 0) return void(can = false);
    if (ran != batch) throw Error("bench_fluid_scaling: a batch of " + std::to_string(batch) + " steps ran " + std::to_string(ran));
    s = clock.host();
    s.running = 1;
  };
  one_batch();
  if (!can) return -1;
  return timed(comm, ctx, repeat, one_batch) / batch * 1e3;
}

/// ms per step with an adaptive dt reduced over the ranks on the host each step (next_dt, then step).
double host_dt_ms(const Comm& comm, const Context& ctx, Model& model, double cfl, int repeat, int batch) {
  for (int k = 0; k < 2; ++k) model.step(model.next_dt(cfl));
  return timed(comm, ctx, repeat, [&] {
    for (int k = 0; k < batch; ++k) model.step(model.next_dt(cfl));
  }) / batch * 1e3;
}

/// The adaptive dt's two figures on comm's ranks for a model built from text: ms per step in
/// device-clocked batches, and unrecorded with dt reduced on the host (SIMKIT_DECOMPOSED_STEPS=host).
std::pair<double, double> adaptive_ms(const Comm& comm, const Context& ctx, const std::string& text, double cfl, int repeat,
                                      int batch) {
  static const ModelRegistry registry = builtin_models();
  io::Config config = io::Config::parse(text, "bench_fluid_scaling.toml");
  std::unique_ptr<Model> model = build_model(registry, ctx, config, comm);
  model->initialize();
  const double batched = clocked_ms(comm, ctx, *model, cfl, repeat, batch);
  model.reset();  // (one model's fields at a time)
  const tuning::Scoped unrecorded("SIMKIT_DECOMPOSED_STEPS", "host");
  std::unique_ptr<Model> host = build_model(registry, ctx, config, comm);
  host->initialize();
  return {batched, host_dt_ms(comm, ctx, *host, cfl, repeat, batch)};
}

/// The cavity config: n^2 cells, explicit Euler, the transform solver.
std::string cavity_text(index_t n, bool f64) {
  return "[run]\nmodel = \"fluid\"\nsteps = 1\nprecision = \"" + std::string(f64 ? "float64" : "float32") +
         "\"\n[grid]\ncells = [" + std::to_string(n) + ", " + std::to_string(n) +
         "]\nlength = [1.0, 1.0]\n[model]\nviscosity = 0.001\ntime_scheme = \"euler\"\npressure_solver = \"transform\"\n"
         "[boundary]\ny_hi_value = 1.0\n";
}

/// ms per cavity step on comm's ranks (after a spin-up); its phases into phases when given.
template <class T>
double cavity_ms(const Comm& comm, const Context& ctx, index_t n, int steps, int batch, Phases* phases = nullptr) {
  static const ModelRegistry registry = builtin_models();
  io::Config config = io::Config::parse(cavity_text(n, sizeof(T) == 8), "bench_fluid_scaling.toml");
  std::unique_ptr<Model> model = build_model(registry, ctx, config, comm);
  model->initialize();
  const double dt = comm.min(model->next_dt(0.5));
  for (int k = 0; k < 5; ++k) model->step(dt);
  const double ms = timed(comm, ctx, steps, [&] {
    for (int k = 0; k < batch; ++k) model->step(dt);
  }) / batch * 1e3;
  if (phases) *phases = median_phases(comm, ctx, steps, [&] { return model->marked_step(dt); });
  return ms;
}

/// The Taylor-Green config: cells[0] x cells[1] x cells[2] cells of spacing 2 pi / n, Heun, the transform solver.
std::string taylor_green_text(const index_t (&cells)[3], index_t n, bool f64) {
  std::string c = "[", l = "[";
  for (int d = 0; d < 3; ++d) {
    c += std::to_string(cells[d]) + (d < 2 ? ", " : "]");
    char len[64];
    std::snprintf(len, sizeof len, "%.17g%s", 2 * M_PI * double(cells[d]) / double(n), d < 2 ? ", " : "]");
    l += len;
  }
  return "[run]\nmodel = \"fluid\"\nsteps = 1\nprecision = \"" + std::string(f64 ? "float64" : "float32") +
         "\"\n[grid]\ncells = " + c + "\nlength = " + l +
         "\n[model]\nviscosity = 0.000625\ninit = \"taylor_green\"\ntime_scheme = \"rk2\"\npressure_solver = \"transform\"\n"
         "[boundary]\ndefault = \"periodic\"\n";
}

/// ms per Taylor-Green step of `cells` on comm's ranks (after a spin-up; dt from the first
/// next_dt); its phases into phases when given.
template <class T>
double taylor_green_ms(const Comm& comm, const Context& ctx, const index_t (&cells)[3], index_t n, int steps,
                       Phases* phases = nullptr) {
  static const ModelRegistry registry = builtin_models();
  io::Config config = io::Config::parse(taylor_green_text(cells, n, sizeof(T) == 8), "bench_fluid_scaling.toml");
  std::unique_ptr<Model> model = build_model(registry, ctx, config, comm);
  model->initialize();
  const double dt = comm.min(model->next_dt(0.6));
  for (int k = 0; k < 3; ++k) model->step(dt);
  const double ms = timed(comm, ctx, steps, [&] { model->step(dt); }) * 1e3;
  if (phases) *phases = median_phases(comm, ctx, steps, [&] { return model->marked_step(dt); });
  return ms;
}

/// Adds the adaptive dt's figures (adaptive_ms) to row.
void add_adaptive(bench::Row& row, std::pair<double, double> ms) {
  row.figures.push_back({"ms_adaptive", ms.first});
  row.figures.push_back({"ms_adaptive_unrecorded", ms.second});
}

/// The Taylor-Green step's rows: strong (n^3 in all) and, when weak, weak (n^3 per rank)
/// scaling against rank 0 alone with n^3 (timed once for both).
template <class T>
void taylor_green_case(const Comm& comm, const Context& ctx, index_t n, bool with_weak, int steps, int batch,
                       std::vector<bench::Row>& rows) {
  const char* prec = sizeof(T) == 8 ? "float64" : "float32";
  const index_t one[3] = {n, n, n};
  const std::string name = "taylor-green 3D " + std::to_string(n) + "^3";
  double ms1 = 0;
  Phases phases1, phasesn;
  if (comm.rank() == 0) ms1 = taylor_green_ms<T>(Comm(), ctx, one, n, steps, &phases1);
  ms1 = comm.max(ms1);
  rows.push_back(phases_row(name + " " + prec + " step phases, 1 rank", phases1));
  for (bool weak : {false, true}) {
    if (weak && !with_weak) continue;
    const index_t many[3] = {weak ? n * comm.size() : n, n, n};
    const double msn = taylor_green_ms<T>(comm, ctx, many, n, steps, &phasesn);
    const double cells = double(many[0]) * double(n) * double(n), ranks = double(comm.size());
    rows.push_back(phases_row(name + (weak ? " per rank " : " ") + prec + " step phases, " + std::to_string(comm.size()) +
                                  " ranks",
                              phasesn));
    rows.push_back({name + (weak ? " per rank " : " ") + prec + (weak ? " step, weak" : " step, strong"),
                  {{"ranks", ranks}, {"ms_1_rank", ms1}, {"ms", msn}, {"speedup", weak ? ranks * ms1 / msn : ms1 / msn},
                   {"efficiency", weak ? ms1 / msn : ms1 / (ranks * msn)},
                   {"Gcell_updates/s", cells / (msn * 1e-3) / 1e9}}});
    add_adaptive(rows.back(), adaptive_ms(comm, ctx, taylor_green_text(many, n, sizeof(T) == 8), 0.6, steps, batch));
  }
}

/// A transform solver of a box of `cells` (periodic all round when periodic, else the
/// cavity's walls) on comm's ranks, split automatically as simulate splits it.
template <class T, int Rank>
struct Solve {
  solvers::DistributedTransformPoisson<T, Rank> solver;
  Array<T, Rank> b, x;

  Solve(const Comm& comm, const Context& ctx, const index_t (&cells)[Rank], bool periodic) {
    solvers::TransformProblem<Rank> pr;
    index_t c3[3] = {1, 1, 1};
    for (int d = 0; d < Rank; ++d) {
      pr.cells[d] = c3[d] = cells[d], pr.inv_h2[d] = double(cells[d]) * double(cells[d]);
      pr.sides[2 * d] = pr.sides[2 * d + 1] = periodic ? solvers::PressureSide::periodic : solvers::PressureSide::neumann;
    }
    const Decomposition dec = Decomposition::automatic(Rank, c3, comm.size(), 2);
    const bool wrap[3] = {periodic, periodic, periodic};
    std::vector<Subdomain> subs;
    for (int r = 0; r < comm.size(); ++r) subs.push_back(dec.subdomain(r, wrap));
    const std::vector<Box<Rank>> boxes = solvers::boxes_of<Rank>(subs);
    solver = solvers::DistributedTransformPoisson<T, Rank>(comm, ctx, pr, boxes);
    const Box<Rank> mine = boxes[std::size_t(comm.rank())];
    b = Array<T, Rank>(ctx, mine.shape()), x = Array<T, Rank>(ctx, mine.shape());
    b.fill(T(0.5)), x.fill(T(0));
  }
  /// Seconds per solve and per pair of slab transposes (A to B and back), the slowest rank's.
  std::pair<double, double> time(const Comm& comm, const Context& ctx, int repeat) {
    const double solve = timed(comm, ctx, repeat, [&] { solver.solve(b.view(), x.view()); });
    const double transposes = timed(comm, ctx, repeat, [&] { solver.transposes_alone(); });
    return {solve, transposes};
  }
  /// Seconds per solve recorded once and replayed (no host work inside the timing; 0 where the
  /// solve cannot be recorded: CPU ranks, exchanges through the host), and the host's seconds
  /// to queue one solve unrecorded (an unrecorded solve is host-bound where that is the larger).
  std::pair<double, double> recorded_and_queued(const Comm& comm, const Context& ctx, int repeat) {
    double replayed = 0;
    if (ctx.is_cuda() && solver.stream_ordered()) {
      const Recorded once = record(ctx, [&] { solver.solve(b.view(), x.view()); });
      replayed = timed(comm, ctx, repeat, [&] { once.replay(); });
    }
    std::vector<double> queued;
    for (int r = 0; r < repeat; ++r) {
      ctx.synchronize();
      comm.barrier();
      const auto t0 = std::chrono::steady_clock::now();
      solver.solve(b.view(), x.view());
      queued.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    ctx.synchronize();
    std::sort(queued.begin(), queued.end());
    return {replayed, comm.max(queued[queued.size() / 2])};
  }
  /// The phases of one solve (DistributedTransformPoisson::mark_phases), or of its transposes
  /// alone where they are marked: each phase's median ms over repeat marked runs (every rank
  /// starting each together), the slowest rank's.
  Phases phases(const Comm& comm, const Context& ctx, int repeat, bool transposes_alone = false) {
    solver.mark_phases(true);
    const Phases out = median_phases(comm, ctx, repeat, [&] {
      if (transposes_alone) solver.transposes_alone();
      else solver.solve(b.view(), x.view());
      return solver.phase_ms();
    });
    solver.mark_phases(false);
    return out;
  }
};

/// The row of one case: N-rank ms against one rank's, transposes and their bandwidth.
bench::Row scaling_row(const std::string& name, int ranks, bool weak, double ms1, double msn, double transposes_ms,
                       double transpose_bytes, double bus_gbs) {
  const double gbs = transposes_ms > 0 ? transpose_bytes / (transposes_ms * 1e-3) / 1e9 : 0;
  const double efficiency = weak ? ms1 / msn : ms1 / (ranks * msn);
  return {name, {{"ranks", double(ranks)}, {"ms_1_rank", ms1}, {"ms", msn}, {"speedup", ms1 / msn},
                 {"efficiency", efficiency}, {"ms_transposes", transposes_ms}, {"GB/s_transposes", gbs},
                 {"fraction_of_all_to_all", bus_gbs > 0 ? gbs / bus_gbs : 0}}};
}

template <class T>
void cavity_case(const Comm& comm, const Context& ctx, index_t n, int steps, int batch, double bus,
                 std::vector<bench::Row>& rows) {
  const char* prec = sizeof(T) == 8 ? "float64" : "float32";
  const std::string name = "cavity 2D " + std::to_string(n) + "^2 " + prec;
  double ms1 = 0;
  Phases phases1, phasesn;
  if (comm.rank() == 0) ms1 = cavity_ms<T>(Comm(), ctx, n, steps, batch, &phases1);
  ms1 = comm.max(ms1);
  const double msn = cavity_ms<T>(comm, ctx, n, steps, batch, &phasesn);
  rows.push_back(phases_row(name + " step phases, 1 rank", phases1));
  rows.push_back(phases_row(name + " step phases, " + std::to_string(comm.size()) + " ranks", phasesn));
  const index_t cells[2] = {n, n};
  Solve<T, 2> s(comm, ctx, cells, false);
  const auto [solve, transposes] = s.time(comm, ctx, steps);
  (void)solve;
  const double bytes = comm.max(double(s.solver.transpose_bytes()));
  rows.push_back(scaling_row(name + " step, strong", comm.size(), false, ms1,
                             msn, transposes * 1e3, bytes, bus));
  add_adaptive(rows.back(), adaptive_ms(comm, ctx, cavity_text(n, sizeof(T) == 8), 0.5, steps, batch));
}

/// A consistent right-hand side of the walled cavity on box (global indices): cosine modes, zero mean.
template <class T>
std::vector<T> cavity_rhs(const Subdomain& box, index_t n) {
  const double pi = 3.14159265358979323846;
  std::vector<T> v;
  for (index_t i = 0; i < box.cells[0]; ++i)
    for (index_t j = 0; j < box.cells[1]; ++j) {
      const double x = (double(box.offset[0] + i) + 0.5) / double(n), y = (double(box.offset[1] + j) + 0.5) / double(n);
      v.push_back(T(std::cos(3 * pi * x) * std::cos(2 * pi * y) + std::cos(pi * x) + 0.5 * std::cos(7 * pi * y)));
    }
  return v;
}

/// mg_cg on the cavity's pressure problem (n^2, walls) on comm's ranks: ms per solve from zero,
/// iterations, exchanges per solve and the estimated ms in them.
template <class T>
std::vector<double> mg_cg_solve(const Comm& comm, const Context& ctx, index_t n, int repeat) {
  const solvers::PressureSide walls[4] = {solvers::PressureSide::neumann, solvers::PressureSide::neumann,
                                          solvers::PressureSide::neumann, solvers::PressureSide::neumann};
  const auto grid = solvers::make_poisson_grid<T>(n, n, 1.0 / double(n), 1.0 / double(n), walls);
  solvers::PoissonPartition part = solvers::PoissonPartition::whole(n, n);
  part.comm = comm;
  if (comm.parallel()) {
    const index_t cells[3] = {n, n, 1};
    const Decomposition dec = Decomposition::automatic(2, cells, comm.size(), 2);
    const bool periodic[3] = {false, false, false};
    part.boxes.clear();
    for (int r = 0; r < comm.size(); ++r) part.boxes.push_back(dec.subdomain(r, periodic));
  }
  solvers::PoissonSolver<T> solver(ctx, grid, part, solvers::PoissonMethod::mg_cg);
  solvers::PoissonLevel<T>& fine = solver.level();
  Field<T, 2> b = fine.make_field(), x = fine.make_field();
  detail::copy_from_host<T, 2>(ctx, cavity_rhs<T>(part.mine(), n).data(), b.view());
  const double tol = sizeof(T) == 8 ? 1e-8 : 1e-4;
  std::vector<solvers::PoissonLevel<T>>& levels = solver.multigrid()->split_levels();
  for (auto& L : levels) L.exchanges = 0;
  x.fill(T(0));
  const solvers::SolveStats st = solver.solve(b, x, tol, 500);
  std::vector<double> counts;
  for (auto& L : levels) counts.push_back(double(L.exchanges));
  comm.barrier();
  const double ms = timed(comm, ctx, repeat, [&] {
    x.fill(T(0));
    solver.solve(b, x, tol, 500);
  }) * 1e3;
  double exchanges = 0, exchange_ms = 0, finest_us = 0;
  for (std::size_t l = 0; l < levels.size(); ++l) {  // one exchange of each split level alone
    Field<T, 2> f = levels[l].make_field();
    const double us = timed(comm, ctx, repeat, [&] { levels[l].exchange_faces(f); }) * 1e6;
    if (l == 0) finest_us = us;
    exchanges += counts[l], exchange_ms += counts[l] * us * 1e-3;
  }
  return {ms, double(st.iterations), comm.max(exchanges), comm.max(exchange_ms), finest_us};
}

template <class T>
void mg_cg_case(const Comm& comm, const Context& ctx, index_t n, int repeat, std::vector<bench::Row>& rows) {
  const char* prec = sizeof(T) == 8 ? "float64" : "float32";
  double ms1 = 0;
  if (comm.rank() == 0) ms1 = mg_cg_solve<T>(Comm(), ctx, n, repeat)[0];
  ms1 = comm.max(ms1);
  const std::vector<double> r = mg_cg_solve<T>(comm, ctx, n, repeat);
  rows.push_back({"mg_cg 2D " + std::to_string(n) + "^2 " + prec + " cavity solve, strong",
                  {{"ranks", double(comm.size())}, {"ms_1_rank", ms1}, {"ms", r[0]}, {"speedup", ms1 / r[0]},
                   {"iterations", r[1]}, {"exchanges", r[2]}, {"ms_exchanges_est", r[3]},
                   {"fraction_in_exchanges", r[0] > 0 ? r[3] / r[0] : 0}, {"us_per_exchange_finest", r[4]}}});
}

template <class T>
void poisson3_case(const Comm& comm, const Context& ctx, index_t n, bool weak, int steps, double bus,
                   std::vector<bench::Row>& rows, std::vector<std::string>& lists) {
  const char* prec = sizeof(T) == 8 ? "float64" : "float32";
  const index_t one[3] = {n, n, n};
  double ms1 = 0;
  if (comm.rank() == 0) {
    Solve<T, 3> s(Comm(), ctx, one, true);
    ms1 = s.time(Comm(), ctx, steps).first * 1e3;
  }
  ms1 = comm.max(ms1);
  const index_t many[3] = {weak ? n * comm.size() : n, n, n};
  Solve<T, 3> s(comm, ctx, many, true);
  const auto [solve, transposes] = s.time(comm, ctx, steps);
  const double bytes = comm.max(double(s.solver.transpose_bytes()));
  const std::string name = "poisson 3D periodic " + std::to_string(n) + "^3" + (weak ? " per rank" : "") + " " + prec +
                           (weak ? " solve, weak" : " solve, strong");
  rows.push_back(scaling_row(name, comm.size(), weak, ms1, solve * 1e3, transposes * 1e3, bytes, bus));
  const Phases phases = s.phases(comm, ctx, steps);
  if (comm.rank() == 0)
    lists.push_back(phase_line(name + ", phases of the distributed solve on " + std::to_string(comm.size()) +
                                   " ranks (ms, the slowest rank's):",
                               phases));
}

/// "name (count): pass, pass, ..." for the listing after the table.
std::string pass_list(const std::string& name, const std::vector<std::string>& passes) {
  std::string s = name + " (" + std::to_string(passes.size()) + "):";
  for (std::size_t i = 0; i < passes.size(); ++i) s += (i ? ", " : " ") + passes[i];
  return s;
}

/// The one-rank solve of the case (in 3D periodic all round, fused, or walls all round; walls
/// in 2D): seconds per solve (median of repeat) and its passes.
template <class T, int Rank>
std::pair<double, std::vector<std::string>> fused_solve(const Context& ctx, const index_t (&cells)[Rank], bool periodic,
                                                        int repeat) {
  Extents<Rank> e;
  for (int d = 0; d < Rank; ++d) e.n[d] = cells[d];
  if constexpr (Rank == 3) {
    solvers::PoissonBox3 box;
    for (int d = 0; d < 3; ++d) box.n[d] = cells[d], box.inv_h2[d] = double(cells[d]) * double(cells[d]);
    for (solvers::PressureSide& side : box.sides) side = periodic ? solvers::PressureSide::periodic : solvers::PressureSide::neumann;
    solvers::TransformPoisson3<T> solver(ctx, box);
    Array<T, 3> b(ctx, e), x(ctx, e);
    b.fill(T(0.5)), x.fill(T(0));
    return {bench::time_it(ctx, repeat, [&] { solver.solve(b.view(), x.view()); }).median, solver.passes()};
  } else {
    const solvers::PressureSide walls[4] = {solvers::PressureSide::neumann, solvers::PressureSide::neumann,
                                            solvers::PressureSide::neumann, solvers::PressureSide::neumann};
    const auto grid = solvers::make_poisson_grid<T>(cells[0], cells[1], 1.0 / double(cells[0]), 1.0 / double(cells[1]), walls);
    solvers::TransformPoisson<T> solver(ctx, grid);
    const Grid<2> g = Grid<2>::uniform(e, {1.0, 1.0});
    Field<T, 2> b(ctx, g), x(ctx, g);
    b.fill(T(0.5)), x.fill(T(0));
    return {bench::time_it(ctx, repeat, [&] { solver.solve(b, x); }).median, solver.passes()};
  }
}

/// The solve-alone row of a case (3D: periodic or walled n^3; 2D: the cavity's walls, n^2): the
/// one-rank solve, the distributed solve on rank 0 alone and on every rank; the passes listed in lists.
template <class T, int Rank>
void solve_alone_case(const Comm& comm, const Context& ctx, index_t n, int steps, double bus, std::vector<bench::Row>& rows,
                      std::vector<std::string>& lists, bool periodic) {
  const char* prec = sizeof(T) == 8 ? "float64" : "float32";
  index_t cells[Rank];
  for (int d = 0; d < Rank; ++d) cells[d] = n;
  double fused_ms = 0, one_ms = 0, fused_passes = 0, one_passes = 0;
  std::vector<std::string> fused_list, one_list;
  if (comm.rank() == 0) {
    auto [seconds, passes] = fused_solve<T, Rank>(ctx, cells, periodic, steps);
    fused_ms = seconds * 1e3, fused_passes = double(passes.size()), fused_list = passes;
    Solve<T, Rank> one(Comm(), ctx, cells, periodic);
    one_ms = one.time(Comm(), ctx, steps).first * 1e3;
    one_list = one.solver.passes(), one_passes = double(one_list.size());
  }
  fused_ms = comm.max(fused_ms), one_ms = comm.max(one_ms), fused_passes = comm.max(fused_passes), one_passes = comm.max(one_passes);
  Solve<T, Rank> many(comm, ctx, cells, periodic);
  const auto [solve, transposes] = many.time(comm, ctx, steps);
  const auto [recorded, queued] = many.recorded_and_queued(comm, ctx, steps);
  const std::vector<std::pair<std::string, double>> phases = many.phases(comm, ctx, steps);
  const std::vector<std::pair<std::string, double>> transpose_phases = many.phases(comm, ctx, steps, true);
  const std::vector<std::string> many_list = many.solver.passes();
  const double many_passes = comm.max(double(many_list.size()));
  const double bytes = comm.max(double(many.solver.transpose_bytes()));
  const double gbs = transposes > 0 ? bytes / transposes / 1e9 : 0;
  const std::string name = std::string(Rank == 3 ? (periodic ? "poisson 3D periodic " : "poisson 3D walls ") : "poisson 2D walls ") + std::to_string(n) +
                           (Rank == 3 ? "^3 " : "^2 ") + prec + " solve alone";
  rows.push_back({name,
                  {{"ranks", double(comm.size())}, {"ms_fused_1_rank", fused_ms}, {"passes_fused", fused_passes},
                   {"ms_1_rank", one_ms}, {"passes_1_rank", one_passes}, {"ms", solve * 1e3}, {"passes", many_passes},
                   {"speedup_vs_fused", solve > 0 ? fused_ms / (solve * 1e3) : 0}, {"ms_transposes", transposes * 1e3},
                   {"ms_outside_transposes", (solve - transposes) * 1e3}, {"GB/s_transposes", gbs},
                   {"fraction_of_all_to_all", bus > 0 ? gbs / bus : 0}, {"ms_recorded", recorded * 1e3},
                   {"ms_host_queue", queued * 1e3}}});
  if (comm.rank() == 0) {
    lists.push_back(name + ", passes of one solve:");
    lists.push_back("  " + pass_list("fused, 1 rank", fused_list));
    lists.push_back("  " + pass_list("distributed, 1 rank", one_list));
    if (comm.parallel()) lists.push_back("  " + pass_list("distributed, rank 0 of " + std::to_string(comm.size()), many_list));
    lists.push_back(phase_line("  phases of the distributed solve on " + std::to_string(comm.size()) + " ranks (ms, the slowest rank's):",
                               phases));
    if (!transpose_phases.empty())
      lists.push_back(phase_line("  phases of its transposes alone (ms, the slowest rank's):", transpose_phases));
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simkit fluid scaling benchmark: the distributed transform solve and the 3D step (run under mpirun)"};
  bench::CommonOptions opts;
  index_t cells2 = 4096, cells3 = 512, tg3 = 512;
  int steps = 10, batch = 10;
  bool weak = true, mg = true, solves_only = false;
  opts.add_to(app);
  app.add_option("--cells2", cells2, "cavity: n (n x n cells in all)");
  app.add_option("--cells3", cells3, "3D box: n (n^3 in all for strong scaling, per rank for weak; 0: none)");
  app.add_option("--tg3", tg3, "Taylor-Green 3D step: n (n^3 in all for strong scaling, per rank for weak; 0: none)");
  app.add_option("--steps", steps, "timed samples (median reported)");
  app.add_option("--batch", batch, "cavity steps per sample, and steps per batch of the adaptive dt's device-clocked steps");
  app.add_flag("!--no-weak", weak, "skip the 3D weak-scaling rows");
  app.add_flag("!--no-mg", mg, "skip the mg_cg rows");
  app.add_flag("--solves-only", solves_only, "only the all-to-all and the solve-alone rows");
  CLI11_PARSE(app, argc, argv);
  try {
    const Comm comm = Comm::world();
    ContextOptions options;
    if (const int gpus = cuda_device_count(); gpus > 0) options.device = comm.local_rank() % gpus;
    const Context ctx = Context::create(opts.backend, options);
    std::vector<bench::Row> rows;
    // the reference: an all-to-all of one 3D float64 slab's bytes (the largest transpose here);
    // none where no case reports transposes (the Taylor-Green step alone)
    const double slab_bytes = double(cells3 > 0 ? cells3 * cells3 * cells3 : cells2 * cells2) * 8;
    const double bus = comm.parallel() && slab_bytes > 0 ? all_to_all_gbs(comm, ctx, slab_bytes, steps, rows) : 0;
    std::vector<std::string> lists;  // the passes of the solve-alone rows
    if (cells3 > 0) {
      for (bool periodic : {true, false}) {
        solve_alone_case<double, 3>(comm, ctx, cells3, steps, bus, rows, lists, periodic);
        solve_alone_case<float, 3>(comm, ctx, cells3, steps, bus, rows, lists, periodic);
      }
    }
    if (cells2 > 0) {
      solve_alone_case<double, 2>(comm, ctx, cells2, steps, bus, rows, lists, false);
      solve_alone_case<float, 2>(comm, ctx, cells2, steps, bus, rows, lists, false);
    }
    if (solves_only) cells2 = cells3 = tg3 = 0;
    if (cells2 > 0) {
      cavity_case<double>(comm, ctx, cells2, steps, batch, bus, rows);
      cavity_case<float>(comm, ctx, cells2, steps, batch, bus, rows);
      if (mg) {
        mg_cg_case<double>(comm, ctx, cells2, steps, rows);
        mg_cg_case<float>(comm, ctx, cells2, steps, rows);
      }
    }
    if (cells3 > 0)
      for (bool w : {false, true}) {
        if (w && !weak) continue;
        poisson3_case<double>(comm, ctx, cells3, w, steps, bus, rows, lists);
        poisson3_case<float>(comm, ctx, cells3, w, steps, bus, rows, lists);
      }
    if (tg3 > 0) {
      taylor_green_case<double>(comm, ctx, tg3, weak, steps, batch, rows);
      taylor_green_case<float>(comm, ctx, tg3, weak, steps, batch, rows);
    }
    if (comm.rank() == 0) {
      bench::report("bench_fluid_scaling, " + std::to_string(comm.size()) + " ranks", ctx, opts.commit, rows, opts.json);
      for (const std::string& line : lists) std::printf("%s\n", line.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_fluid_scaling: %s\n", e.what());
    return 1;
  }
}
