#include "core/runtime/context.hpp"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <new>
#include <string>

#include "core/runtime/error.hpp"
#include "core/runtime/tuning.hpp"

#if SIMKIT_HAS_CUDA
#include <cublas_v2.h>

#include "core/cuda/libraries.hpp"
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

namespace {
// Host memory for a cpu context: 256-byte aligned (as cudaMalloc's); from 4 MiB on, 2 MiB
// aligned and marked for transparent huge pages (madvise: a no-op where THP is off), as
// NumPy does for its large arrays: fewer TLB misses, and the hardware prefetchers, which stop
// at page boundaries, run on. nullptr when out of memory.
void* allocate_cpu(std::size_t bytes) {
  constexpr std::size_t huge = std::size_t(2) << 20;
  const std::size_t rounded = (bytes + 255) / 256 * 256;
  if (rounded < bytes) return nullptr;
  if (bytes < 2 * huge) return std::aligned_alloc(256, rounded);
  void* p = nullptr;
  if (posix_memalign(&p, huge, rounded) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
  madvise(p, rounded, MADV_HUGEPAGE);  // advice only: ignored where it cannot be taken
#endif
  return p;
}
}  // namespace

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 6) bytes /= 1024.0, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return buf;
}

const char* backend_name(Backend b) { return b == Backend::cuda ? "cuda" : "cpu"; }

BackendRequest parse_backend(const std::string& name) {
  if (name == "auto") return BackendRequest::automatic;
  if (name == "cpu") return BackendRequest::cpu;
  if (name == "cuda") return BackendRequest::cuda;
  throw BackendError("unknown backend '" + name + "'; expected one of: auto, cuda, cpu");
}

bool cuda_compiled() { return SIMKIT_HAS_CUDA != 0; }

int cuda_device_count() {
#if SIMKIT_HAS_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the non-sticky error so later calls start clean
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

std::string cuda_unavailable_reason() {
#if SIMKIT_HAS_CUDA
  int n = 0;
  cudaError_t code = cudaGetDeviceCount(&n);
  if (code != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA device (") + cudaGetErrorString(code) + ")";
  }
  return n > 0 ? "" : "no CUDA device found";
#else
  return "this simkit was built without the cuda backend (nvcc was not found at configure time)";
#endif
}

namespace {
std::size_t host_bytes_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::size_t kb = 0;
  while (meminfo >> key >> kb) {
    if (key == "MemAvailable:") return kb * 1024;
    meminfo.ignore(256, '\n');
  }
  return 0;
}
}  // namespace

struct Context::Impl {
  Backend backend = Backend::cpu;
  int device = 0;
  std::string name;
  int sms = 0;
  std::uint64_t seed = 0, rng_stream = 0, rng_next = 0;
  std::mutex mutex;  // guards the counters below and the lazily made BLAS handle
  MemoryStats stats;
#if SIMKIT_HAS_CUDA
  cudaStream_t stream = nullptr;
  cudaMemPool_t pool = nullptr;
  cublasHandle_t blas = nullptr;
  void* blas_workspace = nullptr;  // cuBLAS's workspace (cublasSetWorkspace), outside the pool's accounting
  unsigned* counters = nullptr;    // zeroed_counters(), from the pool, outside its accounting
  std::size_t counter_capacity = 0;
#endif

  ~Impl() {
#if SIMKIT_HAS_CUDA
    if (backend == Backend::cuda) {
      if (counters) cudaFreeAsync(counters, stream);  // after the queued work, which the sync waits for
      cudaStreamSynchronize(stream);
      if (blas) cuda_libs::cublas().cublasDestroy(blas);
      if (blas_workspace) cudaFree(blas_workspace);
      cudaMemPoolDestroy(pool);
      cudaStreamDestroy(stream);
    }
#endif
  }

  void count_alloc(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    stats.in_use += bytes;
    stats.allocations += 1;
    stats.peak = std::max(stats.peak, stats.in_use);
  }
  void count_free(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    stats.in_use -= bytes;
  }
};

Context::Impl& Context::impl() const {
  if (!impl_) throw Error("simkit: use of an empty Context (create one with sim::Context::create)");
  return *impl_;
}

Context Context::create(const std::string& backend, const ContextOptions& options) {
  return create(parse_backend(backend), options);
}

