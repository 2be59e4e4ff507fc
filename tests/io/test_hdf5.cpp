// Snapshots and checkpoints: round trips, summaries, and every way a checkpoint can be bad.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <thread>

#include "io/hdf5_file.hpp"

namespace fs = std::filesystem;
using namespace sim::io;

namespace {

// A fresh directory per test, removed afterwards.
class Hdf5 : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() / ("simkit_h5_" + std::to_string(::getpid()) + "_" + t->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string at(const std::string& name) const { return (dir / name).string(); }
  fs::path dir;
};

GridInfo grid_of(std::vector<std::int64_t> cells) {
  GridInfo g;
  g.rank = int(cells.size());
  g.cells = cells;
  for (std::size_t d = 0; d < cells.size(); ++d) {
    g.origin.push_back(-1.0 + 0.5 * double(d));
    g.spacing.push_back(0.1 / double(d + 1));
  }
  return g;
}

RunInfo info_at(std::int64_t step) {
  RunInfo r;
  r.model = "heat";
  r.step = step;
  r.time = 0.1 * double(step);
  r.dt = 1e-3;
  r.config_toml = "[model]\nname = \"heat\"\nalpha = 0.25  # m^2/s\n";
  r.simkit_version = "0.1.0";
  r.git_commit = "d47f395";
  r.backend = "cpu";
  r.device = "16 OpenMP threads";
  r.precision = "double";
  return r;
}

std::int64_t count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto s : shape) n *= s;
  return n;
}

template <class T>
std::vector<T> ramp(std::int64_t n, double scale) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = T(std::sin(scale * double(i)) * 1e3 + double(i) * 1e-7);
  return v;
}

template <class T>
FieldView view_of(const std::string& name, const std::string& unit, const GridInfo& g, const std::vector<T>& v) {
  return FieldView{name, unit, sizeof(T) == 8, g.cells, v.data()};
}

template <class T>
void expect_bytes(const FieldData& d, const std::vector<T>& v) {
  ASSERT_EQ(d.bytes.size(), v.size() * sizeof(T));
  EXPECT_EQ(std::memcmp(d.bytes.data(), v.data(), d.bytes.size()), 0) << d.name << ": bytes differ";
}

std::vector<char> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
}

// Flips one byte inside the first place the file holds `pattern`; false if it is not there.
bool corrupt_at(const std::string& path, const void* pattern, std::size_t n, std::size_t into) {
  std::vector<char> bytes = slurp(path);
  const char* p = static_cast<const char*>(pattern);
  auto it = std::search(bytes.begin(), bytes.end(), p, p + n);
  if (it == bytes.end()) return false;
  *(it + std::ptrdiff_t(into)) ^= 0x5a;
  spit(path, bytes);
  return true;
}

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const FileError& e) {
    return e.what();
  }
  return "(no FileError)";
}

}  // namespace

TEST_F(Hdf5, SnapshotRoundTripsEveryRankTypeAndCompression) {
  for (auto cells : {std::vector<std::int64_t>{37}, {9, 13}, {5, 7, 11}, {3, 300, 500}}) {
    for (int gzip : {0, 6}) {
      SCOPED_TRACE("rank " + std::to_string(cells.size()) + " gzip " + std::to_string(gzip));
      const GridInfo g = grid_of(cells);
      const auto u = ramp<double>(count(cells), 0.01);
      const auto rho = ramp<float>(count(cells), 0.02);
      const std::string path = at("snap_" + std::to_string(cells.size()) + "_" + std::to_string(gzip) + ".h5");
      write_snapshot(path, info_at(42), g, {view_of("u", "K", g, u), view_of("rho", "kg/m^3", g, rho)}, gzip);
      EXPECT_FALSE(fs::exists(path + ".tmp"));

      const FieldData du = read_field(path, "u"), drho = read_field(path, "rho");
      EXPECT_TRUE(du.is_double);
      EXPECT_FALSE(drho.is_double);
      EXPECT_EQ(du.shape, cells);
      EXPECT_EQ(drho.unit, "kg/m^3");
      expect_bytes(du, u);
      expect_bytes(drho, rho);
      EXPECT_EQ(drho.as_double()[5], double(rho[5]));

      const FileSummary s = read_summary(path);
      EXPECT_EQ(s.kind, "snapshot");
      EXPECT_EQ(s.info.model, "heat");
      EXPECT_EQ(s.info.step, 42);
      EXPECT_EQ(s.info.time, info_at(42).time);
      EXPECT_EQ(s.info.config_toml, info_at(42).config_toml);
      EXPECT_EQ(s.info.device, "16 OpenMP threads");
      EXPECT_EQ(s.grid.rank, g.rank);
      EXPECT_EQ(s.grid.cells, g.cells);
      EXPECT_EQ(s.grid.origin, g.origin);
      EXPECT_EQ(s.grid.spacing, g.spacing);
      ASSERT_EQ(s.fields.size(), 2u);
      EXPECT_EQ(s.fields[0].name, "u");  // creation order, not alphabetical
      EXPECT_EQ(s.fields[1].name, "rho");
      EXPECT_TRUE(s.fields[0].bytes.empty());
      EXPECT_TRUE(s.counters.empty());
    }
  }
}

