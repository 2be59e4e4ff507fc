#pragma once
// Arrays made from a rule, as NumPy's constructors (zeros and full are Array::zeros /
// Array::full). Each allocates on ctx and fills in one kernel, queued without waiting.
#include "core/array/array.hpp"

namespace sim {

/// An array of ones (np.ones).
template <class T, int Rank>
Array<T, Rank> ones(const Context& ctx, const Extents<Rank>& shape);
/// start, start + step, ... up to but excluding stop (np.arange); step must not be 0.
template <class T>
Array<T, 1> arange(const Context& ctx, T start, T stop, T step = T(1));
/// 0, 1, ..., stop - 1 (np.arange(stop)).
template <class T>
Array<T, 1> arange(const Context& ctx, T stop) { return arange<T>(ctx, T(0), stop, T(1)); }
/// num evenly spaced values from start to stop, stop included unless endpoint is false (np.linspace).
template <class T>
Array<T, 1> linspace(const Context& ctx, T start, T stop, index_t num, bool endpoint = true);
/// An n x m matrix with ones on diagonal k and zeros elsewhere (np.eye; m = -1 means n).
template <class T>
Array<T, 2> eye(const Context& ctx, index_t n, index_t m = -1, index_t k = 0);

}  // namespace sim
