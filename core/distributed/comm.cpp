// Comm over MPI_COMM_WORLD, or the one-process identity. MPI is initialised only when an MPI
// launcher started this process; a plain `simulate` never touches MPI. MPI_Finalize runs at
// exit. It asks for MPI_THREAD_MULTIPLE: granted, a duplicate of MPI_COMM_WORLD serves the
// background snapshot writer (for_background_io), so its collectives never meet the step loop's.
#include "core/distributed/comm.hpp"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "core/runtime/error.hpp"

#if SIMKIT_HAS_MPI
#include <mpi.h>
#endif

namespace sim {

namespace {
/// Throws unless every count and offset list of an all-to-all has one entry per rank.
void check_alltoallv_lists(int ranks, const std::vector<std::size_t>& send_bytes, const std::vector<std::size_t>& send_offsets,
                           const std::vector<std::size_t>& recv_bytes, const std::vector<std::size_t>& recv_offsets) {
  for (const auto* list : {&send_bytes, &send_offsets, &recv_bytes, &recv_offsets})
    if (list->size() != std::size_t(ranks))
      throw Error("Comm::alltoallv: a count or offset list of " + std::to_string(list->size()) + " entries for " +
                  std::to_string(ranks) + " ranks");
}

/// One process's all-to-all: its part to itself.
void copy_own_part(const void* send, const std::vector<std::size_t>& send_bytes, const std::vector<std::size_t>& send_offsets,
                   void* recv, const std::vector<std::size_t>& recv_offsets) {
  if (send_bytes[0] > 0)
    std::memcpy(static_cast<char*>(recv) + recv_offsets[0], static_cast<const char*>(send) + send_offsets[0], send_bytes[0]);
}

/// The number of processes an MPI launcher started (its environment variables), 0 when none did.
int launched_size() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return std::getenv("PMIX_RANK") || std::getenv("MPI_LOCALNRANKS") ? 1 : 0;
}
}  // namespace

#if SIMKIT_HAS_MPI
struct Pending::Requests {
  std::vector<MPI_Request> list;
};

namespace {
void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int n = 0;
  MPI_Error_string(rc, text, &n);
  throw Error(std::string("MPI: ") + what + " failed: " + std::string(text, std::size_t(n)));
}

MPI_Comm io_comm = MPI_COMM_NULL;  // the background writer's duplicate of MPI_COMM_WORLD

/// op over comm of one value.
template <class T>
T allreduce(T v, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  T out{};
  check(MPI_Allreduce(&v, &out, 1, type, op, comm), "MPI_Allreduce");
  return out;
}

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}
}  // namespace

Comm Comm::world() {
  static const Comm w = [] {
    Comm c;
    if (launched_size() == 0) return c;  // not started by mpirun/mpiexec/srun: MPI stays untouched
    int initialized = 0;
    MPI_Initialized(&initialized);
    int provided = 0;
    if (!initialized) {
      check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
      std::atexit(finalize_at_exit);
    } else {
      MPI_Query_thread(&provided);
    }
    if (provided == MPI_THREAD_MULTIPLE) check(MPI_Comm_dup(MPI_COMM_WORLD, &io_comm), "MPI_Comm_dup");
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size_);
    MPI_Comm node;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c.rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
    MPI_Comm_rank(node, &c.local_rank_);
    MPI_Comm_free(&node);
    c.mpi_ = true;
    return c;
  }();
  return w;
}

bool Comm::mpi_compiled() { return true; }

MPI_Comm native_mpi_comm(const Comm& comm) {
  if (!uses_mpi(comm)) return MPI_COMM_SELF;
  return comm.is_background_io() ? io_comm : MPI_COMM_WORLD;
}

bool Comm::background_io() const { return !mpi_ || io_comm != MPI_COMM_NULL; }

Comm Comm::for_background_io() const {
  Comm c = *this;
  c.io_ = mpi_ && io_comm != MPI_COMM_NULL;
  return c;
}

