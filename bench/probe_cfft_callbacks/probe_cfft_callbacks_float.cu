// Probe, float32: cuFFT's C2C along the slowest axis (rows [0, 256) of planes of 512 x 257 complex numbers, length
// 512 and 1024), plain, with the division as a store callback of the forward (callbacks.cu's cbstoref), and a
// division kernel of its own (one value a thread). Prints CSV (ms median of 15).
//   nvcc -std=c++17 -dc -fatbin -gencode=arch=compute_90,code=lto_90 callbacks.cu -o cb.fatbin
//   nvcc -std=c++17 -O2 -arch=sm_90 probe_cfft_callbacks_float.cu -o probef -lcufft && ./probef   (cb.fatbin beside it)
#include <cufft.h>
#include <cufftXt.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <fstream>
#include <iterator>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
#define FK(x) do { cufftResult r = (x); if (r != CUFFT_SUCCESS) { printf("cuFFT %d line %d\n", int(r), __LINE__); return -1.0; } } while (0)
struct DivF { const float* l0; const float* l1; const float* l2; unsigned long long columns, m; float inv_norm; };
std::vector<char> fatbin; void* d_div;
__global__ void fill(float* p, size_t n) { for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = sinf(0.001f * float(i % 100003)) + 0.5f; }
__global__ void divide(float2* z, unsigned n, unsigned plane, unsigned mine, unsigned m, const float* l0, const float* l1, const float* l2, float inv) {
  const unsigned long long total = (unsigned long long)n * mine;
  for (unsigned long long e = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; e < total; e += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned i = unsigned(e / mine), col = unsigned(e - (unsigned long long)i * mine), j = col / m, k = col - j * m;
    const float lambda = l0[i] + l1[j] + l2[2 * k];
    const float f = lambda > 0.0f ? inv / lambda : 0.0f;
    float2& v = z[(unsigned long long)i * plane + col];
    v.x *= f, v.y *= f;
  }
}
double timeit(long long n, long long stride, long long batch, float* data, int dir, const char* cb) {
  cufftHandle h; FK(cufftCreate(&h));
  if (cb) FK(cufftXtSetJITCallback(h, cb, fatbin.data(), fatbin.size(), CUFFT_CB_ST_COMPLEX, &d_div));
  long long nn = n, embed = n; size_t work = 0;
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  FK(cufftMakePlanMany64(h, 1, &nn, &embed, stride, 1, &embed, stride, 1, CUFFT_C2C, batch, &work));
  auto* z = reinterpret_cast<cufftComplex*>(data);
  for (int w = 0; w < 3; ++w) FK(cufftExecC2C(h, z, z, dir));
  std::vector<float> t;
  for (int r = 0; r < 15; ++r) { CK(cudaEventRecord(a)); FK(cufftExecC2C(h, z, z, dir)); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
  std::sort(t.begin(), t.end()); cufftDestroy(h); return t[t.size() / 2];
}
int main() {
  std::ifstream f("cb.fatbin", std::ios::binary); fatbin.assign(std::istreambuf_iterator<char>(f), {});
  const long long ny = 512, m = 257, plane = ny * m, mine = 256 * m;
  float* data; CK(cudaMalloc(&data, size_t(1024) * plane * 8));
  fill<<<1024, 256>>>(data, size_t(1024) * plane * 2); CK(cudaDeviceSynchronize());
  std::vector<float> l(4096, 1.0f); float *l0, *l1, *l2; CK(cudaMalloc(&l0, 4096 * 4)); CK(cudaMalloc(&l1, 4096 * 4)); CK(cudaMalloc(&l2, 4096 * 4));
  for (float* p : {l0, l1, l2}) CK(cudaMemcpy(p, l.data(), 4096 * 4, cudaMemcpyHostToDevice));
  DivF dv{l0, l1, l2, (unsigned long long)plane, (unsigned long long)m, 1e-6f};
  CK(cudaMalloc(&d_div, sizeof dv)); CK(cudaMemcpy(d_div, &dv, sizeof dv, cudaMemcpyHostToDevice));
  printf("n,what,ms,TBps\n");
  for (long long n : {512LL, 1024LL}) {
    const double bytes = 2.0 * 8.0 * double(n) * double(mine);
    for (int v = 0; v < 3; ++v) {
      const char* what = v == 0 ? "forward" : v == 1 ? "inverse" : "forward+storediv";
      double ms = timeit(n, plane, mine, data, v == 1 ? CUFFT_INVERSE : CUFFT_FORWARD, v == 2 ? "cbstoref" : nullptr);
      printf("%lld,%s,%.4f,%.3f\n", n, what, ms, ms > 0 ? bytes / ms / 1e9 : 0.0);
    }
    std::vector<float> t; cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int r = 0; r < 18; ++r) { CK(cudaEventRecord(a)); divide<<<132 * 16, 256>>>(reinterpret_cast<float2*>(data), (unsigned)n, (unsigned)plane, (unsigned)mine, (unsigned)m, l0, l1, l2, 1e-6f); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r >= 3) t.push_back(ms); }
    std::sort(t.begin(), t.end());
    printf("%lld,divide-kernel,%.4f,%.3f\n", n, t[t.size() / 2], bytes / t[t.size() / 2] / 1e9);
  }
}
