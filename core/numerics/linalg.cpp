// Dense linear algebra. cuda contexts: cuBLAS (64-bit sizes) and cuSOLVER (getrf/getrs);
// cpu contexts: CBLAS + LAPACKE (OpenBLAS, opened on first use: cpu/blas_library.hpp) when
// CMake found them (SIMKIT_HAS_CBLAS) and they open, else a plain fallback on the cpu pool.
// Row-major arrays are column-major transposes, so each product is computed as its transpose
// (C^T = B^T A^T) and no data is moved for it.
#include "core/numerics/linalg.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/cpu/for_each.hpp"
#include "core/cpu/pool.hpp"
#include "core/numerics/detail/linalg_kernels.hpp"
#include "core/array/transpose.hpp"
#if SIMKIT_HAS_CUDA
#include <cublas_v2.h>

#include "core/cuda/libraries.hpp"
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include "core/cuda/check.hpp"
#endif
#include "core/cpu/blas_library.hpp"

namespace sim {

bool cpu_blas_available() { return cpu_libs::blas() != nullptr; }
std::string cpu_linalg_library() { return cpu_libs::blas_description(); }
namespace testing {
void use_plain_linalg_loops(bool on) { cpu_libs::use_plain_loops(on); }
}  // namespace testing

namespace {

// One operand as BLAS sees it: rows x cols, stored row-major (trans = false, element (i, j)
// at p[i * ld + j]) or column-major (trans = true, at p[i + j * ld]).
template <class T>
struct Mat {
  const T* p = nullptr;
  index_t rows = 0, cols = 0, ld = 1;
  bool trans = false;
};

// The layout of v if BLAS can read it in place.
template <class T>
bool blas_layout(View<const T, 2> v, Mat<T>& m) {
  const index_t n0 = v.shape.n[0], n1 = v.shape.n[1];
  m.p = v.ptr, m.rows = n0, m.cols = n1;
  if (n0 == 0 || n1 == 0) {  // nothing is read: any valid leading dimension
    m.trans = false, m.ld = std::max<index_t>(n1, 1);
    return true;
  }
  if ((n1 <= 1 || v.stride[1] == 1) && (n0 <= 1 || v.stride[0] >= std::max<index_t>(n1, 1))) {
    m.trans = false, m.ld = n0 <= 1 ? std::max<index_t>(n1, 1) : v.stride[0];
    return true;
  }
  if ((n0 <= 1 || v.stride[0] == 1) && (n1 <= 1 || v.stride[1] >= std::max<index_t>(n0, 1))) {
    m.trans = true, m.ld = n1 <= 1 ? std::max<index_t>(n0, 1) : v.stride[1];
    return true;
  }
  return false;
}

// v itself when BLAS can read it, else a packed copy held in `keep`.
template <class T>
Mat<T> operand(const Context& ctx, View<const T, 2> v, Array<T, 2>& keep) {
  Mat<T> m;
  if (blas_layout(v, m)) return m;
  keep = Array<T, 2>(ctx, v.shape);
  detail::copy<T, 2>(ctx, v, keep.view());
  blas_layout(View<const T, 2>(keep.view()), m);
  return m;
}

template <class T>
void same_context(const char* op, const Context& a, const Context& b) {
  if (a != b) throw BackendError(std::string(op) + ": arrays live on different contexts");
}

void check_int(const char* op, index_t n) {
  if (n > std::numeric_limits<int>::max())
    throw ShapeError(std::string(op) + ": extent " + std::to_string(n) + " exceeds the 32-bit sizes of the CPU BLAS/LAPACK");
}

#if SIMKIT_HAS_CUDA
void cublas_check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw CudaError(std::string("cuBLAS ") + call + " failed: " + cuda_libs::cublas().cublasGetStatusName(s) + " (" + cuda_libs::cublas().cublasGetStatusString(s) + ")");
}
void cusolver_check(cusolverStatus_t s, const char* call) {
  if (s != CUSOLVER_STATUS_SUCCESS) throw CudaError(std::string("cuSOLVER ") + call + " failed with status " + std::to_string(int(s)));
}
cublasHandle_t blas(const Context& c) { return static_cast<cublasHandle_t>(c.blas_handle()); }
cublasOperation_t op_of(bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; }

// One cuSOLVER handle per device, created on first use (creating one costs milliseconds);
// each call binds it to the context's stream.
// The default options of the 64-bit cuSOLVER calls (Xgetrf), made once.
cusolverDnParams_t solver_params() {
  static cusolverDnParams_t params = [] {
    cusolverDnParams_t p;
    cusolver_check(cuda_libs::cusolver().cusolverDnCreateParams(&p), "cusolverDnCreateParams");
    return p;
  }();
  return params;
}

cusolverDnHandle_t solver(const Context& ctx) {
  static std::mutex mutex;
  static std::map<int, cusolverDnHandle_t> handles;
  int dev = 0;
  SIM_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mutex);
  auto it = handles.find(dev);
  if (it == handles.end()) {
    cusolverDnHandle_t h;
    cusolver_check(cuda_libs::cusolver().cusolverDnCreate(&h), "cusolverDnCreate");
    it = handles.emplace(dev, h).first;
  }
  cusolver_check(cuda_libs::cusolver().cusolverDnSetStream(it->second, static_cast<cudaStream_t>(ctx.stream())), "cusolverDnSetStream");
  return it->second;
}

