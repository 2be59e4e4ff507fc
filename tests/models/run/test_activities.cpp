// The run's activities in process, on a one-rank communicator and the cpu backend, with a
// host-only test model: checkpoints (write, prune, resume), the NaN guard, diagnostics, the
// snapshot series, the drain rule, the summary JSON, and run_simulation's exit codes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/runtime/tuning.hpp"
#include "io/hdf5_file.hpp"
#include "models/run/diagnostics_writer.hpp"
#include "models/run/restore.hpp"
#include "models/run/setup.hpp"
#include "models/run/simulation.hpp"
#include "models/run/snapshot_writer.hpp"
#include "models/run/stop_signal.hpp"
#include "models/run/summary.hpp"
#include "models/runner.hpp"
#include "tests/models/run/counter_model.hpp"

namespace fs = std::filesystem;

namespace sim::run {
namespace {

using testing::CounterModel;

class RunActivities : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = (fs::temp_directory_path() / ("simkit_run_" + std::to_string(::getpid()) + "_" + t->name())).string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    ctx = Context::create("cpu");
    clear_stop_signal();
  }
  void TearDown() override { fs::remove_all(dir); }

  /// A plan of `steps` steps of dt = 0.1 on 8 cells, writing into dir.
  Plan plan(std::int64_t steps) const {
    Plan p;
    p.grid.rank = 1, p.grid.cells[0] = 8;
    p.dt = 0.1, p.total_steps = steps;
    p.out_dir = dir, p.snap_prefix = "snap", p.ckpt_prefix = "ckpt";
    return p;
  }
  /// A Simulation of model as p says, with the standard activities; resume_from: from the newest valid checkpoint.
  std::unique_ptr<Simulation> simulation(const Plan& p, CounterModel& model, bool resume_from = false) {
    io::RunInfo info;
    info.model = "counter", info.dt = p.dt, info.simkit_version = "test", info.git_commit = "test";
    info.backend = "cpu", info.device = "test", info.precision = "float64";
    auto s = std::make_unique<Simulation>(p, model, ctx, Comm(), info);
    double next = 0;
    if (resume_from) next = restore_state(*s, choose_checkpoint(io::list_checkpoints(dir, "ckpt"), {}, {}));
    add_standard_activities(*s, true, next);
    return s;
  }
  /// The message of the Error that s->run() throws ("" when it returns).
  static std::string error_of(Simulation& s) {
    try {
      s.run();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  /// The steps of the snapshot series in dir up to step (later snapshots are deleted).
  std::vector<std::int64_t> series_steps(std::int64_t step) const {
    std::vector<std::int64_t> steps;
    for (const io::XdmfEntry& e : rebuild_series(dir, "snap", step)) steps.push_back(e.step);
    return steps;
  }
  std::string dir;
  Context ctx;
};

TEST_F(RunActivities, CheckpointerKeepsTheNewestK) {
  Plan p = plan(8);
  p.checkpoint_every = 2, p.keep = 2;
  CounterModel m;
  auto s = simulation(p, m);
  ASSERT_EQ(s->run(), 0);
  EXPECT_EQ(io::list_checkpoints(dir, "ckpt"),
            (std::vector<std::string>{io::checkpoint_path(dir, "ckpt", 8), io::checkpoint_path(dir, "ckpt", 6)}));
  EXPECT_EQ(s->counts.checkpoints, 4);  // 2, 4, 6, 8: the last step has one already
}

TEST_F(RunActivities, FinalStepGetsACheckpoint) {
  Plan p = plan(7);
  p.checkpoint_every = 3;
  CounterModel m;
  ASSERT_EQ(simulation(p, m)->run(), 0);
  EXPECT_EQ(io::list_checkpoints(dir, "ckpt").front(), io::checkpoint_path(dir, "ckpt", 7));
}

TEST_F(RunActivities, ResumePicksTheNewestValidCheckpointAndEndsBitForBit) {
  Plan p = plan(6);
  p.checkpoint_every = 2;
  CounterModel whole;
  ASSERT_EQ(simulation(p, whole)->run(), 0);
  // the newest checkpoint is cut short: the resume takes the one before it
  const std::string newest = io::checkpoint_path(dir, "ckpt", 6);
  fs::resize_file(newest, fs::file_size(newest) / 2);
  CounterModel resumed;
  auto s = simulation(p, resumed, true);
  EXPECT_EQ(s->clock.step, 4);
  EXPECT_EQ(resumed.steps, 4);  // the model's own state came back
  EXPECT_EQ(resumed.u[2], 2 + 0.1 + 0.1 + 0.1 + 0.1);
  ASSERT_EQ(s->run(), 0);
  EXPECT_EQ(resumed.u, whole.u);  // bit for bit
  EXPECT_EQ(s->clock.time, 0.1 + 0.1 + 0.1 + 0.1 + 0.1 + 0.1);
}

TEST_F(RunActivities, ResumeWithoutAUsableCheckpointIsBadInput) {
  std::ofstream(dir + "/ckpt_000000002.h5") << "not hdf5";
  EXPECT_THROW(choose_checkpoint(io::list_checkpoints(dir, "ckpt"), {}, {}), ResumeError);
}

TEST_F(RunActivities, NanGuardStopsAtTheStepWithFieldAndCell) {
  Plan p = plan(200);
  p.checkpoint_every = 50;
  CounterModel m;
  m.nan_at = 130;  // no output: the every-100-steps guard or the checkpoint at 150 finds it
  const std::string error = error_of(*simulation(p, m));
  EXPECT_NE(error.find("at step 150 field 'u' is NaN at cell (3)"), std::string::npos) << error;
  // the last good checkpoint is kept, and no later one was written
  EXPECT_EQ(io::list_checkpoints(dir, "ckpt").front(), io::checkpoint_path(dir, "ckpt", 100));
}

TEST_F(RunActivities, NanGuardEvery100StepsWithoutOutput) {
  Plan p = plan(250);
  CounterModel m;
  m.nan_at = 150;
  const std::string error = error_of(*simulation(p, m));
  EXPECT_NE(error.find("at step 200 field 'u' is NaN"), std::string::npos) << error;
}

TEST_F(RunActivities, DiagnosticsAndSnapshotsAtEachOutputAndTheEnd) {
  Plan p = plan(7);
  p.output_every = 3;
  CounterModel m;
  auto s = simulation(p, m);
  ASSERT_EQ(s->run(), 0);
  std::ifstream csv(dir + "/diagnostics.csv");
  std::stringstream text;
  text << csv.rdbuf();
  EXPECT_EQ(text.str().substr(0, text.str().find('\n')), "step,time [s],total [K]");
  std::vector<std::int64_t> rows;
  for (std::string line; std::getline(text, line);)
    if (line[0] != 's') rows.push_back(std::stoll(line));
  EXPECT_EQ(rows, (std::vector<std::int64_t>{0, 3, 6, 7}));  // the last step is output too
  EXPECT_EQ(s->counts.snapshots, 4);
  for (std::int64_t step : {0, 3, 6, 7}) EXPECT_TRUE(fs::exists(dir + "/" + snapshot_name("snap", step))) << step;
  EXPECT_TRUE(fs::exists(dir + "/snap.xdmf"));
}

/// The steps of the rows of dir's diagnostics.csv.
std::vector<std::int64_t> diagnostics_rows(const std::string& dir) {
  std::ifstream csv(dir + "/diagnostics.csv");
  std::vector<std::int64_t> rows;
  for (std::string line; std::getline(csv, line);)
    if (!line.empty() && line[0] != 's') rows.push_back(std::stoll(line));
  return rows;
}

TEST_F(RunActivities, DiagnosticsOnTheirOwnCadenceWithoutSnapshots) {
  Plan p = plan(7);
  p.diagnostics_every = 2;  // no snapshots at all
  CounterModel m;
  auto s = simulation(p, m);
  ASSERT_EQ(s->run(), 0);
  EXPECT_EQ(diagnostics_rows(dir), (std::vector<std::int64_t>{0, 2, 4, 6, 7}));  // the start and the last step too
  EXPECT_EQ(s->counts.snapshots, 0);
  EXPECT_FALSE(fs::exists(dir + "/" + snapshot_name("snap", 0)));
  EXPECT_TRUE(fs::exists(dir + "/diagnostics.h5"));  // written at the end from the rows
}

TEST_F(RunActivities, DimensionlessTimeHasNoUnit) {
  Plan p = plan(2);
  p.output_every = 1, p.time_unit = "";
  CounterModel m;
  ASSERT_EQ(simulation(p, m)->run(), 0);
  std::ifstream csv(dir + "/diagnostics.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "step,time,total [K]");
}

TEST_F(RunActivities, DiagnosticsCadenceIndependentOfSnapshots) {
  Plan p = plan(8);
  p.diagnostics_every = 1, p.output_every = 4;
  CounterModel m;
  auto s = simulation(p, m);
  ASSERT_EQ(s->run(), 0);
  EXPECT_EQ(diagnostics_rows(dir), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));  // one row a step
  EXPECT_EQ(s->counts.snapshots, 3);  // 0, 4, 8
  // resumed from the checkpoint at step 4, the rows continue without a repeated row
  fs::remove_all(dir);
  fs::create_directories(dir);
  p.checkpoint_every = 4;
  CounterModel first;
  ASSERT_EQ(simulation(p, first)->run(), 0);
  fs::remove(io::checkpoint_path(dir, "ckpt", 8));
  CounterModel resumed;
  ASSERT_EQ(simulation(p, resumed, true)->run(), 0);
  EXPECT_EQ(diagnostics_rows(dir), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST_F(RunActivities, OutputByTimeLandsOnMultiplesWithinTheTolerance) {
  Plan p = plan(10);
  p.output_every_time = 0.25;
  CounterModel m;
  ASSERT_EQ(simulation(p, m)->run(), 0);
  EXPECT_EQ(series_steps(100), (std::vector<std::int64_t>{0, 3, 5, 8, 10}));
}

// A model that chooses its dt on the device runs in batches that stop where a schedule is
// next due: the same outputs, checkpoints and bits as the step-by-step loop (the NaN guard
// every 100 steps and the checkpoints every 7 cut batches too).
TEST_F(RunActivities, DeviceClockedBatchesFireActivitiesAtTheSameSteps) {
  Plan p;
  p.grid.rank = 1, p.grid.cells[0] = 8;
  p.adaptive = true, p.cfl = 0.05, p.end_time = 12.0, p.dt = 0.05, p.total_steps = 300;
  p.output_every_time = 1.5, p.checkpoint_every = 7, p.keep = 100;
  p.snap_prefix = "snap", p.ckpt_prefix = "ckpt";
  struct Run {
    std::vector<double> u;
    RunClock clock;
    std::int64_t batches = 0;
    std::string csv;
    std::vector<std::string> checkpoints;
    std::vector<std::int64_t> snapshots;
  };
  auto run_in = [&](const std::string& sub, bool batches) {
    std::optional<tuning::Scoped> host_steps;  // without batches: a host wait every step
    if (!batches) host_steps.emplace("SIMKIT_DEVICE_STEPS", "0");
    p.out_dir = dir + "/" + sub;
    fs::create_directories(p.out_dir);
    testing::ClockedCounterModel m;
    io::RunInfo info;
    info.model = "counter", info.simkit_version = info.git_commit = "test";
    Simulation s(p, m, ctx, Comm(), info);
    add_standard_activities(s, true, 0);
    EXPECT_EQ(s.run(), 0);
    Run r{m.u, s.clock, m.batches, "", io::list_checkpoints(p.out_dir, "ckpt"), {}};
    std::stringstream text;
    text << std::ifstream(p.out_dir + "/diagnostics.csv").rdbuf();
    r.csv = text.str();
    for (const io::XdmfEntry& e : rebuild_series(p.out_dir, "snap", s.clock.step)) r.snapshots.push_back(e.step);
    return r;
  };
  const Run step_by_step = run_in("steps", false), batched = run_in("batches", true);
  EXPECT_EQ(step_by_step.batches, 0);
  EXPECT_GT(batched.batches, 0);
  EXPECT_LT(batched.batches, batched.clock.step / 2) << "the batches should hold several steps each";
  EXPECT_EQ(batched.clock.step, step_by_step.clock.step);
  EXPECT_EQ(batched.clock.time, 12.0);
  EXPECT_EQ(step_by_step.clock.time, 12.0);
  EXPECT_EQ(batched.clock.dt, step_by_step.clock.dt);
  EXPECT_EQ(batched.u, step_by_step.u) << "bit for bit";
  EXPECT_EQ(batched.csv, step_by_step.csv);
  EXPECT_EQ(batched.snapshots, step_by_step.snapshots);
  EXPECT_GE(batched.snapshots.size(), 9u);
  ASSERT_EQ(batched.checkpoints.size(), step_by_step.checkpoints.size());
  for (std::size_t k = 0; k < batched.checkpoints.size(); ++k)
    EXPECT_EQ(fs::path(batched.checkpoints[k]).filename(), fs::path(step_by_step.checkpoints[k]).filename());
}

TEST_F(RunActivities, ResumedSeriesDropsLaterSnapshots) {
  Plan p = plan(6);
  p.output_every = 2;
  CounterModel m;
  ASSERT_EQ(simulation(p, m)->run(), 0);
  EXPECT_EQ(series_steps(3), (std::vector<std::int64_t>{0, 2}));
  EXPECT_FALSE(fs::exists(dir + "/" + snapshot_name("snap", 4)));
  EXPECT_TRUE(fs::exists(dir + "/" + snapshot_name("snap", 2)));
}

TEST_F(RunActivities, DiagnosticsOnResumeKeepRowsUpToTheStepAndDropACutRow) {
  const std::string csv = dir + "/diagnostics.csv";
  std::ofstream(csv) << "step,time [s],total [K]\n0,0,28\n2,0.2,29.6\n4,0.4,31.2\n6,0.6,32";  // the last row cut
  std::vector<std::vector<double>> columns(3);
  EXPECT_EQ(kept_diagnostics(csv, 4, columns), "step,time [s],total [K]\n0,0,28\n2,0.2,29.6\n4,0.4,31.2\n");
  EXPECT_EQ(columns[0], (std::vector<double>{0, 2, 4}));
  columns.assign(3, {});
  EXPECT_EQ(kept_diagnostics(csv, 1, columns), "step,time [s],total [K]\n0,0,28\n");
  std::vector<double> row;
  EXPECT_FALSE(parse_diagnostics_row("3,0.3", 3, row));
  EXPECT_FALSE(parse_diagnostics_row("3.5,0.3,1", 3, row));
  EXPECT_TRUE(parse_diagnostics_row("3,0.3,1", 3, row));
}

/// Records what it does, to check the order of activities and the drain rule.
struct Recorder : Activity {
  std::vector<std::string>& log;
  std::string name;
  Recorder(std::vector<std::string>& l, std::string n, std::shared_ptr<Schedule> s, bool collective_io)
      : Activity(std::move(s), {collective_io, false}), log(l), name(std::move(n)) {}
  void run(Simulation& sim) override { log.push_back(name + " " + std::to_string(sim.clock.step)); }
  void drain() override { log.push_back(name + " drained"); }
};

TEST_F(RunActivities, BackgroundWritesAreDrainedBeforeCollectiveActivities) {
  Plan p = plan(4);
  CounterModel m;
  Simulation s(p, m, ctx, Comm(), io::RunInfo{});
  std::vector<std::string> log;
  s.add(std::make_unique<Recorder>(log, "writer", std::make_shared<EverySteps>(1), false));
  s.add(std::make_unique<Recorder>(log, "collective", std::make_shared<EverySteps>(2), true));
  ASSERT_EQ(s.run(), 0);
  const std::vector<std::string> want = {"writer 1",         "writer 2",     "writer drained", "collective drained",
                                         "collective 2",     "writer 3",     "writer 4",       "writer drained",
                                         "collective drained", "collective 4", "writer drained", "collective drained"};
  EXPECT_EQ(log, want);  // the last two: the drain at the end of the run
}

TEST_F(RunActivities, SummaryJsonHasTheKeysToolsRead) {
  RunSummary r;
  r.model = "heat", r.device = "a \"quoted\" CPU\\", r.backend = "cpu", r.commit = "abc";
  r.cells = 64, r.steps = 20, r.wall_seconds = 0.5, r.ms_per_step = 25, r.snapshots = 3;
  const std::string text = summary_json(r);
  EXPECT_NE(text.find("\"steps\": 20,"), std::string::npos) << text;  // what tests and scripts grep
  EXPECT_NE(text.find("\"ms_per_step\": 25"), std::string::npos) << text;
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"model", "device", "backend", "commit", "cells", "steps", "wall_seconds",
                                            "ms_per_step", "cell_updates_per_second", "snapshots", "checkpoints",
                                            "output_blocked_seconds", "writer_busy_seconds", "peak_memory_bytes"}));
  EXPECT_EQ(j["device"], "a \"quoted\" CPU\\");
  EXPECT_EQ(j["snapshots"], 3);
}

/// run_simulation in process, with the counter model: config text -> exit code.
class RunSimulation : public RunActivities {
 protected:
  int run(const std::string& extra, std::vector<std::string> overrides = {}, bool resume = false) {
    const std::string cfg = dir + "/run.toml";
    std::ofstream(cfg) << "[run]\nmodel = \"counter\"\nsteps = 10\ndt = 0.1\nbackend = \"cpu\"\n\n[grid]\ncells = [8]\n\n"
                       << "[output]\ndirectory = \"" << dir << "/out\"\nevery = 5\n\n[checkpoint]\nevery = 4\n" << extra;
    RunOptions o;
    o.config_path = cfg, o.overrides = std::move(overrides), o.quiet = true, o.stats_path = dir + "/stats.json";
    if (resume) o.resume = "";
    ModelRegistry registry;
    registry.add(testing::counter_model_info());
    return run_simulation(o, registry);
  }
};

TEST_F(RunSimulation, ExitCodes) {
  EXPECT_EQ(run("[model]\nnan_at = 0\n"), exit_ok);
  const nlohmann::json stats = nlohmann::json::parse(std::ifstream(dir + "/stats.json"));
  EXPECT_EQ(stats["steps"], 10);
  EXPECT_EQ(stats["snapshots"], 3);    // 0, 5, 10
  EXPECT_EQ(stats["checkpoints"], 3);  // 4, 8, 10
  EXPECT_EQ(run("", {"run.steps=14"}, true), exit_ok);  // resumes from step 10
  EXPECT_EQ(io::list_checkpoints(dir + "/out", "checkpoint").front(), io::checkpoint_path(dir + "/out", "checkpoint", 14));
  EXPECT_EQ(run("", {"model.nan_att=3"}), exit_bad_input);
  EXPECT_EQ(run("", {"model.nan_at=7", "output.directory=\"" + dir + "/nan\""}), exit_failure);
}

TEST_F(RunSimulation, StopSignalCheckpointsAndExits128PlusTheSignal) {
  note_stop_signal(SIGTERM);
  EXPECT_EQ(run(""), 128 + SIGTERM);
  clear_stop_signal();
  EXPECT_EQ(io::list_checkpoints(dir + "/out", "checkpoint"),
            (std::vector<std::string>{io::checkpoint_path(dir + "/out", "checkpoint", 1)}));
}

}  // namespace
}  // namespace sim::run
