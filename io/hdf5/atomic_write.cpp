// The atomic life cycle of every file simkit writes: PATH.tmp written whole, closed (also on a
// full disk), checksummed, fsynced, renamed to PATH; leftovers of a killed run removed.
// Snapshots, checkpoints and diagnostics series. Layout: docs/output-format.md.
#include "io/hdf5_file.hpp"
#include "io/hdf5/checksum.hpp"
#include "io/hdf5/handles.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#if SIMKIT_HAS_MPI
#include "core/distributed/detail/comm_mpi.hpp"
#endif

namespace sim::io {
namespace fs = std::filesystem;
using namespace hdf5;

namespace {

// A UTF-8 string type: variable length when size == 0, else fixed (NUL-terminated).
Hid string_type(const File& f, std::size_t size) {
  Hid t = f.own(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type");
  f.ok(H5Tset_size(t, size ? size : H5T_VARIABLE), "set a string size");
  f.ok(H5Tset_cset(t, H5T_CSET_UTF8), "set a string encoding");
  return t;
}

void put_string_attr(const File& f, hid_t obj, const char* name, const std::string& value) {
  const std::string what = std::string("write attribute '") + name + "'";
  Hid type = string_type(f, 0);
  Hid space = f.own(H5Screate(H5S_SCALAR), H5Sclose, what);
  Hid attr = f.own(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, what);
  const char* p = value.c_str();
  f.ok(H5Awrite(attr, type, &p), what);
}

// A numeric attribute: scalar when n == 0, else a 1-D array of n values.
void put_attr(const File& f, hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* data,
              hsize_t n = 0) {
  const std::string what = std::string("write attribute '") + name + "'";
  Hid space = f.own(n ? H5Screate_simple(1, &n, nullptr) : H5Screate(H5S_SCALAR), H5Sclose, what);
  Hid attr = f.own(H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, what);
  f.ok(H5Awrite(attr, mem_type, data), what);
}

// A group that remembers the order its members were created in.
Hid make_group(const File& f, const char* name) {
  const std::string what = std::string("create group '/") + name + "'";
  Hid gcpl = f.own(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, what);
  f.ok(H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), what);
  return f.own(H5Gcreate2(f.id, name, H5P_DEFAULT, gcpl, H5P_DEFAULT), H5Gclose, what);
}

// Chunk shape: the whole array, halving the slowest dimensions until a chunk is at most 1 MiB
// (HDF5's default chunk cache holds one chunk per dataset of up to 1 MiB).
std::vector<hsize_t> chunk_shape(std::vector<hsize_t> c, std::size_t element) {
  auto bytes = [&] {
    hsize_t b = element;
    for (hsize_t x : c) b *= x;
    return b;
  };
  for (std::size_t d = 0; d < c.size(); ++d)
    while (c[d] > 1 && bytes() > (hsize_t(1) << 20)) c[d] = (c[d] + 1) / 2;
  return c;
}

// Creates a dataset and writes data. In a parallel file each process writes its box (offset,
// count; data holds the box row-major), or, without a box, root writes everything.
Hid put_dataset(const File& f, hid_t group, const std::string& label, const std::string& name, hid_t file_type,
                hid_t mem_type, const std::vector<hsize_t>& dims, const void* data, int gzip, bool checksum,
                const std::vector<hsize_t>* offset = nullptr, const std::vector<hsize_t>* count = nullptr) {
  const std::string what = "write dataset '" + label + "'";
  Hid space = f.own(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose, what);
  Hid dcpl = f.own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, what);
  const std::vector<hsize_t> chunk = chunk_shape(dims, H5Tget_size(mem_type));
  f.ok(H5Pset_chunk(dcpl, int(chunk.size()), chunk.data()), what);
  f.ok(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), what);
  if (gzip > 0) {
    f.ok(H5Pset_shuffle(dcpl), what);
    f.ok(H5Pset_deflate(dcpl, unsigned(gzip)), what);
  }
  if (checksum) f.ok(H5Pset_fletcher32(dcpl), what);
  Hid ds = f.own(H5Dcreate2(group, name.c_str(), file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose, what);
  if (!f.parallel) {
    f.ok(H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), what);
    return ds;
  }
  Hid mem;
  if (offset) {
    mem = f.own(H5Screate_simple(int(count->size()), count->data(), nullptr), H5Sclose, what);
    f.ok(H5Sselect_hyperslab(space, H5S_SELECT_SET, offset->data(), nullptr, count->data(), nullptr), what);
  } else {
    mem = f.own(H5Screate_simple(int(dims.size()), dims.data(), nullptr), H5Sclose, what);
    if (!f.root) f.ok(H5Sselect_none(mem), what), f.ok(H5Sselect_none(space), what);
  }
  f.ok(H5Dwrite(ds, mem_type, mem, space, f.dxpl, data), what);
  return ds;
}

