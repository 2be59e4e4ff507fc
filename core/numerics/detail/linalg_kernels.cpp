// The GPU kernels of dense linear algebra that cuBLAS / cuSOLVER do not cover as fast:
// the row-major matrix-vector product and the row gather that applies an LU's pivots.
#include "core/numerics/detail/linalg_kernels.hpp"

#include "core/detail/dispatch.hpp"
#include "core/kernels/for_each.hpp"
#if SIM_TU_HAS_CUDA
#include "core/cuda/matvec.cuh"
#endif

namespace sim::detail {

template <class T>
void matvec_rows_gpu(const Context& ctx, index_t m, index_t n, T alpha, const T* a, index_t lda, const T* x, index_t incx,
                     T beta, T* y, index_t incy) {
#if SIM_TU_HAS_CUDA
  gpu::matvec_rows(ctx, m, n, alpha, a, lda, x, incx, beta, y, incy);
#else
  (void)ctx, (void)m, (void)n, (void)alpha, (void)a, (void)lda, (void)x, (void)incx, (void)beta, (void)y, (void)incy;
  throw not_compiled_for_cuda("sim::matvec(rows)");
#endif
}

template <class T>
void gather_rows_gpu(const Context& ctx, index_t rows, index_t cols, const std::int64_t* perm, const T* src, T* dst) {
#if SIM_TU_HAS_CUDA
  gpu::gather_rows(ctx, rows, cols, perm, src, dst);
#else
  (void)ctx, (void)rows, (void)cols, (void)perm, (void)src, (void)dst;
  throw not_compiled_for_cuda("sim::solve(gather rows)");
#endif
}

template <class T>
struct MirrorUpperFn {
  View<T, 2> c;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    if (j < i) c(i, j) = c(j, i);
  }
};

template <class T>
void mirror_upper_triangle(const Context& ctx, View<T, 2> c) {
  for_each(ctx, "sim::matmul(mirror upper triangle)", c.box(), MirrorUpperFn<T>{c});
}

#define SIM_INSTANTIATE_LINALG_KERNELS(T)                                                                        \
  template void matvec_rows_gpu<T>(const Context&, index_t, index_t, T, const T*, index_t, const T*, index_t, T, \
                                   T*, index_t);                                                                 \
  template void gather_rows_gpu<T>(const Context&, index_t, index_t, const std::int64_t*, const T*, T*);        \
  template void mirror_upper_triangle<T>(const Context&, View<T, 2>);
SIM_INSTANTIATE_LINALG_KERNELS(float)
SIM_INSTANTIATE_LINALG_KERNELS(double)

}  // namespace sim::detail