void gemm_gpu(const Context& c, cublasOperation_t ta, cublasOperation_t tb, index_t m, index_t n, index_t k, float alpha,
              const float* a, index_t lda, const float* b, index_t ldb, float beta, float* cp, index_t ldc) {
  cublas_check(cuda_libs::cublas().cublasSgemm_64(blas(c), ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, cp, ldc), "Sgemm");
}
void gemm_gpu(const Context& c, cublasOperation_t ta, cublasOperation_t tb, index_t m, index_t n, index_t k, double alpha,
              const double* a, index_t lda, const double* b, index_t ldb, double beta, double* cp, index_t ldc) {
  cublas_check(cuda_libs::cublas().cublasDgemm_64(blas(c), ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, cp, ldc), "Dgemm");
}
// The upper triangle (row-major) of C = op(A) op(A)^T for a row-major C (n x n): cuBLAS's
// column-major lower triangle. op(A) is the row-major operand, ta says it is transposed.
void syrk_gpu(const Context& c, bool ta, index_t n, index_t k, float alpha, const float* a, index_t lda, float* cp, index_t ldc) {
  const float beta = 0;
  cublas_check(cuda_libs::cublas().cublasSsyrk_64(blas(c), CUBLAS_FILL_MODE_LOWER, ta ? CUBLAS_OP_N : CUBLAS_OP_T, n, k, &alpha, a,
                                                  lda, &beta, cp, ldc),
               "Ssyrk");
}
void syrk_gpu(const Context& c, bool ta, index_t n, index_t k, double alpha, const double* a, index_t lda, double* cp, index_t ldc) {
  const double beta = 0;
  cublas_check(cuda_libs::cublas().cublasDsyrk_64(blas(c), CUBLAS_FILL_MODE_LOWER, ta ? CUBLAS_OP_N : CUBLAS_OP_T, n, k, &alpha, a,
                                                  lda, &beta, cp, ldc),
               "Dsyrk");
}
void gemv_gpu(const Context& c, cublasOperation_t t, index_t m, index_t n, float alpha, const float* a, index_t lda,
              const float* x, index_t incx, float beta, float* y, index_t incy) {
  cublas_check(cuda_libs::cublas().cublasSgemv_64(blas(c), t, m, n, &alpha, a, lda, x, incx, &beta, y, incy), "Sgemv");
}
void gemv_gpu(const Context& c, cublasOperation_t t, index_t m, index_t n, double alpha, const double* a, index_t lda,
              const double* x, index_t incx, double beta, double* y, index_t incy) {
  cublas_check(cuda_libs::cublas().cublasDgemv_64(blas(c), t, m, n, &alpha, a, lda, x, incx, &beta, y, incy), "Dgemv");
}
void scal_gpu(const Context& c, index_t n, float a, float* x, index_t inc) {
  cublas_check(cuda_libs::cublas().cublasSscal_64(blas(c), n, &a, x, inc), "Sscal");
}
void scal_gpu(const Context& c, index_t n, double a, double* x, index_t inc) {
  cublas_check(cuda_libs::cublas().cublasDscal_64(blas(c), n, &a, x, inc), "Dscal");
}
cudaDataType cuda_type(float) { return CUDA_R_32F; }
cudaDataType cuda_type(double) { return CUDA_R_64F; }
// B = B op(T)^-1 for the column-major triangle T in a (n x n), B column-major k x n.
void trsm_right_gpu(const Context& c, bool upper, bool unit, index_t k, index_t n, const float* a, float* b) {
  const float one = 1;
  cublas_check(cuda_libs::cublas().cublasStrsm_64(blas(c), CUBLAS_SIDE_RIGHT, upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                              unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, k, n, &one, a, n, b, k),
               "Strsm");
}
void trsm_right_gpu(const Context& c, bool upper, bool unit, index_t k, index_t n, const double* a, double* b) {
  const double one = 1;
  cublas_check(cuda_libs::cublas().cublasDtrsm_64(blas(c), CUBLAS_SIDE_RIGHT, upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                              unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, k, n, &one, a, n, b, k),
               "Dtrsm");
}
#endif