void check_name(const std::string& kind, const std::string& name) {
  SIM_REQUIRE(!name.empty() && name != "." && name.find('/') == std::string::npos, sim::Error,
              kind + " name '" + name + "' cannot be stored in HDF5: use a non-empty name without '/'");
}

void check_layout(const std::string& path, const GridInfo& g, const std::vector<FieldView>& fields) {
  const std::size_t r = std::size_t(std::max(g.rank, 0));
  SIM_REQUIRE(g.rank >= 1 && g.cells.size() == r && g.origin.size() == r && g.spacing.size() == r, sim::ShapeError,
              path + ": grid rank " + std::to_string(g.rank) + " needs that many cells (" +
                  std::to_string(g.cells.size()) + "), origins (" + std::to_string(g.origin.size()) +
                  ") and spacings (" + std::to_string(g.spacing.size()) + ")");
  for (auto n : g.cells) SIM_REQUIRE(n >= 1, sim::ShapeError, path + ": every grid dimension needs at least one cell");
  std::set<std::string> seen;
  for (const FieldView& fv : fields) {
    check_name("field", fv.name);
    SIM_REQUIRE(seen.insert(fv.name).second, sim::Error, path + ": field '" + fv.name + "' given twice");
    SIM_REQUIRE(fv.shape == g.cells, sim::ShapeError,
                path + ": field '" + fv.name + "' does not have the grid's shape (one value per cell)");
    bool box_ok = fv.offset.size() == fv.count.size() && (fv.offset.empty() || fv.offset.size() == r);
    for (std::size_t d = 0; box_ok && d < fv.offset.size(); ++d)
      box_ok = fv.offset[d] >= 0 && fv.count[d] >= 1 && fv.offset[d] + fv.count[d] <= fv.shape[d];
    SIM_REQUIRE(box_ok, sim::ShapeError, path + ": field '" + fv.name + "' has a box outside the grid");
    SIM_REQUIRE(fv.data != nullptr, sim::Error, path + ": field '" + fv.name + "' has no data");
  }
}

// Makes the file's data durable: fsync of a file or directory.
void sync_path(const std::string& p, bool directory, const std::string& for_path) {
  const int fd = ::open(p.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    throw FileError(for_path + ": cannot fsync " + p + ": " + std::strerror(e));
  }
  ::close(fd);
}

struct Extras {
  const std::map<std::string, std::uint64_t>& counters;
  const std::map<std::string, double>& reals;
  const std::map<std::string, std::string>& strings;
};

// Closing a file being written, when the disk is full. HDF5 writes its cached metadata while
// closing; when that fails, H5Fclose fails, yet leaves a dangling identifier behind: closing it
// again, or HDF5's exit-time cleanup doing so, crashed (rc 139). So: flush first (a flush can
// be retried); when it fails, give the half-written file's space back (truncate it: it is
// deleted anyway) and flush again; call H5Fclose once, and only after a flush succeeded. A
// file that cannot be flushed is left open, never closed (HDF5's exit-time cleanup is off,
// see H5Lock), so the process can still report the error and exit cleanly.
bool flush_or_give_back(hid_t id, const std::string& tmp) {
  if (H5Fflush(id, H5F_SCOPE_LOCAL) >= 0) return true;
  const int fd = ::open(tmp.c_str(), O_WRONLY);
  if (fd >= 0) {
    if (::ftruncate(fd, 0) != 0) { /* nothing more to give back */ }
    ::close(fd);
  }
  return H5Fflush(id, H5F_SCOPE_LOCAL) >= 0;
}

// Closes a file that failed midway (errors here are secondary: the first one is reported).
void abandon_file(File& f, const std::string& tmp) {
  const hid_t id = f.id.release();
  if (id < 0) return;
  if (flush_or_give_back(id, tmp)) H5Fclose(id);
  h5_detail();
}

// Closes a file being written; FileError (with the file closed where that is safe) when it fails.
void close_file(File& f, const std::string& tmp) {
  const hid_t id = f.id.release();
  if (H5Fflush(id, H5F_SCOPE_LOCAL) >= 0) {
    if (H5Fclose(id) >= 0) return;
    f.fail("close " + tmp);
  }
  const std::string detail = h5_detail();
  if (flush_or_give_back(id, tmp)) H5Fclose(id);
  h5_detail();
  throw FileError(f.path + ": cannot finish writing " + tmp + " (" +
                  (detail.empty() ? "HDF5 could not flush it" : "HDF5: " + detail) +
                  "); is the disk full? Free space, then resume the run (--resume)");
}

