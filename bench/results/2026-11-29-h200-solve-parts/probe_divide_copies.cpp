// Probe (one GPU), built against the library like a benchmark: the division along x of the distributed 3D periodic solve (its own pass, old
// and paired, against cuFFT's callback), and the copy engines beside the 2D FFTs of the
// forward phase (a rank's own piece copied by the engines or by a kernel), at one of 2 ranks' sizes.
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "bench/bench_util.hpp"
#include "core/array/array.hpp"
#include "core/kernels/for_each.hpp"
#include "core/numerics/spectral/batched_cfft.hpp"
#include "core/numerics/spectral/batched_rfft2.hpp"
#include "solvers/distributed_transform.hpp"

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
Array<T, 1> eig(const Context& ctx, index_t n, bool pairs) {
  std::vector<T> h(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) h[std::size_t(i)] = T(2 - 2 * std::cos(0.01 * double(pairs ? i / 2 : i))) + T(0.001);
  return Array<T, 1>::from_host(ctx, extents(n), h);
}
template <class T>
struct CopyKernel {
  View<const T, 3> a;
  View<T, 3> b;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { b(i, j, k) = a(i, j, k); }
};

template <class T>
void probe(const Context& ctx, const char* type) {
  const int rep = 20;
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  for (index_t ys : {index_t(512), index_t(256)}) {
    Array<T, 3> z = filled<T>(ctx, {{512, ys, 2 * 257}});
    Array<T, 1> l0 = eig<T>(ctx, 512, false), l1 = eig<T>(ctx, ys, false), l2 = eig<T>(ctx, 514, true);
    const double mb = double(z.size()) * sizeof(T) / 1e6;
    auto t_old = bench::time_it(ctx, rep, [&] {
      for_each(ctx, "probe::slab_divide", z.view().box(), solvers::SlabDivide3<T>{z.view(), l0.view(), l1.view(), l2.view(), T(1)});
    });
    auto t_new = bench::time_it(ctx, rep, [&] {
      const auto f = solvers::SlabDividePairs3<T>::over(z.view(), l0.view(), l1.view(), l2.view(), T(1));
      for_each(ctx, "probe::slab_divide_pairs", f.calls(), f);
    });
    Array<T, 3> z2(ctx, z.shape());
    auto t_copy = bench::time_it(ctx, rep, [&] {
      SIM_CUDA_CHECK(cudaMemcpyAsync(z2.data(), z.data(), std::size_t(z.size()) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    });
    fft::BatchedComplexFft<T> x(ctx, z.shape()), xd(ctx, z.shape());
    const bool cb = xd.divide_in_inverse(View<const T, 1>(l0.view()), View<const T, 1>(l1.view()), View<const T, 1>(l2.view()), T(1));
    auto t_inv = bench::time_it(ctx, rep, [&] { x.inverse(z.view()); });
    auto t_invd = bench::time_it(ctx, rep, [&] { xd.inverse(z.view()); });
    std::printf("%s x-slab (512, %lld, 514) %.0f MB: divide %.3f ms, paired %.3f ms, copy %.3f ms; inverse cfft %.3f, with callback "
                "division %.3f ms (%s)\n",
                type, (long long)ys, mb, t_old.median * 1e3, t_new.median * 1e3, t_copy.median * 1e3, t_inv.median * 1e3,
                t_invd.median * 1e3, cb ? "callback" : "no callback");
  }
  // the forward phase of one of 2 ranks: 256 planes of 512^2, 8 pieces of 2D FFTs into one
  // spectrum; beside them the own half (y < 256) of each piece copied to a slab-B buffer
  const index_t planes = 256, n = 8, each = planes / n;
  Array<T, 3> u = filled<T>(ctx, {{planes, 512, 512}});
  Array<T, 3> spec(ctx, fft::BatchedRealFft2<T>::spectrum_shape(u.shape()));
  Array<T, 3> slab_b(ctx, {{planes, 256, 514}});
  std::vector<fft::BatchedRealFft2<T>> pieces;
  for (index_t k = 0; k < n; ++k) pieces.emplace_back(ctx, Extents<3>{{each, 512, 512}}, spec.data() + k * each * spec.view().stride[0]);
  cudaStream_t side;
  SIM_CUDA_CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  std::vector<cudaEvent_t> ev(std::size_t(n + 1));
  for (auto& e : ev) SIM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  const std::size_t row = 256 * 514 * sizeof(T), pitch = 512 * 514 * sizeof(T);
  auto fft_piece = [&](index_t k) { pieces[std::size_t(k)].forward(u.view().sub(Box<3>{{k * each, 0, 0}, {(k + 1) * each, 512, 512}})); };
  auto ce_piece = [&](index_t k, cudaStream_t s) {
    SIM_CUDA_CHECK(cudaMemcpy2DAsync(slab_b.data() + k * each * 256 * 514, row, spec.data() + k * each * 512 * 514, pitch, row,
                                     std::size_t(each), cudaMemcpyDeviceToDevice, s));
  };
  auto sm_piece = [&](index_t k) {
    const Box<3> b{{k * each, 0, 0}, {(k + 1) * each, 256, 514}};
    for_each(ctx, "probe::own_copy", b, CopyKernel<T>{View<const T, 3>(spec.view()), slab_b.view()});
  };
  auto t_fft = bench::time_it(ctx, rep, [&] { for (index_t k = 0; k < n; ++k) fft_piece(k); });
  auto t_ce = bench::time_it(ctx, rep, [&] { for (index_t k = 0; k < n; ++k) ce_piece(k, stream); });
  auto t_sm = bench::time_it(ctx, rep, [&] { for (index_t k = 0; k < n; ++k) sm_piece(k); });
  auto t_fft_ce = bench::time_it(ctx, rep, [&] {
    for (index_t k = 0; k < n; ++k) {
      fft_piece(k);
      SIM_CUDA_CHECK(cudaEventRecord(ev[std::size_t(k)], stream));
      SIM_CUDA_CHECK(cudaStreamWaitEvent(side, ev[std::size_t(k)], 0));
      ce_piece(k, side);
    }
    SIM_CUDA_CHECK(cudaEventRecord(ev[std::size_t(n)], side));
    SIM_CUDA_CHECK(cudaStreamWaitEvent(stream, ev[std::size_t(n)], 0));
  });
  auto t_fft_sm = bench::time_it(ctx, rep, [&] {
    for (index_t k = 0; k < n; ++k) fft_piece(k), sm_piece(k);
  });
  const double own_mb = double(planes) * double(row) / 1e6;
  std::printf("%s forward phase, 8 pieces: FFTs %.3f ms; own half (%.0f MB) by the copy engine %.3f ms (%.0f GB/s), by a kernel "
              "%.3f ms; FFTs with the engine's copies beside %.3f ms, with the kernel's after each %.3f ms\n",
              type, t_fft.median * 1e3, own_mb, t_ce.median * 1e3, 2 * own_mb / 1e3 / t_ce.median, t_sm.median * 1e3,
              t_fft_ce.median * 1e3, t_fft_sm.median * 1e3);
  for (auto& e : ev) cudaEventDestroy(e);
  cudaStreamDestroy(side);
}

int main() {
  const Context ctx = Context::create(BackendRequest::cuda, {});
  std::printf("%s\n", ctx.device_name().c_str());
  probe<double>(ctx, "float64");
  probe<float>(ctx, "float32");
}