TEST_F(Hdf5, CompressionShrinksSmoothFields) {
  const GridInfo g = grid_of({200, 200});
  std::vector<double> u(200 * 200, 1.5);
  write_snapshot(at("raw.h5"), info_at(1), g, {view_of("u", "", g, u)}, 0);
  write_snapshot(at("gz.h5"), info_at(1), g, {view_of("u", "", g, u)}, 4);
  EXPECT_LT(fs::file_size(at("gz.h5")) * 10, fs::file_size(at("raw.h5")));
  expect_bytes(read_field(at("gz.h5"), "u"), u);
}

TEST_F(Hdf5, DescribeShowsRunGridFieldsAndConfig) {
  const GridInfo g = grid_of({4, 6});
  const auto u = ramp<float>(24, 0.3);
  write_snapshot(at("s.h5"), info_at(7), g, {view_of("temperature", "K", g, u)}, 1);
  const std::string text = describe(at("s.h5"));
  for (const char* want : {"snapshot", "heat", "step       7", "time       0.7", "dt         0.001", "2D, 4 x 6 cells",
                           "origin (-1, -0.5)", "temperature  float32  [4 x 6]  K", "cpu (16 OpenMP threads)",
                           "0.1.0 (git d47f395)", "  | alpha = 0.25  # m^2/s"})
    EXPECT_NE(text.find(want), std::string::npos) << "missing '" << want << "' in:\n" << text;
}

TEST_F(Hdf5, DescribeDigestsTellBitIdenticalFieldsApart) {
  const GridInfo g = grid_of({4, 6});
  auto u = ramp<double>(24, 0.3);
  write_snapshot(at("a.h5"), info_at(7), g, {view_of("u", "K", g, u)}, 0);
  write_snapshot(at("b.h5"), info_at(8), g, {view_of("u", "K", g, u)}, 1);  // another step, compressed: same values
  u[13] = std::nextafter(u[13], 1e9);
  write_snapshot(at("c.h5"), info_at(7), g, {view_of("u", "K", g, u)}, 0);
  auto digest = [&](const char* file) {
    const std::string text = describe(at(file));
    const std::size_t k = text.find("digest ");
    EXPECT_NE(k, std::string::npos) << text;
    return k == std::string::npos ? std::string() : text.substr(k + 7, 16);
  };
  EXPECT_EQ(digest("a.h5"), digest("b.h5"));
  EXPECT_NE(digest("a.h5"), digest("c.h5"));
}

