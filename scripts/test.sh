#!/usr/bin/env bash
# The whole test suite: set up, build, run every test through CTest. GPU tests skip, with
# the reason, where no GPU is usable.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test   # the build's packages and ParaView for tools.paraview (SIMKIT_NO_PARAVIEW=1: not)
# Without a GPU the tests run on CPU threads only, so the build is a check build: CUDA device
# code compiled to unoptimised PTX (it cannot run here) and host code at -O1, in half the time.
check_build=(); nvidia-smi -L >/dev/null 2>&1 || check_build=(-DSIMKIT_CUDA_COMPILE_ONLY=ON -DSIMKIT_QUICK_BUILD=ON)
scripts/build.sh -DSIMKIT_BUILD_BENCH=OFF "${check_build[@]}"   # (BENCH=OFF: the benchmark programs the tests run only)
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "simkit: no usable GPU on this machine: GPU tests are reported as skipped; each says why in"
  echo "        ${SIMKIT_BUILD_DIR:-build}/Testing/Temporary/LastTest.log"
fi
ctest --test-dir "${SIMKIT_BUILD_DIR:-build}" --output-on-failure --parallel "$(nproc)"
