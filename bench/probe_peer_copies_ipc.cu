// Copy-engine rate between 2 GPUs across 2 processes (CUDA IPC, as PeerSlabs) against one process (peer access):
// push (copy issued by the source's process into the other's IPC-opened buffer) and pull, 1D and 2D (1 MB rows, pitch 2 MB),
// both processes at once. Processes: fork() before any CUDA call; handles and barriers through pipes.
#include <cuda_runtime.h>
#include <unistd.h>
#include <sys/wait.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("[%d] CUDA %s at %d: %s\n", me, #x, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
static int me = 0;
static int to_other[2], from_other[2];
static void send_bytes(const void* p, size_t n) { if (write(to_other[1], p, n) != ssize_t(n)) std::exit(2); }
static void recv_bytes(void* p, size_t n) { size_t got = 0; while (got < n) { ssize_t r = read(from_other[0], (char*)p + got, n - got); if (r <= 0) std::exit(3); got += size_t(r); } }
#include <cuda/atomic>
// 132 blocks, one thread each polling a flag in this GPU's memory with system-scope acquire loads
// (as PeerSlabs' cross-rank barrier waits), for `cycles` clock cycles
__global__ void spin(unsigned* flag, long long cycles) {
  const long long t0 = clock64();
  cuda::atomic_ref<unsigned, cuda::thread_scope_system> f(flag[blockIdx.x]);
  while (clock64() - t0 < cycles) if (f.load(cuda::memory_order_acquire) == 12345u) break;
}
static void barrier() { char c = 1; send_bytes(&c, 1); recv_bytes(&c, 1); }

