#!/usr/bin/env bash
# Regenerates the README gallery in docs/gallery/ from the shipped configs. Each entry below
# is run with `simulate --backend auto` into a temporary directory, then drawn as
#   NAME.png              the last snapshot (3-D: the middle slice of dimension 0)
#   NAME.gif              all snapshots, fixed colour limits
#   NAME_diagnostics.png  every column of diagnostics.csv against time
# usage: tools/make_gallery.sh    (SIMKIT_SIMULATE=path/to/simulate picks another binary)
set -euo pipefail

# One line per picture set; append new models here.
#   NAME   | CONFIG                 | simulate overrides | simkit_plot/animate options
gallery=(
  "heat2d  | configs/heat2d.toml    |                    | --cmap inferno"
  "heat3d  | configs/heat3d.toml    |                    | --cmap inferno"
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
  name="$(echo $name)" config="$(echo $config)"  # trim
  run="$tmp/$name"
  echo "== $name: simulate $config --backend auto $overrides"
  # shellcheck disable=SC2086  # overrides and options are word lists
  "$simulate" "$root/$config" --backend auto --output "$run" --quiet $overrides
  last="$(ls "$run"/snapshot_*.h5 | sort | tail -n 1)"
  # shellcheck disable=SC2086
  "$tools/simkit_plot.py" "$last" --size 600x500 --dpi 80 $options -o "$out/$name.png"
  # shellcheck disable=SC2086
  "$tools/simkit_animate.py" "$run" --size 600x500 --dpi 80 --fps 5 $options -o "$out/$name.gif"
  "$tools/simkit_diagnostics.py" "$run" --dpi 80 -o "$out/${name}_diagnostics.png"
  size=$(stat -c %s "$out/$name.gif")
  if ((size > max_gif_bytes)); then
    echo "make_gallery: $out/$name.gif is $size bytes (limit $max_gif_bytes): use fewer frames (--every) or a smaller --size" >&2
    exit 1
  fi
done
ls -l "$out"