#if SIMKIT_HAS_CBLAS
CBLAS_TRANSPOSE cop(bool t) { return t ? CblasTrans : CblasNoTrans; }
using cpu_libs::Blas;
void gemm_cpu(const Blas& L, bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb, float beta,
              float* c, int ldc) {
  L.cblas_sgemm(CblasRowMajor, cop(ta), cop(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void gemm_cpu(const Blas& L, bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb,
              double beta, double* c, int ldc) {
  L.cblas_dgemm(CblasRowMajor, cop(ta), cop(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
// The upper triangle of the row-major C (n x n) = alpha op(A) op(A)^T.
void syrk_cpu(const Blas& L, bool ta, int n, int k, float alpha, const float* a, int lda, float* c, int ldc) {
  L.cblas_ssyrk(CblasRowMajor, CblasUpper, cop(ta), n, k, alpha, a, lda, 0.0f, c, ldc);
}
void syrk_cpu(const Blas& L, bool ta, int n, int k, double alpha, const double* a, int lda, double* c, int ldc) {
  L.cblas_dsyrk(CblasRowMajor, CblasUpper, cop(ta), n, k, alpha, a, lda, 0.0, c, ldc);
}
void gemv_cpu(const Blas& L, bool t, int m, int n, float alpha, const float* a, int lda, const float* x, int incx, float beta, float* y,
              int incy) {
  L.cblas_sgemv(CblasRowMajor, cop(t), m, n, alpha, a, lda, x, incx, beta, y, incy);
}
void gemv_cpu(const Blas& L, bool t, int m, int n, double alpha, const double* a, int lda, const double* x, int incx, double beta,
              double* y, int incy) {
  L.cblas_dgemv(CblasRowMajor, cop(t), m, n, alpha, a, lda, x, incx, beta, y, incy);
}
// LU of the column-major n x n matrix a (for a row-major A: of A^T), LAPACK's info.
int getrf_cpu(const Blas& L, int n, float* a, int* ipiv) { return L.LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, ipiv); }
int getrf_cpu(const Blas& L, int n, double* a, int* ipiv) { return L.LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, ipiv); }
// B = op(T)^-1 B for the row-major triangle T held in a (lower / upper, unit diagonal or not),
// B row-major n x k.
void trsm_cpu(const Blas& L, bool lower, bool unit, int n, int k, const float* a, float* b) {
  L.cblas_strsm(CblasRowMajor, CblasLeft, lower ? CblasLower : CblasUpper, CblasNoTrans, unit ? CblasUnit : CblasNonUnit,
              n, k, 1.0f, a, n, b, k);
}
void trsm_cpu(const Blas& L, bool lower, bool unit, int n, int k, const double* a, double* b) {
  L.cblas_dtrsm(CblasRowMajor, CblasLeft, lower ? CblasLower : CblasUpper, CblasNoTrans, unit ? CblasUnit : CblasNonUnit,
              n, k, 1.0, a, n, b, k);
}
// Solves A X = B in place of the row-major n x k B, for the row-major n x n A in a (which
// it overwrites), with no transposed copies: a is A^T to column-major LAPACK, whose LU
// A^T = P L U gives A = U^T L^T P^T; read row-major, a's lower triangle is U^T and its
// strict upper one L^T. So X = P L^-T U^-T B: two triangular solves, then the row swaps
// of P, last pivot first. Returns LAPACK's info.
template <class T>
int lu_solve_cpu(const Blas& L, int n, int k, T* a, T* b) {
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  const int info = getrf_cpu(L, n, a, ipiv.data());
  if (info != 0) return info;
  trsm_cpu(L, true, false, n, k, a, b);  // U^T
  trsm_cpu(L, false, true, n, k, a, b);  // L^T
  for (int i = n - 1; i >= 0; --i)
    if (ipiv[i] - 1 != i) std::swap_ranges(b + std::size_t(i) * k, b + std::size_t(i + 1) * k, b + std::size_t(ipiv[i] - 1) * k);
  return 0;
}
int inv_cpu(const Blas& L, int n, float* a, int* ipiv) {
  int info = L.LAPACKE_sgetrf(LAPACK_ROW_MAJOR, n, n, a, n, ipiv);
  return info != 0 ? info : L.LAPACKE_sgetri(LAPACK_ROW_MAJOR, n, a, n, ipiv);
}
int inv_cpu(const Blas& L, int n, double* a, int* ipiv) {
  int info = L.LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, a, n, ipiv);
  return info != 0 ? info : L.LAPACKE_dgetri(LAPACK_ROW_MAJOR, n, a, n, ipiv);
}
#endif
// ---- the fallback without a BLAS: straightforward, cache-friendly loops
template <class T>
T at(const Mat<T>& a, index_t i, index_t j) { return a.trans ? a.p[i + j * a.ld] : a.p[i * a.ld + j]; }
template <class T>
void gemm_fallback(const Mat<T>& a, const Mat<T>& b, T alpha, T beta, View<T, 2> c) {
  const index_t m = a.rows, k = a.cols, n = b.cols;
  cpu::for_pieces(m, m * n * std::max<index_t>(k, 1) > cpu::parallel_threshold, [&](index_t i0, index_t i1) {
    std::vector<T> row(static_cast<std::size_t>(n));
    for (index_t i = i0; i < i1; ++i) {
      std::fill(row.begin(), row.end(), T(0));
      for (index_t p = 0; p < k; ++p) {
        const T aip = at(a, i, p);
        for (index_t j = 0; j < n; ++j) row[j] += aip * at(b, p, j);
      }
      for (index_t j = 0; j < n; ++j) c(i, j) = alpha * row[j] + (beta == T(0) ? T(0) : beta * c(i, j));
    }
  });
}
// LU with partial pivoting of a dense row-major n x n matrix; returns 0 or the 1-based
// index of the first zero pivot (LAPACK's info).
template <class T>
int lu_fallback(index_t n, T* a, std::vector<index_t>& piv) {
  piv.resize(static_cast<std::size_t>(n));
  int info = 0;
  for (index_t c = 0; c < n; ++c) {
    index_t p = c;
    for (index_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r * n + c]) > std::fabs(a[p * n + c])) p = r;
    piv[c] = p;
    if (p != c)
      for (index_t j = 0; j < n; ++j) std::swap(a[c * n + j], a[p * n + j]);
    if (a[c * n + c] == T(0)) {
      if (!info) info = int(c + 1);
      continue;
    }
    cpu::for_pieces(n - c - 1, (n - c) * (n - c) > (1 << 14), [&](index_t r0, index_t r1) {
      for (index_t r = c + 1 + r0; r < c + 1 + r1; ++r) {
        const T f = a[r * n + c] / a[c * n + c];
        a[r * n + c] = f;
        for (index_t j = c + 1; j < n; ++j) a[r * n + j] -= f * a[c * n + j];
      }
    });
  }
  return info;
}
// Solves with the factors for nrhs right-hand sides stored row-major in b (n x nrhs).
template <class T>
void lu_solve_fallback(index_t n, const T* a, const std::vector<index_t>& piv, T* b, index_t nrhs) {
  for (index_t c = 0; c < n; ++c)
    if (piv[c] != c)
      for (index_t j = 0; j < nrhs; ++j) std::swap(b[c * nrhs + j], b[piv[c] * nrhs + j]);
  cpu::for_pieces(nrhs, nrhs > 1, [&](index_t j0, index_t j1) {
    for (index_t j = j0; j < j1; ++j) {
      for (index_t r = 0; r < n; ++r) {
        T s = b[r * nrhs + j];
        for (index_t q = 0; q < r; ++q) s -= a[r * n + q] * b[q * nrhs + j];
        b[r * nrhs + j] = s;
      }
      for (index_t r = n - 1; r >= 0; --r) {
        T s = b[r * nrhs + j];
        for (index_t q = r + 1; q < n; ++q) s -= a[r * n + q] * b[q * nrhs + j];
        b[r * nrhs + j] = s / a[r * n + r];
      }
    }
  });
}

// How far ahead (bytes) each row's loads are prefetched: the hardware's stream prefetchers
// stop at 4 KiB pages, which matters once the matrix no longer fits the last-level cache.
constexpr int matvec_prefetch_bytes = 8192;
// Rows [i0, i1) of y = alpha A x + beta y for a row-major A: each row's dot product in 32
// lanes (independent chains for 2 to 8 vector registers, whatever the vector width), the
// lanes combined in a fixed tree, so every build and machine gives the same bits.
template <class T>
inline void matvec_rows_body(index_t i0, index_t i1, index_t n, T alpha, const T* a, index_t lda, const T* x,
                             index_t incx, T beta, T* y, index_t incy) {
  constexpr int L = 32;
  for (index_t i = i0; i < i1; ++i) {
    const T* row = a + i * lda;
    T lane[L] = {};
    index_t j = 0;
    if (incx == 1)
      for (; j + L <= n; j += L) {
        for (int c = 0; c < L * int(sizeof(T)); c += 64)  // a cache line at a time; a prefetch never faults
          __builtin_prefetch(reinterpret_cast<const char*>(row + j) + matvec_prefetch_bytes + c);
        for (int l = 0; l < L; ++l) lane[l] += row[j + l] * x[j + l];
      }
    for (; j < n; ++j) lane[j % L] += row[j] * x[j * incx];
    for (int w = L / 2; w > 0; w /= 2)
      for (int l = 0; l < w; ++l) lane[l] += lane[l + w];
    y[i * incy] = beta == T(0) ? alpha * lane[0] : alpha * lane[0] + beta * y[i * incy];
  }
}
// The same, compiled for AVX-512 and AVX2 too and picked at load time (NumPy's OpenBLAS uses
// the wide vectors as well, and AVX-512 is faster than AVX2 there); no FMA (-ffp-contract=off),
// so every version rounds alike.
__attribute__((target_clones("avx512f", "avx2", "default"))) void matvec_rows_range(index_t i0, index_t i1, index_t n, float alpha,
                                                                         const float* a, index_t lda, const float* x,
                                                                         index_t incx, float beta, float* y, index_t incy) {
  matvec_rows_body(i0, i1, n, alpha, a, lda, x, incx, beta, y, incy);
}
__attribute__((target_clones("avx512f", "avx2", "default"))) void matvec_rows_range(index_t i0, index_t i1, index_t n, double alpha,
                                                                         const double* a, index_t lda, const double* x,
                                                                         index_t incx, double beta, double* y,
                                                                         index_t incy) {
  matvec_rows_body(i0, i1, n, alpha, a, lda, x, incx, beta, y, incy);
}

// y = alpha A x + beta y for a row-major A on the cpu without OpenBLAS: the cpu pool over
// blocks of rows. (With it, OpenBLAS's gemv is faster: since its threads stop spinning soon
// after a call, cpu/blas_library.hpp, they no longer take the cores from the pool.)
template <class T>
void matvec_rows_cpu(index_t m, index_t n, T alpha, const T* a, index_t lda, const T* x, index_t incx, T beta, T* y,
                     index_t incy) {
  constexpr index_t rows = 16;  // rows a task
  const index_t tasks = (m + rows - 1) / rows;
  auto run = [&](index_t t) { matvec_rows_range(t * rows, std::min(m, (t + 1) * rows), n, alpha, a, lda, x, incx, beta, y, incy); };
  if (m * n <= (1 << 16)) {
    for (index_t t = 0; t < tasks; ++t) run(t);
    return;
  }
  cpu::parallel_chunks(tasks, run);  // the pool's threads (core/cpu/pool.hpp): no wait for a descheduled one
}

template <class T>
void check_singular(const char* op, index_t info) {
  if (info > 0)
    throw LinAlgError(std::string(op) + ": the matrix is singular (pivot " + std::to_string(info) +
                      " of its LU factorisation is exactly zero)");
  if (info < 0) throw Error(std::string(op) + ": LAPACK rejected argument " + std::to_string(-info) + " (internal error)");
}

template <class T>
void set_identity(const Context& ctx, Array<T, 2>& a) {
  a.fill(T(0));
  View<T, 1> d;
  d.ptr = a.data(), d.shape.n[0] = a.extent(0), d.stride[0] = a.extent(0) + 1;
  detail::fill<T, 1>(ctx, d, T(1));
}

// Solves A X = B on the GPU for the row-major n x n A in a (overwritten) and the row-major
// n x k B in b, with no transposed copies; returns X (row-major, n x k). To column-major
// cuSOLVER, a is A^T and b is B^T: cusolverDnXgetrf gives A^T = P L U, so A = U^T L^T P^T
// and X^T = B^T U^-1 L^-1 P^T: two right-sided cuBLAS triangular solves in place of b, then
// X's rows are b's rows in the order of the pivots (one gather). The pivots and LAPACK's
// info come to the host once, after the factorisation: a singular A throws before any solve.
#if SIMKIT_HAS_CUDA
template <class T>
Array<T, 2> lu_solve_gpu(const Context& ctx, const char* op, Array<T, 2>& a, Array<T, 2>& b) {
  const index_t n = a.extent(0), k = b.extent(1);
  auto h = solver(ctx);
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  std::size_t dev_bytes = 0, host_bytes = 0;
  cusolver_check(cuda_libs::cusolver().cusolverDnXgetrf_bufferSize(h, solver_params(), n, n, cuda_type(T()), a.data(), n, cuda_type(T()), &dev_bytes,
                                             &host_bytes),
                 "Xgetrf_bufferSize");
  Array<std::int64_t, 1> work(ctx, extents(index_t(dev_bytes / 8 + 1)));  // the device workspace
  std::vector<std::uint8_t> host_work(std::max<std::size_t>(host_bytes, 1));
  Array<std::int64_t, 1> ipiv(ctx, extents(n + 1));  // the pivots, then info (as int64)
  auto* info = reinterpret_cast<int*>(ipiv.data() + n);
  SIM_CUDA_CHECK(cudaMemsetAsync(info, 0, sizeof(std::int64_t), stream));
  cusolver_check(cuda_libs::cusolver().cusolverDnXgetrf(h, solver_params(), n, n, cuda_type(T()), a.data(), n, ipiv.data(), cuda_type(T()), work.data(),
                                  dev_bytes, host_work.data(), host_bytes, info),
                 "Xgetrf");
  std::vector<std::int64_t> piv(static_cast<std::size_t>(n + 1));
  SIM_CUDA_CHECK(cudaMemcpyAsync(piv.data(), ipiv.data(), sizeof(std::int64_t) * std::size_t(n + 1), cudaMemcpyDeviceToHost,
                                 stream));
  SIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  int hinfo = 0;
  std::memcpy(&hinfo, &piv[std::size_t(n)], sizeof hinfo);
  check_singular<T>(op, hinfo);
  // X = P Z for Z = (b read row-major) and P = P_1 ... P_n (P_i swaps rows i and piv[i]):
  // the swaps from the last, followed on the row labels. Sent while the stream is idle (a
  // copy from pageable memory waits for the stream; perm may go once it returns).
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  for (index_t r = 0; r < n; ++r) perm[std::size_t(r)] = r;
  for (index_t i = n - 1; i >= 0; --i) std::swap(perm[std::size_t(i)], perm[std::size_t(piv[std::size_t(i)] - 1)]);
  SIM_CUDA_CHECK(cudaMemcpyAsync(ipiv.data(), perm.data(), sizeof(std::int64_t) * std::size_t(n), cudaMemcpyHostToDevice, stream));
  trsm_right_gpu(ctx, true, false, k, n, a.data(), b.data());  // B^T U^-1
  trsm_right_gpu(ctx, false, true, k, n, a.data(), b.data());  // then L^-1
  Array<T, 2> x(ctx, b.shape());
  detail::gather_rows_gpu(ctx, n, k, ipiv.data(), b.data(), x.data());
  return x;
}
#endif

// Solves in place of b, on the GPU, the system of the row-major n x n A in a (overwritten by
// its factors) for k right-hand sides that read the same in either layout: one vector (k = 1),
// or the identity (inv). To column-major cuSOLVER, a is M = A^T; Xgetrf factorises it, and
// Xgetrs solves A y = b with op = M^T (a vector) or M y = I, y = (A^T)^-1 = (A^-1)^T column-
// major, which is A^-1 read row-major (inv). The pivots stay on the device; LAPACK's info
// comes to the host once, at the end (a singular A throws then, b holding no answer).
#if SIMKIT_HAS_CUDA
template <class T>
void lu_solve_in_place_gpu(const Context& ctx, const char* op, Array<T, 2>& a, T* b, index_t k, bool transpose) {
  const index_t n = a.extent(0);
  auto h = solver(ctx);
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  std::size_t dev_bytes = 0, host_bytes = 0;
  cusolver_check(cuda_libs::cusolver().cusolverDnXgetrf_bufferSize(h, solver_params(), n, n, cuda_type(T()), a.data(), n, cuda_type(T()),
                                                                   &dev_bytes, &host_bytes),
                 "Xgetrf_bufferSize");
  Array<std::int64_t, 1> work(ctx, extents(index_t(dev_bytes / 8 + 1)));  // the device workspace
  std::vector<std::uint8_t> host_work(std::max<std::size_t>(host_bytes, 1));
  Array<std::int64_t, 1> ipiv(ctx, extents(n + 2));  // the pivots, then the two calls' info (an int each, in int64 slots)
  auto* info = reinterpret_cast<int*>(ipiv.data() + n);
  auto* solve_info = reinterpret_cast<int*>(ipiv.data() + n + 1);
  SIM_CUDA_CHECK(cudaMemsetAsync(info, 0, 2 * sizeof(std::int64_t), stream));
  cusolver_check(cuda_libs::cusolver().cusolverDnXgetrf(h, solver_params(), n, n, cuda_type(T()), a.data(), n, ipiv.data(), cuda_type(T()),
                                                        work.data(), dev_bytes, host_work.data(), host_bytes, info),
                 "Xgetrf");
  cusolver_check(cuda_libs::cusolver().cusolverDnXgetrs(h, solver_params(), transpose ? CUBLAS_OP_T : CUBLAS_OP_N, n, k, cuda_type(T()),
                                                        a.data(), n, ipiv.data(), cuda_type(T()), b, n, solve_info),
                 "Xgetrs");
  std::int64_t hinfo[2] = {0, 0};
  SIM_CUDA_CHECK(cudaMemcpyAsync(hinfo, info, sizeof hinfo, cudaMemcpyDeviceToHost, stream));
  SIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  int factor_info = 0, solve_status = 0;
  std::memcpy(&factor_info, &hinfo[0], sizeof factor_info);
  std::memcpy(&solve_status, &hinfo[1], sizeof solve_status);
  check_singular<T>(op, factor_info);
  if (solve_status != 0) throw Error(std::string(op) + ": cuSOLVER Xgetrs rejected argument " + std::to_string(-solve_status) + " (internal error)");
}
#endif

// A copy of a to factorise or solve in place: clone() on the GPU; on the cpu one memcpy
// rather than an OpenMP loop, whose threads would spin on beside OpenBLAS's (see matvec_rows_cpu).
template <class T, int Rank>
Array<T, Rank> copy_of(const Array<T, Rank>& a) {
  if (a.context().is_cuda()) return a.clone();
  Array<T, Rank> c(a.context(), a.shape());
  if (a.size() > 0) std::memcpy(c.data(), a.data(), a.bytes());
  return c;
}

template <class T>
void require_square(const char* op, const Array<T, 2>& A) {
  if (A.extent(0) != A.extent(1)) throw ShapeError(std::string(op) + ": the matrix must be square, not " + to_string(A.shape()));
}

}  // namespace

