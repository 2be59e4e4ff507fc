#pragma once
// Hand-tuned explicit diffusion stage for the GPU. Each thread marches along dimension 0
// (the slowest) over a short column of cells, keeping the i-1, i, i+1 values in registers:
// one new global load per cell for the marching direction instead of three, the in-plane
// neighbours coming from the threads beside it (L1). Behind sim::diffusion_stage.
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#include "core/stencil.hpp"

namespace sim::gpu {

/// Cells each thread marches through along dimension 0.
constexpr int diffusion_march = 16;

template <class T>
struct DiffusionArgs {
  const T* __restrict__ v;
  const T* __restrict__ u0;
  const T* __restrict__ src;
  T* __restrict__ out;
  index_t n0, n1, n2;           // interior extents (n2 = 1 in 2D)
  index_t sv0, sv1, so0, so1;   // strides of v (and u0/src, same layout) and of out; last stride is 1
  T c0, c1, c2;                 // alpha dt / dx_d^2
  T dt, w;
  bool has_src, has_u0;
};

template <class T>
__device__ __forceinline__ T combine(const DiffusionArgs<T>& a, T center, T lap, index_t vo, index_t oo) {
  T next = center + lap;
  if (a.has_src) next += a.dt * a.src[vo];
  if (a.has_u0) next = a.w * a.u0[vo] + (T(1) - a.w) * next;
  (void)oo;
  return next;
}

template <class T>
__global__ void __launch_bounds__(256) diffusion_stage_2d(DiffusionArgs<T> a) {
  const index_t j = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t i0 = index_t(blockIdx.y) * diffusion_march;
  if (j >= a.n1) return;
  const index_t iend = i0 + diffusion_march < a.n0 ? i0 + diffusion_march : a.n0;
  index_t vo = i0 * a.sv0 + j, oo = i0 * a.so0 + j;
  T up = a.v[vo - a.sv0], mid = a.v[vo];
  for (index_t i = i0; i < iend; ++i, vo += a.sv0, oo += a.so0) {
    const T down = a.v[vo + a.sv0];
    const T lap = a.c0 * (up - T(2) * mid + down) + a.c1 * (a.v[vo - 1] - T(2) * mid + a.v[vo + 1]);
    a.out[oo] = combine(a, mid, lap, vo, oo);
    up = mid;
    mid = down;
  }
}

template <class T>
__global__ void __launch_bounds__(256) diffusion_stage_3d(DiffusionArgs<T> a) {
  const index_t k = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const index_t j = index_t(blockIdx.y) * blockDim.y + threadIdx.y;
  const index_t i0 = index_t(blockIdx.z) * diffusion_march;
  if (k >= a.n2 || j >= a.n1) return;
  const index_t iend = i0 + diffusion_march < a.n0 ? i0 + diffusion_march : a.n0;
  index_t vo = i0 * a.sv0 + j * a.sv1 + k, oo = i0 * a.so0 + j * a.so1 + k;
  T up = a.v[vo - a.sv0], mid = a.v[vo];
  for (index_t i = i0; i < iend; ++i, vo += a.sv0, oo += a.so0) {
    const T down = a.v[vo + a.sv0];
    const T lap = a.c0 * (up - T(2) * mid + down) + a.c1 * (a.v[vo - a.sv1] - T(2) * mid + a.v[vo + a.sv1]) +
                  a.c2 * (a.v[vo - 1] - T(2) * mid + a.v[vo + 1]);
    a.out[oo] = combine(a, mid, lap, vo, oo);
    up = mid;
    mid = down;
  }
}

template <class T>
void launch_diffusion_stage(const Context& ctx, int rank, const DiffusionArgs<T>& a) {
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  const unsigned march_blocks = unsigned((a.n0 + diffusion_march - 1) / diffusion_march);
  if (rank == 2) {
    const unsigned bx = 256;
    dim3 grid(unsigned((a.n1 + bx - 1) / bx), march_blocks);
    diffusion_stage_2d<T><<<grid, bx, 0, stream>>>(a);
  } else {
    dim3 block(64, 4);
    dim3 grid(unsigned((a.n2 + block.x - 1) / block.x), unsigned((a.n1 + block.y - 1) / block.y), march_blocks);
    diffusion_stage_3d<T><<<grid, block, 0, stream>>>(a);
  }
  SIM_CUDA_CHECK_LAUNCH("sim::diffusion_stage", stream);
}

}  // namespace sim::gpu
