// The run driver. Everything a user can get wrong is checked before the output directory is
// touched, so a bad config leaves nothing behind. Snapshots are copied to pinned host
// buffers and written by a background thread while the next steps run; checkpoints are
// written synchronously and atomically. Launched by mpirun, every rank runs this driver:
// rank 0 alone prints, writes diagnostics and XDMF, and deletes files; snapshots and
// checkpoints are written by all ranks together (one file, collective): snapshots on the
// writer threads through their own communicator when MPI grants MPI_THREAD_MULTIPLE (else
// synchronously), checkpoints synchronously.
#include "models/runner.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <functional>
#include <map>
#include <thread>
#include <utility>

#include "core/comm.hpp"
#include "core/copy_rate.hpp"
#include "core/decomposition.hpp"
#include "core/error.hpp"
#include "core/host_buffer.hpp"
#include "io/config.hpp"
#include "io/hdf5_file.hpp"
#include "io/xdmf.hpp"
#include "models/plugin.hpp"

#ifndef SIMKIT_VERSION_STRING
#define SIMKIT_VERSION_STRING "unknown"
#endif
#ifndef SIMKIT_GIT_COMMIT
#define SIMKIT_GIT_COMMIT "unknown"
#endif

namespace fs = std::filesystem;

namespace sim {

namespace {

int log_rank = 0;  // this process's rank: only rank 0 logs
std::atomic<int> stop_signal{0};  // set by SIGINT/SIGTERM; the loop stops after the current step
// the first stop signal counts: a second one (mpirun's SIGTERM after a Ctrl-C, say) does not relabel it
extern "C" void on_stop_signal(int sig) {
  int none = 0;
  stop_signal.compare_exchange_strong(none, sig);
}

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void log(const char* fmt, ...) {
  if (log_rank != 0) return;
  va_list ap;
  va_start(ap, fmt);
  std::fputs("simulate: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

std::string human_time(double s) {
  char b[32];
  if (s < 120) std::snprintf(b, sizeof b, "%.1fs", s);
  else if (s < 7200) std::snprintf(b, sizeof b, "%dm%02ds", int(s) / 60, int(s) % 60);
  else std::snprintf(b, sizeof b, "%dh%02dm", int(s) / 3600, int(s) % 3600 / 60);
  return b;
}

std::string si(double v) {
  char b[32];
  const char* unit[] = {"", "k", "M", "G", "T"};
  int u = 0;
  while (std::fabs(v) >= 1000 && u < 4) v /= 1000, ++u;
  std::snprintf(b, sizeof b, "%.3g%s", v, unit[u]);
  return b;
}

/// One file write at a time on a background thread; errors surface at the next wait().
class BackgroundWriter {
 public:
  ~BackgroundWriter() {
    if (worker_.joinable()) worker_.join();
  }
  /// Waits for the write in flight; rethrows its error.
  void wait() {
    if (worker_.joinable()) worker_.join();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }
  /// Waits for the previous write, then starts job.
  void submit(std::function<void()> job) {
    wait();
    worker_ = std::thread([this, job = std::move(job)] {
      auto t0 = Clock::now();
      try {
        job();
      } catch (...) {
        error_ = std::current_exception();
      }
      busy_ += seconds_since(t0);
    });
  }
  double busy_seconds() const { return busy_; }

 private:
  std::thread worker_;
  std::exception_ptr error_;
  double busy_ = 0;  // written by the worker, read after wait()
};

/// Live progress on a terminal, a plain line every few seconds otherwise.
class Progress {
 public:
  Progress(bool quiet, std::int64_t total, double cells) : quiet_(quiet), tty_(isatty(2)), total_(total), cells_(cells) {}
  void update(std::int64_t step, std::int64_t first, double time, bool force = false) {
    if (quiet_) return;
    const double since = seconds_since(last_);
    if (!force && since < (tty_ ? 0.2 : 5.0)) return;
    last_ = Clock::now();
    const double elapsed = seconds_since(start_), done = double(step - first);
    const double rate = elapsed > 0 ? done / elapsed : 0;
    const double eta = rate > 0 ? double(total_ - step) / rate : 0;
    const double frac = total_ > 0 ? double(step) / double(total_) : 1;
    if (tty_) {
      char bar[31];
      int fill = int(frac * 30);
      for (int i = 0; i < 30; ++i) bar[i] = i < fill ? '#' : '.';
      bar[30] = 0;
      std::fprintf(stderr, "\r[%s] %3.0f%% step %lld/%lld t=%.5g ETA %s %s steps/s %scell/s   ", bar, frac * 100,
                   (long long)step, (long long)total_, time, human_time(eta).c_str(), si(rate).c_str(),
                   si(rate * cells_).c_str());
    } else {
      std::fprintf(stderr, "simulate: step %lld/%lld (%.0f%%) t=%.6g, %s steps/s, %scell/s, ETA %s\n",
                   (long long)step, (long long)total_, frac * 100, time, si(rate).c_str(), si(rate * cells_).c_str(),
                   human_time(eta).c_str());
    }
  }
  void finish() {
    if (!quiet_ && tty_) std::fputc('\n', stderr);
  }

 private:
  bool quiet_, tty_;
  std::int64_t total_;
  double cells_;
  Clock::time_point start_ = Clock::now(), last_ = Clock::now() - std::chrono::hours(1);
};

/// The resolved settings of a run.
struct Plan {
  GridSpec grid;
  bool float64 = true;
  double dt = 0;
  std::int64_t total_steps = 0;
  double end_time = 0;  // > 0: the last step is shortened to end exactly here
  std::string out_dir, snap_prefix, ckpt_prefix;
  std::int64_t output_every = 0, checkpoint_every = 0, keep = 3;
  double output_every_time = 0, checkpoint_minutes = 0;
  int gzip = 0;
  std::vector<std::string> output_fields;
};

}  // namespace

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
  io::check_model_name(config, registry.names());
  const ModelInfo* info = registry.find(*config.raw_string("run", "model"));
  std::vector<io::Schema> schemas = io::framework_schemas();
  schemas.push_back(info->schema);
  config.validate(schemas);
  io::check_framework_rules(config);
  ModelSetup setup{ctx, &config, grid_from_config(config), config.string("run", "precision") == "float64"};
  return info->create(setup);
}

namespace {

io::GridInfo grid_info(const GridSpec& g) {
  io::GridInfo info;
  info.rank = g.rank;
  for (int d = 0; d < g.rank; ++d) {
    info.cells.push_back(g.cells[d]);
    info.origin.push_back(g.origin[d]);
    info.spacing.push_back(g.length[d] / double(g.cells[d]));
  }
  return info;
}

/// Host copies of fields: pinned buffers, one per field.
struct HostFields {
  std::vector<FieldRef> refs;
  std::vector<HostBuffer<unsigned char>> buffers;
  HostFields(const Context& ctx, std::vector<FieldRef> r) : refs(std::move(r)) {
    for (auto& f : refs) buffers.emplace_back(ctx, std::size_t(f.local_size()) * (f.is_double ? 8 : 4));
  }
  void copy_from_device() {
    for (std::size_t i = 0; i < refs.size(); ++i) refs[i].to_host(buffers[i].data());
  }
  std::vector<io::FieldView> views() const {
    std::vector<io::FieldView> v;
    for (std::size_t i = 0; i < refs.size(); ++i)
      v.push_back({refs[i].name, refs[i].unit, refs[i].is_double, refs[i].shape, buffers[i].data(), refs[i].offset,
                   refs[i].count});
    return v;
  }
};

/// Where field f holds its first non-finite value ("" when all are finite): the message to stop with.
std::string find_non_finite(FieldRef& f, std::int64_t step, const GridSpec& g) {
  if (std::isfinite(f.sum())) return "";
  const std::int64_t n = f.local_size();
  std::vector<unsigned char> host(std::size_t(n) * (f.is_double ? 8 : 4));
  f.to_host(host.data());
  const std::vector<std::int64_t>& box = f.count.empty() ? f.shape : f.count;
  for (std::int64_t t = 0; t < n; ++t) {
    const double v = f.is_double ? reinterpret_cast<const double*>(host.data())[t]
                                 : double(reinterpret_cast<const float*>(host.data())[t]);
    if (std::isfinite(v)) continue;
    std::string where = "(";
    std::int64_t rest = t, stride = n, i0 = 0;
    for (std::size_t d = 0; d < box.size(); ++d) {
      stride /= box[d];
      const std::int64_t i = rest / stride + (f.offset.empty() ? 0 : f.offset[d]);  // global index
      rest -= (rest / stride) * stride;
      if (d == 0) i0 = i;
      char b[64];
      std::snprintf(b, sizeof b, "%s%lld", d ? ", " : "", (long long)i);
      where += b;
    }
    char b[160];
    std::snprintf(b, sizeof b, ") (x = %.6g)", g.origin[0] + (double(i0) + 0.5) * g.length[0] / double(g.cells[0]));
    return "the run blew up: at step " + std::to_string(step) + " field '" + f.name + "' is " +
           (std::isnan(v) ? "NaN" : "Inf") + " at cell " + where + b +
           "; the last good checkpoint is kept. Lower run.dt or run.cfl";
  }
  return "";  // the sum overflowed although every value is finite: not a blow-up
}

/// Throws Error naming the first non-finite cell of any field. Collective on several ranks:
/// the ranks that find one print where, then every rank throws.
void guard_finite(std::vector<FieldRef>& fields, std::int64_t step, const GridSpec& g, const Comm& comm) {
  for (FieldRef& f : fields) {
    const std::string found = find_non_finite(f, step, g);
    if (comm.max(std::int64_t(!found.empty())) == 0) continue;
    if (!comm.parallel()) throw Error(found);
    if (!found.empty()) std::fprintf(stderr, "simulate: error: [rank %d] %s\n", comm.rank(), found.c_str());
    comm.barrier();
    throw Error("the run blew up in field '" + f.name + "' at step " + std::to_string(step) +
                " (the rank that found it said where)");
  }
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

/// One row of diagnostics.csv: exactly `columns` numbers, the first a step count. False when
/// the row is damaged.
bool parse_diagnostics_row(const std::string& line, std::size_t columns, std::vector<double>& out) {
  out.clear();
  std::size_t at = 0;
  while (at <= line.size()) {
    const std::size_t comma = std::min(line.find(',', at), line.size());
    const std::string cell = line.substr(at, comma - at);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(cell.c_str(), &end);
    if (cell.empty() || end != cell.c_str() + cell.size()) return false;
    out.push_back(v);
    at = comma + 1;
  }
  return out.size() == columns && std::isfinite(out[0]) && out[0] >= 0 && out[0] == std::floor(out[0]);
}

/// Config changes on resume: model, grid and precision must match; the rest is logged.
void compare_with_checkpoint(const io::Config& now, const io::Checkpoint& ck, const std::vector<io::Schema>& schemas,
                             const GridSpec& grid, bool float64, const std::string& path) {
  if (ck.info.model != now.string("run", "model"))
    throw now.error_at("run", "model", "the checkpoint " + path + " is of model '" + ck.info.model +
                                           "'; resume with the same model or start a new output directory");
  if (ck.info.precision != (float64 ? "float64" : "float32"))
    throw now.error_at("run", "precision", "the checkpoint " + path + " holds " + ck.info.precision +
                                               " fields; resume with the same precision");
  io::GridInfo g = grid_info(grid);
  bool same = g.cells == ck.grid.cells && g.rank == ck.grid.rank;
  for (std::size_t d = 0; same && d < g.spacing.size(); ++d)
    same = std::fabs(g.spacing[d] - ck.grid.spacing[d]) <= 1e-12 * std::fabs(g.spacing[d]) &&
           std::fabs(g.origin[d] - ck.grid.origin[d]) <= 1e-12 * (1 + std::fabs(g.origin[d]));
  if (!same) throw now.error_at("grid", "cells", "the grid differs from the one in checkpoint " + path + "; resume with the same [grid]");
  try {
    io::Config old = io::Config::parse(ck.info.config_toml, path + " (stored config)");
    old.validate(schemas);
    for (const io::Schema& s : schemas)
      for (const io::Param& p : s.params)
        if (!(old.value(s.section, p.name) == now.value(s.section, p.name)))
          log("note: [%s] %s differs from the checkpoint's config; using the new value", s.section.c_str(),
              p.name.c_str());
  } catch (const std::exception& e) {
    log("note: could not compare with the checkpoint's stored config (%s)", e.what());
  }
}

std::string snapshot_name(const std::string& prefix, std::int64_t step) {
  char b[32];
  std::snprintf(b, sizeof b, "_%09lld.h5", (long long)step);
  return prefix + b;
}

/// The split of the grid over `ranks` ranks: grid.decomposition when given, else the one
/// with the fewest cut faces. Throws ConfigError at the key when it cannot be.
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

/// A lock on the output directory for the life of the run: a second simulate writing into the
/// same directory would replace its snapshots and interleave its diagnostics. The lock is an
/// fcntl lock on DIR/.simulate.lock (which holds the pid of its owner, for the message): the
/// system drops it when its process ends, however it ends, so a stale file never blocks.
class DirectoryLock {
 public:
  DirectoryLock() = default;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  /// Takes the lock or throws ConfigError at output.directory naming the owner.
  void acquire(const io::Config& config, const std::string& dir) {
    const std::string path = dir + "/.simulate.lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw config.error_at("output", "directory", "cannot create the lock file " + path + " (" + std::strerror(errno) +
                                                        "); choose a writable output.directory or --output");
    struct flock fl = {};
    fl.l_type = F_WRLCK, fl.l_whence = SEEK_SET, fl.l_start = 0, fl.l_len = 0;
    if (::fcntl(fd_, F_SETLK, &fl) != 0) {
      const int e = errno;
      char buf[128] = {};
      const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
      std::string owner = n > 0 ? std::string(buf, std::size_t(n)) : "";
      while (!owner.empty() && (owner.back() == '\n' || owner.back() == ' ')) owner.pop_back();
      ::close(fd_), fd_ = -1;
      if (e != EACCES && e != EAGAIN)
        throw config.error_at("output", "directory", "cannot lock " + path + " (" + std::strerror(e) + ")");
      throw config.error_at("output", "directory",
                            "the output directory '" + dir + "' is in use by another simulate (" +
                                (owner.empty() ? std::string("its pid unknown") : owner) +
                                "); two runs in one directory would overwrite each other's files. Wait for it to end, "
                                "or give this run another output.directory (--output DIR)");
    }
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const std::string text = "pid " + std::to_string(::getpid()) + " on " + host + "\n";
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, text.data(), text.size(), 0) != ssize_t(text.size())) {
      // the lock holds without the note; only the message to a second run loses the pid
    }
  }

