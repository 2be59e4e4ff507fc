// Reading snapshots and checkpoints: every byte verified (checksum trailer, Fletcher32, no
// links or data outside the file) before it is trusted. Layout: docs/output-format.md.
#include "io/hdf5_file.hpp"
#include "io/hdf5/checksum.hpp"
#include "io/hdf5/read.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

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

namespace hdf5 {
namespace {

// True when the file begins with HDF5's 8-byte signature (where simkit's files have it).
bool starts_with_hdf5_signature(const std::string& path) {
  static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char head[8] = {};
  std::FILE* in = std::fopen(path.c_str(), "rb");
  const bool ok = in && std::fread(head, 1, 8, in) == 8 && std::memcmp(head, signature, 8) == 0;
  if (in) std::fclose(in);
  return ok;
}

}  // namespace

File open_file(const std::string& path, Unverified unverified) {
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

namespace {
bool has_attr(hid_t obj, const char* name) { return H5Aexists(obj, name) > 0; }
}  // namespace
bool has_link(hid_t obj, const char* name) { return H5Lexists(obj, name, H5P_DEFAULT) > 0; }

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

FieldData get_field(const File& f, hid_t group, const std::string& name, bool with_data,
                    const std::vector<std::int64_t>& offset, const std::vector<std::int64_t>& count) {
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

namespace {

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

}  // namespace

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

}  // namespace hdf5

using namespace hdf5;

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
    std::string list_text;
    for (const std::string& n : member_names(f, group, "/fields")) list_text += (list_text.empty() ? "" : ", ") + n;
    f.bad("no field '" + name + "'; it has: " + list_text);
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

}  // namespace sim::io
