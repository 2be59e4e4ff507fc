#pragma once
// The split of a global grid into boxes, one per rank: a Cartesian arrangement of
// procs[0] x procs[1] x procs[2] ranks (rank = row-major over the arrangement, dimension 0
// slowest), each box a contiguous block of cells. Pure arithmetic: no MPI here.
#include <cstddef>
#include <string>
#include <vector>

#include "core/runtime/types.hpp"

namespace sim {

/// One rank's box of the global grid and its neighbours.
struct Subdomain {
  int rank = 0;                    ///< this rank
  int coord[3] = {0, 0, 0};        ///< its position in the arrangement
  index_t offset[3] = {0, 0, 0};   ///< global index of its first cell, per dimension
  index_t cells[3] = {1, 1, 1};    ///< its cells, per dimension
  int neighbour[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};  ///< rank across the low/high face; -1: global boundary
  /// True when the face (dimension d, side 0 = low, 1 = high) lies on the global boundary.
  bool at_boundary(int d, int side) const { return neighbour[d][side] < 0; }
};

/// How a grid of `cells` is split over `size` ranks.
class Decomposition {
 public:
  /// One rank holding the whole grid.
  Decomposition() = default;
  /// The split with procs[d] ranks along dimension d (product == ranks); throws Error
  /// naming the dimension when a box would have fewer than min_cells cells.
  Decomposition(int ndim, const index_t cells[], const int procs[], index_t min_cells);
  /// The split over `ranks` that cuts the fewest cell faces (ties: split the slowest
  /// dimension first), with at least min_cells cells per box and dimension; throws Error
  /// when no split fits.
  static Decomposition automatic(int ndim, const index_t cells[], int ranks, index_t min_cells);

  /// Number of grid dimensions.
  int ndim() const { return ndim_; }
  /// Ranks along dimension d.
  int procs(int d) const { return procs_[d]; }
  /// Total number of ranks.
  int ranks() const { return procs_[0] * procs_[1] * procs_[2]; }
  /// Box and neighbours of rank r; periodic[d] wraps the neighbours of dimension d.
  Subdomain subdomain(int r, const bool periodic[]) const;
  /// "2 x 2" (ranks per dimension).
  std::string text() const;

 private:
  int ndim_ = 1;
  index_t cells_[3] = {1, 1, 1};
  int procs_[3] = {1, 1, 1};
};

/// Copies the box (offset, count per dimension) of a row-major array of the given shape,
/// `element` bytes per value, into out (row-major, count's shape).
void copy_box(const void* whole, int ndim, const index_t shape[], const index_t offset[], const index_t count[],
              std::size_t element, void* out);

}  // namespace sim
