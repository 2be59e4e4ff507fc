#pragma once
// The cuda backend of sort, argsort and cumsum: cub::DeviceRadixSort and cub::DeviceScan
// on the context's stream, temporary storage from the context's pool; along an axis,
// cub::DeviceSegmentedRadixSort over the lines and cub::DeviceScan::InclusiveSumByKey (or one
// thread per line when the axis is not the last and there are many lines).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <type_traits>

#include <climits>
#include <string>

#include "core/kernels/axis_lines.hpp"
#include "core/runtime/context.hpp"
#include "core/runtime/error.hpp"
#include "core/cuda/check.hpp"
#include "core/cuda/for_each.cuh"
#include "core/cuda/reduce.cuh"
#include "core/runtime/types.hpp"
#include "core/array/view.hpp"

namespace sim::gpu {

template <class T>
void radix_sort(const Context& ctx, const T* in, T* out, index_t n) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  std::size_t bytes = 0;
  SIM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, in, out, n, 0, int(sizeof(T) * 8), stream));
  PoolScratch temp(ctx, bytes);
  SIM_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.ptr, bytes, in, out, n, 0, int(sizeof(T) * 8), stream));
  SIM_CUDA_CHECK_LAUNCH("sim::sort", stream);
}

struct IotaFn {
  std::int64_t* p;
  __host__ __device__ void operator()(index_t i) const { p[i] = i; }
};

template <class T>
void radix_argsort(const Context& ctx, const T* in, std::int64_t* out, index_t n) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  PoolScratch keys(ctx, std::size_t(n) * sizeof(T)), iota(ctx, std::size_t(n) * sizeof(std::int64_t));
  launch_for_each(ctx, "sim::argsort(iota)", Box<1>{{0}, {n}}, IotaFn{static_cast<std::int64_t*>(iota.ptr)});
  std::size_t bytes = 0;
  auto* k = static_cast<T*>(keys.ptr);
  auto* v = static_cast<const std::int64_t*>(iota.ptr);
  SIM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, in, k, v, out, n, 0, int(sizeof(T) * 8), stream));
  PoolScratch temp(ctx, bytes);
  SIM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.ptr, bytes, in, k, v, out, n, 0, int(sizeof(T) * 8), stream));
  SIM_CUDA_CHECK_LAUNCH("sim::argsort", stream);
}

template <class T, class S>
struct ReadAs {  // element i of a (strided) view, as the scan's type
  View<const T, 1> v;
  __host__ __device__ S operator()(index_t i) const { return static_cast<S>(v(i)); }
};

template <class T, class S>
void inclusive_sum(const Context& ctx, View<const T, 1> x, S* out) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const index_t n = x.shape.n[0];
  std::size_t bytes = 0;
  if constexpr (std::is_same<T, S>::value) {
    if (x.contiguous()) {  // a plain pointer: CUB loads whole vectors per thread
      SIM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, x.ptr, out, n, stream));
      PoolScratch temp(ctx, bytes);
      SIM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.ptr, bytes, x.ptr, out, n, stream));
      SIM_CUDA_CHECK_LAUNCH("sim::cumsum", stream);
      return;
    }
  }
  auto in = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), ReadAs<T, S>{x});
  SIM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n, stream));
  PoolScratch temp(ctx, bytes);
  SIM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.ptr, bytes, in, out, n, stream));
  SIM_CUDA_CHECK_LAUNCH("sim::cumsum", stream);
}

// ---- along an axis: the array as lines (o, p) of len elements, line l = o * inner + p

/// Position t of the line-major order (line t / len, element t % len) as (o, m, p).
struct LinePoint {
  index_t o, m, p;
};
__host__ __device__ inline LinePoint line_point(const detail::Lines& l, index_t t) {
  const index_t line = t / l.len, m = t - line * l.len, o = l.inner == 1 ? line : line / l.inner;
  return LinePoint{o, m, line - o * l.inner};
}
template <class T, class S>
struct LineRead {  // element t of the line-major order, as S
  const T* base;
  detail::Lines l;
  __host__ __device__ S operator()(index_t t) const {
    const LinePoint q = line_point(l, t);
    return static_cast<S>(base[l.offset(q.o, q.m, q.p)]);
  }
};
struct LineOf {
  index_t len;
  __host__ __device__ index_t operator()(index_t t) const { return t / len; }
};
struct LineStart {
  int len;
  __host__ __device__ int operator()(int line) const { return line * len; }
};
template <class T>
struct PackLines {  // dense line-major copy of a strided array
  const T* base;
  detail::Lines l;
  T* dense;
  __host__ __device__ void operator()(index_t t) const {
    const LinePoint q = line_point(l, t);
    dense[t] = base[l.offset(q.o, q.m, q.p)];
  }
};
template <class T>
struct UnpackLines {
  const T* dense;
  detail::Lines l;
  T* base;
  __host__ __device__ void operator()(index_t t) const {
    const LinePoint q = line_point(l, t);
    base[l.offset(q.o, q.m, q.p)] = dense[t];
  }
};
struct PositionInLine {
  std::int64_t* p;
  index_t len;
  __host__ __device__ void operator()(index_t t) const { p[t] = t - (t / len) * len; }
};
template <class T, class S>
struct ScanLineFn {  // one thread per line: coalesced across neighbouring lines along p
  const T* x;
  detail::Lines lx;
  S* out;
  detail::Lines lo;
  __host__ __device__ void operator()(index_t o, index_t p) const {
    S s = 0;
    for (index_t m = 0; m < lx.len; ++m) out[lo.offset(o, m, p)] = s += static_cast<S>(x[lx.offset(o, m, p)]);
  }
};