Context Context::create(BackendRequest request, const ContextOptions& options) {
  Context ctx;
  ctx.impl_ = std::make_shared<Impl>();
  Impl& im = *ctx.impl_;
  im.seed = options.seed;
  im.rng_stream = options.rng_stream;
  std::string reason = cuda_unavailable_reason();
  bool use_cuda = request == BackendRequest::cuda || (request == BackendRequest::automatic && reason.empty());
  if (request == BackendRequest::cuda && !reason.empty())
    throw BackendError("backend 'cuda' was requested but " + reason + "; use backend 'cpu' or 'auto'");
  if (use_cuda) {
#if SIMKIT_HAS_CUDA
    im.backend = Backend::cuda;
    im.device = options.device;
    int count = cuda_device_count();
    if (options.device < 0 || options.device >= count)
      throw BackendError("CUDA device " + std::to_string(options.device) + " does not exist (found " +
                         std::to_string(count) + ")");
    SIM_CUDA_CHECK(cudaSetDevice(im.device));
    cudaDeviceProp prop;
    SIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, im.device));
    im.name = std::string(prop.name) + " (cuda device " + std::to_string(im.device) + ")";
    im.sms = prop.multiProcessorCount;
    SIM_CUDA_CHECK(cudaStreamCreateWithFlags(&im.stream, cudaStreamNonBlocking));
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = im.device;
    SIM_CUDA_CHECK(cudaMemPoolCreate(&im.pool, &props));
    // Keep freed blocks cached in the pool: no cudaMalloc/cudaFree per step.
    std::uint64_t keep_all = UINT64_MAX;
    SIM_CUDA_CHECK(cudaMemPoolSetAttribute(im.pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
    // zeroed_counters(): made once, outside any graph capture (an allocation during one would
    // belong to the graph)
    im.counter_capacity = std::max<std::size_t>(4096, 16 * std::size_t(im.sms));
    void* counters = nullptr;
    SIM_CUDA_CHECK(cudaMallocFromPoolAsync(&counters, im.counter_capacity * sizeof(unsigned), im.pool, im.stream));
    SIM_CUDA_CHECK(cudaMemsetAsync(counters, 0, im.counter_capacity * sizeof(unsigned), im.stream));
    im.counters = static_cast<unsigned*>(counters);
#endif
  } else {
    im.backend = Backend::cpu;
    if (options.cpu_threads > 0) omp_set_num_threads(options.cpu_threads);
    im.name = "cpu: " + std::to_string(omp_get_max_threads()) + " OpenMP threads";
  }
  if (options.verbose) {
    std::fprintf(stderr, "simkit: backend %s on %s%s\n", backend_name(im.backend), im.name.c_str(),
                 request == BackendRequest::automatic && !use_cuda ? (" (" + reason + ")").c_str() : "");
  }
  return ctx;
}

Backend Context::backend() const { return impl().backend; }
std::string Context::device_name() const { return impl().name; }
int Context::multiprocessor_count() const { return impl().sms; }

void* Context::stream() const {
#if SIMKIT_HAS_CUDA
  return impl().stream;
#else
  return nullptr;
#endif
}

unsigned* Context::zeroed_counters(std::size_t count) const {
  Impl& im = impl();
  if (im.backend != Backend::cuda) throw BackendError("device counters requested on a cpu context");
#if SIMKIT_HAS_CUDA
  if (count > im.counter_capacity)
    throw Error("simkit: " + std::to_string(count) + " device counters asked for; a context has " +
                std::to_string(im.counter_capacity));
  return im.counters;
#else
  (void)count;
  return nullptr;
#endif
}

void* Context::blas_handle() const {
  Impl& im = impl();
  if (im.backend != Backend::cuda) throw BackendError("cuBLAS handle requested on a cpu context");
#if SIMKIT_HAS_CUDA
  std::lock_guard<std::mutex> lock(im.mutex);
  if (!im.blas) {
    if (cuda_libs::cublas().cublasCreate(&im.blas) != CUBLAS_STATUS_SUCCESS) throw CudaError("cublasCreate failed");
    cuda_libs::cublas().cublasSetStream(im.blas, im.stream);
    // The workspace cuBLAS recommends (cublasSetWorkspace): 32 MiB from Hopper on, 4 MiB
    // before, as PyTorch gives its handles; SIMKIT_CUBLAS_WORKSPACE_MIB overrides (0: cuBLAS's own).
    int major = 0;
    SIM_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, im.device));
    std::size_t mib = major >= 9 ? 32 : 4;
    if (const long long knob = tuning::current().cublas_workspace_mib; knob >= 0) mib = std::size_t(knob);
    if (mib > 0) {
      SIM_CUDA_CHECK(cudaMalloc(&im.blas_workspace, mib << 20));
      if (cuda_libs::cublas().cublasSetWorkspace(im.blas, im.blas_workspace, mib << 20) != CUBLAS_STATUS_SUCCESS)
        throw CudaError("cublasSetWorkspace failed");
    }
  }
  return im.blas;
