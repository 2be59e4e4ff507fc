// Building Poisson levels (host side, once per run): included by poisson.hpp.
#include <vector>

namespace sim::solvers {

template <class T>
PoissonLevel<T> make_poisson_level(const Context& ctx, index_t nx, index_t ny, double hx, double hy,
                                   const PressureSide (&sides)[4], const std::vector<T>* fluid) {
  PoissonLevel<T> L;
  L.ctx = ctx;
  PoissonStencil<T>& s = L.stencil;
  s.nx = nx, s.ny = ny;
  s.inv_hx2 = T(1 / (hx * hx)), s.inv_hy2 = T(1 / (hy * hy));
  s.periodic_x = sides[0] == PressureSide::periodic;
  s.periodic_y = sides[2] == PressureSide::periodic;
  L.singular = true;
  for (int k = 0; k < 4; ++k) {
    s.side_c[k] = sides[k] == PressureSide::dirichlet ? T(2) : sides[k] == PressureSide::periodic ? T(1) : T(0);
    if (sides[k] == PressureSide::dirichlet) L.singular = false;
  }
  L.fluid_cells = nx * ny;
  if (!fluid) return L;
  const std::vector<T>& f = *fluid;
  std::vector<T> cx(std::size_t((nx + 1) * ny)), cy(std::size_t(nx * (ny + 1)));
  auto is_fluid = [&](index_t i, index_t j) { return f[std::size_t(i * ny + j)] != T(0); };
  L.fluid_cells = 0;
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j < ny; ++j) L.fluid_cells += is_fluid(i, j);
  for (index_t i = 0; i <= nx; ++i)
    for (index_t j = 0; j < ny; ++j) {
      T c;
      if (i == 0 || i == nx) {
        const index_t in = i == 0 ? 0 : nx - 1;
        c = s.periodic_x ? T(is_fluid(0, j) && is_fluid(nx - 1, j)) : (is_fluid(in, j) ? s.side_c[i == 0 ? 0 : 1] : T(0));
      } else {
        c = T(is_fluid(i - 1, j) && is_fluid(i, j));
      }
      cx[std::size_t(i * ny + j)] = c;
    }
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j <= ny; ++j) {
      T c;
      if (j == 0 || j == ny) {
        const index_t in = j == 0 ? 0 : ny - 1;
        c = s.periodic_y ? T(is_fluid(i, 0) && is_fluid(i, ny - 1)) : (is_fluid(i, in) ? s.side_c[j == 0 ? 2 : 3] : T(0));
      } else {
        c = T(is_fluid(i, j - 1) && is_fluid(i, j));
      }
      cy[std::size_t(i * (ny + 1) + j)] = c;
    }
  L.cx = Array<T, 2>::from_host(ctx, Extents<2>{{nx + 1, ny}}, cx);
  L.cy = Array<T, 2>::from_host(ctx, Extents<2>{{nx, ny + 1}}, cy);
  L.active = Array<T, 2>::from_host(ctx, Extents<2>{{nx, ny}}, f);
  s.has_links = true;
  s.cx = L.cx.view(), s.cy = L.cy.view(), s.active = L.active.view();
  return L;
}

template <class T>
PoissonLevel<T> coarsen(const PoissonLevel<T>& fine) {
  const PoissonStencil<T>& f = fine.stencil;
  PoissonLevel<T> L;
  L.ctx = fine.ctx;
  L.singular = fine.singular;
  PoissonStencil<T>& s = L.stencil;
  s = f;
  s.nx = f.nx / 2, s.ny = f.ny / 2;
  s.inv_hx2 = f.inv_hx2 / 4, s.inv_hy2 = f.inv_hy2 / 4;
  L.fluid_cells = s.nx * s.ny;
  if (!f.has_links) return L;
  // Coarse faces average the two fine faces they cover; a coarse cell is fluid if any child is.
  const std::vector<T> fx = fine.cx.to_host(), fy = fine.cy.to_host(), fa = fine.active.to_host();
  const index_t nx = s.nx, ny = s.ny;
  std::vector<T> cx(std::size_t((nx + 1) * ny)), cy(std::size_t(nx * (ny + 1))), act(std::size_t(nx * ny));
  for (index_t i = 0; i <= nx; ++i)
    for (index_t j = 0; j < ny; ++j)
      cx[std::size_t(i * ny + j)] =
          T(0.5) * (fx[std::size_t(2 * i * f.ny + 2 * j)] + fx[std::size_t(2 * i * f.ny + 2 * j + 1)]);
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j <= ny; ++j)
      cy[std::size_t(i * (ny + 1) + j)] = T(0.5) * (fy[std::size_t(2 * i * (f.ny + 1) + 2 * j)] +
                                                    fy[std::size_t((2 * i + 1) * (f.ny + 1) + 2 * j)]);
  L.fluid_cells = 0;
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j < ny; ++j) {
      bool all = true;
      for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) all &= fa[std::size_t((2 * i + a) * f.ny + 2 * j + b)] != T(0);
      act[std::size_t(i * ny + j)] = T(all);
      L.fluid_cells += all;
    }
  // Links into a solid coarse cell close, so the operator stays symmetric (solid rows are identity rows).
  auto solid = [&](index_t i, index_t j) {
    if (i < 0 || i >= nx) i = s.periodic_x ? (i + nx) % nx : (i < 0 ? 0 : nx - 1);
    if (j < 0 || j >= ny) j = s.periodic_y ? (j + ny) % ny : (j < 0 ? 0 : ny - 1);
    return act[std::size_t(i * ny + j)] == T(0);
  };
  for (index_t i = 0; i <= nx; ++i)
    for (index_t j = 0; j < ny; ++j)
      if (solid(i - 1, j) || solid(i, j)) cx[std::size_t(i * ny + j)] = T(0);
  for (index_t i = 0; i < nx; ++i)
    for (index_t j = 0; j <= ny; ++j)
      if (solid(i, j - 1) || solid(i, j)) cy[std::size_t(i * (ny + 1) + j)] = T(0);
  L.cx = Array<T, 2>::from_host(L.ctx, Extents<2>{{nx + 1, ny}}, cx);
  L.cy = Array<T, 2>::from_host(L.ctx, Extents<2>{{nx, ny + 1}}, cy);
  L.active = Array<T, 2>::from_host(L.ctx, Extents<2>{{nx, ny}}, act);
  s.cx = L.cx.view(), s.cy = L.cy.view(), s.active = L.active.view();
  return L;
}

}  // namespace sim::solvers
