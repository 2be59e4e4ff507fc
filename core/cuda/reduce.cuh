#pragma once
// The cuda backend of reduce: cub::DeviceReduce over the box's points in row-major order
// (deterministic: the same input gives the same bits on every run on the same GPU).
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstring>
#include <type_traits>

#include "core/context.hpp"
#include "core/cuda/check.hpp"
#include "core/types.hpp"

namespace sim::gpu {

/// Maps a row-major position t in a box to map(i[, j[, k]]).
template <int Rank, class Acc, class Map>
struct BoxPoint;

template <class Acc, class Map>
struct BoxPoint<1, Acc, Map> {
  index_t lo0;
  Map map;
  __host__ __device__ Acc operator()(index_t t) const { return map(lo0 + t); }
};
template <class Acc, class Map>
struct BoxPoint<2, Acc, Map> {
  index_t lo0, lo1, n1;
  Map map;
  __host__ __device__ Acc operator()(index_t t) const {
    const index_t i = t / n1;
    return map(lo0 + i, lo1 + (t - i * n1));
  }
};
template <class Acc, class Map>
struct BoxPoint<3, Acc, Map> {
  index_t lo0, lo1, lo2, n1, n2;
  Map map;
  __host__ __device__ Acc operator()(index_t t) const {
    const index_t i = t / (n1 * n2), r = t - i * n1 * n2, j = r / n2;
    return map(lo0 + i, lo1 + j, lo2 + (r - j * n2));
  }
};

template <class Acc, class Map>
BoxPoint<1, Acc, Map> box_point(const Box<1>& b, const Map& m) { return {b.lo[0], m}; }
template <class Acc, class Map>
BoxPoint<2, Acc, Map> box_point(const Box<2>& b, const Map& m) { return {b.lo[0], b.lo[1], b.extent(1), m}; }
template <class Acc, class Map>
BoxPoint<3, Acc, Map> box_point(const Box<3>& b, const Map& m) {
  return {b.lo[0], b.lo[1], b.lo[2], b.extent(1), b.extent(2), m};
}

/// A page-locked slot of this host thread for a result coming back (a copy into pageable
/// memory goes through a staging buffer); never freed before the thread ends. nullptr when
/// none could be had.
inline void* pinned_result_slot() {
  struct Slot {
    void* p = nullptr;
    Slot() {
      if (cudaHostAlloc(&p, 256, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        p = nullptr;
      }
    }
    ~Slot() {
      if (p) cudaFreeHost(p);  // may fail during process teardown; nothing to do then
    }
  };
  thread_local Slot slot;
  return slot.p;
}

/// The value at device once the stream reaches it (waits for the stream), through the
/// thread's page-locked slot.
template <class T>
T result_to_host(const T* device, cudaStream_t stream) {
  static_assert(sizeof(T) <= 256 && std::is_trivially_copyable<T>::value, "result_to_host: a small trivially copyable value");
  T result;
  void* slot = pinned_result_slot();
  SIM_CUDA_CHECK(cudaMemcpyAsync(slot ? slot : &result, device, sizeof(T), cudaMemcpyDeviceToHost, stream));
  SIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (slot) std::memcpy(&result, slot, sizeof(T));
  return result;
}

/// Device memory from the context's pool, returned when the scope ends.
struct PoolScratch {
  const Context& ctx;
  std::size_t bytes;
  void* ptr;
  PoolScratch(const Context& c, std::size_t b) : ctx(c), bytes(b), ptr(c.allocate(b)) {}
  ~PoolScratch() { ctx.deallocate(ptr, bytes); }
  PoolScratch(const PoolScratch&) = delete;
  PoolScratch& operator=(const PoolScratch&) = delete;
};

template <int Rank, class Acc, class Map, class Op>
Acc reduce(const Context& ctx, const char* name, const Box<Rank>& box, const Map& map, const Op& op, Acc init) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  auto points = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), box_point<Acc>(box, map));
  const index_t n = box.size();
  PoolScratch out(ctx, sizeof(Acc));
  std::size_t temp_bytes = 0;
  SIM_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, temp_bytes, points, static_cast<Acc*>(out.ptr), n, op, init, stream));
  PoolScratch temp(ctx, temp_bytes);
  SIM_CUDA_CHECK(cub::DeviceReduce::Reduce(temp.ptr, temp_bytes, points, static_cast<Acc*>(out.ptr), n, op, init, stream));
  SIM_CUDA_CHECK_LAUNCH(name, stream);
  return result_to_host(static_cast<const Acc*>(out.ptr), stream);
}

}  // namespace sim::gpu