template <class T>
void matmul(const Context& ctx, View<const T, 2> A, View<const T, 2> B, View<T, 2> C, T alpha, T beta) {
  const index_t m = A.shape.n[0], k = A.shape.n[1], n = B.shape.n[1];
  if (B.shape.n[0] != k || C.shape.n[0] != m || C.shape.n[1] != n)
    throw ShapeError("matmul: shapes " + to_string(A.shape) + " @ " + to_string(B.shape) + " -> " + to_string(C.shape) +
                     " do not fit (A (m, k) @ B (k, n) -> C (m, n))");
  if (m == 0 || n == 0) return;
  Array<T, 2> ka, kb, kc;
  const Mat<T> a = operand(ctx, A, ka), b = operand(ctx, B, kb);
  // C must be row-major (rows contiguous); otherwise compute into a packed copy.
  View<T, 2> c = C;
  const bool packed_c = !((n <= 1 || C.stride[1] == 1) && (m <= 1 || C.stride[0] >= n));
  if (packed_c) {
    kc = Array<T, 2>(ctx, C.shape);
    if (beta != T(0)) detail::copy<T, 2>(ctx, View<const T, 2>(C), kc.view());
    c = kc.view();
  }
  const index_t ldc = m <= 1 ? std::max<index_t>(n, 1) : c.stride[0];
  // A @ A.T (B the transpose of A in the same memory, C overwritten): the symmetric product,
  // half the work of a general one, then its upper triangle copied onto the lower.
  const bool symmetric = beta == T(0) && m == n && m > 1 && a.p == b.p && a.ld == b.ld && a.trans != b.trans;
  if (symmetric && (ctx.is_cuda() || cpu_libs::blas())) {
    if (ctx.is_cuda()) {
#if SIMKIT_HAS_CUDA
      syrk_gpu(ctx, a.trans, m, k, alpha, a.p, a.ld, c.ptr, ldc);
#endif
    } else {
#if SIMKIT_HAS_CBLAS
      check_int("matmul", std::max({m, k, a.ld, ldc}));
      syrk_cpu(*cpu_libs::blas(), a.trans, int(m), int(k), alpha, a.p, int(a.ld), c.ptr, int(ldc));
#endif
    }
    detail::mirror_upper_triangle<T>(ctx, c);
    if (packed_c) detail::copy<T, 2>(ctx, View<const T, 2>(kc.view()), C);
    return;
  }
  if (ctx.is_cuda()) {
#if SIMKIT_HAS_CUDA
    // C^T (n x m, column-major) = op(B)^T op(A)^T
    gemm_gpu(ctx, op_of(b.trans), op_of(a.trans), n, m, k, alpha, b.p, b.ld, a.p, a.ld, beta, c.ptr, ldc);
#endif
  } else {
    if (const auto* L = cpu_libs::blas()) {
#if SIMKIT_HAS_CBLAS
      check_int("matmul", std::max({m, n, k, a.ld, b.ld, ldc}));
      gemm_cpu(*L, a.trans, b.trans, int(m), int(n), int(k), alpha, a.p, int(a.ld), b.p, int(b.ld), beta, c.ptr, int(ldc));
#endif
    } else {
      gemm_fallback(a, b, alpha, beta, c);
    }
  }
  if (packed_c) detail::copy<T, 2>(ctx, View<const T, 2>(kc.view()), C);
}

