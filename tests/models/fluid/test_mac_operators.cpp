// The fluid's pointwise MAC operators (models/fluid/mac_operators.hpp), on host arrays: at full
// weight the blended momentum flux is the donor cell's (the upwind value times the carrier), at
// every face and for every component and direction; on data that does not vary along z (w = 0)
// the 3D operators give the 2D operators' values; the viscous operator is I - s L; the dye's
// flux takes the upwind cell's value.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "models/fluid/mac_operators.hpp"

using namespace sim;
using namespace sim::fluid;

namespace {

/// A field of n^D cells with one ghost layer each side, random values in [-1, 1] (z-uniform in
/// 3D when uniform_z: every k the same).
template <int D>
struct HostField {
  int n;
  std::vector<double> data;
  View<double, D> view;
  HostField(int n_, std::mt19937& rng, bool uniform_z = false) : n(n_), data(std::size_t(std::pow(n_ + 2, D))) {
    std::uniform_real_distribution<double> u(-1, 1);
    for (double& x : data) x = u(rng);
    index_t stride = 1;
    for (int d = D - 1; d >= 0; --d) view.stride[d] = stride, view.shape.n[d] = n, stride *= n + 2;
    index_t origin = 0;
    for (int d = 0; d < D; ++d) origin += view.stride[d];
    view.ptr = data.data() + origin;
    if constexpr (D == 3)
      if (uniform_z)
        for (index_t i = -1; i <= n; ++i)
          for (index_t j = -1; j <= n; ++j)
            for (index_t k = -1; k <= n; ++k) view(i, j, k) = view(i, j, 0);
  }
  View<const double, D> in() const { return view; }
};

}  // namespace

// carrier * carried + |carrier| (lo - hi) / 2 is carrier * lo where the carrier is positive
// (the flux comes from the low side) and carrier * hi where it is negative.
TEST(MacOperators, FullyBlendedMomentumFluxIsTheDonorCells) {
  std::mt19937 rng(7);
  const int n = 5;
  HostField<3> u(n, rng), v(n, rng), w(n, rng);
  const Velocity<double, 3> vel{{u.in(), v.in(), w.in()}};
  double worst = 0;
  auto check = [&](auto cc, auto dd, const Pos<3>& q) {
    constexpr int c = decltype(cc)::value, d = decltype(dd)::value;
    const double carrier_ = carrier<c, d>(vel, q);
    const double lo = at(vel.c[c], q.template shift<d>(-1)), hi = at(vel.c[c], q);
    const double donor = carrier_ > 0 ? carrier_ * lo : carrier_ * hi;
    const double blended = momentum_flux<c, d>(vel, q) + momentum_flux_upwind<c, d>(vel, q);
    worst = std::max(worst, std::abs(blended - donor));
  };
  using I0 = std::integral_constant<int, 0>;
  using I1 = std::integral_constant<int, 1>;
  using I2 = std::integral_constant<int, 2>;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j)
      for (index_t k = 0; k < n; ++k) {
        const Pos<3> q = position(u.view, i, j, k);
        check(I0{}, I0{}, q), check(I0{}, I1{}, q), check(I0{}, I2{}, q);
        check(I1{}, I0{}, q), check(I1{}, I1{}, q), check(I1{}, I2{}, q);
        check(I2{}, I0{}, q), check(I2{}, I1{}, q), check(I2{}, I2{}, q);
      }
  EXPECT_LT(worst, 1e-15);
}

