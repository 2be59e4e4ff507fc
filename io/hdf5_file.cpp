// Snapshots and checkpoints through the HDF5 C API. Layout: docs/output-format.md.
// Every public function holds one lock around its HDF5 use (Debian's serial HDF5 is not
// thread-safe, and the run loop writes from a background thread); every hid_t is owned by
// an Hid, so it is closed on every path; HDF5 failures become FileError naming the file.
#include "io/hdf5_file.hpp"
#include "io/number_text.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <sstream>
#include <utility>

#if SIMKIT_HAS_MPI
#include "core/distributed/detail/comm_mpi.hpp"
#endif

namespace sim::io {
namespace fs = std::filesystem;

std::vector<double> FieldData::as_double() const {
  const std::size_t size = is_double ? sizeof(double) : sizeof(float), n = bytes.size() / size;
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (is_double) {
      std::memcpy(&out[i], bytes.data() + i * size, size);
    } else {
      float v;
      std::memcpy(&v, bytes.data() + i * size, size);
      out[i] = v;
    }
  }
  return out;
}

namespace {

std::mutex h5_mutex;

// Held for the whole of one public call; also silences HDF5's own printing of errors.
// HDF5's exit-time cleanup (H5close from atexit) is turned off before the library starts: it
// closes whatever is still open, and a file whose close failed on a full disk made it crash.
// simkit closes every file it opens; a file that could not be closed is left to the system.
struct H5Lock {
  std::lock_guard<std::mutex> guard{h5_mutex};
  H5Lock() {
    static const bool no_atexit = [] { return H5dont_atexit() >= 0; }();
    (void)no_atexit;
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
};

// Owns one HDF5 identifier and closes it with the matching H5?close.
class Hid {
 public:
  Hid() = default;
  Hid(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Hid(Hid&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Hid& operator=(Hid&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_, close_ = o.close_, o.id_ = -1;
    }
    return *this;
  }
  ~Hid() { reset(); }
  operator hid_t() const { return id_; }
  /// Gives the identifier up without closing it.
  hid_t release() { return std::exchange(id_, hid_t(-1)); }
  /// Closes now; returns the close call's status.
  herr_t reset() {
    const herr_t r = id_ >= 0 && close_ ? close_(id_) : 0;
    id_ = -1;
    return r;
  }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

// The innermost message on HDF5's error stack (where the problem was found); clears the stack.
std::string h5_detail() {
  std::string msg;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e->desc) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &msg);
  H5Eclear2(H5E_DEFAULT);
  // a failed system call comes as "file write failed: time = ..., errno = 28, error message =
  // 'No space left on device', ...": keep the system's words
  const std::size_t at = msg.find("error message = '");
  if (at != std::string::npos) {
    const std::size_t from = at + 17, to = msg.find('\'', from);
    const std::string what = msg.substr(0, std::min(msg.find(':'), msg.find(',')));
    msg = what + ": " + msg.substr(from, to == std::string::npos ? std::string::npos : to - from);
  }
  return msg;
}

// One open file; turns HDF5 failures into FileError("PATH: cannot WHAT (HDF5: detail)").
struct File {
  std::string path;
  Hid id;
  // written by several processes (MPI-IO): every process makes the same metadata calls; data
  // goes through dxpl (collective transfers); root alone writes what is not split
  bool parallel = false, root = true;
  Hid dxpl;
  bool verified = false;  // read: the whole-file checksum trailer was there and matched

