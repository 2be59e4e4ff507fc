#pragma once
// Geometric multigrid for the cell-centred Poisson operator of poisson.hpp: red-black
// Gauss-Seidel smoothing, full-weighting restriction that is the transpose of bilinear
// prolongation (R = P^T / 4), coarse operators rediscretised on grids twice as coarse, and
// an exact dense Cholesky solve on the coarsest grid. Pre-smoothing runs red then black and
// post-smoothing black then red, so one V-cycle is a symmetric operator: it can precondition CG.
// On one rank the large levels smooth on tiles (mg_tiles.hpp: two passes over the level per
// V-cycle) and the small ones run as one launch (MgBlockCycle); both give the same bits as
// the pass-by-pass cycle.
// On several ranks the fine levels are split like the finest (boxes halve with the grid),
// ghosts are exchanged before each kernel that reads neighbours (so each colour of a sweep
// sees its neighbours' latest values, as on one rank), and once the boxes get small (their
// kernels cost less than the exchanges) or stop halving, the level is gathered onto every
// rank, which runs the rest of the V-cycle on the whole coarse grid redundantly: the same
// V-cycle as on one rank, with a few exchanges per fine level and none on the coarse ones.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/kernels/one_block.hpp"
#include "core/runtime/tuning.hpp"
#include "solvers/mg_tiles.hpp"
#include "solvers/mg_transfer.hpp"
#include "solvers/poisson.hpp"

namespace sim::solvers {

/// How a Poisson solve ended.
struct SolveStats {
  int iterations = 0;
  double residual = 0;  ///< final ||b - A x|| / ||b||
  bool converged = false;
  bool stalled = false;  ///< stopped early: the residual stopped falling (the precision's floor)
};

/// V-cycles from a relative residual `start` until it is at most rel_tol, max_cycles ran, or 10
/// cycles in a row gained less than a factor 2 (the precision's floor: stalled). cycle() runs
/// one V-cycle and returns the new relative residual.
template <class Cycle>
SolveStats cycle_until(double start, double rel_tol, int max_cycles, Cycle&& cycle) {
  SolveStats st;
  st.residual = start;
  double checkpoint = st.residual;
  while (st.residual > rel_tol && st.iterations < max_cycles) {
    st.residual = cycle();
    ++st.iterations;
    if (st.iterations % 10 == 0) {
      if (!(st.residual < 0.5 * checkpoint)) {
        st.stalled = st.residual > rel_tol;
        break;
      }
      checkpoint = st.residual;
    }
  }
  st.converged = st.residual <= rel_tol;
  return st;
}

/// x = M b on the coarsest level, M the dense solution operator (row-major over the cells, in
/// double; the projection onto the operator's range is folded in when it is singular).
template <class T>
struct MgCoarseDense {
  const double* m;
  index_t n, ny;
  View<const T, 2> b;
  View<T, 2> x;
  SIM_INLINE void operator()(index_t i, index_t j) const {
    const double* row = m + (i * ny + j) * n;
    double acc = 0;
    for (index_t k = 0; k < n; ++k) acc += math::mul_rn(row[k], double(b(k / ny, k % ny)));
    x(i, j) = T(acc);
  }
};

/// One level as the one-block coarse cycle reads it: its operator, fields and the
/// interpolation to the next coarser level.
template <class T>
struct MgLevelRefs {
  PoissonStencil<T> stencil;
  View<T, 2> x, r;
  View<const T, 2> b;
  View<T, 2> b_out;  ///< b, written by the restriction from the finer level (null at the entry level)
  Interp1D<T> ix, iy;
  View<const T, 2> scale;  ///< the transfers' scaling around obstacles (mg_transfer.hpp; null: none)
  SIM_INLINE Box<2> box() const { return Box<2>{{0, 0}, {stencil.nx, stencil.ny}}; }
};

/// The most levels one block runs.
constexpr int mg_block_levels = 8;

/// The V-cycle from level[0] down to level[count - 1] (solved by the dense operator) and back,
/// the same passes as Multigrid::cycle, run by one team (core/kernels/one_block.hpp): one launch
/// instead of a dozen per level. x of level[0] holds the initial guess; the others start at 0.
template <class T>
struct MgBlockCycle {
  MgLevelRefs<T> level[mg_block_levels];
  int count = 0, pre = 2, post = 2;
  const double* dense = nullptr;
  index_t dense_n = 0;

