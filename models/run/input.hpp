#pragma once
// Everything in a run's input that can be wrong, checked before the output directory is
// touched (so a bad config leaves nothing behind): the config and its plugins, the grid and
// its split over the ranks, the model and its fields, dt and the number of steps, the
// initial state, and the output directory (writable, and locked for this run).
#include <functional>
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

/// Set-up ended on every rank because one or more failed; the message is printed already.
struct AgreedFailure : Error {
  int code;  ///< the exit code every rank returns
  explicit AgreedFailure(int c) : Error("set-up failed on a rank"), code(c) {}
};

/// Runs step on every rank, then all ranks agree on whether any failed (each reaches the same
/// collective with its status, so no rank waits in a collective for one that gave up). When one
/// did: the lowest failing rank prints its message (one line; "[rank N]" when N > 0) and every
/// rank throws AgreedFailure with the exit code (2 for bad input or memory, 1 otherwise).
void agreed_step(const Comm& comm, const std::function<void()>& step);

/// Checks the input and builds the model into in, the output directory locked by lock.
/// Returns an exit code when the run ends here (--print-config, --dry-run), else nothing.
/// Every phase ends in agreed_step: on bad input every rank throws AgreedFailure.
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