int main(int argc, char** argv) {
  const size_t hold = size_t(argc > 1 ? atoi(argv[1]) : 1078) << 20;  // bytes of each process's buffer
  const size_t width = argc > 2 ? size_t(atol(argv[2])) : size_t(1) << 20, pitch = argc > 3 ? size_t(atol(argv[3])) : size_t(2) << 20;
  const size_t rows = argc > 4 ? size_t(atol(argv[4])) : 256, bytes = rows * width;
  int a[2], b[2];
  if (pipe(a) || pipe(b)) return 1;
  pid_t pid = fork();
  me = pid == 0 ? 1 : 0;
  if (me == 0) to_other[1] = a[1], from_other[0] = b[0]; else to_other[1] = b[1], from_other[0] = a[0];
  CK(cudaSetDevice(me));
  const size_t extra_gb = argc > 5 ? size_t(atol(argv[5])) : 0;
  const int spinning = argc > 6 ? atoi(argv[6]) : 0;
  const int held = argc > 7 ? atoi(argv[7]) : 0;  // 1: PeerSlabs' held geometry (planes of this process's half, the other's columns)
  const int sided = argc > 8 ? atoi(argv[8]) : 0;  // 1: the copy on a side stream between events, as PeerSlabs
  char* extra = nullptr;
  if (extra_gb) { CK(cudaMalloc(&extra, extra_gb << 30)); CK(cudaMemset(extra, 1, extra_gb << 30)); }
  unsigned* flags = nullptr;
  CK(cudaMalloc(&flags, 4096)); CK(cudaMemset(flags, 0, 4096));
  cudaStream_t spin_stream; CK(cudaStreamCreateWithFlags(&spin_stream, cudaStreamNonBlocking));
  char* own = nullptr;
  CK(cudaMalloc(&own, hold));
  CK(cudaMemset(own, 0x3f, hold));
  cudaIpcMemHandle_t h, theirs_h;
  CK(cudaIpcGetMemHandle(&h, own));
  send_bytes(&h, sizeof h); recv_bytes(&theirs_h, sizeof theirs_h);
  char* theirs = nullptr;
  CK(cudaIpcOpenMemHandle((void**)&theirs, theirs_h, cudaIpcMemLazyEnablePeerAccess));
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  cudaEvent_t q, q2; CK(cudaEventCreateWithFlags(&q, cudaEventDisableTiming)); CK(cudaEventCreateWithFlags(&q2, cudaEventDisableTiming));
  cudaStream_t side; CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  // the same-process comparison: a buffer of this process on the other GPU (peer access)
  char* mine_there = nullptr;
  CK(cudaSetDevice(1 - me)); CK(cudaMalloc(&mine_there, hold)); CK(cudaMemset(mine_there, 0x11, hold)); CK(cudaDeviceSynchronize());
  CK(cudaSetDevice(me));
  cudaError_t pe = cudaDeviceEnablePeerAccess(1 - me, 0); if (pe != cudaErrorPeerAccessAlreadyEnabled) CK(pe); cudaGetLastError();
  struct Case { const char* name; int kind; };  // kind: 0 IPC push 2D, 1 IPC pull 2D, 2 IPC push 1D, 3 IPC pull 1D, 4 same-process push 2D, 5 same-process push 1D
  const Case cases[] = {{"IPC push 2D", 0}, {"IPC pull 2D", 1}, {"IPC push 1D", 2}, {"IPC pull 1D", 3}, {"one process push 2D", 4}, {"one process push 1D", 5}};
  for (const Case& c : cases) {
    std::vector<float> ts;
    for (int rep = 0; rep < 13; ++rep) {
      CK(cudaStreamSynchronize(s));
      barrier();
      if (spinning) spin<<<132, 32, 0, spin_stream>>>(flags, 1400000LL * spinning);
      CK(cudaEventRecord(e0, s));
      // this process's half: rows at offset me * width in each 2 MB pitch (as the held spectrum's halves)
      const size_t off = held ? size_t(me) * rows * pitch + size_t(1 - me) * width : size_t(me) * width;
      const size_t off_pull = held ? size_t(1 - me) * rows * pitch + size_t(me) * width : size_t(1 - me) * width;
      char* src_here = own + off;
      cudaStream_t cs = s;
      if (sided) { CK(cudaEventRecord(q, s)); CK(cudaStreamWaitEvent(side, q, 0)); cs = side; }
      switch (c.kind) {
        case 0: CK(cudaMemcpy2DAsync(theirs + off, pitch, src_here, pitch, width, rows, cudaMemcpyDefault, cs)); break;
        case 1: CK(cudaMemcpy2DAsync(own + off_pull, pitch, theirs + off_pull, pitch, width, rows, cudaMemcpyDefault, cs)); break;
        case 2: CK(cudaMemcpyAsync(theirs + bytes, own, bytes, cudaMemcpyDefault, s)); break;
        case 3: CK(cudaMemcpyAsync(own + bytes, theirs, bytes, cudaMemcpyDefault, s)); break;
        case 4: CK(cudaMemcpy2DAsync(mine_there + me * width, pitch, src_here, pitch, width, rows, cudaMemcpyDefault, s)); break;
        case 5: CK(cudaMemcpyAsync(mine_there + bytes, own, bytes, cudaMemcpyDefault, s)); break;
      }
      if (sided) { CK(cudaEventRecord(q2, side)); CK(cudaStreamWaitEvent(s, q2, 0)); }
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      CK(cudaStreamSynchronize(spin_stream));
      float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1));
      if (rep >= 3) ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    float med = ts[ts.size() / 2], other = 0;
    send_bytes(&med, sizeof med); recv_bytes(&other, sizeof other);
    if (me == 0) std::printf("%-22s %6.3f / %6.3f ms  %6.1f / %6.1f GB/s (process 0 / 1), rows %zu B pitch %zu B x %zu, buffers %zu MB, %zu GB more, spin %d held %d sided %d\n",
                             c.name, med, other, bytes / (med * 1e-3) / 1e9, bytes / (other * 1e-3) / 1e9, width, pitch, rows, hold >> 20, extra_gb, spinning, held, sided);
  }
  barrier();
  CK(cudaIpcCloseMemHandle(theirs));
  if (me == 0) waitpid(pid, nullptr, 0);
  return 0;
}
