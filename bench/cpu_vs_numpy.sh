#!/usr/bin/env bash
# On this (GPU-less) machine: the fused expression on simkit's cpu backend and NumPy's three
# in-place operations (peers.py, in the folder SIMKIT_PEERS names) on the same n, side by side.
#   bench/cpu_vs_numpy.sh OUTDIR [n]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1; n=${2:-100000000}
mkdir -p "$out"
commit=$(git rev-parse --short HEAD)
build/bench/bench_core --backend cpu --n "$n" --no-reduce --repeat 5 --commit "$commit" --json "$out/bench_core_cpu.json"
py=/usr/bin/python3  # Debian's python3-numpy
peers=${SIMKIT_PEERS:-.shared/peers}  # the peer scripts (peers.py, fluid_fast.py) live outside the repository
[ -d "$peers" ] || { echo "no peer scripts in $peers: set SIMKIT_PEERS to their folder" >&2; exit 2; }
$py "$peers/peers.py" elementwise --dtype float64 --backend numpy --n "$n" --repeat 5 | tee "$out/peers_numpy.jsonl"
nproc > "$out/cpus.txt"; lscpu | grep -E "Model name|^CPU\(s\)" >> "$out/cpus.txt"
