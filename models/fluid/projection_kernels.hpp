#pragma once
// The 2D fluid's projection on the MAC grid (fluid_kernels.hpp describes the storage): u -= dt
// grad p on the faces, with the largest speeds reduced in the same pass for the next time step.
#include <algorithm>
#include <vector>

#include "core/mesh/grid.hpp"
#include "core/numerics/spectral/multiplier2.hpp"
#include "solvers/poisson.hpp"

namespace sim::fluid {

/// The largest |u| and |v| of a box (the adaptive time step's input).
struct SpeedPair {
  double u, v;
};

/// (|u(i, j)|, |v(i, j)|) for a reduction with LargerSpeeds: both maxima in one pass and one wait.
template <class T>
struct FaceSpeeds {
  View<const T, 2> u, v;
  SIM_INLINE SpeedPair operator()(index_t i, index_t j) const {
    const T a = u(i, j), b = v(i, j);
    return {double(a < T(0) ? -a : a), double(b < T(0) ? -b : b)};
  }
};

/// Componentwise maximum (as ops::Maximum, so the bits match norm_max's).
struct LargerSpeeds {
  SIM_INLINE SpeedPair operator()(const SpeedPair& a, const SpeedPair& b) const {
    return {a.u < b.u ? b.u : a.u, a.v < b.v ? b.v : a.v};
  }
};

/// next_dt()'s formula on the device (one rank): cfl over the advective and diffusive rates,
/// from the speeds a reduction left in memory; the same bits as the host's.
struct CflDt {
  const SpeedPair* speeds;
  double cfl, hx, hy, viscous_rate, u_hint;
  SIM_INLINE double operator()() const {
    const double um = speeds->u < u_hint ? u_hint : speeds->u;  // std::max(u, u_hint)
    return cfl / (um / hx + speeds->v / hy + viscous_rate);
  }
};

/// u -= dt c grad p on every open face, over the box [0, nx] x [0, ny] (u for j < ny, v for i < nx).
/// p is a field's view, or the fused transform solve's staged result, which `store` (when set)
/// then receives on the cells: the solve's scatter fused into the projection.
template <class T, class P = View<const T, 2>>
struct Project {
  View<T, 2> u, v;
  P p;
  solvers::PoissonStencil<T> links;
  const double* dt;  ///< read from memory (StepInput)
  double inv_hx, inv_hy;  ///< 1 / h: dt / h as a product (a double division a cell is costly on GPUs)
  View<T, 2> store{};
  /// Projects the faces at (i, j); returns (|u(i, j)|, |v(i, j)|) after, for the maximum speeds
  /// (0 outside the cells: FaceSpeeds's values, so a reduction fused into the pass gives its bits).
  SIM_INLINE SpeedPair operator()(index_t i, index_t j) const {
    if (store.ptr && i < links.nx && j < links.ny) store(i, j) = p(i, j);
    const T dt_hx = T(*dt * inv_hx), dt_hy = T(*dt * inv_hy);
    if (j < links.ny) {
      const T c = links.link_x(i, j);
      if (c != T(0)) u(i, j) -= dt_hx * c * (links.at(p, i, j) - links.at(p, i - 1, j));
    }
    if (i < links.nx) {
      const T c = links.link_y(i, j);
      if (c != T(0)) v(i, j) -= dt_hy * c * (links.at(p, i, j) - links.at(p, i, j - 1));
    }
    if (i >= links.nx || j >= links.ny) return {0.0, 0.0};
    return FaceSpeeds<T>{u, v}(i, j);
  }
};

/// The cpu backend's form of the fused transform solve's projection (Project on the staged,
/// Makhoul-ordered pressure) on a rectangle without per-face links, periodic or shared sides:
/// whole rows, each pressure row put in natural order once (instead of two permuted reads a
/// face), the faces' updates vectorised, then the row's speeds reduced in Project's order.
/// Each face's value is Project's own expression: the same bits. Not used on GPUs (operator()
/// is Project's, for the instantiation a cuda build makes).
template <class T>
struct ProjectRows {
  Project<T, fft::StagedView<T>> k;
  using cpu_reduce_rows = void;  ///< row(i, j0, j1, op, init) reduces (core/kernels/for_each_reduce.hpp)