  [[noreturn]] void fail(const std::string& what) const {
    const std::string d = h5_detail();
    throw FileError(path + ": cannot " + what + (d.empty() ? "" : " (HDF5: " + d + ")"));
  }
  [[noreturn]] void bad(const std::string& problem) const { throw FileError(path + ": " + problem); }
  Hid own(hid_t h, herr_t (*close)(hid_t), const std::string& what) const {
    if (h < 0) fail(what);
    return Hid(h, close);
  }
  void ok(herr_t r, const std::string& what) const {
    if (r < 0) fail(what);
  }
};

// ---- writing

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

// ---- whole-file checksum trailer
//
// HDF5 checksums its own metadata (v2 object headers, superblock) and Fletcher32 covers each
// chunk, but some bytes have no check at all: the global heap that holds variable-length
// strings, the v1 B-trees of chunk indexes, padding. A damaged byte there can make HDF5 read
// garbage, or crash. So every file simkit writes ends with a trailer, after HDF5's end of
// file (which HDF5 ignores): 8 bytes "SIMKSUM1" and a 64-bit hash of every byte before it.
// Readers check it before HDF5 sees the file.

constexpr char trailer_magic[8] = {'S', 'I', 'M', 'K', 'S', 'U', 'M', '1'};
constexpr std::size_t trailer_size = 16;

// A 64-bit hash over a byte stream fed in pieces: four multiply-xorshift lanes over 8-byte
// words, then the lanes and the length mixed together. Any changed, missing or added byte
// changes it (but for a 2^-64 chance).
class StreamHash {
 public:
  void update(const unsigned char* p, std::size_t n) {
    total_ += n;
    while (n > 0) {
      if (fill_ == 0 && n >= 32) {  // fast path: whole blocks straight from the input
        std::size_t blocks = n / 32;
        for (std::size_t b = 0; b < blocks; ++b, p += 32) block(p);
        n -= blocks * 32;
        continue;
      }
      const std::size_t take = std::min(n, std::size_t(32) - fill_);
      std::memcpy(buf_ + fill_, p, take);
      fill_ += take, p += take, n -= take;
      if (fill_ == 32) block(buf_), fill_ = 0;
    }
  }
  std::uint64_t digest() const {
    std::uint64_t h = total_ * 0x9E3779B97F4A7C15ull;
    for (std::uint64_t l : lane_) h = mix(h ^ mix(l));
    for (std::size_t i = 0; i < fill_; ++i) h = mix(h ^ (std::uint64_t(buf_[i]) + 0x100 * (i + 1)));
    return mix(h ^ fill_);
  }

 private:
  static std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser: a bijection
    x ^= x >> 30, x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27, x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }
  void block(const unsigned char* p) {
    for (int k = 0; k < 4; ++k) {
      std::uint64_t w;
      std::memcpy(&w, p + 8 * k, 8);
      lane_[k] = mix(lane_[k] ^ w) + 0x632BE59BD9B4E019ull;
    }
  }
  std::uint64_t lane_[4] = {1, 2, 3, 4}, total_ = 0;
  unsigned char buf_[32] = {};
  std::size_t fill_ = 0;
};

// Hash of the first `length` bytes of fd (read from offset 0); false on a read error or short file.
bool hash_prefix(int fd, std::uint64_t length, std::uint64_t& out) {
  std::vector<unsigned char> buf(std::size_t(1) << 20);
  StreamHash h;
  std::uint64_t done = 0;
  while (done < length) {
    const std::size_t want = std::size_t(std::min<std::uint64_t>(buf.size(), length - done));
    const ssize_t n = ::pread(fd, buf.data(), want, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    h.update(buf.data(), std::size_t(n));
    done += std::uint64_t(n);
  }
  out = h.digest();
  return true;
}

// Appends the trailer to a closed file (written by HDF5 just before).
void append_trailer(const std::string& file, const std::string& for_path) {
  const int fd = ::open(file.c_str(), O_RDWR);
  auto fail = [&](const std::string& what) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    throw FileError(for_path + ": cannot " + what + " " + file + ": " + std::strerror(e));
  };
  if (fd < 0) fail("open");
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) fail("size");
  std::uint64_t digest = 0;
  if (!hash_prefix(fd, std::uint64_t(size), digest)) fail("read back");
  unsigned char t[trailer_size];
  std::memcpy(t, trailer_magic, 8);
  for (int i = 0; i < 8; ++i) t[8 + i] = static_cast<unsigned char>(digest >> (8 * i));
  std::size_t done = 0;
  while (done < trailer_size) {
    const ssize_t n = ::pwrite(fd, t + done, trailer_size - done, size + off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      fail("append the checksum to");
    }
    done += std::size_t(n);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    throw FileError(for_path + ": cannot close " + file + ": " + std::strerror(e));
  }
}

enum class Trailer { verified, absent };

