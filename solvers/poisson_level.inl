// Building Poisson levels (host side, once per run): included by poisson.hpp.
#include <vector>

namespace sim::solvers {

template <class T>
PoissonGrid<T> make_poisson_grid(index_t nx, index_t ny, double hx, double hy, const PressureSide (&sides)[4],
                                 const std::vector<T>* fluid) {
  PoissonGrid<T> g;
  g.nx = nx, g.ny = ny;
  g.inv_hx2 = T(1 / (hx * hx)), g.inv_hy2 = T(1 / (hy * hy));
  g.singular = true;
  for (int k = 0; k < 4; ++k) {
    g.sides[k] = sides[k];
    if (sides[k] == PressureSide::dirichlet) g.singular = false;
  }
  g.fluid_cells = nx * ny;
  if (!fluid) return g;
  const std::vector<T>& f = *fluid;
  const bool periodic_x = sides[0] == PressureSide::periodic, periodic_y = sides[2] == PressureSide::periodic;
  auto is_fluid = [&](index_t i, index_t j) { return f[std::size_t(i * ny + j)] != T(0); };
  g.cx.resize(std::size_t((nx + 1) * ny)), g.cy.resize(std::size_t(nx * (ny + 1)));
  g.fluid_cells = 0;
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j < ny; ++j) g.fluid_cells += is_fluid(i, j);
  for (index_t i = 0; i <= nx; ++i)
    for (index_t j = 0; j < ny; ++j) {
      T c;
      if (i == 0 || i == nx) {
        const index_t in = i == 0 ? 0 : nx - 1;
        c = periodic_x ? T(is_fluid(0, j) && is_fluid(nx - 1, j)) : (is_fluid(in, j) ? side_coefficient<T>(sides[i == 0 ? 0 : 1]) : T(0));
      } else {
        c = T(is_fluid(i - 1, j) && is_fluid(i, j));
      }
      g.cx[std::size_t(i * ny + j)] = c;
    }
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j <= ny; ++j) {
      T c;
      if (j == 0 || j == ny) {
        const index_t in = j == 0 ? 0 : ny - 1;
        c = periodic_y ? T(is_fluid(i, 0) && is_fluid(i, ny - 1)) : (is_fluid(i, in) ? side_coefficient<T>(sides[j == 0 ? 2 : 3]) : T(0));
      } else {
        c = T(is_fluid(i, j - 1) && is_fluid(i, j));
      }
      g.cy[std::size_t(i * (ny + 1) + j)] = c;
    }
  g.active = f;
  return g;
}

template <class T>
PoissonGrid<T> coarsen(const PoissonGrid<T>& f) {
  PoissonGrid<T> g;
  g.nx = f.nx / 2, g.ny = f.ny / 2;
  g.inv_hx2 = f.inv_hx2 / 4, g.inv_hy2 = f.inv_hy2 / 4;
  for (int k = 0; k < 4; ++k) g.sides[k] = f.sides[k];
  g.singular = f.singular;
  g.fluid_cells = g.nx * g.ny;
  if (!f.has_links()) return g;
  // Coarse faces average the two fine faces they cover (a closed fine face counts 0, so a face
  // half blocked by an obstacle is half open); a coarse cell is fluid if any child is. (Calling
  // it solid unless every child is fluid lost the cells around an obstacle on every coarse
  // level: the cylinder's mg_cg took 38 iterations a step at 1024 x 256, against 15 now.)
  const index_t nx = g.nx, ny = g.ny;
  const bool periodic_x = f.sides[0] == PressureSide::periodic, periodic_y = f.sides[2] == PressureSide::periodic;
  std::vector<T>&cx = g.cx, &cy = g.cy, &act = g.active;
  cx.resize(std::size_t((nx + 1) * ny)), cy.resize(std::size_t(nx * (ny + 1))), act.resize(std::size_t(nx * ny));
  for (index_t i = 0; i <= nx; ++i)
    for (index_t j = 0; j < ny; ++j)
      cx[std::size_t(i * ny + j)] = T(0.5) * (f.cx[std::size_t(2 * i * f.ny + 2 * j)] + f.cx[std::size_t(2 * i * f.ny + 2 * j + 1)]);
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j <= ny; ++j)
      cy[std::size_t(i * (ny + 1) + j)] =
          T(0.5) * (f.cy[std::size_t(2 * i * (f.ny + 1) + 2 * j)] + f.cy[std::size_t((2 * i + 1) * (f.ny + 1) + 2 * j)]);
  g.fluid_cells = 0;
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j < ny; ++j) {
      bool any = false;
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) any |= f.active[std::size_t((2 * i + a) * f.ny + 2 * j + b)] != T(0);
      act[std::size_t(i * ny + j)] = T(any);
      g.fluid_cells += any;
    }
  // Links into a solid coarse cell close, so the operator stays symmetric (solid rows are identity rows).
  auto solid = [&](index_t i, index_t j) {
    if (i < 0 || i >= nx) i = periodic_x ? (i + nx) % nx : (i < 0 ? 0 : nx - 1);
    if (j < 0 || j >= ny) j = periodic_y ? (j + ny) % ny : (j < 0 ? 0 : ny - 1);
    return act[std::size_t(i * ny + j)] == T(0);
  };
  for (index_t i = 0; i <= nx; ++i)
    for (index_t j = 0; j < ny; ++j)
      if (solid(i - 1, j) || solid(i, j)) cx[std::size_t(i * ny + j)] = T(0);
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j <= ny; ++j)
      if (solid(i, j - 1) || solid(i, j)) cy[std::size_t(i * (ny + 1) + j)] = T(0);
  return g;
}