  static bool applies(const Project<T, fft::StagedView<T>>& k) {
    const solvers::PoissonStencil<T>& l = k.links;
    return !l.has_links && !l.periodic_x && !l.periodic_y && !l.halo_x[0] && !l.halo_x[1] && !l.halo_y[0] && !l.halo_y[1] &&
           k.u.stride[1] == 1 && k.v.stride[1] == 1 && (!k.store.ptr || k.store.stride[1] == 1);
  }
  SIM_INLINE SpeedPair operator()(index_t i, index_t j) const { return k(i, j); }
  /// The row's faces (j in [j0, j1) of the faces box [0, nx] x [0, ny]).
  void row(index_t i, index_t j0, index_t j1) const { update(i, j0, j1); }
  /// The same, and the row's speeds reduced with op from init, in the order of j.
  template <class Op>
  SpeedPair row(index_t i, index_t j0, index_t j1, const Op& op, SpeedPair init) const {
    update(i, j0, j1);
    const index_t nx = k.links.nx, ny = k.links.ny;
    SpeedPair a = init;
    for (index_t j = j0; j < j1; ++j) a = op(a, i < nx && j < ny ? FaceSpeeds<T>{k.u, k.v}(i, j) : SpeedPair{0.0, 0.0});
    return a;
  }

 private:
#if defined(__GNUC__) && !defined(__CUDA_ARCH__)
  __attribute__((flatten))
#endif
  void update(index_t i, index_t j0, index_t j1) const {
    const index_t nx = k.links.nx, ny = k.links.ny;
    static thread_local std::vector<T> rows;  // p(i, .) and p(i - 1, .) in natural order, 0 outside the cells
    if (rows.size() < std::size_t(2 * (ny + 1))) rows.assign(std::size_t(2 * (ny + 1)), T(0));
    T* pc = rows.data();
    T* pl = pc + (ny + 1);
    auto natural = [&](index_t r, T* out) {  // links.at(p, r, j) for j in [0, ny]
      if (r < 0 || r >= nx) {
        for (index_t j = 0; j <= ny; ++j) out[j] = T(0);
        return;
      }
      const T* src = k.p.data + fft::StagedView<T>::position(r, k.p.n1, k.p.permuted) * k.p.n2;
      for (index_t j = 0; j < ny; ++j) out[j] = src[fft::StagedView<T>::position(j, k.p.n2, k.p.permuted)];
      out[ny] = T(0);
    };
    natural(i, pc);
    natural(i - 1, pl);
    View<T, 2> u = k.u, v = k.v, store = k.store;
    u.stride[1] = v.stride[1] = store.stride[1] = 1;
    const index_t jc = std::min(j1, ny);  // faces of cells (j < ny)
    if (store.ptr && i < nx)
#pragma omp simd
      for (index_t j = j0; j < jc; ++j) store(i, j) = pc[j];
    const T dt_hx = T(*k.dt * k.inv_hx), dt_hy = T(*k.dt * k.inv_hy);
    if (const T c = k.links.link_x(i, 0); c != T(0))
#pragma omp simd
      for (index_t j = j0; j < jc; ++j) u(i, j) -= dt_hx * c * (pc[j] - pl[j]);
    if (i >= nx) return;
    auto v_face = [&](index_t j, T c) {
      if (c != T(0)) v(i, j) -= dt_hy * c * (pc[j] - (j > 0 ? pc[j - 1] : T(0)));
    };
    index_t j = j0;
    if (j == 0 && j < j1) v_face(0, k.links.side_c[2]), ++j;
    const index_t je = std::min(j1, ny);
#pragma omp simd
    for (index_t jj = j; jj < je; ++jj) v(i, jj) -= dt_hy * T(1) * (pc[jj] - pc[jj - 1]);  // link 1 for 0 < j < ny
    if (j1 > ny && ny >= j) v_face(ny, k.links.side_c[3]);
  }
};

}  // namespace sim::fluid
