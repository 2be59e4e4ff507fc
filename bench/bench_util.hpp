#pragma once
// Timing and reporting for benchmark programs: CUDA events on the context's stream (host
// clock on the cpu backend), warm-up first, median of repeats, a table on stdout and a
// JSON file with the device, date and commit.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/runtime/context.hpp"
#if SIMKIT_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim::bench {

/// The options every benchmark takes: backend, JSON output path, commit recorded in the JSON.
struct CommonOptions {
  std::string backend = "auto", json, commit = "unknown";
  /// Declares --backend, --json and --commit on app.
  void add_to(CLI::App& app) {
    app.add_option("--backend", backend, "auto, cuda or cpu");
    app.add_option("--json", json, "write the results as JSON here");
    app.add_option("--commit", commit, "commit the binary was built from (recorded in the JSON)");
  }
};

/// Median, min and max of timed runs, in seconds.
struct Timing {
  double median = 0, min = 0, max = 0;
};

/// Runs setup() (untimed) then fn() (timed) warmup + repeat times; returns the timed stats.
inline Timing time_it(const Context& ctx, int repeat, const std::function<void()>& fn,
                      const std::function<void()>& setup = [] {}, int warmup = 2) {
  std::vector<double> t;
  for (int r = 0; r < warmup + repeat; ++r) {
    setup();
    ctx.synchronize();
    double seconds = 0;
#if SIMKIT_HAS_CUDA
    if (ctx.is_cuda()) {
      auto stream = static_cast<cudaStream_t>(ctx.stream());
      cudaEvent_t start, stop;
      SIM_CUDA_CHECK(cudaEventCreate(&start));
      SIM_CUDA_CHECK(cudaEventCreate(&stop));
      SIM_CUDA_CHECK(cudaEventRecord(start, stream));
      fn();
      SIM_CUDA_CHECK(cudaEventRecord(stop, stream));
      SIM_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      SIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
      seconds = ms * 1e-3;
    } else
#endif
    {
      auto t0 = std::chrono::steady_clock::now();
      fn();
      ctx.synchronize();
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    if (r >= warmup) t.push_back(seconds);
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front(), t.back()};
}

/// One result row: a name, its figures (value and unit each), and free-form notes.
struct Row {
  std::string name;
  std::vector<std::pair<std::string, double>> figures;
};

/// Prints rows as a table and writes them, with device, date and commit, as JSON.
inline void report(const std::string& bench, const Context& ctx, const std::string& commit,
                   const std::vector<Row>& rows, const std::string& json_path) {
  std::printf("\n%s on %s\n", bench.c_str(), ctx.device_name().c_str());
  for (const Row& r : rows) {
    std::printf("  %-44s", r.name.c_str());
    for (auto& f : r.figures) std::printf("  %s=%.4g", f.first.c_str(), f.second);
    std::printf("\n");
  }
  if (json_path.empty()) return;
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  std::ofstream out(json_path);
  out << "{\n  \"benchmark\": \"" << bench << "\",\n  \"device\": \"" << ctx.device_name() << "\",\n  \"backend\": \""
      << backend_name(ctx.backend()) << "\",\n  \"date\": \"" << date << "\",\n  \"commit\": \"" << commit
      << "\",\n  \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out << "    {\"name\": \"" << rows[i].name << "\"";
    for (auto& f : rows[i].figures) out << ", \"" << f.first << "\": " << f.second;
    out << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
  std::printf("wrote %s\n", json_path.c_str());
}

}  // namespace sim::bench
