#!/usr/bin/env bash
# CTest: the README's "Writing a model" commands, run as written (install simkit, build the
# Gray-Scott plugin out of tree with find_package(simkit), run it through the installed
# simulate with --plugin), and a check that the spots pattern forms and that the build is
# optimised; then the array tour built out of tree, the plugin run as the tutorial does, from
# its folder with [run] plugins, and (with MPI) on 2 ranks against 1.
#   out_of_tree.sh BUILD_DIR SOURCE_DIR [HAS_MPI]   (HAS_MPI 1: simkit was built with MPI)
set -euo pipefail
build=$1 src=$2 has_mpi=${3:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The README's block, line by line: HOME is the temporary folder (so ~/simkit lies in it),
# `build` is this build folder and examples/ a copy of the sources. The simulate line gets a
# shorter run and its own output folder appended; nothing else is changed.
work="$tmp/work"
mkdir -p "$work"
ln -s "$(cd "$build" && pwd)" "$work/build"
cp -r "$src/examples" "$work/examples"
mapfile -t readme < <(awk '/^## Writing a model/ { f = 1 } f && /^```sh/ { b = 1; next } b && /^```/ { exit } b' "$src/README.md")
[ "${#readme[@]}" -eq 3 ] || { echo "README: expected 3 commands under 'Writing a model', found ${#readme[@]}" >&2; exit 1; }
for line in "${readme[@]}"; do
  cmd=${line%%#*}   # drop the comment
  echo "README> $cmd"
  case "$cmd" in
    *bin/simulate*) (cd "$work" && export HOME="$tmp" && eval "$cmd --output out --quiet run.steps=3000 output.every=1000") ;;
    *) (cd "$work" && export HOME="$tmp" && eval "$cmd" >/dev/null) ;;
  esac
done
[ -x "$tmp/simkit/bin/simulate" ] && [ -f "$work/gs/libgray_scott.so" ]
cp "$work/out/diagnostics.csv" "$tmp/readme_diagnostics.csv"

# The README's build names no build type: the package must make it an optimised one (an
# unoptimised plugin runs tens of times slower, silently).
optimised() {  # optimised BUILD_DIR TARGET: Release in the cache, -O2/-O3 on the target's compile line
  grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$1/CMakeCache.txt" || { echo "$1: build type is not Release" >&2; return 1; }
  grep -Eqs -- '-O[23]( |$)' "$1/CMakeFiles/$2.dir/flags.make" "$1/build.ninja" ||
    { echo "$1: $2 is compiled without -O2/-O3" >&2; return 1; }
}
optimised "$work/gs" gray_scott
echo "out-of-tree plugin: Release, optimised"

cmake -S "$src/examples/host_only" -B "$tmp/tour" -DCMAKE_PREFIX_PATH="$tmp/simkit" >/dev/null
cmake --build "$tmp/tour" >/dev/null
optimised "$tmp/tour" array_tour
"$tmp/tour/array_tour" auto 100000 | tee "$tmp/tour.txt"
grep -q "x\[0\] = 50" "$tmp/tour.txt"

# A standalone program as docs/cupy-users.md ("Building your own program") writes it: with
# simkit_add_executable, and, for a CPU-only simkit, a plain add_executable + simkit::core.
mkdir -p "$tmp/standalone"
cat > "$tmp/standalone/main.cpp" <<'CPP'
#include <cstdio>
#include "core/array/expr.hpp"
#include "core/array/slicing.hpp"
int main() {
  auto ctx = sim::Context::create("auto");
  auto a = sim::Array<double, 1>::from_host(ctx, sim::extents(5), {1, 2, 3, 4, 5});
  sim::assign(ctx, sim::slice(a, sim::Range{1, sim::none}), sim::slice(a, sim::Range{0, -1}));  // a[1:] = a[:-1]
  auto y = sim::eval(a * 2);
  std::printf("sum %g %g\n", sim::sum(a), sim::sum(y));  // 1 1 2 3 4 -> 11, 22
}
CPP
plain=0
config=$(find "$tmp/simkit" -name simkitConfig.cmake | head -1)
grep -Eq 'set\(SIMKIT_HAS_CUDA (OFF|0|FALSE)\)' "$config" && plain=1
cat > "$tmp/standalone/CMakeLists.txt" <<CMK
cmake_minimum_required(VERSION 3.25)
project(standalone LANGUAGES CXX)
find_package(simkit REQUIRED)
simkit_add_executable(with_function SOURCES main.cpp)
if($plain)
  add_executable(plain main.cpp)
  target_link_libraries(plain PRIVATE simkit::core)
  set_target_properties(plain PROPERTIES CXX_STANDARD 17)
endif()
CMK
cmake -S "$tmp/standalone" -B "$tmp/standalone/build" -DCMAKE_PREFIX_PATH="$tmp/simkit" >/dev/null
cmake --build "$tmp/standalone/build" >/dev/null
"$tmp/standalone/build/with_function" | tee "$tmp/standalone.txt"
grep -q "sum 11 22" "$tmp/standalone.txt"
if [ "$plain" = 1 ]; then
  "$tmp/standalone/build/plain" | grep -q "sum 11 22"
  echo "plain add_executable + simkit::core: OK"
