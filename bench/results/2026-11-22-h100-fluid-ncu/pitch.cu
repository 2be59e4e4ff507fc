// Experiment: the real PoissonResidual and MgRestrict functors (solvers/) on 4096^2 float64
// fields with row pitches of a dense array (4096) and of a Field (4128, first cell 16 in).
#include <algorithm>
#include <cstdio>
#include <vector>
#include "solvers/poisson.hpp"
#include "solvers/multigrid.hpp"
using namespace sim;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); std::exit(1); } } while (0)
template <class F> __global__ void k2(index_t n0, index_t n1, F f) {
  const index_t j = index_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n1) return;
  for (index_t i = blockIdx.y; i < n0; i += gridDim.y) f(i, j);
}
__global__ void init(double* p, size_t n) { for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = 1.0 + 1e-3 * double(i % 7919); }
template <class F> double median_ms(F f, int reps = 15) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); std::vector<float> t;
  for (int w = 0; w < 3; ++w) f();
  for (int r = 0; r < reps; ++r) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
View<double, 2> view(double* base, index_t n, index_t pitch, index_t lead) {
  View<double, 2> v; v.ptr = base + pitch + lead; v.shape.n[0] = n; v.shape.n[1] = n; v.stride[0] = pitch; v.stride[1] = 1; return v;
}
int main() {
  const index_t n = 4096, nc = 2048;
  struct L { index_t pitch, lead, cpitch, clead; const char* name; };
  for (L l : {L{4096, 0, 2048, 0, "dense pitch 4096"}, L{4128, 16, 2080, 16, "Field pitch 4128 lead 16"}, L{4112, 16, 2064, 16, "pitch 4112 lead 16"},
              L{4160, 16, 2112, 16, "pitch 4160 lead 16"}, L{4096 + 2 * 16, 0, 2048 + 32, 0, "pitch 4128 lead 0"}, L{4096, 0, 2048, 0, "dense pitch 4096 (again)"}}) {
    const size_t total = size_t(l.pitch) * (n + 2), ctotal = size_t(l.cpitch) * (nc + 2);
    double *p, *b, *r, *c; CK(cudaMalloc(&p, total * 8)); CK(cudaMalloc(&b, total * 8)); CK(cudaMalloc(&r, total * 8)); CK(cudaMalloc(&c, ctotal * 8));
    init<<<1024, 256>>>(p, total); init<<<1024, 256>>>(b, total); CK(cudaDeviceSynchronize());
    solvers::PoissonStencil<double> s; s.nx = n; s.ny = n;
    solvers::PoissonResidual<double> res{s, view(p, n, l.pitch, l.lead), view(b, n, l.pitch, l.lead), view(r, n, l.pitch, l.lead)};
    solvers::MgRestrict<double> rst; rst.ix.n_coarse = rst.iy.n_coarse = nc; rst.nfx = rst.nfy = n;
    rst.fine = view(r, n, l.pitch, l.lead); rst.coarse = view(c, nc, l.cpitch, l.clead); rst.coarse_stencil.nx = rst.coarse_stencil.ny = nc;
    const double tr = median_ms([&] { k2<<<dim3(n / 256, 4096), 256>>>(n, n, res); });
    const double tc = median_ms([&] { k2<<<dim3(nc / 256, 2048), 256>>>(nc, nc, rst); });
    CK(cudaGetLastError());
    std::printf("%-28s residual %.1f us   restrict %.1f us\n", l.name, tr * 1e3, tc * 1e3);
    CK(cudaFree(p)); CK(cudaFree(b)); CK(cudaFree(r)); CK(cudaFree(c));
  }
}
