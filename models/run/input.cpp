#include "models/run/input.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/runtime/error.hpp"
#include "core/runtime/tuning.hpp"
#include "io/hdf5_file.hpp"
#include "models/plugin.hpp"
#include "models/run/clock.hpp"
#include "models/run/finite_guard.hpp"
#include "models/run/framework_schema.hpp"
#include "models/run/log.hpp"
#include "models/run/run_identity.hpp"

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
  // the longest name written from it: PREFIX_<9+ digits>.h5.tmp (or PREFIX.xdmf.tmp)
  constexpr std::size_t longest_suffix = 28, name_max = 255;
  if (prefix.size() + longest_suffix > name_max) {
    throw config.error_at(section, "prefix", "is " + std::to_string(prefix.size()) + " bytes long ('" +
                                                 prefix.substr(0, 24) + "...'); file names are at most 255 bytes, so "
                                                 "expected a prefix of at most " + std::to_string(name_max - longest_suffix) +
                                                 " bytes: shorten " + section + ".prefix");
  }
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

/// --stats PATH is written at the end of the run: its folder must exist and be writable now,
/// and PATH must not be a directory. Throws Error.
void check_stats_path(const std::string& path) {
  if (path.empty()) return;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error("--stats " + path + ": is a directory; give a file name such as stats.json");
  const fs::path parent = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  if (!fs::is_directory(parent, ec))
    throw Error("--stats " + path + ": the folder " + parent.string() + " does not exist; create it or give another path");
  if (::access(parent.c_str(), W_OK) != 0)
    throw Error("--stats " + path + ": the folder " + parent.string() + " is not writable (" + std::strerror(errno) +
                "); give another path");
}

