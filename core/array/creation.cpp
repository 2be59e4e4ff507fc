// ones, arange, linspace, eye: one fill kernel each; compiled by nvcc in cuda builds.
#include "core/array/creation.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "core/kernels/for_each.hpp"

namespace sim {

namespace {
template <class T>
struct AffineFn {  // arange: v(i) = start + i * step in T
  View<T, 1> v;
  T start, step;
  SIM_INLINE void operator()(index_t i) const { v(i) = static_cast<T>(start + static_cast<T>(i) * step); }
};
template <class T>
struct LinspaceFn {  // computed in double (as NumPy) and converted; the endpoint exactly stop
  View<T, 1> v;
  double start, step;
  T last;
  index_t n;
  bool set_last;
  SIM_INLINE void operator()(index_t i) const {
    v(i) = (set_last && i == n - 1) ? last : static_cast<T>(start + double(i) * step);
  }
};
template <class T>
struct EyeFn {
  View<T, 2> v;
  index_t k;
  SIM_INLINE void operator()(index_t i, index_t j) const { v(i, j) = (j - i == k) ? T(1) : T(0); }
};
}  // namespace

template <class T, int Rank>
Array<T, Rank> ones(const Context& ctx, const Extents<Rank>& shape) {
  return Array<T, Rank>::full(ctx, shape, T(1));
}

template <class T>
Array<T, 1> arange(const Context& ctx, T start, T stop, T step) {
  if (step == T(0)) throw Error("arange: step must not be zero");
  const double span = (static_cast<double>(stop) - static_cast<double>(start)) / static_cast<double>(step);
  const index_t n = span > 0 ? static_cast<index_t>(std::ceil(span)) : 0;
  Array<T, 1> a(ctx, extents(n));
  for_each(ctx, "sim::arange", a.box(), AffineFn<T>{a.view(), start, step});
  return a;
}

template <class T>
Array<T, 1> linspace(const Context& ctx, T start, T stop, index_t num, bool endpoint) {
  if (num < 0) throw ShapeError("linspace: num must be non-negative, not " + std::to_string(num));
  Array<T, 1> a(ctx, extents(num));
  const index_t div = endpoint ? num - 1 : num;
  const double step = div > 0 ? (static_cast<double>(stop) - static_cast<double>(start)) / double(div) : 0.0;
  for_each(ctx, "sim::linspace", a.box(), LinspaceFn<T>{a.view(), static_cast<double>(start), step, stop, num, endpoint && num > 1});
  return a;
}

template <class T>
Array<T, 2> eye(const Context& ctx, index_t n, index_t m, index_t k) {
  if (m < 0) m = n;
  Array<T, 2> a(ctx, extents(n, m));
  for_each(ctx, "sim::eye", a.box(), EyeFn<T>{a.view(), k});
  return a;
}

#define SIM_INSTANTIATE_CREATION(T)                                                   \
  template Array<T, 1> ones<T, 1>(const Context&, const Extents<1>&);                 \
  template Array<T, 2> ones<T, 2>(const Context&, const Extents<2>&);                 \
  template Array<T, 3> ones<T, 3>(const Context&, const Extents<3>&);                 \
  template Array<T, 1> arange<T>(const Context&, T, T, T);                            \
  template Array<T, 1> linspace<T>(const Context&, T, T, index_t, bool);              \
  template Array<T, 2> eye<T>(const Context&, index_t, index_t, index_t);
SIM_INSTANTIATE_CREATION(float)
SIM_INSTANTIATE_CREATION(double)
SIM_INSTANTIATE_CREATION(std::int32_t)
SIM_INSTANTIATE_CREATION(std::int64_t)
SIM_INSTANTIATE_CREATION(std::uint32_t)
SIM_INSTANTIATE_CREATION(std::uint64_t)

}  // namespace sim
