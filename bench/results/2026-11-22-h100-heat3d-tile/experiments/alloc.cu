// Experiment: does the allocator (cudaMalloc vs stream-ordered pools) change copy and 3D stencil bandwidth?
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); std::exit(1); } } while (0)

template <class T> __global__ void init_kernel(T* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = T(1) + T(0.001) * T(i % 9973);
}
__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) b[i] = a[i];
}
template <class T, int ROWS, int BY>
__global__ void __launch_bounds__(32 * BY) stage3d(const T* __restrict__ v, T* __restrict__ out, int n0, int n1, int n2, int s0, int s1, T c) {
  const int k = blockIdx.x * 32 + threadIdx.x, j = blockIdx.y * BY + threadIdx.y, i0 = blockIdx.z * ROWS;
  if (k >= n2 || j >= n1) return;
  const int base = i0 * s0 + j * s1 + k;
  T col[ROWS + 2], jm[ROWS], jp[ROWS], km[ROWS], kp[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS + 2; ++r) col[r] = i0 + r - 1 <= n0 ? v[base + (r - 1) * s0] : T(0);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) if (i0 + r < n0) { const int o = base + r * s0; jm[r] = v[o - s1], jp[r] = v[o + s1], km[r] = v[o - 1], kp[r] = v[o + 1]; }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) if (i0 + r < n0) { const T cc = col[r + 1]; out[base + r * s0] = cc + c * (col[r] + col[r + 2] + jm[r] + jp[r] + km[r] + kp[r] - T(6) * cc); }
}

struct Timer { cudaEvent_t a, b; Timer() { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); } };
template <class F> double median_ms(F f, int reps = 15) {
  Timer t; std::vector<float> v;
  for (int w = 0; w < 3; ++w) f();
  for (int r = 0; r < reps; ++r) { CK(cudaEventRecord(t.a)); f(); CK(cudaEventRecord(t.b)); CK(cudaEventSynchronize(t.b)); float ms; CK(cudaEventElapsedTime(&ms, t.a, t.b)); v.push_back(ms); }
  std::sort(v.begin(), v.end()); return v[v.size() / 2];
}

cudaMemPool_t pool;
void* alloc(const char* mode, size_t bytes) {
  void* p = nullptr;
  if (!std::strcmp(mode, "malloc")) CK(cudaMalloc(&p, bytes));
  else if (!std::strcmp(mode, "default_pool")) { CK(cudaMallocAsync(&p, bytes, 0)); CK(cudaStreamSynchronize(0)); }
  else { CK(cudaMallocFromPoolAsync(&p, bytes, pool, 0)); CK(cudaStreamSynchronize(0)); }
  return p;
}

template <class T, int ROWS, int BY = 8>
void stencil(const char* mode, double copy_gbs, bool aligned = false) {
  const int n = 512, g = 1, pad = 128 / sizeof(T), lead = aligned ? pad - g : 0;
  const int row = (lead + n + 2 * g + pad - 1) / pad * pad, s1 = row, s0 = row * (n + 2);
  const size_t total = size_t(s0) * (n + 2);
  T* a = (T*)alloc(mode, total * sizeof(T)); T* b = (T*)alloc(mode, total * sizeof(T));
  init_kernel<<<1024, 256>>>(a, total); init_kernel<<<1024, 256>>>(b, total); CK(cudaDeviceSynchronize());
  const int off = s0 + s1 + lead + 1;
  dim3 grid(n / 32, n / BY, n / ROWS), block(32, BY);
  int it = 0;
  double ms = median_ms([&] { T* x = it % 2 ? b : a; T* y = it % 2 ? a : b; ++it; stage3d<T, ROWS, BY><<<grid, block>>>(x + off, y + off, n, n, n, s0, s1, T(0.1)); });
  CK(cudaGetLastError());
  double gbs = 2.0 * sizeof(T) * double(n) * n * n / (ms * 1e-3) / 1e9;
  std::printf("%-13s stencil3d %s rows %d by %2d %-9s: %.4f ms, %.0f GB/s, %.1f%% of the copy kernel\n", mode, sizeof(T) == 4 ? "f32" : "f64", ROWS, BY, aligned ? "aligned" : "offset 1", ms, gbs, 100 * gbs / copy_gbs);
  CK(cudaFree(a)); CK(cudaFree(b));
}

int main(int argc, char** argv) {
  cudaMemPoolProps props = {}; props.allocType = cudaMemAllocationTypePinned; props.location.type = cudaMemLocationTypeDevice; props.location.id = 0;
  CK(cudaMemPoolCreate(&pool, &props));
  for (int m = 1; m < argc; ++m) {
    const char* mode = argv[m];
    const size_t bytes = size_t(2) << 30;
    float* a = (float*)alloc(mode, bytes); float* b = (float*)alloc(mode, bytes);
    init_kernel<<<1024, 256>>>(a, bytes / 4); CK(cudaDeviceSynchronize());
    double mc = median_ms([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0)); });
    double mk = median_ms([&] { copy4<<<132 * 16, 256>>>((const float4*)a, (float4*)b, bytes / 16); });
    const double gc = 2.0 * bytes / (mc * 1e-3) / 1e9, gk = 2.0 * bytes / (mk * 1e-3) / 1e9;
    std::printf("%-13s cudaMemcpy D2D 2 GiB: %.0f GB/s; float4 copy kernel: %.0f GB/s\n", mode, gc, gk);
    CK(cudaFree(a)); CK(cudaFree(b));
    for (int al = 0; al < 2; ++al) {
      stencil<float, 4>(mode, gk, al); stencil<float, 2>(mode, gk, al); stencil<float, 8>(mode, gk, al);
      stencil<float, 4, 16>(mode, gk, al); stencil<float, 8, 16>(mode, gk, al); stencil<float, 4, 4>(mode, gk, al);
      stencil<double, 2>(mode, gk, al); stencil<double, 4>(mode, gk, al); stencil<double, 2, 16>(mode, gk, al);
    }
  }
}
