#pragma once
// A CUDA stream of its own (high priority) for host <-> device copies that overlap the
// kernels of a context's stream: follow() orders it after the work queued so far on the
// context, join() orders the context after the copies queued so far. Built with CUDA only;
// the halo exchange stages its slabs through it.
#include <memory>

#include "core/runtime/context.hpp"

namespace sim {

class CopyStream {
 public:
  /// A stream on ctx's GPU.
  explicit CopyStream(const Context& ctx);
  ~CopyStream();
  CopyStream(const CopyStream&) = delete;
  CopyStream& operator=(const CopyStream&) = delete;
  /// The stream, as cudaStream_t.
  void* stream() const;
  /// Work queued on this stream from now on starts after the work queued so far on ctx's stream.
  void follow(const Context& ctx);
  /// Blocks the calling thread until everything queued on this stream has finished.
  void wait_host();
  /// Work queued on ctx's stream from now on starts after everything queued so far here.
  void join(const Context& ctx);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sim