template <class T>
Array<T, 2> matmul(const Array<T, 2>& A, const Array<T, 2>& B) {
  same_context<T>("matmul", A.context(), B.context());
  Array<T, 2> C(A.context(), extents(A.extent(0), B.extent(1)));
  if (A.extent(1) != B.extent(0))
    throw ShapeError("matmul: shapes " + to_string(A.shape()) + " @ " + to_string(B.shape()) +
                     " do not fit (the inner extents differ)");
  matmul<T>(A.context(), A.view(), B.view(), C.view());
  return C;
}

template <class T>
void matvec(const Context& ctx, View<const T, 2> A, View<const T, 1> x, View<T, 1> y, T alpha, T beta) {
  const index_t m = A.shape.n[0], n = A.shape.n[1];
  if (x.shape.n[0] != n || y.shape.n[0] != m)
    throw ShapeError("matvec: shapes " + to_string(A.shape) + " @ " + to_string(x.shape) + " -> " + to_string(y.shape) +
                     " do not fit (A (m, n) @ x (n) -> y (m))");
  if (m == 0) return;
  Array<T, 2> ka;
  const Mat<T> a = operand(ctx, A, ka);
  const index_t incx = n <= 1 ? 1 : x.stride[0], incy = m <= 1 ? 1 : y.stride[0];
  if (incx < 1 || incy < 1) throw ShapeError("matvec: vectors need positive strides");
  if (n == 0) {  // an empty sum: y = beta * y (BLAS would return without touching y)
    if (beta == T(0)) return detail::fill<T, 1>(ctx, y, T(0));
    if (beta == T(1)) return;
    if (ctx.is_cuda()) {
#if SIMKIT_HAS_CUDA
      scal_gpu(ctx, m, beta, y.ptr, incy);
#endif
    } else {
      for (index_t i = 0; i < m; ++i) y(i) *= beta;
    }
    return;
  }
  if (ctx.is_cuda()) {
#if SIMKIT_HAS_CUDA
    if (a.trans)  // columns contiguous: cuBLAS's column-major gemv reads them coalesced
      gemv_gpu(ctx, CUBLAS_OP_N, m, n, alpha, a.p, a.ld, x.ptr, incx, beta, y.ptr, incy);
    else  // rows contiguous: one warp per row
      detail::matvec_rows_gpu(ctx, m, n, alpha, a.p, a.ld, x.ptr, incx, beta, y.ptr, incy);
#endif
  } else {
    if (const auto* L = cpu_libs::blas()) {  // OpenBLAS's gemv: faster than matvec_rows_cpu where it exists
#if SIMKIT_HAS_CBLAS
      check_int("matvec", std::max({m, n, a.ld, incx, incy}));
      // y is not to be read when beta is 0, but BLAS kernels have let a NaN in it through (0 * NaN;
      // OpenBLAS issue 2496, fixed in 0.3.10): zero it first, m values against m * n read.
      if (beta == T(0)) detail::fill<T, 1>(ctx, y, T(0));
      if (a.trans)
        gemv_cpu(*L, true, int(n), int(m), alpha, a.p, int(a.ld), x.ptr, int(incx), beta, y.ptr, int(incy));
      else
        gemv_cpu(*L, false, int(m), int(n), alpha, a.p, int(a.ld), x.ptr, int(incx), beta, y.ptr, int(incy));
#endif
      return;
    }
    if (!a.trans) return matvec_rows_cpu(m, n, alpha, a.p, a.ld, x.ptr, incx, beta, y.ptr, incy);
    cpu::for_pieces(m, m * n > (1 << 14), [&](index_t i0, index_t i1) {
      for (index_t i = i0; i < i1; ++i) {
        T s = 0;
        for (index_t j = 0; j < n; ++j) s += at(a, i, j) * x(j);
        y(i) = alpha * s + (beta == T(0) ? T(0) : beta * y(i));
      }
    });
  }
}

