// sort and argsort, of vectors and along an axis; compiled by nvcc in cuda builds (CUB radix sort in cuda/sort_scan.cuh); the
// cpu backend has its own parallel LSD radix sort over order-preserving unsigned keys.
#include "core/sort.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <cstdint>
#include <string>
#include <vector>

#include "core/axis_lines.hpp"
#include "core/dispatch.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/sort_scan.cuh"
#endif

namespace sim {

namespace {

template <class T>
struct KeyIndex {
  T key;
  std::int64_t idx;
};

// ---- cpu radix sort: keys mapped to unsigned integers in the same order, LSD by bytes
template <class T>
using ukey_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class T>
inline ukey_t<T> to_ukey(T v) {
  using U = ukey_t<T>;
  constexpr U sign = U(1) << (8 * sizeof(T) - 1);
  U u;
  std::memcpy(&u, &v, sizeof(T));
  if constexpr (std::is_floating_point<T>::value) return (u & sign) ? ~u : (u | sign);  // NaN (positive) last
  else if constexpr (std::is_signed<T>::value) return u ^ sign;
  else return u;
}
template <class T>
inline T from_ukey(ukey_t<T> u) {
  using U = ukey_t<T>;
  constexpr U sign = U(1) << (8 * sizeof(T) - 1);
  if constexpr (std::is_floating_point<T>::value) u = (u & sign) ? (u & ~sign) : ~u;
  else if constexpr (std::is_signed<T>::value) u ^= sign;
  T v;
  std::memcpy(&v, &u, sizeof(T));
  return v;
}

// Stable LSD radix sort of items by key(item) (an unsigned integer), one byte per pass: in
// each pass the threads count the digits of their slices, then scatter each slice after the
// slices before it. Passes where every key has the same byte (known from one first count
// of all bytes) are skipped.
template <class V, class Key>
void radix_sort_cpu(V* data, index_t n, Key key) {
  using U = std::decay_t<decltype(key(*data))>;
  constexpr int bytes = int(sizeof(U));
  const int threads = n < (index_t(1) << 16) ? 1 : omp_get_max_threads();
  std::vector<index_t> total(256 * bytes, 0);
  for (index_t i = 0; i < n; ++i) {
    const U k = key(data[i]);
    for (int b = 0; b < bytes; ++b) ++total[b * 256 + ((k >> (8 * b)) & 0xff)];
  }
  std::vector<V> tmp(static_cast<std::size_t>(n));
  std::vector<index_t> offset(static_cast<std::size_t>(threads) * 256);
  V* src = data;
  V* dst = tmp.data();
  for (int b = 0; b < bytes; ++b) {
    bool trivial = false;
    for (int d = 0; d < 256 && !trivial; ++d) trivial = total[b * 256 + d] == n;
    if (trivial) continue;
    const int shift = 8 * b;
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      const index_t lo = n * t / nt, hi = n * (t + 1) / nt;
      index_t* o = &offset[static_cast<std::size_t>(t) * 256];
      for (int d = 0; d < 256; ++d) o[d] = 0;
      for (index_t i = lo; i < hi; ++i) ++o[(key(src[i]) >> shift) & 0xff];
#pragma omp barrier
#pragma omp single
      {
        index_t run = 0;
        for (int d = 0; d < 256; ++d)
          for (int u = 0; u < nt; ++u) {
            const index_t c = offset[static_cast<std::size_t>(u) * 256 + d];
            offset[static_cast<std::size_t>(u) * 256 + d] = run;
            run += c;
          }
      }
      for (index_t i = lo; i < hi; ++i) dst[o[(key(src[i]) >> shift) & 0xff]++] = src[i];
    }
    std::swap(src, dst);
  }
  if (src != data) std::copy(src, src + n, data);
}

// x as a dense device/host buffer: x itself when contiguous, else a packed copy in keep.
template <class T>
const T* dense_input(const Context& ctx, View<const T, 1> x, Array<T, 1>& keep) {
  if (x.contiguous()) return x.ptr;
  keep = Array<T, 1>(ctx, x.shape);
  detail::copy<T, 1>(ctx, x, keep.view());
  return keep.data();
}

void check_lengths(const char* op, index_t a, index_t b) {
  if (a != b)
    throw ShapeError(std::string(op) + ": input of length " + std::to_string(a) + " and output of length " + std::to_string(b));
}

}  // namespace

