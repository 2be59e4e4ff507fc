#!/usr/bin/env bash
# The main job: set up, build, and run the shipped example (the array tour).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
"${SIMKIT_BUILD_DIR:-build}"/examples/array_tour
