#pragma once
// Random fields keyed by the global cell index: the value of a cell depends on the run's seed
// and the cell's index in the whole grid, never on how the grid is split over ranks. Global
// cell g (row-major over the global grid) gets element g of what fill_uniform / fill_normal
// would draw into an array of the whole grid, so one process and any decomposition give the
// same bits, on the GPU and on the CPU. Each call takes the Philox blocks of the whole grid
// from the context's stream, whatever box this rank holds: every rank makes the same calls
// in the same order (as decomposed models do), and their streams stay in step.
#include "core/distributed/decomposition.hpp"
#include "core/mesh/grid.hpp"

namespace sim {

/// Fills the interior of f, box `sub` of a grid of `global` cells, with uniforms in (lo, hi) keyed by global index.
template <class T, int Rank>
void fill_uniform(Field<T, Rank>& f, const Subdomain& sub, const Extents<Rank>& global, T lo = T(0), T hi = T(1));

/// Fills the interior of f, box `sub` of a grid of `global` cells, with normals keyed by global index.
template <class T, int Rank>
void fill_normal(Field<T, Rank>& f, const Subdomain& sub, const Extents<Rank>& global, T mean = T(0),
                 T stddev = T(1));

/// Fills the interior of f, the whole grid on one process, with uniforms in (lo, hi) keyed by cell index.
template <class T, int Rank>
void fill_uniform(Field<T, Rank>& f, T lo = T(0), T hi = T(1)) {
  Subdomain whole;
  for (int d = 0; d < Rank; ++d) whole.cells[d] = f.grid().cells.n[d];
  fill_uniform(f, whole, f.grid().cells, lo, hi);
}

}  // namespace sim
