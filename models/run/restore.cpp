#include "models/run/restore.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <type_traits>
#include <variant>

#include "core/distributed/decomposition.hpp"
#include "models/run/host_fields.hpp"
#include "models/run/log.hpp"
#include "models/run/run_identity.hpp"

namespace sim::run {

void check_checkpoint_values(const io::Checkpoint& ck, const std::string& path, const Plan& plan) {
  auto bad = [&](const std::string& field, double v, const std::string& why) {
    char b[48];
    std::snprintf(b, sizeof b, "%g", v);
    return io::FileError(path + ": " + field + " = " + b + " " + why +
                         " (written by another program, or edited); a resume cannot continue from it");
  };
  const double step = double(ck.counters.at("step")), time = ck.reals.at("time");
  if (step > 1e15) throw bad("/counters/step", step, "is not a step a run reaches (at most 10^15)");
  if (!std::isfinite(time) || time < 0) throw bad("/reals/time", time, "is not a finite time >= 0");
  if (ck.info.step != std::int64_t(ck.counters.at("step")))
    throw bad("/counters/step", step, "differs from the file's 'step' attribute (" + std::to_string(ck.info.step) + ")");
  for (const char* key : {"dt", "next_output_time"}) {
    const auto it = ck.reals.find(key);
    if (it == ck.reals.end()) continue;
    const std::string field = std::string("/reals/") + key;
    if (!std::isfinite(it->second) || it->second < 0) throw bad(field, it->second, "is not a finite value >= 0");
    if (std::string(key) == "dt" && step > 0 && !(it->second > 0)) throw bad(field, it->second, "is not a time step > 0");
  }
  // a fixed dt: the time is the sum of the steps (the last one shortened to land on end_time)
  const auto dt = ck.reals.find("dt");
  if (!plan.adaptive && dt != ck.reals.end() && step > 0) {
    const double sum = step * dt->second;
    if (time > sum * (1 + 1e-6) + 1e-300 || time < (step - 1) * dt->second * (1 - 1e-6))
      throw bad("/reals/time", time, "does not match " + std::to_string((long long)step) + " steps of dt = " +
                                         [&] { char b[32]; std::snprintf(b, sizeof b, "%g", dt->second); return std::string(b); }());
  }
  if (plan.end_time > 0 && time > plan.end_time * (1 + 1e-12))
    throw bad("/reals/time", time, "is past the run's end (run.end_time = " + [&] {
      char b[32];
      std::snprintf(b, sizeof b, "%g", plan.end_time);
      return std::string(b);
    }() + ")");
}

ChosenCheckpoint choose_checkpoint(const std::vector<std::string>& candidates, const std::vector<std::int64_t>& box_offset,
                                   const std::vector<std::int64_t>& box_count, const std::string& run_id,
                                   const Plan* plan) {
  for (const std::string& path : candidates) {
    try {
      ChosenCheckpoint c{io::read_checkpoint(path, box_offset, box_count), path};
      const auto id = c.checkpoint.strings.find("run_id");
      if (!run_id.empty() && id != c.checkpoint.strings.end() && id->second != run_id)
        throw io::FileError(path + ": belongs to another run (run " + id->second + "; the directory's run is " + run_id +
                            "): a resume continues only its own run");
      for (const char* key : {"step", "rng_seed", "rng_offset"})
        if (!c.checkpoint.counters.count(key)) throw io::FileError(path + ": has no counter '" + key + "'");
      if (!c.checkpoint.reals.count("time")) throw io::FileError(path + ": has no real 'time'");
      if (plan) check_checkpoint_values(c.checkpoint, path, *plan);
      return c;
    } catch (const std::exception& e) {  // FileError, or a damaged size that cannot be allocated
      log("checkpoint %s is unusable (%s)%s", path.c_str(), e.what(),
          &path != &candidates.back() ? "; trying the one before it" : "");
    }
  }
  throw ResumeError("simulate: error: --resume: no valid checkpoint to resume from");
}

namespace {
/// v as TOML-like text, numbers in %g form.
std::string value_text(const io::Value& v) {
  auto number = [](double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", x);
    return std::string(b);
  };
  return std::visit(
      [&](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, bool>) return x ? "true" : "false";
        else if constexpr (std::is_same_v<X, std::string>) return "\"" + x + "\"";
        else if constexpr (std::is_same_v<X, std::int64_t>) return std::to_string(x);
        else if constexpr (std::is_same_v<X, double>) return number(x);
        else {
          std::string s = "[";
          for (std::size_t i = 0; i < x.size(); ++i) {
            s += i ? ", " : "";
            if constexpr (std::is_same_v<typename X::value_type, std::string>) s += "\"" + x[i] + "\"";
            else if constexpr (std::is_same_v<typename X::value_type, double>) s += number(x[i]);
            else s += std::to_string(x[i]);
          }
          return s + "]";
        }
      },
      v);
}

/// A parameter that decides the problem being solved (a model parameter, a boundary, the grid,
/// the time step): a resume that changes one continues another problem from this state. The
/// numerical controls of a model (solver tolerances and iteration caps, the choice of solver
/// or path, mcpi's batch) change how it is solved, not what: they are only noted.
bool physical(const std::string& section, const std::string& key) {
  auto has = [&](const char* part) { return key.find(part) != std::string::npos; };
  if (section == "model")
    return !(has("tol") || has("iterations") || has("solver") || key == "path" || key == "batch");
  if (section == "boundary") return true;
  if (section == "grid") return key != "decomposition";
  return section == "run" && (key == "dt" || key == "cfl");
}
}  // namespace

