#pragma once
// The one place for simkit's tuning knobs: the SIMKIT_* environment variables that change how
// (never what) the code computes, or that select a path for comparisons. Each is read from
// the environment once, validated (a bad value is an Error naming the variable, what it
// accepts and the fix), listed by `simulate --print-config` and printed by `--dry-run` and the
// run summary when set. Code reads the parsed values through current(); tests change them
// through Scoped, never through the environment. docs/tuning.md is the table of them.
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "core/runtime/error.hpp"

namespace sim::tuning {

/// The parsed knobs. -1 (or the default string) where a knob is unset: the code's default applies.
struct Values {
  std::string halo = "auto";           ///< SIMKIT_HALO: ghost-exchange path of GPU fields
  std::string nccl_order = "overlap";  ///< SIMKIT_NCCL_ORDER: NCCL stream ordering (diagnostic)
  std::string nccl_priority = "high";  ///< SIMKIT_NCCL_PRIORITY: NCCL stream priority (diagnostic)
  int stencil_rows = -1;               ///< SIMKIT_STENCIL_ROWS: cells a thread along dimension 0
  int stencil_pairs = -1;              ///< SIMKIT_STENCIL_PAIRS: paired-column 3D pass, 0 or 1
  int stencil_block_y = -1;            ///< SIMKIT_STENCIL_BLOCK_Y: 3D block height, 8 or 16
  int for_each_rows = -1;              ///< SIMKIT_FOR_EACH_ROWS: planes a thread of a 3D GPU for_each walks, 0: one
  int for_each_block_y = -1;           ///< SIMKIT_FOR_EACH_BLOCK_Y: rows of dimension 1 a block of that launch covers
  long long cublas_workspace_mib = -1;  ///< SIMKIT_CUBLAS_WORKSPACE_MIB: cuBLAS workspace, 0: cuBLAS's own
  int device_steps = -1;               ///< SIMKIT_DEVICE_STEPS: adaptive steps as one device loop, 0 or 1
  std::string decomposed_steps = "auto";  ///< SIMKIT_DECOMPOSED_STEPS: how the fluid's steps run on several ranks
  int mg_pre_smooth = -1;              ///< SIMKIT_MG_SMOOTH (first): sweeps before the coarse correction
  int mg_post_smooth = -1;             ///< SIMKIT_MG_SMOOTH (second): sweeps after it
  long long mg_block_cells = -1;       ///< SIMKIT_MG_BLOCK_CELLS: levels run as one launch from this size
  int mg_tiles = -1;                   ///< SIMKIT_MG_TILES: smoothing on shared-memory tiles, 0 or 1
  long long mg_gather_cells = -1;      ///< SIMKIT_MG_GATHER_CELLS: gather a level onto every rank below this
  int fluid_guess_order = -1;          ///< SIMKIT_FLUID_GUESS_ORDER: pressure extrapolation degree 0, 1, 3
  int fluid_scale_guess = -1;          ///< SIMKIT_FLUID_SCALE_GUESS: rescale a stage's pressure guess, 0 or 1
  int fluid_fill_every_stage = -1;     ///< SIMKIT_FLUID_FILL_EVERY_STAGE: fill ghosts after every stage, 0 or 1
  long long transpose_chunks = -1;     ///< SIMKIT_TRANSPOSE_CHUNKS: pieces of the distributed transform solve's transposes
  std::string transpose_path = "auto";  ///< SIMKIT_TRANSPOSE_PATH: how the slab transposes move between GPUs
  int copy_lanes = -1;                 ///< SIMKIT_COPY_LANES: side streams the copy engines' moves to one GPU take
  std::string copies_back = "planes";  ///< SIMKIT_COPIES_BACK: what the 3D solve's copies back run beside
};

/// One knob: its variable, the values it accepts, its default, what it changes, and its parser.
struct Knob {
  const char* name;
  const char* accepts;
  const char* fallback;
  const char* what;
  void (*parse)(const std::string& text, Values& into);  ///< throws Error on a value it does not accept
};

namespace detail {

/// The error for a bad value: the variable, the value, what it accepts, the fix.
inline Error bad_value(const char* name, const std::string& text, const char* accepts) {
  return Error(std::string(name) + "='" + text + "': expected " + accepts + "; fix the value or unset " + name +
               " (docs/tuning.md lists the knobs)");
}

/// text as a whole number of at least low, else the knob's error.
inline long long whole(const char* name, const std::string& text, long long low, const char* accepts) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    throw bad_value(name, text, accepts);
  }
  if (used != text.size() || v < low) throw bad_value(name, text, accepts);
  return v;
}

