// Experiment: 3D 7-point stencil variants on the Field layout (rows padded, interior at 128 B), 512^3.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); std::exit(1); } } while (0)

template <class T> __global__ void init_kernel(T* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = T(1) + T(0.001) * T(i % 9973);
}
__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) b[i] = a[i];
}
struct P { int n0, n1, n2, s0, s1; };

// V0: the shipped kernel's shape (all loads first, L1 for neighbours); STREAM: streaming stores
template <class T, int ROWS, int BY, int MINB, bool STREAM>
__global__ void __launch_bounds__(32 * BY, MINB) v0(const T* __restrict__ v, T* __restrict__ out, P p, T c) {
  const int k = blockIdx.x * 32 + threadIdx.x, j = blockIdx.y * BY + threadIdx.y, i0 = blockIdx.z * ROWS;
  if (k >= p.n2 || j >= p.n1) return;
  const int base = i0 * p.s0 + j * p.s1 + k;
  T col[ROWS + 2], jm[ROWS], jp[ROWS], km[ROWS], kp[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS + 2; ++r) col[r] = v[base + (r - 1) * p.s0];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) { const int o = base + r * p.s0; jm[r] = v[o - p.s1], jp[r] = v[o + p.s1], km[r] = v[o - 1], kp[r] = v[o + 1]; }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const T cc = col[r + 1];
    const T x = cc + c * (col[r] + col[r + 2] + jm[r] + jp[r] + km[r] + kp[r] - T(6) * cc);
    if (STREAM) __stcs(out + base + r * p.s0, x); else out[base + r * p.s0] = x;
  }
}

// V1: j-neighbours through shared memory (each row loaded once per block; edge warps load the halo rows)
template <class T, int ROWS, int BY>
__global__ void __launch_bounds__(32 * BY) v1(const T* __restrict__ v, T* __restrict__ out, P p, T c) {
  __shared__ T tile[ROWS][BY + 2][32];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int k = blockIdx.x * 32 + tx, j = blockIdx.y * BY + ty, i0 = blockIdx.z * ROWS;
  const int base = i0 * p.s0 + j * p.s1 + k;
  T col[ROWS + 2], km[ROWS], kp[ROWS], halo[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS + 2; ++r) col[r] = v[base + (r - 1) * p.s0];
  const int hy = ty == 0 ? -1 : BY;  // warp 0 loads row j-1, warp BY-1 loads row j+BY... (one halo row each)
  const bool edge = ty == 0 || ty == BY - 1;
  const int hoff = ty == 0 ? -p.s1 : p.s1;
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int o = base + r * p.s0;
    km[r] = v[o - 1], kp[r] = v[o + 1];
    if (edge) halo[r] = v[o + hoff];
  }
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    tile[r][ty + 1][tx] = col[r + 1];
    if (edge) tile[r][hy + 1][tx] = halo[r];
  }
  __syncthreads();
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const T cc = col[r + 1];
    out[base + r * p.s0] = cc + c * (col[r] + col[r + 2] + tile[r][ty][tx] + tile[r][ty + 2][tx] + km[r] + kp[r] - T(6) * cc);
  }
}

// V2: each thread two k cells (k and k + 32): a block covers 64 columns
template <class T, int ROWS, int BY>
__global__ void __launch_bounds__(32 * BY) v2(const T* __restrict__ v, T* __restrict__ out, P p, T c) {
  const int k = blockIdx.x * 64 + threadIdx.x, j = blockIdx.y * BY + threadIdx.y, i0 = blockIdx.z * ROWS;
  const int base = i0 * p.s0 + j * p.s1 + k;
  T col[2][ROWS + 2], jm[2][ROWS], jp[2][ROWS], km[2][ROWS], kp[2][ROWS];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
#pragma unroll
    for (int r = 0; r < ROWS + 2; ++r) col[h][r] = v[base + 32 * h + (r - 1) * p.s0];
  }
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) { const int o = base + 32 * h + r * p.s0; jm[h][r] = v[o - p.s1], jp[h][r] = v[o + p.s1], km[h][r] = v[o - 1], kp[h][r] = v[o + 1]; }
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const T cc = col[h][r + 1];
      out[base + 32 * h + r * p.s0] = cc + c * (col[h][r] + col[h][r + 2] + jm[h][r] + jp[h][r] + km[h][r] + kp[h][r] - T(6) * cc);
    }
}