template <class T>
Array<T, 1> matvec(const Array<T, 2>& A, const Array<T, 1>& x) {
  same_context<T>("matvec", A.context(), x.context());
  if (A.extent(1) != x.extent(0))
    throw ShapeError("matvec: shapes " + to_string(A.shape()) + " @ " + to_string(x.shape()) + " do not fit");
  Array<T, 1> y(A.context(), extents(A.extent(0)));
  matvec<T>(A.context(), A.view(), x.view(), y.view());
  return y;
}

template <class T>
Array<T, 1> solve(const Array<T, 2>& A, const Array<T, 1>& b) {
  same_context<T>("solve", A.context(), b.context());
  require_square("solve", A);
  const index_t n = A.extent(0);
  if (b.extent(0) != n)
    throw ShapeError("solve: A of shape " + to_string(A.shape()) + " and b of shape " + to_string(b.shape()) + " do not fit");
  const Context& ctx = A.context();
  Array<T, 1> x = copy_of(b);
  if (n == 0) return x;
  Array<T, 2> a = copy_of(A);
  if (ctx.is_cuda()) {
#if SIMKIT_HAS_CUDA
    lu_solve_in_place_gpu(ctx, "solve", a, x.data(), 1, true);  // (a vector reads the same in both layouts)
#endif
    return x;
  }
  if (const auto* L = cpu_libs::blas()) {
#if SIMKIT_HAS_CBLAS
    check_int("solve", n);
    check_singular<T>("solve", lu_solve_cpu(*L, int(n), 1, a.data(), x.data()));
#endif
    return x;
  }
  std::vector<index_t> piv;
  check_singular<T>("solve", lu_fallback(n, a.data(), piv));
  lu_solve_fallback(n, a.data(), piv, x.data(), 1);
  return x;
}