// Checks a file's trailer: verified, absent (not written by this simkit), or FileError when
// it is there and does not match (a damaged or truncated file).
Trailer check_trailer(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    const int e = errno;
    throw FileError(path + ": cannot open: " + std::strerror(e));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  const off_t size = ::lseek(fd, 0, SEEK_END);
  unsigned char t[trailer_size];
  if (size < off_t(trailer_size) || ::pread(fd, t, trailer_size, size - off_t(trailer_size)) != ssize_t(trailer_size) ||
      std::memcmp(t, trailer_magic, 8) != 0)
    return Trailer::absent;
  std::uint64_t stored = 0, digest = 0;
  for (int i = 0; i < 8; ++i) stored |= std::uint64_t(t[8 + i]) << (8 * i);
  if (!hash_prefix(fd, std::uint64_t(size) - trailer_size, digest))
    throw FileError(path + ": cannot read it to verify its checksum");
  if (digest != stored)
    throw FileError(path + ": checksum mismatch: the file was changed or damaged after it was written");
  return Trailer::verified;
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

// ---- reading

// Whether open_file lets HDF5 read a file that has no checksum trailer. HDF5 trusts lengths
// that nothing else checks (a global heap object's size is copied as stored: one changed byte
// there is a SIGSEGV inside H5HG_read), so a file without a trailer is refused before HDF5
// opens it, except by `simulate info`, which reads it in a child process (describe).
enum class Unverified { refuse, allow };

// True when the file begins with HDF5's 8-byte signature (where simkit's files have it).
bool starts_with_hdf5_signature(const std::string& path) {
  static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char head[8] = {};
  std::FILE* in = std::fopen(path.c_str(), "rb");
  const bool ok = in && std::fread(head, 1, 8, in) == 8 && std::memcmp(head, signature, 8) == 0;
  if (in) std::fclose(in);
  return ok;
}

File open_file(const std::string& path, Unverified unverified = Unverified::refuse) {
  File f{path, {}, false, true, {}};
  std::error_code ec;
  if (!fs::exists(path, ec)) f.bad("no such file");
  if (!fs::is_regular_file(path, ec)) f.bad("not a regular file");
  f.verified = check_trailer(path) == Trailer::verified;  // before HDF5 reads a byte of it
  if (!f.verified && unverified == Unverified::refuse && !starts_with_hdf5_signature(path))
    f.bad("not an HDF5 file (empty, truncated at the start, or written by something else)");
  if (!f.verified && unverified == Unverified::refuse)
    f.bad("no whole-file checksum at its end (cut short, changed since it was written, or not written by simulate): "
          "its bytes cannot be verified, so it is not read; use a file written whole by simulate "
          "(`simulate info` shows what it can of this one)");
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    h5_detail();
    f.bad("not an HDF5 file (empty, truncated at the start, or written by something else)");
  }
  f.id = f.own(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open it (truncated or corrupt?)");
  return f;
}

bool has_attr(hid_t obj, const char* name) { return H5Aexists(obj, name) > 0; }
bool has_link(hid_t obj, const char* name) { return H5Lexists(obj, name, H5P_DEFAULT) > 0; }

Hid open_attr(const File& f, hid_t obj, const char* name) {
  if (!has_attr(obj, name)) f.bad(std::string("no attribute '") + name + "' (not a complete simkit output file?)");
  return f.own(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, std::string("open attribute '") + name + "'");
}

// One string from an attribute or dataset, variable or fixed length; `read` does the H5?read.
template <class Read>
std::string read_string(const File& f, hid_t type, hid_t space, const std::string& what, Read read) {
  if (H5Tget_class(type) != H5T_STRING || H5Sget_simple_extent_npoints(space) != 1) f.bad(what + " is not one string");
  if (H5Tis_variable_str(type) > 0) {
    char* p = nullptr;
    f.ok(read(type, static_cast<void*>(&p)), "read " + what);
    std::string s = p ? p : "";
    H5free_memory(p);
    return s;
  }
  std::vector<char> buf(H5Tget_size(type) + 1, '\0');
  f.ok(read(type, static_cast<void*>(buf.data())), "read " + what);
  return std::string(buf.data());  // up to the first NUL
}

std::string get_string_attr(const File& f, hid_t obj, const char* name) {
  Hid a = open_attr(f, obj, name);
  const std::string what = std::string("attribute '") + name + "'";
  Hid type = f.own(H5Aget_type(a), H5Tclose, "read " + what);
  Hid space = f.own(H5Aget_space(a), H5Sclose, "read " + what);
  return read_string(f, type, space, what, [&](hid_t t, void* buf) { return H5Aread(a, t, buf); });
}

template <class T>
std::vector<T> get_num_attr(const File& f, hid_t obj, const char* name, hid_t mem_type) {
  Hid a = open_attr(f, obj, name);
  const std::string what = std::string("read attribute '") + name + "'";
  Hid type = f.own(H5Aget_type(a), H5Tclose, what);
  Hid space = f.own(H5Aget_space(a), H5Sclose, what);
  const H5T_class_t c = H5Tget_class(type);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if ((c != H5T_INTEGER && c != H5T_FLOAT) || n < 0) f.bad(std::string("attribute '") + name + "' is not numeric");
  std::vector<T> v(static_cast<std::size_t>(n));
  f.ok(H5Aread(a, mem_type, v.data()), what);
  return v;
}

template <class T>
T get_scalar_attr(const File& f, hid_t obj, const char* name, hid_t mem_type) {
  const std::vector<T> v = get_num_attr<T>(f, obj, name, mem_type);
  if (v.size() != 1) f.bad(std::string("attribute '") + name + "' should hold one value");
  return v[0];
}

// Member names of a group, in creation order where the group tracks it, else by name.
std::vector<std::string> member_names(const File& f, hid_t group, const std::string& label) {
  const std::string what = "list group '" + label + "'";
  H5G_info_t gi;
  f.ok(H5Gget_info(group, &gi), what);
  Hid gcpl = f.own(H5Gget_create_plist(group), H5Pclose, what);
  unsigned flags = 0;
  f.ok(H5Pget_link_creation_order(gcpl, &flags), what);
  const H5_index_t index = (flags & H5P_CRT_ORDER_INDEXED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
  std::vector<std::string> names;
  for (hsize_t i = 0; i < gi.nlinks; ++i) {
    const ssize_t n = H5Lget_name_by_idx(group, ".", index, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (n < 0) f.fail(what);
    std::vector<char> buf(std::size_t(n) + 1);
    if (H5Lget_name_by_idx(group, ".", index, H5_ITER_INC, i, buf.data(), buf.size(), H5P_DEFAULT) < 0) f.fail(what);
    names.emplace_back(buf.data());
  }
  return names;
}

// A member must be a dataset stored in this file: an external or soft link would read
// another file (or another object), which no checksum of this one covers.
void check_stored_here(const File& f, hid_t group, const std::string& name, const std::string& label) {
  H5L_info_t li;
  if (H5Lget_info(group, name.c_str(), &li, H5P_DEFAULT) < 0) f.fail("look up '" + label + "'");
  if (li.type != H5L_TYPE_HARD)
    f.bad("'" + label + "' is a " + (li.type == H5L_TYPE_EXTERNAL ? "link to another file" : "soft link") +
          ", not data stored in this file; simkit reads only its own data");
}

// Nor may a dataset keep its data in external raw files or map other datasets (virtual).
void check_layout_here(const File& f, hid_t ds, const std::string& label) {
  Hid dcpl = f.own(H5Dget_create_plist(ds), H5Pclose, "read dataset '" + label + "'");
  const int external = H5Pget_external_count(dcpl);
  const H5D_layout_t layout = H5Pget_layout(dcpl);
  if (external != 0 || layout == H5D_VIRTUAL || layout < 0)
    f.bad("dataset '" + label + "' keeps its data outside this file (external storage or a virtual dataset); "
          "simkit reads only its own data");
}

// Allocates n elements of `size` bytes for a read, or FileError when that cannot be (a damaged
// or hostile shape asks for more than the machine has).
void size_for_read(const File& f, std::vector<unsigned char>& bytes, hsize_t n, std::size_t size,
                   const std::string& label) {
  if (n > hsize_t(1) << 56) f.bad("dataset '" + label + "' claims " + std::to_string(n) + " elements: damaged or not simkit's");
  try {
    bytes.resize(std::size_t(n) * size);
  } catch (const std::bad_alloc&) {
    f.bad("dataset '" + label + "' needs " + std::to_string(n * size) + " bytes, more memory than there is");
  }
}

// A field's metadata, and its bytes when with_data (HDF5 verifies checksums while reading):
// all of them, or the box (offset, count) when given (shape stays the dataset's).
FieldData get_field(const File& f, hid_t group, const std::string& name, bool with_data,
                    const std::vector<std::int64_t>& offset = {}, const std::vector<std::int64_t>& count = {}) {
  const std::string label = "/fields/" + name, what = "read dataset '" + label + "'";
  check_stored_here(f, group, name, label);
  Hid ds = f.own(H5Dopen2(group, name.c_str(), H5P_DEFAULT), H5Dclose, what);
  check_layout_here(f, ds, label);
  Hid type = f.own(H5Dget_type(ds), H5Tclose, what);
  Hid space = f.own(H5Dget_space(ds), H5Sclose, what);
  FieldData d;
  d.name = name;
  const std::size_t size = H5Tget_size(type);
  if (H5Tget_class(type) != H5T_FLOAT || (size != 4 && size != 8)) f.bad("dataset '" + label + "' is not float32/float64");
  d.is_double = size == 8;
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0) f.fail(what);
  std::vector<hsize_t> dims(std::size_t(rank), 0);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  d.shape.assign(dims.begin(), dims.end());
  if (has_attr(ds, "unit")) d.unit = get_string_attr(f, ds, "unit");
  if (with_data && !offset.empty()) {
    bool inside = offset.size() == dims.size() && count.size() == dims.size();
    for (std::size_t k = 0; inside && k < dims.size(); ++k)
      inside = offset[k] >= 0 && count[k] >= 1 && hsize_t(offset[k] + count[k]) <= dims[k];
    if (!inside) f.bad("dataset '" + label + "' does not hold the box asked for");
    const std::vector<hsize_t> o(offset.begin(), offset.end()), c(count.begin(), count.end());
    hsize_t n = 1;
    for (hsize_t x : c) n *= x;
    Hid mem = f.own(H5Screate_simple(int(c.size()), c.data(), nullptr), H5Sclose, what);
    f.ok(H5Sselect_hyperslab(space, H5S_SELECT_SET, o.data(), nullptr, c.data(), nullptr), what);
    size_for_read(f, d.bytes, n, size, label);
    f.ok(H5Dread(ds, d.is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, mem, space, H5P_DEFAULT, d.bytes.data()), what);
  } else if (with_data) {
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    if (n < 0) f.fail(what);
    size_for_read(f, d.bytes, hsize_t(n), size, label);
    f.ok(H5Dread(ds, d.is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, d.bytes.data()),
         what);
  }
  return d;
}

// Each one-element dataset of a checkpoint group, read by `get(dataset, type, space, label)`.
template <class Map, class Get>
void get_values(const File& f, const char* group_name, Map& out, Get get) {
  if (!has_link(f.id, group_name)) f.bad(std::string("checkpoint has no group '/") + group_name + "'");
  Hid group = f.own(H5Gopen2(f.id, group_name, H5P_DEFAULT), H5Gclose, std::string("open group '/") + group_name + "'");
  for (const std::string& name : member_names(f, group, std::string("/") + group_name)) {
    const std::string label = std::string("/") + group_name + "/" + name;
    check_stored_here(f, group, name, label);
    Hid ds = f.own(H5Dopen2(group, name.c_str(), H5P_DEFAULT), H5Dclose, "open dataset '" + label + "'");
    check_layout_here(f, ds, label);
    Hid type = f.own(H5Dget_type(ds), H5Tclose, "read dataset '" + label + "'");
    Hid space = f.own(H5Dget_space(ds), H5Sclose, "read dataset '" + label + "'");
    out[name] = get(ds, type, space, label);
  }
}

template <class T>
T get_number(const File& f, hid_t ds, hid_t type, hid_t space, const std::string& label, H5T_class_t cls, hid_t mem) {
  if (H5Tget_class(type) != cls || H5Sget_simple_extent_npoints(space) != 1)
    f.bad("dataset '" + label + "' is not one " + (cls == H5T_FLOAT ? "real" : "integer"));
  T v{};
  f.ok(H5Dread(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v), "read dataset '" + label + "'");
  return v;
}

std::string get_kind(const File& f) {
  if (!has_attr(f.id, "kind")) f.bad("no 'kind' attribute: not a simkit snapshot or checkpoint");
  std::string kind = get_string_attr(f, f.id, "kind");
  if (kind != "snapshot" && kind != "checkpoint") f.bad("kind '" + kind + "' is neither snapshot nor checkpoint");
  return kind;
}

bool has_marker(const File& f) {
  return has_attr(f.id, "complete") && get_scalar_attr<std::int64_t>(f, f.id, "complete", H5T_NATIVE_INT64) == 1;
}

FileSummary get_summary(const File& f) {
  FileSummary s;
  s.kind = get_kind(f);
  RunInfo& r = s.info;
  r.model = get_string_attr(f, f.id, "model");
  r.step = get_scalar_attr<std::int64_t>(f, f.id, "step", H5T_NATIVE_INT64);
  r.time = get_scalar_attr<double>(f, f.id, "time", H5T_NATIVE_DOUBLE);
  r.dt = get_scalar_attr<double>(f, f.id, "dt", H5T_NATIVE_DOUBLE);
  r.config_toml = get_string_attr(f, f.id, "config");
  r.simkit_version = get_string_attr(f, f.id, "simkit_version");
  r.git_commit = get_string_attr(f, f.id, "git_commit");
  r.backend = get_string_attr(f, f.id, "backend");
  r.device = get_string_attr(f, f.id, "device");
  r.precision = get_string_attr(f, f.id, "precision");
  GridInfo& g = s.grid;
  g.cells = get_num_attr<std::int64_t>(f, f.id, "cells", H5T_NATIVE_INT64);
  g.origin = get_num_attr<double>(f, f.id, "origin", H5T_NATIVE_DOUBLE);
  g.spacing = get_num_attr<double>(f, f.id, "spacing", H5T_NATIVE_DOUBLE);
  g.rank = int(g.cells.size());
  if (g.origin.size() != g.cells.size() || g.spacing.size() != g.cells.size())
    f.bad("attributes 'cells', 'origin' and 'spacing' have different lengths");
  if (!has_link(f.id, "fields")) f.bad("no group '/fields'");
  Hid group = f.own(H5Gopen2(f.id, "fields", H5P_DEFAULT), H5Gclose, "open group '/fields'");
  for (const std::string& name : member_names(f, group, "/fields")) s.fields.push_back(get_field(f, group, name, false));
  if (s.kind == "checkpoint") {
    get_values(f, "counters", s.counters, [&](hid_t ds, hid_t t, hid_t sp, const std::string& l) {
      return get_number<std::uint64_t>(f, ds, t, sp, l, H5T_INTEGER, H5T_NATIVE_UINT64);
    });
    get_values(f, "reals", s.reals, [&](hid_t ds, hid_t t, hid_t sp, const std::string& l) {
      return get_number<double>(f, ds, t, sp, l, H5T_FLOAT, H5T_NATIVE_DOUBLE);
    });
    get_values(f, "strings", s.strings, [&](hid_t ds, hid_t t, hid_t sp, const std::string& l) {
      return read_string(f, t, sp, "dataset '" + l + "'", [&](hid_t mt, void* buf) {
        return H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
      });
    });
  }
  return s;
}

std::string num(double v) { return shortest_text(v); }

template <class T, class F>
std::string join(const std::vector<T>& v, const char* sep, F f) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + f(v[i]);
  return s;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  return join(shape, " x ", [](std::int64_t n) { return std::to_string(n); });
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

void test_hooks::append_checksum(const std::string& path) { append_trailer(path, path); }

void write_timeseries(const std::string& path, const RunInfo& info, const std::vector<std::string>& names,
                      const std::vector<std::string>& units, const std::vector<std::vector<double>>& columns) {
  H5Lock lock;
  write_timeseries_file(path, info, names, units, columns);
}

FileSummary read_summary(const std::string& path) {
  H5Lock lock;
  return get_summary(open_file(path));
}

FieldData read_field(const std::string& path, const std::string& name) {
  H5Lock lock;
  File f = open_file(path);
  get_kind(f);
  if (!has_link(f.id, "fields")) f.bad("no group '/fields'");
  Hid group = f.own(H5Gopen2(f.id, "fields", H5P_DEFAULT), H5Gclose, "open group '/fields'");
  if (name.empty() || name.find('/') != std::string::npos || !has_link(group, name.c_str())) {
    const std::vector<std::string> names = member_names(f, group, "/fields");
    f.bad("no field '" + name + "'; it has: " + join(names, ", ", [](const std::string& s) { return s; }));
  }
  return get_field(f, group, name, true);
}

Checkpoint read_checkpoint(const std::string& path, const std::vector<std::int64_t>& offset,
                           const std::vector<std::int64_t>& count) {
  H5Lock lock;
  File f = open_file(path);
  if (get_kind(f) != "checkpoint") f.bad("is a snapshot, not a checkpoint: restart from a checkpoint file");
  if (!has_marker(f))
    f.bad("incomplete checkpoint (no 'complete' marker): its writer stopped before finishing; use an older checkpoint");
  if (!f.verified)
    f.bad("no whole-file checksum at its end (cut short, or written by a simkit older than this one): "
          "its every byte cannot be verified; use a newer checkpoint or start the run again");
  FileSummary s = get_summary(f);
  if (s.info.step < 0) f.bad("attribute 'step' holds " + std::to_string(s.info.step) + ": not a step");
  for (std::int64_t n : s.grid.cells)
    if (n < 1) f.bad("attribute 'cells' holds " + std::to_string(n) + ": not a grid");
  Checkpoint c{s.info, s.grid, {}, std::move(s.counters), std::move(s.reals), std::move(s.strings)};
  Hid group = f.own(H5Gopen2(f.id, "fields", H5P_DEFAULT), H5Gclose, "open group '/fields'");
  for (const FieldData& meta : s.fields) {
    if (meta.shape != c.grid.cells) f.bad("field '" + meta.name + "' does not have the grid's shape");
    c.fields.push_back(get_field(f, group, meta.name, true, offset, count));
  }
  return c;
}

/// A digest of a field's values (FNV-1a over their bytes as float64, global row-major order):
/// equal digests mean bit-identical fields, whatever the rank count that wrote them.
static std::string field_digest(const FieldData& d) {
  std::uint64_t h = 1469598103934665603ull;
  for (double x : d.as_double()) {
    unsigned char b[sizeof x];
    std::memcpy(b, &x, sizeof x);
    for (unsigned char c : b) h = (h ^ c) * 1099511628211ull;
  }
  char digest[17];
  std::snprintf(digest, sizeof digest, "%016llx", static_cast<unsigned long long>(h));
  return digest;
}

namespace {
std::string describe_file(const std::string& path, Unverified unverified) {
  H5Lock lock;
  File f = open_file(path, unverified);
  const FileSummary s = get_summary(f);
  std::map<std::string, std::string> digests;
  if (!s.fields.empty()) {
    Hid group = f.own(H5Gopen2(f.id, "fields", H5P_DEFAULT), H5Gclose, "open group '/fields'");
    for (const FieldData& d : s.fields) digests[d.name] = field_digest(get_field(f, group, d.name, true));
  }
  const RunInfo& r = s.info;
  const GridInfo& g = s.grid;
  std::ostringstream o;
  o << path << ": simkit " << s.kind;
  if (s.kind == "checkpoint") o << (has_marker(f) ? " (complete)" : " (INCOMPLETE: no 'complete' marker)");
  o << "\n  checksum   " << (f.verified ? "whole file verified" : "none (written by an older simkit, changed since through HDF5, or cut short)");
  o << "\n  model      " << r.model << "\n  step       " << r.step << "\n  time       " << num(r.time)
    << "\n  dt         " << num(r.dt) << "\n  grid       " << g.rank << "D, " << shape_text(g.cells)
    << " cells, origin (" << join(g.origin, ", ", num) << "), spacing (" << join(g.spacing, ", ", num)
    << ")  [dimension 0 first]\n  precision  " << r.precision << "\n  backend    " << r.backend
    << (r.device.empty() ? "" : " (" + r.device + ")") << "\n  simkit     " << r.simkit_version
    << (r.git_commit.empty() ? "" : " (git " + r.git_commit + ")") << "\nfields (" << s.fields.size() << "):\n";
  std::size_t width = 0;
  for (const FieldData& d : s.fields) width = std::max(width, d.name.size());
  for (const FieldData& d : s.fields)
    o << "  " << d.name << std::string(width - d.name.size(), ' ') << "  " << (d.is_double ? "float64" : "float32")
      << "  [" << shape_text(d.shape) << "]" << (d.unit.empty() ? "" : "  " + d.unit) << "  digest " << digests[d.name]
      << "\n";
  if (!s.counters.empty()) o << "counters:\n";
  for (auto& [k, v] : s.counters) o << "  " << k << " = " << v << "\n";
  if (!s.reals.empty()) o << "reals:\n";
  for (auto& [k, v] : s.reals) o << "  " << k << " = " << num(v) << "\n";
  if (!s.strings.empty()) o << "strings:\n";
  for (auto& [k, v] : s.strings) o << "  " << k << " = \"" << v << "\"\n";
  o << "config:\n";
  std::istringstream config(r.config_toml);
  for (std::string line; std::getline(config, line);) o << "  | " << line << "\n";
  return o.str();
}

// describe_file of a file without a checksum trailer, in a child process: HDF5 may crash on
// a damaged length it does not check, and that must not take this process with it. The
// child sends the text (or the error) through a pipe; a child killed by a signal is a
// damaged file.
std::string describe_unverified(const std::string& path) {
  int fds[2];
  if (::pipe(fds) != 0) throw FileError(path + ": cannot read it (no pipe: " + std::strerror(errno) + ")");
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]), ::close(fds[1]);
    throw FileError(path + ": cannot read it (cannot fork: " + std::strerror(errno) + ")");
  }
  if (child == 0) {
    ::close(fds[0]);
    std::string text;
    int code = 0;
    try {
      text = describe_file(path, Unverified::allow);
    } catch (const std::exception& e) {
      text = e.what(), code = 2;
    }
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) ::_exit(3);
      done += std::size_t(n);
    }
    ::_exit(code);
  }
  ::close(fds[1]);
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buf, std::size_t(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status))
    throw FileError(path + ": damaged: it has no checksum trailer, and reading it crashed HDF5 (signal " +
                    std::to_string(WTERMSIG(status)) + "); the file cannot be used");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw FileError(text.empty() ? path + ": cannot read it" : text);
  return text;
}
}  // namespace