// V3: j-neighbours through shared memory, KH halves of 32 columns per thread, no early return
template <class T, int ROWS, int BY, int KH>
__global__ void __launch_bounds__(32 * BY) v3(const T* __restrict__ v, T* __restrict__ out, P p, T c) {
  __shared__ T tile[ROWS][BY + 2][32 * KH];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int k0 = blockIdx.x * 32 * KH + tx, j = blockIdx.y * BY + ty, i0 = blockIdx.z * ROWS;
  const bool jok = j < p.n1;
  const int base = i0 * p.s0 + j * p.s1 + k0;
  const bool edge = ty == 0 || ty == BY - 1;
  const int hoff = ty == 0 ? -p.s1 : p.s1, hy = ty == 0 ? 0 : BY + 1;
  T col[KH][ROWS + 2], km[KH][ROWS], kp[KH][ROWS], halo[KH][ROWS];
#pragma unroll
  for (int h = 0; h < KH; ++h) {
    const bool ok = jok && k0 + 32 * h < p.n2;
#pragma unroll
    for (int r = 0; r < ROWS + 2; ++r) col[h][r] = ok && i0 + r - 1 <= p.n0 ? v[base + 32 * h + (r - 1) * p.s0] : T(0);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int o = base + 32 * h + r * p.s0;
      const bool rok = ok && i0 + r < p.n0;
      km[h][r] = rok ? v[o - 1] : T(0), kp[h][r] = rok ? v[o + 1] : T(0);
      halo[h][r] = rok && edge ? v[o + hoff] : T(0);
    }
  }
#pragma unroll
  for (int h = 0; h < KH; ++h)
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      tile[r][ty + 1][32 * h + tx] = col[h][r + 1];
      if (edge) tile[r][hy][32 * h + tx] = halo[h][r];
    }
  __syncthreads();
#pragma unroll
  for (int h = 0; h < KH; ++h) {
    const bool ok = jok && k0 + 32 * h < p.n2;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      if (!ok || i0 + r >= p.n0) continue;
      const T cc = col[h][r + 1];
      out[base + 32 * h + r * p.s0] = cc + c * (col[h][r] + col[h][r + 2] + tile[r][ty][32 * h + tx] + tile[r][ty + 2][32 * h + tx] + km[h][r] + kp[h][r] - T(6) * cc);
    }
  }
}

template <class F> double median_ms(F f, int reps = 15) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); std::vector<float> t;
  for (int w = 0; w < 3; ++w) f();
  for (int r = 0; r < reps; ++r) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}

