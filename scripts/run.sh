#!/usr/bin/env bash
# The main job: set up, build, and run the shipped demo config (heat diffusion in 2D), then
# the array tour example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh -DSIMKIT_BUILD_BENCH=ON
build=${SIMKIT_BUILD_DIR:-build}
"$build"/apps/simulate configs/heat2d.toml
"$build"/apps/simulate info output/heat2d/snapshot_000000000.h5 | sed -n 1,12p
"$build"/examples/array_tour