/// text as one of the numbers allowed, else the knob's error.
inline int one_of(const char* name, const std::string& text, std::initializer_list<int> allowed, const char* accepts) {
  const long long v = whole(name, text, 0, accepts);
  for (int a : allowed)
    if (v == a) return a;
  throw bad_value(name, text, accepts);
}

/// text as one of the words allowed, else the knob's error.
inline std::string word(const char* name, const std::string& text, std::initializer_list<const char*> allowed,
                        const char* accepts) {
  for (const char* a : allowed)
    if (text == a) return text;
  throw bad_value(name, text, accepts);
}

/// SIMKIT_MG_SMOOTH: "pre,post", both at least 1.
inline void parse_mg_smooth(const std::string& text, Values& v) {
  const char* accepts = "two sweep counts of at least 1, e.g. \"2,2\"";
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos) throw bad_value("SIMKIT_MG_SMOOTH", text, accepts);
  v.mg_pre_smooth = int(whole("SIMKIT_MG_SMOOTH", text.substr(0, comma), 1, accepts));
  v.mg_post_smooth = int(whole("SIMKIT_MG_SMOOTH", text.substr(comma + 1), 1, accepts));
}

}  // namespace detail

/// Every knob, in the order docs/tuning.md lists them.
inline const std::vector<Knob>& knobs() {
  using namespace detail;
  static const std::vector<Knob> all = {
      {"SIMKIT_HALO", "auto, nccl or host", "auto",
       "ghost-exchange path of GPU fields on several ranks (auto: NCCL for large faces and blocking exchanges)",
       [](const std::string& t, Values& v) { v.halo = word("SIMKIT_HALO", t, {"auto", "nccl", "host"}, "auto, nccl or host"); }},
      {"SIMKIT_NCCL_ORDER", "overlap, serial, deferred or hostsync", "overlap",
       "diagnostic: how NCCL transfers are ordered against the kernels queued beside them",
       [](const std::string& t, Values& v) {
         v.nccl_order = word("SIMKIT_NCCL_ORDER", t, {"overlap", "serial", "deferred", "hostsync"},
                             "overlap, serial, deferred or hostsync");
       }},
      {"SIMKIT_NCCL_PRIORITY", "high or low", "high", "diagnostic: the NCCL stream's priority (low: the compute stream's)",
       [](const std::string& t, Values& v) { v.nccl_priority = word("SIMKIT_NCCL_PRIORITY", t, {"high", "low"}, "high or low"); }},
      {"SIMKIT_STENCIL_ROWS", "1, 2, 4 or 8", "4 (float32), 2 (float64)", "cells a thread updates along dimension 0 in the stencil pass",
       [](const std::string& t, Values& v) { v.stencil_rows = one_of("SIMKIT_STENCIL_ROWS", t, {1, 2, 4, 8}, "1, 2, 4 or 8"); }},
      {"SIMKIT_STENCIL_PAIRS", "0 or 1", "1", "the 3D stencil pass updates two adjacent cells a thread where the layout allows",
       [](const std::string& t, Values& v) { v.stencil_pairs = one_of("SIMKIT_STENCIL_PAIRS", t, {0, 1}, "0 or 1"); }},
      {"SIMKIT_STENCIL_BLOCK_Y", "8 or 16", "8", "rows of dimension 1 a block of the 3D stencil pass covers (16: where the tile fits)",
       [](const std::string& t, Values& v) { v.stencil_block_y = one_of("SIMKIT_STENCIL_BLOCK_Y", t, {8, 16}, "8 or 16"); }},
      {"SIMKIT_FOR_EACH_ROWS", "0, 1, 2, 4, 8 or 16", "up to 4, at least 16 blocks a multiprocessor",
       "planes along dimension 0 a thread of a 3D GPU for_each walks in 32-wide blocks (0: 256-wide blocks, one plane each)",
       [](const std::string& t, Values& v) {
         v.for_each_rows = one_of("SIMKIT_FOR_EACH_ROWS", t, {0, 1, 2, 4, 8, 16}, "0, 1, 2, 4, 8 or 16");
       }},
      {"SIMKIT_FOR_EACH_BLOCK_Y", "4 or 8", "8", "rows of dimension 1 a block of the 3D GPU for_each's walking launch covers",
       [](const std::string& t, Values& v) { v.for_each_block_y = one_of("SIMKIT_FOR_EACH_BLOCK_Y", t, {4, 8}, "4 or 8"); }},
      {"SIMKIT_CUBLAS_WORKSPACE_MIB", "a whole number of MiB, 0 or more", "32 from Hopper on, 4 before",
       "the cuBLAS workspace each context gives its handle (0: cuBLAS's own)",
       [](const std::string& t, Values& v) {
         v.cublas_workspace_mib = whole("SIMKIT_CUBLAS_WORKSPACE_MIB", t, 0, "a whole number of MiB, 0 or more");
       }},
      {"SIMKIT_DEVICE_STEPS", "0 or 1", "1", "adaptive-dt steps up to the next output run as one device loop (0: a host wait a step)",
       [](const std::string& t, Values& v) { v.device_steps = one_of("SIMKIT_DEVICE_STEPS", t, {0, 1}, "0 or 1"); }},
      {"SIMKIT_DECOMPOSED_STEPS", "auto, loop, replays or host", "auto",
       "the fluid's steps on several ranks: recorded, a batch as one device loop (loop, and auto) or as per-step "
       "replays the host queues one ahead (replays, and auto where the 3D solve's transposes run on the copy engines); "
       "host: not recorded, dt reduced over the ranks on the host",
       [](const std::string& t, Values& v) {
         v.decomposed_steps =
             word("SIMKIT_DECOMPOSED_STEPS", t, {"auto", "loop", "replays", "host"}, "auto, loop, replays or host");
       }},
      {"SIMKIT_MG_SMOOTH", "pre,post (each 1 or more)", "1,1 (float32), 2,2 (float64)",
       "multigrid red-black sweeps before and after the coarse correction (config key: model.pressure_mg_smooth)", parse_mg_smooth},
      {"SIMKIT_MG_BLOCK_CELLS", "a whole number of cells, 0 or more", "1024",
       "multigrid levels from this size down run as one launch on one rank (0: every level by itself)",
       [](const std::string& t, Values& v) { v.mg_block_cells = whole("SIMKIT_MG_BLOCK_CELLS", t, 0, "a whole number of cells, 0 or more"); }},
      {"SIMKIT_MG_TILES", "0 or 1", "1", "multigrid smooths large levels on shared-memory tiles (one rank, no obstacles)",
       [](const std::string& t, Values& v) { v.mg_tiles = one_of("SIMKIT_MG_TILES", t, {0, 1}, "0 or 1"); }},
      {"SIMKIT_MG_GATHER_CELLS", "a whole number of cells, 1 or more", "16384 (GPU), 256 (CPU)",
       "on several ranks, multigrid gathers a level onto every rank once each box has at most this many cells",
       [](const std::string& t, Values& v) { v.mg_gather_cells = whole("SIMKIT_MG_GATHER_CELLS", t, 1, "a whole number of cells, 1 or more"); }},
      {"SIMKIT_FLUID_GUESS_ORDER", "0, 1 or 3", "3 when model.pressure_tol < 1e-6, else 1",
       "degree of the fluid's pressure extrapolation for an Euler step's first guess (0: the last pressure; config key: model.pressure_guess_order)",
       [](const std::string& t, Values& v) { v.fluid_guess_order = one_of("SIMKIT_FLUID_GUESS_ORDER", t, {0, 1, 3}, "0, 1 or 3"); }},
      {"SIMKIT_FLUID_SCALE_GUESS", "0 or 1", "1", "the fluid's explicit stages rescale the previous stage's pressure as the next guess (config key: model.pressure_guess_scale)",
       [](const std::string& t, Values& v) { v.fluid_scale_guess = one_of("SIMKIT_FLUID_SCALE_GUESS", t, {0, 1}, "0 or 1"); }},
      {"SIMKIT_FLUID_FILL_EVERY_STAGE", "0 or 1", "0",
       "the fluid fills ghosts after every explicit stage even where walls make it unnecessary (config key: model.fill_every_stage)",
       [](const std::string& t, Values& v) {
         v.fluid_fill_every_stage = one_of("SIMKIT_FLUID_FILL_EVERY_STAGE", t, {0, 1}, "0 or 1");
       }},
      {"SIMKIT_TRANSPOSE_CHUNKS", "a whole number, 1 or more", "1 (on the copy engines 8 in 3D; in 2D 4, float32 2)",
       "the distributed transform solve cuts its slab transposes into this many pieces, each moved beside the next piece's "
       "transforms (a box periodic in y and z moves its spectrum in one piece, or in 8 on the copy engines)",
       [](const std::string& t, Values& v) { v.transpose_chunks = whole("SIMKIT_TRANSPOSE_CHUNKS", t, 1, "a whole number, 1 or more"); }},
      {"SIMKIT_TRANSPOSE_PATH", "auto, copies, kernels or nccl", "auto",
       "how the distributed transform solve's whole slab transposes move between GPUs where every rank runs on one host "
       "with peer access (straight into the other GPUs' memory, opened by CUDA IPC): copies: a box periodic in y and z by "
       "the copy engines, in pieces beside the 2D FFTs, the rest by kernels; kernels: one kernel each way that stores each "
       "value in its place; auto: copies on 2 ranks, kernels on more; nccl: NCCL's grouped sends and receives, with a "
       "pack and an unpack (the path elsewhere)",
       [](const std::string& t, Values& v) {
         v.transpose_path =
             word("SIMKIT_TRANSPOSE_PATH", t, {"auto", "copies", "kernels", "nccl"}, "auto, copies, kernels or nccl");
       }},
      {"SIMKIT_COPY_LANES", "1, 2, 3 or 4", "1",
       "the copy engines' moves between GPUs (SIMKIT_TRANSPOSE_PATH=copies) split each copy to one GPU over this many "
       "streams, each taking a part along the copy's outermost dimension",
       [](const std::string& t, Values& v) { v.copy_lanes = one_of("SIMKIT_COPY_LANES", t, {1, 2, 3, 4}, "1, 2, 3 or 4"); }},
      {"SIMKIT_COPIES_BACK", "planes or columns", "planes",
       "the 3D periodic solve's copies back by the copy engines (SIMKIT_TRANSPOSE_PATH=copies): planes: in pieces along x, "
       "each beside the inverse 2D FFTs of the one before; columns: in pieces along y, each beside the transforms along x of "
       "the next (the inverse 2D FFTs after them all)",
       [](const std::string& t, Values& v) { v.copies_back = word("SIMKIT_COPIES_BACK", t, {"planes", "columns"}, "planes or columns"); }},
  };
  return all;
}

