// The run driver: checks the input (run/input.cpp: nothing is written before it passes on
// every rank), then runs a Simulation (run/simulation.hpp) with the activities of
// run/setup.hpp, and reports its summary. Launched by mpirun, every rank runs this driver:
// rank 0 alone prints, writes diagnostics and XDMF, and deletes files; snapshots and
// checkpoints are written by all ranks together (one file, collective).
#include "models/runner.hpp"

#include <cstdio>

#include "core/distributed/comm.hpp"
#include "core/runtime/error.hpp"
#include "io/config.hpp"
#include "io/hdf5_file.hpp"
#include "models/run/framework_schema.hpp"
#include "models/run/input.hpp"
#include "models/run/log.hpp"
#include "models/run/restore.hpp"
#include "models/run/setup.hpp"
#include "models/run/simulation.hpp"
#include "models/run/stop_signal.hpp"
#include "models/run/summary.hpp"

#ifndef SIMKIT_VERSION_STRING
#define SIMKIT_VERSION_STRING "unknown"
#endif
#ifndef SIMKIT_GIT_COMMIT
#define SIMKIT_GIT_COMMIT "unknown"
#endif

namespace sim {

GridSpec grid_from_config(const io::Config& c) {
  GridSpec g;
  const auto& cells = c.integers("grid", "cells");
  const auto& length = c.reals("grid", "length");
  const auto& origin = c.reals("grid", "origin");
  g.rank = int(cells.size());
  for (int d = 0; d < g.rank; ++d) g.cells[d] = cells[d], g.length[d] = length[d], g.origin[d] = origin[d];
  g.ghost = int(c.integer("grid", "ghost"));
  return g;
}

std::unique_ptr<Model> build_model(const ModelRegistry& registry, const Context& ctx, io::Config& config) {
  run::check_model_name(config, registry.names());
  const ModelInfo* info = registry.find(*config.raw_string("run", "model"));
  config.validate(schemas_of(*info));
  run::check_framework_rules(config);
  ModelSetup setup{ctx, &config, grid_from_config(config), config.string("run", "precision") == "float64"};
  return info->create(setup);
}

std::unique_ptr<Model> build_model(const ModelRegistry& registry, const Context& ctx, io::Config& config, const Comm& comm) {
  run::check_model_name(config, registry.names());
  const ModelInfo* info = registry.find(*config.raw_string("run", "model"));
  config.validate(schemas_of(*info));
  run::check_framework_rules(config);
  ModelSetup setup{ctx, &config, grid_from_config(config), config.string("run", "precision") == "float64"};
  setup.comm = comm;
  if (comm.parallel()) setup.decomposition = run::decompose(config, setup.grid, comm.size());
  return info->create(setup);
}

namespace {

/// Input checks end here on every rank: returns the exit code when any rank failed (-1 when
/// none did). A rank's message is printed by rank 0, or by the rank itself when rank 0 had none.
int agree_on_input(const Comm& comm, int code, const std::string& message) {
  const std::int64_t root_code = comm.broadcast(std::int64_t(code));
  const std::int64_t worst = comm.max(std::int64_t(code));
  if (code >= 0 && (comm.rank() == 0 || root_code < 0)) {
    if (comm.rank() != 0) std::fprintf(stderr, "[rank %d] ", comm.rank());
    std::fprintf(stderr, "%s\n", message.c_str());
  }
  return int(worst);
}

/// The file attributes of the run (every rank writes the same: parallel HDF5 needs identical
/// metadata, so the device is rank 0's). Collective.
io::RunInfo run_info(const run::RunInput& in, const Comm& comm) {
  const std::string device = comm.parallel() ? comm.broadcast(in.ctx.device_name()) + " (rank 0 of " +
                                                   std::to_string(comm.size()) + ")"
                                             : in.ctx.device_name();
  io::RunInfo info;
  info.model = in.info->name;
  info.dt = in.plan.dt;
  info.config_toml = in.config.to_toml(in.schemas, false);
  info.simkit_version = SIMKIT_VERSION_STRING;
  info.git_commit = SIMKIT_GIT_COMMIT;
  info.backend = backend_name(in.ctx.backend());
  info.device = device;
  info.precision = in.plan.float64 ? "float64" : "float32";
  return info;
}

/// The run of a checked input: resume if asked, step to the end with the standard
/// activities, report. Returns the exit code; throws on failure.
int run_checked(run::RunInput& in, const RunOptions& opt, const Comm& comm) {
  run::Simulation sim(in.plan, *in.model, in.ctx, comm, run_info(in, comm));
  run::agreed_step(comm, [&] {
    if (comm.rank() == 0) io::remove_stale_temporaries(in.plan.out_dir);
  });
  double next_output_time = 0;
  if (!opt.resume) sim.plan.run_id = comm.broadcast(in.plan.run_id);  // rank 0 drew it
  if (opt.resume) next_output_time = run::resume(sim, in.config, in.schemas, *opt.resume, opt.accept_changes);
  else if (in.plan.total_steps <= 0) run::log("note: the run has 0 steps; writing the initial state only");
  run::add_standard_activities(sim, opt.quiet, next_output_time);
  if (const int code = sim.run(); code != exit_ok) return code;
  const run::RunSummary summary = run::summarize(sim, in.info->name, SIMKIT_GIT_COMMIT);
  if (!opt.quiet) run::log_summary(sim, summary);
  if (!opt.stats_path.empty() && comm.rank() == 0) run::write_summary(opt.stats_path, summary);
  return exit_ok;
}

}  // namespace

int run_simulation(const RunOptions& opt, ModelRegistry registry) {
  // ---- 1. everything that can be wrong in the input, before anything is written
  Comm comm;
  try {
    comm = Comm::world();
  } catch (const Error& e) {
    std::fprintf(stderr, "simulate: error: %s\n", e.what());
    return exit_bad_input;
  }
  run::set_log_rank(comm.rank());
  run::RunInput in;
  run::DirectoryLock lock;  // held until the run returns (rank 0)
  int input_code = -1;
  std::string input_error;
  try {
    if (const std::optional<int> done = run::prepare_run(opt, registry, comm, in, lock)) return *done;
  } catch (const run::AgreedFailure& e) {  // every rank: the message is printed
    return e.code;
  } catch (const io::ConfigError& e) {
    input_code = exit_bad_input, input_error = e.what();
  } catch (const Error& e) {  // io::FileError included
    input_code = exit_bad_input, input_error = std::string("simulate: error: ") + e.what();
  }
  if (const int code = agree_on_input(comm, input_code, input_error); code >= 0) return code;
  // from here on (files may be written) SIGINT/SIGTERM stop the run after its current step,
  // with a checkpoint; before, nothing is written and they end the process as usual
  run::install_stop_handlers();

  // ---- 2. the run
  try {
    return run_checked(in, opt, comm);
  } catch (const run::AgreedFailure& e) {  // every rank: the message is printed
    return e.code;
  } catch (const run::ResumeError& e) {  // every rank finds the same
    if (comm.rank() == 0) std::fprintf(stderr, "%s\n", e.what());
    return exit_bad_input;
  } catch (const std::exception& e) {
    if (!comm.parallel()) {
      std::fprintf(stderr, "\nsimulate: error: %s\n", e.what());
      return exit_failure;
    }
    // one rank's error would leave the others waiting in a collective: end them all
    std::fprintf(stderr, "\nsimulate: error: [rank %d] %s\n", comm.rank(), e.what());
    comm.abort(exit_failure);
  }
}

}  // namespace sim
