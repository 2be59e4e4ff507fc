// Marks on a context's stream (stream_marks.hpp).
#include "core/runtime/stream_marks.hpp"

#include <chrono>

#if SIMKIT_HAS_CUDA
#include <cuda_runtime.h>

#include "core/cuda/check.hpp"
#endif

namespace sim {

struct StreamMarks::Impl {
  Context ctx;
  std::vector<std::string> labels;
  std::vector<std::chrono::steady_clock::time_point> host;  // (CPU)
#if SIMKIT_HAS_CUDA
  std::vector<cudaEvent_t> events;  // (GPU) one per mark of a round, reused from round to round
  ~Impl() {
    for (cudaEvent_t e : events) cudaEventDestroy(e);
  }
#endif
};

StreamMarks::StreamMarks(const Context& ctx) : impl_(std::make_shared<Impl>()) { impl_->ctx = ctx; }

void StreamMarks::clear() {
  if (!impl_) return;
  impl_->labels.clear(), impl_->host.clear();
}

void StreamMarks::mark(const char* label) {
  if (!impl_) return;
  Impl& im = *impl_;
  const std::size_t k = im.labels.size();
  im.labels.push_back(label);
#if SIMKIT_HAS_CUDA
  if (im.ctx.is_cuda()) {
    if (k == im.events.size()) {
      cudaEvent_t e;
      SIM_CUDA_CHECK(cudaEventCreate(&e));
      im.events.push_back(e);
    }
    SIM_CUDA_CHECK(cudaEventRecord(im.events[k], static_cast<cudaStream_t>(im.ctx.stream())));
    return;
  }
#endif
  (void)k;
  im.host.push_back(std::chrono::steady_clock::now());
}

std::vector<std::pair<std::string, double>> StreamMarks::spans_ms() const {
  std::vector<std::pair<std::string, double>> out;
  if (!impl_) return out;
  const Impl& im = *impl_;
  im.ctx.synchronize();
  for (std::size_t k = 1; k < im.labels.size(); ++k) {
    double ms = 0;
#if SIMKIT_HAS_CUDA
    if (im.ctx.is_cuda()) {
      float f = 0;
      SIM_CUDA_CHECK(cudaEventElapsedTime(&f, im.events[k - 1], im.events[k]));
      ms = f;
    } else
#endif
      ms = std::chrono::duration<double, std::milli>(im.host[k] - im.host[k - 1]).count();
    out.emplace_back(im.labels[k], ms);
  }
  return out;
}

}  // namespace sim
