#!/usr/bin/env bash
# Installs missing packages, configures (cuda backend when nvcc is found) and builds into
# ${SIMKIT_BUILD_DIR:-build}. Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
build=${SIMKIT_BUILD_DIR:-build}
# A full, optimised build unless arguments say otherwise (scripts/test.sh on a machine without
# a GPU asks for a check build: SIMKIT_CUDA_COMPILE_ONLY and SIMKIT_QUICK_BUILD).
cmake -S . -B "$build" -G Ninja -DSIMKIT_CUDA_COMPILE_ONLY=OFF -DSIMKIT_QUICK_BUILD=OFF "$@"
cmake --build "$build" --parallel