#else
  return nullptr;
#endif
}

void* Context::allocate(std::size_t bytes) const {
  Impl& im = impl();
  if (bytes == 0) return nullptr;
#if SIMKIT_HAS_CUDA
  if (im.backend == Backend::cuda) {
    void* p = nullptr;
    cudaError_t code = cudaMallocFromPoolAsync(&p, bytes, im.pool, im.stream);
    if (code == cudaErrorMemoryAllocation) {
      // Give cached blocks back to the driver and try once more before giving up.
      cudaGetLastError();
      cudaStreamSynchronize(im.stream);
      cudaMemPoolTrimTo(im.pool, 0);
      code = cudaMallocFromPoolAsync(&p, bytes, im.pool, im.stream);
    }
    if (code == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      std::size_t free_b = 0, total_b = 0;
      cudaMemGetInfo(&free_b, &total_b);
      throw OutOfMemory("out of GPU memory on " + im.name + ": asked for " + format_bytes(double(bytes)) + ", " +
                        format_bytes(double(free_b)) + " free of " + format_bytes(double(total_b)) +
                        " (simkit holds " + format_bytes(double(im.stats.in_use)) +
                        "); use a smaller grid, float32, or more GPUs");
    }
    SIM_CUDA_CHECK(code);
    im.count_alloc(bytes);
    return p;
  }
#endif
  void* p = allocate_cpu(bytes);
  if (!p)
    throw OutOfMemory("out of host memory: asked for " + format_bytes(double(bytes)) + ", " +
                      format_bytes(double(host_bytes_available())) + " available; use a smaller grid or float32");
  im.count_alloc(bytes);
  return p;
}

void Context::deallocate(void* p, std::size_t bytes) const {
  if (!p) return;
  Impl& im = impl();
  im.count_free(bytes);
#if SIMKIT_HAS_CUDA
  if (im.backend == Backend::cuda) {
    const cudaError_t code = cudaFreeAsync(p, im.stream);
    // a free while a recording (graph.hpp) is being abandoned after an error: the allocation
    // belonged to the discarded graph; never throw from here (destructors call this)
    if (code == cudaErrorStreamCaptureInvalidated || code == cudaErrorStreamCaptureUnsupported ||
        code == cudaErrorStreamCaptureImplicit) {
      cudaGetLastError();
      return;
    }
    SIM_CUDA_CHECK(code);
    return;
  }
#endif
  std::free(p);
}

void* Context::allocate_host(std::size_t bytes) const {
  if (bytes == 0) return nullptr;
#if SIMKIT_HAS_CUDA
  if (impl().backend == Backend::cuda) {
    void* p = nullptr;
    cudaError_t code = cudaMallocHost(&p, bytes);
    if (code == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw OutOfMemory("out of pinned host memory: asked for " + format_bytes(double(bytes)) + ", " +
                        format_bytes(double(host_bytes_available())) + " available");
    }
    SIM_CUDA_CHECK(code);
    return p;
  }
#endif
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    throw OutOfMemory("out of host memory: asked for " + format_bytes(double(bytes)) + ", " +
                      format_bytes(double(host_bytes_available())) + " available");
  return p;
}

void Context::deallocate_host(void* p, std::size_t bytes) const {
  (void)bytes;
  if (!p) return;
#if SIMKIT_HAS_CUDA
  if (impl().backend == Backend::cuda) {
    SIM_CUDA_CHECK(cudaFreeHost(p));
    return;
  }
#endif
  std::free(p);
}

MemoryStats Context::memory_stats() const {
  std::lock_guard<std::mutex> lock(impl().mutex);
  return impl().stats;
}

void Context::synchronize() const {
#if SIMKIT_HAS_CUDA
  if (impl().backend == Backend::cuda) SIM_CUDA_CHECK(cudaStreamSynchronize(impl().stream));
#endif
}

std::uint64_t Context::reserve_rng_blocks(std::uint64_t n) const {
  std::lock_guard<std::mutex> lock(impl().mutex);
  std::uint64_t first = impl().rng_next;
  impl().rng_next += n;
  return first;
}
std::uint64_t Context::rng_seed() const { return impl().seed; }
std::uint64_t Context::rng_stream() const { return impl().rng_stream; }
std::uint64_t Context::rng_offset() const {
  std::lock_guard<std::mutex> lock(impl().mutex);
  return impl().rng_next;
}
void Context::set_rng_state(std::uint64_t seed, std::uint64_t offset) const {
  std::lock_guard<std::mutex> lock(impl().mutex);
  impl().seed = seed;
  impl().rng_next = offset;
}

}  // namespace sim
