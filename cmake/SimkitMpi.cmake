# Decides SIMKIT_HAS_MPI. SIMKIT_MPI=AUTO turns MPI on when MPI and a parallel HDF5 are
# both found; ON requires them; OFF gives the single-process build (serial HDF5, no MPI).
# With MPI, simkit_io links the parallel HDF5 (FindHDF5 with HDF5_PREFER_PARALLEL; Debian's
# libhdf5-openmpi-dev sits beside the serial one).
set(SIMKIT_HAS_MPI 0)
set(SIMKIT_MPI_SUMMARY "off")
if(NOT SIMKIT_MPI STREQUAL "OFF")
  set(MPI_CXX_SKIP_MPICXX ON)  # the C API only (no libmpi_cxx); C++ targets, so C++-only users of the package link it
  find_package(MPI COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(HDF5_PREFER_PARALLEL TRUE)
    find_package(HDF5 COMPONENTS C)
    if(HDF5_FOUND AND HDF5_IS_PARALLEL)
      set(SIMKIT_HAS_MPI 1)
      set(SIMKIT_MPI_SUMMARY "on (MPI ${MPI_CXX_VERSION}, parallel HDF5 ${HDF5_VERSION})")
    else()
      set(SIMKIT_MPI_WHY "no parallel HDF5 (Debian: apt-get install libhdf5-openmpi-dev)")
      # forget the serial/parallel choice so that io/ finds the serial HDF5 as before
      unset(HDF5_PREFER_PARALLEL)
    endif()
  else()
    set(SIMKIT_MPI_WHY "no MPI (Debian: apt-get install libopenmpi-dev openmpi-bin)")
  endif()
  if(NOT SIMKIT_HAS_MPI)
    if(SIMKIT_MPI STREQUAL "ON")
      message(FATAL_ERROR "SIMKIT_MPI=ON but ${SIMKIT_MPI_WHY}; install it or use -DSIMKIT_MPI=OFF")
    endif()
    set(SIMKIT_MPI_SUMMARY "off: ${SIMKIT_MPI_WHY}")
  endif()
endif()
