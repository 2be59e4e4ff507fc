#!/usr/bin/env bash
# Regenerates the README gallery in docs/gallery/ from the shipped configs. Each entry below
# is run with `simulate --backend auto` into a temporary directory, then drawn as
#   NAME.png              the last snapshot (3-D: the middle slice of dimension 0)
#   NAME.gif              all snapshots, fixed colour limits
#   NAME_diagnostics.png  every column of diagnostics.csv against time
# (a model that writes no field snapshots gets the diagnostics picture only).
# usage: tools/make_gallery.sh    (SIMKIT_SIMULATE=path/to/simulate picks another binary)
set -euo pipefail -f  # -f: no globbing, overrides like grid.cells=[64,64] stay as they are

# One line per picture set; append new models here. The last column takes options that both
# simkit_plot.py and simkit_animate.py know (--field, --slice, --cmap).
#   NAME   | CONFIG                 | simulate overrides | plot options
gallery=(
  "heat2d  | configs/heat2d.toml    |                    | --cmap inferno"
  "heat3d  | configs/heat3d.toml    |                    | --cmap inferno"
  "mcpi    | configs/mcpi.toml      | model.batch=2000000 run.steps=50 |"
)

root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/tools"
out="$root/docs/gallery"
simulate="${SIMKIT_SIMULATE:-$root/build/apps/simulate}"
max_gif_bytes=1500000
[ -x "$simulate" ] || { echo "make_gallery: no simulate at $simulate; build it: ninja -C build simulate" >&2; exit 2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
for entry in "${gallery[@]}"; do
  IFS='|' read -r name config overrides options <<<"$entry"
  name="$(echo $name)" config="$(echo $config)" overrides="$(echo $overrides)"  # trim
  run="$tmp/$name"
  echo "== $name: simulate $config --backend auto${overrides:+ $overrides}"
  # shellcheck disable=SC2086  # overrides and options are word lists
  "$simulate" "$root/$config" --backend auto --output "$run" --quiet $overrides
  "$tools/simkit_diagnostics.py" "$run" --dpi 80 -o "$out/${name}_diagnostics.png"
  last="$(find "$run" -maxdepth 1 -name 'snapshot_*.h5' | sort | tail -n 1)"
  [ -n "$last" ] || continue  # no field snapshots
  # shellcheck disable=SC2086
  "$tools/simkit_plot.py" "$last" --size 600x500 --dpi 80 $options -o "$out/$name.png"
  # shellcheck disable=SC2086
  "$tools/simkit_animate.py" "$run" --size 600x500 --dpi 80 --fps 5 $options -o "$out/$name.gif"
  size=$(stat -c %s "$out/$name.gif")
  if ((size > max_gif_bytes)); then
    echo "make_gallery: $out/$name.gif is $size bytes (limit $max_gif_bytes): use fewer frames (--every) or a smaller --size" >&2
    exit 1
  fi
done
ls -l "$out"
