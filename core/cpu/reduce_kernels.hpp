#pragma once
// The cpu backend's hand-written loops for the reductions NumPy users time most: argmin /
// argmax of a contiguous array, and sums along either axis of a matrix whose rows are
// contiguous, for float and double. They are compiled once by the host compiler
// (core/cpu/reduce_kernels.cpp) in three versions, for AVX-512, AVX2 and baseline x86-64, one
// picked at run time; the header templates that nvcc also compiles call them, so no GPU
// source sees a target attribute. Every version gives the same bits (no FMA, the same
// operations in the same order per output, whatever the vector width and the thread count).
#include "core/runtime/types.hpp"

namespace sim::cpu {

/// Flat index of the first largest (max) or smallest value of x[0, n), a NaN counting as the
/// extreme (the first NaN wins, as NumPy's argmax / argmin). n >= 1.
index_t first_extreme(const float* x, index_t n, bool max);
index_t first_extreme(const double* x, index_t n, bool max);

/// out[j] = sum over i < rows of a[i * ld + j] for j < cols: each column added in row order in
/// double (the same bits as a plain loop), then stored as the element type.
void column_sums(const float* a, index_t rows, index_t cols, index_t ld, float* out);
void column_sums(const double* a, index_t rows, index_t cols, index_t ld, double* out);

/// out[i] = sum over j < cols of a[i * ld + j] for i < rows: element j of a row into lane j % 8
/// in double, the lanes combined as ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)) (the order of
/// the other axis reductions), then stored as the element type.
void row_sums(const float* a, index_t rows, index_t cols, index_t ld, float* out);
void row_sums(const double* a, index_t rows, index_t cols, index_t ld, double* out);

/// The instruction set these loops use: the widest the processor has, unless a test or a
/// benchmark asks for a narrower one (force_vector_isa; a wider one than the processor has is
/// clamped). Results do not depend on it.
enum class VectorIsa { baseline = 0, avx2 = 1, avx512 = 2 };
VectorIsa vector_isa();
VectorIsa force_vector_isa(VectorIsa isa);  // returns the one now in use

}  // namespace sim::cpu
