// solvers/distributed_transform.hpp: the spectrum's division by the eigenvalues in pairs of
// reals, several pairs a call (SlabDividePairs3), gives SlabDivide3's bits, for planes whose
// pairs are and are not a multiple of its pairs a call, the null mode set to 0, on a dense
// array and on rows of every plane of one.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/kernels/for_each.hpp"
#include "solvers/distributed_transform.hpp"
#include "tests/support/backends.hpp"

using namespace sim;
using namespace sim::solvers;

namespace {

template <class B>
class SlabDivide : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(SlabDivide);

/// Eigenvalues like plan_yz's: the first 0 (with the others' first, the null mode), the pairs' shared.
template <class T>
Array<T, 1> eigenvalues(const Context& ctx, index_t n, bool pairs) {
  std::vector<T> h(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) h[std::size_t(i)] = T(2 - 2 * std::cos(0.7 * double(pairs ? i / 2 : i)));
  return Array<T, 1>::from_host(ctx, extents(n), h);
}

template <class T, class B>
void check_pairs_give_the_same_bits(const Context& ctx) {
  for (index_t planes : {1, 3, 4, 5, 9}) {
    const Extents<3> shape = extents(planes, 6, 10);
    std::vector<T> h(std::size_t(shape.size()));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = T(std::sin(0.37 * double(i)) + 0.2);
    Array<T, 3> one = Array<T, 3>::from_host(ctx, shape, h), paired = Array<T, 3>::from_host(ctx, shape, h);
    const Array<T, 1> l0 = eigenvalues<T>(ctx, planes, false), l1 = eigenvalues<T>(ctx, 6, false),
                      l2 = eigenvalues<T>(ctx, 10, true);
    const T inv_norm = T(1.0 / 3.0);
    for_each(ctx, "test::slab_divide", one.view().box(), SlabDivide3<T>{one.view(), l0.view(), l1.view(), l2.view(), inv_norm});
    const auto f = SlabDividePairs3<T>::over(paired.view(), l0.view(), l1.view(), l2.view(), inv_norm);
    for_each(ctx, "test::slab_divide_pairs", f.calls(), f);
    const std::vector<T> a = one.to_host(), b = paired.to_host();
    EXPECT_EQ(a[0], T(0)) << "the null mode";
    std::size_t changed = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i], b[i]) << B::name << ", " << planes << " planes, value " << i;
      changed += a[i] != h[i];
    }
    EXPECT_GT(changed, a.size() / 2) << "the division changed the values";
  }
}

/// The same on rows [2, 5) of every plane (a strided view, as a slab of the spectrum held in place).
template <class T, class B>
void check_rows_of_planes(const Context& ctx) {
  const Extents<3> shape = extents(5, 7, 6);
  std::vector<T> h(std::size_t(shape.size()));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = T(std::cos(0.21 * double(i)) - 0.1);
  Array<T, 3> one = Array<T, 3>::from_host(ctx, shape, h), paired = Array<T, 3>::from_host(ctx, shape, h);
  const Box<3> rows{{0, 2, 0}, {5, 5, 6}};
  const Array<T, 1> l0 = eigenvalues<T>(ctx, 5, false), l1 = eigenvalues<T>(ctx, 3, false), l2 = eigenvalues<T>(ctx, 6, true);
  for_each(ctx, "test::slab_divide", Box<3>{{0, 0, 0}, {5, 3, 6}},
           SlabDivide3<T>{one.view().sub(rows), l0.view(), l1.view(), l2.view(), T(0.5)});
  const auto f = SlabDividePairs3<T>::over(paired.view().sub(rows), l0.view(), l1.view(), l2.view(), T(0.5));
  for_each(ctx, "test::slab_divide_pairs", f.calls(), f);
  const std::vector<T> a = one.to_host(), b = paired.to_host();
  std::size_t changed = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i], b[i]) << B::name << ", value " << i;
    changed += a[i] != h[i];
  }
  EXPECT_EQ(changed, std::size_t(5 * 3 * 6)) << "rows 2 to 4 of every plane changed, no other";
}

TYPED_TEST(SlabDivide, PairsOverSeveralPlanesGiveTheSameBits) {
  check_pairs_give_the_same_bits<double, TypeParam>(this->ctx);
  check_pairs_give_the_same_bits<float, TypeParam>(this->ctx);
}

TYPED_TEST(SlabDivide, PairsOnRowsOfEveryPlaneGiveTheSameBits) {
  check_rows_of_planes<double, TypeParam>(this->ctx);
  check_rows_of_planes<float, TypeParam>(this->ctx);
}

}  // namespace
