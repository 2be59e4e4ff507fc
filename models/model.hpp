#pragma once
// The model interface. A model declares its parameters (a schema the config is validated
// against), its fields (which makes them part of snapshots and checkpoints), its initial
// state, its step, its stable dt and its diagnostics. The runner (runner.hpp) does the rest:
// time loop, output, checkpoints, signals. Models never parse TOML or write files.
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/runtime/context.hpp"
#include "core/distributed/decomposition.hpp"
#include "core/runtime/device_clock.hpp"
#include "core/mesh/grid.hpp"
#include "io/schema.hpp"

namespace sim::io {
class Config;
}

namespace sim {

/// The grid of a run as the config gives it (rank 1-3).
struct GridSpec {
  int rank = 2;
  index_t cells[3] = {1, 1, 1};
  double length[3] = {1, 1, 1};
  double origin[3] = {0, 0, 0};
  int ghost = 1;
  /// The grid as a Grid<Rank> (Rank must equal rank).
  template <int Rank>
  Grid<Rank> grid() const {
    Grid<Rank> g;
    double len[Rank], org[Rank];
    Extents<Rank> e;
    for (int d = 0; d < Rank; ++d) e.n[d] = cells[d], len[d] = length[d], org[d] = origin[d];
    return Grid<Rank>::uniform(e, len, ghost, org);
  }
  /// Number of interior cells.
  index_t size() const { return cells[0] * (rank > 1 ? cells[1] : 1) * (rank > 2 ? cells[2] : 1); }
};

/// The grid of rank box sub of global: the global spacing (bit for bit), its own cells and origin.
template <int Rank>
Grid<Rank> box_grid(const Grid<Rank>& global, const Subdomain& sub) {
  Grid<Rank> g = global;
  for (int d = 0; d < Rank; ++d) {
    g.cells.n[d] = sub.cells[d];
    g.origin[d] = global.origin[d] + double(sub.offset[d]) * global.dx[d];
  }
  return g;
}

/// Everything a model is built from.
struct ModelSetup {
  Context ctx;
  const io::Config* config = nullptr;  ///< validated; read the [model] section (and [boundary])
  GridSpec grid;                       ///< the global grid
  bool float64 = true;
  Comm comm = Comm();                  ///< the ranks of the run (one unless launched by mpirun)
  Decomposition decomposition = {};    ///< the split of grid over comm's ranks (one box by default)

