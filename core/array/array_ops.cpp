// Fill and copy of arrays and views; compiled by nvcc in cuda builds, so that host-compiled
// code (I/O, apps) can move arrays without compiling kernels of its own.
#include <cstdint>
#include <cstring>

#include "core/array/array.hpp"
#include "core/kernels/for_each.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/check.hpp"
#endif

namespace sim::detail {

namespace {
template <class T, int Rank>
struct FillFn;
template <class T>
struct FillFn<T, 1> {
  View<T, 1> v;
  T value;
  SIM_INLINE void operator()(index_t i) const { v(i) = value; }
};
template <class T>
struct FillFn<T, 2> {
  View<T, 2> v;
  T value;
  SIM_INLINE void operator()(index_t i, index_t j) const { v(i, j) = value; }
};
template <class T>
struct FillFn<T, 3> {
  View<T, 3> v;
  T value;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { v(i, j, k) = value; }
};

template <class T, int Rank>
struct CopyFn;
template <class T>
struct CopyFn<T, 1> {
  View<const T, 1> src;
  View<T, 1> dst;
  SIM_INLINE void operator()(index_t i) const { dst(i) = src(i); }
};
template <class T>
struct CopyFn<T, 2> {
  View<const T, 2> src;
  View<T, 2> dst;
  SIM_INLINE void operator()(index_t i, index_t j) const { dst(i, j) = src(i, j); }
};
template <class T>
struct CopyFn<T, 3> {
  View<const T, 3> src;
  View<T, 3> dst;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { dst(i, j, k) = src(i, j, k); }
};

// Moves bytes between host and the context's memory, waiting for completion.
void move_bytes(const Context& ctx, void* dst, const void* src, std::size_t bytes, bool to_host) {
  if (bytes == 0) return;
#if SIM_TU_HAS_CUDA
  if (ctx.is_cuda()) {
    auto stream = static_cast<cudaStream_t>(ctx.stream());
    SIM_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, stream));
    SIM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
#endif
  (void)to_host;
  (void)ctx;
  std::memcpy(dst, src, bytes);
}
}  // namespace

template <class T, int Rank>
void fill(const Context& ctx, View<T, Rank> v, T value) {
  for_each(ctx, "sim::fill", v.box(), FillFn<T, Rank>{v, value});
}

template <class T, int Rank>
void copy(const Context& ctx, View<const T, Rank> src, View<T, Rank> dst) {
  if (src.shape != dst.shape)
    throw ShapeError("copy: source shape " + to_string(src.shape) + " differs from destination shape " +
                     to_string(dst.shape));
  if (src.contiguous() && dst.contiguous()) {  // one flat loop, no per-dimension index arithmetic
    const index_t n = src.size();
#if SIM_TU_HAS_CUDA
    if (ctx.is_cuda()) {  // cudaMemcpy's rate (a kernel of 4-byte elements falls well short of it); Default: UVA finds
                          // the direction, so pinned host staging buffers copy too
      if (n > 0)
        SIM_CUDA_CHECK(cudaMemcpyAsync(dst.ptr, src.ptr, std::size_t(n) * sizeof(T), cudaMemcpyDefault,
                                       static_cast<cudaStream_t>(ctx.stream())));
      return;
    }
#endif
    for_each(ctx, "sim::copy", Box<1>{{0}, {n}}, CopyFn<T, 1>{dense_view<const T, 1>(src.ptr, extents(n)), dense_view<T, 1>(dst.ptr, extents(n))});
    return;
  }
  for_each(ctx, "sim::copy", dst.box(), CopyFn<T, Rank>{src, dst});
}

#if SIM_TU_HAS_CUDA
// Strided (rows of a larger allocation, last stride 1) <-> dense copies as one cudaMemcpy2D/3D
// queued on `stream`: no packing kernel, no temporary. Returns false (queueing nothing) when the
// layout does not fit or its rows are shorter than min_row bytes.
template <class T, int Rank>
bool pitched_copy_async(View<const T, Rank> v, T* dense, bool to_host, cudaStream_t stream, std::size_t min_row) {
  if (Rank < 2 || v.stride[Rank - 1] != 1 || v.stride[Rank - 2] < v.shape.n[Rank - 1]) return false;  // rows apart, ascending
  const std::size_t row = std::size_t(v.shape.n[Rank - 1]) * sizeof(T), pitch = std::size_t(v.stride[Rank - 2]) * sizeof(T);
  if (row < min_row) return false;
  const cudaMemcpyKind kind = to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
  if (Rank == 2) {
    if (to_host)
      SIM_CUDA_CHECK(cudaMemcpy2DAsync(dense, row, v.ptr, pitch, row, std::size_t(v.shape.n[0]), kind, stream));
    else
      SIM_CUDA_CHECK(cudaMemcpy2DAsync(const_cast<T*>(v.ptr), pitch, dense, row, row, std::size_t(v.shape.n[0]), kind, stream));
  } else {
    if (v.stride[0] < v.stride[1] * v.shape.n[1] || v.stride[0] % v.stride[1] != 0) return false;
    cudaMemcpy3DParms p = {};
    cudaPitchedPtr strided = make_cudaPitchedPtr(const_cast<T*>(v.ptr), pitch, row, std::size_t(v.stride[0] / v.stride[1]));
    cudaPitchedPtr packed = make_cudaPitchedPtr(dense, row, row, std::size_t(v.shape.n[Rank > 2 ? 1 : 0]));
    p.srcPtr = to_host ? strided : packed;
    p.dstPtr = to_host ? packed : strided;
    p.extent = make_cudaExtent(row, std::size_t(v.shape.n[Rank > 2 ? 1 : 0]), std::size_t(v.shape.n[0]));
    p.kind = kind;
    SIM_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream));
  }
  return true;
}