  bool entry_zero = false;  ///< x of level[0] is 0 (the coarser levels' always start at 0)

  SIM_INLINE void smooth(const BlockTeam& team, const MgLevelRefs<T>& L, int sweeps, bool red_first, bool from_zero) const {
    const Box<2> half{{0, 0}, {L.stencil.nx, (L.stencil.ny + 1) / 2}};
    for (int s = 0; s < sweeps; ++s)
      for (int c = 0; c < 2; ++c) {
        const int colour = red_first ? c : 1 - c;
        if (from_zero && s == 0 && c == 0) team.for_each(L.box(), PoissonGaussSeidelFromZero<T>{L.stencil, L.x, L.b, colour});
        else team.for_each(half, PoissonGaussSeidel<T>{L.stencil, L.x, L.b, colour});
        team.sync();
      }
  }
  SIM_INLINE void operator()(const BlockTeam& team) const {
    for (int l = 0; l + 1 < count; ++l) {
      const MgLevelRefs<T>&L = level[l], &C = level[l + 1];
      smooth(team, L, pre, true, l > 0 || entry_zero);
      team.for_each(L.box(), PoissonResidual<T>{L.stencil, L.x, L.b, L.r});
      team.sync();
      team.for_each(C.box(), MgRestrict<T>{L.ix, L.iy, L.stencil.nx, L.stencil.ny, L.r, C.b_out, C.stencil, L.scale});
      team.sync();
    }
    const MgLevelRefs<T>& last = level[count - 1];
    team.for_each(last.box(), MgCoarseDense<T>{dense, dense_n, last.stencil.ny, last.b, last.x});
    team.sync();
    for (int l = count - 2; l >= 0; --l) {
      const MgLevelRefs<T>&L = level[l], &C = level[l + 1];
      team.for_each(L.box(), MgProlongAdd<T>{L.ix, L.iy, C.x, L.x, L.scale});
      team.sync();
      smooth(team, L, post, false, false);
    }
  }
};

/// Multigrid options.
struct MgOptions {
  /// Red-black sweeps before and after the coarse correction (equal: CG needs a symmetric
  /// preconditioner); 0: the precision's default, 1 in float32 and 2 in float64 (a sweep on the
  /// fine levels costs more than the iterations it saves at float32's tolerances; docs/performance.md).
  int pre_smooth = 0, post_smooth = 0;
  /// pre_smooth and post_smooth were chosen by a config key (e.g. the fluid's
  /// model.pressure_mg_smooth): SIMKIT_MG_SMOOTH does not replace them.
  bool smoothing_from_config = false;
  /// Coarsen while a level has more cells than this (and even sizes). The coarsest level is
  /// solved by a dense operator in one pass, so a coarsest of 256 cells saves a level's dozen
  /// launches over 64 for the price of 256 multiply-adds per cell.
  index_t coarsest_cells = 256;
  /// On several ranks: gather a level onto every rank once every box has at most this many
  /// cells (0: 128^2 on GPUs, where each exchange costs more than a small level's kernels; 16^2 on CPUs).
  index_t gather_cells = 0;
  /// One rank: the levels from the first with at most this many cells down run as one launch
  /// (core/kernels/one_block.hpp) instead of a dozen launches each; 0 runs every level by itself.
  /// (Above about 32^2 cells one block is slower than separate launches, which use the whole GPU.)
  index_t block_cells = 32 * 32;
  /// One rank: levels of even sizes above block_cells smooth on tiles (mg_tiles.hpp), the same
  /// values for a third of the memory traffic; false runs every colour pass by itself.
  bool tiles = true;
  /// Around obstacles, interpolate fine fluid cells from fluid coarse cells only (mg_transfer.hpp);
  /// false: plain bilinear weights (the cylinder's mg_cg: 7-8 iterations a solve against 4-5).
  bool fluid_interpolation = true;
};

/// opt with the multigrid knobs that are set (core/runtime/tuning.hpp) in place of its fields
/// (the smoothing counts only where no config key chose them).
inline MgOptions tuned(MgOptions opt) {
  const tuning::Values& k = tuning::current();
  if (k.mg_pre_smooth > 0 && !opt.smoothing_from_config) opt.pre_smooth = k.mg_pre_smooth, opt.post_smooth = k.mg_post_smooth;
  if (k.mg_block_cells >= 0) opt.block_cells = index_t(k.mg_block_cells);
  if (k.mg_tiles >= 0) opt.tiles = k.mg_tiles == 1;
  if (k.mg_gather_cells > 0) opt.gather_cells = index_t(k.mg_gather_cells);
  return opt;
}

template <class T>
class Multigrid {
 public:
  /// Builds the hierarchy of grid split as part says (collective over part's ranks); coarsens
  /// while the grid has more than opt.coarsest_cells cells and every box halves.
  Multigrid(const Context& ctx, const PoissonGrid<T>& grid, const PoissonPartition& part, MgOptions opt = {}) : opt_(opt) {
    if (opt_.pre_smooth == 0) opt_.pre_smooth = sizeof(T) == 4 ? 1 : 2;
    if (opt_.post_smooth == 0) opt_.post_smooth = sizeof(T) == 4 ? 1 : 2;
    opt_ = tuned(opt_);
    PoissonGrid<T> g = grid;
    PoissonPartition p = part;
    for (int k = 0; k < 4; ++k) sides_[k] = grid.sides[k];
    levels_.push_back(make_poisson_level(ctx, g, p));
    const index_t gather = gather_threshold(ctx);
    while (!(g.nx * g.ny <= opt_.coarsest_cells || g.nx % 2 || g.ny % 2 || g.nx < 4 || g.ny < 4)) {
      if (p.boxes.size() > 1 && (!p.halvable() || largest_box(p) <= gather)) {
        whole_ = std::make_unique<Multigrid<T>>(ctx, g, PoissonPartition::whole(g.nx, g.ny), opt_);
        whole_b_ = whole_->finest().make_field(), whole_x_ = whole_->finest().make_field();
        break;
      }
      const PoissonGrid<T> fine = std::move(g);
      const Subdomain mine = p.mine();
      g = coarsen(fine), p = p.coarser();
      levels_.push_back(make_poisson_level(ctx, g, p));
      const int l = int(levels_.size()) - 2;  // the transfers between level l (fine) and l + 1 (g)
      scale_.push_back(opt_.fluid_interpolation && fine.has_links() ? scale_field(l, fine, g, mine) : Field<T, 2>());
    }
    if (!whole_ && g.nx * g.ny > 4096)
      throw Error("multigrid: the grid halves only down to " + std::to_string(g.nx) + " x " + std::to_string(g.ny) +
                  " cells, too many for the coarsest direct solve; use cell counts with more factors of 2 (e.g. "
                  "multiples of 64), or pressure_solver = \"cg\"");
    coarse_boxes_ = p.boxes;
    coarse_ny_ = g.ny;
    for (std::size_t l = 0; l < levels_.size(); ++l) {
      residuals_.push_back(levels_[l].make_field());
      tiled_guesses_.push_back(tiled(int(l)) ? levels_[l].make_field() : Field<T, 2>());
      if (l > 0) coarse_rhs_.push_back(levels_[l].make_field()), coarse_solutions_.push_back(levels_[l].make_field());
      else coarse_rhs_.emplace_back(), coarse_solutions_.emplace_back();
    }
    if (!whole_) factor_coarsest(g);
    if (!whole_ && coarse_boxes_.size() == 1 && dense_n_ <= dense_cells_max) form_dense_coarse(levels_.back().ctx);
    if (dense_.size() > 0 && opt_.block_cells > 0)  // the first level small enough, if the rest fit in a block's cycle
      for (std::size_t l = 0; l < levels_.size(); ++l)
        if (levels_[l].stencil.nx * levels_[l].stencil.ny <= opt_.block_cells) {
          if (levels_.size() - l <= std::size_t(mg_block_levels)) block_from_ = int(l);
          break;
        }
  }

