#pragma once
// The run's summary: the closing lines of the log, and the --stats JSON (serialised by
// nlohmann::json; tools and scripts read its keys: steps, ms_per_step, output_blocked_seconds, ...).
#include <cstdint>
#include <string>

namespace sim::run {

class Simulation;

/// The figures of a finished run.
struct RunSummary {
  std::string model, device, backend, commit;
  std::int64_t cells = 0, steps = 0, snapshots = 0, checkpoints = 0;
  double wall_seconds = 0, ms_per_step = 0, cell_updates_per_second = 0;
  double output_blocked_seconds = 0, writer_busy_seconds = 0;
  std::uint64_t peak_memory_bytes = 0;
};

/// The summary of sim's finished run of model `model`, built from commit `commit`.
RunSummary summarize(const Simulation& sim, const std::string& model, const std::string& commit);
/// The summary as a JSON object (keys in the order above), indented, with a final newline.
std::string summary_json(const RunSummary& s);
/// Writes summary_json(s) to path; throws Error when it cannot.
void write_summary(const std::string& path, const RunSummary& s);
/// Logs the closing lines: steps and rate, bandwidth, output, peak memory, diagnostics.
void log_summary(Simulation& sim, const RunSummary& s);

}  // namespace sim::run
