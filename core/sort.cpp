// sort and argsort; compiled by nvcc in cuda builds (CUB radix sort in cuda/sort_scan.cuh).
#include "core/sort.hpp"

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

namespace {

// a < b with NaN after everything (NumPy's order); a strict weak order for floats.
template <class T>
inline bool less_nan_last(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) return a < b || (b != b && a == a);
  else return a < b;
}

// Sorts data[0, n) with cmp: the threads sort equal runs, then runs are merged pairwise
// (std::merge keeps the left run first on ties, so stable run sorts give a stable sort).
template <class V, class Cmp>
void parallel_sort(V* data, index_t n, Cmp cmp, bool stable) {
  const int threads = n < (index_t(1) << 16) ? 1 : omp_get_max_threads();
  index_t runs = 1;
  while (runs < threads) runs *= 2;
  std::vector<index_t> bound(static_cast<std::size_t>(runs + 1));
  for (index_t r = 0; r <= runs; ++r) bound[r] = n * r / runs;
#pragma omp parallel for schedule(static) if (runs > 1)
  for (index_t r = 0; r < runs; ++r) {
    if (stable)
      std::stable_sort(data + bound[r], data + bound[r + 1], cmp);
    else
      std::sort(data + bound[r], data + bound[r + 1], cmp);
  }
  if (runs == 1) return;
  std::vector<V> tmp(static_cast<std::size_t>(n));
  V* src = data;
  V* dst = tmp.data();
  for (index_t width = 1; width < runs; width *= 2) {
#pragma omp parallel for schedule(static)
    for (index_t r = 0; r < runs; r += 2 * width) {
      const index_t lo = bound[r], mid = bound[std::min(runs, r + width)], hi = bound[std::min(runs, r + 2 * width)];
      std::merge(src + lo, src + mid, src + mid, src + hi, dst + lo, cmp);
    }
    std::swap(src, dst);
  }
  if (src != data) std::copy(src, src + n, data);
}

template <class T>
struct KeyIndex {
  T key;
  std::int64_t idx;
};

// x as a dense device/host buffer: x itself when contiguous, else a packed copy in keep.
template <class T>
const T* dense_input(const Context& ctx, View<const T, 1> x, Array<T, 1>& keep) {
  if (x.contiguous()) return x.ptr;
  keep = Array<T, 1>(ctx, x.shape);
  detail::copy<T, 1>(ctx, x, keep.view());
  return keep.data();
}

void check_lengths(const char* op, index_t a, index_t b) {
  if (a != b)
    throw ShapeError(std::string(op) + ": input of length " + std::to_string(a) + " and output of length " + std::to_string(b));
}

}  // namespace

template <class T>
void sort(const Context& ctx, View<const T, 1> x, View<T, 1> out) {
  const index_t n = x.shape.n[0];
  check_lengths("sort", n, out.shape.n[0]);
  if (n == 0) return;
  Array<T, 1> kx, ko;
  const T* in = dense_input(ctx, x, kx);
  T* o = out.ptr;
  if (!out.contiguous()) ko = Array<T, 1>(ctx, out.shape), o = ko.data();
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    gpu::radix_sort(ctx, in, o, n);
#else
    throw detail::not_compiled_for_cuda("sim::sort");
#endif
  } else {
    if (o != in) std::copy(in, in + n, o);
    parallel_sort(o, n, [](T a, T b) { return less_nan_last(a, b); }, false);
  }
  if (ko.size()) detail::copy<T, 1>(ctx, View<const T, 1>(ko.view()), out);
}

template <class T>
void argsort(const Context& ctx, View<const T, 1> x, View<std::int64_t, 1> out) {
  const index_t n = x.shape.n[0];
  check_lengths("argsort", n, out.shape.n[0]);
  if (n == 0) return;
  Array<T, 1> kx;
  Array<std::int64_t, 1> ko;
  const T* in = dense_input(ctx, x, kx);
  std::int64_t* o = out.ptr;
  if (!out.contiguous()) ko = Array<std::int64_t, 1>(ctx, out.shape), o = ko.data();
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    gpu::radix_argsort(ctx, in, o, n);
#else
    throw detail::not_compiled_for_cuda("sim::argsort");
#endif
  } else {
    std::vector<KeyIndex<T>> kv(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n > (1 << 16))
    for (index_t i = 0; i < n; ++i) kv[i] = KeyIndex<T>{in[i], i};
    parallel_sort(kv.data(), n, [](const KeyIndex<T>& a, const KeyIndex<T>& b) { return less_nan_last(a.key, b.key); }, true);
#pragma omp parallel for schedule(static) if (n > (1 << 16))
    for (index_t i = 0; i < n; ++i) o[i] = kv[i].idx;
  }
  if (ko.size()) detail::copy<std::int64_t, 1>(ctx, View<const std::int64_t, 1>(ko.view()), out);
}

template <class T>
Array<T, 1> sort(const Array<T, 1>& x) {
  Array<T, 1> out(x.context(), x.shape());
  sort<T>(x.context(), x.view(), out.view());
  return out;
}

template <class T>
Array<std::int64_t, 1> argsort(const Array<T, 1>& x) {
  Array<std::int64_t, 1> out(x.context(), x.shape());
  argsort<T>(x.context(), x.view(), out.view());
  return out;
}

#define SIM_INSTANTIATE_SORT(T)                                                          \
  template void sort<T>(const Context&, View<const T, 1>, View<T, 1>);                   \
  template void argsort<T>(const Context&, View<const T, 1>, View<std::int64_t, 1>);     \
  template Array<T, 1> sort<T>(const Array<T, 1>&);                                      \
  template Array<std::int64_t, 1> argsort<T>(const Array<T, 1>&);
SIM_INSTANTIATE_SORT(float)
SIM_INSTANTIATE_SORT(double)
SIM_INSTANTIATE_SORT(std::int32_t)
SIM_INSTANTIATE_SORT(std::int64_t)
SIM_INSTANTIATE_SORT(std::uint32_t)
SIM_INSTANTIATE_SORT(std::uint64_t)

}  // namespace sim
