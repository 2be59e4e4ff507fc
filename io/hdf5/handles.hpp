#pragma once
// Internal to io/hdf5/: the HDF5 library lock, owned identifiers (Hid) and an open file that
// turns HDF5 failures into FileError naming the file. Every public function of io/hdf5_file.hpp
// holds one H5Lock around its HDF5 use (Debian's serial HDF5 is not thread-safe, and the run loop
// writes from a background thread); every hid_t is owned by an Hid, so it is closed on every path.
#include <hdf5.h>

#include <mutex>
#include <string>
#include <utility>

#include "io/hdf5_file.hpp"

namespace sim::io::hdf5 {

/// The one lock around the HDF5 library.
std::mutex& library_mutex();

// Held for the whole of one public call; also silences HDF5's own printing of errors.
// HDF5's exit-time cleanup (H5close from atexit) is turned off before the library starts: it
// closes whatever is still open, and a file whose close failed on a full disk made it crash.
// simkit closes every file it opens; a file that could not be closed is left to the system.
struct H5Lock {
  std::lock_guard<std::mutex> guard{library_mutex()};
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

/// The innermost message on HDF5's error stack (where the problem was found); clears the stack.
std::string h5_detail();

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

}  // namespace sim::io::hdf5
