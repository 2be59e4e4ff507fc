// Splits of a grid over ranks: balanced blocks (the first cells % procs boxes get one cell
// more), the arrangement chosen by the smallest cut area.
#include "core/distributed/decomposition.hpp"

#include <cstring>

#include "core/runtime/error.hpp"

namespace sim {

namespace {
const char* axis_name(int d) { return d == 0 ? "x" : d == 1 ? "y" : "z"; }

/// Start of block c of n cells split into p blocks.
index_t block_start(index_t n, int p, int c) {
  const index_t base = n / p, extra = n % p;
  return index_t(c) * base + (index_t(c) < extra ? index_t(c) : extra);
}
}  // namespace

Decomposition::Decomposition(int ndim, const index_t cells[], const int procs[], index_t min_cells) : ndim_(ndim) {
  if (ndim < 1 || ndim > 3) throw Error("decomposition: grids have 1 to 3 dimensions, not " + std::to_string(ndim));
  for (int d = 0; d < ndim; ++d) {
    if (procs[d] < 1) throw Error(std::string("decomposition: ranks along ") + axis_name(d) + " must be at least 1");
    if (cells[d] / procs[d] < min_cells)
      throw Error(std::string("decomposition: ") + std::to_string(procs[d]) + " ranks along " + axis_name(d) +
                  " leave fewer than " + std::to_string(min_cells) + " cells per rank (the grid has " +
                  std::to_string(cells[d]) + "); use fewer ranks along " + axis_name(d));
    cells_[d] = cells[d];
    procs_[d] = procs[d];
  }
}

Decomposition Decomposition::automatic(int ndim, const index_t cells[], int ranks, index_t min_cells) {
  if (ranks < 1) throw Error("decomposition: need at least one rank");
  int best[3] = {1, 1, 1};
  double best_cut = -1;
  // every factorisation p0 * p1 * p2 == ranks; cut area = sum over d of (p_d - 1) * (cells of a cross-section)
  for (int p0 = ranks; p0 >= 1; --p0) {  // descending: among equal cuts, the most ranks along x, then y
    if (ranks % p0) continue;
    for (int p1 = ranks / p0; p1 >= 1; --p1) {
      if ((ranks / p0) % p1) continue;
      const int p[3] = {p0, p1, ranks / p0 / p1};
      bool fits = true;
      for (int d = 0; d < 3; ++d) fits &= d < ndim ? cells[d] / p[d] >= min_cells : p[d] == 1;
      if (!fits) continue;
      double cut = 0;
      for (int d = 0; d < ndim; ++d) {
        double section = 1;
        for (int e = 0; e < ndim; ++e)
          if (e != d) section *= double(cells[e]);
        cut += double(p[d] - 1) * section;
      }
      if (best_cut < 0 || cut < best_cut) {  // strict: the first found wins ties
        best_cut = cut;
        for (int d = 0; d < 3; ++d) best[d] = p[d];
      }
    }
  }
  if (best_cut < 0)
    throw Error("decomposition: the grid is too small to split over " + std::to_string(ranks) +
                " ranks with at least " + std::to_string(min_cells) + " cells per rank and dimension; run on fewer ranks");
  return Decomposition(ndim, cells, best, min_cells);
}

Subdomain Decomposition::subdomain(int r, const bool periodic[]) const {
  if (r < 0 || r >= ranks()) throw Error("decomposition: rank " + std::to_string(r) + " out of range");
  Subdomain s;
  s.rank = r;
  s.coord[2] = r % procs_[2];
  s.coord[1] = r / procs_[2] % procs_[1];
  s.coord[0] = r / procs_[2] / procs_[1];
  auto rank_at = [&](const int c[3]) { return (c[0] * procs_[1] + c[1]) * procs_[2] + c[2]; };
  for (int d = 0; d < ndim_; ++d) {
    s.offset[d] = block_start(cells_[d], procs_[d], s.coord[d]);
    s.cells[d] = block_start(cells_[d], procs_[d], s.coord[d] + 1) - s.offset[d];
    for (int side = 0; side < 2; ++side) {
      int c[3] = {s.coord[0], s.coord[1], s.coord[2]};
      c[d] += side ? 1 : -1;
      if (c[d] < 0 || c[d] >= procs_[d]) {
        if (!periodic[d] || procs_[d] == 1) continue;  // one rank along d: its own fill wraps
        c[d] = (c[d] + procs_[d]) % procs_[d];
      }
      s.neighbour[d][side] = rank_at(c);
    }
  }
  return s;
}

void copy_box(const void* whole, int ndim, const index_t shape[], const index_t offset[], const index_t count[],
              std::size_t element, void* out) {
  const index_t n1 = ndim > 1 ? shape[1] : 1, n2 = ndim > 2 ? shape[2] : 1;
  const index_t c0 = count[0], c1 = ndim > 1 ? count[1] : 1, c2 = ndim > 2 ? count[2] : 1;
  const index_t o1 = ndim > 1 ? offset[1] : 0, o2 = ndim > 2 ? offset[2] : 0;
  const auto* src = static_cast<const unsigned char*>(whole);
  auto* dst = static_cast<unsigned char*>(out);
  for (index_t i = 0; i < c0; ++i)
    for (index_t j = 0; j < c1; ++j) {  // one contiguous run of c2 values per (i, j)
      const index_t from = ((offset[0] + i) * n1 + o1 + j) * n2 + o2;
      std::memcpy(dst + std::size_t((i * c1 + j) * c2) * element, src + std::size_t(from) * element,
                  std::size_t(c2) * element);
    }
}

std::string Decomposition::text() const {
  std::string t;
  for (int d = 0; d < ndim_; ++d) t += (d ? " x " : "") + std::to_string(procs_[d]);
  return t;
}

}  // namespace sim