TEST_F(Hdf5, CheckpointRoundTripIsBitExact) {
  const GridInfo g = grid_of({16, 24});
  auto u = ramp<double>(16 * 24, 0.1);
  u[0] = -0.0;
  u[1] = std::numeric_limits<double>::denorm_min();
  u[2] = std::nextafter(1.0, 2.0);
  auto v = ramp<float>(16 * 24, 0.2);
  const std::map<std::string, std::uint64_t> counters{
      {"step", 1200}, {"rng.offset", std::numeric_limits<std::uint64_t>::max()}, {"zero", 0}};
  const std::map<std::string, double> reals{{"time", 0.1 + 0.2}, {"dt", 1e-300}, {"next_output", -1.0 / 3.0}};
  const std::map<std::string, std::string> strings{
      {"empty", ""}, {"note", "line one\nline \"two\" ünïcode"}, {"schedule", "every 100 steps"}};
  const std::string path = checkpoint_path(dir.string(), "ck", 1200);
  write_checkpoint(path, info_at(1200), g, {view_of("u", "m/s", g, u), view_of("v", "", g, v)}, counters, reals, strings);
  EXPECT_FALSE(fs::exists(path + ".tmp"));

  const Checkpoint c = read_checkpoint(path);
  EXPECT_EQ(c.info.step, 1200);
  EXPECT_EQ(c.info.git_commit, "d47f395");
  EXPECT_EQ(c.grid.cells, g.cells);
  EXPECT_EQ(c.counters, counters);
  EXPECT_EQ(c.strings, strings);
  ASSERT_EQ(c.reals.size(), reals.size());
  for (auto& [k, x] : reals) EXPECT_EQ(std::memcmp(&c.reals.at(k), &x, sizeof x), 0) << k;
  ASSERT_EQ(c.fields.size(), 2u);
  EXPECT_EQ(c.fields[0].unit, "m/s");
  expect_bytes(c.fields[0], u);
  expect_bytes(c.fields[1], v);

  const FileSummary s = read_summary(path);
  EXPECT_EQ(s.kind, "checkpoint");
  EXPECT_EQ(s.counters, counters);
  EXPECT_EQ(s.strings, strings);
  const std::string text = describe(path);
  for (const char* want : {"checkpoint (complete)", "rng.offset = 18446744073709551615", "step = 1200",
                           "time = 0.30000000000000004", "note = \"line one"})
    EXPECT_NE(text.find(want), std::string::npos) << "missing '" << want << "' in:\n" << text;
}

