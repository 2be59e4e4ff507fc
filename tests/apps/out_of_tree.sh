#!/usr/bin/env bash
# CTest: install simkit to a temporary prefix, build the Gray-Scott plugin and the array tour
# out of tree with find_package(simkit), run the plugin through the installed simulate and
# check that the spots pattern forms.
#   out_of_tree.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$src/examples/gray_scott" -B "$tmp/gs" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/gs" >/dev/null
cmake -S "$src/examples/host_only" -B "$tmp/tour" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/tour" >/dev/null
"$tmp/tour/array_tour" auto 100000 | tee "$tmp/tour.txt"
grep -q "x\[0\] = 50" "$tmp/tour.txt"
mkdir -p "$tmp/run/build"
cp "$src/examples/gray_scott/gray_scott.toml" "$tmp/run/"
cp "$tmp/gs/libgray_scott.so" "$tmp/run/build/"   # where the config's [run] plugins points
"$tmp/prefix/bin/simulate" "$tmp/run/gray_scott.toml" --output "$tmp/run/out" --quiet \
  run.steps=3000 output.every=1000
# columns: step,time,mean_u,mean_v,min_v,max_v,std_v; the pattern: v spreads and stays high
python3 - "$tmp/run/out/diagnostics.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head, first, last = rows[0], rows[1], rows[-1]
col = {name.split(" ")[0]: i for i, name in enumerate(head)}
max_v, std0, std1 = float(last[col["max_v"]]), float(first[col["std_v"]]), float(last[col["std_v"]])
print(f"gray_scott: step {last[0]}: max v {max_v:.3f}, std v {std0:.4f} -> {std1:.4f}")
assert max_v > 0.2, "no spots: max v stayed low"
assert std1 > std0, "the pattern did not spread"
PY
echo "out-of-tree plugin and host-only program: OK"
