// The framework's config sections and rules (models/run/framework_schema.hpp) with the config
// reader: a run's file validated, its defaults and overrides, the cross-key rules, the check
// of [run] model, the boundary sections of a model's kinds, and the corpus of broken configs
// in tests/data/bad_configs (listed in EXPECTED.txt).
#include "models/run/framework_schema.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

namespace sim::run {
namespace {

using io::Config;
using io::ConfigError;
using io::Param;
using io::Schema;
using io::SourceLoc;

/// The sample model the tests (and the bad-config corpus) validate [model] against.
Schema model_schema() {
  return {"model", "Sample diffusion model", {
      Param::real("alpha", 1.0).at_least(0).in("m^2/s").says("Diffusion coefficient"),
      Param::string("init", "").required().one_of({"constant", "gaussian"}).says("Initial condition"),
      Param::integers("modes", {1}).says("Fourier modes of the initial perturbation"),
      Param::boolean("implicit", false).says("Implicit time stepping"),
  }};
}

std::vector<Schema> all_schemas() {
  auto s = framework_schemas();
  s.push_back(model_schema());
  return s;
}

const std::vector<std::string> kModels = {"heat", "mcpi"};

const char* const kValid = R"(# a valid config
[run]
model = "heat"
steps = 100
backend = "cpu"
seed = 7

[grid]
cells = [32, 16, 8]
length = [2, 1.5, 0.1]

[model]
alpha = 5
init = "gaussian"
modes = [1, 2, 3]

[boundary]
x_lo = "dirichlet"
x_lo_value = 1.5
)";

Config valid(const std::vector<std::string>& overrides = {}) {
  Config c = Config::parse(kValid, "valid.toml", overrides);
  check_model_name(c, kModels);
  c.validate(all_schemas());
  check_framework_rules(c);
  return c;
}

/// The message of the ConfigError that f throws, or "" if it throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(FrameworkConfig, ValidFileTypedValuesAndDefaults) {
  Config c = valid();
  EXPECT_EQ(c.file(), "valid.toml");
  EXPECT_EQ(c.string("run", "model"), "heat");
  EXPECT_EQ(c.integer("run", "steps"), 100);
  EXPECT_EQ(c.string("run", "backend"), "cpu");
  EXPECT_EQ(c.integers("grid", "cells"), (std::vector<std::int64_t>{32, 16, 8}));
  EXPECT_EQ(c.reals("grid", "length"), (std::vector<double>{2.0, 1.5, 0.1}));
  EXPECT_EQ(c.real("model", "alpha"), 5.0);  // integer written for a real
  EXPECT_EQ(c.string("model", "init"), "gaussian");
  EXPECT_EQ(c.integers("model", "modes"), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(c.string("boundary", "x_lo"), "dirichlet");
  EXPECT_EQ(c.real("boundary", "x_lo_value"), 1.5);
  // Defaults, including those of sections absent from the file.
  EXPECT_EQ(c.string("run", "precision"), "float64");
  EXPECT_EQ(c.real("run", "cfl"), 0.9);
  EXPECT_TRUE(c.strings("run", "plugins").empty());
  EXPECT_EQ(c.reals("grid", "origin"), (std::vector<double>{0.0, 0.0, 0.0}));  // one per cell dimension
  EXPECT_EQ(c.integer("grid", "ghost"), 1);
  EXPECT_EQ(c.string("output", "directory"), "output");
  EXPECT_EQ(c.integer("checkpoint", "keep"), 3);
  EXPECT_EQ(c.string("boundary", "default"), "neumann");
  EXPECT_EQ(c.string("boundary", "x_hi"), "");
  EXPECT_FALSE(c.boolean("model", "implicit"));
  EXPECT_TRUE(std::holds_alternative<double>(c.value("model", "alpha")));
  // Getters are strict about types and keys.
  EXPECT_THROW(c.real("run", "steps"), sim::Error);
  EXPECT_THROW(c.integer("run", "nosuchkey"), sim::Error);
  EXPECT_THROW(c.string("nosuchsection", "x"), sim::Error);
}

TEST(FrameworkConfig, IsSetAndWhere) {
  Config c = valid();
  EXPECT_TRUE(c.is_set("run", "steps"));
  EXPECT_TRUE(c.is_set("model", "alpha"));
  EXPECT_FALSE(c.is_set("run", "cfl"));
  EXPECT_FALSE(c.is_set("output", "every"));
  EXPECT_FALSE(c.is_set("run", "nosuchkey"));
  SourceLoc steps = c.where("run", "steps");
  EXPECT_EQ(steps.file, "valid.toml");
  EXPECT_EQ(steps.line, 4);
  EXPECT_EQ(steps.column, 1);
  EXPECT_EQ(c.where("model", "alpha").line, 13);
  EXPECT_EQ(c.where("boundary", "x_lo_value").line, 19);
  EXPECT_EQ(c.where("run", "cfl").file, "default");
  EXPECT_EQ(c.raw_string("run", "model"), "heat");
  EXPECT_EQ(c.raw_string("run", "steps"), std::nullopt);
  EXPECT_EQ(c.raw_string("run", "precision"), std::nullopt);  // a default, not written
  EXPECT_EQ(std::string(c.error_at("run", "steps", "too many").what()), "valid.toml:4:1: error: [run] steps: too many");
  EXPECT_EQ(std::string(c.error_at("output", "every", "bad").what()), "valid.toml: error: [output] every: bad");
}

TEST(FrameworkConfig, GridLengthAndOriginAdaptToCells) {
  Config c = Config::parse("[run]\nmodel = \"heat\"\nsteps = 1\n[grid]\ncells = [8]\n[model]\ninit = \"constant\"\n", "g.toml");
  c.validate(all_schemas());
  check_framework_rules(c);
  EXPECT_EQ(c.reals("grid", "length"), std::vector<double>{1.0});
  EXPECT_EQ(c.reals("grid", "origin"), std::vector<double>{0.0});
  Config d = Config::parse("[run]\nmodel = \"heat\"\nsteps = 1\n[model]\ninit = \"constant\"\n", "d.toml");
  d.validate(all_schemas());
  EXPECT_EQ(d.integers("grid", "cells"), (std::vector<std::int64_t>{64, 64}));
  EXPECT_EQ(d.reals("grid", "length"), (std::vector<double>{1.0, 1.0}));
}

TEST(FrameworkConfig, Overrides) {
  Config c = valid({"model.alpha=2.5", "run.backend=cuda", "run.seed = 11", "grid.cells=[4, 4, 4]",
                    "output.fields=[\"u\", \"v\"]", "checkpoint.prefix=\"ck\"", "output.directory=/tmp/run 1"});
  EXPECT_EQ(c.real("model", "alpha"), 2.5);
  EXPECT_EQ(c.string("run", "backend"), "cuda");  // bare word taken as a string
  EXPECT_EQ(c.integer("run", "seed"), 11);
  EXPECT_EQ(c.integers("grid", "cells"), (std::vector<std::int64_t>{4, 4, 4}));
  EXPECT_EQ(c.strings("output", "fields"), (std::vector<std::string>{"u", "v"}));
  EXPECT_EQ(c.string("checkpoint", "prefix"), "ck");
  EXPECT_EQ(c.string("output", "directory"), "/tmp/run 1");
  EXPECT_EQ(c.where("model", "alpha").file, "command line");
  EXPECT_TRUE(c.is_set("checkpoint", "prefix"));
  EXPECT_EQ(Config::parse(kValid, "v.toml", {"run.model=mcpi"}).raw_string("run", "model"), "mcpi");

  // Type-checked and located at the command line, quoting the override.
  std::string msg = error_of([] { valid({"run.steps=2.5"}); });
  EXPECT_NE(msg.find("command line: 'run.steps=2.5': error: [run] steps: expected an integer, found 2.5"), std::string::npos) << msg;
  msg = error_of([] { valid({"model.alpah=3"}); });
  EXPECT_NE(msg.find("command line: 'model.alpah=3': error: unknown key 'alpah' in [model]; did you mean 'alpha'?"),
            std::string::npos) << msg;
  msg = error_of([] { valid({"modle.alpha=3"}); });
  EXPECT_NE(msg.find("'modle.alpha=3'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean [model]?"), std::string::npos) << msg;
  msg = error_of([] { valid({"run.backend=tpu"}); });
  EXPECT_NE(msg.find("found \"tpu\"; did you mean \"cpu\"?"), std::string::npos) << msg;
  // Malformed overrides.
  for (const char* bad : {"run.steps", "steps=3", ".steps=3", "run.=3"}) {
    msg = error_of([&] { Config::parse(kValid, "v.toml", {bad}); });
    EXPECT_NE(msg.find(std::string("'") + bad + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("section.key=value"), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("command line", 0), 0u) << msg;
  }
}

// The command line wins over the file, for the keys that exclude each other too (issue 21):
// `simulate configs/heat2d.toml run.steps=20` was refused because the file sets end_time.
TEST(FrameworkConfig, CommandLineStopCriterionReplacesTheFiles) {
  const std::string file = "[run]\nmodel = \"heat\"\nend_time = 0.5\ncfl = 0.4\n\n[model]\ninit = \"constant\"\n";
  auto checked = [&](const std::vector<std::string>& overrides) {
    Config c = Config::parse(file, "run.toml", overrides);
    check_model_name(c, kModels);
    c.validate(all_schemas());
    check_framework_rules(c);
    return c;
  };
  Config c = checked({"run.steps=20"});
  EXPECT_EQ(c.integer("run", "steps"), 20);
  EXPECT_FALSE(c.is_set("run", "end_time"));
  EXPECT_EQ(c.real("run", "cfl"), 0.4);  // untouched
  c = checked({"run.dt=0.01"});
  EXPECT_EQ(c.real("run", "dt"), 0.01);
  EXPECT_FALSE(c.is_set("run", "cfl"));
  EXPECT_EQ(c.real("run", "end_time"), 0.5);

  const std::string steps_file = "[run]\nmodel = \"heat\"\nsteps = 100\ndt = 0.1\n\n[model]\ninit = \"constant\"\n";
  c = Config::parse(steps_file, "run.toml", {"run.end_time=2.5", "run.cfl=0.5"});
  c.validate(all_schemas());
  check_framework_rules(c);
  EXPECT_EQ(c.real("run", "end_time"), 2.5);
  EXPECT_FALSE(c.is_set("run", "steps"));
  EXPECT_FALSE(c.is_set("run", "dt"));
  EXPECT_EQ(c.where("run", "end_time").file, "command line");

  // Both on the command line: still the user's contradiction.
  const std::string msg = error_of([&] { checked({"run.steps=20", "run.end_time=1"}); });
  EXPECT_NE(msg.find("both steps (command line) and end_time are set"), std::string::npos) << msg;
  // Both in the file, no override: as before.
  EXPECT_NE(error_of([] { Config c = Config::parse("[run]\nmodel = \"heat\"\nsteps = 1\nend_time = 1\n[model]\ninit = \"constant\"\n", "f.toml");
                          c.validate(all_schemas()); check_framework_rules(c); })
                .find("f.toml:4:1: error: [run] end_time: both steps (line 3)"),
            std::string::npos);
}

// A misspelt [run] header names the section and suggests [run] (issue 21: it was reported as
// "[run] model: required key missing").
TEST(FrameworkConfig, MisspeltRunSectionIsNamed) {
  const std::string text = "# heat\n[runzz]\nmodel = \"heat\"\nsteps = 10\n\n[model]\ninit = \"constant\"\n";
  std::string msg = error_of([&] { check_model_name(Config::parse(text, "run.toml"), kModels); });
  EXPECT_EQ(msg.rfind("run.toml:2:1: error: unknown section [runzz]; did you mean [run]?", 0), 0u) << msg;
  EXPECT_EQ(msg.find("required key missing"), std::string::npos) << msg;
  // Without a model key, a name close to "run" still points there.
  msg = error_of([] { check_model_name(Config::parse("[rnu]\nsteps = 1\n", "r.toml"), kModels); });
  EXPECT_EQ(msg.rfind("r.toml:1:1: error: unknown section [rnu]; did you mean [run]?", 0), 0u) << msg;
  // A section far from every name, holding model: the same pointer to [run].
  msg = error_of([] { check_model_name(Config::parse("[simulation]\nmodel = \"heat\"\n", "s.toml"), kModels); });
  EXPECT_EQ(msg.rfind("s.toml:1:1: error: unknown section [simulation]; did you mean [run]?", 0), 0u) << msg;
  // From the command line, located there.
  msg = error_of([] { check_model_name(Config::parse("", "e.toml", {"runn.model=heat"}), kModels); });
  EXPECT_NE(msg.find("command line: 'runn.model=heat': error: unknown section [runn]; did you mean [run]?"), std::string::npos) << msg;
  // Other sections and a truly missing model: unchanged.
  msg = error_of([] { check_model_name(Config::parse("[grid]\ncells = [4]\n", "g.toml"), kModels); });
  EXPECT_EQ(msg.rfind("g.toml: error: [run] model: required key missing", 0), 0u) << msg;
}

TEST(FrameworkConfig, SpecExampleMessages) {
  const std::string head = "[run]\nmodel = \"heat\"\nsteps = 1\n\n[model]\ninit = \"constant\"\nalpha = -1.5\n";
  EXPECT_EQ(error_of([&] { Config::parse(head, "run.toml").validate(all_schemas()); }),
            "run.toml:7:9: error: [model] alpha: expected a real >= 0, found -1.5");
  EXPECT_EQ(error_of([] { Config::parse("[run]\nmodel = \"heat\"\n\n[model]\nalpah = 1\n", "run.toml").validate(all_schemas()); }),
            "run.toml:5:1: error: unknown key 'alpah' in [model]; did you mean 'alpha'?");
  EXPECT_EQ(error_of([] { Config::parse("[run]\nmodel = \"heat\"\n[modle]\n", "run.toml").validate(all_schemas()); }),
            "run.toml:3:1: error: unknown section [modle]; did you mean [model]?");
  EXPECT_EQ(error_of([] { check_model_name(Config::parse("", "run.toml"), kModels); })
                .rfind("run.toml: error: [run] model: required key missing (registered models: heat, mcpi)", 0),
            0u);
  EXPECT_EQ(error_of([] { Config::load("/nonexistent/run.toml"); }).rfind("/nonexistent/run.toml: error: cannot read", 0), 0u);
}

TEST(FrameworkConfig, ToTomlRoundTrip) {
  // dt and cfl both set break a framework rule, not the round trip.
  Config c = Config::parse(kValid, "valid.toml", {"model.alpha=0.1", "run.dt=3e-7", "run.cfl=0.7", "output.fields=[\"a\\\"b\"]"});
  c.validate(all_schemas());
  for (bool docs : {false, true}) {
    const std::string text = c.to_toml(all_schemas(), docs);
    Config back = Config::parse(text, "resolved.toml");
    back.validate(all_schemas());
    for (const auto& schema : all_schemas())
      for (const auto& p : schema.params) {
        EXPECT_TRUE(back.value(schema.section, p.name) == c.value(schema.section, p.name)) << schema.section << "." << p.name << "\n" << text;
        EXPECT_EQ(back.is_set(schema.section, p.name), c.is_set(schema.section, p.name)) << schema.section << "." << p.name;
      }
    EXPECT_EQ(docs, text.find("[m^2/s]") != std::string::npos) << text;
    EXPECT_NE(text.find("# precision = \"float64\""), std::string::npos) << text;  // defaults commented out
  }
  // Without the dt/cfl clash the resolved config passes the framework rules again.
  Config ok = valid();
  Config back = Config::parse(ok.to_toml(all_schemas(), true), "resolved.toml");
  back.validate(all_schemas());
  EXPECT_NO_THROW(check_framework_rules(back));
  EXPECT_EQ(back.reals("grid", "origin").size(), 3u);
}

// ---- the bad-config corpus

std::filesystem::path corpus_dir() {  // SIMKIT_SOURCE_DIR: the sources moved (the GPU machine's copy)
  if (const char* root = std::getenv("SIMKIT_SOURCE_DIR"); root && *root)
    return std::filesystem::path(root) / "tests" / "data" / "bad_configs";
  return std::filesystem::path(SIMKIT_TEST_DATA_DIR) / "bad_configs";
}

/// The ConfigError of validating text (a [run] and [grid] are added) against the sample schemas; "" if valid.
std::string validation_error(const std::string& text, const std::vector<Schema>& schemas) {
  try {
    Config c = Config::parse("[run]\nmodel = \"heat\"\nsteps = 1\n[model]\ninit = \"constant\"\n" + text, "t.toml");
    c.validate(schemas);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(FrameworkConfig, PositiveIsAStrictBoundSaidAsGreaterThanZero) {
  std::vector<Schema> schemas = all_schemas();
  schemas.back().params.push_back(Param::real("width", 0.1).positive().in("m").says("a width"));
  schemas.back().params.push_back(Param::real("tol", 1e-8).positive().at_most(1).says("a tolerance"));
  EXPECT_EQ(validation_error("width = 1e-300\ntol = 1\n", schemas), "");
  EXPECT_NE(validation_error("width = 0\n", schemas).find("[model] width: expected a real > 0, found 0"), std::string::npos)
      << validation_error("width = 0\n", schemas);
  EXPECT_NE(validation_error("width = -2\n", schemas).find("expected a real > 0, found -2"), std::string::npos);
  EXPECT_NE(validation_error("tol = 0\n", schemas).find("[model] tol: expected a real in (0, 1], found 0"), std::string::npos)
      << validation_error("tol = 0\n", schemas);
  for (const Schema& s : framework_schemas())  // "> 0" is positive(), no tiny stand-in for 0
    for (const Param& p : s.params) EXPECT_FALSE(p.min > 0 && p.min < 1e-200) << s.section << " " << p.name;
}

TEST(FrameworkConfig, BoundaryFacesAndKindsAreCheckedWithSuggestions) {
  const std::vector<Schema> scalar = all_schemas();
  std::string msg = validation_error("[boundary]\nx_lo = \"dirichlett\"\n", scalar);
  EXPECT_NE(msg.find("t.toml:7:8: error: [boundary] x_lo: expected one of \"\", \"periodic\", \"dirichlet\", \"neumann\""),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean \"dirichlet\"?"), std::string::npos) << msg;
  msg = validation_error("[boundary]\nx_low = \"dirichlet\"\n", scalar);
  EXPECT_NE(msg.find("unknown key 'x_low' in [boundary]; did you mean 'x_lo'?"), std::string::npos) << msg;
  msg = validation_error("[boundary]\ny_hi = \"wall\"\n", scalar);  // a fluid kind, not a scalar field's
  EXPECT_NE(msg.find("[boundary] y_hi: expected one of"), std::string::npos) << msg;
  // a model's own kinds: the fluid's
  std::vector<Schema> fluid = scalar;
  for (Schema& s : fluid)
    if (s.section == "boundary") s = boundary_schema({"wall", "periodic", "inflow", "outflow"}, "wall", "wall speed");
  EXPECT_EQ(validation_error("[boundary]\ny_hi = \"wall\"\ny_hi_value = 1\n", fluid), "");
  msg = validation_error("[boundary]\nx_lo = \"inflw\"\n", fluid);
  EXPECT_NE(msg.find("did you mean \"inflow\"?"), std::string::npos) << msg;
  msg = validation_error("[boundary]\nx_lo = \"neumann\"\n", fluid);
  EXPECT_NE(msg.find("expected one of \"\", \"wall\", \"periodic\", \"inflow\", \"outflow\", found \"neumann\""),
            std::string::npos) << msg;
}

TEST(ConfigCorpus, EveryBadConfigFailsWithItsMessage) {
  const auto dir = corpus_dir();
  std::ifstream list(dir / "EXPECTED.txt");
  ASSERT_TRUE(list) << "cannot read " << (dir / "EXPECTED.txt");
  std::set<std::string> listed;
  std::string line;
  while (std::getline(list, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << "EXPECTED.txt line without a tab: " << line;
    const std::string name = line.substr(0, tab), want = line.substr(tab + 1);
    SCOPED_TRACE(name);
    listed.insert(name);
    const std::string msg = error_of([&] {
      Config c = Config::load((dir / name).string());
      check_model_name(c, kModels);
      c.validate(all_schemas());
      check_framework_rules(c);
    });
    ASSERT_FALSE(msg.empty()) << name << " loaded without error";
    EXPECT_NE(msg.find(want), std::string::npos) << "message: " << msg << "\nwanted: " << want;
    EXPECT_NE(msg.find(name), std::string::npos) << "message does not name the file: " << msg;
  }
  EXPECT_GE(listed.size(), 24u);
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".toml") {
      EXPECT_TRUE(listed.count(entry.path().filename().string())) << entry.path().filename() << " is not in EXPECTED.txt";
    }
}

}  // namespace
}  // namespace sim::run
