#pragma once
// Internal to io/hdf5/: the whole-file checksum trailer every file simkit writes ends with.
#include <string>

namespace sim::io::hdf5 {

/// Appends the trailer to a closed file (written by HDF5 just before); for_path names it in errors.
void append_trailer(const std::string& file, const std::string& for_path);

enum class Trailer { verified, absent };

/// Checks a file's trailer: verified, absent (not written by this simkit), or FileError when
/// it is there and does not match (a damaged or truncated file).
Trailer check_trailer(const std::string& path);

}  // namespace sim::io::hdf5
