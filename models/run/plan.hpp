#pragma once
// The resolved settings of a run: what the config and the command line come to once they
// are checked (grid, precision, dt and steps, output and checkpoint cadence, file names).
#include <cstdint>
#include <string>
#include <vector>

#include "models/model.hpp"

namespace sim::run {

/// The resolved settings of a run.
struct Plan {
  GridSpec grid;
  bool float64 = true;
  double dt = 0;                ///< the fixed dt (the first one when adaptive)
  std::int64_t total_steps = 0;
  double end_time = 0;          ///< > 0: the last step is shortened to end exactly here
  bool adaptive = false;        ///< the model picks each dt (model.next_dt(cfl))
  double cfl = 0;
  std::string time_unit = "s";  ///< the model's unit of time ("" when dimensionless)
  std::string out_dir, snap_prefix, ckpt_prefix;
  std::int64_t output_every = 0, checkpoint_every = 0, keep = 3;
  std::int64_t diagnostics_every = 0;  ///< > 0: a diagnostics row every this many steps, apart from snapshots
  double output_every_time = 0, checkpoint_minutes = 0;
  double diagnostics_every_time = 0;  ///< > 0: a diagnostics row every this much simulated time, apart from snapshots
  int gzip = 0;
  std::vector<std::string> output_fields;  ///< empty: the model's snapshot fields
  std::string run_id;                      ///< the run's identity (run_identity.hpp), in its checkpoints
  std::string overflow_cause;              ///< set when the input's values are so large that arithmetic overflows
  /// True when snapshots (or diagnostics rows) are written at all.
  bool outputs_on() const { return output_every > 0 || output_every_time > 0; }
  /// True when checkpoints are scheduled (by steps or wall time).
  bool checkpoints_on() const { return checkpoint_every > 0 || checkpoint_minutes > 0; }
};

}  // namespace sim::run