 private:
  int fd_ = -1;
};

std::string shortest_dt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

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

}  // namespace

int run_simulation(const RunOptions& opt, ModelRegistry registry) {
  // ---- 1. everything that can be wrong in the input, before anything is written
  io::Config config;
  std::vector<io::Schema> schemas;
  const ModelInfo* info = nullptr;
  Plan plan;
  std::unique_ptr<Model> model;
  Context ctx;
  Comm comm;
  try {
    comm = Comm::world();
  } catch (const Error& e) {
    std::fprintf(stderr, "simulate: error: %s\n", e.what());
    return exit_bad_input;
  }
  log_rank = comm.rank();
  int input_code = -1;
  std::string input_error;
  DirectoryLock lock;  // held until the run returns (rank 0)
  try {
    check_config_file(opt.config_path);
    config = io::Config::load(opt.config_path, opt.overrides);
    // plugins first: they may define the model the config names. Paths in the config are
    // relative to the config file; --plugin paths to the working directory. The command line
    // wins over the file: --plugin replaces the config's [run] plugins.
    const fs::path config_dir = fs::path(opt.config_path).parent_path();
    for (const std::string& p : opt.plugins.empty() ? config.raw_strings("run", "plugins") : std::vector<std::string>{}) {
      const fs::path path = fs::path(p).is_absolute() ? fs::path(p) : config_dir / p;
      try {
        load_plugin(path.string(), registry);
      } catch (const Error& e) {
        throw config.error_at("run", "plugins", e.what());
      }
    }
    for (const std::string& p : opt.plugins) load_plugin(p, registry);
    io::check_model_name(config, registry.names());
    info = registry.find(*config.raw_string("run", "model"));
    schemas = io::framework_schemas();
    schemas.push_back(info->schema);
    config.validate(schemas);
    io::check_framework_rules(config);
    if (opt.print_config) {
      if (comm.rank() == 0) std::fputs(config.to_toml(schemas, true).c_str(), stdout);
      return exit_ok;
    }
    plan.grid = grid_from_config(config);
    check_grid_size(config, plan.grid);
    if (std::find(info->ranks.begin(), info->ranks.end(), plan.grid.rank) == info->ranks.end())
      throw config.error_at("grid", "cells", "model '" + info->name + "' does not run on " +
                                                 std::to_string(plan.grid.rank) + "D grids");
    Decomposition decomposition;
    if (comm.parallel()) {
      if (info->parallel == Parallel::none)
        throw config.error_at("run", "model", "model '" + info->name + "' does not run on several ranks yet (this run has " +
                                                  std::to_string(comm.size()) +
                                                  "); run it with one process (without mpirun), or make the model run decomposed: "
                                                  "set parallel = sim::Parallel::grid in its ModelInfo and build on this rank's "
                                                  "box (docs/writing-a-model.md, section 7)");
      if (info->parallel == Parallel::grid) decomposition = decompose(config, plan.grid, comm.size());
      else if (config.is_set("grid", "decomposition"))
        log("note: model '%s' splits its own work over the ranks; grid.decomposition does not apply", info->name.c_str());
    } else if (config.is_set("grid", "decomposition")) {
      log("note: grid.decomposition is for runs under mpirun; this run has one process and holds the whole grid");
    }
    plan.float64 = config.string("run", "precision") == "float64";
    plan.out_dir = config.string("output", "directory");
    plan.snap_prefix = config.string("output", "prefix");
    plan.ckpt_prefix = config.string("checkpoint", "prefix");
    plan.output_every = config.integer("output", "every");
    plan.output_every_time = config.real("output", "every_time");
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

    ContextOptions copts;
    copts.seed = std::uint64_t(config.integer("run", "seed"));
    copts.verbose = !opt.quiet && comm.rank() == 0;
    if (const int gpus = cuda_device_count(); gpus > 0) copts.device = comm.local_rank() % gpus;  // one GPU per rank
    try {
      ctx = Context::create(parse_backend(config.string("run", "backend")), copts);
    } catch (const BackendError& e) {
      throw config.error_at("run", "backend", e.what());
    }
    ModelSetup setup{ctx, &config, plan.grid, plan.float64, comm, decomposition};
    model = info->create(setup);

    std::vector<std::string> names;
    for (auto& f : model->fields()) names.push_back(f.name);
    for (const std::string& want : plan.output_fields)
      if (std::find(names.begin(), names.end(), want) == names.end()) {
        std::string list;
        for (auto& n : names) list += (list.empty() ? "" : ", ") + n;
        throw config.error_at("output", "fields", "model '" + info->name + "' has no field '" + want +
                                                      "' (its fields: " + list + ")");
      }

    if (config.is_set("run", "dt")) {
      plan.dt = config.real("run", "dt");
      try {
        model->check_dt(plan.dt);
      } catch (const Error& e) {
        throw config.error_at("run", "dt", e.what());
      }
    } else {
      plan.dt = model->default_dt(config.real("run", "cfl"));
    }
    if (!(std::isfinite(plan.dt) && plan.dt > 0))
      throw config.error_at("run", "dt",
                            "the time step comes out as " + shortest_dt(plan.dt) +
                                ": the model's parameters give no stable finite step (is a rate such as "
                                "model.alpha zero?); expected a finite dt > 0: fix the parameter, or set run.dt");
    if (config.is_set("run", "end_time")) {
      plan.end_time = config.real("run", "end_time");
      const double steps = std::ceil(plan.end_time / plan.dt * (1 - 1e-12));
      if (!(steps <= 1e15))  // also NaN; a run of 10^15 steps would take years
        throw config.error_at("run", "end_time", "needs " + shortest_dt(steps) + " steps of dt = " + shortest_dt(plan.dt) +
                                                     "; expected at most 10^15 steps: lower run.end_time or raise run.dt");
      plan.total_steps = std::max<std::int64_t>(1, std::int64_t(steps));
    } else {
      plan.total_steps = config.integer("run", "steps");
    }

    if (opt.dry_run) {
      if (comm.rank() != 0) return exit_ok;
      std::printf("model      %s (%s, %s)\n", info->name.c_str(), plan.float64 ? "float64" : "float32",
                  ctx.device_name().c_str());
      std::printf("grid       %dD, cells", plan.grid.rank);
      for (int d = 0; d < plan.grid.rank; ++d) std::printf(" %lld", (long long)plan.grid.cells[d]);
      std::printf(", %lld cells\n", (long long)plan.grid.size());
      std::printf("memory     %s on the device%s\n", format_bytes(double(ctx.memory_stats().in_use)).c_str(),
                  comm.parallel() ? " of rank 0" : "");
      if (comm.parallel())
        std::printf("ranks      %d%s\n", comm.size(),
                    decomposition.ranks() > 1 ? (", grid split " + decomposition.text()).c_str() : "");
      std::printf("time       dt = %.6g, %lld steps, end time %.6g\n", plan.dt, (long long)plan.total_steps,
                  plan.end_time > 0 ? plan.end_time : plan.dt * double(plan.total_steps));
      std::printf("output     %s: snapshots every %lld steps / %.6g time units (0 = off), checkpoints every %lld "
                  "steps / %.6g min (0 = off), keep %lld\n",
                  plan.out_dir.c_str(), (long long)plan.output_every, plan.output_every_time,
                  (long long)plan.checkpoint_every, plan.checkpoint_minutes, (long long)plan.keep);
      for (const std::string& note : model->plan_notes()) std::printf("model      %s\n", note.c_str());
      return exit_ok;
    }

    // the initial state is input too (an init file, its values): set it before anything is written
    if (!opt.resume) {
      model->initialize();
      check_initial_state(config, model->fields(), plan.grid, comm);
    }

    // the output directory must be usable before the first step
    std::error_code ec;
    fs::create_directories(plan.out_dir, ec);
    const std::string probe = plan.out_dir + "/.simulate-write-test-" + std::to_string(comm.rank());
    std::ofstream(probe).put('x');
    if (ec || !fs::exists(probe))
      throw config.error_at("output", "directory", "cannot create or write the output directory '" + plan.out_dir +
                                                       "'; choose a writable path with output.directory or --output");
    fs::remove(probe);
    if (comm.rank() == 0) lock.acquire(config, plan.out_dir);
  } catch (const io::ConfigError& e) {
    input_code = exit_bad_input, input_error = e.what();
  } catch (const io::FileError& e) {
    input_code = exit_bad_input, input_error = std::string("simulate: error: ") + e.what();
  } catch (const Error& e) {
    input_code = exit_bad_input, input_error = std::string("simulate: error: ") + e.what();
  }
  if (const int code = agree_on_input(comm, input_code, input_error); code >= 0) return code;
  // from here on (files may be written) SIGINT/SIGTERM stop the run after its current step,
  // with a checkpoint; before, nothing is written and they end the process as usual
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);

