#pragma once
// The run driver behind `simulate`: config -> model -> time loop with output, checkpoints,
// signals, NaN guard and progress -> summary. Returns the process exit code.
#include <optional>
#include <string>
#include <vector>

#include "models/model.hpp"

namespace sim {

/// What the command line asks of a run.
struct RunOptions {
  std::string config_path;
  std::vector<std::string> overrides;   ///< "section.key=value"
  std::optional<std::string> resume;    ///< set: resume; "" means the newest valid checkpoint
  bool dry_run = false;
  bool print_config = false;
  bool quiet = false;
};

/// Exit codes of `simulate`.
enum ExitCode { exit_ok = 0, exit_failure = 1, exit_bad_input = 2 };

/// Runs a simulation as options say; returns the exit code (0, 1, 2, 130, 143).
int run_simulation(const RunOptions& options, const ModelRegistry& registry);

}  // namespace sim
