#pragma once
// The exact solve of the pressure Poisson equation A p = b (poisson.hpp) on a rectangle
// without obstacles, by fast transforms: per dimension the transform whose basis vectors are
// the eigenvectors of the cell-centred 1D operator with that dimension's sides,
//   periodic - periodic     real DFT (r2hc / hc2r)   eigenvalue 2 - 2 cos(2 pi f / n), f = min(k, n - k)
//   Neumann  - Neumann      DCT-II / DCT-III        2 - 2 cos(pi k / n)
//   Dirichlet - Dirichlet   DST-II / DST-III        2 - 2 cos(pi (k + 1) / n)
//   Neumann  - Dirichlet    DCT-IV (self-inverse)   2 - 2 cos(pi (k + 1/2) / n)
//   Dirichlet - Neumann     DST-IV (self-inverse)   the same
// (Dirichlet: p = 0 on the face, the link coefficient 2 of poisson.hpp). So
// p = T_x^-1 T_y^-1 [ (T_y T_x b) / (lambda_x / hx^2 + lambda_y / hy^2) ]: four transforms and
// one division, no iterations, no host synchronisation. Walls all round (cosine x cosine) and
// periodic all round (Fourier x Fourier), the common cases, go through the fused 2D spectral
// multiplier (core/numerics/spectral/multiplier2.hpp): one 2D FFT each way instead of four 1D transforms.
// A dimension with a wall on one side and a Dirichlet side (an outflow) on the other, beside
// walls or another such dimension, goes through the same cosine multiplier on the box mirrored
// across its Dirichlet sides: b extended oddly about each Dirichlet face makes the doubled box's
// Neumann solution odd about that face, so 0 on it, and equal to this box's solution (one
// gather, one 2D FFT each way, one scatter instead of twelve passes). When A is singular (no Dirichlet
// side) the constant mode is dropped: the solution has zero mean, and b's mean (which must
// vanish for a solution to exist) is ignored. One rank, whole grid.
// In 3D (TransformPoisson3, on the 7-point operator Poisson7) the same per-axis transforms
// run along the three axes: p = T_x^-1 T_y^-1 T_z^-1 [ (T_z T_y T_x b) / sum_d lambda_d / h_d^2 ];
// a box periodic all round goes through the 3D Fourier multiplier (core/numerics/spectral/multiplier3.hpp):
// one 3D real FFT each way.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/array/expr.hpp"
#include "core/numerics/fft.hpp"
#include "core/numerics/spectral/multiplier2.hpp"
#include "core/numerics/spectral/multiplier3.hpp"
#include "solvers/poisson.hpp"

namespace sim::solvers {

/// Why grid cannot be solved by transforms ("" when it can): obstacles, or a split over ranks.
template <class T>
std::string transform_unsupported(const PoissonGrid<T>& grid, int ranks) {
  if (grid.has_links()) return "an obstacle makes the operator's coefficients vary, which no fast transform diagonalises";
  if (ranks > 1) return "the transform solver works on one rank's whole grid, and this run is split over " +
                        std::to_string(ranks) + " ranks";
  for (int d = 0; d < 2; ++d)
    if ((grid.sides[2 * d] == PressureSide::periodic) != (grid.sides[2 * d + 1] == PressureSide::periodic))
      return "a dimension is periodic on one side only";
  return "";
}

/// One dimension's transform pair and eigenvalues (unit spacing) for its two sides.
struct TransformAxis {
  fft::Kind forward = fft::Kind::dct2, backward = fft::Kind::dct3;
  std::vector<double> eigenvalues;  ///< of the 1D operator, by mode index as the forward transform orders them

