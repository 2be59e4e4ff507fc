#pragma once
// For host-compiled .cpp files that speak MPI themselves (parallel HDF5): the MPI
// communicator behind a sim::Comm. Only included where SIMKIT_HAS_MPI is 1.
#include <mpi.h>

#include "core/distributed/comm.hpp"

namespace sim {

/// The MPI communicator of comm: MPI_COMM_WORLD, its background-I/O duplicate, or for a
/// comm without MPI MPI_COMM_SELF (MPI must then be initialised).
MPI_Comm native_mpi_comm(const Comm& comm);
/// Shorthand for native_mpi_comm.
inline MPI_Comm mpi_comm(const Comm& comm) { return native_mpi_comm(comm); }

}  // namespace sim
