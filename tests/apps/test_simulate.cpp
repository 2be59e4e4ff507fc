// The `simulate` binary end to end: bad input exits 2 and leaves nothing behind; resumed
// runs are bit-identical to uninterrupted ones (also after SIGTERM and past a corrupt
// checkpoint); snapshots are readable by h5py; the subcommands and flags work.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/runtime/context.hpp"
#include "io/hdf5_file.hpp"

namespace fs = std::filesystem;

namespace {

// Built-in paths, overridable by the environment (the GPU machine runs a copied build).
std::string from_env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
const std::string simulate = from_env("SIMKIT_SIMULATE", SIMKIT_SIMULATE_BIN);
const std::string source_dir = from_env("SIMKIT_SOURCE_DIR", SIMKIT_SOURCE_DIR);

/// A fresh scratch directory for one test.
std::string scratch(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("simkit_test_simulate_" + std::to_string(getpid())) / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

struct Result {
  int code;
  std::string err;
};

/// Runs simulate with args (already shell-quoted); returns exit code and stderr.
Result run(const std::string& args) {
  const std::string errfile = fs::temp_directory_path() / ("simkit_err_" + std::to_string(getpid()));
  const int status = std::system((simulate + " " + args + " >/dev/null 2>" + errfile).c_str());
  std::ifstream in(errfile);
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove(errfile);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ss.str()};
}

std::string stdout_of(const std::string& args) {
  std::string out;
  FILE* p = popen((simulate + " " + args + " 2>/dev/null").c_str(), "r");
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  pclose(p);
  return out;
}

/// Writes a small heat config (64x48 cells, checkpoint at the end) and returns its path.
std::string heat_config(const std::string& dir, const std::string& scheme, const std::string& extra = "") {
  const std::string path = dir + "/run.toml";
  std::ofstream(path) << "[run]\nmodel = \"heat\"\nsteps = 40\n\n[grid]\ncells = [64, 48]\n\n[model]\nscheme = \""
                      << scheme << "\"\ninit = \"hot_box\"\nwidth = 0.2\n\n[boundary]\ndefault = \"dirichlet\"\n"
                      << "default_value = 0.25\n\n[checkpoint]\nevery = 20\nkeep = 5\n" << extra;
  return path;
}

/// The bytes of a field (u unless named) in a checkpoint.
std::vector<unsigned char> field_bytes(const std::string& checkpoint, const std::string& name = "u") {
  for (auto& f : sim::io::read_checkpoint(checkpoint).fields)
    if (f.name == name) return f.bytes;
  return {};
}

std::vector<std::string> backends() {
  std::vector<std::string> b = {"cpu"};
  if (sim::cuda_device_count() > 0) b.push_back("cuda");
  return b;
}

}  // namespace

TEST(Simulate, BadConfigCorpusExitsTwoAndWritesNothing) {
  const std::string dir = source_dir + "/tests/data/bad_configs";
  std::ifstream expected(dir + "/EXPECTED.txt");
  std::string line;
  int count = 0;
  while (std::getline(expected, line)) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos) continue;
    const std::string file = line.substr(0, tab), want = line.substr(tab + 1);
    if (file == "required_key_missing.toml") continue;  // the sample model's `init` is required; heat's has a default
    const std::string out = scratch("corpus") + "/out";
    Result r = run("'" + dir + "/" + file + "' --output '" + out + "' --quiet");
    EXPECT_EQ(r.code, 2) << file << ": " << r.err;
    EXPECT_NE(r.err.find(file), std::string::npos) << file << " not named in: " << r.err;
    // The corpus was written against a sample [model] schema; model-specific lines differ here.
    const bool model_specific = want.find("registered models") != std::string::npos ||
                                want.find("implicit") != std::string::npos || want.find("[model] init") != std::string::npos;
    if (!model_specific) {
      EXPECT_NE(r.err.find(want), std::string::npos) << file << ": expected '" << want << "' in: " << r.err;
    }
    EXPECT_FALSE(fs::exists(out)) << file << " left " << out << " behind";
    EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << file << " crashed: " << r.err;
    ++count;
  }
  EXPECT_GE(count, 20);
}