  TransformAxis(PressureSide lo, PressureSide hi, index_t n) : eigenvalues(std::size_t(n)) {
    const double pi = 3.14159265358979323846;
    double shift = 0, period = 1;  // lambda_k = 2 - 2 cos(pi (k + shift) / n / period)
    if (lo == PressureSide::periodic) forward = fft::Kind::r2hc, period = 0.5;
    else if (lo == PressureSide::neumann && hi == PressureSide::neumann) forward = fft::Kind::dct2;
    else if (lo == PressureSide::dirichlet && hi == PressureSide::dirichlet) forward = fft::Kind::dst2, shift = 1;
    else if (lo == PressureSide::neumann) forward = fft::Kind::dct4, shift = 0.5;
    else forward = fft::Kind::dst4, shift = 0.5;
    backward = fft::inverse(forward);
    for (index_t k = 0; k < n; ++k) {
      const double mode = forward == fft::Kind::r2hc ? double(std::min(k, n - k)) : double(k) + shift;
      eigenvalues[std::size_t(k)] = 2 - 2 * std::cos(pi * mode / double(n) / period);
    }
  }
  /// The transform's name pair, e.g. "DCT-II/III".
  const char* label() const {
    switch (forward) {
      case fft::Kind::r2hc: return "real DFT";
      case fft::Kind::dct2: return "DCT-II/III";
      case fft::Kind::dst2: return "DST-II/III";
      case fft::Kind::dct4: return "DCT-IV";
      default: return "DST-IV";
    }
  }
};

/// The passes over memory of one planned fft::Transform of kind along the named axis, appended
/// to passes: on the GPU a gather, the batched FFT and a scatter; on the CPU the FFTW call,
/// after a copy when it runs out of place.
inline void add_transform_passes(std::vector<std::string>& passes, const Context& ctx, fft::Kind kind, const char* axis,
                                 bool out_of_place) {
  const std::string what = std::string(fft::name(kind)) + " along " + axis;
  if (ctx.is_cuda()) {
    passes.push_back("gather for " + what), passes.push_back(what), passes.push_back("scatter after " + what);
    return;
  }
  if (out_of_place) passes.push_back("copy for " + what);
  passes.push_back(what);
}

/// The passes over memory of a fused spectral solve (multiplier2 / multiplier3) of rank dims;
/// multiply_in_inverse: the inverse transform multiplies as it loads (no pass of its own).
inline std::vector<std::string> fused_solve_passes(int dims, bool multiply_in_inverse = false) {
  const std::string d = std::to_string(dims) + "D";
  if (multiply_in_inverse) return {"gather", d + " real FFT", d + " complex-to-real FFT, multiplying as it loads", "scatter"};
  return {"gather", d + " real FFT", "multiply", d + " complex-to-real FFT", "scatter"};
}

/// spectrum(i, j) *= 1 / (lx(i) / hx^2 + ly(j) / hy^2) / norm, 0 for the null mode.
template <class T>
struct SpectralDivide {
  View<T, 2> s;
  View<const T, 1> lx, ly;
  T inv_hx2, inv_hy2, inv_norm;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const T lambda = lx(i) * inv_hx2 + ly(j) * inv_hy2;
    s(i, j) = lambda > T(0) ? s(i, j) * (inv_norm / lambda) : T(0);
  }
};

/// Where cell i of a dimension of n cells lies in the box mirrored across its Dirichlet side
/// (mirror 0: not mirrored; 1: the Dirichlet side is the high one; 2: the low one), and where its
/// odd image lies (-1 when not mirrored).
struct MirroredAxis {
  index_t n = 0;
  int mirror = 0;
  SIM_INLINE index_t cell(index_t i) const { return mirror == 2 ? i + n : i; }
  SIM_INLINE index_t image(index_t i) const { return mirror == 1 ? 2 * n - 1 - i : mirror == 2 ? n - 1 - i : index_t(-1); }
};

/// The mirrored box's right-hand side: b at each cell, -b at its odd image across each
/// Dirichlet side (+b at the image across both).
template <class T>
struct MirrorGather {
  View<const T, 2> b;
  fft::StagedView<T> staged;
  MirroredAxis x, y;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const T v = b(i, j);
    const index_t ci = x.cell(i), cj = y.cell(j), mi = x.image(i), mj = y.image(j);
    staged(ci, cj) = v;
    if (mi >= 0) staged(mi, cj) = -v;
    if (mj >= 0) staged(ci, mj) = -v;
    if (mi >= 0 && mj >= 0) staged(mi, mj) = v;
  }
};

