// The cpu backend's pool (pool.hpp). One pass at a time: a job is published by a sequence
// number (even: a job is open, odd: none), workers announce themselves in `active_` before
// they read the job and check the number again after, and the caller retires the job (odd
// number) before it waits for `active_` to drain: a worker that arrives late sees the job
// retired and touches nothing (the job's function lives on the caller's stack).
#include "core/cpu/pool.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace sim::cpu {
namespace {

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/// A pause, and every 64th time a yield (a thread we wait for may share this core).
inline void pause_or_yield(int k) {
  if (k % 64 == 0) std::this_thread::yield();
  else relax();
}

/// How long a worker polls for the next pass before it sleeps. It yields every 64 polls: on a
/// busy machine the scheduler may put it on the caller's core, where plain spinning took the
/// caller's time (slower than one thread alone; docs/performance.md).
constexpr auto spin_time = std::chrono::microseconds(100);

thread_local bool in_worker = false;

class Pool {
 public:
  /// Runs the job; false when the pool is busy with another thread's pass (the caller runs it alone).
  bool run(index_t chunks, void (*fn)(const void*, index_t), const void* arg, int threads) {
    std::unique_lock<std::mutex> submit(submit_, std::try_to_lock);
    if (!submit.owns_lock()) return false;
    grow(threads - 1);
    const std::uint64_t s = seq_.load(std::memory_order_relaxed) + 1;  // odd now: no worker reads the job
    fn_ = fn, arg_ = arg, chunks_ = chunks, workers_allowed_ = threads - 1;
    next_.store(0, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    seq_.store(s, std::memory_order_seq_cst);  // published
    if (sleepers_.load(std::memory_order_seq_cst) > 0) {
      { std::lock_guard<std::mutex> lock(sleep_mutex_); }
      wake_.notify_all();
    }
    index_t mine = 0;
    for (index_t c; (c = next_.fetch_add(1, std::memory_order_relaxed)) < chunks;) fn(arg, c), ++mine;
    // only chunks that a worker has claimed and is running remain
    for (int k = 1; done_.load(std::memory_order_acquire) + mine < chunks; ++k) pause_or_yield(k);
    seq_.store(s + 1, std::memory_order_seq_cst);  // retired
    for (int k = 1; active_.load(std::memory_order_seq_cst) != 0; ++k) pause_or_yield(k);
    return true;
  }

  void hold(bool held) { held_.store(held); }
  index_t worker_chunks() const { return worker_chunks_.load(); }

 private:
  void grow(int workers) {
    while (int(threads_.size()) < workers) {
      const int id = int(threads_.size());
      threads_.emplace_back([this, id] { work(id); });
      threads_.back().detach();  // the pool lives as long as the process
    }
  }

  void work(int id) {
    in_worker = true;
    std::uint64_t seen = 0;  // (never a sequence number: a job open when this worker starts is joined)
    for (;;) {
      const std::uint64_t s = wait_for_change(seen);
      seen = s;
      if (s % 2 != 0) continue;  // no job open
      active_.fetch_add(1, std::memory_order_seq_cst);
      if (seq_.load(std::memory_order_seq_cst) == s && id < workers_allowed_ && !held_.load(std::memory_order_relaxed)) {
        const index_t chunks = chunks_;
        index_t ran = 0;
        for (index_t c; (c = next_.fetch_add(1, std::memory_order_relaxed)) < chunks;) {
          fn_(arg_, c);
          done_.fetch_add(1, std::memory_order_release);
          ++ran;
        }
        if (ran) worker_chunks_.fetch_add(ran, std::memory_order_relaxed);
      }
      active_.fetch_sub(1, std::memory_order_seq_cst);
    }
  }

  /// The sequence number once it differs from seen: polled for spin_time, then asleep.
  std::uint64_t wait_for_change(std::uint64_t seen) {
    const auto until = std::chrono::steady_clock::now() + spin_time;
    for (int k = 0;; ++k) {
      const std::uint64_t s = seq_.load(std::memory_order_acquire);
      if (s != seen) return s;
      if (k % 64 == 63) {
        if (std::chrono::steady_clock::now() > until) break;
        std::this_thread::yield();  // a caller sharing this core runs first
      } else {
        relax();
      }
    }
    std::unique_lock<std::mutex> lock(sleep_mutex_);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    std::uint64_t s;
    while ((s = seq_.load(std::memory_order_seq_cst)) == seen) wake_.wait(lock);
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
    return s;
  }

  std::mutex submit_;
  std::vector<std::thread> threads_;
  std::atomic<std::uint64_t> seq_{1};
  std::atomic<int> active_{0}, sleepers_{0};
  std::atomic<index_t> next_{0}, done_{0}, worker_chunks_{0};
  std::atomic<bool> held_{false};
  // the open job (read by workers only between their announcement and the retirement)
  void (*fn_)(const void*, index_t) = nullptr;
  const void* arg_ = nullptr;
  index_t chunks_ = 0;
  int workers_allowed_ = 0;
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: detached workers may poll it until the process ends
  return *p;
}

}  // namespace

int pass_threads() {
  if (in_worker || omp_in_parallel()) return 1;
  return std::max(1, omp_get_max_threads());
}

void run_chunks(index_t chunks, void (*fn)(const void*, index_t), const void* arg, int threads) {
  if (threads <= 0) threads = pass_threads();
  threads = int(std::min<index_t>(threads, chunks));
  if (threads <= 1 || !pool().run(chunks, fn, arg, threads))
    for (index_t c = 0; c < chunks; ++c) fn(arg, c);
}

namespace testing {
void hold_workers(bool held) { pool().hold(held); }
index_t chunks_run_by_workers() { return pool().worker_chunks(); }
}  // namespace testing

}  // namespace sim::cpu