/// The stencil's fields that do not depend on the split (no link arrays).
template <class T>
PoissonStencil<T> base_stencil(const PoissonGrid<T>& g) {
  PoissonStencil<T> s;
  s.nx = g.nx, s.ny = g.ny;
  s.inv_hx2 = g.inv_hx2, s.inv_hy2 = g.inv_hy2;
  s.periodic_x = g.sides[0] == PressureSide::periodic;
  s.periodic_y = g.sides[2] == PressureSide::periodic;
  for (int k = 0; k < 4; ++k) s.side_c[k] = side_coefficient<T>(g.sides[k]);
  s.inside_diagonal = s.diagonal_of(T(1), T(1), T(1), T(1));
  s.inside_inverse = PoissonStencil<T>::inverse_of(s.inside_diagonal);
  return s;
}

template <class T>
PoissonStencil<T> host_stencil(const PoissonGrid<T>& g) {
  PoissonStencil<T> s = base_stencil(g);
  if (!g.has_links()) return s;
  s.has_links = true;
  s.cx = dense_view(g.cx.data(), Extents<2>{{g.nx + 1, g.ny}});
  s.cy = dense_view(g.cy.data(), Extents<2>{{g.nx, g.ny + 1}});
  s.active = dense_view(g.active.data(), Extents<2>{{g.nx, g.ny}});
  return s;
}

template <class T>
PoissonLevel<T> make_poisson_level(const Context& ctx, const PoissonGrid<T>& g, const PoissonPartition& part) {
  const Subdomain& sub = part.mine();
  PoissonLevel<T> L;
  L.ctx = ctx;
  L.comm = part.comm;
  L.singular = g.singular;
  L.fluid_cells = g.fluid_cells;
  PoissonStencil<T>& s = L.stencil;
  s = base_stencil(g);
  const index_t nx = sub.cells[0], ny = sub.cells[1], ox = sub.offset[0], oy = sub.offset[1];
  s.nx = nx, s.ny = ny;
  for (int side = 0; side < 2; ++side) {
    s.halo_x[side] = !sub.at_boundary(0, side), s.halo_y[side] = !sub.at_boundary(1, side);
    if (s.halo_x[side]) s.side_c[side] = T(1), s.periodic_x = false;
    if (s.halo_y[side]) s.side_c[2 + side] = T(1), s.periodic_y = false;
  }
  if (part.boxes.size() > 1) L.halo = Halo<T, 2>(part.comm, sub, 1, ctx, HaloUse::blocking);
  if (!g.has_links()) return L;
  // this box's slice of the global per-face coefficients and flags
  auto slice = [&](const std::vector<T>& whole, index_t n0, index_t n1, index_t c0, index_t c1) {
    std::vector<T> out(std::size_t(c0 * c1));
    const index_t shape[2] = {n0, n1}, offset[2] = {ox, oy}, count[2] = {c0, c1};
    copy_box(whole.data(), 2, shape, offset, count, sizeof(T), out.data());
    return Array<T, 2>::from_host(ctx, Extents<2>{{c0, c1}}, out);
  };
  L.cx = slice(g.cx, g.nx + 1, g.ny, nx + 1, ny);
  L.cy = slice(g.cy, g.nx, g.ny + 1, nx, ny + 1);
  L.active = slice(g.active, g.nx, g.ny, nx, ny);
  s.has_links = true;
  s.cx = L.cx.view(), s.cy = L.cy.view(), s.active = L.active.view();
  return L;
}

}  // namespace sim::solvers
