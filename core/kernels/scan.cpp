// cumsum, of vectors and along an axis; compiled by nvcc in cuda builds (cub::DeviceScan in cuda/sort_scan.cuh).
#include "core/kernels/scan.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/kernels/axis_lines.hpp"
#include "core/cpu/for_each.hpp"
#include "core/detail/dispatch.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/sort_scan.cuh"
#endif

namespace sim {

template <class T>
void cumsum(const Context& ctx, View<const T, 1> x, View<sum_t<T>, 1> out) {
  using S = sum_t<T>;
  const index_t n = x.shape.n[0];
  if (out.shape.n[0] != n)
    throw ShapeError("cumsum: input of length " + std::to_string(n) + " and output of length " + std::to_string(out.shape.n[0]));
  if (n == 0) return;
  Array<S, 1> ko;
  S* o = out.ptr;
  if (!out.contiguous()) ko = Array<S, 1>(ctx, out.shape), o = ko.data();
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    gpu::inclusive_sum<T, S>(ctx, x, o);
#else
    throw detail::not_compiled_for_cuda("sim::cumsum");
#endif
  } else {
    // two passes over equal chunks, one a thread (the same boundaries on any thread count of
    // the pool, as before it): chunk totals, then each chunk's running sum from its offset
    const index_t chunks = n < (index_t(1) << 16) ? 1 : cpu::pass_threads();
    auto first = [&](index_t c) { return n * c / chunks; };
    std::vector<S> total(static_cast<std::size_t>(chunks) + 1, S(0));
    if (chunks > 1)
      cpu::parallel_chunks(chunks, [&](index_t c) {
        S s = 0;
        for (index_t i = first(c), e = first(c + 1); i < e; ++i) s += static_cast<S>(x(i));
        total[c + 1] = s;
      });
    for (index_t c = 1; c <= chunks; ++c) total[c] += total[c - 1];
    cpu::parallel_chunks(chunks, [&](index_t c) {
      S s = total[c];
      for (index_t i = first(c), e = first(c + 1); i < e; ++i) o[i] = s += static_cast<S>(x(i));
    });
  }
  if (ko.size()) detail::copy<S, 1>(ctx, View<const S, 1>(ko.view()), out);
}

template <class T, int Rank>
void cumsum(const Context& ctx, View<const T, Rank> x, int axis, View<sum_t<T>, Rank> out) {
  using S = sum_t<T>;
  if (x.shape != out.shape)
    throw ShapeError("cumsum: input of shape " + to_string(x.shape) + " and output of shape " + to_string(out.shape));
  const int a = detail::normal_axis(axis, Rank, "cumsum", to_string(x.shape));
  const detail::Lines lx = detail::lines_of(x, a), lo = detail::lines_of(out, a);
  if (x.size() == 0) return;
  if (lx.count() == 1) {  // one line: the vector scan (parallel over the line)
    View<const T, 1> xv{x.ptr, extents(lx.len), {lx.s_m}};
    View<S, 1> ov{out.ptr, extents(lx.len), {lo.s_m}};
    return cumsum<T>(ctx, xv, ov);
  }
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    gpu::inclusive_sum_lines<T, S>(ctx, x.ptr, lx, out.ptr, lo, detail::lines_dense(out, a));
#else
    throw detail::not_compiled_for_cuda("sim::cumsum(axis)");
#endif
    return;
  }
  // for (o, p) lines: s += x(o, m, p), in blocks of lines along p so that the loop over p
  // runs along memory when the axis is not the last
  constexpr index_t block = 256;
  const index_t blocks = (lx.inner + block - 1) / block;
  cpu::for_pieces(lx.outer * blocks, x.size() > (index_t(1) << 15), [&](index_t t0, index_t t1) {
    for (index_t t = t0; t < t1; ++t) {
      const index_t o = t / blocks, p0 = (t - o * blocks) * block, pn = std::min(block, lx.inner - p0);
      S acc[block];
      for (index_t q = 0; q < pn; ++q) acc[q] = S(0);
      for (index_t m = 0; m < lx.len; ++m)
        for (index_t q = 0; q < pn; ++q) out.ptr[lo.offset(o, m, p0 + q)] = acc[q] += static_cast<S>(x.ptr[lx.offset(o, m, p0 + q)]);
    }
  });
}

template <class T, int Rank>
Array<sum_t<T>, Rank> cumsum(const Array<T, Rank>& x, int axis) {
  Array<sum_t<T>, Rank> out(x.context(), x.shape());
  cumsum<T, Rank>(x.context(), x.view(), axis, out.view());
  return out;
}

