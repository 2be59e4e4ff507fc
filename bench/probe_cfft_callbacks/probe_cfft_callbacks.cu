// Probe: cuFFT's strided Z2Z along the slowest axis as the distributed periodic solve runs it
// (length 512 and 1024, the rows [0, 256) of planes of 512 x 257 complex numbers), plain and with
// the division by the eigenvalues as a load callback of the inverse or a store callback of the
// forward (callbacks.cu), against a division kernel of its own. Prints CSV (ms median of 15).
//   nvcc -std=c++17 -dc -fatbin -gencode=arch=compute_90,code=lto_90 callbacks.cu -o cb.fatbin
//   nvcc -std=c++17 -O2 -arch=sm_90 probe_cfft_callbacks.cu -o probe -lcufft && ./probe   (cb.fatbin beside it)
#include <cufft.h>
#include <cufftXt.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <fstream>
#include <chrono>
#include <iterator>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
#define FK(x) do { cufftResult r = (x); if (r != CUFFT_SUCCESS) { printf("cuFFT %d line %d\n", int(r), __LINE__); return -1.0; } } while (0)
struct Div { const double* l0; const double* l1; const double* l2; unsigned long long columns, m; double inv_norm; };
std::vector<char> fatbin;
__global__ void divide(double2* z, unsigned n, unsigned plane, unsigned mine, unsigned m, const double* l0, const double* l1, const double* l2, double inv) {
  const unsigned long long total = (unsigned long long)n * mine;
  for (unsigned long long e = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; e < total; e += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned i = unsigned(e / mine), col = unsigned(e - (unsigned long long)i * mine), j = col / m, k = col - j * m;
    const double lambda = l0[i] + l1[j] + l2[2 * k];
    const double f = lambda > 0.0 ? inv / lambda : 0.0;
    double2& v = z[(unsigned long long)i * plane + col];
    v.x *= f, v.y *= f;
  }
}
void* d_div;
__global__ void fill(double* p, size_t n) { for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = sin(0.001 * double(i % 100003)) + 0.5; }
// returns median ms of exec, or -1 on failure
double timeit(long long n, long long stride, long long batch, double* data, int dir, const char* cb, bool patient, double* plan_s, bool store = false) {
  cufftHandle h; FK(cufftCreate(&h));
  if (patient) FK(cufftSetPlanPropertyInt64(h, NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT, 1));
  if (cb) FK(cufftXtSetJITCallback(h, cb, fatbin.data(), fatbin.size(), store ? CUFFT_CB_ST_COMPLEX_DOUBLE : CUFFT_CB_LD_COMPLEX_DOUBLE, &d_div));
  long long nn = n, embed = n; size_t work = 0;
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  auto t0 = std::chrono::steady_clock::now();
  FK(cufftMakePlanMany64(h, 1, &nn, &embed, stride, 1, &embed, stride, 1, CUFFT_Z2Z, batch, &work));
  *plan_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto* z = reinterpret_cast<cufftDoubleComplex*>(data);
  for (int w = 0; w < 3; ++w) FK(cufftExecZ2Z(h, z, z, dir));
  std::vector<float> t;
  for (int r = 0; r < 15; ++r) { CK(cudaEventRecord(a)); FK(cufftExecZ2Z(h, z, z, dir)); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
  std::sort(t.begin(), t.end());
  cufftDestroy(h);
  return t[t.size() / 2];
}
#include <chrono>
int main() {
  std::ifstream f("cb.fatbin", std::ios::binary); fatbin.assign(std::istreambuf_iterator<char>(f), {});
  const long long ny = 512, m = 257, plane = ny * m, mine = 256 * m;
  const long long nmax = 1024;
  double* data; CK(cudaMalloc(&data, size_t(nmax) * plane * 16));
  fill<<<1024, 256>>>(data, size_t(nmax) * plane * 2); CK(cudaDeviceSynchronize());
  std::vector<double> l(4096, 1.0);
  double *l0, *l1, *l2; CK(cudaMalloc(&l0, 4096 * 8)); CK(cudaMalloc(&l1, 4096 * 8)); CK(cudaMalloc(&l2, 4096 * 8));
  for (double* p : {l0, l1, l2}) CK(cudaMemcpy(p, l.data(), 4096 * 8, cudaMemcpyHostToDevice));
  Div dv{l0, l1, l2, (unsigned long long)plane, (unsigned long long)m, 1e-6};
  CK(cudaMalloc(&d_div, sizeof dv)); CK(cudaMemcpy(d_div, &dv, sizeof dv, cudaMemcpyHostToDevice));
  printf("n,what,ms,TBps\n");
  for (long long n : {512LL, 1024LL}) {
    const double bytes = 2.0 * 16.0 * double(n) * double(mine);
    struct V { const char* what; int dir; const char* cb; bool store; };
    for (V v : {V{"forward", CUFFT_FORWARD, nullptr, false}, V{"inverse", CUFFT_INVERSE, nullptr, false}, V{"inverse+div64", CUFFT_INVERSE, "cb64", false},
                V{"inverse+div32", CUFFT_INVERSE, "cb32", false}, V{"inverse+rcp", CUFFT_INVERSE, "cbrcp", false}, V{"inverse+mul", CUFFT_INVERSE, "cbmul", false},
                V{"inverse+scale", CUFFT_INVERSE, "cbscale", false}, V{"inverse+nothing", CUFFT_INVERSE, "cbnothing", false},
                V{"forward+storediv", CUFFT_FORWARD, "cbstore", true},
                V{"forward+storediv64", CUFFT_FORWARD, "cbstore64", true}, V{"forward+storercp", CUFFT_FORWARD, "cbstorercp", true}, V{"forward+storenothing", CUFFT_FORWARD, "cbstorenothing", true},
                V{"inverse+storediv", CUFFT_INVERSE, "cbstore", true}}) {
      double ps = 0; double ms = timeit(n, plane, mine, data, v.dir, v.cb, false, &ps, v.store);
      printf("%lld,%s,%.4f,%.3f\n", n, v.what, ms, ms > 0 ? bytes / ms / 1e9 : 0.0);
      fflush(stdout);
    }
    // a division pass of its own
    std::vector<float> t; cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int r = 0; r < 18; ++r) { CK(cudaEventRecord(a)); divide<<<132 * 16, 256>>>(reinterpret_cast<double2*>(data), (unsigned)n, (unsigned)plane, (unsigned)mine, (unsigned)m, l0, l1, l2, 1e-6); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (r >= 3) t.push_back(ms); }
    std::sort(t.begin(), t.end());
    printf("%lld,divide-kernel,%.4f,%.3f\n", n, t[t.size() / 2], bytes / t[t.size() / 2] / 1e9);
  }
  return 0;
}