void compare_with_checkpoint(const io::Config& now, const io::Checkpoint& ck, const std::vector<io::Schema>& schemas,
                             const Plan& plan, const std::string& path, bool accept_changes) {
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
  std::string changed;  // physical parameters that differ
  try {
    io::Config old = io::Config::parse(ck.info.config_toml, path + " (stored config)");
    old.validate(schemas);
    for (const io::Schema& s : schemas)
      for (const io::Param& p : s.params) {
        const io::Value &was = old.value(s.section, p.name), &is = now.value(s.section, p.name);
        if (was == is) continue;
        if (physical(s.section, p.name))
          changed += std::string(changed.empty() ? "" : ", ") + "[" + s.section + "] " + p.name + " (" +
                     value_text(was) + " in the checkpoint, " + value_text(is) + " now)";
        else
          log("note: [%s] %s differs from the checkpoint's config; using the new value", s.section.c_str(),
              p.name.c_str());
      }
  } catch (const std::exception& e) {
    log("note: could not compare with the checkpoint's stored config (%s)", e.what());
  }
  if (changed.empty()) return;
  if (!accept_changes)
    throw ResumeError("simulate: error: --resume: the config changes the physics of the run in " + path + ": " + changed +
                      "; continuing would solve another problem from this state. Resume with the checkpoint's values, "
                      "start a new run in another output directory, or add --accept-changes to continue with the new values");
  log("note: --accept-changes: continuing %s with changed parameters: %s", path.c_str(), changed.c_str());
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
  try {
    sim.model.load_state(ck.counters, ck.reals);
  } catch (const std::out_of_range& e) {  // a counter or real the model saves is missing
    throw io::FileError(chosen.path + ": lacks a value of the model's state under /counters or /reals (" + e.what() +
                        "); written by another program or another version of the model");
  } catch (const io::FileError&) {
    throw;
  } catch (const Error& e) {
    throw io::FileError(chosen.path + ": the model's state in it is not valid (" + e.what() + ")");
  }
  sim.resumed = true;
  return ck.reals.count("next_output_time") ? ck.reals.at("next_output_time") : 0;
}

double resume(Simulation& sim, const io::Config& config, const std::vector<io::Schema>& schemas, const std::string& which,
              bool accept_changes) {
  const std::vector<std::string> candidates =
      which.empty() ? io::list_checkpoints(sim.plan.out_dir, sim.plan.ckpt_prefix) : std::vector<std::string>{which};
  if (candidates.empty())
    throw ResumeError("simulate: error: --resume: no checkpoint named " + sim.plan.ckpt_prefix + "_*.h5 in " +
                      sim.plan.out_dir);
  // on several ranks each reads only its box (when all state fields share one, as grid fields do)
  std::vector<std::int64_t> box_offset, box_count;
  shared_box(sim.state_fields, box_offset, box_count);
  // the directory's run: only its checkpoints are continued (one named on the command line may
  // come from elsewhere, but not from another run that wrote into this directory)
  const std::string dir_id = read_run_id(sim.plan.out_dir);
  // each candidate in turn (newest first): one that reads back whole and valid, and whose
  // state the model takes; a config that does not fit is an error, not a reason to fall back
  for (std::size_t next = 0;;) {
    const std::vector<std::string> rest(candidates.begin() + std::ptrdiff_t(next), candidates.end());
    const ChosenCheckpoint chosen = choose_checkpoint(rest, box_offset, box_count, which.empty() ? dir_id : "", &sim.plan);
    next = std::size_t(std::find(candidates.begin(), candidates.end(), chosen.path) - candidates.begin()) + 1;
    const auto own = chosen.checkpoint.strings.find("run_id");
    const std::string ck_id = own != chosen.checkpoint.strings.end() ? own->second : "";
    if (!which.empty() && !dir_id.empty() && !ck_id.empty() && ck_id != dir_id)
      throw ResumeError("simulate: error: --resume " + which + ": belongs to run " + ck_id + ", but the output directory " +
                        sim.plan.out_dir + " holds the files of run " + dir_id +
                        "; resume into the checkpoint's own directory, or into a new one (--output DIR)");
    try {
      compare_with_checkpoint(config, chosen.checkpoint, schemas, sim.plan, chosen.path, accept_changes);
    } catch (const io::ConfigError& e) {
      throw ResumeError(e.what());
    }
    double next_output_time = 0;
    try {
      next_output_time = restore_state(sim, chosen);
    } catch (const io::FileError& e) {
      log("checkpoint %s is unusable (%s)%s", chosen.path.c_str(), e.what(),
          next < candidates.size() ? "; trying the one before it" : "");
      if (next < candidates.size()) continue;
      throw ResumeError("simulate: error: --resume: no valid checkpoint to resume from");
    }
    // the run keeps its identity (a checkpoint without one, from before identities: a new one)
    std::string id = !ck_id.empty() ? ck_id : !dir_id.empty() ? dir_id : new_run_id();
    sim.plan.run_id = id = sim.comm.broadcast(id);
    if (sim.comm.rank() == 0 && id != dir_id) write_run_id(sim.plan.out_dir, id);
    log("resumed from %s at step %lld, t = %.6g", chosen.path.c_str(), (long long)sim.clock.step, sim.clock.time);
    return next_output_time;
  }
}

}  // namespace sim::run
