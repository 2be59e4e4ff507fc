// The tuning knobs (core/runtime/tuning.hpp): each value a knob accepts parses, every other is
// an error naming the variable, and Scoped changes a knob for a scope only.
#include <gtest/gtest.h>

#include <string>

#include "core/runtime/tuning.hpp"
#include "solvers/multigrid.hpp"

using namespace sim;

TEST(Tuning, EveryKnobIsDocumentedAndAcceptsItsDefaultForm) {
  ASSERT_EQ(tuning::knobs().size(), 22u);
  for (const tuning::Knob& k : tuning::knobs()) {
    EXPECT_EQ(std::string(k.name).rfind("SIMKIT_", 0), 0u) << k.name;
    EXPECT_FALSE(std::string(k.accepts).empty()) << k.name;
    EXPECT_FALSE(std::string(k.what).empty()) << k.name;
    EXPECT_TRUE(tuning::setting(k.name).empty()) << k.name << " is set in the test's environment";
  }
}

TEST(Tuning, ScopedSetsAndRestores) {
  EXPECT_EQ(tuning::current().stencil_pairs, -1);
  {
    const tuning::Scoped pairs("SIMKIT_STENCIL_PAIRS", "0");
    EXPECT_EQ(tuning::current().stencil_pairs, 0);
    EXPECT_EQ(tuning::setting("SIMKIT_STENCIL_PAIRS"), "0");
    ASSERT_EQ(tuning::set_knobs().size(), 1u);
    EXPECT_EQ(tuning::set_knobs()[0], "SIMKIT_STENCIL_PAIRS=0");
  }
  EXPECT_EQ(tuning::current().stencil_pairs, -1);
  EXPECT_TRUE(tuning::set_knobs().empty());
}

TEST(Tuning, ValuesParse) {
  const tuning::Scoped halo("SIMKIT_HALO", "nccl"), rows("SIMKIT_STENCIL_ROWS", "8"), mib("SIMKIT_CUBLAS_WORKSPACE_MIB", "0"),
      smooth("SIMKIT_MG_SMOOTH", "3,2"), order("SIMKIT_FLUID_GUESS_ORDER", "0"), steps("SIMKIT_DECOMPOSED_STEPS", "replays"),
      walk("SIMKIT_FOR_EACH_ROWS", "0"), lanes("SIMKIT_COPY_LANES", "2"),
      back("SIMKIT_COPIES_BACK", "columns");
  const tuning::Values& v = tuning::current();
  EXPECT_EQ(v.copy_lanes, 2);
  EXPECT_EQ(v.copies_back, "columns");
  EXPECT_EQ(v.halo, "nccl");
  EXPECT_EQ(v.stencil_rows, 8);
  EXPECT_EQ(v.cublas_workspace_mib, 0);
  EXPECT_EQ(v.mg_pre_smooth, 3);
  EXPECT_EQ(v.mg_post_smooth, 2);
  EXPECT_EQ(v.fluid_guess_order, 0);
  EXPECT_EQ(v.decomposed_steps, "replays");
  EXPECT_EQ(v.for_each_rows, 0);
}

TEST(Tuning, BadValuesAreErrorsThatNameTheKnob) {
  const std::pair<const char*, const char*> bad[] = {
      {"SIMKIT_HALO", "mpi"},          {"SIMKIT_STENCIL_ROWS", "3"},     {"SIMKIT_STENCIL_PAIRS", "yes"},
      {"SIMKIT_STENCIL_BLOCK_Y", "12"}, {"SIMKIT_CUBLAS_WORKSPACE_MIB", "-1"}, {"SIMKIT_MG_SMOOTH", "2"},
      {"SIMKIT_MG_SMOOTH", "0,1"},     {"SIMKIT_MG_BLOCK_CELLS", "1k"},  {"SIMKIT_MG_GATHER_CELLS", "0"},
      {"SIMKIT_FLUID_GUESS_ORDER", "2"}, {"SIMKIT_DEVICE_STEPS", ""},    {"SIMKIT_NCCL_ORDER", "fast"},
      {"SIMKIT_TRANSPOSE_CHUNKS", "0"}, {"SIMKIT_TRANSPOSE_PATH", "peer"}, {"SIMKIT_DECOMPOSED_STEPS", "graph"}, {"SIMKIT_FOR_EACH_ROWS", "3"}, {"SIMKIT_FOR_EACH_BLOCK_Y", "16"},
      {"SIMKIT_COPY_LANES", "5"}, {"SIMKIT_COPIES_BACK", "rows"}};
  for (const auto& [name, text] : bad) {
    if (!*text) continue;  // "" unsets a knob
    try {
      tuning::set(name, text);
      ADD_FAILURE() << name << "=" << text << " was accepted";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(name), std::string::npos) << m;
      EXPECT_NE(m.find("expected"), std::string::npos) << m;
    }
    EXPECT_TRUE(tuning::setting(name).empty()) << "a refused value must leave the knob as it was";
  }
  EXPECT_THROW(tuning::set("SIMKIT_NO_SUCH_KNOB", "1"), Error);
}

TEST(Tuning, MultigridKnobsFeedMgOptions) {
  solvers::MgOptions plain;
  plain.gather_cells = 77;
  const solvers::MgOptions same = solvers::tuned(plain);
  EXPECT_EQ(same.block_cells, plain.block_cells);
  EXPECT_EQ(same.gather_cells, 77);
  const tuning::Scoped smooth("SIMKIT_MG_SMOOTH", "1,3"), block("SIMKIT_MG_BLOCK_CELLS", "0"), tiles("SIMKIT_MG_TILES", "0"),
      gather("SIMKIT_MG_GATHER_CELLS", "4096");
  const solvers::MgOptions t = solvers::tuned(plain);
  EXPECT_EQ(t.pre_smooth, 1);
  EXPECT_EQ(t.post_smooth, 3);
  EXPECT_EQ(t.block_cells, 0);
  EXPECT_FALSE(t.tiles);
  EXPECT_EQ(t.gather_cells, 4096);
}