  /// This rank's box of the grid and its neighbours (the whole grid on one rank); periodic[d]
  /// says whether dimension d wraps around.
  Subdomain subdomain(const bool periodic[]) const {
    if (decomposition.ranks() > 1) return decomposition.subdomain(comm.rank(), periodic);
    Subdomain s;
    for (int d = 0; d < grid.rank; ++d) s.cells[d] = grid.cells[d];
    return s;
  }
};

/// A field as the runner sees it: shape, element type, and copies of its interior cells.
struct FieldRef {
  std::string name, unit;
  bool is_double = true;
  std::vector<std::int64_t> shape;
  std::function<void(void* host)> to_host;          ///< interior cells, row-major
  std::function<void(const void* host)> from_host;  ///< restores the interior cells
  std::function<double()> sum;                      ///< sum of the interior (NaN/Inf guard)
  bool checkpointed = true;  ///< part of the state: written to checkpoints and restored on resume
  bool optional = false;     ///< a checkpoint may lack it: resume leaves it as it is (the model's load_state decides)
  bool snapshot = true;      ///< written to snapshots unless output.fields names others
  /// On several ranks: this rank's box of the global shape, which to_host/from_host copy
  /// (count cells from global index offset). Empty: the whole field.
  std::vector<std::int64_t> offset, count;
  /// Number of elements of the global field.
  std::int64_t size() const {
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    return n;
  }
  /// Number of elements this rank holds (what to_host writes).
  std::int64_t local_size() const {
    if (count.empty()) return size();
    std::int64_t n = 1;
    for (auto s : count) n *= s;
    return n;
  }
};

/// A named scalar reported at each output (total heat, kinetic energy, ...).
struct Diagnostic {
  std::string name, unit;
  double value = 0;
};

/// A simulation model.
class Model {
 public:
  virtual ~Model() = default;
  /// The fields written to snapshots and checkpoints.
  virtual std::vector<FieldRef> fields() = 0;
  /// Sets the initial state (time 0).
  virtual void initialize() = 0;
  /// Advances the state by dt.
  virtual void step(double dt) = 0;
  /// The largest stable time step (infinity when the scheme has no limit).
  virtual double stable_dt() const { return std::numeric_limits<double>::infinity(); }
  /// The time step to use when the config gives none: run.cfl times the stable dt by default.
  virtual double default_dt(double cfl) const { return cfl * stable_dt(); }
  /// Checks a user-given dt; throws Error with the largest stable dt and a fix if it is too large.
  virtual void check_dt(double dt) const;
  /// Scalars worth reporting at each output.
  virtual std::vector<Diagnostic> diagnostics() { return {}; }
  /// Computes derived output fields (vorticity, cell-centred velocity, ...) before a snapshot.
  virtual void prepare_output() {}
  /// True when the model chooses each step's dt itself (next_dt) unless run.dt is given.
  virtual bool adaptive_dt() const { return false; }
  /// The next step's dt from the current state, run.cfl times the model's stability limit.
  virtual double next_dt(double cfl) { return default_dt(cfl); }
  /// Runs steps that each choose their dt on the device as next_dt(cfl) would, on clock
  /// (started by the caller: its end time and horizon stop them, core/runtime/device_clock.hpp), waits
  /// for them and returns how many ran; -1 when the model cannot (the run then asks next_dt()
  /// step by step). Saves the host round trip of next_dt() per step.
  virtual std::int64_t run_device_steps(DeviceClock& clock, double cfl) {
    (void)clock, (void)cfl;
    return -1;
  }
  /// Advances by dt as step() does, but queued as it goes (not replayed) with a mark on the
  /// stream between the step's phases: each phase's label and ms on this rank, in order (a
  /// benchmark's diagnostic). Empty, and no step taken, where the model marks none.
  virtual std::vector<std::pair<std::string, double>> marked_step(double dt) {
    (void)dt;
    return {};
  }
  /// Lines on the choices the model made from its config (solver and why), for --dry-run and the run header.
  virtual std::vector<std::string> plan_notes() const { return {}; }
  /// Bytes one step reads and writes in memory, counting each kernel's whole-field passes, for
  /// the run summary's achieved bandwidth against the device copy rate (0: not declared).
  virtual double bytes_per_step() const { return 0; }
  /// Cells updated per step (for the cell-updates/s figure).
  virtual double cell_updates_per_step() const = 0;
  /// Model-internal state beyond the fields, for checkpoints.
  virtual void save_state(std::map<std::string, std::uint64_t>& counters, std::map<std::string, double>& reals) const {
    (void)counters, (void)reals;
  }
  /// Restores what save_state wrote.
  virtual void load_state(const std::map<std::string, std::uint64_t>& counters,
                          const std::map<std::string, double>& reals) {
    (void)counters, (void)reals;
  }
};

/// How a model runs on several ranks (mpirun -np N).
enum class Parallel {
  none,     ///< one rank only: simulate refuses -np > 1
  grid,     ///< each rank holds its box of ModelSetup::decomposition and exchanges ghosts
  own,      ///< the model splits its own work (Monte Carlo samples); no grid split
};

/// How to build a model, and what it accepts.
struct ModelInfo {
  std::string name;
  std::string doc;
  io::Schema schema;          ///< the [model] section
  bool uses_boundary = false;  ///< reads the [boundary] section
  /// The [boundary] kinds the model accepts (bc_name spellings), the kind of faces the config
  /// leaves unset, and what a face's value means to it (for the schema's docs).
  std::vector<std::string> boundary_kinds = {"periodic", "dirichlet", "neumann"};
  std::string boundary_default = "neumann";
  std::string boundary_value_doc = "value (dirichlet) or outward gradient (neumann)";
  Parallel parallel = Parallel::none;  ///< how it runs on several ranks
  std::string time_unit = "s";         ///< the unit of its time (diagnostics.csv); "" for a dimensionless model
  std::vector<int> ranks = {1, 2, 3};
  std::function<std::unique_ptr<Model>(const ModelSetup&)> create;
};

/// Every schema a config of this model is validated against: the framework's sections, with
/// [boundary] taking the model's kinds (faces of the first grid_rank dimensions), and the
/// model's [model] section.
std::vector<io::Schema> schemas_of(const ModelInfo& info, int grid_rank = 3);

/// The models a run can choose from (built-ins and loaded plugins), by name.
class ModelRegistry {
 public:
  /// Adds a model; throws Error if the name is taken.
  void add(ModelInfo info);
  /// The model called name, or nullptr.
  const ModelInfo* find(const std::string& name) const;
  /// Names in registration order.
  std::vector<std::string> names() const;
  /// All models in registration order.
  const std::vector<ModelInfo>& all() const { return models_; }

 private:
  std::vector<ModelInfo> models_;
};

/// A registry holding the built-in models (heat, ...).
ModelRegistry builtin_models();

}  // namespace sim