// The same, on the context's stream, waiting for completion.
template <class T, int Rank>
bool pitched_copy(const Context& ctx, View<const T, Rank> v, T* dense, bool to_host) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  if (!pitched_copy_async<T, Rank>(v, dense, to_host, stream, 0)) return false;
  SIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return true;
}

// Rows shorter than this go through a packing kernel in the asynchronous copies: the copy
// engines move narrow rows (a column of a 2D field, one element per row) very slowly.
constexpr std::size_t min_async_row_bytes = 256;

// Queues a dense or pitched host <-> device copy on stream; false when it needs packing.
template <class T, int Rank>
bool queue_host_copy(View<const T, Rank> v, T* host, bool to_host, cudaStream_t stream) {
  if (v.size() == 0) return true;
  if (v.contiguous()) {
    const std::size_t bytes = std::size_t(v.size()) * sizeof(T);
    SIM_CUDA_CHECK(cudaMemcpyAsync(to_host ? static_cast<void*>(host) : const_cast<T*>(v.ptr), to_host ? static_cast<const void*>(v.ptr) : host,
                                   bytes, to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, stream));
    return true;
  }
  return pitched_copy_async<T, Rank>(v, host, to_host, stream, min_async_row_bytes);
}
#endif

template <class T, int Rank>
bool copy_to_host_async(View<const T, Rank> v, T* host, void* stream) {
#if SIM_TU_HAS_CUDA
  return queue_host_copy<T, Rank>(v, host, true, static_cast<cudaStream_t>(stream));
#else
  (void)v, (void)host, (void)stream;
  return false;
#endif
}

template <class T, int Rank>
bool copy_from_host_async(const T* host, View<T, Rank> v, void* stream) {
#if SIM_TU_HAS_CUDA
  return queue_host_copy<T, Rank>(View<const T, Rank>(v), const_cast<T*>(host), false, static_cast<cudaStream_t>(stream));
#else
  (void)v, (void)host, (void)stream;
  return false;
#endif
}

template <class T, int Rank>
void copy_to_host(const Context& ctx, View<const T, Rank> v, T* host) {
  const std::size_t bytes = static_cast<std::size_t>(v.size()) * sizeof(T);
#if SIM_TU_HAS_CUDA
  if (ctx.is_cuda() && !v.contiguous() && v.size() > 0 && pitched_copy<T, Rank>(ctx, v, host, true)) return;
#endif
  if (v.contiguous() || !ctx.is_cuda()) {
    if (v.contiguous()) return move_bytes(ctx, host, v.ptr, bytes, true);
    copy<T, Rank>(ctx, v, dense_view(host, v.shape));
    return;
  }
  T* packed = static_cast<T*>(ctx.allocate(bytes));
  copy<T, Rank>(ctx, v, dense_view(packed, v.shape));
  move_bytes(ctx, host, packed, bytes, true);
  ctx.deallocate(packed, bytes);
}

template <class T, int Rank>
void copy_from_host(const Context& ctx, const T* host, View<T, Rank> v) {
  const std::size_t bytes = static_cast<std::size_t>(v.size()) * sizeof(T);
#if SIM_TU_HAS_CUDA
  if (ctx.is_cuda() && !v.contiguous() && v.size() > 0 &&
      pitched_copy<T, Rank>(ctx, View<const T, Rank>(v), const_cast<T*>(host), false))
    return;
#endif
  if (v.contiguous() || !ctx.is_cuda()) {
    if (v.contiguous()) return move_bytes(ctx, v.ptr, host, bytes, false);
    copy<T, Rank>(ctx, dense_view(host, v.shape), v);
    return;
  }
  T* packed = static_cast<T*>(ctx.allocate(bytes));
  move_bytes(ctx, packed, host, bytes, false);
  copy<T, Rank>(ctx, dense_view<const T, Rank>(packed, v.shape), v);
  ctx.synchronize();
  ctx.deallocate(packed, bytes);
}

#define SIM_INSTANTIATE_ARRAY_OPS(T, R)                                   \
  template void fill<T, R>(const Context&, View<T, R>, T);                \
  template void copy<T, R>(const Context&, View<const T, R>, View<T, R>); \
  template void copy_to_host<T, R>(const Context&, View<const T, R>, T*); \
  template void copy_from_host<T, R>(const Context&, const T*, View<T, R>); \
  template bool copy_to_host_async<T, R>(View<const T, R>, T*, void*);     \
  template bool copy_from_host_async<T, R>(const T*, View<T, R>, void*);
#define SIM_INSTANTIATE_ARRAY_OPS_ALL_RANKS(T) \
  SIM_INSTANTIATE_ARRAY_OPS(T, 1) SIM_INSTANTIATE_ARRAY_OPS(T, 2) SIM_INSTANTIATE_ARRAY_OPS(T, 3)

SIM_INSTANTIATE_ARRAY_OPS_ALL_RANKS(bool)
SIM_INSTANTIATE_ARRAY_OPS_ALL_RANKS(float)
SIM_INSTANTIATE_ARRAY_OPS_ALL_RANKS(double)
SIM_INSTANTIATE_ARRAY_OPS_ALL_RANKS(std::int32_t)
SIM_INSTANTIATE_ARRAY_OPS_ALL_RANKS(std::int64_t)
SIM_INSTANTIATE_ARRAY_OPS_ALL_RANKS(std::uint32_t)
SIM_INSTANTIATE_ARRAY_OPS_ALL_RANKS(std::uint64_t)

}  // namespace sim::detail