  /// True when a V-cycle never waits for the host (one rank, the coarsest solve on the device):
  /// it may be recorded (graph.hpp).
  bool recordable() const { return dense_.size() > 0; }

  /// Number of levels, finest included (those of the gathered coarse grid too).
  int levels() const { return int(levels_.size()) + (whole_ ? whole_->levels() - 1 : 0); }
  /// The levels split over the ranks, finest first (those below are gathered onto every rank).
  std::vector<PoissonLevel<T>>& split_levels() { return levels_; }
  /// The finest level.
  const PoissonLevel<T>& finest() const { return levels_.front(); }
  PoissonLevel<T>& finest() { return levels_.front(); }

  /// One V-cycle on A x = b from the current x (finest level).
  void vcycle(const Field<T, 2>& b, Field<T, 2>& x) { cycle(0, b, x, false); }

  /// z = M r: one V-cycle from zero (the preconditioner).
  void precondition(const Field<T, 2>& r, Field<T, 2>& z) { cycle(0, r, z, true); }

  /// Standalone multigrid: V-cycles until ||b - A x|| <= rel_tol ||b||, or until 10 cycles in a
  /// row gain less than a factor 2 (the precision's floor: float32 at 4096^2 sits near 1e-4),
  /// which is reported as not converged instead of cycling to max_cycles.
  SolveStats solve(const Field<T, 2>& b, Field<T, 2>& x, double rel_tol, int max_cycles) {
    SolveStats st;
    const double bnorm = std::sqrt(levels_[0].dot(b, b));
    if (bnorm == 0) {
      x.fill(T(0));
      st.converged = true;
      return st;
    }
    return cycle_until(residual_norm(b, x) / bnorm, rel_tol, max_cycles, [&] {
      vcycle(b, x);
      return residual_norm(b, x) / bnorm;
    });
  }