template <class T>
Array<T, 2> solve(const Array<T, 2>& A, const Array<T, 2>& B) {
  same_context<T>("solve", A.context(), B.context());
  require_square("solve", A);
  const index_t n = A.extent(0), k = B.extent(1);
  if (B.extent(0) != n)
    throw ShapeError("solve: A of shape " + to_string(A.shape()) + " and B of shape " + to_string(B.shape()) + " do not fit");
  const Context& ctx = A.context();
  if (n == 0 || k == 0) return B.clone();
  Array<T, 2> a = copy_of(A);
  if (ctx.is_cuda()) {
#if SIMKIT_HAS_CUDA
    Array<T, 2> b = B.clone();
    return lu_solve_gpu(ctx, "solve", a, b);
#endif
  }
  Array<T, 2> x = copy_of(B);
  if (const auto* L = cpu_libs::blas()) {
#if SIMKIT_HAS_CBLAS
    check_int("solve", std::max(n, k));
    check_singular<T>("solve", lu_solve_cpu(*L, int(n), int(k), a.data(), x.data()));
#endif
    return x;
  }
  std::vector<index_t> piv;
  check_singular<T>("solve", lu_fallback(n, a.data(), piv));
  lu_solve_fallback(n, a.data(), piv, x.data(), k);
  return x;
}

