#pragma once
// The processes of a run and what they do together: rank and size, global reductions, and
// non-blocking byte exchanges with neighbours (halo slabs). Built with MPI and launched by
// mpirun/srun, Comm::world() is MPI_COMM_WORLD; otherwise (no MPI in the build, or a plain
// `simulate` without a launcher, where MPI is never initialised) it is one rank and every
// operation is the identity. MPI itself stays inside comm.cpp (and comm_mpi.hpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sim {

/// One exchange with a peer: `bytes` sent from `send` and `bytes` received into `recv`.
/// The tag tells apart several exchanges with the same peer (e.g. both faces of a dimension
/// split into two ranks): the receiver's tag must equal the sender's.
struct Transfer {
  int peer = -1;
  int send_tag = 0, recv_tag = 0;
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t bytes = 0;
};

/// Exchanges in flight; wait() completes them (the destructor waits too).
class Pending {
 public:
  Pending();
  Pending(Pending&&) noexcept;
  Pending& operator=(Pending&&) noexcept;
  ~Pending();
  /// Blocks until every send and receive has completed.
  void wait();

 private:
  friend class Comm;
  struct Requests;
  std::unique_ptr<Requests> requests_;
};

/// A group of processes (ranks) working on one run.
class Comm {
 public:
  /// One process on its own.
  Comm() = default;
  /// All processes of the job; initialises MPI on first use when launched by an MPI launcher.
  /// Throws Error when a launcher started several copies of a build without MPI.
  static Comm world();
  /// True when this simkit was built with MPI (SIMKIT_MPI).
  static bool mpi_compiled();

  /// This process's rank, 0 .. size()-1.
  int rank() const { return rank_; }
  /// Number of ranks.
  int size() const { return size_; }
  /// This process's rank among those on the same node (to pick its GPU).
  int local_rank() const { return local_rank_; }
  /// True when more than one rank takes part.
  bool parallel() const { return size_ > 1; }

  /// Sum over ranks, added in rank order (the same bits on every rank).
  double sum(double v) const;
  /// Sum over ranks.
  std::uint64_t sum(std::uint64_t v) const;
  /// Minimum over ranks.
  double min(double v) const;
  /// Maximum over ranks.
  double max(double v) const;
  /// Maximum over ranks.
  std::int64_t max(std::int64_t v) const;
  /// Rank 0's value, on every rank.
  std::int64_t broadcast(std::int64_t v) const;
  /// Rank 0's text, on every rank.
  std::string broadcast(const std::string& text) const;
  /// Every rank's value, in rank order, on every rank.
  std::vector<double> allgather(double v) const;
  /// Every rank's values (any number per rank), concatenated in rank order, on every rank.
  std::vector<double> allgather(const std::vector<double>& mine) const;
  /// Every rank's text, in rank order, on every rank.
  std::vector<std::string> allgather(const std::string& mine) const;
  /// Waits until every rank has arrived.
  void barrier() const;
  /// Every rank sends send_bytes[r] bytes from send + send_offsets[r] to rank r and receives
  /// recv_bytes[r] bytes from rank r into recv + recv_offsets[r] (MPI_Alltoallv; host memory).
  /// Blocking and collective. One process: its own part is copied.
  void alltoallv(const void* send, const std::vector<std::size_t>& send_bytes, const std::vector<std::size_t>& send_offsets,
                 void* recv, const std::vector<std::size_t>& recv_bytes, const std::vector<std::size_t>& recv_offsets) const;
  /// Starts the transfers (receives first, then sends); complete them with Pending::wait().
  Pending start(const std::vector<Transfer>& transfers) const;
  /// The same ranks on a communicator of their own, for collective I/O on a background
  /// thread (parallel HDF5 snapshots), so its collectives never pair with the calling
  /// thread's. Only when background_io(); otherwise *this.
  Comm for_background_io() const;
  /// True when a background thread may run collectives: one process, or MPI granted
  /// MPI_THREAD_MULTIPLE.
  bool background_io() const;
  /// True for a communicator from for_background_io().
  bool is_background_io() const { return io_; }
  /// Ends every rank of the job with this exit code (after an error on one rank only).
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool mpi_ = false;  // MPI_COMM_WORLD (true) or this process alone
  bool io_ = false;   // the background I/O duplicate of MPI_COMM_WORLD (comm.cpp)
  friend bool uses_mpi(const Comm&);
};

/// True when comm's operations go through MPI (MPI_COMM_WORLD); false for one process alone.
bool uses_mpi(const Comm& comm);

}  // namespace sim
