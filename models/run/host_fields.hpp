#pragma once
// Host copies of fields for output: one pinned buffer per field, and their views for io/.
#include <vector>

#include "core/runtime/host_buffer.hpp"
#include "io/hdf5_file.hpp"
#include "models/model.hpp"

namespace sim::run {

/// Host copies of fields: pinned buffers, one per field.
struct HostFields {
  std::vector<FieldRef> refs;
  std::vector<HostBuffer<unsigned char>> buffers;
  /// Buffers for this rank's part of each of refs.
  HostFields(const Context& ctx, std::vector<FieldRef> refs);
  /// Copies every field from the device into its buffer.
  void copy_from_device();
  /// The buffers as io::FieldViews (names, units, shapes and this rank's boxes).
  std::vector<io::FieldView> views() const;
};

/// io's description of a grid: cells, origin and spacing per dimension.
io::GridInfo grid_info(const GridSpec& g);

}  // namespace sim::run
