#pragma once
// BLAS level 1 on arrays: cuBLAS on the GPU, OpenMP loops on the CPU (deterministic).
#include "core/array/array.hpp"

namespace sim::blas {

/// y = a * x + y.
template <class T, int Rank>
void axpy(T a, const Array<T, Rank>& x, Array<T, Rank>& y);
/// x = a * x.
template <class T, int Rank>
void scal(T a, Array<T, Rank>& x);
/// Sum of x_i * y_i.
template <class T, int Rank>
T dot(const Array<T, Rank>& x, const Array<T, Rank>& y);
/// Euclidean norm of x.
template <class T, int Rank>
T nrm2(const Array<T, Rank>& x);

}  // namespace sim::blas
