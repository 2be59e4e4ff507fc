#pragma once
// Dense linear algebra on float and double arrays: cuBLAS / cuSOLVER on the GPU, OpenBLAS /
// LAPACKE on the CPU (a plain blocked fallback when the build found no BLAS).
//   matmul(A, B)   np.matmul / A @ B / np.dot of matrices      gemm
//   matvec(A, x)   A @ x                                        gemv
//   solve(A, b)    np.linalg.solve (b a vector or a matrix)    LU with partial pivoting
//   inv(A)         np.linalg.inv                                LU, then solve against I
// Operands may be views: a transposed view (transposed(A)) is passed to BLAS as op(A) = A^T
// without a copy; other non-contiguous views are packed first. Products are queued without
// waiting; solve and inv wait (they read the factorisation's status) and throw
// LinAlgError for a singular matrix.
#include <string>
#include <type_traits>

#include "core/array/array.hpp"
#include "core/runtime/error.hpp"

namespace sim {

/// A singular matrix in solve() or inv() (NumPy's LinAlgError).
struct LinAlgError : Error {
  using Error::Error;
};

/// True when the cpu backend uses an optimised BLAS/LAPACK (OpenBLAS + LAPACKE, opened on first use).
bool cpu_blas_available();
/// What the cpu backend's linear algebra runs on, in words (the libraries, or plain loops).
std::string cpu_linalg_library();

namespace testing {
/// Test hook: while on, the cpu backend's matmul, matvec, solve and inv run their plain
/// loops instead of OpenBLAS (the same results up to rounding).
void use_plain_linalg_loops(bool on);
}  // namespace testing

/// C = alpha * A B + beta * C for views: A (m, k), B (k, n), C (m, n). Queued.
template <class T>
void matmul(const Context& ctx, View<const T, 2> A, View<const T, 2> B, View<T, 2> C, T alpha = T(1), T beta = T(0));
/// The matrix product A B as a new array (A @ B).
template <class T>
Array<T, 2> matmul(const Array<T, 2>& A, const Array<T, 2>& B);
/// The matrix product of an array and a view (or two views) as a new array on the array's
/// context: matmul(A, transposed(A)) is A @ A.T, computed as the symmetric product (SYRK).
template <class T, class U, std::enable_if_t<std::is_same<std::remove_const_t<U>, T>::value, int> = 0>
Array<T, 2> matmul(const Array<T, 2>& A, const View<U, 2>& B) {
  Array<T, 2> C(A.context(), extents(A.extent(0), B.shape.n[1]));
  matmul<T>(A.context(), A.view(), View<const T, 2>(B), C.view());
  return C;
}
template <class T, class U, std::enable_if_t<std::is_same<std::remove_const_t<U>, T>::value, int> = 0>
Array<T, 2> matmul(const View<U, 2>& A, const Array<T, 2>& B) {
  Array<T, 2> C(B.context(), extents(A.shape.n[0], B.extent(1)));
  matmul<T>(B.context(), View<const T, 2>(A), B.view(), C.view());
  return C;
}

/// y = alpha * A x + beta * y for views: A (m, n), x (n), y (m). Queued.
template <class T>
void matvec(const Context& ctx, View<const T, 2> A, View<const T, 1> x, View<T, 1> y, T alpha = T(1), T beta = T(0));
/// The matrix-vector product A x as a new array (A @ x).
template <class T>
Array<T, 1> matvec(const Array<T, 2>& A, const Array<T, 1>& x);

/// The solution x of A x = b (A square, b a vector); waits; LinAlgError when A is singular.
template <class T>
Array<T, 1> solve(const Array<T, 2>& A, const Array<T, 1>& b);
/// The solution X of A X = B for several right-hand sides (the columns of B).
template <class T>
Array<T, 2> solve(const Array<T, 2>& A, const Array<T, 2>& B);
/// The inverse of a square matrix; waits; LinAlgError when A is singular.
template <class T>
Array<T, 2> inv(const Array<T, 2>& A);

}  // namespace sim
