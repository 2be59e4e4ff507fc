// The device copy rate (copy_rate.hpp), measured once per device and cached.
#include "core/runtime/copy_rate.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#if SIMKIT_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

namespace {

std::filesystem::path cache_file(const std::string& device) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path dir = xdg && *xdg ? std::filesystem::path(xdg) : home && *home ? std::filesystem::path(home) / ".cache" : "";
  if (dir.empty()) return {};
  std::string name;
  for (char c : device) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return dir / "simkit" / ("copy-rate-" + name + ".txt");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double measure(const Context& ctx) {
  std::vector<double> seconds;
  if (ctx.is_cuda()) {
#if SIMKIT_HAS_CUDA
    const std::size_t bytes = std::size_t(256) << 20;
    void* a = ctx.allocate(bytes);
    void* b = ctx.allocate(bytes);
    auto stream = static_cast<cudaStream_t>(ctx.stream());
    SIM_CUDA_CHECK(cudaMemsetAsync(a, 1, bytes, stream));
    cudaEvent_t start, stop;
    SIM_CUDA_CHECK(cudaEventCreate(&start));
    SIM_CUDA_CHECK(cudaEventCreate(&stop));
    for (int r = 0; r < 7; ++r) {
      SIM_CUDA_CHECK(cudaEventRecord(start, stream));
      SIM_CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream));
      SIM_CUDA_CHECK(cudaEventRecord(stop, stream));
      SIM_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      SIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (r >= 2) seconds.push_back(ms * 1e-3);  // the first two warm up
    }
    cudaEventDestroy(start), cudaEventDestroy(stop);
    ctx.deallocate(a, bytes), ctx.deallocate(b, bytes);
    return 2.0 * double(bytes) / median(seconds);
#endif
  }
  const std::size_t per_thread = std::size_t(64) << 20;
  const int threads = omp_get_max_threads();
  std::vector<std::vector<char>> src(std::size_t(threads), std::vector<char>(per_thread, 1)),
      dst(std::size_t(threads), std::vector<char>(per_thread, 0));
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      std::memcpy(dst[std::size_t(t)].data(), src[std::size_t(t)].data(), per_thread);
    }
    if (r >= 2) seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * double(per_thread) * double(threads) / median(seconds);
}

}  // namespace

double device_copy_rate(const Context& ctx) {
  const std::filesystem::path file = cache_file(ctx.device_name() + (ctx.is_cuda() ? "" : "-threads" + std::to_string(omp_get_max_threads())));
  if (!file.empty()) {
    std::ifstream in(file);
    double cached = 0;
    if (in >> cached && cached > 0) return cached;
  }
  const double rate = measure(ctx);
  if (!file.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    const std::filesystem::path tmp = file.string() + ".tmp";
    { std::ofstream(tmp) << rate << "\n"; }
    std::filesystem::rename(tmp, file, ec);  // atomic: concurrent runs never read half a number
  }
  return rate;
}

}  // namespace sim