/// Running sums along the lines of x into out (out_dense: out's lines lie one after another).
template <class T, class S>
void inclusive_sum_lines(const Context& ctx, const T* x, const detail::Lines& lx, S* out, const detail::Lines& lo,
                         bool out_dense) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const index_t n = lx.count() * lx.len;
  if (lx.inner > 1 && lx.count() >= 2048) {
    launch_for_each(ctx, "sim::cumsum(axis)", Box<2>{{0, 0}, {lx.outer, lx.inner}}, ScanLineFn<T, S>{x, lx, out, lo});
    return;
  }
  auto keys = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), LineOf{lx.len});
  auto values = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), LineRead<T, S>{x, lx});
  PoolScratch dense(ctx, out_dense ? 0 : std::size_t(n) * sizeof(S));
  S* dst = out_dense ? out : static_cast<S*>(dense.ptr);
  std::size_t bytes = 0;
  SIM_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(nullptr, bytes, keys, values, dst, n, ::cuda::std::equal_to<>{}, stream));
  PoolScratch temp(ctx, bytes);
  SIM_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(temp.ptr, bytes, keys, values, dst, n, ::cuda::std::equal_to<>{}, stream));
  SIM_CUDA_CHECK_LAUNCH("sim::cumsum(axis)", stream);
  if (!out_dense) launch_for_each(ctx, "sim::cumsum(axis, unpack)", Box<1>{{0}, {n}}, UnpackLines<S>{dst, lo, out});
}

/// Sorts every line of x (or finds its stable sorting permutation, indices) into out:
/// strided lines are packed first and unpacked after.
template <class T, class Out>
void sort_lines(const Context& ctx, const T* x, const detail::Lines& lx, bool x_dense, Out* out, const detail::Lines& lo,
                bool out_dense, bool indices) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const index_t n = lx.count() * lx.len;
  const char* name = indices ? "sim::argsort(axis)" : "sim::sort(axis)";
  if (n > index_t(INT_MAX))
    throw ShapeError(std::string(name) + ": " + std::to_string(n) + " elements; the GPU sort along an axis takes at most 2^31 - 1");
  PoolScratch packed(ctx, x_dense ? 0 : std::size_t(n) * sizeof(T));
  const T* keys_in = x;
  if (!x_dense) {
    launch_for_each(ctx, "sim::sort(axis, pack)", Box<1>{{0}, {n}}, PackLines<T>{x, lx, static_cast<T*>(packed.ptr)});
    keys_in = static_cast<const T*>(packed.ptr);
  }
  PoolScratch result(ctx, out_dense ? 0 : std::size_t(n) * sizeof(Out));
  Out* dst = out_dense ? out : static_cast<Out*>(result.ptr);
  auto begins = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), LineStart{int(lx.len)});
  auto ends = thrust::make_transform_iterator(thrust::counting_iterator<int>(1), LineStart{int(lx.len)});
  const int items = int(n), segments = int(lx.count());
  std::size_t bytes = 0;
  if constexpr (std::is_same<Out, std::int64_t>::value) {
    if (indices) {
      PoolScratch keys_out(ctx, std::size_t(n) * sizeof(T)), pos(ctx, std::size_t(n) * sizeof(std::int64_t));
      auto* k = static_cast<T*>(keys_out.ptr);
      auto* v = static_cast<std::int64_t*>(pos.ptr);
      launch_for_each(ctx, "sim::argsort(axis, positions)", Box<1>{{0}, {n}}, PositionInLine{v, lx.len});
      SIM_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(nullptr, bytes, keys_in, k, v, dst, items, segments, begins,
                                                              ends, 0, int(sizeof(T) * 8), stream));
      PoolScratch temp(ctx, bytes);
      SIM_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(temp.ptr, bytes, keys_in, k, v, dst, items, segments, begins,
                                                              ends, 0, int(sizeof(T) * 8), stream));
      SIM_CUDA_CHECK_LAUNCH(name, stream);
    }
  }
  if constexpr (std::is_same<Out, T>::value) {
    if (!indices) {
      SIM_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeys(nullptr, bytes, keys_in, dst, items, segments, begins, ends, 0,
                                                             int(sizeof(T) * 8), stream));
      PoolScratch temp(ctx, bytes);
      SIM_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeys(temp.ptr, bytes, keys_in, dst, items, segments, begins, ends, 0,
                                                             int(sizeof(T) * 8), stream));
      SIM_CUDA_CHECK_LAUNCH(name, stream);
    }
  }
  if (!out_dense) launch_for_each(ctx, "sim::sort(axis, unpack)", Box<1>{{0}, {n}}, UnpackLines<Out>{dst, lo, out});
}

template <class T>
const T* select_input(const T* p) { return p; }
template <class Indices>
thrust::counting_iterator<std::int64_t> select_input(const Indices&) { return thrust::counting_iterator<std::int64_t>(0); }

/// The value[t] (a pointer, or an index source with operator[]) where flags[t], in order,
/// into out; returns how many (waits for that count).
template <class Value, class T>
index_t select_flagged(const Context& ctx, const Value& value, const bool* flags, T* out, index_t n) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  if (n == 0) return 0;
  HostResult<std::int64_t> count(ctx);
  auto* c = count.device();
  auto in = select_input(value);
  std::size_t bytes = 0;
  SIM_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, out, c, n, stream));
  PoolScratch temp(ctx, bytes);
  SIM_CUDA_CHECK(cub::DeviceSelect::Flagged(temp.ptr, bytes, in, flags, out, c, n, stream));
  SIM_CUDA_CHECK_LAUNCH("sim::extract", stream);
  return index_t(count.get(stream));
}

}  // namespace sim::gpu