/// Reads the config and the plugins it (or the command line) names, and validates it
/// against the framework's schemas and its model's.
void load_config(const RunOptions& opt, ModelRegistry& registry, RunInput& in) {
  check_config_file(opt.config_path);
  check_stats_path(opt.stats_path);
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
  check_model_name(in.config, registry.names());
  in.info = registry.find(*in.config.raw_string("run", "model"));
  in.schemas = schemas_of(*in.info);
  in.config.validate(in.schemas);
  check_framework_rules(in.config);
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
  plan.diagnostics_every_time = config.real("output", "diagnostics_every_time");
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

/// The key that sizes the run's memory: grid.cells, unless an integer [model] parameter is
/// larger than the grid's cell count (a model that sizes its arrays itself, as mcpi's
/// model.batch). {section, key}.
std::pair<std::string, std::string> size_key(const RunInput& in) {
  std::pair<std::string, std::string> best{"model", ""};
  std::int64_t largest = in.plan.grid.rank > 0 ? std::int64_t(in.plan.grid.size()) : -1;
  for (const io::Schema& s : in.schemas)
    if (s.section == "model")
      for (const io::Param& p : s.params)
        if (p.type == io::ParamType::integer && in.config.integer("model", p.name) > largest)
          largest = in.config.integer("model", p.name), best.second = p.name;
  if (best.second.empty()) return {"grid", "cells"};
  return best;
}

/// Bytes of host memory available to this process: MemAvailable, or less under a cgroup limit.
double host_memory_available() {
  double available = 0;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (meminfo >> key >> kb) {
    if (key == "MemAvailable:") available = kb * 1024;
    meminfo.ignore(256, '\n');
  }
  for (const char* limit_file : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream limit(limit_file), used(std::string(limit_file).find("memory.max") != std::string::npos
                                               ? "/sys/fs/cgroup/memory.current"
                                               : "/sys/fs/cgroup/memory/memory.usage_in_bytes");
    double l = 0, u = 0;
    if (limit >> l && used >> u && l > u && l < 1e18 && (available == 0 || l - u < available)) available = l - u;
  }
  return available;
}

/// The plan must fit the machine before anything is written: on the cpu backend the model's
/// arrays (allocated but not yet touched: the kernel would kill the run when they are) and
/// the host buffers of snapshots and checkpoints, against the host's available memory; on a
/// GPU the device arrays are allocated already (a failure there is OutOfMemory), and the host
/// buffers are checked. Throws ConfigError at the key that sizes the run.
void check_memory(const RunInput& in) {
  double buffers = 0;
  for (FieldRef& f : in.model->fields()) {
    const double bytes = double(f.local_size()) * (f.is_double ? 8 : 4);
    const auto& want = in.plan.output_fields;
    const bool output = want.empty() ? f.snapshot : std::find(want.begin(), want.end(), f.name) != want.end();
    buffers += (output ? 2 * bytes : 0) + (f.checkpointed ? bytes : 0);  // two snapshot buffers, one checkpoint copy
  }
  const double arrays = in.ctx.backend() == Backend::cpu ? double(in.ctx.memory_stats().in_use) : 0;
  const double need = arrays + buffers, available = host_memory_available();
  if (available <= 0 || need <= available) return;
  const auto [section, key] = size_key(in);
  throw in.config.error_at(section, key,
                           "the run needs " + format_bytes(need) + " of host memory (" + format_bytes(arrays) +
                               " for the model's arrays, " + format_bytes(buffers) +
                               " for snapshot and checkpoint buffers), but this machine has " + format_bytes(available) +
                               " available; lower " + section + "." + key +
                               (in.plan.float64 ? ", use run.precision = \"float32\"" : "") + ", or run on more ranks");
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
  try {
    in.model = in.info->create(setup);
  } catch (const OutOfMemory& e) {  // name the key that sizes the allocation
    const auto [section, key] = size_key(in);
    std::string what = e.what();
    what = what.substr(0, what.find("; use "));  // the allocator's advice does not know the key
    throw config.error_at(section, key, what + "; lower " + section + "." + key +
                                            (in.plan.float64 ? " or use run.precision = \"float32\"" : ""));
  }
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
  if (!(std::isfinite(plan.dt) && plan.dt > 0)) {
    // name the values given that the step comes from (run.cfl, grid.length, [model] and
    // [boundary] reals): those that are 0 or extreme first, where the error points
    std::string given, extreme;
    std::pair<std::string, std::string> first;
    auto add = [&](const std::string& section, const std::string& key, const std::vector<double>& values) {
      if (!config.is_set(section, key)) return;
      std::string text;
      bool odd = false;
      for (double x : values) {
        text += (text.empty() ? "" : ", ") + shortest_dt(x);
        odd = odd || x == 0 || !std::isfinite(x) || std::fabs(x) > 1e100 || std::fabs(x) < 1e-100;
      }
      const std::string item = section + "." + key + " = " + (values.size() == 1 ? text : "[" + text + "]");
      (odd ? extreme : given) += std::string((odd ? extreme : given).empty() ? "" : ", ") + item;
      if (odd && first.first.empty()) first = {section, key};
    };
    add("run", "cfl", {config.real("run", "cfl")});
    add("grid", "length", config.reals("grid", "length"));
    for (const io::Schema& s : in.schemas)
      if (s.section == "model" || s.section == "boundary")
        for (const io::Param& p : s.params)
          if (p.type == io::ParamType::real) add(s.section, p.name, {config.real(s.section, p.name)});
    const std::string what =
        "the time step comes out as " + shortest_dt(plan.dt) + " from " +
        (!extreme.empty() ? extreme + " (given)"
                          : given.empty() ? std::string("the model's defaults") : "the values given: " + given) +
        "; expected values that give a finite dt > 0 (a rate such as model.alpha of 0, a run.cfl of 0, or values so "
        "large or small that dt overflows): fix " + (!extreme.empty() ? std::string("it") : std::string("the parameter")) +
        ", or set run.dt";
    if (!first.first.empty()) throw config.error_at(first.first, first.second, what);
    throw config.error_at("run", "dt", what);
  }
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
  const double every_time = config.real("output", "every_time");
  if (every_time > 0 && !plan.adaptive && every_time < plan.dt)
    throw config.error_at("output", "every_time",
                          "is " + shortest_dt(every_time) + ", shorter than one time step (dt = " + shortest_dt(plan.dt) +
                              (config.is_set("run", "dt") ? ", run.dt" : ", from the model's parameters") +
                              "): every step would cross " + shortest_dt(plan.dt / every_time) +
                              " output times; expected output.every_time >= dt: raise output.every_time" +
                              (config.is_set("run", "dt") ? " or lower run.dt" : " or check the [model] parameters"));
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

/// What --resume would continue must be there before the output directory is made or
/// locked: the named checkpoint a file, or a checkpoint in the output directory. Throws Error.
void check_resume_source(const RunInput& in, const std::string& which) {
  std::error_code ec;
  if (!which.empty()) {
    if (!fs::exists(which, ec)) throw Error("--resume " + which + ": no such file; give a checkpoint file, or --resume alone for the newest in the output directory");
    if (!fs::is_regular_file(which, ec))
      throw Error("--resume " + which + ": not a regular file (a directory?); give a checkpoint file such as " +
                  io::checkpoint_path(in.plan.out_dir, in.plan.ckpt_prefix, 0));
    return;
  }
  if (io::list_checkpoints(in.plan.out_dir, in.plan.ckpt_prefix).empty())
    throw Error("--resume: no checkpoint named " + in.plan.ckpt_prefix + "_*.h5 in " + in.plan.out_dir +
                (fs::is_directory(in.plan.out_dir, ec) ? "" : " (no such directory)") +
                "; start the run without --resume, or give the output directory of the run to continue (--output DIR)");
}

/// Input values so large that the model's arithmetic overflows (beyond the square root of the
/// largest float: a product of two overflows): a blow-up is then the input's doing, not the
/// step's. Records the cause in plan.overflow_cause. Collective.
void note_overflowing_input(RunInput& in, const Comm& comm) {
  const double limit = in.plan.float64 ? 1e150 : 1e19;
  double largest = 0;
  std::string where;
  for (FieldRef& f : in.model->fields()) {
    const double sum = f.sum();
    if (std::isfinite(sum) && std::fabs(sum) < limit) continue;
    std::vector<unsigned char> host(std::size_t(f.local_size()) * (f.is_double ? 8 : 4));
    f.to_host(host.data());
    for (std::int64_t t = 0; t < f.local_size(); ++t) {
      const double v = std::fabs(f.is_double ? reinterpret_cast<const double*>(host.data())[t]
                                             : double(reinterpret_cast<const float*>(host.data())[t]));
      if (std::isfinite(v) && v > largest) largest = v, where = "the initial field '" + f.name + "'";
    }
  }
  for (const io::Schema& s : in.schemas)
    if (s.section == "boundary" || s.section == "model")
      for (const io::Param& p : s.params)
        if (p.type == io::ParamType::real && in.config.is_set(s.section, p.name) &&
            std::fabs(in.config.real(s.section, p.name)) > largest)
          largest = std::fabs(in.config.real(s.section, p.name)), where = s.section + "." + p.name;
  if (comm.max(largest) < limit) return;
  char b[400];
  std::snprintf(b, sizeof b,
                "The input holds values as large as %g (%s): arithmetic on values beyond %g overflows %s (largest about "
                "%g), so a smaller run.dt does not help; rescale the initial and boundary values",
                comm.max(largest), where.empty() ? "on another rank" : where.c_str(), limit,
                in.plan.float64 ? "float64" : "float32", in.plan.float64 ? 1.79e308 : 3.4e38);
  in.plan.overflow_cause = b;
}

/// The output directory must be usable before the first step: created, locked (rank 0, before
/// any other file in it is touched, so that a second run is told whose it is), and writable.
/// A fresh run gets its identity here (rank 0): an earlier run's files are moved aside.
void prepare_output_directory(RunInput& in, const RunOptions& opt, const Comm& comm, DirectoryLock& lock) {
  const std::string& dir = in.plan.out_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  auto unwritable = [&] {
    return in.config.error_at("output", "directory", "cannot create or write the output directory '" + dir +
                                                         "'; choose a writable path with output.directory or --output");
  };
  if (ec || !fs::is_directory(dir)) throw unwritable();
  if (comm.rank() == 0) lock.acquire(in.config, dir);
  const std::string probe = dir + "/.simulate-write-test-" + std::to_string(::getpid()) + "-" + std::to_string(comm.rank());
  std::ofstream(probe).put('x');
  if (!fs::exists(probe)) throw unwritable();
  fs::remove(probe);
  if (comm.rank() != 0 || opt.resume) return;
  const std::string aside = move_earlier_run_aside(in.plan);
  if (!aside.empty())
    log("note: %s held the files of an earlier run (its checkpoints, snapshots, diagnostics); moved them to %s. "
        "To continue that run instead, move them back and use --resume",
        dir.c_str(), aside.c_str());
  in.plan.run_id = new_run_id();
  write_run_id(dir, in.plan.run_id);
}

}  // namespace

void agreed_step(const Comm& comm, const std::function<void()>& step) {
  int code = -1;
  std::string message;
  try {
    step();
  } catch (const AgreedFailure&) {
    throw;
  } catch (const io::ConfigError& e) {
    code = exit_bad_input, message = e.what();
  } catch (const std::bad_alloc&) {
    code = exit_bad_input;
    message = "simulate: error: out of memory while setting up the run" +
              (comm.parallel() ? " on rank " + std::to_string(comm.rank()) : std::string()) +
              "; lower grid.cells (or the model's sizes), or run on more ranks or a larger machine";
  } catch (const Error& e) {  // io::FileError included
    code = exit_bad_input, message = std::string("simulate: error: ") + e.what();
  } catch (const std::exception& e) {
    code = exit_failure, message = std::string("simulate: error: ") + e.what();
  }
  const std::int64_t worst = comm.max(std::int64_t(code));
  if (worst < 0) return;
  const int first = comm.size() - int(comm.max(std::int64_t(code >= 0 ? comm.size() - comm.rank() : 0)));
  if (comm.rank() == first) {
    if (first != 0) std::fprintf(stderr, "[rank %d] ", first);
    std::fprintf(stderr, "%s\n", message.c_str());
  }
  throw AgreedFailure(int(worst));
}

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
  for (const std::string& knob : tuning::set_knobs()) std::printf("tuning     %s (docs/tuning.md)\n", knob.c_str());
}

