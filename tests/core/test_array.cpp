// Arrays, views, for_each: shapes, transfers, sub-boxes, odd sizes, errors; on every backend.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "core/array/array.hpp"
#include "core/runtime/host_buffer.hpp"
#include "core/runtime/tuning.hpp"
#include "core/kernels/for_each.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

namespace sim_test {
// Kernels live in free functions: nvcc rejects device lambdas inside a TYPED_TEST body.
template <class T>
void write_linear_index_2d(const Context& ctx, Array<T, 2>& a, const Box<2>& box) {
  auto v = a.view();
  const index_t n1 = a.extent(1);
  for_each(ctx, "test::linear_2d", box, SIM_LAMBDA(index_t i, index_t j) { v(i, j) = T(i * n1 + j); });
}
template <class T>
void write_linear_index_3d(const Context& ctx, Array<T, 3>& a) {
  auto v = a.view();
  const index_t n1 = a.extent(1), n2 = a.extent(2);
  for_each(ctx, "test::linear_3d", a.box(), SIM_LAMBDA(index_t i, index_t j, index_t k) {
    v(i, j, k) = T((i * n1 + j) * n2 + k);
  });
}
/// Adds 1 + a code of (i, j, k) at every cell of box: a cell visited twice, or one outside
/// the box, shows in the array afterwards.
inline void mark_box_3d(const Context& ctx, Array<double, 3>& a, const Box<3>& box) {
  auto v = a.view();
  for_each(ctx, "test::mark_3d", box, SIM_LAMBDA(index_t i, index_t j, index_t k) {
    v(i, j, k) += double(1 + (i * 1000 + j) * 1000 + k);
  });
}
inline void write_index_1d(const Context& ctx, Array<std::int64_t, 1>& a, const Box<1>& box) {
  auto v = a.view();
  for_each(ctx, "test::index_1d", box, SIM_LAMBDA(index_t i) { v(i) = i; });
}
}  // namespace sim_test

template <class B>
class ArrayTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(ArrayTest);

TYPED_TEST(ArrayTest, ShapeStridesAndSize) {
  Array<float, 3> a(this->ctx, extents(3, 5, 7));
  EXPECT_EQ(a.size(), 105);
  EXPECT_EQ(a.extent(0), 3);
  EXPECT_EQ(a.extent(2), 7);
  EXPECT_EQ(a.strides()[0], 35);
  EXPECT_EQ(a.strides()[1], 7);
  EXPECT_EQ(a.strides()[2], 1);
  EXPECT_EQ(a.bytes(), 105 * sizeof(float));
  EXPECT_TRUE(a.view().contiguous());
  EXPECT_EQ(a.context(), this->ctx);
}

TYPED_TEST(ArrayTest, FillAndRoundTripEveryType) {
  auto check = [&](auto value) {
    using T = decltype(value);
    auto a = Array<T, 2>::full(this->ctx, extents(17, 33), value);
    for (T x : a.to_host()) ASSERT_EQ(x, value);
    std::vector<T> host(17 * 33);
    std::iota(host.begin(), host.end(), T(1));
    a.copy_from_host(host);
    EXPECT_EQ(a.to_host(), host);
  };
  check(1.5f);
  check(-2.25);
  check(std::int32_t(-7));
  check(std::int64_t(1) << 40);
  check(std::uint32_t(4000000000u));
  check(std::uint64_t(1) << 63);
}

TYPED_TEST(ArrayTest, SizeZeroAndOne) {
  Array<double, 1> empty(this->ctx, extents(0));
  EXPECT_TRUE(empty.empty());
  empty.fill(3.0);  // a no-op, not an error
  EXPECT_TRUE(empty.to_host().empty());
  Array<double, 2> empty_rows(this->ctx, extents(0, 5));
  EXPECT_EQ(empty_rows.size(), 0);
  auto one = Array<double, 3>::full(this->ctx, extents(1, 1, 1), 4.0);
  EXPECT_EQ(one.to_host(), std::vector<double>{4.0});
}

TYPED_TEST(ArrayTest, ForEachCoversOddShapesExactlyOnce) {
  // Sizes that are not multiples of any block size, in 1, 2 and 3 dimensions.
  Array<std::int64_t, 1> a1(this->ctx, extents(1001));
  a1.fill(-1);
  sim_test::write_index_1d(this->ctx, a1, a1.box());
  auto h1 = a1.to_host();
  for (index_t i = 0; i < 1001; ++i) ASSERT_EQ(h1[i], i);

  Array<double, 2> a2(this->ctx, extents(37, 129));
  a2.fill(-1);
  sim_test::write_linear_index_2d(this->ctx, a2, a2.box());
  auto h2 = a2.to_host();
  for (std::size_t t = 0; t < h2.size(); ++t) ASSERT_EQ(h2[t], double(t));

  Array<float, 3> a3(this->ctx, extents(5, 3, 67));
  a3.fill(-1);
  sim_test::write_linear_index_3d(this->ctx, a3);
  auto h3 = a3.to_host();
  for (std::size_t t = 0; t < h3.size(); ++t) ASSERT_EQ(h3[t], float(t));
}