template <class T>
void sort(const Context& ctx, View<const T, 1> x, View<T, 1> out) {
  const index_t n = x.shape.n[0];
  check_lengths("sort", n, out.shape.n[0]);
  if (n == 0) return;
  Array<T, 1> kx, ko;
  const T* in = dense_input(ctx, x, kx);
  T* o = out.ptr;
  if (!out.contiguous()) ko = Array<T, 1>(ctx, out.shape), o = ko.data();
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    gpu::radix_sort(ctx, in, o, n);
#else
    throw detail::not_compiled_for_cuda("sim::sort");
#endif
  } else {
    std::vector<ukey_t<T>> keys(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n > (1 << 16))
    for (index_t i = 0; i < n; ++i) keys[i] = to_ukey(in[i]);
    radix_sort_cpu(keys.data(), n, [](ukey_t<T> k) { return k; });
#pragma omp parallel for schedule(static) if (n > (1 << 16))
    for (index_t i = 0; i < n; ++i) o[i] = from_ukey<T>(keys[i]);
  }
  if (ko.size()) detail::copy<T, 1>(ctx, View<const T, 1>(ko.view()), out);
}

template <class T>
void argsort(const Context& ctx, View<const T, 1> x, View<std::int64_t, 1> out) {
  const index_t n = x.shape.n[0];
  check_lengths("argsort", n, out.shape.n[0]);
  if (n == 0) return;
  Array<T, 1> kx;
  Array<std::int64_t, 1> ko;
  const T* in = dense_input(ctx, x, kx);
  std::int64_t* o = out.ptr;
  if (!out.contiguous()) ko = Array<std::int64_t, 1>(ctx, out.shape), o = ko.data();
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    gpu::radix_argsort(ctx, in, o, n);
#else
    throw detail::not_compiled_for_cuda("sim::argsort");
#endif
  } else {
    using U = ukey_t<T>;
    std::vector<KeyIndex<U>> kv(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n > (1 << 16))
    for (index_t i = 0; i < n; ++i) kv[i] = KeyIndex<U>{to_ukey(in[i]), i};
    radix_sort_cpu(kv.data(), n, [](const KeyIndex<U>& a) { return a.key; });  // LSD radix: stable
#pragma omp parallel for schedule(static) if (n > (1 << 16))
    for (index_t i = 0; i < n; ++i) o[i] = kv[i].idx;
  }
  if (ko.size()) detail::copy<std::int64_t, 1>(ctx, View<const std::int64_t, 1>(ko.view()), out);
}

// ---- along an axis: every line (o, p) of x sorted on its own (Indices: argsort)
namespace {
template <bool Indices, class T, int Rank, class Out>
void sort_lines(const Context& ctx, View<const T, Rank> x, int axis, View<Out, Rank> out, const char* name) {
  if (x.shape != out.shape)
    throw ShapeError(std::string(name) + ": input of shape " + to_string(x.shape) + " and output of shape " + to_string(out.shape));
  const int a = detail::normal_axis(axis, Rank, name, to_string(x.shape));
  const detail::Lines lx = detail::lines_of(x, a), lo = detail::lines_of(out, a);
  if (x.size() == 0) return;
  if (lx.count() == 1) {  // one line: the vector sort (parallel over the line)
    View<const T, 1> xv{x.ptr, extents(lx.len), {lx.s_m}};
    View<Out, 1> ov{out.ptr, extents(lx.len), {lo.s_m}};
    if constexpr (Indices) argsort<T>(ctx, xv, ov);
    else sort<T>(ctx, xv, ov);
    return;
  }
  if (ctx.is_cuda()) {
#if SIM_TU_HAS_CUDA
    gpu::sort_lines<T, Out>(ctx, x.ptr, lx, detail::lines_dense(x, a), out.ptr, lo, detail::lines_dense(out, a), Indices);
#else
    throw detail::not_compiled_for_cuda(name);
#endif
    return;
  }
  using U = ukey_t<T>;
  const index_t lines = lx.count(), len = lx.len;
#pragma omp parallel if (x.size() > (index_t(1) << 14) && lines > 1)
  {
    std::vector<KeyIndex<U>> kv(static_cast<std::size_t>(len));
#pragma omp for schedule(dynamic, 16)
    for (index_t l = 0; l < lines; ++l) {
      const index_t o = l / lx.inner, p = l - o * lx.inner;
      for (index_t m = 0; m < len; ++m) kv[m] = KeyIndex<U>{to_ukey(x.ptr[lx.offset(o, m, p)]), m};
      // (key, position) pairs are all different, so any sort of them is the stable order
      std::sort(kv.begin(), kv.end(),
                [](const KeyIndex<U>& u, const KeyIndex<U>& v) { return u.key < v.key || (u.key == v.key && u.idx < v.idx); });
      for (index_t m = 0; m < len; ++m) {
        if constexpr (Indices) out.ptr[lo.offset(o, m, p)] = kv[m].idx;
        else out.ptr[lo.offset(o, m, p)] = from_ukey<T>(kv[m].key);
      }
    }
  }
}
}  // namespace

