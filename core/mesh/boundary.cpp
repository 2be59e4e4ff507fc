// Ghost-cell fill for periodic, Dirichlet and Neumann faces, all faces in one launch; edges
// and corners get what filling dimension by dimension (0, 1, 2) would give.
#include "core/mesh/boundary.hpp"

#include <algorithm>

#include "core/kernels/for_each.hpp"

namespace sim {

namespace {
const BcKind kAllKinds[] = {BcKind::periodic, BcKind::dirichlet, BcKind::neumann,
                            BcKind::wall,     BcKind::inflow,    BcKind::outflow};

/// Throws Error naming the first face whose kind fill_ghosts cannot apply to a scalar field.
template <int Rank>
void check_scalar_kinds(const Boundary<Rank>& bc) {
  for (int d = 0; d < Rank; ++d)
    for (int side = 0; side < 2; ++side) {
      const BcKind k = side ? bc.hi[d].kind : bc.lo[d].kind;
      if (k != BcKind::periodic && k != BcKind::dirichlet && k != BcKind::neumann)
        throw Error("boundary " + face_name({d, side}) + " = \"" + bc_name(k) +
                    "\": a scalar field takes periodic, dirichlet or neumann (" + bc_name(k) + " is a fluid kind)");
    }
}
}  // namespace

const char* bc_name(BcKind k) {
  switch (k) {
    case BcKind::periodic: return "periodic";
    case BcKind::dirichlet: return "dirichlet";
    case BcKind::neumann: return "neumann";
    case BcKind::wall: return "wall";
    case BcKind::inflow: return "inflow";
    case BcKind::outflow: return "outflow";
  }
  return "?";
}

bool bc_kind_from_name(const std::string& name, BcKind& kind) {
  for (BcKind k : kAllKinds)
    if (name == bc_name(k)) return kind = k, true;
  return false;
}

std::string face_name(Face f) {
  return std::string(1, "xyz"[f.axis]) + (f.side ? "_hi" : "_lo");
}

bool face_from_name(const std::string& name, int rank, Face& face) {
  for (int d = 0; d < rank && d < 3; ++d)
    for (int side = 0; side < 2; ++side)
      if (name == face_name({d, side})) return face = Face{d, side}, true;
  return false;
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
/// Every ghost cell of every face in one launch. Thread t handles cell t % F of face t / F
/// (face 2d + side); F is the largest face. A cell that is a ghost in several dimensions
/// (an edge or corner) gets the value the dimension-by-dimension fill would give: the
/// rules are composed from the highest dimension inwards, u(p) = S u(q) + A with q inside.
template <class T, int Rank>
struct GhostFillAll {
  View<T, Rank> v;
  index_t n[Rank];
  index_t g, face_cells;
  BcKind kind[Rank][2];
  T value[Rank][2], dx[Rank];

  SIM_INLINE void operator()(index_t t) const {
    const int face = int(t / face_cells), d = face / 2, side = face % 2;
    index_t r = t - index_t(face) * face_cells;
    index_t p[3] = {0, 0, 0};
    for (int e = Rank - 1; e >= 0; --e) {  // decompose r over this face's box
      const index_t ext = e == d ? g : n[e] + 2 * g;
      p[e] = r % ext;
      r /= ext;
      p[e] = e == d ? (side ? n[e] + p[e] : p[e] - g) : p[e] - g;
    }
    if (r != 0) return;  // beyond this face (faces differ in size)
    // the face of the lowest dimension in which p is a ghost owns p: edges are written once
    for (int e = 0; e < d; ++e)
      if (p[e] < 0 || p[e] >= n[e]) return;
    T sign = T(1), add = T(0);
    index_t q[3] = {p[0], p[1], p[2]};
    for (int e = Rank - 1; e >= 0; --e) {
      const index_t x = q[e];
      if (x >= 0 && x < n[e]) continue;
      const bool high = x >= n[e];
      const index_t m = high ? x - (n[e] - 1) : -x;  // 1 for the first ghost layer
      const BcKind k = kind[e][high ? 1 : 0];
      if (k == BcKind::periodic) {
        q[e] = high ? x - n[e] : x + n[e];
      } else if (k == BcKind::dirichlet) {
        q[e] = high ? n[e] - m : m - 1;
        add += sign * (T(2) * value[e][high ? 1 : 0]);
        sign = -sign;
      } else {
        q[e] = high ? n[e] - m : m - 1;
        add += sign * (T(2 * m - 1) * dx[e] * value[e][high ? 1 : 0]);
      }
    }
    if constexpr (Rank == 1) v(p[0]) = sign * v(q[0]) + add;
    if constexpr (Rank == 2) v(p[0], p[1]) = sign * v(q[0], q[1]) + add;
    if constexpr (Rank == 3) v(p[0], p[1], p[2]) = sign * v(q[0], q[1], q[2]) + add;
  }
};
}  // namespace

template <class T, int Rank>
void fill_ghosts(Field<T, Rank>& f, const Boundary<Rank>& bc) {
  fill_ghosts(f, bc, Rank);
}

template <class T, int Rank>
void fill_ghosts(Field<T, Rank>& f, const Boundary<Rank>& bc, int dims) {
  const Grid<Rank>& g = f.grid();
  if (g.ghost == 0) return;
  validate(bc, g);
  check_scalar_kinds(bc);
  if (dims <= 0) return;
  GhostFillAll<T, Rank> fn;
  fn.v = f.view();
  fn.g = g.ghost;
  fn.face_cells = 0;
  for (int d = 0; d < Rank; ++d) {
    fn.n[d] = g.cells.n[d];
    fn.dx[d] = T(g.dx[d]);
    fn.kind[d][0] = bc.lo[d].kind, fn.kind[d][1] = bc.hi[d].kind;
    fn.value[d][0] = T(bc.lo[d].value), fn.value[d][1] = T(bc.hi[d].value);
    index_t cells = g.ghost;
    for (int e = 0; e < Rank; ++e)
      if (e != d) cells *= g.cells.n[e] + 2 * g.ghost;
    if (d < dims) fn.face_cells = cells > fn.face_cells ? cells : fn.face_cells;
  }
  for_each(f.context(), "sim::fill_ghosts", Box<1>{{0}, {2 * std::min(dims, Rank) * fn.face_cells}}, fn);
}

#define SIM_INSTANTIATE_BOUNDARY(T, R)                                        \
  template void fill_ghosts<T, R>(Field<T, R>&, const Boundary<R>&);          \
  template void fill_ghosts<T, R>(Field<T, R>&, const Boundary<R>&, int);
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
