// sort and argsort, of vectors and along an axis; compiled by nvcc in cuda builds (CUB radix sort in cuda/sort_scan.cuh); the
// cpu backend has its own LSD radix sort over order-preserving unsigned keys, on the cpu pool.
#include "core/kernels/sort.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/kernels/axis_lines.hpp"
#include "core/cpu/for_each.hpp"
#include "core/detail/dispatch.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/sort_scan.cuh"
#endif

namespace sim {

namespace {

template <class T, class I = std::int64_t>
struct KeyIndex {
  T key;
  I idx;
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

// Digit width of the cpu radix sort: 11 bits for 32-bit keys (3 passes instead of 4, the
// counts still in L1; faster than 8-bit digits), 8 bits for 64-bit keys (11 was no faster).
template <class U>
constexpr int radix_bits = sizeof(U) == 4 ? 11 : 8;

// Stable LSD radix sort of n items by key(item) (an unsigned integer), one digit of
// radix_bits<key> per pass. The first pass reads item i as load(i), the last writes the item
// of rank j by store(j, item), and the passes between go through two item buffers (spare, when
// given, is one of them: n items that neither load nor store touch before the last pass).
// Passes where every key has the same digit (known from one first count of every digit) are
// skipped. A pass runs in chunks on the cpu pool: the chunks count their digits (the first
// pass takes them from the first count; one chunk takes the totals), the caller turns the
// counts into every chunk's write positions, digit by digit and chunk by chunk (the stable
// order), and the chunks scatter.
template <class Item, class Key, class Load, class Store>
void radix_sort_cpu(index_t n, const Key& key, const Load& load, const Store& store, Item* spare = nullptr) {
  using U = std::decay_t<decltype(key(load(index_t(0))))>;
  constexpr int bits = radix_bits<U>, digits = (8 * int(sizeof(U)) + bits - 1) / bits;
  constexpr index_t radix = index_t(1) << bits;
  constexpr U mask = U(radix - 1);
  const index_t chunks = n < (index_t(1) << 16) ? 1 : cpu::chunks_for(n, n);
  auto first = [&](index_t c) { return n * c / chunks; };
  // count[(c * digits + b) * radix + d]: keys of chunk c whose digit b is d
  std::vector<index_t> count(static_cast<std::size_t>(chunks * digits * radix), 0);
  cpu::parallel_chunks(chunks, [&](index_t c) {
    index_t* h = &count[static_cast<std::size_t>(c * digits * radix)];
    for (index_t i = first(c), e = first(c + 1); i < e; ++i) {
      const U k = key(load(i));
      for (int b = 0; b < digits; ++b) ++h[b * radix + ((k >> (bits * b)) & mask)];
    }
  });
  std::vector<index_t> total(digits * radix, 0);
  for (index_t c = 0; c < chunks; ++c)
    for (index_t e = 0; e < digits * radix; ++e) total[e] += count[static_cast<std::size_t>(c * digits * radix + e)];
  std::vector<int> passes;  // the digits that differ between keys
  for (int b = 0; b < digits; ++b)
    if (std::none_of(&total[b * radix], &total[b * radix] + radix, [&](index_t t) { return t == n; })) passes.push_back(b);
  const int np = int(passes.size());
  if (np == 0) {  // all keys equal: the input order
    cpu::for_ranges(n, chunks, [&](index_t i0, index_t i1) {
      for (index_t i = i0; i < i1; ++i) store(i, load(i));
    });
    return;
  }
  // pass p < np - 1 writes buffer p % 2; the last reads buffer (np - 2) % 2, so spare is the other
  std::unique_ptr<Item[]> own[2];
  Item* buf[2] = {nullptr, nullptr};
  for (int q = 0; q < 2 && q < np - 1; ++q) {
    if (q == (np - 1) % 2 && spare) buf[q] = spare;
    else own[q].reset(new Item[static_cast<std::size_t>(n)]), buf[q] = own[q].get();
  }
  std::vector<index_t> pos(static_cast<std::size_t>(chunks * radix));
  for (int p = 0; p < np; ++p) {
    const int b = passes[p], shift = bits * b;
    const Item* src = p == 0 ? nullptr : buf[(p - 1) % 2];
    Item* dst = p == np - 1 ? nullptr : buf[p % 2];
    auto digit = [&](const Item& v) { return std::size_t((key(v) >> shift) & mask); };
    auto from_buffer = [src](index_t i) -> const Item& { return src[i]; };
    auto to_buffer = [dst](index_t j, const Item& v) { dst[j] = v; };
    // digit counts of this pass's chunks, into pos
    if (p == 0)
      for (index_t c = 0; c < chunks; ++c)
        std::copy_n(&count[static_cast<std::size_t>((c * digits + b) * radix)], radix, &pos[static_cast<std::size_t>(c * radix)]);
    else if (chunks == 1)
      std::copy_n(&total[b * radix], radix, pos.data());
    else
      cpu::parallel_chunks(chunks, [&](index_t c) {
        index_t* h = &pos[static_cast<std::size_t>(c * radix)];
        std::fill_n(h, radix, index_t(0));
        for (index_t i = first(c), e = first(c + 1); i < e; ++i) ++h[digit(src[i])];
      });
    index_t run = 0;
    for (index_t d = 0; d < radix; ++d)
      for (index_t c = 0; c < chunks; ++c) {
        const index_t k = pos[static_cast<std::size_t>(c * radix + d)];
        pos[static_cast<std::size_t>(c * radix + d)] = run;
        run += k;
      }
    auto scatter = [&](const auto& get, const auto& put) {
      cpu::parallel_chunks(chunks, [&](index_t c) {
        index_t* q = &pos[static_cast<std::size_t>(c * radix)];
        for (index_t i = first(c), e = first(c + 1); i < e; ++i) {
          const Item v = get(i);
          put(q[digit(v)]++, v);
        }
      });
    };
    if (p == 0 && p == np - 1) scatter(load, store);
    else if (p == 0) scatter(load, to_buffer);
    else if (p == np - 1) scatter(from_buffer, store);
    else scatter(from_buffer, to_buffer);
  }
}

// The stable sorting permutation of in[0, n) into o, through (key, index) pairs of index type I.
template <class I, class T>
void argsort_cpu(const T* in, std::int64_t* o, index_t n) {
  using KI = KeyIndex<ukey_t<T>, I>;
  radix_sort_cpu<KI>(
      n, [](const KI& v) { return v.key; }, [in](index_t i) { return KI{to_ukey(in[i]), I(i)}; },
      [o](index_t j, const KI& v) { o[j] = std::int64_t(v.idx); });
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
    std::vector<T> copy;  // the input, when it shares memory with the output
    if (reinterpret_cast<std::uintptr_t>(in) < reinterpret_cast<std::uintptr_t>(o + n) &&
        reinterpret_cast<std::uintptr_t>(o) < reinterpret_cast<std::uintptr_t>(in + n))
      copy.assign(in, in + n), in = copy.data();
    radix_sort_cpu<T>(
        n, [](T v) { return to_ukey(v); }, [in](index_t i) { return in[i]; }, [o](index_t j, T v) { o[j] = v; }, o);
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
    // 32-bit keys with 32-bit positions: pairs of 8 bytes instead of 16
    if (sizeof(T) == 4 && n <= index_t(UINT32_MAX)) argsort_cpu<std::uint32_t>(in, o, n);
    else argsort_cpu<std::int64_t>(in, o, n);
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
  cpu::for_pieces(lines, x.size() > (index_t(1) << 14), [&](index_t l0, index_t l1) {
    std::vector<KeyIndex<U>> kv(static_cast<std::size_t>(len));
    for (index_t l = l0; l < l1; ++l) {
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
  });
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
