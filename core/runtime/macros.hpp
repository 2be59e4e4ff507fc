#pragma once
// The only GPU words model code ever sees. Under nvcc they mark functions and lambdas as
// callable on host and device; under a plain C++ compiler they vanish.

#if defined(__CUDACC__)
#define SIM_HOST_DEVICE __host__ __device__
#define SIM_LAMBDA [=] __host__ __device__
#define SIM_INLINE __host__ __device__ __forceinline__
#else
#define SIM_HOST_DEVICE
#define SIM_LAMBDA [=]
#define SIM_INLINE inline
#endif

// True while the device pass of nvcc compiles a function body.
#if defined(__CUDA_ARCH__)
#define SIM_DEVICE_PASS 1
#else
#define SIM_DEVICE_PASS 0
#endif
