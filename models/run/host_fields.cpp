#include "models/run/host_fields.hpp"

namespace sim::run {

HostFields::HostFields(const Context& ctx, std::vector<FieldRef> r) : refs(std::move(r)) {
  for (auto& f : refs) buffers.emplace_back(ctx, std::size_t(f.local_size()) * (f.is_double ? 8 : 4));
}

void HostFields::copy_from_device() {
  for (std::size_t i = 0; i < refs.size(); ++i) refs[i].to_host(buffers[i].data());
}

std::vector<io::FieldView> HostFields::views() const {
  std::vector<io::FieldView> v;
  for (std::size_t i = 0; i < refs.size(); ++i)
    v.push_back({refs[i].name, refs[i].unit, refs[i].is_double, refs[i].shape, buffers[i].data(), refs[i].offset,
                 refs[i].count});
  return v;
}

io::GridInfo grid_info(const GridSpec& g) {
  io::GridInfo info;
  info.rank = g.rank;
  for (int d = 0; d < g.rank; ++d) {
    info.cells.push_back(g.cells[d]);
    info.origin.push_back(g.origin[d]);
    info.spacing.push_back(g.length[d] / double(g.cells[d]));
  }
  return info;
}

}  // namespace sim::run
