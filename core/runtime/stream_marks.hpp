#pragma once
// Marks on a context's stream, for diagnostics (bench_fluid_scaling's phases of a distributed
// solve): mark(label) notes when the stream reaches that point (a CUDA event on a GPU; on the
// CPU, whose work is done on return, the host clock); spans_ms() gives the time between
// consecutive marks since the last clear(). A default-constructed StreamMarks ignores marks.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/runtime/context.hpp"

namespace sim {

class StreamMarks {
 public:
  StreamMarks() = default;
  /// Marks on ctx's stream.
  explicit StreamMarks(const Context& ctx);
  /// True when marks are kept.
  bool on() const { return impl_ != nullptr; }
  /// Forgets the marks so far (a new round).
  void clear();
  /// The stream reaches this point (not inside a recording).
  void mark(const char* label);
  /// Waits for the stream; for each mark after the first, its label and the ms since the one before.
  std::vector<std::pair<std::string, double>> spans_ms() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace sim
