// Probe (one GPU): the parts of the 2-rank 3D periodic solve of 512^3 at one rank's sizes, timed alone.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "bench/bench_util.hpp"
#include "core/array/array.hpp"
#include "core/numerics/spectral/batched_cfft.hpp"
#include "core/numerics/spectral/batched_rfft2.hpp"

using namespace sim;

template <class T>
Array<T, 3> filled(const Context& ctx, Extents<3> e) {
  Array<T, 3> a(ctx, e);
  std::vector<T> h(std::size_t(a.size()));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = T(std::sin(0.001 * double(i)) + 0.3);
  detail::copy_from_host<T, 1>(ctx, h.data(), dense_view(a.data(), Extents<1>{{a.size()}}));
  return a;
}

template <class T>
void probe(const Context& ctx, const char* type) {
  const int rep = 10;
  for (index_t planes : {index_t(512), index_t(256)}) {
    Array<T, 3> u = filled<T>(ctx, {{planes, 512, 512}});
    fft::BatchedRealFft2<T> f(ctx, u.shape());
    auto tf = bench::time_it(ctx, rep, [&] { f.forward(u.view()); });
    auto ti = bench::time_it(ctx, rep, [&] { f.inverse(u.view()); }, [&] { f.forward(u.view()); });
    std::printf("%s rfft2 %lld planes of 512^2: forward %.3f ms, inverse %.3f ms\n", type, (long long)planes, tf.median * 1e3, ti.median * 1e3);
    // in 8 pieces into one spectrum
    Array<T, 3> spec(ctx, fft::BatchedRealFft2<T>::spectrum_shape(u.shape()));
    std::vector<fft::BatchedRealFft2<T>> pieces;
    const index_t n = 8, each = planes / n;
    for (index_t k = 0; k < n; ++k) pieces.emplace_back(ctx, Extents<3>{{each, 512, 512}}, spec.data() + k * each * spec.view().stride[0]);
    auto tp = bench::time_it(ctx, rep, [&] {
      for (index_t k = 0; k < n; ++k) pieces[std::size_t(k)].forward(u.view().sub(Box<3>{{k * each, 0, 0}, {(k + 1) * each, 512, 512}}));
    });
    std::printf("%s rfft2 %lld planes in 8 pieces: forward %.3f ms\n", type, (long long)planes, tp.median * 1e3);
    // the complex FFT along x of the spectrum's y-slab: (512, 512 * planes / 512, 2 * 257)
    const index_t ys = planes;  // 512 planes: one rank's whole (512 y); 256: half of y on 2 ranks
    Array<T, 3> z = filled<T>(ctx, {{512, ys, 2 * 257}});
    fft::BatchedComplexFft<T> x(ctx, z.shape());
    auto xf = bench::time_it(ctx, rep, [&] { x.forward(z.view()); });
    auto xi = bench::time_it(ctx, rep, [&] { x.inverse(z.view()); });
    std::printf("%s cfft along x (512, %lld, 257 complex): forward %.3f ms, inverse %.3f ms (%.0f MB)\n", type, (long long)ys,
                xf.median * 1e3, xi.median * 1e3, double(z.size()) * sizeof(T) / 1e6);
    auto stream = static_cast<cudaStream_t>(ctx.stream());
    Array<T, 3> z2(ctx, z.shape());
    auto tc = bench::time_it(ctx, rep, [&] {
      SIM_CUDA_CHECK(cudaMemcpyAsync(z2.data(), z.data(), std::size_t(z.size()) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    });
    std::printf("%s device copy of %.0f MB: %.3f ms (%.0f GB/s read + written)\n", type, double(z.size()) * sizeof(T) / 1e6,
                tc.median * 1e3, 2.0 * double(z.size()) * sizeof(T) / tc.median / 1e9);
  }
}

int main() {
  const Context ctx = Context::create(BackendRequest::cuda, {});
  std::printf("%s\n", ctx.device_name().c_str());
  probe<double>(ctx, "float64");
  probe<float>(ctx, "float32");
}