void print_tuning_knobs() {
  std::printf("\n# Tuning knobs: SIMKIT_* environment variables, read once at start (docs/tuning.md).\n"
              "# They change how the run computes, not what; unset, each takes its default.\n");
  for (const tuning::Knob& k : tuning::knobs()) {
    const std::string value = tuning::setting(k.name);
    std::printf("# %s = %s\n#   %s; accepts %s; default %s\n", k.name, value.empty() ? "(unset)" : value.c_str(), k.what,
                k.accepts, k.fallback);
  }
}

std::optional<int> prepare_run(const RunOptions& opt, ModelRegistry& registry, const Comm& comm, RunInput& in,
                               DirectoryLock& lock) {
  agreed_step(comm, [&] {
    tuning::load_environment();  // a bad knob is bad input, before anything runs
    load_config(opt, registry, in);
  });
  if (opt.print_config) {
    // the boundary faces of the grid's dimensions only (no z_lo / z_hi for a 2D grid)
    const int rank = int(in.config.integers("grid", "cells").size());
    if (comm.rank() == 0) {
      std::fputs(in.config.to_toml(schemas_of(*in.info, rank), true).c_str(), stdout);
      print_tuning_knobs();
    }
    return 0;
  }
  agreed_step(comm, [&] { resolve_plan(in, comm); });
  agreed_step(comm, [&] { create_model(in, opt, comm); });
  agreed_step(comm, [&] { check_memory(in); });
  agreed_step(comm, [&] { resolve_time(in); });
  if (opt.dry_run) {
    if (comm.rank() == 0) print_dry_run(in, comm);
    return 0;
  }
  // the initial state is input too (an init file, its values): set it before anything is written
  if (!opt.resume) {
    agreed_step(comm, [&] { in.model->initialize(); });
    agreed_step(comm, [&] { check_initial_state(in.config, in.model->fields(), in.plan.grid, comm); });
    note_overflowing_input(in, comm);
  }
  agreed_step(comm, [&] {
    if (opt.resume) check_resume_source(in, *opt.resume);
  });
  agreed_step(comm, [&] { prepare_output_directory(in, opt, comm, lock); });
  return std::nullopt;
}

}  // namespace sim::run
