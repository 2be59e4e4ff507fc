// What a stored expression means and how long it may live: an expression built from a
// temporary array owns it (auto e = make() + A stays valid), a stored `auto` expression is
// the recipe (it reads its arrays when used), sim::eval and Array<T, R> b = expression make
// an array now.
#include <gtest/gtest.h>

#include <vector>

#include "core/array/creation.hpp"
#include "core/array/expr.hpp"
#include "core/array/slicing.hpp"
#include "core/numerics/linalg.hpp"
#include "tests/support/backends.hpp"

using namespace sim;

template <class B>
class ExprLifetimeTest : public sim_test::OnBackend<B> {};
SIM_TYPED_TEST_SUITE(ExprLifetimeTest);

namespace {
Array<double, 1> threes(const Context& ctx, index_t n) { return Array<double, 1>::full(ctx, extents(n), 3.0); }
}  // namespace

TYPED_TEST(ExprLifetimeTest, ExpressionOwnsItsTemporaries) {
  const index_t n = 100000;
  auto a = Array<double, 1>::full(this->ctx, extents(n), 1.0);
  auto e = threes(this->ctx, n) * 2.0 + a;       // the temporary of threes() lives in e
  auto f = sqrt(threes(this->ctx, n)) + threes(this->ctx, n);
  auto g = where(threes(this->ctx, n) > 2.0, threes(this->ctx, n), a);
  std::vector<Array<double, 1>> churn;  // allocations that would reuse freed memory
  for (int i = 0; i < 4; ++i) churn.push_back(Array<double, 1>::full(this->ctx, extents(n), -100.0));
  EXPECT_EQ(sum(e), 7.0 * double(n));
  EXPECT_NEAR(sum(f), (std::sqrt(3.0) + 3.0) * double(n), 1e-6 * double(n));
  EXPECT_EQ(sum(g), 3.0 * double(n));
  Array<double, 1> out(this->ctx, extents(n));
  out = e;
  EXPECT_EQ(sim::max(out), 7.0);
  // a stored expression copied is still valid once the original is gone
  auto copy = [&] {
    auto inner = threes(this->ctx, n) + 1.0;
    return inner;
  }();
  EXPECT_EQ(sum(copy), 4.0 * double(n));
}

TYPED_TEST(ExprLifetimeTest, MatmulTemporaryInAStoredExpression) {
  const index_t m = 30;
  std::vector<double> h(m * m);
  for (index_t t = 0; t < m * m; ++t) h[t] = double(t % 7) - 3.0;
  auto A = Array<double, 2>::from_host(this->ctx, extents(m, m), h);
  auto e = sim::matmul(A, A) + A;  // NumPy: e = A @ A + A
  std::vector<Array<double, 2>> churn;
  for (int i = 0; i < 4; ++i) churn.push_back(Array<double, 2>::full(this->ctx, extents(m, m), -1.0));
  double want = 0;
  for (index_t i = 0; i < m; ++i)
    for (index_t j = 0; j < m; ++j) {
      double c = h[i * m + j];
      for (index_t k = 0; k < m; ++k) c += h[i * m + k] * h[k * m + j];
      want += c;
    }
  EXPECT_NEAR(sum(e), want, 1e-9 * std::abs(want) + 1e-9);
}

TYPED_TEST(ExprLifetimeTest, StoredExpressionIsARecipeEvalIsAValue) {
  const index_t n = 1000;
  auto x = Array<double, 1>::full(this->ctx, extents(n), 1.0);
  auto recipe = x * 2.0;            // reads x when used
  auto value = sim::eval(x * 2.0);  // an array now (NumPy's y = x * 2)
  Array<double, 1> also = x * 2.0;  // the same, declared as an array
  static_assert(std::is_same<decltype(value), Array<double, 1>>::value, "eval makes an array");
  x.fill(5.0);
  EXPECT_EQ(sum(recipe), 10.0 * double(n));
  EXPECT_EQ(sum(value), 2.0 * double(n));
  EXPECT_EQ(sum(also), 2.0 * double(n));
  // eval of an array copies it; eval of views takes the context
  auto copy = sim::eval(x);
  x.fill(0.0);
  EXPECT_EQ(sum(copy), 5.0 * double(n));
  auto part = sim::eval(this->ctx, slice(copy.view(), Range{0, 10}) + 1.0);
  EXPECT_EQ(part.size(), 10);
  EXPECT_EQ(sum(part), 60.0);
  EXPECT_THROW(sim::eval(slice(copy.view(), Range{0, 10}) + 1.0), BackendError);
  // a float array made from a double expression converts each element
  Array<float, 1> f = x + 0.25;
  EXPECT_EQ(f.to_host()[0], 0.25f);
}
