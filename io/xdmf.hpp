#pragma once
// The XDMF 3 time series over snapshot files, so ParaView/VisIt open a whole run at once.
// Standard headers only (nvcc-compiled code may include this). Layout: docs/output-format.md.
#include <cstdint>
#include <string>
#include <vector>

#include "io/hdf5_file.hpp"

namespace sim::io {

/// One snapshot in the series.
struct XdmfEntry {
  std::string file;  ///< relative to the .xdmf
  double time = 0;
  std::int64_t step = 0;
  std::vector<FieldView> fields;  ///< name, is_double, shape used; data ignored
};

/// Writes (atomically, PATH.tmp + rename) an XDMF 3 temporal collection: one CoRectMesh per entry, cell-centred fields.
void write_xdmf(const std::string& path, const GridInfo& grid, const std::vector<XdmfEntry>& entries);

}  // namespace sim::io
