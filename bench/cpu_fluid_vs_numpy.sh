#!/usr/bin/env bash
# The lid-driven cavity step on simkit's cpu backend against fluid_fast.py --backend numpy
# (NumPy, pressure by scipy.fft.dctn) on the same machine, alternating, ROUNDS times: each
# round runs bench_fluid's four rows (128^2 and 256^2, float32 and float64), then the same
# four on NumPy. Writes OUTDIR/simkit_rK.json and OUTDIR/numpy_rK.json, and prints each
# round, the medians over the rounds and the load before and after each round.
#   bench/cpu_fluid_vs_numpy.sh OUTDIR [BUILD_DIR] [ROUNDS] [SAMPLING]
# SAMPLING is bench_fluid's (default "--steps 5 --batch 10": the median of 5 samples of 10
# steps); "--steps 50 --batch 1" samples single steps, as fluid_fast.py does (the median of 50).
# OMP_NUM_THREADS and OMP_WAIT_POLICY, when set, reach bench_fluid only (its JSON's "device" says how many threads
# ran); NumPy always runs with the shell's other settings.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1; build=${2:-build}; rounds=${3:-3}; sampling=${4:---steps 5 --batch 10}
mkdir -p "$out"
commit=${COMMIT:-$(git rev-parse --short HEAD)}  # COMMIT: the one BUILD_DIR was built from, when HEAD has moved on
py=/usr/bin/python3  # Debian's python3-numpy and python3-scipy
peers=${SIMKIT_PEERS:-.shared/peers}  # the peer scripts (peers.py, fluid_fast.py) live outside the repository
[ -d "$peers" ] || { echo "no peer scripts in $peers: set SIMKIT_PEERS to their folder" >&2; exit 2; }
loads=()
for r in $(seq 1 "$rounds"); do
  before=$(cut -d' ' -f1-3 /proc/loadavg)
  "$build/bench/bench_fluid" --backend cpu --sizes 128,256 --solvers auto --no-solve-alone $sampling \
    --commit "$commit" --json "$out/simkit_r$r.json" > /dev/null
  for n in 128 256; do
    for p in float32 float64; do
      env -u OMP_NUM_THREADS -u OMP_WAIT_POLICY $py "$peers/fluid_fast.py" --backend numpy --n "$n" --steps 50 --dtype "$p"
    done
  done | $py -c 'import json, sys; json.dump([json.loads(l) for l in sys.stdin], sys.stdout, indent=1)' > "$out/numpy_r$r.json"
  loads+=("round $r: load $before before, $(cut -d' ' -f1-3 /proc/loadavg) after")
done
printf '%s\n' "${loads[@]}"
$py - "$out" "$rounds" <<'EOF'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}  # (n, precision) -> {"simkit": [...], "numpy": [...]}
for r in range(1, rounds + 1):
    s = json.load(open(f"{out}/simkit_r{r}.json"))
    print(f"round {r}: simkit on {s['device']}")
    for row in s["rows"]:
        words = row["name"].split()  # "step 128^2 float32 auto tol 1e-4"
        rows.setdefault((int(words[1].split("^")[0]), words[2]), {"simkit": [], "numpy": []})["simkit"].append(row["ms/step"])
    for j in json.load(open(f"{out}/numpy_r{r}.json")):
        rows.setdefault((j["n"], j["dtype"]), {"simkit": [], "numpy": []})["numpy"].append(j["seconds_per_step"] * 1e3)
print("| cells | precision | simkit ms/step | NumPy ms/step | ratio | simkit runs | NumPy runs |")
print("|---|---|---|---|---|---|---|")
for (n, p), t in sorted(rows.items()):
    s, q = statistics.median(t["simkit"]), statistics.median(t["numpy"])
    runs = lambda v: ", ".join(f"{x:.3g}" for x in v)
    print(f"| {n}^2 | {p} | {s:.3g} | {q:.3g} | {s / q:.2f} | {runs(t['simkit'])} | {runs(t['numpy'])} |")
EOF