  /// ||b - A x|| on the finest level (uses a work field; exchanges x's ghosts).
  double residual_norm(const Field<T, 2>& b, Field<T, 2>& x) {
    PoissonLevel<T>& L = levels_[0];
    L.residual(b, x, residuals_[0]);
    return std::sqrt(L.dot(residuals_[0], residuals_[0]));
  }

 private:
  Interp1D<T> interp(int level, int dim) const {
    const PoissonStencil<T>& c = levels_[std::size_t(level) + 1].stencil;
    Interp1D<T> f = side_interp(dim, dim == 0 ? c.nx : c.ny, dim == 0 ? c.periodic_x : c.periodic_y);
    f.halo_lo = dim == 0 ? c.halo_x[0] : c.halo_y[0];
    f.halo_hi = dim == 0 ? c.halo_x[1] : c.halo_y[1];
    return f;
  }

  /// The interpolation along dim to n_coarse coarse cells without halos (a whole grid, or a
  /// box before its halos), the sides' signs from the grid's pressure sides.
  Interp1D<T> side_interp(int dim, index_t n_coarse, bool periodic) const {
    Interp1D<T> f;
    f.n_coarse = n_coarse;
    f.periodic = periodic;
    f.sign_lo = sides_[2 * dim] == PressureSide::dirichlet ? T(-1) : T(1);
    f.sign_hi = sides_[2 * dim + 1] == PressureSide::dirichlet ? T(-1) : T(1);
    return f;
  }

  /// Level l's box (mine, of the whole grid f) of the transfers' scaling to the whole grid c,
  /// ghosts on shared sides included (the restriction reads them).
  Field<T, 2> scale_field(int l, const PoissonGrid<T>& f, const PoissonGrid<T>& c, const Subdomain& mine) {
    const std::vector<T> whole = interpolation_scale(f, c, side_interp(0, c.nx, sides_[0] == PressureSide::periodic),
                                                     side_interp(1, c.ny, sides_[2] == PressureSide::periodic));
    PoissonLevel<T>& L = levels_[std::size_t(l)];
    const index_t bx = mine.cells[0], by = mine.cells[1];
    std::vector<T> box(std::size_t(bx * by));
    for (index_t i = 0; i < bx; ++i)
      for (index_t j = 0; j < by; ++j) box[std::size_t(i * by + j)] = whole[std::size_t((mine.offset[0] + i) * f.ny + mine.offset[1] + j)];
    Field<T, 2> out = L.make_field();
    detail::copy_from_host<T, 2>(L.ctx, box.data(), out.view());
    L.exchange(out);
    return out;
  }