  // ---- 2. the run
  try {
    std::vector<FieldRef> all_fields = model->fields();
    std::vector<FieldRef> out_fields, state_fields;
    for (auto& f : all_fields) {
      if (plan.output_fields.empty() ? f.snapshot
                                     : std::find(plan.output_fields.begin(), plan.output_fields.end(), f.name) !=
                                           plan.output_fields.end())
        out_fields.push_back(f);
      if (f.checkpointed) state_fields.push_back(f);
    }
    const io::GridInfo ginfo = grid_info(plan.grid);
    const std::string config_text = config.to_toml(schemas, false);
    // every rank writes the same file attributes (parallel HDF5 needs identical metadata): rank 0's device
    const std::string device = comm.parallel() ? comm.broadcast(ctx.device_name()) + " (rank 0 of " +
                                                     std::to_string(comm.size()) + ")"
                                               : ctx.device_name();
    io::RunInfo run_info{info->name, 0, 0.0, plan.dt, config_text, SIMKIT_VERSION_STRING, SIMKIT_GIT_COMMIT,
                         backend_name(ctx.backend()), device, plan.float64 ? "float64" : "float32"};

    std::int64_t step = 0;
    double time = 0, next_output_time = 0;
    std::vector<io::XdmfEntry> series;
    if (comm.rank() == 0) io::remove_stale_temporaries(plan.out_dir);
    comm.barrier();

    if (opt.resume) {
      std::vector<std::string> candidates =
          opt.resume->empty() ? io::list_checkpoints(plan.out_dir, plan.ckpt_prefix) : std::vector<std::string>{*opt.resume};
      if (candidates.empty()) {
        log("error: --resume: no checkpoint named %s_*.h5 in %s", plan.ckpt_prefix.c_str(), plan.out_dir.c_str());
        return exit_bad_input;
      }
      // on several ranks each reads only its box (when all state fields share one, as grid fields do)
      std::vector<std::int64_t> box_offset, box_count;
      if (!state_fields.empty() && !state_fields.front().count.empty()) {
        box_offset = state_fields.front().offset, box_count = state_fields.front().count;
        for (const FieldRef& f : state_fields)
          if (f.offset != box_offset || f.count != box_count) box_offset.clear(), box_count.clear();
      }
      std::optional<io::Checkpoint> ck;
      std::string used;
      for (const std::string& path : candidates) {
        try {
          ck = io::read_checkpoint(path, box_offset, box_count);
          for (const char* key : {"step", "rng_seed", "rng_offset"})
            if (!ck->counters.count(key)) throw io::FileError(path + ": has no counter '" + key + "'");
          if (!ck->reals.count("time")) throw io::FileError(path + ": has no real 'time'");
          used = path;
          break;
        } catch (const std::exception& e) {  // FileError, or a damaged size that cannot be allocated
          ck.reset();
          log("checkpoint %s is unusable (%s)%s", path.c_str(), e.what(),
              &path != &candidates.back() ? "; trying the one before it" : "");
        }
      }
      if (!ck) {
        log("error: --resume: no valid checkpoint to resume from");
        return exit_bad_input;
      }
      try {
        compare_with_checkpoint(config, *ck, schemas, plan.grid, plan.float64, used);
      } catch (const io::ConfigError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return exit_bad_input;
      }
      for (FieldRef& f : state_fields) {
        auto it = std::find_if(ck->fields.begin(), ck->fields.end(), [&](const io::FieldData& d) { return d.name == f.name; });
        if (it == ck->fields.end() || it->is_double != f.is_double || it->shape != f.shape) {
          log("error: checkpoint %s has no matching field '%s'", used.c_str(), f.name.c_str());
          return exit_bad_input;
        }
        if (f.count.empty() || !box_count.empty()) {  // the whole field, or this rank's box as read
          f.from_host(it->bytes.data());
        } else {  // this rank's box of the global field (the checkpoint may come from any rank count)
          std::vector<unsigned char> box(std::size_t(f.local_size()) * (f.is_double ? 8 : 4));
          std::vector<index_t> shape(f.shape.begin(), f.shape.end()), offset(f.offset.begin(), f.offset.end()),
              count(f.count.begin(), f.count.end());
          copy_box(it->bytes.data(), int(shape.size()), shape.data(), offset.data(), count.data(),
                   f.is_double ? 8 : 4, box.data());
          f.from_host(box.data());
        }
      }
      step = std::int64_t(ck->counters.at("step"));
      time = ck->reals.at("time");
      next_output_time = ck->reals.count("next_output_time") ? ck->reals.at("next_output_time") : 0;
      ctx.set_rng_state(ck->counters.at("rng_seed"), ck->counters.at("rng_offset"));
      model->load_state(ck->counters, ck->reals);
      // the snapshots up to this step stay in the series; later ones are rewritten (rank 0 keeps the series)
      for (const auto& entry : fs::directory_iterator(plan.out_dir)) {
        if (comm.rank() != 0) break;
        const std::string name = entry.path().filename().string();
        if (name.rfind(plan.snap_prefix + "_", 0) != 0 || entry.path().extension() != ".h5") continue;
        try {
          io::FileSummary s = io::read_summary(entry.path().string());
          if (s.kind != "snapshot") continue;
          if (s.info.step > step) {
            fs::remove(entry.path());
            continue;
          }
          io::XdmfEntry e{name, s.info.time, s.info.step, {}};
          for (const io::FieldData& f : s.fields) e.fields.push_back({f.name, f.unit, f.is_double, f.shape, nullptr});
          series.push_back(e);
        } catch (const io::FileError&) {
        }
      }
      std::sort(series.begin(), series.end(), [](auto& a, auto& b) { return a.step < b.step; });
      comm.barrier();
      log("resumed from %s at step %lld, t = %.6g", used.c_str(), (long long)step, time);
    }  // else the model was initialised with the input checks
    if (step >= plan.total_steps && !opt.resume) log("note: the run has 0 steps; writing the initial state only");


    // the writer thread reads the host buffers: they are declared first, so that on every way
    // out (an error included) the writer is joined before they are freed
    HostFields host[2] = {HostFields(ctx, out_fields), HostFields(ctx, out_fields)};
    BackgroundWriter writer;
    int which = 0;
    double output_blocked = 0;
    std::int64_t snapshots = 0, checkpoints = 0;
    const bool outputs_on = plan.output_every > 0 || plan.output_every_time > 0;

    // diagnostics.csv and diagnostics.h5: one row per output (step, time, then the model's diagnostics)
    const std::string diag_path = plan.out_dir + "/diagnostics.csv";
    std::vector<std::string> diag_names = {"step", "time"}, diag_units = {"", "s"};
    for (const Diagnostic& d : model->diagnostics()) diag_names.push_back(d.name), diag_units.push_back(d.unit);
    std::vector<std::vector<double>> diag_cols(diag_names.size());
    if (comm.rank() != 0) {
      // rank 0 alone writes diagnostics.csv / .h5
    } else if (!opt.resume || !std::ifstream(diag_path).good()) {  // (a resumed run may start in a new directory)
      std::ofstream header(diag_path, std::ios::trunc);
      for (std::size_t c = 0; c < diag_names.size(); ++c)
        header << (c ? "," : "") << diag_names[c] << (diag_units[c].empty() ? "" : " [" + diag_units[c] + "]");
      header << "\n";
      header.flush();
      if (!header) throw Error(diag_path + ": cannot write (" + std::strerror(errno) + "); is the disk full?");
    } else {
      // keep the rows up to the resumed step; a damaged or cut row (a crash mid-write, a
      // full disk) is dropped with a note, and so is every row after it
      std::ifstream in(diag_path);
      std::string line, kept;
      std::int64_t line_no = 0;
      for (bool first_line = true; std::getline(in, line); first_line = false) {
        ++line_no;
        const bool ended = !in.eof();  // a last line without its newline was cut short
        if (first_line) {
          kept += line + "\n";
          continue;
        }
        std::vector<double> cells;
        if (!parse_diagnostics_row(line, diag_cols.size(), cells) || !ended) {
          log("note: %s line %lld is damaged or cut short (%s); it and the rows after it are dropped", diag_path.c_str(),
              (long long)line_no, ended ? "not the row of numbers expected" : "no end of line");
          break;
        }
        if (cells[0] > double(step)) continue;
        kept += line + "\n";
        for (std::size_t c = 0; c < diag_cols.size(); ++c) diag_cols[c].push_back(cells[c]);
      }
      std::ofstream(diag_path, std::ios::trunc) << kept;
    }
    auto write_diagnostics = [&] {
      std::vector<double> row = {double(step), time};
      for (const Diagnostic& d : model->diagnostics()) row.push_back(d.value);  // collective: every rank
      if (comm.rank() != 0) return;
      std::ofstream out(diag_path, std::ios::app);
      char b[64];
      for (std::size_t c = 0; c < row.size() && c < diag_cols.size(); ++c) {
        std::snprintf(b, sizeof b, c == 0 ? "%.0f" : ",%.17g", row[c]);
        out << b;
        diag_cols[c].push_back(row[c]);
      }
      out << "\n";
      out.flush();
      if (!out) throw Error(diag_path + ": cannot append a row (" + std::strerror(errno) + "); is the disk full?");
      io::RunInfo ri = run_info;
      ri.step = step, ri.time = time;
      io::write_timeseries(plan.out_dir + "/diagnostics.h5", ri, diag_names, diag_units, diag_cols);
    };

    auto write_snapshot = [&] {
      auto t0 = Clock::now();
      model->prepare_output();
      guard_finite(all_fields, step, plan.grid, comm);
      write_diagnostics();
      if (out_fields.empty()) {  // a model without fields (Monte Carlo): the diagnostics are the output
        ++snapshots;
        output_blocked += seconds_since(t0);
        return;
      }
      HostFields& h = host[which];
      which ^= 1;
      h.copy_from_device();  // the write of the previous snapshot may still be running
      io::RunInfo ri = run_info;
      ri.step = step, ri.time = time, ri.dt = plan.dt;
      const std::string file = snapshot_name(plan.snap_prefix, step);
      series.push_back({file, time, step, h.views()});
      if (comm.parallel() && !comm.background_io()) {  // MPI without threads: every rank writes its boxes now
        io::write_snapshot(plan.out_dir + "/" + file, ri, ginfo, h.views(), plan.gzip, comm);
        if (comm.rank() == 0) io::write_xdmf(plan.out_dir + "/" + plan.snap_prefix + ".xdmf", ginfo, series);
        ++snapshots;
        output_blocked += seconds_since(t0);
        return;
      }
      // on the writer thread; on several ranks a collective write into one file, on the
      // background-I/O communicator, and rank 0 writes the XDMF
      auto entries = series;
      writer.submit([&h, ri, ginfo, file, entries, dir = plan.out_dir, prefix = plan.snap_prefix, gz = plan.gzip,
                     io_comm = comm.for_background_io()] {
        io::write_snapshot(dir + "/" + file, ri, ginfo, h.views(), gz, io_comm);
        if (io_comm.rank() == 0) io::write_xdmf(dir + "/" + prefix + ".xdmf", ginfo, entries);
      });
      ++snapshots;
      output_blocked += seconds_since(t0);
    };
    auto write_checkpoint = [&] {
      auto t0 = Clock::now();
      // the snapshot still being written must be on disk (or its failure reported) before a
      // checkpoint past it exists: a resume starts after the checkpoint and would never write
      // that snapshot again. (On several ranks, it would also hold one rank's HDF5 lock while
      // its partner waits in this collective write for the other's.)
      writer.wait();
      guard_finite(state_fields, step, plan.grid, comm);
      HostFields h(ctx, state_fields);
      h.copy_from_device();
      io::RunInfo ri = run_info;
      ri.step = step, ri.time = time, ri.dt = plan.dt;
      std::map<std::string, std::uint64_t> counters = {
          {"step", std::uint64_t(step)}, {"rng_seed", ctx.rng_seed()}, {"rng_offset", ctx.rng_offset()}};
      std::map<std::string, double> reals = {{"time", time}, {"dt", plan.dt}, {"next_output_time", next_output_time}};
      model->save_state(counters, reals);
      io::write_checkpoint(io::checkpoint_path(plan.out_dir, plan.ckpt_prefix, step), ri, ginfo, h.views(), counters,
                           reals, {}, comm);
      if (comm.rank() == 0) io::prune_checkpoints(plan.out_dir, plan.ckpt_prefix, int(plan.keep));
      ++checkpoints;
      output_blocked += seconds_since(t0);
    };
    auto output_due = [&] {
      if (plan.output_every > 0 && step % plan.output_every == 0) return true;
      if (plan.output_every_time > 0 && time >= next_output_time * (1 - 1e-12)) return true;
      return false;
    };
    auto advance_output_time = [&] {
      if (plan.output_every_time > 0)
        while (next_output_time <= time * (1 + 1e-12)) next_output_time += plan.output_every_time;
    };

    if (!opt.resume && outputs_on) {
      write_snapshot();
      advance_output_time();
    }
    const std::int64_t first = step;
    Progress progress(opt.quiet || comm.rank() != 0, plan.total_steps, model->cell_updates_per_step());
    auto start = Clock::now(), last_checkpoint = Clock::now();
    bool last_was_output = true;
    const bool adaptive = model->adaptive_dt() && !config.is_set("run", "dt");
    const double cfl = config.real("run", "cfl");
    auto more_steps = [&] {
      if (adaptive && plan.end_time > 0) return time < plan.end_time * (1 - 1e-12);
      return step < plan.total_steps;
    };
    while (more_steps()) {
      double dt = plan.dt;
      bool last = plan.end_time > 0 && step + 1 == plan.total_steps;
      if (adaptive) {
        dt = plan.dt = model->next_dt(cfl);
        last = plan.end_time > 0 && time + dt >= plan.end_time * (1 - 1e-12);
      }
      if (last) dt = plan.end_time - time;  // land on end_time
      model->step(dt);
      ++step;
      time = last ? plan.end_time : time + dt;
      last_was_output = false;
      if (outputs_on && output_due()) {
        write_snapshot();
        advance_output_time();
        last_was_output = true;
      } else if (step % 100 == 0) {
        guard_finite(state_fields, step, plan.grid, comm);
      }
      bool clock_due = plan.checkpoint_minutes > 0 && seconds_since(last_checkpoint) >= 60 * plan.checkpoint_minutes;
      if (plan.checkpoint_minutes > 0) clock_due = comm.broadcast(clock_due) != 0;  // rank 0's clock decides
      if ((plan.checkpoint_every > 0 && step % plan.checkpoint_every == 0) || clock_due) {
        write_checkpoint();
        last_checkpoint = Clock::now();
      }
      progress.update(step, first, time);
      if (const int sig = int(comm.max(std::int64_t(stop_signal.load())))) {  // any rank's signal stops all
        progress.finish();
        log("stopped by %s at step %lld; writing a checkpoint%s", sig == SIGINT ? "SIGINT" : "SIGTERM", (long long)step,
            comm.parallel() && sig == SIGTERM
                ? " (under mpirun: OpenMPI's mpirun turns a SIGINT or SIGTERM sent to it into SIGTERM for the ranks "
                  "and exits 1 itself; signal the ranks instead to see 130/143 from mpirun)"
                : "");
        writer.wait();
        write_checkpoint();
        return 128 + sig;
      }
    }
    if (outputs_on && !last_was_output) write_snapshot();
    ctx.synchronize();
    const double compute_wall = seconds_since(start);
    writer.wait();
    if (plan.checkpoint_every > 0 || plan.checkpoint_minutes > 0) {
      const bool missing = io::list_checkpoints(plan.out_dir, plan.ckpt_prefix).empty() ||
                           io::list_checkpoints(plan.out_dir, plan.ckpt_prefix).front() !=
                               io::checkpoint_path(plan.out_dir, plan.ckpt_prefix, step);
      if (comm.broadcast(missing) != 0) write_checkpoint();  // rank 0's view decides
    }
    progress.update(step, first, time, true);
    progress.finish();

    const std::int64_t done = step - first;
    if (!opt.quiet) {
      log("done: %lld steps to t = %.6g in %s (%.3g ms/step, %scell/s)", (long long)done, time,
          human_time(compute_wall).c_str(), done ? 1e3 * compute_wall / double(done) : 0.0,
          si(compute_wall > 0 ? double(done) * model->cell_updates_per_step() / compute_wall : 0).c_str());
      if (const double bytes = model->bytes_per_step(); bytes > 0 && compute_wall > 0 && done > 0) {
        const double achieved = bytes * double(done) / compute_wall, copy = device_copy_rate(ctx);
        log("bandwidth: %sB/s achieved over the loop (output included), %.0f%% of this device's copy rate (%sB/s)",
            si(achieved).c_str(), 100 * achieved / copy, si(copy).c_str());
      }
      log("output: %lld snapshots, %lld checkpoints; the loop waited %s for output, the writer thread worked %s",
          (long long)snapshots, (long long)checkpoints, human_time(output_blocked).c_str(),
          human_time(writer.busy_seconds()).c_str());
      log("peak memory: %s (%s)", format_bytes(double(ctx.memory_stats().peak)).c_str(), ctx.device_name().c_str());
      for (const Diagnostic& d : model->diagnostics())
        log("  %-14s %.10g %s", d.name.c_str(), d.value, d.unit.c_str());
    }
    if (!opt.stats_path.empty() && comm.rank() == 0) {
      std::ofstream js(opt.stats_path);
      js << "{\n  \"model\": \"" << info->name << "\",\n  \"device\": \"" << ctx.device_name() << "\",\n  \"backend\": \""
         << backend_name(ctx.backend()) << "\",\n  \"commit\": \"" << SIMKIT_GIT_COMMIT << "\",\n  \"cells\": "
         << plan.grid.size() << ",\n  \"steps\": " << done << ",\n  \"wall_seconds\": " << compute_wall
         << ",\n  \"ms_per_step\": " << (done ? 1e3 * compute_wall / double(done) : 0.0)
         << ",\n  \"cell_updates_per_second\": "
         << (compute_wall > 0 ? double(done) * model->cell_updates_per_step() / compute_wall : 0.0)
         << ",\n  \"snapshots\": " << snapshots << ",\n  \"checkpoints\": " << checkpoints
         << ",\n  \"output_blocked_seconds\": " << output_blocked << ",\n  \"writer_busy_seconds\": "
         << writer.busy_seconds() << ",\n  \"peak_memory_bytes\": " << ctx.memory_stats().peak << "\n}\n";
    }
    return exit_ok;
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
