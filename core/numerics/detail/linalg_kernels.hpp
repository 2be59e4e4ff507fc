#pragma once
// The hand-written GPU kernels behind core/numerics/linalg.cpp (which the host compiler builds):
// defined in core/numerics/detail/linalg_kernels.cpp, a kernel source that nvcc compiles in cuda builds.
#include <cstdint>

#include "core/runtime/context.hpp"
#include "core/runtime/types.hpp"
#include "core/array/view.hpp"

namespace sim::detail {

/// y = alpha * A x + beta * y on the GPU for a row-major A (m x n, rows lda apart); beta == 0
/// does not read y. One warp per row (core/cuda/matvec.cuh).
template <class T>
void matvec_rows_gpu(const Context& ctx, index_t m, index_t n, T alpha, const T* a, index_t lda, const T* x, index_t incx,
                     T beta, T* y, index_t incy);

/// dst row r = src row perm[r] on the GPU, for row-major rows x cols matrices (perm on the device).
template <class T>
void gather_rows_gpu(const Context& ctx, index_t rows, index_t cols, const std::int64_t* perm, const T* src, T* dst);

/// Copies the upper triangle of the square matrix c onto its lower one (c(i, j) = c(j, i) for
/// j < i): the other half of a symmetric product that SYRK computes. Queued, on either backend.
template <class T>
void mirror_upper_triangle(const Context& ctx, View<T, 2> c);

}  // namespace sim::detail
