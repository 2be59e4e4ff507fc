#pragma once
// The NaN/Inf guard: a run that blows up stops with the step, the field and the cell, and
// keeps its last good checkpoint (exit code 1, through the Error it throws).
#include <string>
#include <vector>

#include "core/distributed/comm.hpp"
#include "models/model.hpp"
#include "models/run/activity.hpp"

namespace sim::run {

/// Where field f holds its first non-finite value, as the message to stop with ("" when all
/// are finite).
std::string find_non_finite(FieldRef& f, std::int64_t step, const GridSpec& g);

/// Throws Error naming the first non-finite cell of any field. Collective on several ranks:
/// the ranks that find one print where, then every rank throws.
void guard_finite(std::vector<FieldRef>& fields, std::int64_t step, const GridSpec& g, const Comm& comm,
                  const std::string& cause = "");

/// Checks fields for NaN/Inf when due: collective (one reduction per field).
class FiniteGuard : public Activity {
 public:
  /// Checks all fields (true: first lets the model prepare its output fields, as before a
  /// snapshot) or the checkpointed ones (false: skipped at a step whose fields were checked).
  FiniteGuard(std::shared_ptr<Schedule> schedule, bool before_output);
  /// Throws Error at the first non-finite value.
  void run(Simulation& sim) override;

 private:
  bool before_output_;
};

}  // namespace sim::run
