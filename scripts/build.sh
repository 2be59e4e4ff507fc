#!/usr/bin/env bash
# Installs missing packages, configures (cuda backend when nvcc is found) and builds into
# ${SIMKIT_BUILD_DIR:-build}. Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
build=${SIMKIT_BUILD_DIR:-build}
# Without a GPU the CUDA device code can never run here: it is only checked to compile
# (SIMKIT_CUDA_COMPILE_ONLY: unoptimised PTX, two thirds of the build time); an argument overrides.
compile_only=OFF; nvidia-smi -L >/dev/null 2>&1 || compile_only=ON
cmake -S . -B "$build" -G Ninja -DSIMKIT_CUDA_COMPILE_ONLY=$compile_only "$@"
cmake --build "$build" --parallel
