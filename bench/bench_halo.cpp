// Halo exchange bandwidth under mpirun: each rank holds a box of cells^Rank (float32 or
// float64, one ghost layer), the ranks are split along dimension 0 with periodic ends, so
// every rank sends one face to each of its two neighbours and receives two. Times
// Halo::exchange (median of repeats, the slowest rank) and reports the bytes each rank sends
// per second (one direction), to compare with a link's bandwidth. SIMKIT_HALO=nccl selects
// SIMKIT_HALO=nccl or =host picks the path for GPU fields (default: by face size).
// On GPUs with NCCL it also times an NCCL all-reduce of large buffers and reports its bus
// bandwidth (nccl-tests' busbw: bytes x 2(n-1)/n per second), the machine's reference.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.hpp"
#include "core/distributed/comm.hpp"
#include "core/distributed/decomposition.hpp"
#include "core/distributed/halo.hpp"
#if SIMKIT_HAS_NCCL
#include "core/array/array.hpp"
#include "core/distributed/nccl_channel.hpp"
#endif

namespace {

using namespace sim;

template <class T, int Rank>
bench::Row exchange_row(const Comm& comm, const Context& ctx, index_t cells, int repeat) {
  index_t global[3] = {1, 1, 1};
  int procs[3] = {1, 1, 1};
  const bool periodic[3] = {true, true, true};
  Extents<Rank> local;
  double length[Rank];
  for (int d = 0; d < Rank; ++d) global[d] = cells, local.n[d] = cells, length[d] = 1.0;
  global[0] = cells * comm.size(), procs[0] = comm.size();
  const Subdomain sub = Decomposition(Rank, global, procs, 1).subdomain(comm.rank(), periodic);
  Field<T, Rank> f(ctx, Grid<Rank>::uniform(local, length, 1));
  f.fill(T(1.5) + T(comm.rank()));  // not zeros: a real payload
  Halo<T, Rank> halo(comm, sub, 1, ctx);
  const bench::Timing t = bench::time_it(ctx, repeat, [&] { halo.exchange(f); });
  const double seconds = comm.max(t.median);
  const double face = double(f.interior().size() / cells);  // cells of one face (normal to dimension 0)
  const double sent = 2 * face * double(sizeof(T));          // bytes each rank sends per exchange
  return {std::to_string(Rank) + "D " + std::to_string(cells) + "^" + std::to_string(Rank) + " per rank, " +
              (sizeof(T) == 4 ? "float32" : "float64") + ", " + halo.transport(),
          {{"ms", seconds * 1e3}, {"MB_sent_per_rank", sent / 1e6}, {"GB/s_sent_per_rank", sent / seconds / 1e9}}};
}

#if SIMKIT_HAS_NCCL
/// NCCL all-reduce (sum) of `bytes` of float32 on every rank: its bus bandwidth.
bench::Row all_reduce_row(const Comm& comm, const Context& ctx, double bytes, int repeat) {
  const auto count = static_cast<index_t>(bytes / sizeof(float));
  Array<float, 1> buffer(ctx, Extents<1>{{count}});
  buffer.fill(1.0f + float(comm.rank()));
  auto channel = NcclChannel::get(comm, ctx);
  const bench::Timing t =
      bench::time_it(ctx, repeat, [&] { channel->all_reduce_sum(ctx, buffer.data(), std::size_t(count), false); });
  const double seconds = comm.max(t.median), n = comm.size();
  const double bus = bytes * 2 * (n - 1) / n / seconds;
  return {"NCCL all-reduce float32, " + std::to_string(static_cast<long long>(bytes / 1e6)) + " MB per rank",
          {{"ms", seconds * 1e3}, {"MB_per_rank", bytes / 1e6}, {"GB/s_bus", bus / 1e9}}};
}
#endif

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simkit halo exchange benchmark (run under mpirun with 2 or more ranks)"};
  bench::CommonOptions opts;
  std::vector<index_t> cells2 = {8192, 16384}, cells3 = {256, 512};
  int repeat = 20;
  opts.add_to(app);
  app.add_option("--cells2", cells2, "2D boxes: cells per dimension and rank");
  app.add_option("--cells3", cells3, "3D boxes: cells per dimension and rank");
  app.add_option("--repeat", repeat, "timed repeats (median reported)");
  CLI11_PARSE(app, argc, argv);
  try {
    const Comm comm = Comm::world();
    if (comm.size() < 2) {
      std::fprintf(stderr, "bench_halo: needs 2 or more ranks; run it as mpirun -np 2 bench_halo\n");
      return 2;
    }
    ContextOptions options;
    if (const int gpus = cuda_device_count(); gpus > 0) options.device = comm.local_rank() % gpus;
    const Context ctx = Context::create(opts.backend, options);
    std::vector<bench::Row> rows;
    for (index_t n : cells2) rows.push_back(exchange_row<float, 2>(comm, ctx, n, repeat));
    for (index_t n : cells2) rows.push_back(exchange_row<double, 2>(comm, ctx, n, repeat));
    for (index_t n : cells3) rows.push_back(exchange_row<float, 3>(comm, ctx, n, repeat));
    for (index_t n : cells3) rows.push_back(exchange_row<double, 3>(comm, ctx, n, repeat));
#if SIMKIT_HAS_NCCL
    if (ctx.is_cuda())
      for (double mb : {64.0, 512.0}) rows.push_back(all_reduce_row(comm, ctx, mb * 1e6, repeat));
#endif
    if (comm.rank() == 0)
      bench::report(std::string("bench_halo, ") + std::to_string(comm.size()) + " ranks",
                    ctx, opts.commit, rows, opts.json);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_halo: %s\n", e.what());
    return 1;
  }
}
