#pragma once
// For host-compiled .cpp files that speak MPI themselves (parallel HDF5): the MPI
// communicator behind a sim::Comm. Only included where SIMKIT_HAS_MPI is 1.
#include <mpi.h>

#include "core/comm.hpp"

namespace sim {

/// MPI_COMM_WORLD for a comm that uses MPI, else MPI_COMM_SELF (MPI must then be initialised).
inline MPI_Comm mpi_comm(const Comm& comm) { return uses_mpi(comm) ? MPI_COMM_WORLD : MPI_COMM_SELF; }

}  // namespace sim
