#pragma once
// diagnostics.csv and diagnostics.h5: one row per output (step, time, then the model's
// diagnostics). Rank 0 writes them; every rank computes the diagnostics (collective). On
// resume the CSV keeps its rows up to the resumed step; a damaged or cut row (a crash
// mid-write, a full disk) is dropped with a note, and so is every row after it.
#include <string>
#include <vector>

#include "models/run/activity.hpp"

namespace sim::run {

/// One row of diagnostics.csv: exactly `columns` numbers, the first a step count, into out.
/// False when the row is damaged.
bool parse_diagnostics_row(const std::string& line, std::size_t columns, std::vector<double>& out);

/// The CSV text (header included) of path's rows up to `step`, their columns appended to
/// columns (one vector per column); stops at the first damaged or cut row, with a note.
std::string kept_diagnostics(const std::string& path, std::int64_t step, std::vector<std::vector<double>>& columns);

/// Replaces path's content with text as every output file is written: PATH.tmp, fsync, an
/// atomic rename; on failure (a full disk) the temporary is removed and path is left as it
/// was. Throws Error.
void replace_file(const std::string& path, const std::string& text);

/// Appends a diagnostics row at each output, or on its own cadence (output.diagnostics_every).
class DiagnosticsWriter : public Activity {
 public:
  /// On the output schedule, or on its own (own_cadence: rows apart from snapshots, and
  /// diagnostics.h5 rewritten at the end rather than at each row).
  DiagnosticsWriter(std::shared_ptr<Schedule> schedule, bool own_cadence = false);
  /// Writes the CSV header, or on resume trims the CSV to the resumed step.
  void start(Simulation& sim) override;
  /// Appends a row (collective: the model's diagnostics).
  void run(Simulation& sim) override;
  /// On its own cadence: writes diagnostics.h5 from the rows.
  void finish(Simulation& sim) override;

 private:
  bool own_cadence_ = false;
  std::int64_t last_row_step_ = -1;  // the step of the last row (a step gets one row)
  std::string csv_;
  std::vector<std::string> names_, units_;
  std::vector<std::vector<double>> columns_;
};

}  // namespace sim::run