template <class T>
struct Bench {
  int n = 512, pad = 128 / sizeof(T), lead = pad - 1, row, s0, s1, off; size_t total; T *a, *b, *ref; double copy_gbs;
  Bench(double cg) : copy_gbs(cg) {
    row = (lead + n + 2 + pad - 1) / pad * pad; s1 = row; s0 = row * (n + 2); total = size_t(s0) * (n + 2); off = s0 + s1 + lead + 1;
    CK(cudaMalloc(&a, total * sizeof(T))); CK(cudaMalloc(&b, total * sizeof(T))); CK(cudaMalloc(&ref, total * sizeof(T)));
    init_kernel<<<1024, 256>>>(a, total); init_kernel<<<1024, 256>>>(b, total); CK(cudaDeviceSynchronize());
  }
  template <class L> void run(const char* name, L launch) {
    P p{n, n, n, s0, s1};
    // correctness: one application from a into b, against the reference (first variant)
    static bool have_ref = false;
    init_kernel<<<1024, 256>>>(a, total); CK(cudaMemset(b, 0, total * sizeof(T))); launch(a + off, b + off, p); CK(cudaDeviceSynchronize());
    if (!have_ref) { CK(cudaMemcpy(ref, b, total * sizeof(T), cudaMemcpyDeviceToDevice)); have_ref = true; }
    std::vector<T> x(total), y(total); CK(cudaMemcpy(x.data(), b, total * sizeof(T), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(y.data(), ref, total * sizeof(T), cudaMemcpyDeviceToHost));
    size_t bad = 0; for (size_t i = 0; i < total; ++i) bad += !(x[i] == y[i]);
    int it = 0;
    double ms = median_ms([&] { T* s = it % 2 ? b : a; T* d = it % 2 ? a : b; ++it; launch(s + off, d + off, p); });
    CK(cudaGetLastError());
    double gbs = 2.0 * sizeof(T) * double(n) * n * n / (ms * 1e-3) / 1e9;
    std::printf("%s %-34s %.4f ms  %5.0f GB/s  %5.1f%% of copy kernel  %s\n", sizeof(T) == 4 ? "f32" : "f64", name, ms, gbs, 100 * gbs / copy_gbs, bad ? "MISMATCH" : "same");
  }
};

int main() {
  const size_t bytes = size_t(2) << 30; float *ca, *cb; CK(cudaMalloc(&ca, bytes)); CK(cudaMalloc(&cb, bytes));
  init_kernel<<<1024, 256>>>(ca, bytes / 4); CK(cudaDeviceSynchronize());
  const double mk = median_ms([&] { copy4<<<132 * 16, 256>>>((const float4*)ca, (float4*)cb, bytes / 16); });
  const double gk = 2.0 * bytes / (mk * 1e-3) / 1e9; std::printf("float4 copy kernel: %.0f GB/s\n", gk);
  CK(cudaFree(ca)); CK(cudaFree(cb));
  {
    Bench<float> B(gk); const int n = 512;
    for (int rep = 0; rep < 2; ++rep) {
    B.run("v0 rows4 by8", [&](const float* x, float* y, P p) { v0<float, 4, 8, 1, false><<<dim3(n / 32, n / 8, n / 4), dim3(32, 8)>>>(x, y, p, 0.1f); });
    B.run("v1 smem j rows4 by16", [&](const float* x, float* y, P p) { v1<float, 4, 16><<<dim3(n / 32, n / 16, n / 4), dim3(32, 16)>>>(x, y, p, 0.1f); });
#define V3(R, BY, KH) B.run("v3 rows" #R " by" #BY " kh" #KH, [&](const float* x, float* y, P p) { v3<float, R, BY, KH><<<dim3(n / (32 * KH), n / BY, (n + R - 1) / R), dim3(32, BY)>>>(x, y, p, 0.1f); });
    V3(4, 16, 1) V3(8, 16, 1) V3(4, 32, 1) V3(8, 8, 1) V3(4, 16, 2) V3(8, 8, 2) V3(4, 8, 2) V3(8, 16, 2) V3(6, 16, 1) V3(16, 16, 1)
    }
  }
  {
    Bench<double> B(gk); const int n = 512;
    B.run("v0 rows2 by8", [&](const double* x, double* y, P p) { v0<double, 2, 8, 1, false><<<dim3(n / 32, n / 8, n / 2), dim3(32, 8)>>>(x, y, p, 0.1); });
    B.run("v0 rows4 by8", [&](const double* x, double* y, P p) { v0<double, 4, 8, 1, false><<<dim3(n / 32, n / 8, n / 4), dim3(32, 8)>>>(x, y, p, 0.1); });
    B.run("v0 rows2 by8 streaming stores", [&](const double* x, double* y, P p) { v0<double, 2, 8, 1, true><<<dim3(n / 32, n / 8, n / 2), dim3(32, 8)>>>(x, y, p, 0.1); });
    B.run("v1 smem j rows2 by16", [&](const double* x, double* y, P p) { v1<double, 2, 16><<<dim3(n / 32, n / 16, n / 2), dim3(32, 16)>>>(x, y, p, 0.1); });
    B.run("v1 smem j rows4 by8", [&](const double* x, double* y, P p) { v1<double, 4, 8><<<dim3(n / 32, n / 8, n / 4), dim3(32, 8)>>>(x, y, p, 0.1); });
#define V3D(R, BY, KH) B.run("v3 rows" #R " by" #BY " kh" #KH, [&](const double* x, double* y, P p) { v3<double, R, BY, KH><<<dim3(n / (32 * KH), n / BY, n / R), dim3(32, BY)>>>(x, y, p, 0.1); });
    V3D(2, 16, 1) V3D(4, 16, 1) V3D(4, 8, 2) V3D(8, 8, 1) V3D(4, 32, 1)
  }
}
