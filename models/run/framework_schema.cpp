#include "models/run/framework_schema.hpp"

#include <algorithm>

#include "io/config_text.hpp"

namespace sim::run {

using io::Param;
using io::Schema;

namespace {

Schema run_schema() {
  Schema run{"run", "What to run, on which backend, for how long", {
      Param::string("model", "").required().says("Model to run (`simulate models` lists them)"),
      Param::string("backend", "auto").one_of({"auto", "cuda", "cpu"})
          .says("Backend: auto (cuda when available), cuda or cpu"),
      Param::string("precision", "float64").one_of({"float32", "float64"}).says("Floating-point precision of the fields"),
      Param::integer("steps", 0).at_least(0).says("Number of time steps to run (set this or end_time)"),
      Param::real("end_time", 0.0).at_least(0).in("s").says("Simulated time to reach (set this or steps)"),
      Param::real("dt", 0.0).at_least(0).in("s").says("Fixed time step; unset: derived from cfl"),
      Param::real("cfl", 0.9).range(0, 10).says("Courant number for the derived time step (meaning is the model's)"),
      Param::integer("seed", 0).at_least(0).says("Seed of the random streams"),
      Param::strings("plugins", {}).says("Shared libraries to load before the run"),
  }};
  // The command line wins over the file: run.steps given there replaces the file's end_time
  // (and end_time its steps), run.dt its cfl (and cfl its dt). Both given on the command line
  // stay an error (check_framework_rules).
  run.exclusive = {{"steps", "end_time"}, {"dt", "cfl"}};
  return run;
}

Schema grid_schema() {
  return {"grid", "The uniform Cartesian grid", {
      Param::integers("cells", {64, 64}).at_least(1).lengths(1, 3).says("Cells per dimension (x, y, z)"),
      Param::reals("length", {1.0, 1.0}).positive().lengths(1, 3).in("m").one_per_entry_of("cells")
          .says("Domain size per dimension; unset: 1 per entry of cells"),
      Param::reals("origin", {0.0, 0.0}).lengths(1, 3).in("m").one_per_entry_of("cells")
          .says("Coordinates of the domain's low corner; unset: 0 per entry of cells"),
      Param::integer("ghost", 1).range(1, 4).says("Ghost cells on each side"),
      Param::integers("decomposition", {}).at_least(1)
          .says("Ranks per dimension under mpirun (product = number of ranks); empty: automatic (fewest cut faces)"),
  }};
}

Schema output_schema() {
  return {"output", "Snapshots of the fields (HDF5 + XDMF)", {
      Param::string("directory", "output").says("Directory for snapshots and checkpoints"),
      Param::integer("every", 0).at_least(0).in("steps").says("Write a snapshot every this many steps; 0: off"),
      Param::real("every_time", 0.0).at_least(0).in("s").says("Write a snapshot every this much simulated time; 0: off"),
      Param::integer("diagnostics_every", 0).at_least(0).in("steps")
          .says("Write a diagnostics row every this many steps, with or without snapshots; 0: a row at each snapshot"),
      Param::strings("fields", {}).says("Fields to write; empty: all of the model's"),
      Param::real("diagnostics_every_time", 0.0).at_least(0).in("s")
          .says("Write a diagnostics row every this much simulated time, with or without snapshots; 0: a row at each snapshot"),
      Param::integer("compression", 0).range(0, 9).says("Deflate level of the datasets; 0: none"),
      Param::string("prefix", "snapshot").says("File name prefix of the snapshots"),
  }};
}

Schema checkpoint_schema() {
  return {"checkpoint", "Restart files", {
      Param::integer("every", 0).at_least(0).in("steps").says("Write a checkpoint every this many steps; 0: off"),
      Param::real("every_minutes", 0.0).at_least(0).in("min")
          .says("Write a checkpoint every this many wall-clock minutes; 0: off"),
      Param::integer("keep", 3).range(1, 1000).says("Number of checkpoints kept on disk"),
      Param::string("prefix", "checkpoint").says("File name prefix of the checkpoints"),
  }};
}

std::string names(const std::vector<std::string>& v) {
  return io::join(v, [](const std::string& s) { return s; });
}

/// The error for a missing [run] model where the config shows why: a key written outside any
/// section, or a misspelt [run] header ([runzz], [rnu], or any section holding model).
void explain_missing_model(const io::Config& c, const std::string& registered_list) {
  for (const auto& s : c.sections())
    if (s.name.empty() && !s.items.empty()) throw c.outside_section_error(s.items.front(), framework_schemas());
  std::vector<std::string> known;
  for (const auto& schema : framework_schemas()) known.push_back(schema.section);
  known.push_back("model");
  for (const auto& s : c.sections()) {
    if (s.name.empty() || std::find(known.begin(), known.end(), s.name) != known.end()) continue;
    const bool holds_model = std::any_of(s.items.begin(), s.items.end(), [](const auto& i) { return i.key == "model"; });
    if (!holds_model && io::nearest(s.name, known) != "run") continue;
    throw c.error_at(s, "unknown section [" + s.name + "]; did you mean [run]? ([run] model names the model to run " +
                            registered_list + ")");
  }
}

}  // namespace

std::vector<Schema> framework_schemas() {
  return {run_schema(), grid_schema(), output_schema(), checkpoint_schema(),
          boundary_schema({"periodic", "dirichlet", "neumann"}, "neumann", "value (dirichlet) or outward gradient (neumann)")};
}

Schema boundary_schema(const std::vector<std::string>& kinds, const std::string& default_kind, const std::string& value_doc,
                       int rank) {
  const std::string kind_list = names(kinds);
  Schema bc{"boundary", "Boundary conditions, per face (" + kind_list + ")", {}};
  bc.params.push_back(Param::string("default", default_kind).one_of(kinds).says("Condition on faces not set below: " + kind_list));
  bc.params.push_back(Param::real("default_value", 0.0).says("Value on faces not set below: " + value_doc));
  std::vector<std::string> face_kinds = kinds;
  face_kinds.insert(face_kinds.begin(), "");
  const char* const faces[] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  for (int f = 0; f < 2 * std::min(std::max(rank, 1), 3); ++f) {
    const std::string face = faces[f];
    bc.params.push_back(Param::string(face, "").one_of(face_kinds).says("Condition on the " + face + " face; \"\": use default"));
    bc.params.push_back(Param::real(face + "_value", 0.0).says("Value on the " + face + " face: " + value_doc + "; unset: default_value"));
  }
  return bc;
}

void check_framework_rules(const io::Config& c) {
  auto at = [&](const char* section, const char* key) {
    io::SourceLoc w = c.where(section, key);
    return w.line > 0 ? "line " + std::to_string(w.line) : w.file;
  };
  const bool steps = c.is_set("run", "steps"), end_time = c.is_set("run", "end_time");
  if (!steps && !end_time)
    throw c.error_at("run", "steps", "neither steps nor end_time is set, so the run has no end; set one of them (e.g. steps = 100)");
  if (steps && end_time)
    throw c.error_at("run", "end_time", "both steps (" + at("run", "steps") + ") and end_time are set; keep one of them");
  if (c.is_set("run", "dt") && c.is_set("run", "cfl"))
    throw c.error_at("run", "cfl", "both dt (" + at("run", "dt") +
                                       ") and cfl given; a fixed time step and a derived one exclude each other, remove one");
  if (c.is_set("run", "dt") && !(c.real("run", "dt") > 0))
    throw c.error_at("run", "dt", "expected a real > 0, found " + io::fmt_real(c.real("run", "dt"), false) +
                                      "; remove dt to derive the time step from cfl");
  const auto& cells = c.integers("grid", "cells");
  for (const char* key : {"length", "origin"}) {
    const auto n = c.reals("grid", key).size();
    if (c.is_set("grid", key) && n != cells.size())
      throw c.error_at("grid", key, "has " + std::to_string(n) + " entries but cells has " + std::to_string(cells.size()) +
                                        " (" + io::to_text(cells) + "); give one entry per dimension");
  }
}

void check_model_name(const io::Config& c, const std::vector<std::string>& registered) {
  const std::string list = "(registered models: " + (registered.empty() ? std::string("none") : names(registered)) + ")";
  const io::Config::Item* it = c.find("run", "model");
  if (!it || !it->set) {
    explain_missing_model(c, list);
    throw c.error_at_section("run", "[run] model: required key missing " + list + "; add model = " +
                                        io::quote(registered.empty() ? "name" : registered.front()) + " under [run]");
  }
  if (it->raw.kind != io::detail::RawValue::Kind::string)
    throw c.error_at(*it, it->raw.loc, "[run] model: expected a string naming a model " + list + ", found " + io::describe(it->raw));
  const auto& name = std::get<std::string>(it->raw.scalar);
  if (std::find(registered.begin(), registered.end(), name) != registered.end()) return;
  const std::string near = io::nearest(name, registered);
  throw c.error_at(*it, it->raw.loc, "[run] model: unknown model " + io::quote(name) + " " + list +
                                         (near.empty() ? "" : "; did you mean " + io::quote(near) + "?"));
}

}  // namespace sim::run
