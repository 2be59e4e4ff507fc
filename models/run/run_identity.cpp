#include "models/run/run_identity.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "core/runtime/error.hpp"

namespace fs = std::filesystem;

namespace sim::run {

namespace {
const char* const identity_file = ".simulate.run";

/// True when name is PREFIX_<digits>.h5.
bool numbered_h5(const std::string& name, const std::string& prefix) {
  const std::size_t head = prefix.size() + 1;
  if (name.size() <= head + 3 || name.compare(0, head, prefix + "_") != 0 || name.compare(name.size() - 3, 3, ".h5") != 0)
    return false;
  for (std::size_t i = head; i < name.size() - 3; ++i)
    if (name[i] < '0' || name[i] > '9') return false;
  return true;
}
}  // namespace

std::string new_run_id() {
  std::random_device device;
  const unsigned long long id = (std::uint64_t(device()) << 32) ^ std::uint64_t(device());
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", id);
  return b;
}

std::string read_run_id(const std::string& dir) {
  std::ifstream in(dir + "/" + identity_file);
  std::string word, id;
  if (!(in >> word >> id) || word != "run" || id.size() != 16 || id.find_first_not_of("0123456789abcdef") != std::string::npos)
    return "";
  return id;
}

void write_run_id(const std::string& dir, const std::string& id) {
  const std::string path = dir + "/" + identity_file, tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << "run " << id << "\n";
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw Error(path + ": cannot write the run's identity (is the disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw Error(path + ": cannot write the run's identity: " + ec.message());
}

std::string move_earlier_run_aside(const Plan& plan) {
  const std::string& dir = plan.out_dir;
  std::vector<fs::path> theirs;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (numbered_h5(name, plan.ckpt_prefix) || numbered_h5(name, plan.snap_prefix) || name == plan.snap_prefix + ".xdmf" ||
        name == "diagnostics.csv" || name == "diagnostics.h5" || name == identity_file)
      theirs.push_back(it->path());
  }
  if (ec) throw Error(dir + ": cannot list the output directory: " + ec.message());
  if (theirs.empty()) return "";
  std::string id = read_run_id(dir);
  if (id.empty()) id = "unnamed";
  fs::path aside = fs::path(dir) / ("previous_run_" + id);
  for (int n = 2; fs::exists(aside); ++n) aside = fs::path(dir) / ("previous_run_" + id + "_" + std::to_string(n));
  fs::create_directory(aside, ec);
  if (ec) throw Error(aside.string() + ": cannot create it to move the earlier run's files aside: " + ec.message());
  for (const fs::path& p : theirs) {
    fs::rename(p, aside / p.filename(), ec);
    if (ec) throw Error(p.string() + ": cannot move it aside into " + aside.string() + ": " + ec.message());
  }
  return aside.string();
}

}  // namespace sim::run