TEST_F(Hdf5, ChecksumCatchesAFlippedByteInFieldData) {
  const GridInfo g = grid_of({64, 64});
  const auto u = ramp<double>(64 * 64, 0.05);
  const std::string path = at("ck_000000010.h5");
  write_checkpoint(path, info_at(10), g, {view_of("u", "", g, u)}, {{"step", 10}}, {}, {});
  ASSERT_NO_THROW(read_checkpoint(path));
  ASSERT_TRUE(corrupt_at(path, u.data(), 256, 8 * 1000 + 3)) << "field data not found in the file";
  const std::string msg = error_of([&] { read_checkpoint(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("checksum mismatch"), std::string::npos) << msg;  // the whole-file checksum, first
  EXPECT_THROW(read_field(path, "u"), FileError);
  // without its whole-file checksum, the file is refused by every reader before HDF5 opens it
  fs::resize_file(path, fs::file_size(path) - 16);
  EXPECT_NE(error_of([&] { read_checkpoint(path); }).find("no whole-file checksum"), std::string::npos);
  EXPECT_NE(error_of([&] { read_field(path, "u"); }).find("no whole-file checksum"), std::string::npos);
  // with a checksum of the damaged bytes (a writer that damaged them), the chunk's Fletcher32 catches the flip
  sim::io::test_hooks::append_checksum(path);
  const std::string field_msg = error_of([&] { read_field(path, "u"); });
  EXPECT_NE(field_msg.find("Fletcher32"), std::string::npos) << field_msg;
  EXPECT_NE(field_msg.find("/fields/u"), std::string::npos) << field_msg;
}

TEST_F(Hdf5, ChecksumCatchesAFlippedByteInACounter) {
  const GridInfo g = grid_of({8});
  const auto u = ramp<float>(8, 0.5);
  const std::uint64_t magic = 0x0123456789abcdefULL;
  const std::string path = at("ck_000000001.h5");
  write_checkpoint(path, info_at(1), g, {view_of("u", "", g, u)}, {{"rng", magic}}, {}, {});
  ASSERT_TRUE(corrupt_at(path, &magic, sizeof magic, 2));
  EXPECT_NE(error_of([&] { read_checkpoint(path); }).find("checksum mismatch"), std::string::npos);
  EXPECT_NE(error_of([&] { read_summary(path); }).find("checksum mismatch"), std::string::npos);
}

TEST_F(Hdf5, TruncatedEmptyMissingAndForeignFilesAreFileErrors) {
  const GridInfo g = grid_of({32, 32});
  const auto u = ramp<double>(32 * 32, 0.1);
  const std::string path = at("ck_000000005.h5");
  write_checkpoint(path, info_at(5), g, {view_of("u", "", g, u)}, {}, {}, {});
  fs::resize_file(path, fs::file_size(path) / 2);
  const std::string msg = error_of([&] { read_checkpoint(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("cut short"), std::string::npos) << msg;
  EXPECT_THROW(read_summary(path), FileError);

  fs::resize_file(path, 0);
  EXPECT_THROW(read_checkpoint(path), FileError);
  EXPECT_NE(error_of([&] { read_checkpoint(at("nope.h5")); }).find("no such file"), std::string::npos);
  spit(at("text.h5"), {'h', 'e', 'l', 'l', 'o'});
  EXPECT_NE(error_of([&] { describe(at("text.h5")); }).find("not an HDF5 file"), std::string::npos);
}

TEST_F(Hdf5, SnapshotIsNotACheckpoint) {
  const GridInfo g = grid_of({4});
  const auto u = ramp<double>(4, 1.0);
  write_snapshot(at("s.h5"), info_at(3), g, {view_of("u", "", g, u)}, 0);
  EXPECT_NE(error_of([&] { read_checkpoint(at("s.h5")); }).find("not a checkpoint"), std::string::npos);
  EXPECT_NE(error_of([&] { read_field(at("s.h5"), "w"); }).find("no field 'w'; it has: u"), std::string::npos);
}

TEST_F(Hdf5, CheckpointBoxReadIsThatPartOfEveryField) {
  // what one rank of several reads on resume: its box of each field, checksums verified
  const std::vector<std::int64_t> cells{6, 7, 5};
  const GridInfo g = grid_of(cells);
  const auto u = ramp<double>(count(cells), 0.03);
  const auto v = ramp<float>(count(cells), 0.05);
  const std::string path = at("box.h5");
  write_checkpoint(path, info_at(3), g, {view_of("u", "", g, u), view_of("v", "", g, v)}, {{"step", 3}}, {}, {});
  const std::vector<std::int64_t> offset{2, 3, 1}, box{3, 4, 2};
  const Checkpoint c = read_checkpoint(path, offset, box);
  ASSERT_EQ(c.fields.size(), 2u);
  std::vector<double> want_u;
  std::vector<float> want_v;
  for (std::int64_t i = 0; i < box[0]; ++i)
    for (std::int64_t j = 0; j < box[1]; ++j)
      for (std::int64_t k = 0; k < box[2]; ++k) {
        const std::size_t at = std::size_t(((offset[0] + i) * cells[1] + offset[1] + j) * cells[2] + offset[2] + k);
        want_u.push_back(u[at]), want_v.push_back(v[at]);
      }
  EXPECT_EQ(c.fields[0].shape, cells);  // the shape stays the global one
  expect_bytes(c.fields[0], want_u);
  expect_bytes(c.fields[1], want_v);
  const std::string outside = error_of([&] { read_checkpoint(path, {4, 0, 0}, {3, 1, 1}); });
  EXPECT_NE(outside.find("does not hold the box"), std::string::npos) << outside;
}

TEST_F(Hdf5, CheckpointWithoutCompleteMarkerIsRefused) {
  const GridInfo g = grid_of({4, 4});
  const auto u = ramp<double>(16, 1.0);
  const std::string path = at("ck_000000009.h5");
  test_hooks::write_checkpoint_without_marker(path, info_at(9), g, {view_of("u", "", g, u)}, {{"step", 9}}, {}, {});
  const std::string msg = error_of([&] { read_checkpoint(path); });
  EXPECT_NE(msg.find("complete"), std::string::npos) << msg;
  EXPECT_NE(describe(path).find("INCOMPLETE"), std::string::npos);
}

TEST_F(Hdf5, StaleTemporaryIsNotACheckpointAndIsRemoved) {
  const GridInfo g = grid_of({4});
  const auto u = ramp<double>(4, 1.0);
  write_checkpoint(checkpoint_path(dir.string(), "ck", 100), info_at(100), g, {view_of("u", "", g, u)}, {}, {}, {});
  const std::string stale = checkpoint_path(dir.string(), "ck", 200) + ".tmp";
  spit(stale, {'h', 'a', 'l', 'f'});
  spit(at("series.xdmf.tmp"), {'<'});
  spit(at("notes.tmp"), {'x'});
  EXPECT_EQ(list_checkpoints(dir.string(), "ck"), std::vector<std::string>{checkpoint_path(dir.string(), "ck", 100)});
  remove_stale_temporaries(dir.string());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(fs::exists(at("series.xdmf.tmp")));
  EXPECT_TRUE(fs::exists(at("notes.tmp")));  // not ours
  EXPECT_EQ(list_checkpoints(dir.string(), "ck").size(), 1u);
}

TEST_F(Hdf5, ListNewestFirstAndPrune) {
  EXPECT_EQ(checkpoint_path("out", "ck", 1200), "out/ck_000001200.h5");
  EXPECT_EQ(checkpoint_path("out", "ck", 1234567890), "out/ck_1234567890.h5");
  EXPECT_THROW(checkpoint_path("out", "ck", -1), sim::Error);
  const GridInfo g = grid_of({4});
  const auto u = ramp<double>(4, 1.0);
  for (std::int64_t step : {30, 5, 1234567890, 1200})
    write_checkpoint(checkpoint_path(dir.string(), "ck", step), info_at(step), g, {view_of("u", "", g, u)}, {}, {}, {});
  spit(at("ckx_000000999.h5"), {'x'});  // another prefix
  spit(at("ck_12a.h5"), {'x'});         // not a step
  spit(at("ck_000000007.h5.bak"), {'x'});
  const auto path = [&](std::int64_t s) { return checkpoint_path(dir.string(), "ck", s); };
  EXPECT_EQ(list_checkpoints(dir.string(), "ck"), (std::vector<std::string>{path(1234567890), path(1200), path(30), path(5)}));
  prune_checkpoints(dir.string(), "ck", 2);
  EXPECT_EQ(list_checkpoints(dir.string(), "ck"), (std::vector<std::string>{path(1234567890), path(1200)}));
  EXPECT_TRUE(fs::exists(at("ckx_000000999.h5")));
  prune_checkpoints(dir.string(), "ck", 0);
  EXPECT_TRUE(list_checkpoints(dir.string(), "ck").empty());
  EXPECT_TRUE(list_checkpoints(at("missing"), "ck").empty());
}

TEST_F(Hdf5, BadWritesThrowAndLeaveNothing) {
  const GridInfo g = grid_of({4, 5});
  const auto u = ramp<double>(20, 1.0);
  FieldView wrong = view_of("u", "", g, u);
  wrong.shape = {5, 4};
  EXPECT_THROW(write_snapshot(at("s.h5"), info_at(0), g, {wrong}, 0), sim::ShapeError);
  EXPECT_THROW(write_snapshot(at("s.h5"), info_at(0), g, {view_of("a/b", "", g, u)}, 0), sim::Error);
  EXPECT_THROW(write_snapshot(at("s.h5"), info_at(0), g, {view_of("u", "", g, u)}, 10), sim::Error);
  const std::string msg = error_of([&] { write_snapshot(at("no/such/dir/s.h5"), info_at(0), g, {view_of("u", "", g, u)}, 0); });
  EXPECT_NE(msg.find("cannot create"), std::string::npos) << msg;
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST_F(Hdf5, ConcurrentWritersAndReadersAreSerialised) {
  const GridInfo g = grid_of({50, 60});
  const auto u = ramp<double>(3000, 0.01);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        const std::string p = at("s" + std::to_string(t) + "_" + std::to_string(i) + ".h5");
        write_snapshot(p, info_at(i), g, {view_of("u", "", g, u)}, t % 2 ? 3 : 0);
        expect_bytes(read_field(p, "u"), u);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 20);
}

// ---- faults (issue 22, item 4): every byte a checkpoint holds is covered by a check

namespace {

// Everything read_checkpoint returns, as comparable text plus bytes.
std::string content_of(const Checkpoint& c) {
  std::ostringstream o;
  o.precision(17);
  o << c.info.model << '|' << c.info.step << '|' << c.info.time << '|' << c.info.dt << '|' << c.info.config_toml << '|'
    << c.info.simkit_version << '|' << c.info.git_commit << '|' << c.info.backend << '|' << c.info.device << '|'
    << c.info.precision << '|' << c.grid.rank;
  for (std::size_t d = 0; d < c.grid.cells.size(); ++d) o << ',' << c.grid.cells[d] << ',' << c.grid.origin[d] << ',' << c.grid.spacing[d];
  for (const FieldData& f : c.fields) {
    o << '|' << f.name << ',' << f.unit << ',' << f.is_double << ',' << f.shape.size() << ':';
    o.write(reinterpret_cast<const char*>(f.bytes.data()), std::streamsize(f.bytes.size()));
  }
  for (auto& [k, v] : c.counters) o << '|' << k << '=' << v;
  for (auto& [k, v] : c.reals) o << '|' << k << '=' << v;
  for (auto& [k, v] : c.strings) o << '|' << k << '=' << v;
  return o.str();
}

}  // namespace

// One changed byte anywhere (the global heap of the text attributes included, which has no
// HDF5 checksum and crashed --resume and info) is refused, or changes nothing that is read.
TEST_F(Hdf5, EveryChangedByteOfACheckpointIsCaught) {
  const GridInfo g = grid_of({12, 10});
  const auto u = ramp<double>(120, 0.3);
  const auto v = ramp<float>(120, 0.7);
  const std::string path = at("ck_000000007.h5"), bad = at("bad_000000007.h5");
  write_checkpoint(path, info_at(7), g, {view_of("u", "K", g, u), view_of("v", "m/s", g, v)},
                   {{"step", 7}, {"rng_seed", 42}}, {{"time", 0.7}}, {{"scheme", "euler"}});
  const std::string good = content_of(read_checkpoint(path));
  const std::vector<char> bytes = slurp(path);
  int refused = 0, same = 0;
  spit(bad, bytes);
  auto poke = [&](std::size_t i, char c) {  // one byte changed in place
    std::fstream f(bad, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(i));
    f.put(c);
  };
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    poke(i, char(bytes[i] ^ (i % 3 == 0 ? 0x01 : i % 3 == 1 ? 0x80 : 0xff)));
    try {
      const std::string got = content_of(read_checkpoint(bad));
      ASSERT_EQ(got, good) << "byte " << i << " of " << bytes.size() << " changed what the checkpoint holds, unnoticed";
      ++same;
    } catch (const FileError&) {
      ++refused;
    }
    // info reads any file; a damaged one is an error (a damaged trailer's magic reads as a
    // file without a checksum, whose every other byte is intact)
    if (i % 4 == 0 && i + 16 < bytes.size()) EXPECT_THROW(describe(bad), FileError) << "byte " << i;
    poke(i, bytes[i]);
  }
  EXPECT_EQ(same, 0) << "every byte is covered by the whole-file checksum";
  // cut short anywhere: refused
  for (std::size_t n = 0; n < bytes.size(); n += 1 + n / 16) {
    spit(bad, std::vector<char>(bytes.begin(), bytes.begin() + std::ptrdiff_t(n)));
    EXPECT_THROW(read_checkpoint(bad), FileError) << "cut at " << n;
    EXPECT_THROW(describe(bad), FileError) << "cut at " << n;
  }
  std::printf("[faults] %zu byte flips (and truncations) tried on a %zu-byte checkpoint: %d refused\n", bytes.size(),
              bytes.size(), refused);
}

// A field stored as an external link (or a soft link) reads another file, or another object,
// that no checksum of this one covers: refused, even when the file's own checksum is right.
TEST_F(Hdf5, ExternalAndSoftLinksAreRefused) {
  const GridInfo g = grid_of({6, 5});
  const auto u = ramp<double>(30, 0.1), w = ramp<double>(30, 0.9);
  const std::string path = at("ck_000000002.h5"), other = at("other_000000002.h5");
  write_checkpoint(other, info_at(2), g, {view_of("u", "", g, w)}, {{"step", 2}}, {}, {});
  for (const H5L_type_t kind : {H5L_TYPE_EXTERNAL, H5L_TYPE_SOFT}) {
    write_checkpoint(path, info_at(2), g, {view_of("u", "", g, u), view_of("v", "", g, u)}, {{"step", 2}}, {}, {});
    fs::resize_file(path, fs::file_size(path) - 16);  // the trailer is rewritten below
    {
      const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
      ASSERT_GE(f, 0);
      ASSERT_GE(H5Ldelete(f, "/fields/u", H5P_DEFAULT), 0);
      if (kind == H5L_TYPE_EXTERNAL)
        ASSERT_GE(H5Lcreate_external(other.c_str(), "/fields/u", f, "/fields/u", H5P_DEFAULT, H5P_DEFAULT), 0);
      else
        ASSERT_GE(H5Lcreate_soft("/fields/v", f, "/fields/u", H5P_DEFAULT, H5P_DEFAULT), 0);
      H5Fclose(f);
    }
    sim::io::test_hooks::append_checksum(path);
    const std::string msg = error_of([&] { read_checkpoint(path); });
    EXPECT_NE(msg.find("/fields/u"), std::string::npos) << msg;
    EXPECT_NE(msg.find(kind == H5L_TYPE_EXTERNAL ? "link to another file" : "soft link"), std::string::npos) << msg;
    EXPECT_THROW(read_field(path, "u"), FileError);
  }
}

// A file without its checksum trailer is not handed to HDF5 by any reader of run input: HDF5
// copies a global heap object by its stored size, so one changed byte of that size (here the
// `kind` string's) was a SIGSEGV in H5HG_read. `info` reads such a file in a child process:
// the intact one is described ("checksum none"), the damaged one is an error, not a crash.
TEST_F(Hdf5, FileWithoutTrailerIsRefusedAndItsDamageCannotCrash) {
  const GridInfo g = grid_of({4, 4});
  const auto u = ramp<double>(16, 0.1);
  const std::string path = at("ck_000000003.h5");
  write_checkpoint(path, info_at(3), g, {view_of("u", "", g, u)}, {{"step", 3}, {"rng_seed", 1}, {"rng_offset", 0}},
                   {{"time", 0.3}}, {});
  fs::resize_file(path, fs::file_size(path) - 16);
  for (const std::string& msg : {error_of([&] { read_checkpoint(path); }), error_of([&] { read_field(path, "u"); }),
                                 error_of([&] { read_summary(path); })})
    EXPECT_NE(msg.find("no whole-file checksum"), std::string::npos) << msg;
  EXPECT_NE(describe(path).find("checksum   none"), std::string::npos);
  std::vector<char> bytes = slurp(path);
  const std::string raw(bytes.begin(), bytes.end());
  const std::size_t heap = raw.find("GCOL");
  ASSERT_NE(heap, std::string::npos);
  ASSERT_EQ(raw.compare(heap + 32, 10, "checkpoint"), 0);  // object 1: the `kind` string, its size at +24
  bytes[heap + 24 + 1] = 0x40;                            // 10 bytes -> 16394
  spit(path, bytes);
  EXPECT_THROW(read_checkpoint(path), FileError);
  EXPECT_THROW(read_field(path, "u"), FileError);
  const std::string msg = error_of([&] { describe(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
}

// A dataset claiming a huge shape (sparse: nothing stored) is a FileError, not std::bad_alloc.
TEST_F(Hdf5, HugeSparseFieldIsAFileError) {
  const GridInfo g = grid_of({4, 4});
  const auto u = ramp<double>(16, 0.1);
  const std::string path = at("snap.h5");
  write_snapshot(path, info_at(1), g, {view_of("u", "", g, u)}, 0);
  fs::resize_file(path, fs::file_size(path) - 16);
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    ASSERT_GE(H5Ldelete(f, "/fields/u", H5P_DEFAULT), 0);
    const hsize_t dims[2] = {hsize_t(1) << 31, hsize_t(1) << 31}, chunk[2] = {1024, 1024};
    const hid_t space = H5Screate_simple(2, dims, nullptr), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    const hid_t ds = H5Dcreate2(f, "/fields/u", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_GE(ds, 0);
    H5Dclose(ds), H5Pclose(dcpl), H5Sclose(space), H5Fclose(f);
  }
  sim::io::test_hooks::append_checksum(path);
  EXPECT_NO_THROW(read_summary(path));
  EXPECT_THROW(read_field(path, "u"), FileError);
  EXPECT_THROW(describe(path), FileError);
}

// A field of another element type (here int32) is a FileError naming the dataset: what
// model.init_file reports, with its key, as bad input.
TEST_F(Hdf5, FieldOfAnotherTypeIsAFileError) {
  const GridInfo g = grid_of({3, 4});
  const auto u = ramp<double>(12, 0.1);
  const std::string path = at("snap.h5");
  write_snapshot(path, info_at(1), g, {view_of("u", "", g, u)}, 0);
  fs::resize_file(path, fs::file_size(path) - 16);
  {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const hsize_t dims[2] = {3, 4};
    const std::vector<int> values(12, 7);
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t ds = H5Dcreate2(f, "/fields/n", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(ds, 0);
    H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(ds), H5Sclose(space), H5Fclose(f);
  }
  sim::io::test_hooks::append_checksum(path);
  const std::string msg = error_of([&] { read_field(path, "n"); });
  EXPECT_NE(msg.find("/fields/n"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not float32/float64"), std::string::npos) << msg;
}