TEST(Simulate, BadRunsExitTwoWithAClearMessage) {
  const std::string dir = scratch("badruns");
  const std::string cfg = heat_config(dir, "euler");
  const std::string out = dir + "/out";
  struct Case {
    std::string args, want;
  } cases[] = {
      {"model.alpah=2", "did you mean 'alpha'"},
      {"--backend tpu", "expected one of"},
      {"run.dt=1", "largest stable dt"},
      {"'output.fields=[\"v\"]'", "has no field 'v'"},
      {"model.init=file", "init_file"},
      {"run.steps", "section.key=value"},
      {"--resume", "no checkpoint"},
      {"--no-such-flag", "no-such-flag"},
  };
  for (const Case& c : cases) {
    Result r = run("'" + cfg + "' --output '" + out + "' --quiet " + c.args);
    EXPECT_EQ(r.code, 2) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.want), std::string::npos) << c.args << ": expected '" << c.want << "' in: " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.args;  // --resume too: its source is checked before the directory is made
    fs::remove_all(out);
  }
  Result missing = run("'" + dir + "/nope.toml' --quiet");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("nope.toml"), std::string::npos) << missing.err;
  std::ofstream(dir + "/file") << "x";  // an output directory below a regular file cannot be made
  Result unwritable = run("'" + cfg + "' --output '" + dir + "/file/sub' --quiet");
  EXPECT_EQ(unwritable.code, 2);
  EXPECT_NE(unwritable.err.find("cannot create or write the output directory"), std::string::npos) << unwritable.err;
}

