// Ghost-cell fill for periodic, Dirichlet and Neumann faces. Dimension d's faces are filled
// over the ghost range of the dimensions before it, so edges and corners come out right.
#include "core/boundary.hpp"

#include "core/for_each.hpp"

namespace sim {

const char* bc_name(BcKind k) {
  switch (k) {
    case BcKind::periodic: return "periodic";
    case BcKind::dirichlet: return "dirichlet";
    default: return "neumann";
  }
}

template <int Rank>
void validate(const Boundary<Rank>& bc, const Grid<Rank>& grid) {
  static const char* axis = "xyz";
  for (int d = 0; d < Rank; ++d) {
    bool plo = bc.lo[d].kind == BcKind::periodic, phi = bc.hi[d].kind == BcKind::periodic;
    if (plo != phi)
      throw Error(std::string("boundary in ") + axis[d] + ": periodic on one face needs periodic on the other (got " +
                  bc_name(bc.lo[d].kind) + " and " + bc_name(bc.hi[d].kind) + ")");
    if (grid.cells.n[d] < grid.ghost)
      throw Error(std::string("boundary in ") + axis[d] + ": " + std::to_string(grid.cells.n[d]) +
                  " cells cannot feed " + std::to_string(grid.ghost) + " ghost layers");
  }
}

namespace {
template <class T, int Rank>
struct GhostFill {
  View<T, Rank> v;
  int d;      // dimension of the face
  bool high;  // high or low face
  BcKind kind;
  T value, dx;
  index_t n;  // interior cells along d

  SIM_INLINE void at(index_t* p) const {
    const index_t x = p[d];
    index_t q[3] = {p[0], Rank > 1 ? p[1] : 0, Rank > 2 ? p[2] : 0};
    if (kind == BcKind::periodic) {
      q[d] = high ? x - n : x + n;
      load_store(p, q, T(1), T(0));
      return;
    }
    const index_t m = high ? x - (n - 1) : -x;  // 1 for the first ghost layer
    q[d] = high ? n - m : m - 1;                 // mirror image inside
    if (kind == BcKind::dirichlet)
      load_store(p, q, T(-1), T(2) * value);
    else
      load_store(p, q, T(1), T(2 * m - 1) * dx * value);
  }
  // v(p) = sign * v(q) + add
  SIM_INLINE void load_store(const index_t* p, const index_t* q, T sign, T add) const {
    if constexpr (Rank == 1) v(p[0]) = sign * v(q[0]) + add;
    if constexpr (Rank == 2) v(p[0], p[1]) = sign * v(q[0], q[1]) + add;
    if constexpr (Rank == 3) v(p[0], p[1], p[2]) = sign * v(q[0], q[1], q[2]) + add;
  }
  SIM_INLINE void operator()(index_t i) const {
    index_t p[1] = {i};
    at(p);
  }
  SIM_INLINE void operator()(index_t i, index_t j) const {
    index_t p[2] = {i, j};
    at(p);
  }
  SIM_INLINE void operator()(index_t i, index_t j, index_t k) const {
    index_t p[3] = {i, j, k};
    at(p);
  }
};
}  // namespace

template <class T, int Rank>
void fill_ghosts(Field<T, Rank>& f, const Boundary<Rank>& bc) {
  const Grid<Rank>& g = f.grid();
  if (g.ghost == 0) return;
  validate(bc, g);
  for (int d = 0; d < Rank; ++d) {
    for (int side = 0; side < 2; ++side) {
      const FaceBc& face = side ? bc.hi[d] : bc.lo[d];
      Box<Rank> box = g.interior();
      for (int e = 0; e < d; ++e) box.lo[e] -= g.ghost, box.hi[e] += g.ghost;
      box.lo[d] = side ? g.cells.n[d] : -g.ghost;
      box.hi[d] = side ? g.cells.n[d] + g.ghost : 0;
      GhostFill<T, Rank> fn{f.view(), d, side == 1, face.kind, T(face.value), T(g.dx[d]), g.cells.n[d]};
      for_each(f.context(), "sim::fill_ghosts", box, fn);
    }
  }
}

#define SIM_INSTANTIATE_BOUNDARY(T, R) template void fill_ghosts<T, R>(Field<T, R>&, const Boundary<R>&);
SIM_INSTANTIATE_BOUNDARY(float, 1)
SIM_INSTANTIATE_BOUNDARY(float, 2)
SIM_INSTANTIATE_BOUNDARY(float, 3)
SIM_INSTANTIATE_BOUNDARY(double, 1)
SIM_INSTANTIATE_BOUNDARY(double, 2)
SIM_INSTANTIATE_BOUNDARY(double, 3)
template void validate<1>(const Boundary<1>&, const Grid<1>&);
template void validate<2>(const Boundary<2>&, const Grid<2>&);
template void validate<3>(const Boundary<3>&, const Grid<3>&);

}  // namespace sim
