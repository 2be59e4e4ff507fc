#pragma once
// The run driver behind `simulate`: config -> model -> time loop with output, checkpoints,
// signals, NaN guard and progress -> summary. Returns the process exit code.
#include <optional>
#include <string>
#include <vector>

#include "io/config.hpp"
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
  bool accept_changes = false;          ///< --resume even when a physical parameter differs from the checkpoint's
  std::string stats_path;               ///< write the run's summary as JSON here
  std::vector<std::string> plugins;     ///< model plugins to load (besides [run] plugins)
};

/// Exit codes of `simulate`.
enum ExitCode { exit_ok = 0, exit_failure = 1, exit_bad_input = 2 };

/// The grid a validated config describes.
GridSpec grid_from_config(const io::Config& config);

/// Validates config (framework and model sections) and builds its model on ctx: what
/// simulate does before the first step, for tests and tools. Throws io::ConfigError or Error.
std::unique_ptr<Model> build_model(const ModelRegistry& registry, const Context& ctx, io::Config& config);
/// The same on comm's ranks, the grid split as simulate splits it (grid.decomposition or the
/// automatic split); collective.
std::unique_ptr<Model> build_model(const ModelRegistry& registry, const Context& ctx, io::Config& config, const Comm& comm);

/// Runs a simulation as options say; returns the exit code (0, 1, 2, 130, 143).
int run_simulation(const RunOptions& options, ModelRegistry registry);

}  // namespace sim
