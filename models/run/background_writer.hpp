#pragma once
// One file write at a time on a background thread, so that snapshot writes overlap the next
// steps. Errors surface at the next wait() (or submit()).
#include <exception>
#include <functional>
#include <thread>

namespace sim::run {

/// Runs one job at a time on a thread of its own.
class BackgroundWriter {
 public:
  BackgroundWriter() = default;
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;
  /// Joins the job in flight (its error, if any, is dropped: the run is ending anyway).
  ~BackgroundWriter();
  /// Waits for the job in flight; rethrows its error.
  void wait();
  /// Waits for the previous job (rethrowing its error), then starts job.
  void submit(std::function<void()> job);
  /// Seconds the thread spent in jobs (read after wait()).
  double busy_seconds() const { return busy_; }

 private:
  std::thread worker_;
  std::exception_ptr error_;
  double busy_ = 0;  // written by the worker, read after wait()
};

}  // namespace sim::run