template <class T, int Rank>
void sort(const Context& ctx, View<const T, Rank> x, int axis, View<T, Rank> out) {
  sort_lines<false>(ctx, x, axis, out, "sort");
}
template <class T, int Rank>
void argsort(const Context& ctx, View<const T, Rank> x, int axis, View<std::int64_t, Rank> out) {
  sort_lines<true>(ctx, x, axis, out, "argsort");
}
template <class T, int Rank>
Array<T, Rank> sort(const Array<T, Rank>& x, int axis) {
  Array<T, Rank> out(x.context(), x.shape());
  sort<T, Rank>(x.context(), x.view(), axis, out.view());
  return out;
}
template <class T, int Rank>
Array<std::int64_t, Rank> argsort(const Array<T, Rank>& x, int axis) {
  Array<std::int64_t, Rank> out(x.context(), x.shape());
  argsort<T, Rank>(x.context(), x.view(), axis, out.view());
  return out;
}

template <class T>
Array<T, 1> sort(const Array<T, 1>& x) {
  Array<T, 1> out(x.context(), x.shape());
  sort<T>(x.context(), x.view(), out.view());
  return out;
}

template <class T>
Array<std::int64_t, 1> argsort(const Array<T, 1>& x) {
  Array<std::int64_t, 1> out(x.context(), x.shape());
  argsort<T>(x.context(), x.view(), out.view());
  return out;
}

#define SIM_INSTANTIATE_SORT_AXIS(T, R)                                                          \
  template void sort<T, R>(const Context&, View<const T, R>, int, View<T, R>);                    \
  template void argsort<T, R>(const Context&, View<const T, R>, int, View<std::int64_t, R>);      \
  template Array<T, R> sort<T, R>(const Array<T, R>&, int);                                       \
  template Array<std::int64_t, R> argsort<T, R>(const Array<T, R>&, int);
#define SIM_INSTANTIATE_SORT(T)                                                          \
  template void sort<T>(const Context&, View<const T, 1>, View<T, 1>);                   \
  template void argsort<T>(const Context&, View<const T, 1>, View<std::int64_t, 1>);     \
  template Array<T, 1> sort<T>(const Array<T, 1>&);                                      \
  template Array<std::int64_t, 1> argsort<T>(const Array<T, 1>&);                        \
  SIM_INSTANTIATE_SORT_AXIS(T, 1) SIM_INSTANTIATE_SORT_AXIS(T, 2) SIM_INSTANTIATE_SORT_AXIS(T, 3)
SIM_INSTANTIATE_SORT(float)
SIM_INSTANTIATE_SORT(double)
SIM_INSTANTIATE_SORT(std::int32_t)
SIM_INSTANTIATE_SORT(std::int64_t)
SIM_INSTANTIATE_SORT(std::uint32_t)
SIM_INSTANTIATE_SORT(std::uint64_t)

}  // namespace sim