/// This box's solution: the mirrored box's at each cell.
template <class T>
struct MirrorScatter {
  fft::StagedView<T> staged;
  View<T, 2> x;
  MirroredAxis ax, ay;
  SIM_INLINE void operator()(index_t i, index_t j) const { x(i, j) = staged(ax.cell(i), ay.cell(j)); }
};

template <class T>
class TransformPoisson {
 public:
  TransformPoisson() = default;
  /// The solver of grid's operator on ctx (grid must be transform-solvable: transform_unsupported is "").
  TransformPoisson(const Context& ctx, const PoissonGrid<T>& grid)
      : ctx_(ctx), nx_(grid.nx), ny_(grid.ny), inv_hx2_(grid.inv_hx2), inv_hy2_(grid.inv_hy2),
        x_axis_(grid.sides[0], grid.sides[1], grid.nx), y_axis_(grid.sides[2], grid.sides[3], grid.ny) {
    const Extents<2> shape = extents(nx_, ny_);
    const bool both = x_axis_.forward == y_axis_.forward;
    if (both && nx_ >= 2 && ny_ >= 2 && (x_axis_.forward == fft::Kind::dct2 || x_axis_.forward == fft::Kind::r2hc)) {
      fused_ = make_fused(ctx, x_axis_.forward == fft::Kind::dct2 ? fft::Basis2D::cosine : fft::Basis2D::fourier);
      return;
    }
    mirror_x_ = {nx_, mirror_of(x_axis_)}, mirror_y_ = {ny_, mirror_of(y_axis_)};
    if (mirror_x_.mirror >= 0 && mirror_y_.mirror >= 0 && nx_ >= 2 && ny_ >= 2) {
      mirrored_ = make_mirrored(ctx);
      return;
    }
    fx_ = fft::Transform<T, 2>(ctx, x_axis_.forward, shape, 0);
    fy_ = fft::Transform<T, 2>(ctx, y_axis_.forward, shape, 1);
    bx_ = fft::Transform<T, 2>(ctx, x_axis_.backward, shape, 0);
    by_ = fft::Transform<T, 2>(ctx, y_axis_.backward, shape, 1);
    spectrum_ = Array<T, 2>(ctx, shape);
    lx_ = Array<T, 1>::from_host(ctx, extents(nx_), std::vector<T>(x_axis_.eigenvalues.begin(), x_axis_.eigenvalues.end()));
    ly_ = Array<T, 1>::from_host(ctx, extents(ny_), std::vector<T>(y_axis_.eigenvalues.begin(), y_axis_.eigenvalues.end()));
    norm_ = double(fft::normalisation(x_axis_.forward, nx_)) * double(fft::normalisation(y_axis_.forward, ny_));
  }

  /// x = the solution of A x = b on the interior (x's ghosts untouched); asynchronous.
  void solve(const Field<T, 2>& b, Field<T, 2>& x) { solve(b.view(), x.view()); }
  /// The same on views (x may be a Field's interior; the two may not overlap).
  void solve(View<const T, 2> b, View<T, 2> x) {
    if (fused_) {
      (*fused_)(b, x);
      return;
    }
    if (mirrored_) {
      const fft::StagedView<T> staged = mirrored_->staged();
      for_each(ctx_, "poisson::mirror_gather", Box<2>{{0, 0}, {nx_, ny_}}, MirrorGather<T>{b, staged, mirror_x_, mirror_y_});
      mirrored_->apply_staged();
      for_each(ctx_, "poisson::mirror_scatter", Box<2>{{0, 0}, {nx_, ny_}}, MirrorScatter<T>{staged, x, mirror_x_, mirror_y_});
      return;
    }
    View<T, 2> s = spectrum_.view();
    fx_(b, s);
    fy_(s, s);
    for_each(ctx_, "poisson::spectral_divide", spectrum_.box(),
             SpectralDivide<T>{s, lx_.view(), ly_.view(), T(inv_hx2_), T(inv_hy2_), T(1.0 / norm_)});
    by_(s, s);
    bx_(s, x);
  }