  /// Level l's transfers' scaling (null without obstacles or with plain bilinear weights).
  View<const T, 2> scale(int l) const {
    const Field<T, 2>& f = scale_[std::size_t(l)];
    return f.view().ptr ? f.view() : View<const T, 2>{};
  }

  /// opt_.gather_cells, else the backend's default.
  index_t gather_threshold(const Context& ctx) const {
    if (opt_.gather_cells > 0) return opt_.gather_cells;
    return ctx.is_cuda() ? 128 * 128 : 16 * 16;
  }

  /// The most cells of any box of p.
  static index_t largest_box(const PoissonPartition& p) {
    index_t m = 0;
    for (const Subdomain& b : p.boxes) m = std::max(m, b.cells[0] * b.cells[1]);
    return m;
  }

  /// Red-black Gauss-Seidel sweeps; from_zero: x is 0 on entry (its values, ghosts included,
  /// are not read: the first colour's pass writes every cell).
  void smooth(PoissonLevel<T>& L, const Field<T, 2>& b, Field<T, 2>& x, int sweeps, bool red_first, bool from_zero) {
    const Box<2> half{{0, 0}, {L.stencil.nx, (L.stencil.ny + 1) / 2}};
    for (int s = 0; s < sweeps; ++s)
      for (int c = 0; c < 2; ++c) {
        const int colour = red_first ? c : 1 - c;
        if (from_zero && s == 0 && c == 0) {
          for_each(L.ctx, "mg::gauss_seidel_from_zero", L.box(), PoissonGaussSeidelFromZero<T>{L.stencil, x.view(), b.view(), colour});
          continue;
        }
        L.exchange_faces(x);
        for_each(L.ctx, "mg::gauss_seidel", half, PoissonGaussSeidel<T>{L.stencil, x.view(), b.view(), colour});
      }
  }

  /// True when level l (not the last) smooths on tiles: one rank, even sizes, above the one-block
  /// levels, and no obstacle (whose per-face links the tiles read from memory cell by cell: the
  /// cylinder ran slower on tiles than level by level).
  bool tiled(int l) const {
    const PoissonStencil<T>& s = levels_[std::size_t(l)].stencil;
    const bool shared = s.halo_x[0] || s.halo_x[1] || s.halo_y[0] || s.halo_y[1];
    return opt_.tiles && !shared && !s.has_links && s.nx % 2 == 0 && s.ny % 2 == 0 && s.nx * s.ny > opt_.block_cells;
  }

  /// The tiles of level l.
  Box<2> tiles(int l) const {
    const PoissonStencil<T>& s = levels_[std::size_t(l)].stencil;
    return Box<2>{{0, 0}, {(s.nx + mg_tile_rows - 1) / mg_tile_rows, (s.ny + mg_tile_cols - 1) / mg_tile_cols}};
  }

  /// One V-cycle on level l from the guess in x (x_zero: the guess is 0, and x may hold anything).
  void cycle(int l, const Field<T, 2>& b, Field<T, 2>& x, bool x_zero) {
    if (l == block_from_) return block_cycle(b, x, x_zero);
    PoissonLevel<T>& L = levels_[std::size_t(l)];
    if (std::size_t(l) + 1 == levels_.size()) return whole_ ? cycle_whole(b, x) : solve_coarsest(b, x);
    if (tiled(l)) return tiled_cycle(l, b, x, x_zero);
    Field<T, 2>& r = residuals_[std::size_t(l)];
    smooth(L, b, x, opt_.pre_smooth, true, x_zero);
    L.residual(b, x, r);
    L.exchange(r);
    PoissonLevel<T>& C = levels_[std::size_t(l) + 1];
    Field<T, 2>& bc = coarse_rhs_[std::size_t(l) + 1];
    Field<T, 2>& xc = coarse_solutions_[std::size_t(l) + 1];
    for_each(C.ctx, "mg::restrict", C.box(),
             MgRestrict<T>{interp(l, 0), interp(l, 1), L.stencil.nx, L.stencil.ny, r.view(), bc.view(), C.stencil, scale(l)});
    cycle(l + 1, bc, xc, true);
    C.exchange(xc);
    for_each(L.ctx, "mg::prolong_add", L.box(), MgProlongAdd<T>{interp(l, 0), interp(l, 1), xc.view(), x.view(), scale(l)});
    smooth(L, b, x, opt_.post_smooth, false, false);
  }