// Writes PATH.tmp completely, closes it, (fsyncs it), renames it to PATH, (fsyncs the directory).
// A checkpoint (extras != null) gets checksums on every dataset, and the `complete` marker last.
// With a parallel comm, every process of it calls this with its own box of each field: one
// file written collectively through MPI-IO; root (rank 0) fsyncs and renames it.
void write_file(const std::string& path, const RunInfo& info, const GridInfo& grid, const std::vector<FieldView>& fields,
                int gzip, const Extras* extras, bool marker, const sim::Comm& comm) {
  check_layout(path, grid, fields);
  SIM_REQUIRE(gzip >= 0 && gzip <= 9, sim::Error, path + ": gzip level must be 0 (off) to 9, not " + std::to_string(gzip));
  if (extras) {
    for (auto& c : extras->counters) check_name("counter", c.first);
    for (auto& c : extras->reals) check_name("real", c.first);
    for (auto& c : extras->strings) check_name("string", c.first);
  }
  const std::string tmp = path + ".tmp";
  const bool checksum = extras != nullptr;
  const bool parallel = comm.parallel();
  File f{path, {}, false, true, {}};
  try {
    {
      Hid fapl = f.own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create " + tmp);
      if (parallel) {
#if SIMKIT_HAS_MPI
        f.ok(H5Pset_fapl_mpio(fapl, sim::mpi_comm(comm), MPI_INFO_NULL), "create " + tmp + " for MPI-IO");
        f.dxpl = f.own(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "create " + tmp);
        f.ok(H5Pset_dxpl_mpio(f.dxpl, H5FD_MPIO_COLLECTIVE), "create " + tmp + " for MPI-IO");
        f.parallel = true;
        f.root = comm.rank() == 0;
#else
        throw FileError(path + ": a parallel write needs simkit built with MPI (SIMKIT_MPI)");
#endif
      }
      // v2 superblock and object headers: the file's metadata carries checksums too.
      f.ok(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST), "create " + tmp);
      f.ok(H5Pset_fclose_degree(fapl, H5F_CLOSE_SEMI), "create " + tmp);  // closing with objects open is a bug
      f.id = f.own(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), H5Fclose, "create " + tmp);
    }
    const std::string kind = extras ? "checkpoint" : "snapshot";
    const hsize_t rank = hsize_t(grid.rank);
    put_string_attr(f, f.id, "kind", kind);
    put_string_attr(f, f.id, "model", info.model);
    put_attr(f, f.id, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, &info.step);
    put_attr(f, f.id, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &info.time);
    put_attr(f, f.id, "dt", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &info.dt);
    put_attr(f, f.id, "cells", H5T_STD_I64LE, H5T_NATIVE_INT64, grid.cells.data(), rank);
    put_attr(f, f.id, "origin", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, grid.origin.data(), rank);
    put_attr(f, f.id, "spacing", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, grid.spacing.data(), rank);
    put_string_attr(f, f.id, "config", info.config_toml);
    put_string_attr(f, f.id, "simkit_version", info.simkit_version);
    put_string_attr(f, f.id, "git_commit", info.git_commit);
    put_string_attr(f, f.id, "backend", info.backend);
    put_string_attr(f, f.id, "device", info.device);
    put_string_attr(f, f.id, "precision", info.precision);
    {
      Hid group = make_group(f, "fields");
      const std::vector<hsize_t> dims(grid.cells.begin(), grid.cells.end());
      for (const FieldView& fv : fields) {
        const std::vector<hsize_t> offset(fv.offset.begin(), fv.offset.end()), count(fv.count.begin(), fv.count.end());
        const bool box = parallel && !fv.offset.empty();
        Hid ds = put_dataset(f, group, "/fields/" + fv.name, fv.name, fv.is_double ? H5T_IEEE_F64LE : H5T_IEEE_F32LE,
                             fv.is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, dims, fv.data, gzip, checksum,
                             box ? &offset : nullptr, box ? &count : nullptr);
        put_string_attr(f, ds, "unit", fv.unit);
      }
    }
    if (extras) {
      const std::vector<hsize_t> one{1};
      Hid counters = make_group(f, "counters");
      for (auto& [name, v] : extras->counters)
        put_dataset(f, counters, "/counters/" + name, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, one, &v, 0, true);
      Hid reals = make_group(f, "reals");
      for (auto& [name, v] : extras->reals)
        put_dataset(f, reals, "/reals/" + name, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, one, &v, 0, true);
      Hid strings = make_group(f, "strings");
      for (auto& [name, v] : extras->strings) {
        Hid type = string_type(f, v.size() + 1);  // fixed length, so the checksum covers the text
        put_dataset(f, strings, "/strings/" + name, name, type, type, one, v.c_str(), 0, true);
      }
    }
    if (marker) {
      const std::int32_t one = 1;
      put_attr(f, f.id, "complete", H5T_STD_I32LE, H5T_NATIVE_INT32, &one);
    }
    close_file(f, tmp);
    if (comm.rank() == 0) {
      append_trailer(tmp, path);
      if (extras) sync_path(tmp, false, path);
      std::error_code ec;
      fs::rename(tmp, path, ec);
      if (ec) throw FileError(path + ": cannot rename " + tmp + " to it: " + ec.message());
      if (extras) {
        const fs::path dir = fs::path(path).parent_path();
        sync_path(dir.empty() ? "." : dir.string(), true, path);
      }
    }
    comm.barrier();  // the file is in place for every rank
  } catch (...) {
    abandon_file(f, tmp);
    std::error_code ec;
    if (comm.rank() == 0) fs::remove(tmp, ec);
    throw;
  }
}

