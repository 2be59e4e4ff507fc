#pragma once
// The cuda backend of sort, argsort and cumsum: cub::DeviceRadixSort and cub::DeviceScan
// on the context's stream, temporary storage from the context's pool.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdint>
#include <type_traits>

#include "core/context.hpp"
#include "core/cuda/check.hpp"
#include "core/cuda/for_each.cuh"
#include "core/cuda/reduce.cuh"
#include "core/types.hpp"
#include "core/view.hpp"

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

}  // namespace sim::gpu
