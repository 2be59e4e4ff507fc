// Checks the peer transposes (core/distributed/peer_slabs.hpp) between the GPUs of one host:
// PeerSlabs moving small 2D and 3D grids between slabs (even and uneven splits, float64 and
// float32) there and back, by the move kernels (scatter, gather) and by the copy engines (push
// and pull in pieces), every value checked against its global index; also with each rank's
// from-rows held in another order (row segments), and with every rank's buffer holding the
// whole grid (held in place). Elsewhere (CPU
// ranks, GPUs without peer access) it prints why the path is unavailable and checks nothing.
//   mpirun -np N peer_slabs_check [cpu|cuda]
#include <cstdio>
#include <string>
#include <vector>

#include "core/array/array.hpp"
#include "core/distributed/comm.hpp"
#include "core/distributed/peer_slabs.hpp"
#include "core/runtime/context.hpp"
#include "solvers/distributed_transform.hpp"

using namespace sim;

namespace {

/// The value every element of the global grid holds: its global row-major index.
template <class T, int Rank>
T value_at(const index_t (&g)[Rank], const index_t (&n)[Rank]) {
  index_t q = 0;
  for (int d = 0; d < Rank; ++d) q = q * n[d] + g[d];
  return T(q % 1000003);
}

/// A box's values, row-major.
template <class T, int Rank>
std::vector<T> values_of(const Box<Rank>& b, const index_t (&n)[Rank]) {
  std::vector<T> v;
  index_t g[Rank];
  if (b.size() == 0) return v;
  for (int d = 0; d < Rank; ++d) g[d] = b.lo[d];
  while (true) {
    v.push_back(value_at<T, Rank>(g, n));
    int d = Rank - 1;
    while (d >= 0 && ++g[d] == b.hi[d]) g[d] = b.lo[d], --d;
    if (d < 0) break;
  }
  return v;
}

/// Part k of 3 of every rank's to-box, cut along the last dimension (push_parts, pull_parts).
template <int Rank>
std::vector<Box<Rank>> parts_of(const std::vector<Box<Rank>>& to, int k) {
  std::vector<Box<Rank>> parts = to;
  for (Box<Rank>& b : parts) {
    const index_t n = b.extent(Rank - 1), lo = b.lo[Rank - 1];
    b.lo[Rank - 1] = lo + n * k / 3, b.hi[Rank - 1] = lo + n * (k + 1) / 3;
  }
  return parts;
}

/// The values of v (device memory, read back through a dense copy) that are not scale * want + shift.
template <class T, int Rank>
long wrong_values(const Context& ctx, View<const T, Rank> v, const std::vector<T>& want, T scale = 1, T shift = 0) {
  Array<T, Rank> got(ctx, v.shape);
  detail::copy<T, Rank>(ctx, v, got.view());
  const std::vector<T> host = got.to_host();
  long wrong = 0;
  for (std::size_t i = 0; i < want.size(); ++i) wrong += host[i] != scale * want[i] + shift;
  return wrong;
}

/// One grid of cells split along axis a (from) and axis b (to): scatter, check the to-box,
/// gather into a cleared array, check the from-box; then the same by the copy engines (push
/// in 3 pieces, pull in 3 pieces; then by 3 parts of the to-boxes' last dimension). With makhoul (a = 0), each rank's from-rows are held in
/// solvers::makhoul_segments' order: the moves also reorder dimension 0. Returns the wrong
/// values on this rank.
template <class T, int Rank>
long check_grid(const Comm& comm, const Context& ctx, const index_t (&cells)[Rank], int a_axis = 0, int b_axis = 1,
                bool makhoul = false) {
  std::vector<Box<Rank>> from, to;
  for (int r = 0; r < comm.size(); ++r)
    from.push_back(solvers::slab_box<Rank>(cells, a_axis, comm.size(), r)), to.push_back(solvers::slab_box<Rank>(cells, b_axis, comm.size(), r));
  const Box<Rank> mine_from = from[std::size_t(comm.rank())], mine_to = to[std::size_t(comm.rank())];
  std::vector<RowSegment> segments = {RowSegment{0, mine_from.lo[0], mine_from.extent(0)}};
  if (makhoul) segments = solvers::makhoul_segments(mine_from.lo[0], mine_from.hi[0], cells[0]);
  PeerSlabs<T, Rank> peer(comm, ctx, from, to, segments);
  std::vector<T> want_from;  // the from-rows' values, segment by segment
  for (const RowSegment& s : segments) {
    Box<Rank> b = mine_from;
    b.lo[0] = s.global, b.hi[0] = s.global + s.count;
    const std::vector<T> v = values_of<T, Rank>(b, cells);
    want_from.insert(want_from.end(), v.begin(), v.end());
  }
  const std::vector<T> want_to = values_of<T, Rank>(mine_to, cells);
  Array<T, Rank> a = Array<T, Rank>::from_host(ctx, mine_from.shape(), want_from);
  peer.scatter(a.view());
  long wrong = wrong_values<T, Rank>(ctx, peer.local(), want_to);
  a.fill(T(-1));
  peer.gather(a.view());
  wrong += wrong_values<T, Rank>(ctx, a.view(), want_from);
  // the copy engines: the to-boxes cleared, pushed in 3 pieces along dimension 0 of the from-box
  Array<T, Rank> cleared(ctx, mine_to.shape());
  cleared.fill(T(-1));
  peer.barrier();  // every rank's reads of its to-box above done
  detail::copy<T, Rank>(ctx, View<const T, Rank>(cleared.view()), peer.local());
  peer.barrier();  // every to-box cleared
  a = Array<T, Rank>::from_host(ctx, mine_from.shape(), want_from);
  const index_t n0 = mine_from.extent(0);
  const std::vector<index_t> bounds = {0, n0 / 3, (2 * n0) / 3, n0};
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) peer.push(a.view(), bounds[k], bounds[k + 1]);
  peer.join();
  peer.barrier();
  wrong += wrong_values<T, Rank>(ctx, peer.local(), want_to);
  a.fill(T(-1));
  peer.barrier();
  peer.pull(a.view(), bounds);
  for (int k = 0; k < 3; ++k) peer.wait_pulled(k);
  wrong += wrong_values<T, Rank>(ctx, a.view(), want_from);
  // by parts of the to-boxes: cleared, pushed part by part, checked; then pulled back part by part
  peer.barrier();  // every rank's pulls above done
  detail::copy<T, Rank>(ctx, View<const T, Rank>(cleared.view()), peer.local());
  peer.barrier();
  for (int k = 0; k < 3; ++k) peer.push_parts(a.view(), parts_of<Rank>(to, k), k);
  for (int k = 2; k >= 0; --k) peer.wait_pushed(k);
  peer.barrier();
  wrong += wrong_values<T, Rank>(ctx, peer.local(), want_to);
  a.fill(T(-1));
  peer.barrier();
  for (int k = 0; k < 3; ++k) peer.pull_parts(a.view(), parts_of<Rank>(to, k), k);
  for (int k = 0; k < 3; ++k) peer.wait_pulled(k);
  wrong += wrong_values<T, Rank>(ctx, a.view(), want_from);
  peer.barrier();
  ctx.synchronize();
  return wrong;
}

