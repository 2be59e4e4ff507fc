#include "models/run/restore.hpp"

#include <algorithm>
#include <cmath>

#include "core/distributed/decomposition.hpp"
#include "models/run/host_fields.hpp"
#include "models/run/log.hpp"

namespace sim::run {

ChosenCheckpoint choose_checkpoint(const std::vector<std::string>& candidates, const std::vector<std::int64_t>& box_offset,
                                   const std::vector<std::int64_t>& box_count) {
  for (const std::string& path : candidates) {
    try {
      ChosenCheckpoint c{io::read_checkpoint(path, box_offset, box_count), path};
      for (const char* key : {"step", "rng_seed", "rng_offset"})
        if (!c.checkpoint.counters.count(key)) throw io::FileError(path + ": has no counter '" + key + "'");
      if (!c.checkpoint.reals.count("time")) throw io::FileError(path + ": has no real 'time'");
      return c;
    } catch (const std::exception& e) {  // FileError, or a damaged size that cannot be allocated
      log("checkpoint %s is unusable (%s)%s", path.c_str(), e.what(),
          &path != &candidates.back() ? "; trying the one before it" : "");
    }
  }
  throw ResumeError("simulate: error: --resume: no valid checkpoint to resume from");
}

void compare_with_checkpoint(const io::Config& now, const io::Checkpoint& ck, const std::vector<io::Schema>& schemas,
                             const Plan& plan, const std::string& path) {
  if (ck.info.model != now.string("run", "model"))
    throw now.error_at("run", "model", "the checkpoint " + path + " is of model '" + ck.info.model +
                                           "'; resume with the same model or start a new output directory");
  if (ck.info.precision != (plan.float64 ? "float64" : "float32"))
    throw now.error_at("run", "precision", "the checkpoint " + path + " holds " + ck.info.precision +
                                               " fields; resume with the same precision");
  io::GridInfo g = grid_info(plan.grid);
  bool same = g.cells == ck.grid.cells && g.rank == ck.grid.rank;
  for (std::size_t d = 0; same && d < g.spacing.size(); ++d)
    same = std::fabs(g.spacing[d] - ck.grid.spacing[d]) <= 1e-12 * std::fabs(g.spacing[d]) &&
           std::fabs(g.origin[d] - ck.grid.origin[d]) <= 1e-12 * (1 + std::fabs(g.origin[d]));
  if (!same) throw now.error_at("grid", "cells", "the grid differs from the one in checkpoint " + path + "; resume with the same [grid]");
  try {
    io::Config old = io::Config::parse(ck.info.config_toml, path + " (stored config)");
    old.validate(schemas);
    for (const io::Schema& s : schemas)
      for (const io::Param& p : s.params)
        if (!(old.value(s.section, p.name) == now.value(s.section, p.name)))
          log("note: [%s] %s differs from the checkpoint's config; using the new value", s.section.c_str(),
              p.name.c_str());
  } catch (const std::exception& e) {
    log("note: could not compare with the checkpoint's stored config (%s)", e.what());
  }
}

namespace {
/// The box every state field shares on this rank (read only that), or empty ones (read whole fields).
void shared_box(const std::vector<FieldRef>& fields, std::vector<std::int64_t>& offset, std::vector<std::int64_t>& count) {
  if (fields.empty() || fields.front().count.empty()) return;
  offset = fields.front().offset, count = fields.front().count;
  for (const FieldRef& f : fields)
    if (f.offset != offset || f.count != count) offset.clear(), count.clear();
}

/// Restores field f from d, which holds f's box when boxed, else the whole global field.
void restore_field(FieldRef& f, const io::FieldData& d, bool boxed) {
  if (f.count.empty() || boxed) {  // the whole field, or this rank's box as read
    f.from_host(d.bytes.data());
    return;
  }
  // this rank's box of the global field (the checkpoint may come from any rank count)
  std::vector<unsigned char> box(std::size_t(f.local_size()) * (f.is_double ? 8 : 4));
  std::vector<index_t> shape(f.shape.begin(), f.shape.end()), offset(f.offset.begin(), f.offset.end()),
      count(f.count.begin(), f.count.end());
  copy_box(d.bytes.data(), int(shape.size()), shape.data(), offset.data(), count.data(), f.is_double ? 8 : 4, box.data());
  f.from_host(box.data());
}
}  // namespace

double restore_state(Simulation& sim, const ChosenCheckpoint& chosen) {
  const io::Checkpoint& ck = chosen.checkpoint;
  std::vector<std::int64_t> box_offset, box_count;
  shared_box(sim.state_fields, box_offset, box_count);
  for (FieldRef& f : sim.state_fields) {
    auto it = std::find_if(ck.fields.begin(), ck.fields.end(), [&](const io::FieldData& d) { return d.name == f.name; });
    const bool matches = it != ck.fields.end() && it->is_double == f.is_double && it->shape == f.shape;
    if (!matches && f.optional) continue;
    if (!matches)
      throw ResumeError("simulate: error: checkpoint " + chosen.path + " has no matching field '" + f.name + "'");
    restore_field(f, *it, !box_count.empty());
  }
  sim.clock.step = std::int64_t(ck.counters.at("step"));
  sim.clock.time = ck.reals.at("time");
  sim.ctx.set_rng_state(ck.counters.at("rng_seed"), ck.counters.at("rng_offset"));
  sim.model.load_state(ck.counters, ck.reals);
  sim.resumed = true;
  return ck.reals.count("next_output_time") ? ck.reals.at("next_output_time") : 0;
}

double resume(Simulation& sim, const io::Config& config, const std::vector<io::Schema>& schemas, const std::string& which) {
  const std::vector<std::string> candidates =
      which.empty() ? io::list_checkpoints(sim.plan.out_dir, sim.plan.ckpt_prefix) : std::vector<std::string>{which};
  if (candidates.empty())
    throw ResumeError("simulate: error: --resume: no checkpoint named " + sim.plan.ckpt_prefix + "_*.h5 in " +
                      sim.plan.out_dir);
  // on several ranks each reads only its box (when all state fields share one, as grid fields do)
  std::vector<std::int64_t> box_offset, box_count;
  shared_box(sim.state_fields, box_offset, box_count);
  const ChosenCheckpoint chosen = choose_checkpoint(candidates, box_offset, box_count);
  try {
    compare_with_checkpoint(config, chosen.checkpoint, schemas, sim.plan, chosen.path);
  } catch (const io::ConfigError& e) {
    throw ResumeError(e.what());
  }
  const double next_output_time = restore_state(sim, chosen);
  log("resumed from %s at step %lld, t = %.6g", chosen.path.c_str(), (long long)sim.clock.step, sim.clock.time);
  return next_output_time;
}

}  // namespace sim::run