TYPED_TEST(ArrayTest, ForEachOnSubBoxTouchesOnlyTheBox) {
  Array<double, 2> a(this->ctx, extents(10, 12));
  a.fill(-1);
  Box<2> interior = a.box().grow(-2);  // [2,8) x [2,10)
  sim_test::write_linear_index_2d(this->ctx, a, interior);
  auto h = a.to_host();
  for (index_t i = 0; i < 10; ++i)
    for (index_t j = 0; j < 12; ++j) {
      bool inside = i >= 2 && i < 8 && j >= 2 && j < 10;
      ASSERT_EQ(h[i * 12 + j], inside ? double(i * 12 + j) : -1.0) << i << "," << j;
    }
}

TYPED_TEST(ArrayTest, SubViewTransfersAndCopies) {
  std::vector<float> host(6 * 7);
  std::iota(host.begin(), host.end(), 0.f);
  auto a = Array<float, 2>::from_host(this->ctx, extents(6, 7), host);
  Box<2> b{{1, 2}, {4, 6}};
  auto sub = a.view().sub(b);
  EXPECT_FALSE(sub.contiguous());
  EXPECT_EQ(sub.shape, extents(3, 4));
  std::vector<float> packed(12);
  detail::copy_to_host<float, 2>(this->ctx, sub, packed.data());
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 4; ++j) ASSERT_EQ(packed[i * 4 + j], float((i + 1) * 7 + j + 2));
  // write into the sub-box from the host; the rest stays
  std::vector<float> ones(12, -5.f);
  detail::copy_from_host<float, 2>(this->ctx, ones.data(), sub);
  auto after = a.to_host();
  for (index_t i = 0; i < 6; ++i)
    for (index_t j = 0; j < 7; ++j) {
      bool inside = i >= 1 && i < 4 && j >= 2 && j < 6;
      ASSERT_EQ(after[i * 7 + j], inside ? -5.f : float(i * 7 + j));
    }
  auto c = a.clone();
  EXPECT_EQ(c.to_host(), after);
  EXPECT_NE(c.data(), a.data());
}

TYPED_TEST(ArrayTest, ErrorsForBadShapes) {
  EXPECT_THROW((Array<double, 2>(this->ctx, extents(-1, 3))), ShapeError);
  Array<double, 1> a(this->ctx, extents(4));
  EXPECT_THROW(a.copy_from_host(std::vector<double>(5)), ShapeError);
  Array<double, 1> b(this->ctx, extents(5));
  EXPECT_THROW(a.copy_from(b), ShapeError);
}

TYPED_TEST(ArrayTest, MemoryIsAccountedAndReturned) {
  auto before = this->ctx.memory_stats().in_use;
  {
    Array<double, 1> a(this->ctx, extents(1000));
    EXPECT_EQ(this->ctx.memory_stats().in_use, before + 8000);
  }
  EXPECT_EQ(this->ctx.memory_stats().in_use, before);
  EXPECT_GE(this->ctx.memory_stats().peak, before + 8000);
}

TEST(Backend, ParseAndErrors) {
  EXPECT_EQ(parse_backend("auto"), BackendRequest::automatic);
  EXPECT_EQ(parse_backend("cpu"), BackendRequest::cpu);
  EXPECT_EQ(parse_backend("cuda"), BackendRequest::cuda);
  EXPECT_THROW(parse_backend("gpu"), BackendError);
  auto cpu = Context::create("cpu");
  EXPECT_EQ(cpu.backend(), Backend::cpu);
  auto a = Context::create("auto");
  EXPECT_EQ(a.backend(), cuda_device_count() > 0 ? Backend::cuda : Backend::cpu);
  if (cuda_device_count() == 0) {
    try {
      Context::create("cuda");
      FAIL() << "asking for cuda without a GPU must throw";
    } catch (const BackendError& e) {
      EXPECT_NE(std::string(e.what()).find("backend 'cuda' was requested"), std::string::npos) << e.what();
    }
  }
}