// A 3D fluid run with an obstacle mask that cannot be used (no such file, a dataset of another
// shape) exits 2 naming the file and model.obstacle_file, and writes nothing.
TEST(Simulate, BadObstacleMaskExitsTwoNamingFileAndKey) {
  const std::string dir = scratch("badmask"), out = dir + "/out";
  const std::string config = "'" + source_dir + "/configs/sphere.toml' --quiet grid.cells=[32,16,16] ";
  const std::string sphere = config + "--output '" + out + "' ";
  Result made = run(config + "run.end_time=0.1 output.every_time=0.1 --output '" + dir + "/mask'");
  ASSERT_EQ(made.code, 0) << made.err;
  std::string snapshot;
  for (const auto& e : fs::directory_iterator(dir + "/mask"))
    if (e.path().filename().string().rfind("snapshot_", 0) == 0) snapshot = e.path().string();
  ASSERT_FALSE(snapshot.empty());
  struct Case {
    std::string args, want;
  } cases[] = {
      {"model.obstacle=mask model.obstacle_file=" + dir + "/nomask.h5", dir + "/nomask.h5"},
      {"model.obstacle=mask model.obstacle_file=" + snapshot + " model.obstacle_dataset=u grid.cells=[64,16,16]",
       "has shape (32, 16, 16) but the grid has (64, 16, 16)"},
  };
  for (const Case& c : cases) {
    Result r = run(sphere + c.args);
    EXPECT_EQ(r.code, 2) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find("obstacle_file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.want), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
}

// The fluid's boundaries moved to [boundary] (the face names every model uses): a config with
// the former [model] keys exits 2 naming the key that replaced each, and writes nothing.
TEST(Simulate, FormerFluidSideKeysExitTwoNamingTheNewOnes) {
  const std::string dir = scratch("fluid_keys");
  const std::string out = dir + "/out";
  const struct {
    const char* line;
    const char* want;
  } cases[] = {
      {"left = \"inflow\"", ":8:1: error: [model] left was replaced by [boundary] x_lo"},
      {"top = \"wall\"", ":8:1: error: [model] top was replaced by [boundary] y_hi"},
      {"lid_velocity = 1.0", ":8:1: error: [model] lid_velocity was replaced by [boundary] y_hi_value"},
      {"inflow_velocity = 1.0", ":8:1: error: [model] inflow_velocity was replaced by [boundary] x_lo_value"},
  };
  for (const auto& c : cases) {
    const std::string cfg = dir + "/fluid.toml";
    std::ofstream(cfg) << "[run]\nmodel = \"fluid\"\nsteps = 2\n[grid]\ncells = [16, 16]\n[model]\nviscosity = 0.01\n"
                       << c.line << "\n";
    Result r = run("'" + cfg + "' --output '" + out + "' --quiet");
    EXPECT_EQ(r.code, 2) << c.line << ": " << r.err;
    EXPECT_NE(r.err.find(std::string("fluid.toml") + c.want), std::string::npos) << c.line << ": " << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.line;
  }
  // the new spelling runs: a lid on y_hi
  const std::string cfg = dir + "/lid.toml";
  std::ofstream(cfg) << "[run]\nmodel = \"fluid\"\nsteps = 2\n[grid]\ncells = [16, 16]\n[model]\nviscosity = 0.01\n"
                        "[boundary]\ny_hi_value = 1.0\n";
  Result r = run("'" + cfg + "' --output '" + out + "' --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(Simulate, ResumeIsBitIdenticalOnEveryBackend) {
  for (const std::string& backend : backends())
    for (const std::string scheme : {"euler", "rk2", "crank_nicolson"}) {
      const std::string dir = scratch("resume_" + backend + scheme);
      const std::string cfg = heat_config(dir, scheme);
      const std::string common = " --backend " + backend + " --quiet";
      ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/straight'" + common).code, 0);
      ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/split' run.steps=20" + common).code, 0);
      Result r = run("'" + cfg + "' --output '" + dir + "/split' --resume" + common);
      ASSERT_EQ(r.code, 0) << r.err;
      const auto a = field_bytes(dir + "/straight/checkpoint_000000040.h5");
      const auto b = field_bytes(dir + "/split/checkpoint_000000040.h5");
      ASSERT_FALSE(a.empty());
      EXPECT_TRUE(a == b) << backend << " " << scheme << ": resumed run differs from the straight one";
    }
}

// The fluid's Euler steps keep the last pressures for their solve's guess, in the checkpoints:
// a resume at the same settings ends bit for bit where the straight run does; one with another
// pressure_tol (another degree of extrapolation) or from a checkpoint without that history
// runs, starting the history afresh.
TEST(Simulate, FluidResumeKeepsOrRestartsThePressureHistory) {
  const std::string dir = scratch("resume_fluid");
  const std::string cfg = dir + "/cavity.toml";
  std::ofstream(cfg) << "[run]\nmodel = \"fluid\"\nsteps = 24\nbackend = \"cpu\"\n[grid]\ncells = [32, 32]\n[model]\n"
                        "viscosity = 0.01\ntime_scheme = \"euler\"\npressure_solver = \"mg_cg\"\npressure_tol = 1e-9\n"
                        "[boundary]\ny_hi_value = 1.0\n[checkpoint]\nevery = 8\n";
  ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/straight' --quiet").code, 0);
  ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/split' run.steps=16 --quiet").code, 0);
  Result r = run("'" + cfg + "' --output '" + dir + "/split' --resume --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto a = field_bytes(dir + "/straight/checkpoint_000000024.h5", "p");
  ASSERT_FALSE(a.empty());
  EXPECT_TRUE(a == field_bytes(dir + "/split/checkpoint_000000024.h5", "p")) << "resumed run differs from the straight one";
  // written with a line (pressure_tol 1e-5 keeps one earlier pressure), resumed with the cubic
  ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/line' run.steps=16 model.pressure_tol=1e-5 --quiet").code, 0);
  r = run("'" + cfg + "' --output '" + dir + "/line' --resume --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir + "/line/checkpoint_000000024.h5"));
}

// init = "file": a run starts from another run's snapshot, the field named either way.
TEST(Simulate, InitialConditionFromASnapshot) {
  const std::string dir = scratch("init_file");
  const std::string cfg = heat_config(dir, "euler");
  ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/first' --backend cpu --quiet").code, 0);
  const std::string snap = dir + "/first/checkpoint_000000040.h5";
  const auto want = field_bytes(snap);
  ASSERT_FALSE(want.empty());
  for (const std::string dataset : {"u", "/fields/u"}) {
    const std::string out = dir + "/from_" + std::to_string(dataset.size());
    Result r = run("'" + cfg + "' --output '" + out + "' --backend cpu --quiet run.steps=1 output.every=1 model.init=\"file\" "
                   "model.init_file=\"" + snap + "\" model.init_dataset=\"" + dataset + "\"");
    ASSERT_EQ(r.code, 0) << dataset << ": " << r.err;
    EXPECT_TRUE(sim::io::read_field(out + "/snapshot_000000000.h5", "u").bytes == want) << dataset;
  }
}

TEST(Simulate, CorruptNewestCheckpointFallsBackToThePreviousOne) {
  const std::string dir = scratch("corrupt");
  const std::string cfg = heat_config(dir, "euler");
  ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/straight' --quiet").code, 0);
  ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/split' run.steps=30 checkpoint.every=10 --quiet").code, 0);
  const std::string newest = dir + "/split/checkpoint_000000030.h5";
  fs::resize_file(newest, fs::file_size(newest) / 2);  // truncated, as by a crash mid-copy
  Result r = run("'" + cfg + "' --output '" + dir + "/split' --resume");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("unusable"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at step 20"), std::string::npos) << r.err;
  EXPECT_TRUE(field_bytes(dir + "/straight/checkpoint_000000040.h5") == field_bytes(dir + "/split/checkpoint_000000040.h5"));
  Result explicit_bad = run("'" + cfg + "' --output '" + dir + "/split' --resume '" + dir + "/run.toml' --quiet");
  EXPECT_EQ(explicit_bad.code, 2) << explicit_bad.err;
}

TEST(Simulate, ResumingIntoANewDirectoryStartsDiagnosticsWithTheHeader) {
  const std::string dir = scratch("resume_elsewhere");
  const std::string cfg = heat_config(dir, "euler", "\n[output]\nevery = 10\n");
  ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/first' run.steps=30 checkpoint.every=10 --quiet").code, 0);
  fs::create_directories(dir + "/second");
  fs::copy_file(dir + "/first/checkpoint_000000020.h5", dir + "/second/checkpoint_000000020.h5");
  Result r = run("'" + cfg + "' --output '" + dir + "/second' run.steps=30 --resume --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(dir + "/second/diagnostics.csv");
  std::string header, row;
  ASSERT_TRUE(std::getline(in, header));
  EXPECT_EQ(header.rfind("step,time [s],", 0), 0u) << header;
  ASSERT_TRUE(std::getline(in, row));
  EXPECT_NE(row.find_first_of("0123456789"), std::string::npos) << row;
}

TEST(Simulate, SigtermWritesACheckpointAndTheResumeMatches) {
  const std::string dir = scratch("sigterm");
  const std::string cfg = heat_config(dir, "euler", "");
  const std::string out = dir + "/stopped";
  pid_t pid = fork();
  if (pid == 0) {
    execl(simulate.c_str(), simulate.c_str(), cfg.c_str(), "--output", out.c_str(), "--quiet", "run.steps=100000000",
          "checkpoint.every=500", (char*)nullptr);
    _exit(127);
  }
  // the child never outlives the test, whatever fails below
  struct Reaper {
    pid_t pid;
    ~Reaper() {
      if (pid > 0 && kill(pid, 0) == 0) kill(pid, SIGKILL), waitpid(pid, nullptr, 0);
    }
  } reaper{pid};
  // wait for a first checkpoint (older ones are pruned quickly: look for any), so the run is under way
  for (int i = 0; i < 600 && sim::io::list_checkpoints(out, "checkpoint").empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_FALSE(sim::io::list_checkpoints(out, "checkpoint").empty());
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  reaper.pid = 0;
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
  auto list = sim::io::list_checkpoints(out, "checkpoint");
  ASSERT_FALSE(list.empty());
  const auto stopped_at = std::int64_t(sim::io::read_checkpoint(list.front()).counters.at("step"));
  EXPECT_GE(stopped_at, 500);  // the signal may land during the step-500 checkpoint
  const std::string steps = "run.steps=" + std::to_string(stopped_at + 100);
  ASSERT_EQ(run("'" + cfg + "' --output '" + out + "' --resume --quiet checkpoint.every=500 " + steps).code, 0);
  ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/straight' --quiet checkpoint.every=500 " + steps).code, 0);
  const std::string last = "/checkpoint_" + std::string(9 - std::to_string(stopped_at + 100).size(), '0') +
                           std::to_string(stopped_at + 100) + ".h5";
  EXPECT_TRUE(field_bytes(out + last) == field_bytes(dir + "/straight" + last));
}

TEST(Simulate, SnapshotsAndSeriesReadByH5py) {
  if (std::system("/usr/bin/python3 -c 'import h5py' 2>/dev/null") != 0) GTEST_SKIP() << "h5py not importable by /usr/bin/python3";
  const std::string dir = scratch("h5py");
  const std::string cfg = heat_config(dir, "rk2", "\n[output]\nevery = 10\ncompression = 4\n");
  ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/out' --quiet").code, 0);
  EXPECT_TRUE(fs::exists(dir + "/out/snapshot_000000040.h5"));
  const std::string check = "/usr/bin/python3 '" + source_dir + "/tests/io/check_h5py.py' '" + dir +
                            "/out/snapshot_000000020.h5' '" + dir + "/out/snapshot.xdmf'";
  EXPECT_EQ(std::system(check.c_str()), 0);
  const std::string info = stdout_of("info '" + dir + "/out/snapshot_000000020.h5'");
  EXPECT_NE(info.find("snapshot"), std::string::npos);
  EXPECT_NE(info.find("scheme = \"rk2\""), std::string::npos) << info;
}

TEST(Simulate, CommandLineFlags) {
  EXPECT_EQ(run("--version").code, 0);
  EXPECT_EQ(run("--help").code, 0);
  const std::string models = stdout_of("models");
  EXPECT_NE(models.find("heat"), std::string::npos);
  EXPECT_NE(models.find("alpha"), std::string::npos);
  EXPECT_NE(models.find("m^2/s"), std::string::npos);
  const std::string dir = scratch("flags");
  const std::string cfg = heat_config(dir, "euler");
  const std::string plan = stdout_of("'" + cfg + "' --dry-run --output '" + dir + "/out'");
  EXPECT_NE(plan.find("64 48"), std::string::npos) << plan;
  EXPECT_FALSE(fs::exists(dir + "/out"));
  const std::string printed = stdout_of("'" + cfg + "' --print-config model.alpha=0.5");
  EXPECT_NE(printed.find("alpha = 0.5"), std::string::npos) << printed;
  std::ofstream(dir + "/printed.toml") << printed;  // the printed config runs as it is
  EXPECT_EQ(run("'" + dir + "/printed.toml' --output '" + dir + "/out2' --quiet").code, 0);
  EXPECT_EQ(run("info '" + dir + "/nothing.h5'").code, 2);
}

// The tuning knobs (docs/tuning.md): every one listed by --print-config, the ones set printed by
// --dry-run, and a bad value refused with the variable named, exit code 2 and nothing written.
TEST(Simulate, TuningKnobsAreListedShownAndValidated) {
  const std::string dir = scratch("tuning");
  const std::string cfg = heat_config(dir, "euler");
  const std::string printed = stdout_of("'" + cfg + "' --print-config");
  for (const char* knob : {"SIMKIT_HALO", "SIMKIT_NCCL_ORDER", "SIMKIT_NCCL_PRIORITY", "SIMKIT_STENCIL_ROWS",
                           "SIMKIT_STENCIL_PAIRS", "SIMKIT_STENCIL_BLOCK_Y", "SIMKIT_FOR_EACH_ROWS", "SIMKIT_FOR_EACH_BLOCK_Y",
                           "SIMKIT_CUBLAS_WORKSPACE_MIB",
                           "SIMKIT_DEVICE_STEPS", "SIMKIT_DECOMPOSED_STEPS", "SIMKIT_MG_SMOOTH", "SIMKIT_MG_BLOCK_CELLS", "SIMKIT_MG_TILES",
                           "SIMKIT_MG_GATHER_CELLS", "SIMKIT_FLUID_GUESS_ORDER", "SIMKIT_FLUID_SCALE_GUESS",
                           "SIMKIT_FLUID_FILL_EVERY_STAGE", "SIMKIT_TRANSPOSE_CHUNKS", "SIMKIT_TRANSPOSE_PATH",
                           "SIMKIT_COPY_LANES", "SIMKIT_COPIES_BACK"})
    EXPECT_NE(printed.find(std::string("# ") + knob + " = (unset)"), std::string::npos) << knob;
  const std::string plan = stdout_of("'" + cfg + "' --dry-run --backend cpu --output '" + dir + "/out'");
  EXPECT_EQ(plan.find("tuning     SIMKIT_"), std::string::npos) << plan;
  const std::string env = "SIMKIT_MG_SMOOTH=2,1 ";
  std::string tuned;
  if (FILE* p = popen((env + simulate + " '" + cfg + "' --dry-run --backend cpu 2>/dev/null").c_str(), "r")) {
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) tuned.append(buf, n);
    pclose(p);
  }
  EXPECT_NE(tuned.find("tuning     SIMKIT_MG_SMOOTH=2,1"), std::string::npos) << tuned;
  const std::string errfile = dir + "/err.txt";
  const int status = std::system(("SIMKIT_STENCIL_ROWS=3 " + simulate + " '" + cfg + "' --backend cpu --output '" + dir +
                                  "/bad' --quiet >/dev/null 2>'" + errfile + "'").c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::stringstream err;
  err << std::ifstream(errfile).rdbuf();
  EXPECT_NE(err.str().find("SIMKIT_STENCIL_ROWS='3': expected 1, 2, 4 or 8"), std::string::npos) << err.str();
  EXPECT_FALSE(fs::exists(dir + "/bad"));
}

// What a newcomer types (issue 21): the shipped config stops at end_time, and the command
// line's run.steps must win over it instead of being refused as "both steps and end_time".
TEST(Simulate, CommandLineStepsWinOverTheFilesEndTime) {
  const std::string dir = scratch("steps_over_end_time");
  const std::string cfg = source_dir + "/configs/heat2d.toml";
  Result r = run("'" + cfg + "' run.steps=20 --backend cpu --output '" + dir + "/out' --quiet --stats '" + dir + "/stats.json'");
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(dir + "/stats.json");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("\"steps\": 20,"), std::string::npos) << ss.str();
  // and the other way round: run.end_time over a file that sets steps
  const std::string steps_cfg = heat_config(dir, "euler");
  r = run("'" + steps_cfg + "' run.end_time=1e-5 --backend cpu --output '" + dir + "/out2' --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
}

// A misspelt [run] header is named, with its line, and [run] suggested; exit code 2.
TEST(Simulate, MisspeltRunSectionIsNamed) {
  const std::string dir = scratch("runzz");
  const std::string cfg = dir + "/run.toml";
  std::ofstream(cfg) << "[runzz]\nmodel = \"heat\"\nsteps = 10\n";
  Result r = run("'" + cfg + "' --output '" + dir + "/out' --quiet");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(cfg + ":1:1: error: unknown section [runzz]; did you mean [run]?"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/out"));
}

TEST(Simulate, ResumeRefusesAnotherGridButTakesANewEnd) {
  const std::string dir = scratch("change");
  const std::string cfg = heat_config(dir, "euler");
  ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/out' run.steps=20 --quiet").code, 0);
  Result grid = run("'" + cfg + "' --output '" + dir + "/out' --resume 'grid.cells=[32, 48]' --quiet");
  EXPECT_EQ(grid.code, 2);
  EXPECT_NE(grid.err.find("grid differs"), std::string::npos) << grid.err;
  Result precision = run("'" + cfg + "' --output '" + dir + "/out' --resume run.precision=float32 --quiet");
  EXPECT_EQ(precision.code, 2);
  EXPECT_NE(precision.err.find("same precision"), std::string::npos) << precision.err;
  Result longer = run("'" + cfg + "' --output '" + dir + "/out' --resume run.steps=60");
  EXPECT_EQ(longer.code, 0) << longer.err;
  EXPECT_NE(longer.err.find("[run] steps differs"), std::string::npos) << longer.err;
  EXPECT_TRUE(fs::exists(dir + "/out/checkpoint_000000060.h5"));
}

TEST(Simulate, BlowUpStopsWithStepFieldAndLocation) {
  const std::string dir = scratch("blowup");
  const std::string cfg = heat_config(dir, "euler");
  // an initial value at the edge of float64 overflows in the first stencil sweep (an initial
  // state that is not finite already is bad input, exit 2: tests/faults)
  Result r = run("'" + cfg + "' --output '" + dir + "/out' model.amplitude=1e308 run.steps=300 --quiet");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("blew up"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("field 'u'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at cell ("), std::string::npos) << r.err;
}

TEST(Simulate, PluginOfAnotherAbiIsRefused) {
  const std::string fake = from_env("SIMKIT_FAKE_PLUGIN", SIMKIT_FAKE_PLUGIN);
  Result r = run("--plugin '" + fake + "' models");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("built against 'simkit-abi-1 9.9.9"), std::string::npos) << r.err;
  Result missing = run("--plugin /nonexistent/libx.so models");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;
}

TEST(Simulate, MonteCarloResumeGivesTheSameCounts) {
  const std::string dir = scratch("mcpi_resume");
  const std::string cfg = dir + "/mc.toml";
  std::ofstream(cfg) << "[run]\nmodel = \"mcpi\"\nsteps = 12\nseed = 5\n\n[model]\nbatch = 100003\n\n"
                     << "[output]\nevery = 3\n\n[checkpoint]\nevery = 6\n";
  for (const std::string& backend : backends()) {
    const std::string common = " --backend " + backend + " --quiet";
    ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/straight_" + backend + "'" + common).code, 0);
    ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/split_" + backend + "' run.steps=6" + common).code, 0);
    ASSERT_EQ(run("'" + cfg + "' --output '" + dir + "/split_" + backend + "' --resume" + common).code, 0);
    auto a = sim::io::read_checkpoint(dir + "/straight_" + backend + "/checkpoint_000000012.h5");
    auto b = sim::io::read_checkpoint(dir + "/split_" + backend + "/checkpoint_000000012.h5");
    EXPECT_EQ(a.counters.at("mc_hits"), b.counters.at("mc_hits")) << backend;
    EXPECT_EQ(b.counters.at("mc_samples"), 12u * 100003u);
    EXPECT_TRUE(fs::exists(dir + "/split_" + backend + "/diagnostics.h5"));
  }
}
