#!/usr/bin/env bash
# Installs the Debian packages simkit builds against, if any is missing. The CUDA toolkit
# (nvcc, CUB, cuBLAS, cuSOLVER, cuRAND) is used when present at /usr/local/cuda; without it simkit
# builds the cpu backend alone. OpenBLAS and LAPACKE give the cpu backend's matmul/solve/inv
# (without them simkit builds plain loops instead). OpenMPI and the parallel HDF5 (beside the serial one) give the
# MPI build (SIMKIT_MPI, `mpirun -np N simulate`); a plain `simulate` never needs them.
#   scripts/install-deps.sh         what the build and the tools need
#   scripts/install-deps.sh test    also what only tests need: ParaView and Xvfb for the
#                                   tools.paraview test (about 240 packages, 1 GB, 2 minutes
#                                   on a fresh Debian 12); SIMKIT_NO_PARAVIEW=1 leaves them
#                                   out, and that test is then reported as skipped
set -euo pipefail
packages=(cmake ninja-build g++ libgtest-dev libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libfmt-dev libhdf5-dev libfftw3-dev
          libopenblas-dev liblapacke-dev
          libopenmpi-dev openmpi-bin libhdf5-openmpi-dev
          python3-numpy python3-h5py python3-matplotlib)
if [ "${1:-}" = test ] && [ -z "${SIMKIT_NO_PARAVIEW:-}" ]; then
  packages+=(paraview python3-paraview xvfb)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "simkit: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
