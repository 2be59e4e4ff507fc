#pragma once
// Internal to io/hdf5/: reading a snapshot or checkpoint that open_file verified.
#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5/handles.hpp"

namespace sim::io::hdf5 {

// Whether open_file lets HDF5 read a file that has no checksum trailer. HDF5 trusts lengths
// that nothing else checks (a global heap object's size is copied as stored: one changed byte
// there is a SIGSEGV inside H5HG_read), so a file without a trailer is refused before HDF5
// opens it, except by `simulate info`, which reads it in a child process (describe).
enum class Unverified { refuse, allow };

/// Opens a file for reading after checking its checksum trailer (see Unverified).
File open_file(const std::string& path, Unverified unverified = Unverified::refuse);
/// Whether obj has a link (member) of that name.
bool has_link(hid_t obj, const char* name);
/// Member names of a group, in creation order where the group tracks it, else by name.
std::vector<std::string> member_names(const File& f, hid_t group, const std::string& label);
/// A field's metadata, and its bytes when with_data (HDF5 verifies checksums while reading):
/// all of them, or the box (offset, count) when given (shape stays the dataset's).
FieldData get_field(const File& f, hid_t group, const std::string& name, bool with_data,
                    const std::vector<std::int64_t>& offset = {}, const std::vector<std::int64_t>& count = {});
/// The file's kind attribute ("snapshot" | "checkpoint"); FileError for anything else.
std::string get_kind(const File& f);
/// Whether a checkpoint has its `complete` marker.
bool has_marker(const File& f);
/// Attributes, grid and field list of an open file.
FileSummary get_summary(const File& f);

}  // namespace sim::io::hdf5