// ---- selection by a mask: the selected elements (or their flat indices), in order
namespace {
/// x as dense row-major memory: x itself when contiguous, else a packed copy in keep.
template <class T, int Rank>
const T* dense_of(const Context& ctx, View<const T, Rank> x, Array<T, Rank>& keep) {
  if (x.contiguous()) return x.ptr;
  keep = Array<T, Rank>(ctx, x.shape);
  detail::copy<T, Rank>(ctx, x, keep.view());
  return keep.data();
}
/// Selects value(t) for the t < n where flags[t]; Value is a pointer or gives t itself (indices).
template <class T, int Rank, class Value>
Array<T, 1> select_flagged(const Context& ctx, View<const bool, Rank> mask, const Value& value, const char* name) {
  Array<bool, Rank> keep;
  const bool* flags = dense_of(ctx, mask, keep);
  const index_t n = mask.size();
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    Array<T, 1> all(ctx, extents(n));
    const index_t k = gpu::select_flagged(ctx, value, flags, all.data(), n);
    Array<T, 1> out(ctx, extents(k));
    detail::copy<T, 1>(ctx, View<const T, 1>(dense_view<T, 1>(all.data(), extents(k))), out.view());
    return out;
#else
    throw detail::not_compiled_for_cuda(name);
#endif
  }
  (void)name;
  index_t k = 0;
  for (index_t t = 0; t < n; ++t) k += flags[t] ? 1 : 0;
  Array<T, 1> out(ctx, extents(k));
  T* o = out.data();
  for (index_t t = 0; t < n; ++t)
    if (flags[t]) *o++ = value[t];
  return out;
}
struct FlatIndex {
  SIM_HOST_DEVICE std::int64_t operator[](index_t t) const { return t; }
};
}  // namespace

template <class T, int Rank>
Array<T, 1> extract(const Context& ctx, View<const bool, Rank> mask, View<const T, Rank> a) {
  if (mask.shape != a.shape)
    throw ShapeError("extract: mask of shape " + to_string(mask.shape) + " for an array of shape " + to_string(a.shape));
  Array<T, Rank> keep;
  return select_flagged<T, Rank>(ctx, mask, dense_of(ctx, a, keep), "sim::extract");
}
template <class T, int Rank>
Array<T, 1> extract(const Array<bool, Rank>& mask, const Array<T, Rank>& a) {
  if (mask.context() != a.context()) throw BackendError("extract: the mask and the array live on different contexts");
  return extract<T, Rank>(a.context(), mask.view(), a.view());
}
template <int Rank>
Array<std::int64_t, 1> flatnonzero(const Context& ctx, View<const bool, Rank> mask) {
  return select_flagged<std::int64_t, Rank>(ctx, mask, FlatIndex{}, "sim::flatnonzero");
}
template <int Rank>
Array<std::int64_t, 1> flatnonzero(const Array<bool, Rank>& mask) {
  return flatnonzero<Rank>(mask.context(), mask.view());
}

template <class T>
Array<sum_t<T>, 1> cumsum(const Array<T, 1>& x) {
  Array<sum_t<T>, 1> out(x.context(), x.shape());
  cumsum<T>(x.context(), x.view(), out.view());
  return out;
}

#define SIM_INSTANTIATE_SCAN_AXIS(T, R)                                                     \
  template void cumsum<T, R>(const Context&, View<const T, R>, int, View<sum_t<T>, R>);      \
  template Array<sum_t<T>, R> cumsum<T, R>(const Array<T, R>&, int);
#define SIM_INSTANTIATE_SELECT(T, R)                                                            \
  template Array<T, 1> extract<T, R>(const Array<bool, R>&, const Array<T, R>&);                \
  template Array<T, 1> extract<T, R>(const Context&, View<const bool, R>, View<const T, R>);
#define SIM_INSTANTIATE_SCAN(T)                                                         \
  template void cumsum<T>(const Context&, View<const T, 1>, View<sum_t<T>, 1>);         \
  template Array<sum_t<T>, 1> cumsum<T>(const Array<T, 1>&);                            \
  SIM_INSTANTIATE_SCAN_AXIS(T, 1) SIM_INSTANTIATE_SCAN_AXIS(T, 2) SIM_INSTANTIATE_SCAN_AXIS(T, 3)       \
  SIM_INSTANTIATE_SELECT(T, 1) SIM_INSTANTIATE_SELECT(T, 2) SIM_INSTANTIATE_SELECT(T, 3)
SIM_INSTANTIATE_SCAN(bool)
SIM_INSTANTIATE_SCAN(float)
SIM_INSTANTIATE_SCAN(double)
SIM_INSTANTIATE_SCAN(std::int32_t)
SIM_INSTANTIATE_SCAN(std::int64_t)
SIM_INSTANTIATE_SCAN(std::uint32_t)
SIM_INSTANTIATE_SCAN(std::uint64_t)

template Array<std::int64_t, 1> flatnonzero<1>(const Array<bool, 1>&);
template Array<std::int64_t, 1> flatnonzero<2>(const Array<bool, 2>&);
template Array<std::int64_t, 1> flatnonzero<3>(const Array<bool, 3>&);
template Array<std::int64_t, 1> flatnonzero<1>(const Context&, View<const bool, 1>);
template Array<std::int64_t, 1> flatnonzero<2>(const Context&, View<const bool, 2>);
template Array<std::int64_t, 1> flatnonzero<3>(const Context&, View<const bool, 3>);

}  // namespace sim
