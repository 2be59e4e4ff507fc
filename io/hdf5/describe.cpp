// `simulate info FILE`: what a snapshot or checkpoint holds, in words; a file without a
// checksum trailer is read in a child process, so a crash inside HDF5 cannot take simulate down.
#include "io/hdf5_file.hpp"
#include "io/hdf5/checksum.hpp"
#include "io/hdf5/read.hpp"
#include "io/number_text.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace sim::io {
namespace fs = std::filesystem;
using namespace hdf5;

namespace {

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

/// A digest of a field's values (FNV-1a over their bytes as float64, global row-major order):
/// equal digests mean bit-identical fields, whatever the rank count that wrote them.
std::string field_digest(const FieldData& d) {
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

}  // namespace sim::io