namespace detail {

/// The knobs as set (variable -> text) and their parsed values.
struct State {
  bool loaded = false;
  std::map<std::string, std::string> set;
  Values values;
};

inline State& state() {
  static State s;
  return s;
}

/// The knob called name, or an Error listing the names.
inline const Knob& find(const std::string& name) {
  for (const Knob& k : knobs())
    if (name == k.name) return k;
  std::string names;
  for (const Knob& k : knobs()) names += (names.empty() ? "" : ", ") + std::string(k.name);
  throw Error("unknown tuning knob '" + name + "'; the knobs are " + names);
}

/// Values parsed from set (throws on the first bad one).
inline Values parse_all(const std::map<std::string, std::string>& set) {
  Values v;
  for (const Knob& k : knobs())
    if (auto it = set.find(k.name); it != set.end()) k.parse(it->second, v);
  return v;
}

}  // namespace detail

/// Reads every knob from the environment, the first time only; throws Error on a bad value.
/// simulate calls it before anything runs, so a bad value ends there with exit code 2.
inline void load_environment() {
  detail::State& s = detail::state();
  if (s.loaded) return;
  std::map<std::string, std::string> set;
  for (const Knob& k : knobs())
    if (const char* e = std::getenv(k.name); e && *e) set[k.name] = e;  // empty is unset, as in set()
  s.values = detail::parse_all(set);
  s.set = std::move(set);
  s.loaded = true;
}