// ---- diagnostics time series

void write_timeseries_file(const std::string& path, const RunInfo& info, const std::vector<std::string>& names,
                           const std::vector<std::string>& units, const std::vector<std::vector<double>>& columns) {
  const std::string tmp = path + ".tmp";
  File f{path, {}, false, true, {}};
  try {
    f.id = f.own(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "create " + tmp);
    put_string_attr(f, f.id, "kind", "diagnostics");
    put_string_attr(f, f.id, "model", info.model);
    put_string_attr(f, f.id, "config", info.config_toml);
    put_string_attr(f, f.id, "simkit_version", info.simkit_version);
    put_string_attr(f, f.id, "git_commit", info.git_commit);
    {
      Hid group = make_group(f, "series");
      for (std::size_t c = 0; c < names.size(); ++c) {
        check_name("series", names[c]);
        const std::vector<hsize_t> dims{hsize_t(columns[c].size())};
        if (dims[0] == 0) continue;
        Hid ds = put_dataset(f, group, "/series/" + names[c], names[c], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dims,
                             columns[c].data(), 0, false);
        put_string_attr(f, ds, "unit", c < units.size() ? units[c] : "");
      }
    }
    close_file(f, tmp);
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) throw FileError(path + ": cannot rename " + tmp + " to it: " + ec.message());
  } catch (...) {
    abandon_file(f, tmp);
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
}

}  // namespace

void write_snapshot(const std::string& path, const RunInfo& info, const GridInfo& grid,
                    const std::vector<FieldView>& fields, int gzip_level, const sim::Comm& comm) {
  H5Lock lock;
  write_file(path, info, grid, fields, gzip_level, nullptr, false, comm);
}

void write_checkpoint(const std::string& path, const RunInfo& info, const GridInfo& grid,
                      const std::vector<FieldView>& fields, const std::map<std::string, std::uint64_t>& counters,
                      const std::map<std::string, double>& reals, const std::map<std::string, std::string>& strings,
                      const sim::Comm& comm) {
  H5Lock lock;
  const Extras extras{counters, reals, strings};
  write_file(path, info, grid, fields, 0, &extras, true, comm);
}

void test_hooks::write_checkpoint_without_marker(const std::string& path, const RunInfo& info, const GridInfo& grid,
                                                 const std::vector<FieldView>& fields,
                                                 const std::map<std::string, std::uint64_t>& counters,
                                                 const std::map<std::string, double>& reals,
                                                 const std::map<std::string, std::string>& strings) {
  H5Lock lock;
  const Extras extras{counters, reals, strings};
  write_file(path, info, grid, fields, 0, &extras, false, sim::Comm());
}

void write_timeseries(const std::string& path, const RunInfo& info, const std::vector<std::string>& names,
                      const std::vector<std::string>& units, const std::vector<std::vector<double>>& columns) {
  H5Lock lock;
  write_timeseries_file(path, info, names, units, columns);
}

void remove_stale_temporaries(const std::string& dir) {
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  std::vector<fs::path> stale;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (ends_with(name, ".h5.tmp") || ends_with(name, ".xdmf.tmp") || ends_with(name, ".csv.tmp") ||
        name == ".simulate.run.tmp")
      stale.push_back(it->path());
  }
  for (const fs::path& p : stale) {
    fs::remove(p, ec);
    if (ec) throw sim::Error(p.string() + ": cannot delete stale temporary file: " + ec.message());
  }
}

}  // namespace sim::io
