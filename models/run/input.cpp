#include "models/run/input.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/runtime/error.hpp"
#include "io/hdf5_file.hpp"
#include "models/plugin.hpp"
#include "models/run/clock.hpp"
#include "models/run/finite_guard.hpp"
#include "models/run/log.hpp"

namespace fs = std::filesystem;

namespace sim::run {

Decomposition decompose(const io::Config& config, const GridSpec& grid, int ranks) {
  const std::vector<std::int64_t>& want = config.integers("grid", "decomposition");
  const index_t min_cells = grid.ghost;  // a box feeds its neighbours `ghost` layers
  if (want.empty()) {
    try {
      return Decomposition::automatic(grid.rank, grid.cells, ranks, min_cells);
    } catch (const Error& e) {
      throw config.error_at("grid", "cells", e.what());
    }
  }
  if (int(want.size()) != grid.rank)
    throw config.error_at("grid", "decomposition", "expected " + std::to_string(grid.rank) +
                                                       " rank counts (one per grid dimension), found " +
                                                       std::to_string(want.size()));
  std::int64_t product = 1;
  int procs[3] = {1, 1, 1};
  for (int d = 0; d < grid.rank; ++d) product *= want[d], procs[d] = int(want[d]);
  if (product != ranks)
    throw config.error_at("grid", "decomposition",
                          "asks for " + std::to_string(product) + " ranks but the run has " + std::to_string(ranks) +
                              "; launch with mpirun -np " + std::to_string(product) +
                              ", or remove grid.decomposition for an automatic split");
  try {
    return Decomposition(grid.rank, grid.cells, procs, min_cells);
  } catch (const Error& e) {
    throw config.error_at("grid", "decomposition", e.what());
  }
}

namespace {

/// The config file must be a file of sane size: a directory, a device (/dev/zero) or a huge
/// file is refused before it is read. Throws Error naming the path.
void check_config_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    throw Error(path + ": cannot read the config file (" + std::strerror(errno) + "); check the path");
  if (S_ISDIR(st.st_mode))
    throw Error(path + ": is a directory, not a config file; give the path of a .toml file (e.g. configs/heat2d.toml)");
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    throw Error(path + ": is not a regular file (a device?); give the path of a .toml file");
  constexpr off_t limit = 16 << 20;
  if (S_ISREG(st.st_mode) && st.st_size > limit)
    throw Error(path + ": is " + std::to_string((long long)st.st_size) +
                " bytes; a config is TOML text of at most 16 MiB: is this the right file?");
}

/// output.prefix and checkpoint.prefix name files inside output.directory: a plain name.
void check_prefix(const io::Config& config, const char* section, const std::string& prefix) {
  std::string why;
  if (prefix.empty()) why = "is empty";
  else if (prefix.find('/') != std::string::npos) why = "contains '/'";
  else if (prefix[0] == '.') why = "starts with '.'";
  else if (std::any_of(prefix.begin(), prefix.end(), [](char c) { return (unsigned char)c < 0x20 || c == 0x7f; }))
    why = "contains a control character";
  if (!why.empty())
    throw config.error_at(section, "prefix", "'" + prefix + "' " + why +
                                                 "; expected a plain file name prefix (files are written inside "
                                                 "output.directory), e.g. \"" + section + "\"; choose the folder with output.directory");
}

/// Cells of the grid with ghosts, or ConfigError at grid.cells when their count (times 8 bytes
/// times a few fields) cannot even be addressed: the overflow must not slip past the memory check.
void check_grid_size(const io::Config& config, const GridSpec& g) {
  std::int64_t total = 1;
  for (int d = 0; d < g.rank; ++d) {
    std::int64_t with_ghosts = 0;
    if (__builtin_add_overflow(g.cells[d], 2 * std::int64_t(g.ghost), &with_ghosts) ||
        __builtin_mul_overflow(total, with_ghosts, &total) || total > (std::int64_t(1) << 50))
      throw config.error_at("grid", "cells", "the grid has more cells than any machine can hold (over 2^50 with "
                                             "ghosts); expected at most about 10^12 cells in all: lower grid.cells");
  }
}

std::string shortest_dt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

/// Reads the config and the plugins it (or the command line) names, and validates it
/// against the framework's schemas and its model's.
void load_config(const RunOptions& opt, ModelRegistry& registry, RunInput& in) {
  check_config_file(opt.config_path);
  in.config = io::Config::load(opt.config_path, opt.overrides);
  // plugins first: they may define the model the config names. Paths in the config are
  // relative to the config file; --plugin paths to the working directory. The command line
  // wins over the file: --plugin replaces the config's [run] plugins.
  const fs::path config_dir = fs::path(opt.config_path).parent_path();
  for (const std::string& p : opt.plugins.empty() ? in.config.raw_strings("run", "plugins") : std::vector<std::string>{}) {
    const fs::path path = fs::path(p).is_absolute() ? fs::path(p) : config_dir / p;
    try {
      load_plugin(path.string(), registry);
    } catch (const Error& e) {
      throw in.config.error_at("run", "plugins", e.what());
    }
  }
  for (const std::string& p : opt.plugins) load_plugin(p, registry);
  io::check_model_name(in.config, registry.names());
  in.info = registry.find(*in.config.raw_string("run", "model"));
  in.schemas = schemas_of(*in.info);
  in.config.validate(in.schemas);
  io::check_framework_rules(in.config);
}

/// The grid, its split over the ranks, and the output and checkpoint settings.
void resolve_plan(RunInput& in, const Comm& comm) {
  const io::Config& config = in.config;
  Plan& plan = in.plan;
  plan.grid = grid_from_config(config);
  check_grid_size(config, plan.grid);
  const ModelInfo& info = *in.info;
  if (std::find(info.ranks.begin(), info.ranks.end(), plan.grid.rank) == info.ranks.end())
    throw config.error_at("grid", "cells", "model '" + info.name + "' does not run on " +
                                               std::to_string(plan.grid.rank) + "D grids");
  if (comm.parallel()) {
    if (info.parallel == Parallel::none)
      throw config.error_at("run", "model", "model '" + info.name + "' does not run on several ranks yet (this run has " +
                                                std::to_string(comm.size()) +
                                                "); run it with one process (without mpirun), or make the model run decomposed: "
                                                "set parallel = sim::Parallel::grid in its ModelInfo and build on this rank's "
                                                "box (docs/writing-a-model.md, section 7)");
    if (info.parallel == Parallel::grid) in.decomposition = decompose(config, plan.grid, comm.size());
    else if (config.is_set("grid", "decomposition"))
      log("note: model '%s' splits its own work over the ranks; grid.decomposition does not apply", info.name.c_str());
  } else if (config.is_set("grid", "decomposition")) {
    log("note: grid.decomposition is for runs under mpirun; this run has one process and holds the whole grid");
  }
  plan.float64 = config.string("run", "precision") == "float64";
  plan.time_unit = in.info->time_unit;
  plan.out_dir = config.string("output", "directory");
  plan.snap_prefix = config.string("output", "prefix");
  plan.ckpt_prefix = config.string("checkpoint", "prefix");
  plan.output_every = config.integer("output", "every");
  plan.output_every_time = config.real("output", "every_time");
  plan.diagnostics_every = config.integer("output", "diagnostics_every");
  plan.gzip = int(config.integer("output", "compression"));
  plan.output_fields = config.strings("output", "fields");
  plan.checkpoint_every = config.integer("checkpoint", "every");
  plan.checkpoint_minutes = config.real("checkpoint", "every_minutes");
  plan.keep = config.integer("checkpoint", "keep");
  check_prefix(config, "output", plan.snap_prefix);
  check_prefix(config, "checkpoint", plan.ckpt_prefix);
  if (plan.snap_prefix == plan.ckpt_prefix)
    throw config.error_at("checkpoint", "prefix", "is '" + plan.ckpt_prefix +
                                                      "', the same as output.prefix: snapshots would be taken for "
                                                      "checkpoints (and pruned); give them different prefixes");
}

/// The context (backend, device, seed) and the model on it; output.fields must name its fields.
void create_model(RunInput& in, const RunOptions& opt, const Comm& comm) {
  const io::Config& config = in.config;
  ContextOptions copts;
  copts.seed = std::uint64_t(config.integer("run", "seed"));
  copts.verbose = !opt.quiet && comm.rank() == 0;
  if (const int gpus = cuda_device_count(); gpus > 0) copts.device = comm.local_rank() % gpus;  // one GPU per rank
  try {
    in.ctx = Context::create(parse_backend(config.string("run", "backend")), copts);
  } catch (const BackendError& e) {
    throw config.error_at("run", "backend", e.what());
  }
  ModelSetup setup{in.ctx, &in.config, in.plan.grid, in.plan.float64, comm, in.decomposition};
  in.model = in.info->create(setup);
  std::vector<std::string> names;
  for (auto& f : in.model->fields()) names.push_back(f.name);
  for (const std::string& want : in.plan.output_fields)
    if (std::find(names.begin(), names.end(), want) == names.end()) {
      std::string list;
      for (auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw config.error_at("output", "fields", "model '" + in.info->name + "' has no field '" + want +
                                                    "' (its fields: " + list + ")");
    }
}

/// dt (given and checked, or the model's), and the number of steps (given, or to reach run.end_time).
void resolve_time(RunInput& in) {
  const io::Config& config = in.config;
  Plan& plan = in.plan;
  if (config.is_set("run", "dt")) {
    plan.dt = config.real("run", "dt");
    try {
      in.model->check_dt(plan.dt);
    } catch (const Error& e) {
      throw config.error_at("run", "dt", e.what());
    }
  } else {
    plan.dt = in.model->default_dt(config.real("run", "cfl"));
  }
  if (!(std::isfinite(plan.dt) && plan.dt > 0))
    throw config.error_at("run", "dt",
                          "the time step comes out as " + shortest_dt(plan.dt) +
                              ": the model's parameters give no stable finite step (is a rate such as "
                              "model.alpha zero?); expected a finite dt > 0: fix the parameter, or set run.dt");
  if (config.is_set("run", "end_time")) {
    plan.end_time = config.real("run", "end_time");
    const double steps = steps_to_reach(plan.end_time, plan.dt);
    if (!(steps <= 1e15))  // also NaN; a run of 10^15 steps would take years
      throw config.error_at("run", "end_time", "needs " + shortest_dt(steps) + " steps of dt = " + shortest_dt(plan.dt) +
                                                   "; expected at most 10^15 steps: lower run.end_time or raise run.dt");
    plan.total_steps = std::max<std::int64_t>(1, std::int64_t(steps));
  } else {
    plan.total_steps = config.integer("run", "steps");
  }
  plan.adaptive = in.model->adaptive_dt() && !config.is_set("run", "dt");
  plan.cfl = config.real("run", "cfl");
}

/// The initial state must be finite: a NaN from an init file or from parameters is bad input
/// (exit 2, nothing written), not a run that "blew up at step 0". Collective.
void check_initial_state(const io::Config& config, std::vector<FieldRef> fields, const GridSpec& g, const Comm& comm) {
  for (FieldRef& f : fields) {
    std::string found = find_non_finite(f, 0, g);
    if (comm.max(std::int64_t(!found.empty())) == 0) continue;
    const std::string::size_type at = found.find(" field '");
    const std::string::size_type end = found.find("; the last good");
    found = found.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
    const bool from_file = config.is_set("model", "init_file") && config.string("model", "init") == "file";
    throw config.error_at("model", from_file ? "init_file" : "init",
                          "the initial state is not finite: " + found +
                              (from_file ? "; expected finite values in the init file: fix the file"
                                         : "; expected finite initial values: check the [model] parameters"));
  }
}

/// The output directory must be usable before the first step: created, writable, and locked (rank 0).
void prepare_output_directory(const RunInput& in, const Comm& comm, DirectoryLock& lock) {
  const std::string& dir = in.plan.out_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string probe = dir + "/.simulate-write-test-" + std::to_string(comm.rank());
  std::ofstream(probe).put('x');
  if (ec || !fs::exists(probe))
    throw in.config.error_at("output", "directory", "cannot create or write the output directory '" + dir +
                                                        "'; choose a writable path with output.directory or --output");
  fs::remove(probe);
  if (comm.rank() == 0) lock.acquire(in.config, dir);
}

}  // namespace

void print_dry_run(const RunInput& in, const Comm& comm) {
  const Plan& plan = in.plan;
  std::printf("model      %s (%s, %s)\n", in.info->name.c_str(), plan.float64 ? "float64" : "float32",
              in.ctx.device_name().c_str());
  std::printf("grid       %dD, cells", plan.grid.rank);
  for (int d = 0; d < plan.grid.rank; ++d) std::printf(" %lld", (long long)plan.grid.cells[d]);
  std::printf(", %lld cells\n", (long long)plan.grid.size());
  std::printf("memory     %s on the device%s\n", format_bytes(double(in.ctx.memory_stats().in_use)).c_str(),
              comm.parallel() ? " of rank 0" : "");
  if (comm.parallel())
    std::printf("ranks      %d%s\n", comm.size(),
                in.decomposition.ranks() > 1 ? (", grid split " + in.decomposition.text()).c_str() : "");
  std::printf("time       dt = %.6g, %lld steps, end time %.6g\n", plan.dt, (long long)plan.total_steps,
              plan.end_time > 0 ? plan.end_time : plan.dt * double(plan.total_steps));
  std::printf("output     %s: snapshots every %lld steps / %.6g time units (0 = off), checkpoints every %lld "
              "steps / %.6g min (0 = off), keep %lld\n",
              plan.out_dir.c_str(), (long long)plan.output_every, plan.output_every_time,
              (long long)plan.checkpoint_every, plan.checkpoint_minutes, (long long)plan.keep);
  for (const std::string& note : in.model->plan_notes()) std::printf("model      %s\n", note.c_str());
}

std::optional<int> prepare_run(const RunOptions& opt, ModelRegistry& registry, const Comm& comm, RunInput& in,
                               DirectoryLock& lock) {
  load_config(opt, registry, in);
  if (opt.print_config) {
    // the boundary faces of the grid's dimensions only (no z_lo / z_hi for a 2D grid)
    const int rank = int(in.config.integers("grid", "cells").size());
    if (comm.rank() == 0) std::fputs(in.config.to_toml(schemas_of(*in.info, rank), true).c_str(), stdout);
    return 0;
  }
  resolve_plan(in, comm);
  create_model(in, opt, comm);
  resolve_time(in);
  if (opt.dry_run) {
    if (comm.rank() == 0) print_dry_run(in, comm);
    return 0;
  }
  // the initial state is input too (an init file, its values): set it before anything is written
  if (!opt.resume) {
    in.model->initialize();
    check_initial_state(in.config, in.model->fields(), in.plan.grid, comm);
  }
  prepare_output_directory(in, comm, lock);
  return std::nullopt;
}

}  // namespace sim::run
