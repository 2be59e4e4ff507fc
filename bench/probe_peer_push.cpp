// Probe (not kept): PeerSlabs held in place, the 512^3 float64 spectrum's geometry, push and pull
// timed with events; argv[1] = 1: NCCL's channel set up first; argv[2] = GB to allocate first.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "core/array/array.hpp"
#include "core/distributed/comm.hpp"
#include "core/distributed/peer_slabs.hpp"
#include "core/distributed/nccl_channel.hpp"
using namespace sim;
int main(int argc, char** argv) {
  const Comm comm = Comm::world();
  ContextOptions options;
  options.device = comm.local_rank();
  const Context ctx = Context::create("cuda", options);
  const bool nccl = argc > 1 && std::atoi(argv[1]) == 1;
  const long gb = argc > 2 ? std::atol(argv[2]) : 0;
  const index_t n0 = argc > 3 ? std::atol(argv[3]) : 512, n2 = 514;
  const int peer_mode = argc > 4 ? std::atoi(argv[4]) : 0;  // 1: enable peer access to the other GPU; 2: only a context there
  if (peer_mode) {
    const int other = 1 - comm.local_rank();
    if (peer_mode == 2) cudaSetDevice(other), cudaFree(nullptr), cudaSetDevice(comm.local_rank());
    if (peer_mode == 1) {
      const cudaError_t e = cudaDeviceEnablePeerAccess(other, 0);
      std::printf("rank %d: cudaDeviceEnablePeerAccess(%d): %s\n", comm.rank(), other, cudaGetErrorString(e));
    }
  }
  std::shared_ptr<NcclChannel> ch;
  if (nccl) ch = NcclChannel::get(comm, ctx);
  std::vector<Array<double, 1>> extra;
  for (long g = 0; g < gb; ++g) extra.emplace_back(ctx, extents(index_t(1) << 27)), extra.back().fill(1.0);
  if (argc > 5 && std::atoi(argv[5]) == 1) {  // the raw copy in this process: its own cudaMalloc'd buffer, opened by the other by IPC
    const std::size_t rows = std::size_t(n0) / 2, width = std::size_t(256) * n2 * 8, pitch = 2 * width, hold = std::size_t(n0) * pitch;
    char* own = nullptr;
    const int data = argc > 7 ? std::atoi(argv[7]) : 0;  // 0: bytes 0x3f; 1: doubles 0.25; 2: zero bytes
    const std::size_t more = argc > 8 ? std::size_t(std::atol(argv[8])) : 0;  // bytes allocated past the values (PeerSlabs' flags: 8448)
    cudaMalloc(&own, hold + more), cudaMemset(own, data == 2 ? 0 : 0x3f, hold), cudaDeviceSynchronize();
    if (data == 1) detail::fill(ctx, dense_view(reinterpret_cast<double*>(own), extents(index_t(hold / 8))), 0.25), ctx.synchronize();
    cudaIpcMemHandle_t h, th;
    cudaIpcGetMemHandle(&h, own);
    const std::vector<std::string> all = comm.allgather(std::string(reinterpret_cast<const char*>(&h), sizeof h));
    std::memcpy(&th, all[std::size_t(1 - comm.rank())].data(), sizeof th);
    char* theirs = nullptr;
    std::printf("open: %s\n", cudaGetErrorString(cudaIpcOpenMemHandle(reinterpret_cast<void**>(&theirs), th, cudaIpcMemLazyEnablePeerAccess)));
    cudaStream_t s = static_cast<cudaStream_t>(ctx.stream());
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    const int me = comm.rank();
    const std::size_t off = std::size_t(me) * rows * pitch + std::size_t(1 - me) * width;
    std::vector<float> t;
    for (int rep = 0; rep < 15; ++rep) {
      ctx.synchronize();
      comm.barrier();
      cudaEventRecord(e0, s);
      cudaMemcpy2DAsync(theirs + off, pitch, own + off, pitch, width, rows, cudaMemcpyDefault, s);
      cudaEventRecord(e1, s);
      cudaEventSynchronize(e1);
      float m = 0;
      cudaEventElapsedTime(&m, e0, e1);
      if (rep >= 3) t.push_back(m);
    }
    std::sort(t.begin(), t.end());
    std::printf("rank %d raw push in this process, data %d, %zu bytes more: %.3f ms (%.1f GB/s), %s\n", me, data, more, t[t.size() / 2], double(rows * width) / t[t.size() / 2] / 1e6,
                cudaGetErrorString(cudaGetLastError()));
    return 0;
  }
  const int R = comm.size();
  std::vector<Box<3>> from, to;
  for (int r = 0; r < R; ++r) {
    from.push_back(Box<3>{{n0 * r / R, 0, 0}, {n0 * (r + 1) / R, 512, n2}});
    to.push_back(Box<3>{{0, 512 * r / R, 0}, {n0, 512 * (r + 1) / R, n2}});
  }
  const Box<3> hold{{0, 0, 0}, {n0, 512, n2}};
  PeerSlabs<double, 3> peer(comm, ctx, from, to, hold);
  const View<double, 3> a = peer.from_view();
  detail::fill(ctx, a, 0.25);
  ctx.synchronize();
  cudaStream_t s = static_cast<cudaStream_t>(ctx.stream());
  cudaEvent_t e0, e1, e2, e3;
  cudaEventCreate(&e0), cudaEventCreate(&e1), cudaEventCreate(&e2), cudaEventCreate(&e3);
  const int what = argc > 6 ? std::atoi(argv[6]) : 0;  // 1: pushes alone; 2: pushes and barriers; 0: push, barrier, pull
  std::vector<float> push, bar, pull;
  for (int rep = 0; rep < 15; ++rep) {
    ctx.synchronize();
    comm.barrier();
    cudaEventRecord(e0, s);
    peer.push(a, 0, a.shape.n[0]);
    peer.join();
    cudaEventRecord(e1, s);
    if (what != 1) peer.barrier();
    cudaEventRecord(e2, s);
    if (what == 0) peer.pull(a, {0, a.shape.n[0]}), peer.wait_pulled(0);
    cudaEventRecord(e3, s);
    cudaEventSynchronize(e3);
    float m1, m2, m3;
    cudaEventElapsedTime(&m1, e0, e1), cudaEventElapsedTime(&m2, e1, e2), cudaEventElapsedTime(&m3, e2, e3);
    if (rep >= 3) push.push_back(m1), bar.push_back(m2), pull.push_back(m3);
  }
  auto med = [](std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  const double bytes = double(peer.bytes_sent());
  std::printf("rank %d what %d peer mode %d nccl %d extra %ld GB n0 %ld: push %.3f ms (%.1f GB/s) barrier %.3f pull %.3f ms (%.1f GB/s), %.1f MB\n", comm.rank(),
              what, peer_mode, int(nccl), gb, long(n0), med(push), bytes / med(push) / 1e6, med(bar), med(pull), bytes / med(pull) / 1e6, bytes / 1e6);
  return 0;
}
