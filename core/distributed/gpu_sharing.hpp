#pragma once
// Whether ranks share a GPU. NCCL refuses a communicator with two ranks on one GPU, so such
// runs (more ranks than GPUs on a machine) exchange through host buffers (MPI) instead.
#include <string>
#include <utility>
#include <vector>

namespace sim {

/// The first two ranks (in rank order) whose GPU keys are equal (a key names the host and the
/// GPU's PCI bus id), or {-1, -1} when every rank has a GPU of its own.
inline std::pair<int, int> first_shared_gpu(const std::vector<std::string>& keys) {
  for (std::size_t b = 1; b < keys.size(); ++b)
    for (std::size_t a = 0; a < b; ++a)
      if (keys[a] == keys[b]) return {int(a), int(b)};
  return {-1, -1};
}

}  // namespace sim
