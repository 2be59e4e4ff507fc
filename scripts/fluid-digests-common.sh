# Shared by fluid2d-digests.sh and fluid3d-digests.sh (sourced, not run): the work folder, the
# shipped configs copied without their end time, and the two steps of a digest run. The caller
# sets sim, backend and steps first.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
copy_configs() {  # config names: the shipped configs, run by steps
  for c in "$@"; do grep -v '^end_time' "$root/configs/$c.toml" > "$w/$c.toml"; done
}
report() {  # name: the digests of every snapshot and checkpoint, then the diagnostics
  for f in $(ls "$w/$1"/snapshot_*.h5 "$w/$1"/checkpoint_*.h5 2>/dev/null | sort); do
    echo "## $1 $(basename "$f")"
    "$sim" info "$f" | grep -o '^  [a-z_0-9]* .*digest [0-9a-f]*' | sed 's/  */ /g'
  done
  echo "## $1 diagnostics"; cat "$w/$1/diagnostics.csv" 2>/dev/null
}
run() {  # ranks name config overrides...
  local np=$1 name=$2 cfg=$3; shift 3
  local cmd=("$sim" --quiet --backend "$backend" --output "$w/$name" "$w/$cfg.toml" $steps "$@")
  [ "$np" -gt 1 ] && cmd=(mpirun --oversubscribe -np "$np" "${cmd[@]}")
  "${cmd[@]}" > "$w/$name.log" 2>&1 || { echo "FAILED $name"; tail -3 "$w/$name.log"; }
  report "$name"
}
