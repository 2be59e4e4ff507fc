#pragma once
// Snapshots and checkpoints in HDF5: one self-describing file per output step. The layout is
// documented in docs/output-format.md. Standard headers only: nvcc-compiled code includes
// this; the HDF5 C API stays in io/hdf5/. All functions are safe to call from several
// threads (one lock serialises the HDF5 library, which Debian builds without thread safety).
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/distributed/comm.hpp"
#include "core/runtime/error.hpp"

namespace sim::io {

/// A file that cannot be read as what it should be (missing, truncated, checksum mismatch, wrong kind).
struct FileError : sim::Error {
  using sim::Error::Error;
};

/// The uniform grid of the run: cells, origin and spacing per dimension, dimension 0 first.
struct GridInfo {
  int rank = 0;
  std::vector<std::int64_t> cells;
  std::vector<double> origin, spacing;
};

/// Where a file came from: model, time, the full config and the build/run environment. Set
/// its fields by name (it has no positional form).
struct RunInfo {
  /// Empty: every field blank or 0.
  RunInfo() {}
  std::string model;
  std::int64_t step = 0;
  double time = 0, dt = 0;
  std::string config_toml, simkit_version, git_commit, backend, device, precision;
};

/// A field in host memory: row-major, shape == grid cells (dimension 0 slowest). In a
/// parallel write, data holds this rank's box: count cells from global index offset.
struct FieldView {
  std::string name, unit;
  bool is_double = true;
  std::vector<std::int64_t> shape;
  const void* data = nullptr;
  std::vector<std::int64_t> offset = {}, count = {};  ///< this rank's box; empty: the whole field
};

/// A field read back: the bytes and the element type.
struct FieldData {
  std::string name, unit;
  bool is_double = true;
  std::vector<std::int64_t> shape;
  std::vector<unsigned char> bytes;
  /// Elements converted to double.
  std::vector<double> as_double() const;
};

/// Writes one snapshot file atomically (PATH.tmp, then rename); gzip_level 0 = no filter, 1..9 = shuffle + deflate.
/// With a parallel comm, every rank calls it with its box of each field (collective MPI-IO).
void write_snapshot(const std::string& path, const RunInfo& info, const GridInfo& grid,
                    const std::vector<FieldView>& fields, int gzip_level, const sim::Comm& comm = sim::Comm());

/// Writes a run's diagnostics as an HDF5 time series (atomically): /series/NAME, one 1-D
/// float64 dataset per column (step, time, then the model's diagnostics), each with a unit.
void write_timeseries(const std::string& path, const RunInfo& info, const std::vector<std::string>& names,
                      const std::vector<std::string>& units, const std::vector<std::vector<double>>& columns);

/// What a snapshot or checkpoint holds, without the field data.
struct FileSummary {
  std::string kind;  ///< "snapshot" | "checkpoint"
  RunInfo info;
  GridInfo grid;
  std::vector<FieldData> fields;  ///< bytes left empty
  std::map<std::string, std::uint64_t> counters;
  std::map<std::string, double> reals;
  std::map<std::string, std::string> strings;
};

/// Reads the attributes and field list of a snapshot or checkpoint (FileError if it is neither,
/// or has no checksum trailer: such a file is refused before HDF5 reads it, as by read_field and read_checkpoint).
FileSummary read_summary(const std::string& path);
/// One field of a snapshot or checkpoint (whole-file checksum verified first; refused without one).
FieldData read_field(const std::string& path, const std::string& name);
/// Human-readable description for `simulate info FILE`: kind, run, grid, fields, counters, config.
/// A file without a checksum trailer is read in a child process (a crash there is a FileError).
std::string describe(const std::string& path);

/// Writes a checkpoint atomically and durably (PATH.tmp, H5Fclose, fsync, rename, fsync dir), Fletcher32 on every
/// dataset (per chunk; chunks follow the global shape, so the checksums do not depend on the rank count). With a
/// parallel comm, every rank calls it with its box of each field (collective MPI-IO).
void write_checkpoint(const std::string& path, const RunInfo& info, const GridInfo& grid,
                      const std::vector<FieldView>& fields, const std::map<std::string, std::uint64_t>& counters,
                      const std::map<std::string, double>& reals, const std::map<std::string, std::string>& strings,
                      const sim::Comm& comm = sim::Comm());

/// Everything needed to continue a run exactly.
struct Checkpoint {
  RunInfo info;
  GridInfo grid;
  std::vector<FieldData> fields;
  std::map<std::string, std::uint64_t> counters;
  std::map<std::string, double> reals;
  std::map<std::string, std::string> strings;
};

/// Reads and verifies a checkpoint; FileError naming the file and the problem if missing, truncated, corrupt, incomplete or not a checkpoint.
/// Every byte is verified: the whole-file checksum (a trailer after HDF5's end of file, written by every
/// write_* here) must be there and match before HDF5 reads the file; external/soft links and data stored
/// outside the file are refused.
/// With a box (offset, count per dimension), each field's bytes are that box of it only (a rank's part); shapes stay global.
Checkpoint read_checkpoint(const std::string& path, const std::vector<std::int64_t>& offset = {},
                           const std::vector<std::int64_t>& count = {});
/// Checkpoint file name for a step: DIR/PREFIX_000001200.h5 (9 digits, more if the step needs them).
std::string checkpoint_path(const std::string& dir, const std::string& prefix, std::int64_t step);
/// Checkpoints in dir named PREFIX_<digits>.h5, newest (highest step) first; *.tmp never counts.
std::vector<std::string> list_checkpoints(const std::string& dir, const std::string& prefix);
/// Deletes all but the newest `keep` checkpoints with that prefix of a step up to up_to_step (a
/// checkpoint of a later step is not this run's past: it is left alone).
void prune_checkpoints(const std::string& dir, const std::string& prefix, int keep,
                       std::int64_t up_to_step = std::numeric_limits<std::int64_t>::max());
/// Removes leftover *.h5.tmp / *.xdmf.tmp / *.csv.tmp files in dir (from a run killed mid-write); call before writing starts.
void remove_stale_temporaries(const std::string& dir);

namespace test_hooks {
/// For tests only: a checkpoint exactly like write_checkpoint's but without the final `complete` marker.
void write_checkpoint_without_marker(const std::string& path, const RunInfo& info, const GridInfo& grid,
                                     const std::vector<FieldView>& fields,
                                     const std::map<std::string, std::uint64_t>& counters,
                                     const std::map<std::string, double>& reals,
                                     const std::map<std::string, std::string>& strings);
/// For tests only: appends the whole-file checksum trailer to a file (after changing a written one).
void append_checksum(const std::string& path);
}  // namespace test_hooks

}  // namespace sim::io
