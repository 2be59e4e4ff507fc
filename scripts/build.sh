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
# SIMKIT_QUICK_BUILD=ON (scripts/test.sh without a GPU): host code at -O1, a third less build time.
cmake -S . -B "$build" -G Ninja -DSIMKIT_CUDA_COMPILE_ONLY=$compile_only \
  -DSIMKIT_QUICK_BUILD="${SIMKIT_QUICK_BUILD:-OFF}" "$@"
cmake --build "$build" --parallel
