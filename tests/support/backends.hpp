#pragma once
// Typed-test support: one test body instantiated for every backend built in. On a machine
// without a GPU the cuda instances skip, saying why.
#include <gtest/gtest.h>

#include <string>

#include "core/runtime/context.hpp"

namespace sim_test {

struct Cpu {
  static constexpr sim::BackendRequest request = sim::BackendRequest::cpu;
  static constexpr const char* name = "cpu";
};
struct Cuda {
  static constexpr sim::BackendRequest request = sim::BackendRequest::cuda;
  static constexpr const char* name = "cuda";
};

using Backends = ::testing::Types<Cpu, Cuda>;

struct BackendName {
  template <class B>
  static std::string GetName(int) {
    return B::name;
  }
};

/// The skip message for the cuda backend on this machine, or "" when a GPU is usable.
inline std::string gpu_skip_reason() {
  std::string why = sim::cuda_unavailable_reason();
  return why.empty() ? "" : "GPU test skipped: " + why;
}

/// Fixture giving each test a fresh context of backend B.
template <class B>
class OnBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    if (B::request == sim::BackendRequest::cuda) {
      std::string why = gpu_skip_reason();
      if (!why.empty()) GTEST_SKIP() << why;
    }
    ctx = sim::Context::create(B::request, sim::ContextOptions{0, 1234});
  }
  sim::Context ctx;
};

/// Skips the current test unless a GPU is usable.
#define SIM_REQUIRE_GPU()                                      \
  do {                                                         \
    std::string sim_why_ = ::sim_test::gpu_skip_reason();      \
    if (!sim_why_.empty()) GTEST_SKIP() << sim_why_;           \
  } while (0)

}  // namespace sim_test

#define SIM_TYPED_TEST_SUITE(Suite) TYPED_TEST_SUITE(Suite, ::sim_test::Backends, ::sim_test::BackendName)