template <class T>
Array<T, 2> inv(const Array<T, 2>& A) {
  require_square("inv", A);
  const index_t n = A.extent(0);
  const Context& ctx = A.context();
  if (n == 0) return A.clone();
  Array<T, 2> a = copy_of(A);
  if (ctx.is_cuda()) {
#if SIMKIT_HAS_CUDA
    Array<T, 2> x(ctx, A.shape());
    set_identity(ctx, x);
    lu_solve_in_place_gpu(ctx, "inv", a, x.data(), n, false);
    return x;
#endif
  }
  if (const auto* L = cpu_libs::blas()) {
#if SIMKIT_HAS_CBLAS
    check_int("inv", n);
    std::vector<int> ipiv(static_cast<std::size_t>(n));
    check_singular<T>("inv", inv_cpu(*L, int(n), a.data(), ipiv.data()));
#endif
    return a;
  }
  Array<T, 2> x(ctx, A.shape());
  set_identity(ctx, x);
  std::vector<index_t> piv;
  check_singular<T>("inv", lu_fallback(n, a.data(), piv));
  lu_solve_fallback(n, a.data(), piv, x.data(), n);
  return x;
}

#define SIM_INSTANTIATE_LINALG(T)                                                                         \
  template void matmul<T>(const Context&, View<const T, 2>, View<const T, 2>, View<T, 2>, T, T);          \
  template Array<T, 2> matmul<T>(const Array<T, 2>&, const Array<T, 2>&);                                 \
  template void matvec<T>(const Context&, View<const T, 2>, View<const T, 1>, View<T, 1>, T, T);          \
  template Array<T, 1> matvec<T>(const Array<T, 2>&, const Array<T, 1>&);                                 \
  template Array<T, 1> solve<T>(const Array<T, 2>&, const Array<T, 1>&);                                  \
  template Array<T, 2> solve<T>(const Array<T, 2>&, const Array<T, 2>&);                                  \
  template Array<T, 2> inv<T>(const Array<T, 2>&);
SIM_INSTANTIATE_LINALG(float)
SIM_INSTANTIATE_LINALG(double)

}  // namespace sim
