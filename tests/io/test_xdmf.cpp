// The XDMF time series: its XML, and an independent check with h5py (tests/io/check_h5py.py).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/xdmf.hpp"

namespace fs = std::filesystem;
using namespace sim::io;

namespace {

class Xdmf : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() / ("simkit_xdmf_" + std::to_string(::getpid()) + "_" + t->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string at(const std::string& name) const { return (dir / name).string(); }

  // Writes snapshots at steps 0, 10, 20 with a double field "u" and a float field "c"; returns the entries.
  std::vector<XdmfEntry> write_series(const GridInfo& g) {
    std::int64_t n = 1;
    for (auto c : g.cells) n *= c;
    std::vector<double> u(std::size_t(n), 0.0);
    std::vector<float> c(std::size_t(n), 0.0f);
    std::vector<XdmfEntry> entries;
    for (std::int64_t step : {0, 10, 20}) {
      for (std::size_t i = 0; i < u.size(); ++i) u[i] = std::cos(0.01 * double(i * std::size_t(step + 1)));
      for (std::size_t i = 0; i < c.size(); ++i) c[i] = float(i % 7) * 0.5f;
      const std::vector<FieldView> fields{{"u", "K", true, g.cells, u.data()}, {"c", "mol/m^3", false, g.cells, c.data()}};
      RunInfo info;
      info.model = "heat";
      info.step = step;
      info.time = 0.25 * double(step);
      info.dt = 0.025;
      info.config_toml = "[model]\nname = \"heat\"\n";
      info.backend = "cpu";
      info.precision = "double";
      const std::string name = "snap_" + std::to_string(step) + ".h5";
      write_snapshot(at(name), info, g, fields, 3);
      entries.push_back({name, info.time, step, fields});
    }
    return entries;
  }

  fs::path dir;
};

GridInfo grid_of(std::vector<std::int64_t> cells) {
  GridInfo g;
  g.rank = int(cells.size());
  g.cells = cells;
  g.origin.assign(cells.size(), 0.5);
  g.spacing.assign(cells.size(), 0.25);
  return g;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool have_h5py() { return std::system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") == 0; }

// Runs check_h5py.py on a snapshot and a series; its exit status (0 = all checks passed).
int check_with_h5py(const std::string& snapshot, const std::string& xdmf) {
  const fs::path script = fs::path(SIMKIT_TEST_SOURCE_DIR) / "check_h5py.py";
  const std::string cmd = "/usr/bin/python3 '" + script.string() + "' '" + snapshot + "' '" + xdmf + "'";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_F(Xdmf, ThreeDimensionalSeriesXml) {
  const GridInfo g = grid_of({4, 6, 8});
  write_xdmf(at("series.xdmf"), g, write_series(g));
  EXPECT_FALSE(fs::exists(at("series.xdmf.tmp")));
  const std::string x = read_text(at("series.xdmf"));
  for (const char* want :
       {"<Xdmf Version=\"3.0\"", "CollectionType=\"Temporal\"", "<Time Value=\"2.5\"/>",
        "TopologyType=\"3DCoRectMesh\" Dimensions=\"5 7 9\"", "GeometryType=\"ORIGIN_DXDYDZ\"",
        "Format=\"XML\">0.5 0.5 0.5</DataItem>", "<Attribute Name=\"u\" AttributeType=\"Scalar\" Center=\"Cell\">",
        "Dimensions=\"4 6 8\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">snap_20.h5:/fields/u</DataItem>",
        "Precision=\"4\" Format=\"HDF\">snap_0.h5:/fields/c</DataItem>"})
    EXPECT_NE(x.find(want), std::string::npos) << "missing '" << want << "' in:\n" << x;
}

TEST_F(Xdmf, OneDimensionalGridIsAStripOneCellThick) {
  const GridInfo g = grid_of({10});
  write_xdmf(at("series.xdmf"), g, write_series(g));
  const std::string x = read_text(at("series.xdmf"));
  EXPECT_NE(x.find("TopologyType=\"2DCoRectMesh\" Dimensions=\"2 11\""), std::string::npos) << x;
  EXPECT_NE(x.find(">0 0.5</DataItem>"), std::string::npos) << x;
  EXPECT_NE(x.find("Dimensions=\"10\" NumberType"), std::string::npos) << x;
}

TEST_F(Xdmf, WrongShapeOrRankThrows) {
  GridInfo g = grid_of({4, 4});
  XdmfEntry e{"a.h5", 0.0, 0, {{"u", "", true, {4, 5}, nullptr}}};
  EXPECT_THROW(write_xdmf(at("s.xdmf"), g, {e}), sim::ShapeError);
  EXPECT_THROW(write_xdmf(at("s.xdmf"), grid_of({2, 2, 2, 2}), {}), sim::ShapeError);
  EXPECT_FALSE(fs::exists(at("s.xdmf")));
  EXPECT_FALSE(fs::exists(at("s.xdmf.tmp")));
}

TEST_F(Xdmf, SnapshotsAndSeriesPassTheH5pyCheck) {
  if (!have_h5py()) GTEST_SKIP() << "/usr/bin/python3 cannot import h5py (install python3-h5py)";
  for (auto cells : {std::vector<std::int64_t>{10}, {6, 9}, {4, 6, 8}}) {
    SCOPED_TRACE("rank " + std::to_string(cells.size()));
    const GridInfo g = grid_of(cells);
    write_xdmf(at("series.xdmf"), g, write_series(g));
    EXPECT_EQ(check_with_h5py(at("snap_10.h5"), at("series.xdmf")), 0);
  }
}

TEST_F(Xdmf, H5pyCheckCatchesAWrongReference) {
  if (!have_h5py()) GTEST_SKIP() << "/usr/bin/python3 cannot import h5py (install python3-h5py)";
  const GridInfo g = grid_of({6, 9});
  std::vector<XdmfEntry> entries = write_series(g);
  entries[1].fields[0].name = "missing";
  write_xdmf(at("series.xdmf"), g, entries);
  EXPECT_EQ(check_with_h5py(at("snap_10.h5"), at("series.xdmf")), 1);
  entries = write_series(g);
  entries[2].fields[1].is_double = true;  // declared float64, stored float32
  write_xdmf(at("series.xdmf"), g, entries);
  EXPECT_EQ(check_with_h5py(at("snap_10.h5"), at("series.xdmf")), 1);
}

// A 3D entry with the cell-centred u, v, w also lists them as one Vector attribute "velocity"
// (ParaView's X, Y, Z components: w, v, u); without all three, or in 2D, none.
TEST_F(Xdmf, ThreeDimensionalVelocityIsAVector) {
  const GridInfo g = grid_of({4, 3, 2});
  const std::vector<FieldView> uvw{{"u", "m/s", true, g.cells}, {"v", "m/s", true, g.cells}, {"w", "m/s", false, g.cells},
                                   {"p", "m^2/s^2", true, g.cells}};
  write_xdmf(at("s.xdmf"), g, {{"snap_0.h5", 0.0, 0, uvw}});
  const std::string x = read_text(at("s.xdmf"));
  const std::size_t v = x.find("<Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Cell\">");
  ASSERT_NE(v, std::string::npos) << x;
  EXPECT_NE(x.find("Function=\"JOIN($0, $1, $2)\" Dimensions=\"4 3 2 3\"", v), std::string::npos) << x;
  const std::size_t w = x.find("snap_0.h5:/fields/w", v), vv = x.find("snap_0.h5:/fields/v", v), u = x.find("snap_0.h5:/fields/u", v);
  ASSERT_NE(w, std::string::npos);
  EXPECT_LT(w, vv);
  EXPECT_LT(vv, u);
  EXPECT_NE(x.find("Precision=\"4\" Format=\"HDF\">snap_0.h5:/fields/w", v), std::string::npos) << x;
  const std::vector<FieldView> uv{uvw[0], uvw[1], uvw[3]};
  write_xdmf(at("t.xdmf"), g, {{"snap_0.h5", 0.0, 0, uv}});
  EXPECT_EQ(read_text(at("t.xdmf")).find("velocity"), std::string::npos);
  const GridInfo g2 = grid_of({4, 3});
  const std::vector<FieldView> uv2{{"u", "m/s", true, g2.cells}, {"v", "m/s", true, g2.cells}, {"w", "m/s", true, g2.cells}};
  write_xdmf(at("u.xdmf"), g2, {{"snap_0.h5", 0.0, 0, uv2}});
  EXPECT_EQ(read_text(at("u.xdmf")).find("velocity"), std::string::npos);
}

TEST_F(Xdmf, VelocityVectorPassesTheH5pyCheck) {
  if (!have_h5py()) GTEST_SKIP() << "/usr/bin/python3 cannot import h5py (install python3-h5py)";
  const GridInfo g = grid_of({4, 3, 2});
  const std::vector<double> u(24, 1.0), v(24, 2.0);
  const std::vector<float> w(24, 3.0f);
  const std::vector<FieldView> uvw{{"u", "m/s", true, g.cells, u.data()}, {"v", "m/s", true, g.cells, v.data()},
                                   {"w", "m/s", false, g.cells, w.data()}};
  RunInfo info;
  info.model = "fluid", info.config_toml = "[model]\n", info.backend = "cpu", info.precision = "double";
  write_snapshot(at("snap_0.h5"), info, g, uvw, 0);
  write_xdmf(at("s.xdmf"), g, {{"snap_0.h5", 0.0, 0, uvw}});
  EXPECT_EQ(check_with_h5py(at("snap_0.h5"), at("s.xdmf")), 0);
}
