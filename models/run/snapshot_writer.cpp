#include "models/run/snapshot_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "models/run/simulation.hpp"

namespace fs = std::filesystem;

namespace sim::run {

std::string snapshot_name(const std::string& prefix, std::int64_t step) {
  char b[32];
  std::snprintf(b, sizeof b, "_%09lld.h5", (long long)step);
  return prefix + b;
}

std::vector<io::XdmfEntry> rebuild_series(const std::string& dir, const std::string& prefix, std::int64_t step) {
  std::vector<io::XdmfEntry> series;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix + "_", 0) != 0 || entry.path().extension() != ".h5") continue;
    try {
      io::FileSummary s = io::read_summary(entry.path().string());
      if (s.kind != "snapshot") continue;
      if (s.info.step > step) {
        fs::remove(entry.path());
        continue;
      }
      io::XdmfEntry e{name, s.info.time, s.info.step, {}};
      for (const io::FieldData& f : s.fields) e.fields.push_back({f.name, f.unit, f.is_double, f.shape, nullptr});
      series.push_back(e);
    } catch (const io::FileError&) {
    }
  }
  std::sort(series.begin(), series.end(), [](auto& a, auto& b) { return a.step < b.step; });
  return series;
}

SnapshotWriter::SnapshotWriter(std::shared_ptr<Schedule> output_schedule)
    : Activity(std::move(output_schedule), {false, true}) {}

void SnapshotWriter::start(Simulation& sim) {
  for (int i = 0; i < 2; ++i) host_.push_back(std::make_unique<HostFields>(sim.ctx, sim.out_fields));
  if (!sim.resumed) return;
  // the snapshots up to this step stay in the series; later ones are rewritten (rank 0 keeps the series)
  if (sim.comm.rank() == 0) series_ = rebuild_series(sim.plan.out_dir, sim.plan.snap_prefix, sim.clock.step);
  sim.comm.barrier();
}

void SnapshotWriter::run(Simulation& sim) {
  ++sim.counts.snapshots;
  if (sim.out_fields.empty()) return;  // a model without fields (Monte Carlo): the diagnostics are the output
  HostFields& h = *host_[which_];
  which_ ^= 1;
  h.copy_from_device();  // the write of the previous snapshot may still be running (from the other buffer)
  const std::string file = snapshot_name(sim.plan.snap_prefix, sim.clock.step);
  series_.push_back({file, sim.clock.time, sim.clock.step, h.views()});
  if (sim.comm.parallel() && !sim.comm.background_io()) {  // MPI without threads: every rank writes its boxes now
    io::write_snapshot(sim.plan.out_dir + "/" + file, sim.file_info(), sim.grid, h.views(), sim.plan.gzip, sim.comm);
    if (sim.comm.rank() == 0) io::write_xdmf(sim.plan.out_dir + "/" + sim.plan.snap_prefix + ".xdmf", sim.grid, series_);
    return;
  }
  submit(sim, h, file);
}

void SnapshotWriter::submit(Simulation& sim, HostFields& h, const std::string& file) {
  // on the writer thread; on several ranks a collective write into one file, on the
  // background-I/O communicator, and rank 0 writes the XDMF
  writer_.submit([&h, info = sim.file_info(), grid = sim.grid, file, entries = series_, dir = sim.plan.out_dir,
                  prefix = sim.plan.snap_prefix, gz = sim.plan.gzip, io_comm = sim.comm.for_background_io()] {
    io::write_snapshot(dir + "/" + file, info, grid, h.views(), gz, io_comm);
    if (io_comm.rank() == 0) io::write_xdmf(dir + "/" + prefix + ".xdmf", grid, entries);
  });
}

void SnapshotWriter::drain() { writer_.wait(); }

void SnapshotWriter::finish(Simulation& sim) { sim.counts.writer_busy_seconds = writer_.busy_seconds(); }

}  // namespace sim::run