  /// The fused 2D operator when the sides allow one (walls or periodic all round), else null:
  /// a caller may stage b into it and read the solution back itself (StagedView).
  const fft::SpectralMultiplier<T>* fused() const { return fused_.get(); }

  /// The transforms used, e.g. "DCT-II/III x DCT-II/III".
  std::string description() const {
    return std::string(x_axis_.label()) + " x " + y_axis_.label() +
           (mirrored_ ? " (one 2D cosine transform each way on the box mirrored across its Dirichlet sides)" : "");
  }

  /// The passes over memory of one solve, in order (kernels and library transform calls; the
  /// libraries' internal passes not counted).
  std::vector<std::string> passes() const {
    if (fused_ || mirrored_) return fused_solve_passes(2);
    std::vector<std::string> p;
    add_transform_passes(p, ctx_, x_axis_.forward, "x", true);
    add_transform_passes(p, ctx_, y_axis_.forward, "y", false);
    p.push_back("divide");
    add_transform_passes(p, ctx_, y_axis_.backward, "y", false);
    add_transform_passes(p, ctx_, x_axis_.backward, "x", true);
    return p;
  }

 private:
  /// The 2D multiplier 1 / (lambda_x / hx^2 + lambda_y / hy^2) (0 for the null mode) in basis.
  std::unique_ptr<fft::SpectralMultiplier<T>> make_fused(const Context& ctx, fft::Basis2D basis) const {
    const Extents<2> ms = fft::SpectralMultiplier<T>::multiplier_shape(basis, extents(nx_, ny_));
    std::vector<T> m(std::size_t(ms.size()));
    for (index_t i = 0; i < ms.n[0]; ++i)
      for (index_t j = 0; j < ms.n[1]; ++j) {
        // the fourier multiplier is indexed by frequency (i, j); the axes' eigenvalues by
        // halfcomplex position, whose frequency min(k, n - k) gives the same value at k = i
        const double lambda = x_axis_.eigenvalues[std::size_t(i)] * inv_hx2_ + y_axis_.eigenvalues[std::size_t(j)] * inv_hy2_;
        m[std::size_t(i * ms.n[1] + j)] = lambda > 0 ? T(1.0 / lambda) : T(0);
      }
    return std::make_unique<fft::SpectralMultiplier<T>>(ctx, basis, extents(nx_, ny_), Array<T, 2>::from_host(ctx, ms, m));
  }

  /// How an axis is mirrored: 0 walls on both sides (DCT-II), 1 Dirichlet high (DCT-IV), 2
  /// Dirichlet low (DST-IV), -1 it cannot be (periodic, or Dirichlet on both sides).
  static int mirror_of(const TransformAxis& a) {
    return a.forward == fft::Kind::dct2 ? 0 : a.forward == fft::Kind::dct4 ? 1 : a.forward == fft::Kind::dst4 ? 2 : -1;
  }

  /// The cosine multiplier of the mirrored box: 1 / (lambda_x / hx^2 + lambda_y / hy^2) with the
  /// doubled dimensions' Neumann eigenvalues 2 - 2 cos(pi k / 2n) (0 for the null mode, which an
  /// odd right-hand side does not excite).
  std::unique_ptr<fft::SpectralMultiplier<T>> make_mirrored(const Context& ctx) const {
    const index_t n1 = mirror_x_.mirror ? 2 * nx_ : nx_, n2 = mirror_y_.mirror ? 2 * ny_ : ny_;
    const TransformAxis ax(PressureSide::neumann, PressureSide::neumann, n1), ay(PressureSide::neumann, PressureSide::neumann, n2);
    std::vector<T> m(std::size_t(n1 * n2));
    for (index_t i = 0; i < n1; ++i)
      for (index_t j = 0; j < n2; ++j) {
        const double lambda = ax.eigenvalues[std::size_t(i)] * inv_hx2_ + ay.eigenvalues[std::size_t(j)] * inv_hy2_;
        m[std::size_t(i * n2 + j)] = lambda > 0 ? T(1.0 / lambda) : T(0);
      }
    return std::make_unique<fft::SpectralMultiplier<T>>(ctx, fft::Basis2D::cosine, extents(n1, n2),
                                                        Array<T, 2>::from_host(ctx, extents(n1, n2), m));
  }

