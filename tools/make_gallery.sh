#!/usr/bin/env bash
# Regenerates the README gallery in docs/gallery/ from the shipped configs. Each entry below
# is run with `simulate --backend auto` into a temporary directory, then drawn as
#   NAME.png              the last snapshot (3-D: the middle slice of dimension 0)
#   NAME.gif              the snapshots, fixed colour limits
#   NAME_diagnostics.png  every column of diagnostics.csv against time
# (a model that writes no field snapshots gets the diagnostics picture only).
# A config in a folder with its own CMakeLists.txt (examples/gray_scott) is an out-of-tree
# model plugin: the script installs simkit from the build folder into the temporary
# directory, builds the plugin against it as a user would, and runs the installed simulate
# with --plugin.
# usage: tools/make_gallery.sh [NAME ...]    (only these entries; default all)
#   SIMKIT_BUILD_DIR=build-cpu picks the build folder (default build), SIMKIT_SIMULATE a
#   simulate binary for the in-tree models (default BUILD/apps/simulate).
set -euo pipefail -f  # -f: no globbing, overrides like grid.cells=[64,64] stay as they are

# One line per picture set; append new models here. "plot options" go to both simkit_plot.py
# and simkit_animate.py (--field, --slice, --cmap, --size, --vmin/--vmax, --symmetric);
# "animation options" to simkit_animate.py alone (--every, --start, --fps).
#   NAME      | CONFIG                           | simulate overrides | plot options | animation options
gallery=(
  "heat2d     | configs/heat2d.toml              |                    | --cmap inferno |"
  "heat3d     | configs/heat3d.toml              |                    | --cmap inferno |"
  "mcpi       | configs/mcpi.toml                | model.batch=2000000 run.steps=50 | |"
  # cylinder: Re 200 sheds a vortex about every 0.5 s (Strouhal number ~0.2) and the street
  # fills the channel by t ~ 8. The config's 1024 x 256 cells take hours on two CPU cores;
  # 256 x 64 (6.4 cells across the cylinder) to t = 10 takes about 2 minutes there and still
  # sheds a clear street. The GIF: the last 2 s, at 10 frames per shedding period. Vorticity
  # peaks at +-65 1/s on the cylinder; +-12 shows the street.
  "cylinder   | configs/cylinder.toml            | grid.cells=[256,64] run.end_time=10 output.every_time=0.05 | --field vorticity --cmap RdBu_r --symmetric --vmax 12 --size 800x260 | --start 8 --fps 10"
  "gray_scott | examples/gray_scott/gray_scott.toml |                 | --field v --cmap magma |"
)

root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/tools"
out="$root/docs/gallery"
build="${SIMKIT_BUILD_DIR:-$root/build}"
[[ "$build" = /* ]] || build="$root/$build"
simulate="${SIMKIT_SIMULATE:-$build/apps/simulate}"
max_gif_bytes=1500000
[ -x "$simulate" ] || { echo "make_gallery: no simulate at $simulate; build it: ninja -C build simulate" >&2; exit 2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

# plugin_for CONFIG: builds the plugin in CONFIG's folder against an install of $build; prints
# the path of the shared library. The installed simulate is $tmp/prefix/bin/simulate.
plugin_for() {
  local src name lib
  src="$(dirname "$root/$1")" name="$(basename "$(dirname "$root/$1")")"
  if [ ! -x "$tmp/prefix/bin/simulate" ]; then
    if [ ! -f "$build/cmake_install.cmake" ] || [ ! -x "$build/apps/simulate" ]; then
      echo "make_gallery: $build is not a built simkit build folder (SIMKIT_BUILD_DIR; ninja -C build simulate)" >&2
      return 2
    fi
    echo "== installing simkit from $build into a temporary prefix" >&2
    cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
  fi
  echo "== building the $name plugin ($src) against it" >&2
  cmake -S "$src" -B "$tmp/$name-build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$tmp/$name-build" >/dev/null
  lib="$(find "$tmp/$name-build" -maxdepth 1 -name 'lib*.so' | head -n 1)"
  [ -n "$lib" ] || { echo "make_gallery: building $src gave no lib*.so" >&2; return 1; }
  echo "$lib"
}

only=" $* "
for entry in "${gallery[@]}"; do
  IFS='|' read -r name config overrides options anim_options <<<"$entry"
  name="$(echo $name)" config="$(echo $config)" overrides="$(echo $overrides)"  # trim
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || continue
  run="$tmp/$name"
  sim=("$simulate") plugin=()
  if [ -f "$(dirname "$root/$config")/CMakeLists.txt" ]; then  # an out-of-tree model plugin
    lib="$(plugin_for "$config")"
    sim=("$tmp/prefix/bin/simulate") plugin=(--plugin "$lib" "run.plugins=[]")  # not the config's relative path
  fi
  echo "== $name: simulate $config --backend auto${overrides:+ $overrides}"
  # shellcheck disable=SC2086  # overrides and options are word lists
  "${sim[@]}" "$root/$config" "${plugin[@]}" --backend auto --output "$run" --quiet $overrides
  "$tools/simkit_diagnostics.py" "$run" --dpi 80 -o "$out/${name}_diagnostics.png"
  last="$(find "$run" -maxdepth 1 -name 'snapshot_*.h5' | sort | tail -n 1)"
  [ -n "$last" ] || continue  # no field snapshots
  # shellcheck disable=SC2086
  "$tools/simkit_plot.py" "$last" --size 600x500 --dpi 80 $options -o "$out/$name.png"
  # shellcheck disable=SC2086
  "$tools/simkit_animate.py" "$run" --size 600x500 --dpi 80 --fps 5 $options $anim_options -o "$out/$name.gif"
  size=$(stat -c %s "$out/$name.gif")
  if ((size > max_gif_bytes)); then
    echo "make_gallery: $out/$name.gif is $size bytes (limit $max_gif_bytes): use fewer frames (--every) or a smaller --size" >&2
    exit 1
  fi
done
ls -l "$out"