  /// cycle() on a tiled level: pre-smoothing, residual and restriction in one pass over the
  /// level (x into the work field t), prolongation and post-smoothing in another (t into x).
  void tiled_cycle(int l, const Field<T, 2>& b, Field<T, 2>& x, bool x_zero) {
    PoissonLevel<T>& L = levels_[std::size_t(l)];
    PoissonLevel<T>& C = levels_[std::size_t(l) + 1];
    Field<T, 2>& bc = coarse_rhs_[std::size_t(l) + 1];
    Field<T, 2>& xc = coarse_solutions_[std::size_t(l) + 1];
    Field<T, 2>& t = tiled_guesses_[std::size_t(l)];
    MgTileSmooth<T> pre{L.stencil, x.view(), t.view(), b.view()};
    pre.passes = 2 * opt_.pre_smooth, pre.first_colour = 0, pre.from_zero = x_zero;
    pre.restrict_to = true;
    pre.res = MgRestrict<T>{interp(l, 0), interp(l, 1), L.stencil.nx, L.stencil.ny, {}, bc.view(), C.stencil};
    for_each_tile(L.ctx, "mg::smooth_restrict_tiles", tiles(l), pre.scratch_bytes(), pre);
    cycle(l + 1, bc, xc, true);
    MgTileSmooth<T> post{L.stencil, t.view(), x.view(), b.view()};
    post.passes = 2 * opt_.post_smooth, post.first_colour = 1;
    post.prolong = true;
    post.pro = MgProlongAdd<T>{interp(l, 0), interp(l, 1), xc.view(), {}};
    for_each_tile(L.ctx, "mg::prolong_smooth_tiles", tiles(l), post.scratch_bytes(), post);
  }

  /// The V-cycle from level block_from_ down, as one launch (MgBlockCycle).
  void block_cycle(const Field<T, 2>& b, Field<T, 2>& x, bool x_zero) {
    MgBlockCycle<T> k;
    k.entry_zero = x_zero;
    k.count = int(levels_.size()) - block_from_, k.pre = opt_.pre_smooth, k.post = opt_.post_smooth;
    k.dense = dense_.data(), k.dense_n = dense_n_;
    for (int i = 0; i < k.count; ++i) {
      const std::size_t l = std::size_t(block_from_ + i);
      MgLevelRefs<T>& R = k.level[i];
      R.stencil = levels_[l].stencil;
      R.r = residuals_[l].view();
      if (i == 0) R.x = x.view(), R.b = b.view();
      else R.x = coarse_solutions_[l].view(), R.b = coarse_rhs_[l].view(), R.b_out = coarse_rhs_[l].view();
      if (l + 1 < levels_.size()) R.ix = interp(int(l), 0), R.iy = interp(int(l), 1), R.scale = scale(int(l));
    }
    one_block(levels_[std::size_t(block_from_)].ctx, "mg::block_cycle", k);
  }