std::string describe(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec) || check_trailer(path) == Trailer::verified)
    return describe_file(path, Unverified::allow);  // (not a file: its message)
  return describe_unverified(path);
}

std::string checkpoint_path(const std::string& dir, const std::string& prefix, std::int64_t step) {
  SIM_REQUIRE(step >= 0, sim::Error, "checkpoint step must be >= 0, not " + std::to_string(step));
  std::string digits = std::to_string(step);
  if (digits.size() < 9) digits.insert(0, 9 - digits.size(), '0');
  return (fs::path(dir) / (prefix + "_" + digits + ".h5")).string();
}

std::vector<std::string> list_checkpoints(const std::string& dir, const std::string& prefix) {
  std::vector<std::pair<std::int64_t, std::string>> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::size_t head = prefix.size() + 1;
    if (name.size() <= head + 3 || name.compare(0, head, prefix + "_") != 0 ||
        name.compare(name.size() - 3, 3, ".h5") != 0)
      continue;
    const std::string digits = name.substr(head, name.size() - head - 3);
    if (digits.size() > 18 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    found.emplace_back(std::stoll(digits), it->path().string());
  }
  std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first > b.first : a.second > b.second; });
  std::vector<std::string> paths;
  for (auto& p : found) paths.push_back(p.second);
  return paths;
}

void prune_checkpoints(const std::string& dir, const std::string& prefix, int keep, std::int64_t up_to_step) {
  SIM_REQUIRE(keep >= 0, sim::Error, "checkpoints to keep must be >= 0, not " + std::to_string(keep));
  std::vector<std::string> all = list_checkpoints(dir, prefix);
  const std::size_t digits = prefix.size() + 1;
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](const std::string& p) {  // later than up_to_step: not pruned
                             const std::string name = fs::path(p).filename().string();
                             return std::stoll(name.substr(digits, name.size() - digits - 3)) > up_to_step;
                           }),
            all.end());
  for (std::size_t i = std::size_t(keep); i < all.size(); ++i) {
    std::error_code ec;
    fs::remove(all[i], ec);
    if (ec) throw sim::Error(all[i] + ": cannot delete old checkpoint: " + ec.message());
  }
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