  Context ctx_;
  index_t nx_ = 0, ny_ = 0;
  double inv_hx2_ = 1, inv_hy2_ = 1, norm_ = 1;
  TransformAxis x_axis_{PressureSide::neumann, PressureSide::neumann, 0}, y_axis_{PressureSide::neumann, PressureSide::neumann, 0};
  std::unique_ptr<fft::SpectralMultiplier<T>> fused_;     // walls or periodic all round
  std::unique_ptr<fft::SpectralMultiplier<T>> mirrored_;  // walls and Dirichlet sides, one Dirichlet side per dimension at most
  MirroredAxis mirror_x_, mirror_y_;
  fft::Transform<T, 2> fx_, fy_, bx_, by_;  // the other side combinations
  Array<T, 2> spectrum_;
  Array<T, 1> lx_, ly_;
};

// ---------------------------------------------------------------------------------------------
// 3D

/// A 3D box of cells for the pressure equation: cells, 1 / h^2 per axis, and the sides
/// (x-low, x-high, y-low, y-high, z-low, z-high).
struct PoissonBox3 {
  index_t n[3] = {1, 1, 1};
  double inv_h2[3] = {1, 1, 1};
  PressureSide sides[6] = {};
  /// True when no side is Dirichlet: A has the constants as null space.
  bool singular() const {
    for (PressureSide s : sides)
      if (s == PressureSide::dirichlet) return false;
    return true;
  }
};

/// Why box cannot be solved by transforms ("" when it can): a dimension periodic on one side only.
inline std::string transform_unsupported(const PoissonBox3& box) {
  for (int d = 0; d < 3; ++d)
    if ((box.sides[2 * d] == PressureSide::periodic) != (box.sides[2 * d + 1] == PressureSide::periodic))
      return std::string("dimension ") + "xyz"[d] + " is periodic on one side only";
  return "";
}

/// The 7-point operator A p = -lap(p) of a 3D box without obstacles, as kernels see it
/// (trivially copyable): each face link has coefficient 1 inside, side_coefficient() on a
/// domain side (0 Neumann, 2 Dirichlet p = 0 on the face, 1 periodic, wrapping).
template <class T>
struct Poisson7 {
  index_t n[3] = {1, 1, 1};
  T inv_h2[3] = {1, 1, 1};
  T side_c[6] = {0, 0, 0, 0, 0, 0};
  bool periodic[3] = {false, false, false};

