#pragma once
// The cuda backend of reduce: cub::DeviceReduce over the box's points in row-major order
// (deterministic: the same input gives the same bits on every run on the same GPU).
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstring>
#include <type_traits>

#include "core/runtime/context.hpp"
#include "core/cuda/check.hpp"
#include "core/runtime/types.hpp"

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

/// A page-locked slot of this host thread that kernels write small results into directly
/// (mapped memory, its device address in .device: no copy back); never freed before the
/// thread ends. host is nullptr when none could be had; busy while a HostResult holds it.
struct ResultSlot {
  void* host = nullptr;
  void* device = nullptr;
  bool busy = false;
};
inline ResultSlot& result_slot() {
  struct Owned {
    ResultSlot slot;
    Owned() {
      if (cudaHostAlloc(&slot.host, 256, cudaHostAllocPortable | cudaHostAllocMapped) != cudaSuccess ||
          cudaHostGetDevicePointer(&slot.device, slot.host, 0) != cudaSuccess) {
        cudaGetLastError();
        if (slot.host) cudaFreeHost(slot.host);
        slot = ResultSlot{};
      }
    }
    ~Owned() {
      if (slot.host) cudaFreeHost(slot.host);  // may fail during process teardown; nothing to do then
    }
  };
  thread_local Owned owned;
  return owned.slot;
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

/// Where a kernel writes one result of type T that the host then waits for: the thread's
/// mapped result slot, or (without one, or while another HostResult of the thread holds it)
/// device memory copied back by get().
template <class T>
class HostResult {
 public:
  explicit HostResult(const Context& ctx) : ctx_(ctx) {
    static_assert(sizeof(T) <= 256 && std::is_trivially_copyable<T>::value, "HostResult: a small trivially copyable value");
    ResultSlot& slot = result_slot();
    if (slot.host && !slot.busy) {
      slot.busy = true;
      host_ = slot.host, device_ = slot.device;
    } else {
      device_ = ctx.allocate(sizeof(T));
    }
  }
  ~HostResult() {
    if (host_)
      result_slot().busy = false;
    else
      ctx_.deallocate(device_, sizeof(T));
  }
  HostResult(const HostResult&) = delete;
  HostResult& operator=(const HostResult&) = delete;
  /// Where the kernel writes the result.
  T* device() const { return static_cast<T*>(device_); }
  /// The result, once the stream has reached it (waits for the stream).
  T get(cudaStream_t stream) const {
    T result;
    if (!host_) SIM_CUDA_CHECK(cudaMemcpyAsync(&result, device_, sizeof(T), cudaMemcpyDeviceToHost, stream));
    SIM_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (host_) std::memcpy(&result, host_, sizeof(T));
    return result;
  }

 private:
  const Context& ctx_;
  void* host_ = nullptr;
  void* device_ = nullptr;
};

template <int Rank, class Acc, class Map, class Op>
Acc reduce(const Context& ctx, const char* name, const Box<Rank>& box, const Map& map, const Op& op, Acc init) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  auto points = thrust::make_transform_iterator(thrust::counting_iterator<index_t>(0), box_point<Acc>(box, map));
  const index_t n = box.size();
  HostResult<Acc> out(ctx);
  std::size_t temp_bytes = 0;
  SIM_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, temp_bytes, points, out.device(), n, op, init, stream));
  PoolScratch temp(ctx, temp_bytes);
  SIM_CUDA_CHECK(cub::DeviceReduce::Reduce(temp.ptr, temp_bytes, points, out.device(), n, op, init, stream));
  SIM_CUDA_CHECK_LAUNCH(name, stream);
  return out.get(stream);
}

}  // namespace sim::gpu