  /// Dense Cholesky factor of the whole coarsest operator g (plus the projector on the null
  /// space when singular: the constants on the fluid cells, as solid cells have identity rows).
  void factor_coarsest(const PoissonGrid<T>& g) {
    const PoissonStencil<T> s = host_stencil(g);
    const index_t n = s.nx * s.ny;
    dense_n_ = n;
    chol_.assign(std::size_t(n * n), 0.0);
    std::vector<T> e(std::size_t(n), T(0));
    const View<const T, 2> ev = dense_view<const T, 2>(e.data(), Extents<2>{{s.nx, s.ny}});
    double diag_mean = 0;
    for (index_t k = 0; k < n; ++k) {
      e[std::size_t(k)] = T(1);
      for (index_t i = 0; i < s.nx; ++i)
        for (index_t j = 0; j < s.ny; ++j) chol_[std::size_t((i * s.ny + j) * n + k)] = double(s.apply(ev, i, j));
      e[std::size_t(k)] = T(0);
      diag_mean += chol_[std::size_t(k * n + k)] / double(n);
    }
    fluid_.assign(std::size_t(n), 1.0);
    if (g.has_links())
      for (index_t k = 0; k < n; ++k) fluid_[std::size_t(k)] = g.active[std::size_t(k)] != T(0) ? 1.0 : 0.0;
    fluid_count_ = 0;
    for (double f : fluid_) fluid_count_ += f;
    if (g.singular)  // A + c f f^T is definite and gives the mean-free solution for a consistent b
      for (index_t i = 0; i < n; ++i)
        for (index_t k = 0; k < n; ++k)
          chol_[std::size_t(i * n + k)] += diag_mean / fluid_count_ * fluid_[std::size_t(i)] * fluid_[std::size_t(k)];
    for (index_t j = 0; j < n; ++j) {
      double d = chol_[std::size_t(j * n + j)];
      for (index_t k = 0; k < j; ++k) d -= chol_[std::size_t(j * n + k)] * chol_[std::size_t(j * n + k)];
      if (!(d > 0)) throw Error("multigrid: the coarsest operator is not positive definite (a fluid region closed off?)");
      d = std::sqrt(d);
      chol_[std::size_t(j * n + j)] = d;
      for (index_t i = j + 1; i < n; ++i) {
        double v = chol_[std::size_t(i * n + j)];
        for (index_t k = 0; k < j; ++k) v -= chol_[std::size_t(i * n + k)] * chol_[std::size_t(j * n + k)];
        chol_[std::size_t(i * n + j)] = v / d;
      }
    }
  }

  /// The whole grid of the last split level, row-major, gathered from every rank's box of f.
  std::vector<double> gather(const Field<T, 2>& f) const {
    const PoissonLevel<T>& L = levels_.back();
    std::vector<T> box(std::size_t(f.grid().size()));
    detail::copy_to_host<T, 2>(L.ctx, f.view(), box.data());
    if (coarse_boxes_.size() == 1) return std::vector<double>(box.begin(), box.end());
    // rank r's values arrive row-major over its box, in rank order
    const std::vector<double> all = L.comm.allgather(std::vector<double>(box.begin(), box.end()));
    index_t cells = 0;
    for (const Subdomain& s : coarse_boxes_) cells += s.cells[0] * s.cells[1];
    std::vector<double> whole(static_cast<std::size_t>(cells), 0.0);
    std::size_t k = 0;
    for (const Subdomain& s : coarse_boxes_)
      for (index_t i = 0; i < s.cells[0]; ++i)
        for (index_t j = 0; j < s.cells[1]; ++j) whole[std::size_t((s.offset[0] + i) * coarse_ny_ + s.offset[1] + j)] = all[k++];
    return whole;
  }
  /// This rank's box of whole (the last split level's grid, row-major) into f.
  void scatter(const std::vector<double>& whole, Field<T, 2>& f) const {
    const PoissonLevel<T>& L = levels_.back();
    const Subdomain& mine = coarse_boxes_[std::size_t(L.comm.rank())];
    const index_t bx = mine.cells[0], by = mine.cells[1];
    std::vector<T> box(std::size_t(bx * by));
    for (index_t i = 0; i < bx; ++i)
      for (index_t j = 0; j < by; ++j)
        box[std::size_t(i * by + j)] = T(whole[std::size_t((mine.offset[0] + i) * coarse_ny_ + mine.offset[1] + j)]);
    detail::copy_from_host<T, 2>(L.ctx, box.data(), f.view());
  }

  /// x = one V-cycle from zero on b, run on the whole grid of the last split level by every rank.
  void cycle_whole(const Field<T, 2>& b, Field<T, 2>& x) {
    const std::vector<double> whole = gather(b);
    const std::vector<T> host(whole.begin(), whole.end());
    detail::copy_from_host<T, 2>(whole_b_.context(), host.data(), whole_b_.view());
    whole_->precondition(whole_b_, whole_x_);
    std::vector<T> out(host.size());
    detail::copy_to_host<T, 2>(whole_x_.context(), whole_x_.view(), out.data());
    scatter(std::vector<double>(out.begin(), out.end()), x);
  }

