#pragma once
// Resume: choose a checkpoint (the one named, or the newest that reads back whole), check it
// against the config (model, precision and grid must match; other changes are noted), and
// restore the fields (this rank's box), the clock, the random stream and the model's state.
#include <optional>
#include <string>
#include <vector>

#include "core/runtime/error.hpp"
#include "io/config.hpp"
#include "io/hdf5_file.hpp"
#include "models/run/simulation.hpp"

namespace sim::run {

/// A resume that cannot go on (no usable checkpoint, another grid): bad input, exit code 2.
/// what() is the whole message line.
struct ResumeError : Error {
  using Error::Error;
};

/// A checkpoint read back, and its path.
struct ChosenCheckpoint {
  io::Checkpoint checkpoint;
  std::string path;
};

/// The first of candidates (newest first) that reads back whole with the counters a resume
/// needs, belongs to run_id when that is given, and holds values a run of plan writes (when
/// given); each unusable one is noted. box: this rank's part (empty: whole fields). Throws
/// ResumeError when none is usable.
ChosenCheckpoint choose_checkpoint(const std::vector<std::string>& candidates, const std::vector<std::int64_t>& box_offset,
                                   const std::vector<std::int64_t>& box_count, const std::string& run_id = "",
                                   const Plan* plan = nullptr);
/// The values a checkpoint holds must be ones a run of plan writes: step at most 10^15 and
/// equal to the 'step' attribute, time finite, >= 0, the sum of its steps for a fixed dt and
/// not past run.end_time; dt and next_output_time finite and >= 0. Throws io::FileError naming
/// the file and the field.
void check_checkpoint_values(const io::Checkpoint& ck, const std::string& path, const Plan& plan);

/// Config changes against checkpoint ck: model, grid and precision must match (ConfigError);
/// a changed physical parameter ([model], [boundary], [grid], run.dt, run.cfl) is a ResumeError
/// unless accept_changes; the rest is noted.
void compare_with_checkpoint(const io::Config& now, const io::Checkpoint& ck, const std::vector<io::Schema>& schemas,
                             const Plan& plan, const std::string& path, bool accept_changes = false);

/// Restores sim's fields, clock, random stream and model state from ck; returns the output
/// schedule's next time. Throws ResumeError when a field is missing or of another shape.
double restore_state(Simulation& sim, const ChosenCheckpoint& ck);

/// The whole resume: which = "" for the newest valid checkpoint of the directory's run, else a
/// path. Sets sim.plan.run_id. Returns the output schedule's next time; throws ResumeError.
double resume(Simulation& sim, const io::Config& config, const std::vector<io::Schema>& schemas, const std::string& which,
              bool accept_changes = false);

}  // namespace sim::run