// The 3D operators on z-uniform data with w = 0 equal the 2D operators on the same (x, y)
// values (the z terms are exactly 0; a sum of two terms is the same in either order).
TEST(MacOperators, ZUniformDataGivesThe2dOperatorsValues) {
  std::mt19937 rng(11);
  const int n = 6;
  HostField<3> u3(n, rng, true), v3(n, rng, true), w3(n, rng, true), d3(n, rng, true);
  for (double& x : w3.data) x = 0;
  HostField<2> u2(n, rng), v2(n, rng), d2(n, rng);
  for (index_t i = -1; i <= n; ++i)
    for (index_t j = -1; j <= n; ++j) u2.view(i, j) = u3.view(i, j, 0), v2.view(i, j) = v3.view(i, j, 0), d2.view(i, j) = d3.view(i, j, 0);
  const Velocity<double, 3> vel3{{u3.in(), v3.in(), w3.in()}};
  const Velocity<double, 2> vel2{{u2.in(), v2.in()}};
  const MacSpacing<double, 3> h3{{10.0, 7.0, 40.0}, {100.0, 49.0, 1600.0}};
  const MacSpacing<double, 2> h2{{10.0, 7.0}, {100.0, 49.0}};
  int compared = 0;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j)
      for (index_t k = 0; k < n; ++k) {
        const Pos<3> q3 = position(u3.view, i, j, k);
        const Pos<2> q2 = position(u2.view, i, j);
        for (double gamma : {0.0, 0.3, 1.0}) {
          EXPECT_EQ((advection<0, Flux::blended>(vel3, q3, h3, gamma)), (advection<0, Flux::blended>(vel2, q2, h2, gamma)));
          EXPECT_EQ((advection<1, Flux::blended>(vel3, q3, h3, gamma)), (advection<1, Flux::blended>(vel2, q2, h2, gamma)));
        }
        EXPECT_EQ(advection<0>(vel3, q3, h3), advection<0>(vel2, q2, h2));
        EXPECT_EQ(advection<1>(vel3, q3, h3), advection<1>(vel2, q2, h2));
        EXPECT_EQ(advection<2>(vel3, q3, h3), 0.0);
        EXPECT_EQ(laplacian(u3.in(), q3, h3), laplacian(u2.in(), q2, h2));
        EXPECT_EQ(divergence(vel3, q3, h3), divergence(vel2, q2, h2));
        EXPECT_EQ(dye_rate(vel3, d3.in(), q3, h3, 0.01), dye_rate(vel2, d2.in(), q2, h2, 0.01));
        ++compared;
      }
  EXPECT_EQ(compared, n * n * n);
}

// The viscous operator is f - sum_d s_d (second difference along d), i.e. I - k L with s_d = k / h_d^2.
TEST(MacOperators, ViscousOperatorIsIdentityLessSTimesTheLaplacian) {
  std::mt19937 rng(3);
  const int n = 4;
  HostField<3> f(n, rng);
  const MacSpacing<double, 3> h{{2.0, 3.0, 5.0}, {4.0, 9.0, 25.0}};
  const double k = 0.125, s[3] = {k * 4.0, k * 9.0, k * 25.0};
  double worst = 0;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j)
      for (index_t l = 0; l < n; ++l) {
        const Pos<3> q = position(f.view, i, j, l);
        worst = std::max(worst, std::abs(viscous_operator(f.in(), q, s) - (at(f.in(), q) - k * laplacian(f.in(), q, h))));
      }
  EXPECT_LT(worst, 1e-13);
}

// The dye's flux through a face takes the upwind cell's dye: the low cell's where the face
// velocity is positive, the high cell's where it is negative (0 where the velocity is 0).
TEST(MacOperators, DyeFluxTakesTheUpwindCellsValue) {
  std::mt19937 rng(5);
  const int n = 4;
  HostField<2> u(n, rng), v(n, rng), d(n, rng);
  const Velocity<double, 2> vel{{u.in(), v.in()}};
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      const Pos<2> q = position(u.view, i, j);
      const double a = u.view(i, j), b = v.view(i, j);
      EXPECT_EQ(dye_flux<0>(vel, d.in(), q), a * (a > 0 ? d.view(i - 1, j) : d.view(i, j)));
      EXPECT_EQ(dye_flux<1>(vel, d.in(), q), b * (b > 0 ? d.view(i, j - 1) : d.view(i, j)));
    }
}