  /// x = A^-1 b on the coarsest level: on one rank with a small coarsest grid by the dense
  /// operator on the device; otherwise every rank gathers the whole b, solves, keeps its box.
  void solve_coarsest(const Field<T, 2>& b, Field<T, 2>& x) {
    PoissonLevel<T>& L = levels_.back();
    if (dense_.size() > 0) {
      for_each(L.ctx, "mg::coarse_dense", L.box(), MgCoarseDense<T>{dense_.data(), dense_n_, coarse_ny_, b.view(), x.view()});
      return;
    }
    std::vector<double> y = gather(b);
    solve_coarsest_host(y);
    scatter(y, x);
  }

  /// y = A^-1 y on the host for the whole coarsest grid (row-major), by the Cholesky factor.
  void solve_coarsest_host(std::vector<double>& y) const {
    const PoissonLevel<T>& L = levels_.back();
    const index_t n = dense_n_;
    if (L.singular) {  // project the right-hand side onto the range (mean zero on the fluid cells)
      double mean = 0;
      for (index_t k = 0; k < n; ++k) mean += y[std::size_t(k)] * fluid_[std::size_t(k)] / fluid_count_;
      for (index_t k = 0; k < n; ++k) y[std::size_t(k)] -= mean * fluid_[std::size_t(k)];
    }
    for (index_t i = 0; i < n; ++i) {
      double v = y[std::size_t(i)];
      for (index_t k = 0; k < i; ++k) v -= chol_[std::size_t(i * n + k)] * y[std::size_t(k)];
      y[std::size_t(i)] = v / chol_[std::size_t(i * n + i)];
    }
    for (index_t i = n - 1; i >= 0; --i) {
      double v = y[std::size_t(i)];
      for (index_t k = i + 1; k < n; ++k) v -= chol_[std::size_t(k * n + i)] * y[std::size_t(k)];
      y[std::size_t(i)] = v / chol_[std::size_t(i * n + i)];
    }
  }

  /// The dense solution operator of the coarsest grid, column by column from the host solve, on the device.
  void form_dense_coarse(const Context& ctx) {
    const index_t n = dense_n_;
    std::vector<double> m(static_cast<std::size_t>(n * n)), col(static_cast<std::size_t>(n));
    for (index_t k = 0; k < n; ++k) {
      std::fill(col.begin(), col.end(), 0.0);
      col[std::size_t(k)] = 1;
      solve_coarsest_host(col);
      for (index_t i = 0; i < n; ++i) m[std::size_t(i * n + k)] = col[std::size_t(i)];
    }
    dense_ = Array<double, 1>::from_host(ctx, Extents<1>{{n * n}}, m);
  }

  /// The largest coarsest grid whose dense operator is formed (n^3 work on the host, once).
  static constexpr index_t dense_cells_max = 640;

  MgOptions opt_;
  PressureSide sides_[4] = {};
  std::vector<PoissonLevel<T>> levels_;
  std::vector<Field<T, 2>> residuals_, coarse_rhs_, coarse_solutions_, tiled_guesses_;  // tiled_guesses_: the tiled levels' smoothed guess
  std::vector<Field<T, 2>> scale_;          // scale_[l]: level l's transfers' scaling (empty Field: none)
  std::vector<Subdomain> coarse_boxes_;  // every rank's box of the last split level
  std::unique_ptr<Multigrid<T>> whole_;  // the rest of the hierarchy, on the whole grid (when gathered)
  Field<T, 2> whole_b_, whole_x_;
  std::vector<double> chol_, fluid_;     // fluid_: 1 on the coarsest level's fluid cells, 0 on solid ones
  Array<double, 1> dense_;                // the coarsest solve as a dense operator (one rank, small grids)
  int block_from_ = -1;                   // the first level of the one-launch coarse cycle (-1: none)
  double fluid_count_ = 0;
  index_t dense_n_ = 0, coarse_ny_ = 0;
};

}  // namespace sim::solvers
