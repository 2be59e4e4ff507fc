// BLAS level 1: cuBLAS (64-bit sizes) on cuda contexts, for_each / reduce on cpu ones.
#include "core/numerics/blas.hpp"

#include <cmath>
#include <string>

#include "core/kernels/for_each.hpp"
#include "core/kernels/reduce.hpp"
#if SIMKIT_HAS_CUDA
#include <cublas_v2.h>

#include "core/cuda/libraries.hpp"
#endif

namespace sim::blas {

namespace {
template <class T, int Rank>
void same_shape(const char* op, const Array<T, Rank>& x, const Array<T, Rank>& y) {
  if (x.context() != y.context()) throw BackendError(std::string("blas::") + op + ": arrays live on different contexts");
  if (x.shape() != y.shape())
    throw ShapeError(std::string("blas::") + op + ": shapes " + to_string(x.shape()) + " and " + to_string(y.shape()));
}

#if SIMKIT_HAS_CUDA
void check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw CudaError(std::string("cuBLAS ") + call + " failed: " + cuda_libs::cublas().cublasGetStatusName(s) + " (" +
                    cuda_libs::cublas().cublasGetStatusString(s) + ")");
}
cublasHandle_t handle(const Context& ctx) { return static_cast<cublasHandle_t>(ctx.blas_handle()); }
void axpy_gpu(const Context& c, index_t n, float a, const float* x, float* y) { check(cuda_libs::cublas().cublasSaxpy_64(handle(c), n, &a, x, 1, y, 1), "Saxpy"); }
void axpy_gpu(const Context& c, index_t n, double a, const double* x, double* y) { check(cuda_libs::cublas().cublasDaxpy_64(handle(c), n, &a, x, 1, y, 1), "Daxpy"); }
void scal_gpu(const Context& c, index_t n, float a, float* x) { check(cuda_libs::cublas().cublasSscal_64(handle(c), n, &a, x, 1), "Sscal"); }
void scal_gpu(const Context& c, index_t n, double a, double* x) { check(cuda_libs::cublas().cublasDscal_64(handle(c), n, &a, x, 1), "Dscal"); }
void dot_gpu(const Context& c, index_t n, const float* x, const float* y, float* r) { check(cuda_libs::cublas().cublasSdot_64(handle(c), n, x, 1, y, 1, r), "Sdot"); }
void dot_gpu(const Context& c, index_t n, const double* x, const double* y, double* r) { check(cuda_libs::cublas().cublasDdot_64(handle(c), n, x, 1, y, 1, r), "Ddot"); }
void nrm2_gpu(const Context& c, index_t n, const float* x, float* r) { check(cuda_libs::cublas().cublasSnrm2_64(handle(c), n, x, 1, r), "Snrm2"); }
void nrm2_gpu(const Context& c, index_t n, const double* x, double* r) { check(cuda_libs::cublas().cublasDnrm2_64(handle(c), n, x, 1, r), "Dnrm2"); }
#endif

template <class T>
struct AxpyFn {
  T a;
  const T* x;
  T* y;
  SIM_INLINE void operator()(index_t i) const { y[i] = a * x[i] + y[i]; }
};
template <class T>
struct ScalFn {
  T a;
  T* x;
  SIM_INLINE void operator()(index_t i) const { x[i] = a * x[i]; }
};
template <class T>
struct ProductFn {
  const T* x;
  const T* y;
  SIM_INLINE double operator()(index_t i) const { return double(x[i]) * double(y[i]); }
};
}  // namespace

template <class T, int Rank>
void axpy(T a, const Array<T, Rank>& x, Array<T, Rank>& y) {
  same_shape("axpy", x, y);
  const Box<1> all{{0}, {x.size()}};
#if SIMKIT_HAS_CUDA
  if (x.context().is_cuda()) {
    if (x.size() > 0) axpy_gpu(x.context(), x.size(), a, x.data(), y.data());
    return;
  }
#endif
  for_each(x.context(), "sim::blas::axpy", all, AxpyFn<T>{a, x.data(), y.data()});
}

template <class T, int Rank>
void scal(T a, Array<T, Rank>& x) {
#if SIMKIT_HAS_CUDA
  if (x.context().is_cuda()) {
    if (x.size() > 0) scal_gpu(x.context(), x.size(), a, x.data());
    return;
  }
#endif
  for_each(x.context(), "sim::blas::scal", Box<1>{{0}, {x.size()}}, ScalFn<T>{a, x.data()});
}

template <class T, int Rank>
T dot(const Array<T, Rank>& x, const Array<T, Rank>& y) {
  same_shape("dot", x, y);
#if SIMKIT_HAS_CUDA
  if (x.context().is_cuda()) {
    T r = 0;
    if (x.size() > 0) dot_gpu(x.context(), x.size(), x.data(), y.data(), &r);
    return r;
  }
#endif
  return T(reduce(x.context(), "sim::blas::dot", Box<1>{{0}, {x.size()}}, ProductFn<T>{x.data(), y.data()},
                  ops::Plus{}, 0.0));
}

template <class T, int Rank>
T nrm2(const Array<T, Rank>& x) {
#if SIMKIT_HAS_CUDA
  if (x.context().is_cuda()) {
    T r = 0;
    if (x.size() > 0) nrm2_gpu(x.context(), x.size(), x.data(), &r);
    return r;
  }
#endif
  return T(std::sqrt(reduce(x.context(), "sim::blas::nrm2", Box<1>{{0}, {x.size()}},
                            ProductFn<T>{x.data(), x.data()}, ops::Plus{}, 0.0)));
}

#define SIM_INSTANTIATE_BLAS(T, R)                                       \
  template void axpy<T, R>(T, const Array<T, R>&, Array<T, R>&);         \
  template void scal<T, R>(T, Array<T, R>&);                             \
  template T dot<T, R>(const Array<T, R>&, const Array<T, R>&);          \
  template T nrm2<T, R>(const Array<T, R>&);
SIM_INSTANTIATE_BLAS(float, 1)
SIM_INSTANTIATE_BLAS(float, 2)
SIM_INSTANTIATE_BLAS(float, 3)
SIM_INSTANTIATE_BLAS(double, 1)
SIM_INSTANTIATE_BLAS(double, 2)
SIM_INSTANTIATE_BLAS(double, 3)

}  // namespace sim::blas