fi

# The tutorial's way (docs/writing-a-model.md): from the example's folder, the plugin built
# into build/ there and named by the config's [run] plugins.
ex="$work/examples/gray_scott"
mkdir -p "$ex/build"
cp "$work/gs/libgray_scott.so" "$ex/build/"
(cd "$ex" && "$tmp/simkit/bin/simulate" gray_scott.toml --output out --quiet run.steps=1000 output.every=1000)
[ -f "$ex/out/diagnostics.csv" ]

# The finite-volume example, built the same way: mass constant to rounding between its walls.
cmake -S "$work/examples/advection_diffusion" -B "$tmp/ad" -DCMAKE_PREFIX_PATH="$tmp/simkit" >/dev/null
cmake --build "$tmp/ad" >/dev/null
optimised "$tmp/ad" advection_diffusion
(cd "$work" && "$tmp/simkit/bin/simulate" examples/advection_diffusion/advection_diffusion.toml --plugin "$tmp/ad/libadvection_diffusion.so" \
   --output ad_out --quiet --backend cpu 'grid.cells=[64, 64]' run.steps=400 output.every=100)
python3 - "$work/ad_out/diagnostics.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
i = [h.split(" ")[0] for h in rows[0]].index("mass")
mass = [float(r[i]) for r in rows[1:]]
print(f"advection_diffusion: mass {mass[0]:.15g} -> {mass[-1]:.15g} over {rows[-1][0]} steps")
assert len(mass) == 5 and all(abs(m - mass[0]) <= 1e-13 * mass[0] for m in mass), "mass not conserved"
PY

# Under mpirun the plugin runs split over 2 ranks (the tutorial's model is decomposed: noise
# keyed by the global cell index, face rules on the global boundary only) and gives the bits
# of the one-process run; a copy that does not declare parallel = sim::Parallel::grid is
# refused with the way to make it run.
if [ "$has_mpi" = 1 ] && mpirun=$(command -v mpirun); then
  mpi_env=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OMPI_MCA_btl_vader_single_copy_mechanism=none)
  short=(--plugin gs/libgray_scott.so --quiet --backend cpu run.steps=200 output.every=200 'boundary.x_lo="neumann"'
         'boundary.x_hi="neumann"' 'boundary.y_lo="dirichlet"' 'boundary.y_hi="dirichlet"' boundary.y_hi_value=0.5)
  (cd "$work" && "$tmp/simkit/bin/simulate" examples/gray_scott/gray_scott.toml "${short[@]}" --output one_rank)
  for split in "[2, 1]" "[1, 2]"; do
    rm -rf "$work/two_ranks"
    (cd "$work" && "${mpi_env[@]}" "$mpirun" --oversubscribe -np 2 "$tmp/simkit/bin/simulate" \
       examples/gray_scott/gray_scott.toml "${short[@]}" "grid.decomposition=$split" --output two_ranks)
    for step in 000000000 000000200; do
      one=$("$tmp/simkit/bin/simulate" info "$work/one_rank/snapshot_$step.h5" | grep digest)
      two=$("$tmp/simkit/bin/simulate" info "$work/two_ranks/snapshot_$step.h5" | grep digest)
      echo "$two" | sed "s/^/split $split, step $step: /"
      [ -n "$one" ] && [ "$one" = "$two" ] || { echo "mpirun -np 2 (split $split) differs from one rank at step $step" >&2; exit 1; }
    done
  done
  mkdir -p "$tmp/serial"
  sed '/m.parallel = sim::Parallel::grid/d' "$work/examples/gray_scott/gray_scott.cpp" > "$tmp/serial/gray_scott.cpp"
  cp "$work/examples/gray_scott/CMakeLists.txt" "$tmp/serial/"
  cmake -S "$tmp/serial" -B "$tmp/serial/build" -DCMAKE_PREFIX_PATH="$tmp/simkit" >/dev/null
  cmake --build "$tmp/serial/build" >/dev/null
  set +e
  err=$(cd "$work" && "${mpi_env[@]}" "$mpirun" --oversubscribe -np 2 "$tmp/simkit/bin/simulate" examples/gray_scott/gray_scott.toml \
        --plugin "$tmp/serial/build/libgray_scott.so" --output mpi_out --quiet 2>&1 >/dev/null)
  code=$?
  set -e
  echo "$err" | head -3
  [ "$code" -eq 2 ] || { echo "mpirun -np 2 with a model not declared decomposed: exit $code, expected 2" >&2; exit 1; }
  echo "$err" | grep -q "parallel = sim::Parallel::grid" || { echo "the refusal does not say how to run decomposed" >&2; exit 1; }
fi

# columns: step,time,mean_u,mean_v,min_v,max_v,std_v; the pattern: v spreads and stays high
python3 - "$tmp/readme_diagnostics.csv" <<'PY'
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
