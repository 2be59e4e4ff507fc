#include "models/run/diagnostics_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "core/runtime/error.hpp"
#include "models/run/log.hpp"
#include "models/run/simulation.hpp"

namespace sim::run {

bool parse_diagnostics_row(const std::string& line, std::size_t columns, std::vector<double>& out) {
  out.clear();
  std::size_t at = 0;
  while (at <= line.size()) {
    const std::size_t comma = std::min(line.find(',', at), line.size());
    const std::string cell = line.substr(at, comma - at);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(cell.c_str(), &end);
    if (cell.empty() || end != cell.c_str() + cell.size()) return false;
    out.push_back(v);
    at = comma + 1;
  }
  return out.size() == columns && std::isfinite(out[0]) && out[0] >= 0 && out[0] == std::floor(out[0]);
}

std::string kept_diagnostics(const std::string& path, std::int64_t step, std::vector<std::vector<double>>& columns) {
  std::ifstream in(path);
  std::string line, kept;
  std::int64_t line_no = 0;
  for (bool first_line = true; std::getline(in, line); first_line = false) {
    ++line_no;
    const bool ended = !in.eof();  // a last line without its newline was cut short
    if (first_line) {
      kept += line + "\n";
      continue;
    }
    std::vector<double> cells;
    if (!parse_diagnostics_row(line, columns.size(), cells) || !ended) {
      log("note: %s line %lld is damaged or cut short (%s); it and the rows after it are dropped", path.c_str(),
          (long long)line_no, ended ? "not the row of numbers expected" : "no end of line");
      break;
    }
    if (cells[0] > double(step)) continue;
    kept += line + "\n";
    for (std::size_t c = 0; c < columns.size(); ++c) columns[c].push_back(cells[c]);
  }
  return kept;
}

void replace_file(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(tmp + ": cannot create (" + std::strerror(errno) + ")");
  int error = 0;
  for (std::size_t done = 0; done < text.size() && !error;) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) error = n < 0 ? errno : ENOSPC;
    else done += std::size_t(n);
  }
  if (!error && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && !error) error = errno;
  if (!error && ::rename(tmp.c_str(), path.c_str()) != 0) error = errno;
  if (error) {
    ::unlink(tmp.c_str());  // its space back; the file it was to replace is untouched
    throw Error(path + ": cannot rewrite (" + std::strerror(error) + "); is the disk full? The file is left as it was");
  }
}

DiagnosticsWriter::DiagnosticsWriter(std::shared_ptr<Schedule> schedule, bool own_cadence)
    : Activity(std::move(schedule), {false, !own_cadence}), own_cadence_(own_cadence) {}

void DiagnosticsWriter::start(Simulation& sim) {
  csv_ = sim.plan.out_dir + "/diagnostics.csv";
  names_ = {"step", "time"}, units_ = {"", sim.plan.time_unit};
  for (const Diagnostic& d : sim.model.diagnostics()) names_.push_back(d.name), units_.push_back(d.unit);
  columns_.assign(names_.size(), {});
  if (sim.resumed) last_row_step_ = sim.clock.step;  // its row was written before the checkpoint
  if (sim.comm.rank() != 0) return;  // rank 0 alone writes diagnostics.csv / .h5
  if (sim.resumed && std::ifstream(csv_).good()) {  // (a resumed run may start in a new directory)
    replace_file(csv_, kept_diagnostics(csv_, sim.clock.step, columns_));
    return;
  }
  std::ofstream header(csv_, std::ios::trunc);
  for (std::size_t c = 0; c < names_.size(); ++c)
    header << (c ? "," : "") << names_[c] << (units_[c].empty() ? "" : " [" + units_[c] + "]");
  header << "\n";
  header.flush();
  if (!header) throw Error(csv_ + ": cannot write (" + std::strerror(errno) + "); is the disk full?");
}

void DiagnosticsWriter::run(Simulation& sim) {
  if (sim.clock.step == last_row_step_) return;  // same on every rank: the row is collective
  last_row_step_ = sim.clock.step;
  std::vector<double> row = {double(sim.clock.step), sim.clock.time};
  for (const Diagnostic& d : sim.model.diagnostics()) row.push_back(d.value);  // collective: every rank
  if (sim.comm.rank() != 0) return;
  std::ofstream out(csv_, std::ios::app);
  char b[64];
  for (std::size_t c = 0; c < row.size() && c < columns_.size(); ++c) {
    std::snprintf(b, sizeof b, c == 0 ? "%.0f" : ",%.17g", row[c]);
    out << b;
    columns_[c].push_back(row[c]);
  }
  out << "\n";
  out.flush();
  if (!out) throw Error(csv_ + ": cannot append a row (" + std::strerror(errno) + "); is the disk full?");
  if (!own_cadence_) io::write_timeseries(sim.plan.out_dir + "/diagnostics.h5", sim.file_info(), names_, units_, columns_);
}

void DiagnosticsWriter::finish(Simulation& sim) {
  if (own_cadence_ && sim.comm.rank() == 0)
    io::write_timeseries(sim.plan.out_dir + "/diagnostics.h5", sim.file_info(), names_, units_, columns_);
}

}  // namespace sim::run
