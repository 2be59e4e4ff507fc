#include "models/run/checkpointer.hpp"

#include <map>

#include "io/hdf5_file.hpp"
#include "models/run/finite_guard.hpp"
#include "models/run/host_fields.hpp"
#include "models/run/simulation.hpp"

namespace sim::run {

Checkpointer::Checkpointer(std::shared_ptr<Schedule> schedule, std::function<double()> next_output_time)
    : Activity(std::move(schedule), {true, false}), next_output_time_(std::move(next_output_time)) {}

void Checkpointer::run(Simulation& sim) {
  // the snapshot still being written must be on disk (or its failure reported) before a
  // checkpoint past it exists: a resume starts after the checkpoint and would never write
  // that snapshot again. (On several ranks, it would also hold one rank's HDF5 lock while
  // its partner waits in this collective write for the other's.) The Simulation drained it.
  guard_finite(sim.state_fields, sim.clock.step, sim.plan.grid, sim.comm, sim.plan.overflow_cause);
  HostFields h(sim.ctx, sim.state_fields);
  h.copy_from_device();
  std::map<std::string, std::uint64_t> counters = {
      {"step", std::uint64_t(sim.clock.step)}, {"rng_seed", sim.ctx.rng_seed()}, {"rng_offset", sim.ctx.rng_offset()}};
  std::map<std::string, double> reals = {{"time", sim.clock.time},
                                         {"dt", sim.clock.dt},
                                         {"next_output_time", next_output_time_ ? next_output_time_() : 0.0}};
  sim.model.save_state(counters, reals);
  io::write_checkpoint(io::checkpoint_path(sim.plan.out_dir, sim.plan.ckpt_prefix, sim.clock.step), sim.file_info(),
                       sim.grid, h.views(), counters, reals, {{"run_id", sim.plan.run_id}}, sim.comm);
  // only this run's past: a checkpoint of a later step is not one this run wrote before this one
  if (sim.comm.rank() == 0)
    io::prune_checkpoints(sim.plan.out_dir, sim.plan.ckpt_prefix, int(sim.plan.keep), sim.clock.step);
  ++sim.counts.checkpoints;
}

void Checkpointer::finish(Simulation& sim) {
  if (!sim.plan.checkpoints_on()) return;
  const std::vector<std::string> have = io::list_checkpoints(sim.plan.out_dir, sim.plan.ckpt_prefix);
  const bool missing = have.empty() || have.front() != io::checkpoint_path(sim.plan.out_dir, sim.plan.ckpt_prefix, sim.clock.step);
  if (sim.comm.broadcast(std::int64_t(missing)) != 0) sim.run_activity(*this);  // rank 0's view decides
}

}  // namespace sim::run