double Comm::sum(double v) const {
  if (!mpi_) return v;
  double total = 0;  // gathered and added in rank order: the result does not depend on MPI's reduction tree
  for (double x : allgather(v)) total += x;
  return total;
}
std::uint64_t Comm::sum(std::uint64_t v) const { return mpi_ ? allreduce(v, MPI_UINT64_T, MPI_SUM, native_mpi_comm(*this)) : v; }
double Comm::min(double v) const { return mpi_ ? allreduce(v, MPI_DOUBLE, MPI_MIN, native_mpi_comm(*this)) : v; }
double Comm::max(double v) const { return mpi_ ? allreduce(v, MPI_DOUBLE, MPI_MAX, native_mpi_comm(*this)) : v; }
std::int64_t Comm::max(std::int64_t v) const { return mpi_ ? allreduce(v, MPI_INT64_T, MPI_MAX, native_mpi_comm(*this)) : v; }
std::int64_t Comm::broadcast(std::int64_t v) const {
  if (mpi_) check(MPI_Bcast(&v, 1, MPI_INT64_T, 0, native_mpi_comm(*this)), "MPI_Bcast");
  return v;
}
std::string Comm::broadcast(const std::string& text) const {
  if (!mpi_) return text;
  std::string out = text;
  out.resize(std::size_t(broadcast(std::int64_t(text.size()))));
  check(MPI_Bcast(out.data(), int(out.size()), MPI_CHAR, 0, native_mpi_comm(*this)), "MPI_Bcast");
  return out;
}
std::vector<double> Comm::allgather(double v) const {
  std::vector<double> all(std::size_t(size_), v);
  if (mpi_) check(MPI_Allgather(&v, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, native_mpi_comm(*this)), "MPI_Allgather");
  return all;
}
namespace {
/// MPI_Allgatherv's counts and displacements for sizes[r] items from rank r, and their total.
struct GatherLayout {
  std::vector<int> count, displ;
  std::size_t total = 0;
};
GatherLayout gather_layout(const std::vector<double>& sizes, const char* items) {
  GatherLayout g{std::vector<int>(sizes.size()), std::vector<int>(sizes.size()), 0};
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    if (g.total + std::size_t(sizes[r]) > std::size_t(std::numeric_limits<int>::max()))
      throw Error(std::string("Comm::allgather: more ") + items + " than MPI's int count");
    g.count[r] = int(sizes[r]), g.displ[r] = int(g.total), g.total += std::size_t(sizes[r]);
  }
  return g;
}
}  // namespace

std::vector<double> Comm::allgather(const std::vector<double>& mine) const {
  if (!mpi_) return mine;
  const GatherLayout g = gather_layout(allgather(double(mine.size())), "values");
  std::vector<double> all(g.total);
  check(MPI_Allgatherv(mine.data(), int(mine.size()), MPI_DOUBLE, all.data(), g.count.data(), g.displ.data(), MPI_DOUBLE,
                       native_mpi_comm(*this)),
        "MPI_Allgatherv");
  return all;
}
std::vector<std::string> Comm::allgather(const std::string& mine) const {
  if (!mpi_) return {mine};
  const GatherLayout g = gather_layout(allgather(double(mine.size())), "text");
  std::string all(g.total, '\0');
  check(MPI_Allgatherv(mine.data(), int(mine.size()), MPI_CHAR, all.data(), g.count.data(), g.displ.data(), MPI_CHAR,
                       native_mpi_comm(*this)),
        "MPI_Allgatherv");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < g.count.size(); ++r) out.push_back(all.substr(std::size_t(g.displ[r]), std::size_t(g.count[r])));
  return out;
}
void Comm::barrier() const {
  if (mpi_) check(MPI_Barrier(native_mpi_comm(*this)), "MPI_Barrier");
}

void Comm::alltoallv(const void* send, const std::vector<std::size_t>& send_bytes, const std::vector<std::size_t>& send_offsets,
                     void* recv, const std::vector<std::size_t>& recv_bytes, const std::vector<std::size_t>& recv_offsets) const {
  check_alltoallv_lists(size_, send_bytes, send_offsets, recv_bytes, recv_offsets);
  if (!mpi_) return copy_own_part(send, send_bytes, send_offsets, recv, recv_offsets);
  // counts in the widest unit (8, 4 or 1 bytes) that divides every count and offset, so that
  // MPI's int counts reach as far as they can
  std::size_t unit = 8;
  for (const auto* list : {&send_bytes, &send_offsets, &recv_bytes, &recv_offsets})
    for (std::size_t v : *list)
      while (v % unit) unit /= 2;
  const MPI_Datatype type = unit == 8 ? MPI_UINT64_T : unit == 4 ? MPI_UINT32_T : unit == 2 ? MPI_UINT16_T : MPI_BYTE;
  auto ints = [unit](const std::vector<std::size_t>& bytes) {
    std::vector<int> out(bytes.size());
    for (std::size_t r = 0; r < bytes.size(); ++r) {
      if (bytes[r] / unit > std::size_t(std::numeric_limits<int>::max()))
        throw Error("Comm::alltoallv: " + std::to_string(bytes[r]) + " bytes are beyond MPI's int count of " +
                    std::to_string(unit) + "-byte elements; use more ranks so that each rank holds less");
      out[r] = int(bytes[r] / unit);
    }
    return out;
  };
  const std::vector<int> sc = ints(send_bytes), sd = ints(send_offsets), rc = ints(recv_bytes), rd = ints(recv_offsets);
  check(MPI_Alltoallv(send, sc.data(), sd.data(), type, recv, rc.data(), rd.data(), type, native_mpi_comm(*this)),
        "MPI_Alltoallv");
}

