#!/usr/bin/env bash
# The whole test suite: set up, build, run every test through CTest. GPU tests skip, with
# the reason, where no GPU is usable.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir "${SIMKIT_BUILD_DIR:-build}" --output-on-failure --parallel "$(nproc)"
