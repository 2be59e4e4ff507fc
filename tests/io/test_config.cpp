// Config reader: parsing, overrides, validation against schemas, defaults, resolved output,
// located errors and suggestions, against sample schemas of this test (the framework's own
// sections and rules are tested in tests/models/run/test_framework_schema.cpp).
#include "io/config.hpp"

#include <gtest/gtest.h>

#include <type_traits>

namespace sim::io {
namespace {

/// Sample sections: a stop criterion of two exclusive keys, a mesh whose sizes follow its
/// cells, and a model.
std::vector<Schema> sample_schemas() {
  Schema clock{"clock", "When to stop", {
      Param::string("name", "").required().says("Name of the case"),
      Param::integer("steps", 0).at_least(0).says("Steps to run"),
      Param::real("end_time", 0.0).at_least(0).in("s").says("Time to reach"),
      Param::string("mode", "fast").one_of({"fast", "exact"}).says("How to run"),
  }};
  clock.exclusive = {{"steps", "end_time"}};
  Schema mesh{"mesh", "Cells", {
      Param::integers("cells", {8, 8}).at_least(1).lengths(1, 3).says("Cells per dimension"),
      Param::reals("size", {1.0, 1.0}).positive().lengths(1, 3).in("m").one_per_entry_of("cells").says("Extent"),
      Param::strings("labels", {}).says("Names of the axes"),
  }};
  Schema model{"model", "Sample diffusion model", {
      Param::real("alpha", 1.0).at_least(0).in("m^2/s").says("Diffusion coefficient"),
      Param::string("init", "").required().one_of({"constant", "gaussian"}).says("Initial condition"),
      Param::integers("modes", {1}).says("Fourier modes of the initial perturbation"),
      Param::boolean("implicit", false).says("Implicit time stepping"),
  }};
  return {clock, mesh, model};
}

const char* const kValid = R"(# a valid config
[clock]
name = "case"
steps = 100
mode = "exact"

[mesh]
cells = [32, 16, 8]
size = [2, 1.5, 0.1]

[model]
alpha = 5
init = "gaussian"
modes = [1, 2, 3]
)";

Config valid(const std::vector<std::string>& overrides = {}) {
  Config c = Config::parse(kValid, "valid.toml", overrides);
  c.validate(sample_schemas());
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

/// The ConfigError of validating text (after a [clock] and [model]) against schemas; "" if valid.
std::string validation_error(const std::string& text, const std::vector<Schema>& schemas) {
  return error_of([&] {
    Config c = Config::parse("[clock]\nname = \"a\"\nsteps = 1\n[model]\ninit = \"constant\"\n" + text, "t.toml");
    c.validate(schemas);
  });
}

TEST(Config, ValidFileTypedValuesAndDefaults) {
  Config c = valid();
  EXPECT_EQ(c.file(), "valid.toml");
  EXPECT_EQ(c.string("clock", "name"), "case");
  EXPECT_EQ(c.integer("clock", "steps"), 100);
  EXPECT_EQ(c.string("clock", "mode"), "exact");
  EXPECT_EQ(c.integers("mesh", "cells"), (std::vector<std::int64_t>{32, 16, 8}));
  EXPECT_EQ(c.reals("mesh", "size"), (std::vector<double>{2.0, 1.5, 0.1}));
  EXPECT_EQ(c.real("model", "alpha"), 5.0);  // integer written for a real
  EXPECT_EQ(c.integers("model", "modes"), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_TRUE(std::holds_alternative<double>(c.value("model", "alpha")));
  // Defaults.
  EXPECT_EQ(c.real("clock", "end_time"), 0.0);
  EXPECT_TRUE(c.strings("mesh", "labels").empty());
  EXPECT_FALSE(c.boolean("model", "implicit"));
  // A section absent from the file still gets its defaults.
  Config d = Config::parse("[clock]\nname = \"a\"\n[model]\ninit = \"constant\"\n", "d.toml");
  d.validate(sample_schemas());
  EXPECT_EQ(d.integers("mesh", "cells"), (std::vector<std::int64_t>{8, 8}));
  // Getters are strict about types and keys.
  EXPECT_THROW(c.real("clock", "steps"), sim::Error);
  EXPECT_THROW(c.integer("clock", "nosuchkey"), sim::Error);
  EXPECT_THROW(c.string("nosuchsection", "x"), sim::Error);
}

TEST(Config, IsSetWhereAndLocatedErrors) {
  Config c = valid();
  EXPECT_TRUE(c.is_set("clock", "steps"));
  EXPECT_FALSE(c.is_set("clock", "end_time"));
  EXPECT_FALSE(c.is_set("clock", "nosuchkey"));
  SourceLoc steps = c.where("clock", "steps");
  EXPECT_EQ(steps.file, "valid.toml");
  EXPECT_EQ(steps.line, 4);
  EXPECT_EQ(steps.column, 1);
  EXPECT_EQ(c.where("model", "alpha").line, 12);
  EXPECT_EQ(c.where("clock", "end_time").file, "default");
  EXPECT_EQ(c.raw_string("clock", "name"), "case");
  EXPECT_EQ(c.raw_string("clock", "steps"), std::nullopt);
  EXPECT_EQ(c.raw_string("model", "implicit"), std::nullopt);  // a default, not written
  EXPECT_EQ(std::string(c.error_at("clock", "steps", "too many").what()), "valid.toml:4:1: error: [clock] steps: too many");
  EXPECT_EQ(std::string(c.error_at("model", "implicit", "bad").what()), "valid.toml:11:1: error: [model] implicit: bad");
  EXPECT_EQ(std::string(c.error_at_section("mesh", "bad").what()), "valid.toml:7:1: error: bad");
  EXPECT_EQ(std::string(c.error_at_section("nosuch", "bad").what()), "valid.toml: error: bad");
}

TEST(Config, SectionsAsWrittenAndTheirErrors) {
  Config c = Config::parse("top = 1\n[model]\nalpha = 2\n[clock]\nname = \"x\"\n", "s.toml", {"extra.key=3"});
  const auto& s = c.sections();
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].name, "");  // keys outside any section first, then file order, then overrides
  EXPECT_EQ(s[1].name, "model");
  EXPECT_EQ(s[2].name, "clock");
  EXPECT_EQ(s[3].name, "extra");
  ASSERT_EQ(s[0].items.size(), 1u);
  EXPECT_EQ(s[0].items[0].key, "top");
  EXPECT_EQ(s[1].loc.line, 2);
  ASSERT_NE(c.find("model", "alpha"), nullptr);
  EXPECT_EQ(c.find("model", "alpha")->raw.loc.column, 9);
  EXPECT_EQ(c.find("model", "beta"), nullptr);
  EXPECT_EQ(std::string(c.error_at(s[1], "odd").what()), "s.toml:2:1: error: odd");
  EXPECT_EQ(std::string(c.error_at(s[3], "odd").what()), "command line: 'extra.key=3': error: odd");
  const Config::Item& alpha = *c.find("model", "alpha");
  EXPECT_EQ(std::string(c.error_at(alpha, alpha.raw.loc, "odd").what()), "s.toml:3:9: error: odd");
  // A key outside any section: the section of the schemas that holds it, or the list of them.
  const std::vector<Schema> schemas = sample_schemas();
  EXPECT_EQ(std::string(c.outside_section_error(s[0].items[0], schemas).what()),
            "s.toml:1:1: error: key 'top' is outside any section; keys go under a section header ([clock], [mesh], [model])");
  Config k = Config::parse("steps = 1\nmesh = 2\n", "k.toml");
  EXPECT_EQ(std::string(k.outside_section_error(k.sections()[0].items[0], schemas).what()),
            "k.toml:1:1: error: key 'steps' is outside any section; put it under [clock]");
  EXPECT_EQ(std::string(k.outside_section_error(k.sections()[0].items[1], schemas).what()),
            "k.toml:2:1: error: 'mesh' must be a section: write [mesh] on a line of its own, then its keys");
  EXPECT_EQ(error_of([&] { k.validate(schemas); }), "k.toml:1:1: error: key 'steps' is outside any section; put it under [clock]");
}

TEST(Config, Overrides) {
  Config c = valid({"model.alpha=2.5", "clock.mode=fast", "clock.steps = 11", "mesh.cells=[4, 4, 4]",
                    "mesh.labels=[\"u\", \"v\"]", "clock.name=\"ck\"", "model.implicit=true"});
  EXPECT_EQ(c.real("model", "alpha"), 2.5);
  EXPECT_EQ(c.string("clock", "mode"), "fast");  // bare word taken as a string
  EXPECT_EQ(c.integer("clock", "steps"), 11);
  EXPECT_EQ(c.integers("mesh", "cells"), (std::vector<std::int64_t>{4, 4, 4}));
  EXPECT_EQ(c.strings("mesh", "labels"), (std::vector<std::string>{"u", "v"}));
  EXPECT_EQ(c.string("clock", "name"), "ck");
  EXPECT_TRUE(c.boolean("model", "implicit"));
  EXPECT_EQ(c.where("model", "alpha").file, "command line");
  EXPECT_EQ(Config::parse(kValid, "v.toml", {"clock.name=other dir/x"}).raw_string("clock", "name"), "other dir/x");

  // Type-checked and located at the command line, quoting the override.
  std::string msg = error_of([] { valid({"clock.steps=2.5"}); });
  EXPECT_NE(msg.find("command line: 'clock.steps=2.5': error: [clock] steps: expected an integer, found 2.5"), std::string::npos) << msg;
  msg = error_of([] { valid({"model.alpah=3"}); });
  EXPECT_NE(msg.find("command line: 'model.alpah=3': error: unknown key 'alpah' in [model]; did you mean 'alpha'?"),
            std::string::npos) << msg;
  msg = error_of([] { valid({"modle.alpha=3"}); });
  EXPECT_NE(msg.find("'modle.alpha=3'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean [model]?"), std::string::npos) << msg;
  msg = error_of([] { valid({"clock.mode=exakt"}); });
  EXPECT_NE(msg.find("found \"exakt\"; did you mean \"exact\"?"), std::string::npos) << msg;
  // Malformed overrides.
  for (const char* bad : {"clock.steps", "steps=3", ".steps=3", "clock.=3"}) {
    msg = error_of([&] { Config::parse(kValid, "v.toml", {bad}); });
    EXPECT_NE(msg.find(std::string("'") + bad + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("section.key=value"), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("command line", 0), 0u) << msg;
  }
}

// Keys that exclude each other (Schema::exclusive): the command line wins over the file.
TEST(Config, CommandLineReplacesTheFilesExclusiveKey) {
  const std::string file = "[clock]\nname = \"a\"\nend_time = 0.5\n[model]\ninit = \"constant\"\n";
  Config c = Config::parse(file, "f.toml", {"clock.steps=20"});
  c.validate(sample_schemas());
  EXPECT_EQ(c.integer("clock", "steps"), 20);
  EXPECT_FALSE(c.is_set("clock", "end_time"));
  EXPECT_EQ(c.real("clock", "end_time"), 0.0);
  // The other way round.
  c = Config::parse("[clock]\nname = \"a\"\nsteps = 3\n[model]\ninit = \"constant\"\n", "g.toml", {"clock.end_time=2.5"});
  c.validate(sample_schemas());
  EXPECT_EQ(c.real("clock", "end_time"), 2.5);
  EXPECT_FALSE(c.is_set("clock", "steps"));
  // Both on the command line, or both in the file: both stay (a rule decides).
  c = Config::parse(file, "f.toml", {"clock.steps=20", "clock.end_time=1"});
  c.validate(sample_schemas());
  EXPECT_TRUE(c.is_set("clock", "steps") && c.is_set("clock", "end_time"));
  c = Config::parse("[clock]\nname = \"a\"\nsteps = 1\nend_time = 1\n[model]\ninit = \"constant\"\n", "b.toml");
  c.validate(sample_schemas());
  EXPECT_TRUE(c.is_set("clock", "steps") && c.is_set("clock", "end_time"));
  // Without the pair declared, the file's key stays.
  std::vector<Schema> plain = sample_schemas();
  plain[0].exclusive.clear();
  c = Config::parse(file, "f.toml", {"clock.steps=20"});
  c.validate(plain);
  EXPECT_TRUE(c.is_set("clock", "end_time"));
}

// Param::per_entry_of: an unset array takes one default entry per entry of another key.
TEST(Config, ArrayDefaultFollowsAnotherKey) {
  Config c = Config::parse("[clock]\nname = \"a\"\n[mesh]\ncells = [8]\n[model]\ninit = \"constant\"\n", "m.toml");
  c.validate(sample_schemas());
  EXPECT_EQ(c.reals("mesh", "size"), std::vector<double>{1.0});
  EXPECT_FALSE(c.is_set("mesh", "size"));
  c = Config::parse("[clock]\nname = \"a\"\n[mesh]\ncells = [8, 4, 2]\n[model]\ninit = \"constant\"\n", "m.toml");
  c.validate(sample_schemas());
  EXPECT_EQ(c.reals("mesh", "size"), (std::vector<double>{1.0, 1.0, 1.0}));
  Config again = c;  // a second validate() starts from the plain default again
  again.validate(sample_schemas());
  EXPECT_EQ(again.reals("mesh", "size"), (std::vector<double>{1.0, 1.0, 1.0}));
  // A value the user set is kept as written (a rule may refuse it).
  c = Config::parse("[clock]\nname = \"a\"\n[mesh]\ncells = [8]\nsize = [3, 4]\n[model]\ninit = \"constant\"\n", "m.toml");
  c.validate(sample_schemas());
  EXPECT_EQ(c.reals("mesh", "size"), (std::vector<double>{3.0, 4.0}));
  // An array without the link keeps its default.
  EXPECT_TRUE(c.strings("mesh", "labels").empty());
}

TEST(Config, SpecExampleMessages) {
  const std::string head = "[clock]\nname = \"a\"\nsteps = 1\n\n[model]\ninit = \"constant\"\nalpha = -1.5\n";
  EXPECT_EQ(error_of([&] { Config::parse(head, "run.toml").validate(sample_schemas()); }),
            "run.toml:7:9: error: [model] alpha: expected a real >= 0, found -1.5");
  EXPECT_EQ(error_of([] { Config::parse("[clock]\nname = \"a\"\n\n[model]\nalpah = 1\n", "run.toml").validate(sample_schemas()); }),
            "run.toml:5:1: error: unknown key 'alpah' in [model]; did you mean 'alpha'?");
  EXPECT_EQ(error_of([] { Config::parse("[clock]\nname = \"a\"\n[modle]\n", "run.toml").validate(sample_schemas()); }),
            "run.toml:3:1: error: unknown section [modle]; did you mean [model]?");
  EXPECT_EQ(error_of([] { Config::parse("[solver]\n", "run.toml").validate(sample_schemas()); }),
            "run.toml:1:1: error: unknown section [solver]; known sections: [clock], [mesh], [model]");
  EXPECT_EQ(error_of([] { Config::parse("[clock]\ncells = [1]\n", "run.toml").validate(sample_schemas()); }),
            "run.toml:2:1: error: unknown key 'cells' in [clock]; did you mean [mesh] cells?");
  EXPECT_EQ(error_of([] { Config::parse("[model]\ninit = \"constant\"\n", "run.toml").validate(sample_schemas()); })
                .rfind("run.toml: error: [clock] name: required key missing (expected a string); add name = ... under [clock]", 0),
            0u);
  EXPECT_EQ(error_of([] { Config::load("/nonexistent/run.toml"); }).rfind("/nonexistent/run.toml: error: cannot read", 0), 0u);
}

TEST(Config, ValidateIsAllOrNothingAndRepeatable) {
  Config c = Config::parse(kValid, "valid.toml");
  c.validate(sample_schemas());
  Config again = c;
  again.validate(sample_schemas());
  EXPECT_EQ(again.reals("mesh", "size"), c.reals("mesh", "size"));
  EXPECT_FALSE(again.is_set("clock", "end_time"));
  Config bad = Config::parse(kValid, "valid.toml", {"model.alpha=-1"});
  EXPECT_THROW(bad.validate(sample_schemas()), ConfigError);
  EXPECT_THROW(bad.real("model", "alpha"), sim::Error);  // nothing half-filled
  EXPECT_THROW(bad.integer("clock", "steps"), sim::Error);
}

TEST(Config, ToTomlRoundTrip) {
  Config c = Config::parse(kValid, "valid.toml", {"model.alpha=0.1", "clock.end_time=3e-7", "mesh.labels=[\"a\\\"b\"]"});
  c.validate(sample_schemas());
  for (bool docs : {false, true}) {
    const std::string text = c.to_toml(sample_schemas(), docs);
    Config back = Config::parse(text, "resolved.toml");
    back.validate(sample_schemas());
    for (const auto& schema : sample_schemas())
      for (const auto& p : schema.params) {
        EXPECT_TRUE(back.value(schema.section, p.name) == c.value(schema.section, p.name)) << schema.section << "." << p.name << "\n" << text;
        EXPECT_EQ(back.is_set(schema.section, p.name), c.is_set(schema.section, p.name)) << schema.section << "." << p.name;
      }
    EXPECT_EQ(docs, text.find("[m^2/s]") != std::string::npos) << text;
    EXPECT_NE(text.find("# implicit = false"), std::string::npos) << text;  // defaults commented out
  }
}

TEST(Config, Nearest) {
  EXPECT_EQ(nearest("alpah", {"alpha", "init", "modes"}), "alpha");
  EXPECT_EQ(nearest("modle", {"run", "grid", "model"}), "model");
  EXPECT_EQ(nearest("tpu", {"auto", "cuda", "cpu"}), "cpu");
  EXPECT_EQ(nearest("Alpha", {"alpha"}), "alpha");
  EXPECT_EQ(nearest("solver", {"run", "grid", "output"}), "");
  EXPECT_EQ(nearest("x", {}), "");
}

// Parameters are built by name, one way only (no positional aggregate to get in the wrong order).
static_assert(!std::is_aggregate_v<Param>, "Param is built by name: Param::real(name, default).at_least(0)...");

TEST(Config, PositiveIsAStrictBoundSaidAsGreaterThanZero) {
  std::vector<Schema> schemas = sample_schemas();
  schemas.back().params.push_back(Param::real("width", 0.1).positive().in("m").says("a width"));
  schemas.back().params.push_back(Param::real("tol", 1e-8).positive().at_most(1).says("a tolerance"));
  EXPECT_EQ(validation_error("width = 1e-300\ntol = 1\n", schemas), "");
  EXPECT_NE(validation_error("width = 0\n", schemas).find("[model] width: expected a real > 0, found 0"), std::string::npos)
      << validation_error("width = 0\n", schemas);
  EXPECT_NE(validation_error("width = -2\n", schemas).find("expected a real > 0, found -2"), std::string::npos);
  EXPECT_NE(validation_error("tol = 0\n", schemas).find("[model] tol: expected a real in (0, 1], found 0"), std::string::npos)
      << validation_error("tol = 0\n", schemas);
}

TEST(Config, RetiredKeysNameTheirReplacement) {
  std::vector<Schema> schemas = sample_schemas();
  schemas.back().retired = {{"lid", "was replaced by [boundary] y_hi_value"}};
  const std::string msg = validation_error("lid = 1.0\n", schemas);
  EXPECT_NE(msg.find("t.toml:6:1: error: [model] lid was replaced by [boundary] y_hi_value"), std::string::npos) << msg;
}

}  // namespace
}  // namespace sim::io
