// cuBLAS and cuSOLVER open on first use (core/cuda/libraries.hpp): a process that never
// multiplies matrices does not load them (they cost a process ~0.1 s), and the first BLAS
// call opens cuBLAS and gives the right answer. A binary of its own: no other test may have
// opened them first.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "core/array/array.hpp"
#include "core/numerics/blas.hpp"
#include "core/runtime/context.hpp"
#include "core/array/expr.hpp"
#include "core/numerics/linalg.hpp"

namespace {

/// True when a shared object whose name contains `name` is mapped into this process.
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find(name) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(CudaLibraries, CublasAndCusolverOpenOnFirstUse) {
  if (sim::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the libraries are opened by GPU calls only";
  const sim::Context ctx = sim::Context::create(sim::BackendRequest::cuda);
  sim::Array<double, 1> x(ctx, sim::Extents<1>{{1000}}), y(ctx, sim::Extents<1>{{1000}});
  x.fill(2.0), y.fill(0.5);
  sim::Array<double, 1> z(ctx, sim::Extents<1>{{1000}});
  z = x * y + 1.0;                           // kernels of simkit's own: no library
  EXPECT_DOUBLE_EQ(sim::dot(x, z), 4000.0);  // the fused reduction, not cuBLAS
  EXPECT_FALSE(mapped("libcublas")) << "cuBLAS was loaded before any BLAS call";
  EXPECT_FALSE(mapped("libcusolver")) << "cuSOLVER was loaded before any solve";
  EXPECT_DOUBLE_EQ(sim::blas::dot(x, y), 1000.0);  // cublasDdot
  EXPECT_TRUE(mapped("libcublas"));
  EXPECT_FALSE(mapped("libcusolver"));
  sim::Array<double, 2> a(ctx, sim::Extents<2>{{2, 2}});
  sim::Array<double, 1> b(ctx, sim::Extents<1>{{2}});
  a.copy_from_host(std::vector<double>{4, 1, 2, 3});
  b.copy_from_host(std::vector<double>{1, 2});
  const std::vector<double> s = sim::solve(a, b).to_host();  // 4 s0 + s1 = 1, 2 s0 + 3 s1 = 2
  EXPECT_TRUE(mapped("libcusolver"));
  EXPECT_NEAR(s[0], 0.1, 1e-14);
  EXPECT_NEAR(s[1], 0.6, 1e-14);
}
