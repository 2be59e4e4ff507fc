#pragma once
// What every from_cupy example shares: --backend cpu|cuda|auto, --size N, --dtype
// float32|float64|both, a wall clock that waits for the device, and the verdict line.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/runtime/context.hpp"
#include "core/runtime/error.hpp"

namespace from_cupy {

struct Options {
  std::string backend = "auto", dtype = "both";
  long long size = 0;
  std::vector<long long> sizes;  // --size may repeat
};

/// Parses the options; exits with 2 and a usage line on anything unknown.
inline Options parse(int argc, char** argv, const char* usage, long long default_size) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: %s needs a value\nusage: %s %s\n", argv[0], a.c_str(), argv[0], usage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--backend") o.backend = value();
    else if (a == "--size") o.sizes.push_back(std::atoll(value().c_str()));
    else if (a == "--dtype") o.dtype = value();
    else {
      std::fprintf(stderr, "%s: unknown option %s\nusage: %s %s\n", argv[0], a.c_str(), argv[0], usage);
      std::exit(2);
    }
  }
  if (o.sizes.empty()) o.sizes.push_back(default_size);
  o.size = o.sizes.front();
  if (o.dtype != "float32" && o.dtype != "float64" && o.dtype != "both") {
    std::fprintf(stderr, "%s: --dtype must be float32, float64 or both\n", argv[0]);
    std::exit(2);
  }
  return o;
}

/// The context for --backend; says which device it is.
inline sim::Context context(const Options& o) {
  sim::Context ctx;
  try {
    ctx = sim::Context::create(o.backend);
  } catch (const sim::Error& e) {  // no GPU for --backend cuda, or an unknown name
    std::fprintf(stderr, "error: %s\n", e.what());
    std::exit(2);
  }
  std::printf("backend: %s (%s)\n", sim::backend_name(ctx.backend()), ctx.device_name().c_str());
  return ctx;
}

/// Seconds taken by f, after the device has finished its work.
template <class F>
double seconds(const sim::Context& ctx, F&& f) {
  ctx.synchronize();
  auto t0 = std::chrono::steady_clock::now();
  f();
  ctx.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The best of `repeat` timings of f after one untimed run, reset() (untimed) before each run:
/// how bench/newcomer.py times the NumPy code beside it.
template <class R, class F>
double best_seconds(const sim::Context& ctx, int repeat, R&& reset, F&& f) {
  reset();
  f();
  double best = 0;
  for (int r = 0; r < repeat; ++r) {
    reset();
    const double s = seconds(ctx, f);
    best = r == 0 ? s : std::min(best, s);
  }
  return best;
}

/// Prints the verdict; the exit status for main (1 on a mismatch).
inline int verdict(bool ok, const char* what) {
  std::printf("%s: %s\n", what, ok ? "OK, matches the host reference" : "MISMATCH against the host reference");
  return ok ? 0 : 1;
}

}  // namespace from_cupy
