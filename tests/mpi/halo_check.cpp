// Run under mpirun: on every rank, fill_ghosts + Halo::exchange of its box must give every
// cell, ghosts, edges and corners included, the value the one-rank fill of the whole grid
// gives there. 1D/2D/3D, ghost widths 1 and 2, periodic/Dirichlet/Neumann faces, every
// arrangement of the ranks; on a GPU both packed (narrow rows) and pitched slab copies. Also
// Comm::allgather of text. Prints the first difference; exit 1 on any rank's mismatch.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "core/mesh/boundary.hpp"
#include "core/distributed/comm.hpp"
#include "core/distributed/decomposition.hpp"
#include "core/distributed/halo.hpp"

namespace {

using namespace sim;

/// A value that differs at every global cell.
double value_at(const index_t* g, int rank) {
  double v = 0;
  for (int d = 0; d < rank; ++d) v = v * 97.0 + double(g[d]) + 0.25 * d;
  return v;
}

/// Row-major host values of every cell of box (global indices) filled by value_at.
template <int Rank>
std::vector<double> values(const Box<Rank>& box) {
  std::vector<double> v;
  index_t p[3] = {0, 0, 0};
  for (p[0] = box.lo[0]; p[0] < box.hi[0]; ++p[0])
    for (p[1] = Rank > 1 ? box.lo[1] : 0; p[1] < (Rank > 1 ? box.hi[1] : 1); ++p[1])
      for (p[2] = Rank > 2 ? box.lo[2] : 0; p[2] < (Rank > 2 ? box.hi[2] : 1); ++p[2]) v.push_back(value_at(p, Rank));
  return v;
}

/// Mismatching cells of one case on this rank (prints the first).
template <int Rank>
int check(const Comm& comm, const Context& ctx, const index_t (&cells)[Rank], const int (&procs)[Rank], int ghost,
          const Boundary<Rank>& bc) {
  double length[Rank];
  Extents<Rank> e;
  bool periodic[3] = {false, false, false};
  index_t cells3[3] = {1, 1, 1};
  for (int d = 0; d < Rank; ++d)
    length[d] = 1.0, e.n[d] = cells[d], cells3[d] = cells[d], periodic[d] = bc.lo[d].kind == BcKind::periodic;
  const Grid<Rank> global = Grid<Rank>::uniform(e, length, ghost);
  Field<double, Rank> whole(ctx, global);  // the reference: one rank's fill of the whole grid
  detail::copy_from_host<double, Rank>(ctx, values<Rank>(global.interior()).data(), whole.view());
  fill_ghosts(whole, bc);
  const std::vector<double> want_all = whole.to_host_with_ghosts();

  const Subdomain sub = Decomposition(Rank, cells3, procs, ghost).subdomain(comm.rank(), periodic);
  Grid<Rank> local = global;
  Box<Rank> mine;
  for (int d = 0; d < Rank; ++d)
    local.cells.n[d] = sub.cells[d], mine.lo[d] = sub.offset[d], mine.hi[d] = sub.offset[d] + sub.cells[d];
  Field<double, Rank> part(ctx, local);
  detail::copy_from_host<double, Rank>(ctx, values<Rank>(mine).data(), part.view());
  fill_ghosts(part, bc);
  Halo<double, Rank>(comm, sub, ghost, ctx).exchange(part);
  const std::vector<double> got = part.to_host_with_ghosts();

  int bad = 0;
  std::size_t t = 0;
  const Box<Rank> lb = local.with_ghosts();
  index_t p[3] = {0, 0, 0};
  for (p[0] = lb.lo[0]; p[0] < lb.hi[0]; ++p[0])
    for (p[1] = Rank > 1 ? lb.lo[1] : 0; p[1] < (Rank > 1 ? lb.hi[1] : 1); ++p[1])
      for (p[2] = Rank > 2 ? lb.lo[2] : 0; p[2] < (Rank > 2 ? lb.hi[2] : 1); ++p[2], ++t) {
        std::size_t w = 0;  // the same cell in the whole grid's ghosted layout
        for (int d = 0; d < Rank; ++d) w = w * std::size_t(cells[d] + 2 * ghost) + std::size_t(p[d] + sub.offset[d] + ghost);
        if (got[t] == want_all[w]) continue;
        if (bad++ == 0)
          std::fprintf(stderr, "halo_check: %dD ghost %d, rank %d of %d: local cell (%lld, %lld, %lld) is %.17g, want %.17g\n",
                       Rank, ghost, comm.rank(), comm.size(), (long long)p[0], (long long)p[1], (long long)p[2], got[t],
                       want_all[w]);
      }
  return bad;
}

int run(int argc, char** argv) {
  const Comm comm = Comm::world();
  const std::string backend = argc > 1 ? argv[1] : "cpu";
  ContextOptions options;
  if (const int gpus = cuda_device_count(); gpus > 0) options.device = comm.local_rank() % gpus;
  const Context ctx = Context::create(backend == "cuda" ? BackendRequest::cuda : BackendRequest::cpu, options);
  const int n = comm.size();
  const FaceBc per{BcKind::periodic, 0}, dir{BcKind::dirichlet, 0.75}, neu{BcKind::neumann, -0.5};
  int bad = 0, cases = 0;
  // (Comm's text gather, which tells ranks that share a GPU: every rank's text, of its own length, in rank order)
  const std::vector<std::string> texts = comm.allgather(std::string(std::size_t(comm.rank()), 'x') + "@" + std::to_string(comm.rank()));
  for (int r = 0; r < n; ++r)
    if (texts.size() != std::size_t(n) || texts[std::size_t(r)] != std::string(std::size_t(r), 'x') + "@" + std::to_string(r)) {
      std::fprintf(stderr, "halo_check: rank %d: Comm::allgather of text gave a wrong entry for rank %d\n", comm.rank(), r);
      ++bad;
      break;
    }
  for (int ghost = 1; ghost <= 2; ++ghost) {
    Boundary<1> b1 = Boundary<1>::periodic();
    bad += check<1>(comm, ctx, {11}, {n}, ghost, b1), ++cases;
    b1.lo[0] = dir, b1.hi[0] = neu;
    bad += check<1>(comm, ctx, {11}, {n}, ghost, b1), ++cases;
    Boundary<2> b2;
    b2.lo[0] = b2.hi[0] = per;
    b2.lo[1] = dir, b2.hi[1] = neu;
    Boundary<2> c2 = Boundary<2>::all(dir);
    c2.hi[0] = neu;
    Boundary<3> b3;
    b3.lo[0] = dir, b3.hi[0] = neu;
    b3.lo[1] = b3.hi[1] = per;
    b3.lo[2] = neu, b3.hi[2] = dir;
    for (int p0 = 1; p0 <= n; ++p0) {  // every arrangement of the ranks
      if (n % p0) continue;
      bad += check<2>(comm, ctx, {13, 12}, {p0, n / p0}, ghost, b2), ++cases;
      bad += check<2>(comm, ctx, {13, 12}, {p0, n / p0}, ghost, c2), ++cases;
      bad += check<2>(comm, ctx, {13, 12}, {p0, n / p0}, ghost, Boundary<2>::periodic()), ++cases;
      // rows of 80 doubles: GPU slabs normal to dimension 0 go straight through the copy engines
      bad += check<2>(comm, ctx, {13, 80}, {p0, n / p0}, ghost, c2), ++cases;
      for (int p1 = 1; p1 <= n / p0; ++p1) {
        if ((n / p0) % p1) continue;
        bad += check<3>(comm, ctx, {9, 8, 10}, {p0, p1, n / p0 / p1}, ghost, b3), ++cases;
        bad += check<3>(comm, ctx, {9, 8, 10}, {p0, p1, n / p0 / p1}, ghost, Boundary<3>::periodic()), ++cases;
        bad += check<3>(comm, ctx, {9, 8, 40}, {p0, p1, n / p0 / p1}, ghost, b3), ++cases;
      }
    }
  }
  const double total = comm.sum(double(bad));
  if (comm.rank() == 0)
    std::printf("halo_check (%s): %d cases on %d ranks, %.0f cells differ\n", ctx.device_name().c_str(), cases, n, total);
  return total == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // usage: halo_check [cpu|cuda]   (cuda: one GPU per rank, halos through NCCL when built with it)
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "halo_check: %s\n", e.what());
    return 1;
  }
}
