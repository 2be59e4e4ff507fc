#pragma once
// Test support for passes that apply the last dimension's boundary rules themselves
// (sim::stencil_pass and the updates on it): NaN in those ghosts, so that a pass reading them
// shows it; the boundaries tried; and a comparison of host copies, bit for bit or within a
// relative tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/mesh/boundary.hpp"
#include "core/kernels/for_each.hpp"

namespace sim_test {

/// Writes NaN into the last dimension's ghost layer at both ends of each row.
template <class T, int Rank>
struct PoisonLastDim {
  sim::View<T, Rank> v;
  sim::index_t n;
  template <class... I>
  SIM_INLINE void operator()(I... i) const {
    for (sim::index_t k : {sim::index_t(-1), n}) {
      sim::index_t p[Rank] = {sim::index_t(i)...};
      p[Rank - 1] = k;
      if constexpr (Rank == 1) v(p[0]) = std::numeric_limits<T>::quiet_NaN();
      if constexpr (Rank == 2) v(p[0], p[1]) = std::numeric_limits<T>::quiet_NaN();
      if constexpr (Rank == 3) v(p[0], p[1], p[2]) = std::numeric_limits<T>::quiet_NaN();
    }
  }
};

/// Sets the last dimension's ghost layers of f to NaN: a pass that reads them shows it.
template <class T, int Rank>
void poison_last_dim_ghosts(sim::Field<T, Rank>& f) {
  sim::Box<Rank> b = f.with_ghosts();
  b.lo[Rank - 1] = 0, b.hi[Rank - 1] = 1;
  sim::for_each(f.context(), "test::poison", b, PoisonLastDim<T, Rank>{f.view(), f.grid().cells.n[Rank - 1]});
}

/// The boundaries tried: each kind on the last dimension, and mixed sides.
template <int Rank>
std::vector<std::pair<std::string, sim::Boundary<Rank>>> ruled_boundaries() {
  using sim::BcKind;
  using sim::Boundary;
  Boundary<Rank> dir = Boundary<Rank>::all({BcKind::dirichlet, 0.7});
  dir.hi[Rank - 1].value = -0.3;
  Boundary<Rank> neu = Boundary<Rank>::all({BcKind::neumann, 0.5});
  neu.hi[Rank - 1].value = -1.25;
  Boundary<Rank> per = Boundary<Rank>::all({BcKind::dirichlet, 1.0});
  per.lo[Rank - 1] = per.hi[Rank - 1] = {BcKind::periodic, 0.0};
  Boundary<Rank> mixed = Boundary<Rank>::periodic();
  mixed.lo[Rank - 1] = {BcKind::dirichlet, 2.5};
  mixed.hi[Rank - 1] = {BcKind::neumann, 0.125};
  return {{"dirichlet", dir}, {"neumann", neu}, {"periodic", per}, {"mixed", mixed}};
}

/// Expects a and b equal: bit for bit where rel_tol is 0, else within rel_tol x max(1, |b|).
template <class T>
void expect_values(const std::vector<T>& a, const std::vector<T>& b, const std::string& what, double rel_tol = 0) {
  ASSERT_EQ(a.size(), b.size());
  std::size_t differ = 0, first = a.size();
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool ok = rel_tol == 0 ? std::memcmp(&a[i], &b[i], sizeof(T)) == 0
                                 : std::fabs(double(a[i]) - double(b[i])) <= rel_tol * std::fmax(1.0, std::fabs(double(b[i])));
    if (!ok && differ++ == 0) first = i;
  }
  EXPECT_EQ(differ, 0u) << what << ": " << differ << " values differ, the first at flat index " << first << " ("
                        << (first < a.size() ? double(a[first]) : 0.0) << " vs "
                        << (first < a.size() ? double(b[first]) : 0.0) << ")";
}

}  // namespace sim_test
