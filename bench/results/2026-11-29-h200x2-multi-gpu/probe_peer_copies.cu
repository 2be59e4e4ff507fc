// Copy-engine throughput between 2 GPUs of one host: one vs several streams, 1D/2D, push vs pull,
// both directions at once (as the transposes run). Single process, peer access.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <chrono>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

static const int kLanes = 8;
struct Dev { void* src; void* dst; cudaStream_t main; cudaStream_t lane[kLanes]; cudaEvent_t start, stop, go, done[kLanes]; };
Dev d[2];

__global__ void peer_copy(const float4* __restrict__ s, float4* __restrict__ t, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) t[i] = s[i];
}

// one direction's copies: from g to 1-g. mode 0: 1D split in lanes; mode 1: 2D rows of width w, pitch 2w;
// pull: issued on the destination GPU. kernel: SM copy with `blocks` blocks (lanes ignored).
struct Case { const char* name; int mode; size_t width; int lanes; bool pull; int blocks; };

double run(const Case& c, size_t bytes, bool both, int reps, double* per_dir) {
  std::vector<double> ts;
  for (int rep = 0; rep < reps + 3; ++rep) {
    for (int g = 0; g < 2; ++g) { CK(cudaSetDevice(g)); CK(cudaDeviceSynchronize()); }
    for (int dir = 0; dir < (both ? 2 : 1); ++dir) {
      const int from = dir, to = 1 - dir;
      const int issuer = c.pull ? to : from;
      Dev& I = d[issuer];
      CK(cudaSetDevice(issuer));
      CK(cudaEventRecord(I.start, I.main));
      char* s = static_cast<char*>(d[from].src);
      char* t = static_cast<char*>(d[to].dst);
      if (c.mode == 2) {
        peer_copy<<<c.blocks, 512, 0, I.main>>>(reinterpret_cast<const float4*>(s), reinterpret_cast<float4*>(t), bytes / 16);
        CK(cudaGetLastError());
      } else {
        CK(cudaEventRecord(I.go, I.main));
        for (int l = 0; l < c.lanes; ++l) {
          CK(cudaStreamWaitEvent(I.lane[l], I.go, 0));
          if (c.mode == 0) {
            size_t lo = bytes * l / c.lanes, hi = bytes * (l + 1) / c.lanes;
            CK(cudaMemcpyAsync(t + lo, s + lo, hi - lo, cudaMemcpyDefault, I.lane[l]));
          } else {
            size_t rows = bytes / c.width, lo = rows * l / c.lanes, hi = rows * (l + 1) / c.lanes;
            CK(cudaMemcpy2DAsync(t + lo * 2 * c.width, 2 * c.width, s + lo * 2 * c.width, 2 * c.width, c.width, hi - lo,
                                 cudaMemcpyDefault, I.lane[l]));
          }
          CK(cudaEventRecord(I.done[l], I.lane[l]));
          CK(cudaStreamWaitEvent(I.main, I.done[l], 0));
        }
      }
      CK(cudaEventRecord(I.stop, I.main));
    }
    double worst = 0;
    for (int dir = 0; dir < (both ? 2 : 1); ++dir) {
      const int issuer = c.pull ? 1 - dir : dir;
      CK(cudaSetDevice(issuer));
      CK(cudaEventSynchronize(d[issuer].stop));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, d[issuer].start, d[issuer].stop));
      worst = std::max(worst, double(ms));
    }
    if (rep >= 3) ts.push_back(worst);
  }
  std::sort(ts.begin(), ts.end());
  double med = ts[ts.size() / 2];
  *per_dir = bytes / (med * 1e-3) / 1e9;
  return med;
}

int main(int argc, char** argv) {
  size_t bytes = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256) << 20;
  int n = 0;
  CK(cudaGetDeviceCount(&n));
  if (n < 2) { std::printf("need 2 GPUs, have %d\n", n); return 1; }
  for (int g = 0; g < 2; ++g) {
    CK(cudaSetDevice(g));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, g));
    std::printf("GPU %d: %s, asyncEngineCount %d, SMs %d\n", g, p.name, p.asyncEngineCount, p.multiProcessorCount);
    CK(cudaDeviceEnablePeerAccess(1 - g, 0));
    CK(cudaMalloc(&d[g].src, 2 * bytes + (64 << 20)));
    CK(cudaMalloc(&d[g].dst, 2 * bytes + (64 << 20)));
    CK(cudaMemset(d[g].src, 0x3f, 2 * bytes));
    CK(cudaMemset(d[g].dst, 0x11, 2 * bytes));
    CK(cudaStreamCreateWithFlags(&d[g].main, cudaStreamNonBlocking));
    for (int l = 0; l < kLanes; ++l) { CK(cudaStreamCreateWithFlags(&d[g].lane[l], cudaStreamNonBlocking)); CK(cudaEventCreateWithFlags(&d[g].done[l], cudaEventDisableTiming)); }
    CK(cudaEventCreate(&d[g].start)); CK(cudaEventCreate(&d[g].stop)); CK(cudaEventCreateWithFlags(&d[g].go, cudaEventDisableTiming));
  }
  std::vector<Case> cases;
  for (int lanes : {1, 2, 3, 4, 8}) cases.push_back({"1D push", 0, 0, lanes, false, 0});
  for (int lanes : {1, 2, 4}) cases.push_back({"1D pull", 0, 0, lanes, true, 0});
  for (size_t w : {size_t(4096), size_t(65536), size_t(1052672)})
    for (int lanes : {1, 2, 4}) { cases.push_back({"2D push", 1, w, lanes, false, 0}); cases.push_back({"2D pull", 1, w, lanes, true, 0}); }
  for (int blocks : {132, 264, 528}) { cases.push_back({"kernel push", 2, 0, 1, false, blocks}); cases.push_back({"kernel pull", 2, 0, 1, true, blocks}); }
  std::printf("%zu MB a direction, median of 10, GB/s a direction\n", bytes >> 20);
  std::printf("%-12s %9s %5s %6s | %9s %9s | %9s %9s\n", "case", "row B", "lanes", "blocks", "one ms", "one GB/s", "both ms", "both GB/s");
  for (const Case& c : cases) {
    double g1, g2;
    double t1 = run(c, bytes, false, 10, &g1), t2 = run(c, bytes, true, 10, &g2);
    std::printf("%-12s %9zu %5d %6d | %9.3f %9.1f | %9.3f %9.1f\n", c.name, c.width, c.lanes, c.blocks, t1, g1, t2, g2);
  }
  return 0;
}
