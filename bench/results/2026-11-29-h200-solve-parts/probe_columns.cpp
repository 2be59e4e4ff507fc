// Probe (one GPU), built against the library like a benchmark (and cuFFT): the 2D cosine solve's transforms along x on slabs B of a 4096^2 grid (the half
// spectrum's columns, 2049 on one rank, 1025 on one of 2): the strided batched complex FFT the
// solve uses against a contiguous batch of the same transforms (columns laid out along x), and a copy.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include <cufft.h>
#include "bench/bench_util.hpp"
#include "core/array/array.hpp"
#include "core/numerics/spectral/batched_cfft.hpp"

using namespace sim;

template <class T>
Array<T, 3> filled(const Context& ctx, Extents<3> e) {
  Array<T, 3> a(ctx, e);
  std::vector<T> h(static_cast<std::size_t>(a.size()));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = T(std::sin(0.001 * double(i)) + 0.3);
  detail::copy_from_host<T, 1>(ctx, h.data(), dense_view(a.data(), Extents<1>{{a.size()}}));
  return a;
}

template <class T>
void probe(const Context& ctx, const char* type) {
  const int rep = 20;
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  for (index_t cols : {index_t(2049), index_t(1025)}) {
    Array<T, 3> z = filled<T>(ctx, {{4096, cols, 2}});
    fft::BatchedComplexFft<T> x(ctx, z.shape());
    auto tf = bench::time_it(ctx, rep, [&] { x.forward(z.view()); });
    // contiguous: each column's 4096 values back to back
    cufftHandle h;
    long long n = 4096;
    std::size_t work = 0;
    cufftCreate(&h);
    cufftMakePlanMany64(h, 1, &n, nullptr, 1, 4096, nullptr, 1, 4096, sizeof(T) == 8 ? CUFFT_Z2Z : CUFFT_C2C, cols, &work);
    cufftSetStream(h, stream);
    auto tc = bench::time_it(ctx, rep, [&] {
      if constexpr (sizeof(T) == 8) cufftExecZ2Z(h, (cufftDoubleComplex*)z.data(), (cufftDoubleComplex*)z.data(), CUFFT_FORWARD);
      else cufftExecC2C(h, (cufftComplex*)z.data(), (cufftComplex*)z.data(), CUFFT_FORWARD);
    });
    cufftDestroy(h);
    Array<T, 3> z2(ctx, z.shape());
    auto tk = bench::time_it(ctx, rep, [&] {
      SIM_CUDA_CHECK(cudaMemcpyAsync(z2.data(), z.data(), std::size_t(z.size()) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    });
    std::printf("%s columns along x (4096, %lld complex) %.0f MB: strided FFT %.4f ms, contiguous FFT %.4f ms, copy %.4f ms\n", type,
                (long long)cols, double(z.size()) * sizeof(T) / 1e6, tf.median * 1e3, tc.median * 1e3, tk.median * 1e3);
  }
}

int main() {
  const Context ctx = Context::create(BackendRequest::cuda, {});
  std::printf("%s\n", ctx.device_name().c_str());
  probe<double>(ctx, "float64");
  probe<float>(ctx, "float32");
}
