#!/usr/bin/env bash
# On a GPU-less machine: bench_arrays on simkit's cpu backend and NumPy's `peers.py arrays`
# at the same n and precision, then one table of the two times per operation (ratio < 1:
# simkit faster). Run it on an otherwise idle machine; on a shared one the times mean little.
#   bench/cpu_arrays_vs_numpy.sh OUTDIR [n] [float32|float64] [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1; n=${2:-2048}; dtype=${3:-float32}; build=${4:-build}
mkdir -p "$out"
commit=$(git rev-parse --short HEAD)
"$build"/bench/bench_arrays --backend cpu --n "$n" --dtype "$dtype" --repeat 5 --commit "$commit" \
  --json "$out/bench_arrays_cpu_$dtype.json"
py=/usr/bin/python3  # Debian's python3-numpy
peers=${SIMKIT_PEERS:-.shared/peers}  # the peer scripts (peers.py, fluid_fast.py) live outside the repository
[ -d "$peers" ] || { echo "no peer scripts in $peers: set SIMKIT_PEERS to their folder" >&2; exit 2; }
$py "$peers/peers.py" arrays --backend numpy --n "$n" --dtype "$dtype" --repeat 5 | tee "$out/peers_numpy_$dtype.jsonl"
nproc > "$out/cpus.txt"; lscpu | grep -E "Model name|^CPU\(s\)" >> "$out/cpus.txt"
$py - "$out/bench_arrays_cpu_$dtype.json" "$out/peers_numpy_$dtype.jsonl" "$dtype" <<'PY' | tee "$out/table_$dtype.md"
import json, sys
ours = {r["name"].split()[0]: r for r in json.load(open(sys.argv[1]))["rows"] if r["name"].split()[1] == sys.argv[3]}
print("| operation | %s | simkit cpu ms | NumPy ms | simkit / NumPy |" % sys.argv[3])
print("|---|---|---|---|---|")
for line in open(sys.argv[2]):
    p = json.loads(line)
    if "op" not in p or p["op"] not in ours:
        continue
    a, b = ours[p["op"]]["ms"], p["seconds"] * 1e3
    print("| %s | %s | %.4g | %.4g | %.2f |" % (p["op"], ours[p["op"]]["name"], a, b, a / b))
PY