TEST(Backend, ArraysOfDifferentContextsDoNotMix) {
  auto c1 = Context::create("cpu"), c2 = Context::create("cpu");
  Array<double, 1> a(c1, extents(3)), b(c2, extents(3));
  EXPECT_THROW(a.copy_from(b), BackendError);
}

TEST(LargeArray, OverTwoToThe31ElementsOnGpu) {
  SIM_REQUIRE_GPU();
  auto ctx = Context::create("cuda");
  const index_t n = (index_t(1) << 31) + 77;
  Array<std::int64_t, 1> a(ctx, extents(n));
  a.fill(0);
  sim_test::write_index_1d(ctx, a, Box<1>{{n - 100}, {n}});
  std::vector<std::int64_t> tail(100);
  detail::copy_to_host<std::int64_t, 1>(ctx, a.view().sub(Box<1>{{n - 100}, {n}}), tail.data());
  for (int t = 0; t < 100; ++t) ASSERT_EQ(tail[t], n - 100 + t);
}

TYPED_TEST(ArrayTest, PinnedHostBufferRoundTrip) {
  HostBuffer<float> buf(this->ctx, 1000);
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = float(i) * 0.5f;
  Array<float, 2> a(this->ctx, extents(20, 50));
  a.copy_from(buf);
  HostBuffer<float> back(this->ctx, 1000);
  a.copy_to(back);
  for (std::size_t i = 0; i < back.size(); ++i) ASSERT_EQ(back[i], float(i) * 0.5f);
  HostBuffer<float> wrong(this->ctx, 999);
  EXPECT_THROW(a.copy_to(wrong), ShapeError);
}

TYPED_TEST(ArrayTest, OutOfMemoryNamesTheSizes) {
  try {
    Array<double, 1> huge(this->ctx, extents(index_t(1) << 56));  // 512 PiB
    FAIL() << "allocating 512 PiB must fail";
  } catch (const OutOfMemory& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("asked for"), std::string::npos) << msg;
    EXPECT_NE(msg.find("PiB"), std::string::npos) << msg;
    EXPECT_TRUE(msg.find("free") != std::string::npos || msg.find("available") != std::string::npos) << msg;
  }
  Array<double, 1> fine(this->ctx, extents(10));  // the context still works afterwards
  fine.fill(1);
  EXPECT_EQ(fine.to_host()[9], 1.0);
}

// Every cell of a 3D box once, whatever planes a GPU thread walks and however tall its block
// (SIMKIT_FOR_EACH_ROWS, SIMKIT_FOR_EACH_BLOCK_Y; unset: the defaults), boxes offset in their
// array and not whole blocks in any dimension, narrower than a warp, and more planes than blocks.
TYPED_TEST(ArrayTest, ForEachVisitsEveryCellOfA3DBoxOnce) {
  const Extents<3> shape{{70, 21, 75}};
  const Box<3> boxes[] = {{{1, 2, 3}, {6, 11, 36}}, {{0, 0, 0}, {70, 21, 75}}, {{3, 1, 0}, {67, 9, 32}},
                          {{0, 4, 2}, {69, 7, 33}}, {{2, 0, 40}, {5, 21, 64}}};
  for (const char* rows : {"", "0", "1", "2", "4", "8", "16"})
    for (const char* height : {"", "4", "8"}) {
      const tuning::Scoped walk("SIMKIT_FOR_EACH_ROWS", rows), tall("SIMKIT_FOR_EACH_BLOCK_Y", height);
      for (const Box<3>& box : boxes) {
        Array<double, 3> a(this->ctx, shape);
        a.fill(0.0);
        sim_test::mark_box_3d(this->ctx, a, box);
        const std::vector<double> h = a.to_host();
        for (index_t i = 0; i < shape.n[0]; ++i)
          for (index_t j = 0; j < shape.n[1]; ++j)
            for (index_t k = 0; k < shape.n[2]; ++k) {
              const bool in = i >= box.lo[0] && i < box.hi[0] && j >= box.lo[1] && j < box.hi[1] && k >= box.lo[2] && k < box.hi[2];
              const double want = in ? double(1 + (i * 1000 + j) * 1000 + k) : 0.0;
              ASSERT_EQ(h[std::size_t((i * shape.n[1] + j) * shape.n[2] + k)], want)
                  << "SIMKIT_FOR_EACH_ROWS='" << rows << "', SIMKIT_FOR_EACH_BLOCK_Y='" << height << "', box from (" << box.lo[0]
                  << ", " << box.lo[1] << ", " << box.lo[2] << "), cell (" << i << ", " << j << ", " << k << ")";
            }
      }
    }
}
