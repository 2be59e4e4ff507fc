// Real diffusion_stage_3d (core/cuda/diffusion.cuh) against the previous kernel, on the Field layout, 512^3.
#include <algorithm>
#include <cstdio>
#include <vector>
#include "core/cuda/diffusion.cuh"
using namespace sim;
using namespace sim::gpu;
namespace sim::gpu {
#include "old3d.inc"
}
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); std::exit(1); } } while (0)
template <class T> __global__ void init_kernel(T* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = T(1) + T(0.001) * T(i % 9973);
}
__global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) b[i] = a[i];
}
template <class F> double median_ms(F f, int reps = 15) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); std::vector<float> t;
  for (int w = 0; w < 3; ++w) f();
  for (int r = 0; r < reps; ++r) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
template <class T>
void run_all(double copy_gbs, int n) {
  const int pad = 128 / sizeof(T), lead = pad, row = (lead + n + 1 + pad - 1) / pad * pad, s1 = row, s0 = row * (n + 2);
  const size_t total = size_t(s0) * (n + 2);
  T *a, *b, *ref; CK(cudaMalloc(&a, total * sizeof(T))); CK(cudaMalloc(&b, total * sizeof(T))); CK(cudaMalloc(&ref, total * sizeof(T)));
  const int off = s0 + s1 + lead;
  DiffusionArgs<T> args{};
  args.n0 = args.n1 = args.n2 = n; args.s0 = s0; args.s1 = s1; args.c0 = args.c1 = args.c2 = T(0.1); args.dt = T(1e-3); args.w = 0;
  args.lo.on = args.hi.on = true; args.lo.sign = args.hi.sign = T(-1); args.period = n;
  auto go = [&](const char* name, auto launch, bool is_ref) {
    init_kernel<<<1024, 256>>>(a, total); CK(cudaMemset(b, 0, total * sizeof(T)));
    DiffusionArgs<T> x = args; x.v = a + off; x.u0 = x.src = x.v; x.out = b + off; launch(x); CK(cudaDeviceSynchronize());
    if (is_ref) CK(cudaMemcpy(ref, b, total * sizeof(T), cudaMemcpyDeviceToDevice));
    std::vector<T> h1(total), h2(total); CK(cudaMemcpy(h1.data(), b, total * sizeof(T), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(h2.data(), ref, total * sizeof(T), cudaMemcpyDeviceToHost));
    size_t bad = 0; for (size_t i = 0; i < total; ++i) bad += !(h1[i] == h2[i]);
    int it = 0;
    double ms = median_ms([&] { DiffusionArgs<T> y = args; T* s = it % 2 ? b : a; T* d = it % 2 ? a : b; ++it; y.v = s + off; y.u0 = y.src = y.v; y.out = d + off; launch(y); });
    CK(cudaGetLastError());
    double gbs = 2.0 * sizeof(T) * double(n) * n * n / (ms * 1e-3) / 1e9;
    std::printf("%s n=%d %-30s %.4f ms %5.0f GB/s %5.1f%% of copy kernel %s\n", sizeof(T) == 4 ? "f32" : "f64", n, name, ms, gbs, 100 * gbs / copy_gbs, bad ? "MISMATCH" : "same");
  };
  constexpr int R = sizeof(T) == 4 ? 4 : 2;
  go("old rows R by8", [&](DiffusionArgs<T> x) { old_stage_3d<T, int, R, 8><<<dim3((n + 31) / 32, (n + 7) / 8, (n + R - 1) / R), dim3(32, 8)>>>(x); }, true);
#define NEW(RR, BY, EX) go("new rows " #RR " by" #BY " extra" #EX, [&](DiffusionArgs<T> x) { diffusion_stage_3d<T, int, RR, BY, EX><<<dim3((n + 31) / 32, (n + BY - 1) / BY, (n + RR - 1) / RR), dim3(32, BY)>>>(x); }, false);
  NEW(R, 16, false) NEW(R, 8, false) NEW(R, 16, true) NEW(R, 8, true)
  if (sizeof(T) == 8) { NEW(4, 8, false) NEW(4, 16, false) } else { NEW(2, 16, false) NEW(8, 8, false) }
  CK(cudaFree(a)); CK(cudaFree(b)); CK(cudaFree(ref));
}
int main() {
  const size_t bytes = size_t(2) << 30; float *ca, *cb; CK(cudaMalloc(&ca, bytes)); CK(cudaMalloc(&cb, bytes));
  init_kernel<<<1024, 256>>>(ca, bytes / 4); CK(cudaDeviceSynchronize());
  const double mk = median_ms([&] { copy4<<<132 * 16, 256>>>((const float4*)ca, (float4*)cb, bytes / 16); });
  const double gk = 2.0 * bytes / (mk * 1e-3) / 1e9; std::printf("float4 copy kernel: %.0f GB/s\n", gk);
  CK(cudaFree(ca)); CK(cudaFree(cb));
  run_all<float>(gk, 512); run_all<double>(gk, 512); run_all<float>(gk, 500); run_all<double>(gk, 500);
}