/// The same with every rank's buffer holding the whole grid (PeerSlabs held in place): the
/// to-boxes cleared, each rank's from-box written in place and pushed in 3 pieces, the to-box
/// checked; then 2 v + 1 written into the to-boxes and pulled in 3 pieces, the from-box checked
/// (its own part through the buffer it shares with the to-box). Returns the wrong values on this rank.
template <class T>
long check_in_place(const Comm& comm, const Context& ctx, const index_t (&cells)[3], int a_axis, int b_axis) {
  std::vector<Box<3>> from, to;
  for (int r = 0; r < comm.size(); ++r)
    from.push_back(solvers::slab_box<3>(cells, a_axis, comm.size(), r)), to.push_back(solvers::slab_box<3>(cells, b_axis, comm.size(), r));
  const Box<3> mine_from = from[std::size_t(comm.rank())], mine_to = to[std::size_t(comm.rank())];
  const Box<3> whole{{0, 0, 0}, {cells[0], cells[1], cells[2]}};
  PeerSlabs<T, 3> peer(comm, ctx, from, to, whole);
  const std::vector<T> want_from = values_of<T, 3>(mine_from, cells), want_to = values_of<T, 3>(mine_to, cells);
  Array<T, 3> cleared(ctx, mine_to.shape());
  cleared.fill(T(-1));
  // scale * (the to-boxes' values) + shift into every rank's to-box, between barriers
  auto write_to_boxes = [&](T scale, T shift) {
    std::vector<T> v(want_to.size());
    for (std::size_t i = 0; i < want_to.size(); ++i) v[i] = scale * want_to[i] + shift;
    const Array<T, 3> b = Array<T, 3>::from_host(ctx, mine_to.shape(), v);
    peer.barrier();  // every rank's reads of its to-box before this done
    detail::copy<T, 3>(ctx, View<const T, 3>(b.view()), peer.local());
    peer.barrier();  // every to-box written
  };
  detail::copy<T, 3>(ctx, View<const T, 3>(cleared.view()), peer.local());
  const Array<T, 3> a = Array<T, 3>::from_host(ctx, mine_from.shape(), want_from);
  detail::copy<T, 3>(ctx, View<const T, 3>(a.view()), peer.from_view());
  peer.barrier();  // every to-box cleared
  const index_t n0 = mine_from.extent(0);
  const std::vector<index_t> bounds = {0, n0 / 3, (2 * n0) / 3, n0};
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) peer.push(peer.from_view(), bounds[k], bounds[k + 1]);
  peer.join();
  peer.barrier();
  long wrong = wrong_values<T, 3>(ctx, peer.local(), want_to);
  write_to_boxes(T(2), T(1));
  peer.pull(peer.from_view(), bounds);
  for (int k = 0; k < 3; ++k) peer.wait_pulled(k);
  wrong += wrong_values<T, 3>(ctx, peer.from_view(), want_from, T(2), T(1));
  // by parts of the to-boxes: 3 v + 2 in the to-boxes pulled part by part, then the from-box
  // (3 v + 2 now) pushed part by part into the to-boxes, cleared first
  write_to_boxes(T(3), T(2));
  for (int k = 0; k < 3; ++k) peer.pull_parts(peer.from_view(), parts_of<3>(to, k), k);
  for (int k = 0; k < 3; ++k) peer.wait_pulled(k);
  wrong += wrong_values<T, 3>(ctx, peer.from_view(), want_from, T(3), T(2));
  Array<T, 3> pulled(ctx, mine_from.shape());
  detail::copy<T, 3>(ctx, View<const T, 3>(peer.from_view()), pulled.view());
  peer.barrier();  // every rank's pulls done
  detail::copy<T, 3>(ctx, View<const T, 3>(cleared.view()), peer.local());
  detail::copy<T, 3>(ctx, View<const T, 3>(pulled.view()), peer.from_view());  // (its part shared with the to-box cleared too)
  peer.barrier();
  for (int k = 0; k < 3; ++k) peer.push_parts(peer.from_view(), parts_of<3>(to, k), k);
  for (int k = 0; k < 3; ++k) peer.wait_pushed(k);
  peer.barrier();
  wrong += wrong_values<T, 3>(ctx, peer.local(), want_to, T(3), T(2));
  peer.barrier();
  ctx.synchronize();
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Comm comm = Comm::world();
    const std::string backend = argc > 1 ? argv[1] : "cpu";
    ContextOptions options;
    if (const int gpus = cuda_device_count(); gpus > 0) options.device = comm.local_rank() % gpus;
    const Context ctx = Context::create(backend == "cuda" ? BackendRequest::cuda : BackendRequest::cpu, options);
    const index_t probe[3] = {4, 4, 4};
    std::vector<Box<3>> from, to;
    for (int r = 0; r < comm.size(); ++r)
      from.push_back(solvers::slab_box<3>(probe, 0, comm.size(), r)), to.push_back(solvers::slab_box<3>(probe, 1, comm.size(), r));
    const std::string why = PeerSlabs<double, 3>::unavailable(comm, ctx, from, to);
    if (!why.empty()) {
      if (comm.rank() == 0) std::printf("peer_slabs_check on %d ranks: unavailable (%s); nothing checked\n", comm.size(), why.c_str());
      return 0;
    }
    long wrong = 0;
    int cases = 0;
    const index_t even3[3] = {8, 6, 10}, odd3[3] = {7, 5, 9}, even2[2] = {12, 10}, odd2[2] = {9, 7};
    wrong += check_grid<double, 3>(comm, ctx, even3), ++cases;
    wrong += check_grid<double, 3>(comm, ctx, odd3), ++cases;
    wrong += check_grid<float, 3>(comm, ctx, even3), ++cases;
    wrong += check_grid<float, 3>(comm, ctx, odd3), ++cases;
    wrong += check_grid<double, 2>(comm, ctx, even2), ++cases;
    wrong += check_grid<float, 2>(comm, ctx, odd2), ++cases;
    wrong += check_grid<double, 3>(comm, ctx, odd3, 0, 2), ++cases;  // pieces strided in every dimension: 3D copies
    wrong += check_grid<float, 3>(comm, ctx, even3, 1, 0), ++cases;
    wrong += check_grid<double, 2>(comm, ctx, odd2, 1, 0), ++cases;
    // the from-rows in Makhoul's segments (the 2D cosine solve's transposes), odd and even rows
    wrong += check_grid<double, 2>(comm, ctx, even2, 0, 1, true), ++cases;
    wrong += check_grid<float, 2>(comm, ctx, odd2, 0, 1, true), ++cases;
    wrong += check_grid<double, 3>(comm, ctx, odd3, 0, 2, true), ++cases;
    // every buffer holding the whole grid (the 3D periodic solve's on 2 ranks)
    wrong += check_in_place<double>(comm, ctx, even3, 0, 1), ++cases;
    wrong += check_in_place<double>(comm, ctx, odd3, 0, 1), ++cases;
    wrong += check_in_place<float>(comm, ctx, odd3, 0, 2), ++cases;
    wrong += check_in_place<float>(comm, ctx, even3, 1, 0), ++cases;
    const double total = comm.sum(double(wrong));
    if (comm.rank() == 0)
      std::printf("peer_slabs_check on %d ranks: %d grids there and back, %.0f values wrong: %s\n", comm.size(), cases, total,
                  total == 0 ? "OK" : "FAILED");
    return total == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "peer_slabs_check: %s\n", e.what());
    return 1;
  }
}
