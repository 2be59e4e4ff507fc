// Keyed random fields: cell g of the global grid takes lane g % per_block of Philox block
// first + g / per_block, the element a whole-grid fill (random.cpp) would give it.
#include "core/numerics/random_field.hpp"

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/kernels/for_each.hpp"
#include "core/numerics/random/philox.hpp"

namespace sim {

namespace {
// a * b + c rounded twice (never fused), as the whole-array fills compute it.
SIM_INLINE float keyed_mul_add(float a, float b, float c) {
#if SIM_DEVICE_PASS
  return __fadd_rn(__fmul_rn(a, b), c);
#else
  return a * b + c;  // this file is compiled with -ffp-contract=off
#endif
}
SIM_INLINE double keyed_mul_add(double a, double b, double c) {
#if SIM_DEVICE_PASS
  return __dadd_rn(__dmul_rn(a, b), c);
#else
  return a * b + c;
#endif
}

/// Values per Philox block: 4 float uniforms, 2 double uniforms, 2 normals (one Box-Muller pair).
template <class T, bool Normal>
constexpr int keyed_per_block = (!Normal && sizeof(T) == 4) ? 4 : 2;

template <class T, int Rank, bool Normal>
struct KeyedFillFn {
  View<T, Rank> out;
  index_t offset[Rank];  ///< global index of the box's first cell
  index_t global[Rank];  ///< the global grid's cells
  std::uint64_t seed, sub, first;
  T a, b;  // uniform: lo, hi - lo; normal: mean, stddev

  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    const index_t p[Rank] = {index_t(i)...};
    std::uint64_t g = 0;
    for (int d = 0; d < Rank; ++d) g = g * std::uint64_t(global[d]) + std::uint64_t(p[d] + offset[d]);
    constexpr int per_block = keyed_per_block<T, Normal>;
    const rng::Words4 w = rng::philox_block(seed, sub, first + g / per_block);
    const int lane = int(g % per_block);
    T v;
    if constexpr (Normal) {
      double z0, z1;
      rng::box_muller(rng::uniform_double(w.x, w.y), rng::uniform_double(w.z, w.w), z0, z1);
      v = T(lane ? z1 : z0);
    } else if constexpr (sizeof(T) == 4) {
      const std::uint32_t word = lane == 0 ? w.x : lane == 1 ? w.y : lane == 2 ? w.z : w.w;
      v = T(rng::uniform_float(word));
    } else {
      v = T(lane ? rng::uniform_double(w.z, w.w) : rng::uniform_double(w.x, w.y));
    }
    out(i...) = keyed_mul_add(b, v, a);
  }
};

template <bool Normal, class T, int Rank>
void fill_keyed(Field<T, Rank>& f, const Subdomain& sub, const Extents<Rank>& global, T a, T b, const char* name) {
  const Extents<Rank>& cells = f.grid().cells;
  for (int d = 0; d < Rank; ++d)
    if (sub.cells[d] != cells.n[d] || sub.offset[d] < 0 || sub.offset[d] + cells.n[d] > global.n[d])
      throw ShapeError(std::string(name) + ": a field of " + to_string(cells) + " cells at offset " +
                       std::to_string(sub.offset[d]) + " in dimension " + std::to_string(d) +
                       " is not the box of the subdomain inside a grid of " + to_string(global) +
                       " cells; pass this rank's Subdomain and the global grid's cells");
  constexpr int per_block = keyed_per_block<T, Normal>;
  const Context& ctx = f.context();
  const std::uint64_t blocks = (std::uint64_t(global.size()) + per_block - 1) / per_block;
  KeyedFillFn<T, Rank, Normal> fn{f.view(), {}, {}, ctx.rng_seed(), ctx.rng_stream(), ctx.reserve_rng_blocks(blocks),
                                  a, b};
  for (int d = 0; d < Rank; ++d) fn.offset[d] = sub.offset[d], fn.global[d] = global.n[d];
  for_each(ctx, name, f.interior(), fn);
}
}  // namespace

template <class T, int Rank>
void fill_uniform(Field<T, Rank>& f, const Subdomain& sub, const Extents<Rank>& global, T lo, T hi) {
  static_assert(std::is_floating_point<T>::value, "fill_uniform fills float or double fields");
  if (!(lo < hi)) throw Error("fill_uniform: lo must be less than hi");
  fill_keyed<false>(f, sub, global, lo, T(hi - lo), "sim::fill_uniform_keyed");
}

template <class T, int Rank>
void fill_normal(Field<T, Rank>& f, const Subdomain& sub, const Extents<Rank>& global, T mean, T stddev) {
  static_assert(std::is_floating_point<T>::value, "fill_normal fills float or double fields");
  if (!(stddev >= 0)) throw Error("fill_normal: stddev must be non-negative");
  fill_keyed<true>(f, sub, global, mean, stddev, "sim::fill_normal_keyed");
}

#define SIM_INSTANTIATE_RANDOM_FIELD(T, R)                                                   \
  template void fill_uniform<T, R>(Field<T, R>&, const Subdomain&, const Extents<R>&, T, T); \
  template void fill_normal<T, R>(Field<T, R>&, const Subdomain&, const Extents<R>&, T, T);
SIM_INSTANTIATE_RANDOM_FIELD(float, 1)
SIM_INSTANTIATE_RANDOM_FIELD(float, 2)
SIM_INSTANTIATE_RANDOM_FIELD(float, 3)
SIM_INSTANTIATE_RANDOM_FIELD(double, 1)
SIM_INSTANTIATE_RANDOM_FIELD(double, 2)
SIM_INSTANTIATE_RANDOM_FIELD(double, 3)

}  // namespace sim
