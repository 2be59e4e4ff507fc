// Ghost exchange through host buffers and Comm's non-blocking transfers.
#include "core/halo.hpp"

#include "core/error.hpp"

namespace sim {

namespace {
/// The slab of dimension d on `side` (0 low, 1 high): the interior layers a neighbour needs
/// (ghost == false) or the ghost layers it fills (ghost == true); in the other dimensions the
/// ghosted extent (corners == true) or the interior one.
template <int Rank>
Box<Rank> slab(const Box<Rank>& interior, int g, int d, int side, bool ghost, bool corners) {
  Box<Rank> b = corners ? interior.grow(g) : interior;
  const index_t n = interior.hi[d];
  if (ghost) b.lo[d] = side ? n : -g, b.hi[d] = side ? n + g : 0;
  else b.lo[d] = side ? n - g : 0, b.hi[d] = side ? n : g;
  return b;
}
}  // namespace

template <class T, int Rank>
Halo<T, Rank>::Halo(const Comm& comm, const Subdomain& sub, int ghost) : comm_(comm), sub_(sub), ghost_(ghost) {
  for (int d = 0; d < Rank; ++d)
    for (int side = 0; side < 2; ++side)
      if (sub.neighbour[d][side] >= 0 && sub.cells[d] < ghost)
        throw Error("halo: a box of " + std::to_string(sub.cells[d]) + " cells cannot feed " + std::to_string(ghost) +
                    " ghost layers to its neighbour; use fewer ranks along that dimension");
}

template <class T, int Rank>
bool Halo<T, Rank>::active() const {
  for (int d = 0; d < Rank; ++d)
    if (sub_.neighbour[d][0] >= 0 || sub_.neighbour[d][1] >= 0) return true;
  return false;
}

template <class T, int Rank>
void Halo<T, Rank>::post(Field<T, Rank>& f, int d_first, int d_end, bool corners) {
  std::vector<Transfer> transfers;
  auto v = f.view();
  for (int d = d_first; d < d_end; ++d)
    for (int side = 0; side < 2; ++side) {
      const int peer = sub_.neighbour[d][side];
      if (peer < 0) continue;
      const Box<Rank> out = slab(f.interior(), ghost_, d, side, false, corners);
      send_[d][side].resize(std::size_t(out.size()));
      recv_[d][side].resize(std::size_t(out.size()));
      detail::copy_to_host<T, Rank>(f.context(), v.sub(out), send_[d][side].data());
      // a message leaving through the high face arrives at the neighbour's low face: tags 2d + side
      transfers.push_back({peer, 2 * d + side, 2 * d + (1 - side), send_[d][side].data(), recv_[d][side].data(),
                           send_[d][side].size() * sizeof(T)});
    }
  pending_ = comm_.start(transfers);
}

template <class T, int Rank>
void Halo<T, Rank>::unpack(Field<T, Rank>& f, int d_first, int d_end, bool corners) {
  pending_.wait();
  auto v = f.view();
  for (int d = d_first; d < d_end; ++d)
    for (int side = 0; side < 2; ++side)
      if (sub_.neighbour[d][side] >= 0)
        detail::copy_from_host<T, Rank>(f.context(), recv_[d][side].data(),
                                        v.sub(slab(f.interior(), ghost_, d, side, true, corners)));
}

template <class T, int Rank>
void Halo<T, Rank>::start(Field<T, Rank>& f, int d) { post(f, d, d + 1, true); }
template <class T, int Rank>
void Halo<T, Rank>::finish(Field<T, Rank>& f, int d) { unpack(f, d, d + 1, true); }
template <class T, int Rank>
void Halo<T, Rank>::start_faces(Field<T, Rank>& f) { post(f, 0, Rank, false); }
template <class T, int Rank>
void Halo<T, Rank>::finish_faces(Field<T, Rank>& f) { unpack(f, 0, Rank, false); }

template <class T, int Rank>
Box<Rank> Halo<T, Rank>::inner(const Box<Rank>& interior) const {
  Box<Rank> b = interior;
  for (int d = 0; d < Rank; ++d) {
    if (sub_.neighbour[d][0] >= 0) b.lo[d] += 1;
    if (sub_.neighbour[d][1] >= 0) b.hi[d] -= 1;
  }
  return b;
}

template <class T, int Rank>
std::vector<Box<Rank>> Halo<T, Rank>::rim(const Box<Rank>& interior) const {
  // dimension d's layers span inner's range in dimensions before d and the whole interior after
  const Box<Rank> in = inner(interior);
  std::vector<Box<Rank>> boxes;
  for (int d = 0; d < Rank; ++d)
    for (int side = 0; side < 2; ++side) {
      if (sub_.neighbour[d][side] < 0) continue;
      Box<Rank> b = interior;
      for (int e = 0; e < d; ++e) b.lo[e] = in.lo[e], b.hi[e] = in.hi[e];
      b.lo[d] = side ? interior.hi[d] - 1 : interior.lo[d];
      b.hi[d] = b.lo[d] + 1;
      if (b.size() > 0) boxes.push_back(b);
    }
  return boxes;
}

template <class T, int Rank>
void Halo<T, Rank>::exchange(Field<T, Rank>& f) {
  for (int d = 0; d < Rank; ++d) {
    if (sub_.neighbour[d][0] < 0 && sub_.neighbour[d][1] < 0) continue;
    start(f, d);
    finish(f, d);
  }
}

template class Halo<float, 1>;
template class Halo<float, 2>;
template class Halo<float, 3>;
template class Halo<double, 1>;
template class Halo<double, 2>;
template class Halo<double, 3>;

}  // namespace sim
