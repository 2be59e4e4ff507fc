#pragma once
// The cpu backend's threads for for_each and the reductions. A pass is cut into chunks; the
// calling thread and the pool's workers claim chunks from a shared counter, and the caller
// returns when every chunk has run. The caller never waits for a worker that has not started:
// if the others are descheduled (a busy machine: a laptop with other programs, a shared
// server) it runs the chunks itself and goes on. With OpenMP's parallel regions the caller
// waits at the join for every thread of the team; with libgomp's default waiting (workers spin
// about 3 ms after a region, then sleep) a spinning worker that the scheduler has taken off
// the core is not woken early, and on a loaded machine every region waited a scheduler tick
// for it, many times a small step's work (docs/performance.md). Workers spin briefly after a pass (the next one
// usually follows within microseconds), then sleep on a condition variable.
//
// The number of threads is OpenMP's (omp_get_max_threads(): OMP_NUM_THREADS, or the
// context's cpu_threads through omp_set_num_threads). A pass started from inside a pool
// worker, inside an OpenMP parallel region, or while another thread's pass holds the pool,
// runs on the calling thread. Which thread runs a chunk never changes a result: for_each's
// points are independent, and the reductions combine fixed pieces in a fixed order.
#include "core/runtime/types.hpp"

namespace sim::cpu {

/// Runs fn(arg, c) for every c in [0, chunks), on the calling thread and up to threads - 1
/// workers of the pool (threads <= 0: omp_get_max_threads()). fn must not throw.
void run_chunks(index_t chunks, void (*fn)(const void* arg, index_t c), const void* arg, int threads = 0);

/// The threads a pass started on this thread may use now (1 inside a worker or an OpenMP region).
int pass_threads();

/// Calls f(c) for every c in [0, chunks) on the pool (see run_chunks).
template <class F>
void parallel_chunks(index_t chunks, const F& f) {
  if (chunks <= 1) {
    if (chunks == 1) f(index_t(0));
    return;
  }
  run_chunks(chunks, [](const void* p, index_t c) { (*static_cast<const F*>(p))(c); }, &f);
}

namespace testing {
/// Test hook: while held, the pool's workers take no chunk (as if the scheduler had taken
/// them off the cores), so a pass must complete on the calling thread alone.
void hold_workers(bool held);
/// Chunks the pool's workers (not callers) have run since the process started.
index_t chunks_run_by_workers();
}  // namespace testing

}  // namespace sim::cpu