  /// The operator of box.
  static Poisson7 of(const PoissonBox3& box) {
    Poisson7 s;
    for (int d = 0; d < 3; ++d) {
      s.n[d] = box.n[d], s.inv_h2[d] = T(box.inv_h2[d]);
      s.side_c[2 * d] = side_coefficient<T>(box.sides[2 * d]);
      s.side_c[2 * d + 1] = side_coefficient<T>(box.sides[2 * d + 1]);
      s.periodic[d] = box.sides[2 * d] == PressureSide::periodic;
    }
    return s;
  }
  /// Coefficient of the face of dimension d at face index f in [0, n[d]] (f = 0: the low side).
  SIM_INLINE T link(int d, index_t f) const { return f == 0 ? side_c[2 * d] : f == n[d] ? side_c[2 * d + 1] : T(1); }
  /// Index q of dimension d wrapped into the box when periodic; -1 when outside and not periodic.
  SIM_INLINE index_t wrap(int d, index_t q) const {
    if (q >= 0 && q < n[d]) return q;
    if (!periodic[d]) return -1;
    return q < 0 ? q + n[d] : q - n[d];
  }
  /// p at (i, j, k), any one index one outside the box: wrapped when periodic, else 0.
  template <class P>
  SIM_INLINE T at(const P& p, index_t i, index_t j, index_t k) const {
    i = wrap(0, i), j = wrap(1, j), k = wrap(2, k);
    return i < 0 || j < 0 || k < 0 ? T(0) : T(p(i, j, k));
  }
  /// (A p)(i, j, k).
  template <class P>
  SIM_INLINE T apply(const P& p, index_t i, index_t j, index_t k) const {
    const T c = p(i, j, k);
    const T lx = link(0, i), hx = link(0, i + 1), ly = link(1, j), hy = link(1, j + 1), lz = link(2, k), hz = link(2, k + 1);
    return (lx * (c - at(p, i - 1, j, k)) + hx * (c - at(p, i + 1, j, k))) * inv_h2[0] +
           (ly * (c - at(p, i, j - 1, k)) + hy * (c - at(p, i, j + 1, k))) * inv_h2[1] +
           (lz * (c - at(p, i, j, k - 1)) + hz * (c - at(p, i, j, k + 1))) * inv_h2[2];
  }
};

/// out = A p (Poisson7).
template <class T>
struct Poisson7Apply {
  Poisson7<T> s;
  View<const T, 3> p;
  View<T, 3> out;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const { out(i, j, k) = s.apply(p, i, j, k); }
};

/// spectrum(i, j, k) *= 1 / (l0(i) c0 + l1(j) c1 + l2(k) c2) / norm, 0 for the null mode.
template <class T>
struct SpectralDivide3 {
  View<T, 3> s;
  View<const T, 1> l0, l1, l2;
  T c0, c1, c2, inv_norm;
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    const T lambda = l0(i) * c0 + l1(j) * c1 + l2(k) * c2;
    s(i, j, k) = lambda > T(0) ? s(i, j, k) * (inv_norm / lambda) : T(0);
  }
};

/// The exact solve of A p = b (Poisson7) on a 3D box by one transform per axis each way.
template <class T>
class TransformPoisson3 {
 public:
  TransformPoisson3() = default;
  /// The solver of box's operator on ctx; throws Error when transform_unsupported(box) says why not.
  TransformPoisson3(const Context& ctx, const PoissonBox3& box) : ctx_(ctx), box_(box) {
    if (const std::string why = transform_unsupported(box); !why.empty()) throw Error("the transform solver: " + why);
    const Extents<3> shape = extents(box.n[0], box.n[1], box.n[2]);
    norm_ = 1;
    for (int d = 0; d < 3; ++d) axes_.emplace_back(box.sides[2 * d], box.sides[2 * d + 1], box.n[d]);
    if (fourier_all_round()) {
      fused_ = make_fused(ctx, shape);
      return;
    }
    for (int d = 0; d < 3; ++d) {
      forward_[d] = fft::Transform<T, 3>(ctx, axes_[std::size_t(d)].forward, shape, d);
      backward_[d] = fft::Transform<T, 3>(ctx, axes_[std::size_t(d)].backward, shape, d);
      const std::vector<double>& e = axes_[std::size_t(d)].eigenvalues;
      eigenvalues_[d] = Array<T, 1>::from_host(ctx, extents(box.n[d]), std::vector<T>(e.begin(), e.end()));
      norm_ *= double(fft::normalisation(axes_[std::size_t(d)].forward, box.n[d]));
    }
    spectrum_ = Array<T, 3>(ctx, shape);
  }

