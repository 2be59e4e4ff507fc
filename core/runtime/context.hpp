#pragma once
// A run's execution context: backend, device, stream, memory pool, BLAS handle, RNG state.
// There is no global state: every array, kernel and reduction names the context it runs on,
// so that later one process can hold one context per GPU.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace sim {

/// Where kernels run.
enum class Backend { cpu, cuda };

/// Name of a backend ("cpu" or "cuda").
const char* backend_name(Backend b);

/// What a user asks for: "auto" picks cuda when a GPU is present, else cpu.
enum class BackendRequest { automatic, cpu, cuda };

/// Parses "auto", "cpu" or "cuda"; throws BackendError naming the choices otherwise.
BackendRequest parse_backend(const std::string& name);

/// True when this simkit was compiled with the cuda backend.
bool cuda_compiled();

/// Number of usable CUDA devices (0 without the cuda backend or without a GPU).
int cuda_device_count();

/// One line telling why no CUDA device is usable, or "" when one is.
std::string cuda_unavailable_reason();

/// Memory use of a context's device (or host) allocations, in bytes.
struct MemoryStats {
  std::size_t in_use = 0;
  std::size_t peak = 0;
  std::size_t allocations = 0;
};

/// Options for Context::create.
struct ContextOptions {
  int device = 0;             ///< CUDA device ordinal
  std::uint64_t seed = 0;     ///< seed of the context's Philox stream
  std::uint64_t rng_stream = 0;  ///< Philox subsequence (one per rank, later)
  int cpu_threads = 0;        ///< OpenMP threads for the cpu backend (0: OpenMP's default)
  bool verbose = false;       ///< say which backend was chosen, on stderr
};

/// A handle to an execution context; copies share the same context.
class Context {
 public:
  struct Impl;

  /// Creates a context on the requested backend; throws BackendError if it is unavailable.
  static Context create(BackendRequest request, const ContextOptions& options = {});
  /// Shorthand: create(parse_backend(name), options).
  static Context create(const std::string& backend, const ContextOptions& options = {});

  Context() = default;
  /// The backend kernels of this context run on.
  Backend backend() const;
  /// True for the cuda backend.
  bool is_cuda() const { return backend() == Backend::cuda; }
  /// True when this handle refers to a context.
  bool valid() const { return impl_ != nullptr; }
  /// Description of the device: "NVIDIA H100 80GB HBM3 (cuda device 0)" or "cpu: 2 OpenMP threads".
  std::string device_name() const;
  /// Multiprocessors of the GPU (0 on cpu).
  int multiprocessor_count() const;
  /// The context's CUDA stream as cudaStream_t (nullptr on cpu).
  void* stream() const;
  /// The context's cuBLAS handle as cublasHandle_t (created on first use; cuda only).
  void* blas_handle() const;
  /// count unsigned counters in device memory, zero whenever the stream reaches a kernel that
  /// uses them: such a kernel sets each counter it used back to zero before it ends (the
  /// last-block tickets of one-pass reductions). A context has 16 a multiprocessor, at least
  /// 4096; asking for more throws. cuda only.
  unsigned* zeroed_counters(std::size_t count) const;

  /// Allocates bytes (device memory from the stream-ordered pool, or 256-byte aligned host
  /// memory); throws OutOfMemory with the size asked for and the size free.
  void* allocate(std::size_t bytes) const;
  /// Returns memory from allocate().
  void deallocate(void* p, std::size_t bytes) const;
  /// Allocates host memory for transfers: pinned on cuda, 256-byte aligned on cpu.
  void* allocate_host(std::size_t bytes) const;
  /// Returns memory from allocate_host().
  void deallocate_host(void* p, std::size_t bytes) const;
  /// Bytes allocated now and at the peak.
  MemoryStats memory_stats() const;
  /// Waits until all work queued on the context has finished.
  void synchronize() const;

  /// Reserves n consecutive Philox blocks of the context's stream; returns the first.
  std::uint64_t reserve_rng_blocks(std::uint64_t n) const;
  /// The seed of the context's Philox stream.
  std::uint64_t rng_seed() const;
  /// The Philox subsequence this context draws from.
  std::uint64_t rng_stream() const;
  /// The next unused Philox block (save it in checkpoints).
  std::uint64_t rng_offset() const;
  /// Restores the RNG position (from a checkpoint).
  void set_rng_state(std::uint64_t seed, std::uint64_t offset) const;

  friend bool operator==(const Context& a, const Context& b) { return a.impl_ == b.impl_; }
  friend bool operator!=(const Context& a, const Context& b) { return a.impl_ != b.impl_; }

 private:
  std::shared_ptr<Impl> impl_;
  Impl& impl() const;
};

}  // namespace sim
