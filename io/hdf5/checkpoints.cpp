// Checkpoint files of a run by name: the path for a step, the list newest first, pruning.
#include "io/hdf5_file.hpp"

#include <algorithm>
#include <filesystem>
#include <utility>

namespace sim::io {
namespace fs = std::filesystem;

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

}  // namespace sim::io
