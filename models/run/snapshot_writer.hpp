#pragma once
// Snapshots (+ the XDMF series over them). The fields are copied to pinned host buffers (two,
// alternating) and written by a background thread while the next steps run: on several
// ranks a collective write into one file on the background-I/O communicator, when MPI grants
// MPI_THREAD_MULTIPLE; otherwise every rank writes its boxes at once. Rank 0 writes the XDMF.
#include <memory>
#include <string>
#include <vector>

#include "io/xdmf.hpp"
#include "models/run/activity.hpp"
#include "models/run/background_writer.hpp"
#include "models/run/host_fields.hpp"

namespace sim::run {

/// File name of the snapshot at step: PREFIX_000000120.h5.
std::string snapshot_name(const std::string& prefix, std::int64_t step);

/// The XDMF series of the snapshots in dir up to step (sorted by step); the later ones are
/// deleted, since the resumed run writes them again. Rank 0's work: call it there only.
std::vector<io::XdmfEntry> rebuild_series(const std::string& dir, const std::string& prefix, std::int64_t step);

/// Writes a snapshot of the output fields at each output.
class SnapshotWriter : public Activity {
 public:
  /// On the output schedule.
  explicit SnapshotWriter(std::shared_ptr<Schedule> output_schedule);
  /// Allocates the host buffers; on resume rebuilds the series (rank 0, then a barrier).
  void start(Simulation& sim) override;
  /// Copies the fields to the host and writes them (in the background where it can).
  void run(Simulation& sim) override;
  /// Waits for the write in flight.
  void drain() override;
  /// Reports the writer's busy time.
  void finish(Simulation& sim) override;

 private:
  void submit(Simulation& sim, HostFields& h, const std::string& file);
  std::vector<io::XdmfEntry> series_;
  std::vector<std::unique_ptr<HostFields>> host_;  // the writer reads these: declared before it, freed after
  int which_ = 0;
  BackgroundWriter writer_;
};

}  // namespace sim::run