  /// x = the solution of A x = b (x may be a Field's interior; the two may not overlap); asynchronous.
  void solve(View<const T, 3> b, View<T, 3> x) {
    if (fused_) {
      (*fused_)(b, x);
      return;
    }
    View<T, 3> s = spectrum_.view();
    forward_[0](b, s);
    forward_[1](s, s);
    forward_[2](s, s);
    for_each(ctx_, "poisson::spectral_divide_3d", spectrum_.box(),
             SpectralDivide3<T>{s, eigenvalues_[0].view(), eigenvalues_[1].view(), eigenvalues_[2].view(),
                                T(box_.inv_h2[0]), T(box_.inv_h2[1]), T(box_.inv_h2[2]), T(1.0 / norm_)});
    backward_[2](s, s);
    backward_[1](s, s);
    backward_[0](s, x);
  }
  /// The same on fields (interiors).
  void solve(const Field<T, 3>& b, Field<T, 3>& x) { solve(b.view(), x.view()); }

  /// The operator the solver inverts.
  Poisson7<T> stencil() const { return Poisson7<T>::of(box_); }

  /// The 3D Fourier operator when the box is periodic all round (at least 2 cells a side),
  /// else null: a caller may stage b into it and read the solution back itself (StagedView3).
  const fft::FourierMultiplier3<T>* fused() const { return fused_.get(); }

  /// The passes over memory of one solve, in order (kernels and library transform calls; the
  /// libraries' internal passes not counted).
  std::vector<std::string> passes() const {
    if (fused_) return fused_solve_passes(3, fused_->multiplies_in_transform());
    static const char* names[3] = {"x", "y", "z"};
    std::vector<std::string> p;
    for (int d = 0; d < 3; ++d) add_transform_passes(p, ctx_, axes_[std::size_t(d)].forward, names[d], d == 0);
    p.push_back("divide");
    for (int d = 2; d >= 0; --d) add_transform_passes(p, ctx_, axes_[std::size_t(d)].backward, names[d], d == 0);
    return p;
  }

  /// The transforms used, e.g. "real DFT x real DFT x DCT-II/III".
  std::string description() const {
    return std::string(axes_[0].label()) + " x " + axes_[1].label() + " x " + axes_[2].label() +
           (fused_ ? " (one 3D real FFT each way; the multiplication in " + fused_->multiplication() + ")" : "");
  }

 private:
  /// True when every axis is periodic with at least 2 cells.
  bool fourier_all_round() const {
    for (int d = 0; d < 3; ++d)
      if (axes_[std::size_t(d)].forward != fft::Kind::r2hc || box_.n[d] < 2) return false;
    return true;
  }
  /// The 3D multiplier 1 / sum_d lambda_d(k_d) / h_d^2 (0 for the null mode), indexed by
  /// frequency; an axis's eigenvalue at halfcomplex position k is that of frequency k.
  std::unique_ptr<fft::FourierMultiplier3<T>> make_fused(const Context& ctx, const Extents<3>& shape) const {
    const Extents<3> ms = fft::FourierMultiplier3<T>::multiplier_shape(shape);
    std::vector<T> m(std::size_t(ms.size()));
    for (index_t i = 0; i < ms.n[0]; ++i)
      for (index_t j = 0; j < ms.n[1]; ++j)
        for (index_t k = 0; k < ms.n[2]; ++k) {
          const double lambda = axes_[0].eigenvalues[std::size_t(i)] * box_.inv_h2[0] +
                                axes_[1].eigenvalues[std::size_t(j)] * box_.inv_h2[1] +
                                axes_[2].eigenvalues[std::size_t(k)] * box_.inv_h2[2];
          m[std::size_t((i * ms.n[1] + j) * ms.n[2] + k)] = lambda > 0 ? T(1.0 / lambda) : T(0);
        }
    return std::make_unique<fft::FourierMultiplier3<T>>(ctx, shape, Array<T, 3>::from_host(ctx, ms, m));
  }

  Context ctx_;
  PoissonBox3 box_;
  std::vector<TransformAxis> axes_;
  fft::Transform<T, 3> forward_[3], backward_[3];
  Array<T, 1> eigenvalues_[3];
  Array<T, 3> spectrum_;
  double norm_ = 1;
  std::shared_ptr<fft::FourierMultiplier3<T>> fused_;  // periodic all round
};

}  // namespace sim::solvers
