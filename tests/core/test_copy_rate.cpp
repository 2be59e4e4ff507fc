// The device copy rate: measured once (a plausible bytes/s figure), then read back from the
// cache file, on every backend.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/runtime/copy_rate.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

template <class B>
class CopyRateTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(CopyRateTest);

TYPED_TEST(CopyRateTest, MeasuredOnceThenCached) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("simkit-copy-rate-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  ::setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  const double rate = device_copy_rate(this->ctx);
  EXPECT_GT(rate, 1e8) << "bytes/s";      // any machine copies faster than 100 MB/s
  EXPECT_LT(rate, 1e14) << "bytes/s";     // and slower than 100 TB/s
  std::filesystem::path file;
  for (const auto& e : std::filesystem::directory_iterator(dir / "simkit")) file = e.path();
  ASSERT_FALSE(file.empty()) << "no cache file written";
  std::ofstream(file) << 12345.0 << "\n";  // a planted value proves the second call reads the cache
  EXPECT_EQ(device_copy_rate(this->ctx), 12345.0);
  std::filesystem::remove_all(dir);
  ::unsetenv("XDG_CACHE_HOME");
}
