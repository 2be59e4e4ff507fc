#include "models/run/background_writer.hpp"

#include <chrono>
#include <utility>

namespace sim::run {

BackgroundWriter::~BackgroundWriter() {
  if (worker_.joinable()) worker_.join();
}

void BackgroundWriter::wait() {
  if (worker_.joinable()) worker_.join();
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void BackgroundWriter::submit(std::function<void()> job) {
  wait();
  worker_ = std::thread([this, job = std::move(job)] {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      job();
    } catch (...) {
      error_ = std::current_exception();
    }
    busy_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
}

}  // namespace sim::run
