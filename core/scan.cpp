// cumsum; compiled by nvcc in cuda builds (cub::DeviceScan in cuda/sort_scan.cuh).
#include "core/scan.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dispatch.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/sort_scan.cuh"
#endif

namespace sim {

template <class T>
void cumsum(const Context& ctx, View<const T, 1> x, View<sum_t<T>, 1> out) {
  using S = sum_t<T>;
  const index_t n = x.shape.n[0];
  if (out.shape.n[0] != n)
    throw ShapeError("cumsum: input of length " + std::to_string(n) + " and output of length " + std::to_string(out.shape.n[0]));
  if (n == 0) return;
  Array<S, 1> ko;
  S* o = out.ptr;
  if (!out.contiguous()) ko = Array<S, 1>(ctx, out.shape), o = ko.data();
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    gpu::inclusive_sum<T, S>(ctx, x, o);
#else
    throw detail::not_compiled_for_cuda("sim::cumsum");
#endif
  } else {
    // two passes over equal chunks: chunk totals, then each chunk's running sum from its offset
    const int threads = n < (index_t(1) << 16) ? 1 : omp_get_max_threads();
    std::vector<S> total(static_cast<std::size_t>(threads) + 1, S(0));
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const index_t lo = n * t / nt, hi = n * (t + 1) / nt;
      S s = 0;
      for (index_t i = lo; i < hi; ++i) s += static_cast<S>(x(i));
      total[t + 1] = s;
#pragma omp barrier
#pragma omp single
      for (int c = 1; c <= nt; ++c) total[c] += total[c - 1];
      s = total[t];
      for (index_t i = lo; i < hi; ++i) o[i] = s += static_cast<S>(x(i));
    }
  }
  if (ko.size()) detail::copy<S, 1>(ctx, View<const S, 1>(ko.view()), out);
}

template <class T>
Array<sum_t<T>, 1> cumsum(const Array<T, 1>& x) {
  Array<sum_t<T>, 1> out(x.context(), x.shape());
  cumsum<T>(x.context(), x.view(), out.view());
  return out;
}

#define SIM_INSTANTIATE_SCAN(T)                                                         \
  template void cumsum<T>(const Context&, View<const T, 1>, View<sum_t<T>, 1>);         \
  template Array<sum_t<T>, 1> cumsum<T>(const Array<T, 1>&);
SIM_INSTANTIATE_SCAN(bool)
SIM_INSTANTIATE_SCAN(float)
SIM_INSTANTIATE_SCAN(double)
SIM_INSTANTIATE_SCAN(std::int32_t)
SIM_INSTANTIATE_SCAN(std::int64_t)
SIM_INSTANTIATE_SCAN(std::uint32_t)
SIM_INSTANTIATE_SCAN(std::uint64_t)

}  // namespace sim