Pending Comm::start(const std::vector<Transfer>& transfers) const {
  Pending p;
  if (transfers.empty()) return p;
  if (!mpi_) throw Error("Comm::start: a one-process comm has no peers to exchange with");
  for (const Transfer& t : transfers)
    if (t.bytes > std::size_t(std::numeric_limits<int>::max()))
      throw Error("Comm::start: a message of " + std::to_string(t.bytes) +
                  " bytes is beyond MPI's int count; use more ranks so that each box face is smaller");
  p.requests_->list.reserve(2 * transfers.size());
  for (const Transfer& t : transfers) {
    p.requests_->list.emplace_back();
    check(MPI_Irecv(t.recv, int(t.bytes), MPI_BYTE, t.peer, t.recv_tag, native_mpi_comm(*this), &p.requests_->list.back()),
          "MPI_Irecv");
  }
  for (const Transfer& t : transfers) {
    p.requests_->list.emplace_back();
    check(MPI_Isend(t.send, int(t.bytes), MPI_BYTE, t.peer, t.send_tag, native_mpi_comm(*this), &p.requests_->list.back()),
          "MPI_Isend");
  }
  return p;
}

void Pending::wait() {
  if (!requests_ || requests_->list.empty()) return;
  check(MPI_Waitall(int(requests_->list.size()), requests_->list.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  requests_->list.clear();
}

void Comm::abort(int code) const {
  if (mpi_) MPI_Abort(native_mpi_comm(*this), code);
  std::exit(code);
}

#else  // no MPI: one rank

struct Pending::Requests {};

Comm Comm::world() {
  const int n = launched_size();
  if (n > 1)
    throw Error("mpirun started " + std::to_string(n) + " copies of a simkit built without MPI (SIMKIT_MPI=OFF): each "
                "would run the whole problem into the same files; rebuild with MPI (Debian: apt-get install "
                "libopenmpi-dev libhdf5-openmpi-dev, then cmake -DSIMKIT_MPI=ON) or run one process without mpirun");
  return Comm();
}
bool Comm::mpi_compiled() { return false; }
bool Comm::background_io() const { return true; }
Comm Comm::for_background_io() const { return *this; }
double Comm::sum(double v) const { return v; }
std::uint64_t Comm::sum(std::uint64_t v) const { return v; }
double Comm::min(double v) const { return v; }
double Comm::max(double v) const { return v; }
std::int64_t Comm::max(std::int64_t v) const { return v; }
std::int64_t Comm::broadcast(std::int64_t v) const { return v; }
std::string Comm::broadcast(const std::string& text) const { return text; }
std::vector<double> Comm::allgather(double v) const { return {v}; }
std::vector<double> Comm::allgather(const std::vector<double>& mine) const { return mine; }
std::vector<std::string> Comm::allgather(const std::string& mine) const { return {mine}; }
void Comm::barrier() const {}
void Comm::alltoallv(const void* send, const std::vector<std::size_t>& send_bytes, const std::vector<std::size_t>& send_offsets,
                     void* recv, const std::vector<std::size_t>& recv_bytes, const std::vector<std::size_t>& recv_offsets) const {
  check_alltoallv_lists(1, send_bytes, send_offsets, recv_bytes, recv_offsets);
  copy_own_part(send, send_bytes, send_offsets, recv, recv_offsets);
}
Pending Comm::start(const std::vector<Transfer>& transfers) const {
  if (!transfers.empty()) throw Error("Comm::start: this simkit was built without MPI (SIMKIT_MPI=OFF)");
  return Pending();
}
void Pending::wait() {}
void Comm::abort(int code) const { std::exit(code); }

#endif

Pending::Pending() : requests_(std::make_unique<Requests>()) {}
Pending::Pending(Pending&&) noexcept = default;
Pending& Pending::operator=(Pending&& o) noexcept {
  if (this != &o) {
    wait();
    requests_ = std::move(o.requests_);
  }
  return *this;
}
Pending::~Pending() {
  try {
    wait();
  } catch (...) {
  }
}

bool uses_mpi(const Comm& comm) { return comm.mpi_; }

}  // namespace sim
