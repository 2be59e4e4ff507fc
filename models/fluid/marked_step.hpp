#pragma once
// Model::marked_step for the fluids: their step() run while their StreamMarks are on (a step
// then queues as it goes, with a mark between its phases), the marks' spans returned.
#include <string>
#include <utility>
#include <vector>

#include "core/runtime/stream_marks.hpp"

namespace sim::fluid {

/// step() with marks on (the model's marks, off again after): each phase's label and ms on this rank.
template <class Step>
std::vector<std::pair<std::string, double>> marked_step(StreamMarks& marks, const Context& ctx, const Step& step) {
  marks = StreamMarks(ctx);
  step();
  std::vector<std::pair<std::string, double>> spans = marks.spans_ms();
  marks = StreamMarks();
  return spans;
}

}  // namespace sim::fluid
