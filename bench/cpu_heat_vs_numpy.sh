#!/usr/bin/env bash
# On this (GPU-less) machine: simkit's heat step on the cpu backend and NumPy's array code
# (peers.py, in the folder SIMKIT_PEERS names) on the same grids, side by side.
#   bench/cpu_heat_vs_numpy.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
mkdir -p "$out"
commit=$(git rev-parse --short HEAD)
build/bench/bench_heat --backend cpu --case 2:4096:20 --case 3:256:10 --repeat 3 --commit "$commit" \
  --json "$out/bench_heat_cpu.json"
py=/usr/bin/python3  # Debian's python3-numpy
peers=${SIMKIT_PEERS:-.shared/peers}  # the peer scripts (peers.py, fluid_fast.py) live outside the repository
[ -d "$peers" ] || { echo "no peer scripts in $peers: set SIMKIT_PEERS to their folder" >&2; exit 2; }
: >"$out/peers_heat_numpy.jsonl"
for d in float32 float64; do
  $py "$peers/peers.py" heat2d --backend numpy --dtype $d --n 4096 --steps 100 --repeat 3 | tee -a "$out/peers_heat_numpy.jsonl"
  $py "$peers/peers.py" heat3d --backend numpy --dtype $d --n 256 --steps 100 --repeat 3 | tee -a "$out/peers_heat_numpy.jsonl"
done
