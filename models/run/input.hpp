#pragma once
// Everything in a run's input that can be wrong, checked before the output directory is
// touched (so a bad config leaves nothing behind): the config and its plugins, the grid and
// its split over the ranks, the model and its fields, dt and the number of steps, the
// initial state, and the output directory (writable, and locked for this run).
#include <memory>
#include <optional>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/runtime/context.hpp"
#include "core/distributed/decomposition.hpp"
#include "io/config.hpp"
#include "models/model.hpp"
#include "models/run/directory_lock.hpp"
#include "models/run/plan.hpp"
#include "models/runner.hpp"

namespace sim::run {

/// A run's checked input: the config, the model and the plan.
struct RunInput {
  io::Config config;
  std::vector<io::Schema> schemas;  ///< the framework's and the model's
  const ModelInfo* info = nullptr;
  Plan plan;
  Decomposition decomposition;
  Context ctx;
  std::unique_ptr<Model> model;
};

/// Checks the input and builds the model into in, the output directory locked by lock.
/// Returns an exit code when the run ends here (--print-config, --dry-run), else nothing.
/// Throws io::ConfigError, io::FileError or Error on bad input.
std::optional<int> prepare_run(const RunOptions& opt, ModelRegistry& registry, const Comm& comm, RunInput& in,
                               DirectoryLock& lock);

/// The split of the grid over `ranks` ranks: grid.decomposition when given, else the one
/// with the fewest cut faces. Throws ConfigError at the key when it cannot be.
Decomposition decompose(const io::Config& config, const GridSpec& grid, int ranks);

/// Prints the --dry-run plan on stdout (rank 0).
void print_dry_run(const RunInput& in, const Comm& comm);
/// Prints every tuning knob, its setting, what it accepts and its default, as TOML comments (--print-config).
void print_tuning_knobs();

}  // namespace sim::run