/// The knobs' parsed values (the environment's, read on first use, as changed by Scoped).
inline const Values& current() {
  load_environment();
  return detail::state().values;
}

/// The knobs that are set, as "NAME=value", in the order of knobs().
inline std::vector<std::string> set_knobs() {
  load_environment();
  std::vector<std::string> out;
  for (const Knob& k : knobs())
    if (auto it = detail::state().set.find(k.name); it != detail::state().set.end()) out.push_back(it->first + "=" + it->second);
  return out;
}

/// The value a knob is set to, or "" when unset.
inline std::string setting(const std::string& name) {
  detail::find(name);
  load_environment();
  const auto& set = detail::state().set;
  auto it = set.find(name);
  return it == set.end() ? std::string() : it->second;
}

/// Sets knob name to text ("" unsets it), validated as the environment's value would be.
inline void set(const std::string& name, const std::string& text) {
  detail::find(name);
  load_environment();
  std::map<std::string, std::string> next = detail::state().set;
  if (text.empty()) next.erase(name);
  else next[name] = text;
  detail::state().values = detail::parse_all(next);
  detail::state().set = std::move(next);
}

/// Sets a knob for a scope and restores its former setting at the scope's end (tests).
class Scoped {
 public:
  Scoped(std::string name, const std::string& text) : name_(std::move(name)), former_(setting(name_)) { set(name_, text); }
  ~Scoped() { set(name_, former_); }
  Scoped(const Scoped&) = delete;
  Scoped& operator=(const Scoped&) = delete;

 private:
  std::string name_, former_;
};

}  // namespace sim::tuning
