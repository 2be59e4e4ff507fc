#!/usr/bin/env bash
# Installs missing packages, configures (cuda backend when nvcc is found) and builds into
# ${SIMKIT_BUILD_DIR:-build}. Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export PATH="$PATH:/usr/local/cuda/bin"
build=${SIMKIT_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja "$@"
cmake --build "$build" --parallel
