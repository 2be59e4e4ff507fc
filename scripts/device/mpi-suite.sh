#!/usr/bin/env bash
# Runs on a multi-GPU machine (H200 x2 or x4) from the repository root, over binaries built
# here with CUDA + MPI (+ NCCL) and carried in SIMKIT_DEV_DIR (scripts/device/prepare.sh):
#   1. halo_check on the GPU backend (every ghost, edge and corner against the one-rank fill),
#      through NCCL and through host buffers (SIMKIT_HALO=host); peer_slabs_check (the peer
#      transposes there and back, in 1 and 3 lanes); transform_check on the peer transposes (auto, and the copy
#      engines with the way back by columns) and on NCCL's all-to-all;
#   2. heat 2D/3D and Monte Carlo on N GPUs against 1 GPU, compared by `simulate info`'s
#      field digests (equal digests: bit-identical fields); restarts from N ranks on 1 and from 1 on N;
#   3. weak scaling of heat 2D (8192^2 and 16384^2 per GPU) and 3D (512^3 per GPU), float32 and float64,
#      NCCL and host halos: ms per step from --stats.
#   4. (halo) bench_halo: exchange bandwidth alone; (nsys) an nsys profile of the NCCL path.
#   5. (fluid) the fluid model on N GPUs against 1 GPU (diagnostics to the solver tolerance:
#      the machine has no h5py), restarts from N ranks on 1 and from 1 on N, and strong scaling
#      at 4096^2 (FLUID_SCALING=0 leaves it out).
#      (fluid-variants) the same scaling under each halo path and multigrid gather threshold.
#      (fluid3d) the 3D fluid on N GPUs against 1 GPU: the Taylor-Green vortex 128^3 and the
#      walled cavity 64^3 (diagnostics to 1e-6, measured 1e-12 on CPUs), a restart from N ranks on 1,
#      and bench_fluid_scaling's Taylor-Green step at 512^3 (strong, and weak per GPU) alone.
#   6. (weak3d) 3D weak scaling alone, 1 GPU against N under each halo path, repeated.
#   7. (fluid-scaling) bench_fluid_scaling on 2 and N GPUs: the distributed transform solve, the
#      cavity 4096^2 step and the 3D periodic 512^3 solve (strong, and weak per GPU), 1 GPU against
#      N, with the transposes' bandwidth against an NCCL all-to-all of the same bytes; the
#      transposes whole and in 4 pieces overlapping the transforms (SIMKIT_TRANSPOSE_CHUNKS).
#   8. (heat-repeat) heat 2D 16384^2 per GPU, float64 and float32, 1 GPU and N, three rounds in
#      alternating order, with each GPU's SM clock, temperature and throttle reasons after each
#      run: whether a low weak-scaling figure repeats, and whether the clocks explain it.
#   9. (heat-weak) bench_heat_scaling on 2 and N GPUs, three runs: heat weak scaling (8192^2 and
#      16384^2 per GPU in 2D, 512^3 in 3D) from the medians of timed samples, with the slowest sample.
#  10. (fluid-steps) the decomposed fluid step's paths on N GPUs (SIMKIT_DECOMPOSED_STEPS:
#      auto, the default (one device loop a batch); replays, per-step replays queued one ahead; host,
#      unrecorded with dt reduced on the host): the 2D cavity 512^2 and the 3D Taylor-Green 128^3,
#      the same bits (digests of the last snapshot and checkpoint) and ms per step, with each run's
#      line saying how its steps ran.
#  11. (transpose-paths) the periodic box's slab transposes copied into the other GPUs' memory
#      by the copy engines (SIMKIT_TRANSPOSE_PATH=copies), stored there by transpose kernels
#      (kernels) and through NCCL's all-to-all (nccl): the Taylor-Green vortex 128^3 on N GPUs,
#      the same bits; the solves alone (3D 512^3, 2D 4096^2), the cavity 4096^2 step and the
#      Taylor-Green step at 512^3 (strong, and weak per GPU) under each path.
#   OUT=... SIMKIT_DEV_DIR=.dev scripts/device/mpi-suite.sh N [checks] [scaling] [weak3d] [halo] [orders] [nsys] [diagnose] [fluid] [fluid3d] [fluid-variants] [fluid-scaling] [heat-repeat] [heat-weak] [fluid-steps]
set -u
n=$1; shift
parts=("$@"); [ ${#parts[@]} -gt 0 ] || parts=(checks scaling halo)
out=${OUT:-/tmp/out}; mkdir -p "$out"
root=$(pwd)
bin=$root/${SIMKIT_DEV_DIR:-.dev}
export LD_LIBRARY_PATH=$bin/devlib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sim=$bin/apps/simulate
export SIMKIT_HALO=${SIMKIT_HALO:-auto}
[ -n "${SIMKIT_MG_GATHER_CELLS:-}" ] || unset SIMKIT_MG_GATHER_CELLS  # unset: the default threshold
mpi() { local np=$1; shift
  local pass=(-x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x SIMKIT_HALO)
  [ -n "${SIMKIT_MG_GATHER_CELLS:-}" ] && pass+=(-x SIMKIT_MG_GATHER_CELLS)
  [ -n "${SIMKIT_DECOMPOSED_STEPS:-}" ] && pass+=(-x SIMKIT_DECOMPOSED_STEPS)
  [ -n "${SIMKIT_TRANSPOSE_PATH:-}" ] && pass+=(-x SIMKIT_TRANSPOSE_PATH)
  [ -n "${SIMKIT_COPY_LANES:-}" ] && pass+=(-x SIMKIT_COPY_LANES)
  [ -n "${SIMKIT_COPIES_BACK:-}" ] && pass+=(-x SIMKIT_COPIES_BACK)
  timeout "${MPI_TIMEOUT:-900}" mpirun --allow-run-as-root --bind-to none -np "$np" "${pass[@]}" "$@"; }  # MPI_TIMEOUT: seconds a run may take
digests() { "$sim" info "$1" | grep -o '^  [a-z_]* .*digest [0-9a-f]*' | sed 's/  */ /g'; }
same() {  # label, file A, file B
  if [ "$(digests "$2")" = "$(digests "$3")" ] && [ -n "$(digests "$2")" ]; then echo "SAME   $1"; else echo "DIFFER $1"; digests "$2"; digests "$3"; fi
}
# (fluid parts) frun: a run on np ranks into $w/name; close: the largest relative difference of
# every diagnostics.csv value (the same steps required)
frun() { local np=$1 name=$2; shift 2; rm -rf "$w/$name"
  mpi "$np" "$sim" --quiet --backend cuda --output "$w/$name" "$@" > "$w/$name.log" 2>&1 || { echo "FAILED $name"; tail -3 "$w/$name.log"; }; }
close() { python3 - "$1" "$2" "$3" <<'PY'
import sys
label, a, b = sys.argv[1:]
ra = [l.split(",") for l in open(a).read().splitlines()]
rb = [l.split(",") for l in open(b).read().splitlines()]
if len(ra) != len(rb) or ra[0] != rb[0] or len(ra) < 2 or ra[-1] == ra[0] or rb[-1] == rb[0]:
    print(f"DIFFER {label}: {len(ra)} vs {len(rb)} rows (or a run that wrote no row)"); sys.exit()
worst = {}
for x, y in zip(ra[1:], rb[1:]):
    for name, p, q in zip(ra[0], x, y):
        p, q = float(p), float(q)
        worst[name] = max(worst.get(name, 0.0), abs(p - q) / max(abs(p), abs(q), 1e-300))
ok = all(v <= 1e-6 for k, v in worst.items() if not k.startswith(("pressure_", "max_divergence")))
print(("CLOSE " if ok else "DIFFER ") + label + ": largest relative difference per column " +
      ", ".join(f"{k.split(' ')[0]} {v:.1e}" for k, v in worst.items()))
PY
}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpus.txt"
for part in "${parts[@]}"; do
  case $part in
    checks)
      for halo in nccl host; do
        SIMKIT_HALO=$halo mpi "$n" "$bin/tests/mpi/halo_check" cuda 2>&1 | tail -2 | sed "s/^/[$halo] /"
      done
      # the peer transposes (CUDA IPC) there and back, every value; the distributed transform solve against
      # the one-rank solve (every side combination, every split), on the peer transposes and on NCCL's all-to-all
      mpi "$n" "$bin/tests/mpi/peer_slabs_check" cuda 2>&1 | tail -2
      SIMKIT_COPY_LANES=3 mpi "$n" "$bin/tests/mpi/peer_slabs_check" cuda 2>&1 | tail -2 | sed "s/^/[3 lanes] /"
      mpi "$n" "$bin/tests/mpi/transform_check" cuda 2>&1 | tail -3
      SIMKIT_TRANSPOSE_PATH=nccl mpi "$n" "$bin/tests/mpi/transform_check" cuda 2>&1 | tail -3 | sed "s/^/[nccl] /"
      # the copy engines' paths: the 2D cosine solve's column pieces, the 3D periodic solve's way back by columns
      SIMKIT_TRANSPOSE_PATH=copies SIMKIT_COPIES_BACK=columns mpi "$n" "$bin/tests/mpi/transform_check" cuda 2>&1 | tail -3 |
        sed "s/^/[copies, back by columns] /"
      w=$out/runs; mkdir -p "$w"
      run() { local np=$1 name=$2; shift 2; rm -rf "$w/$name"
        mpi "$np" "$sim" --quiet --backend cuda --output "$w/$name" "$@" > "$w/$name.log" 2>&1 || { echo "FAILED $name"; tail -3 "$w/$name.log"; }; }
      last() { ls "$w/$1"/$2_*.h5 | tail -1; }
      h2="configs/heat2d.toml grid.cells=[512,384] run.end_time=0.0004 output.every=100 checkpoint.every=150"
      h3="configs/heat3d.toml grid.cells=[96,64,80] run.end_time=0.004 output.every=50 checkpoint.every=100"
      for halo in nccl host; do
        export SIMKIT_HALO=$halo
        # shellcheck disable=SC2086
        { run 1 h2_1 $h2; run "$n" h2_$n $h2; run 1 h3_1 $h3; run "$n" h3_$n $h3
          run 1 h2f_1 $h2 run.precision=\"float32\" 'boundary.default="periodic"'
          run "$n" h2f_$n $h2 run.precision=\"float32\" 'boundary.default="periodic"'; }
        same "[$halo] heat 2D float64, $n GPUs vs 1" "$(last h2_1 snapshot)" "$(last h2_$n snapshot)"
        same "[$halo] heat 3D float64, $n GPUs vs 1" "$(last h3_1 snapshot)" "$(last h3_$n snapshot)"
        same "[$halo] heat 2D float32 periodic, $n GPUs vs 1" "$(last h2f_1 snapshot)" "$(last h2f_$n snapshot)"
      done
      export SIMKIT_HALO=auto
      # restart: the N-rank run's older checkpoint continued on 1 GPU, against the uninterrupted run
      rm -rf "$w/r"; mkdir -p "$w/r"; ck=$(ls "$w/h2_$n"/checkpoint_*.h5 | head -1); cp "$ck" "$w/r/"
      # shellcheck disable=SC2086
      "$sim" $h2 --quiet --backend cuda --output "$w/r" --resume > "$w/r.log" 2>&1 || tail -3 "$w/r.log"
      same "restart: $n GPUs to $(basename "$ck"), then 1 GPU to the end" "$(last h2_1 snapshot)" "$(last r snapshot)"
      # and the other way: the 1-GPU run's older checkpoint continued on N GPUs
      rm -rf "$w/rn"; mkdir -p "$w/rn"; ck=$(ls "$w/h2_1"/checkpoint_*.h5 | head -1); cp "$ck" "$w/rn/"
      # shellcheck disable=SC2086
      mpi "$n" "$sim" $h2 --quiet --backend cuda --output "$w/rn" --resume > "$w/rn.log" 2>&1 || tail -3 "$w/rn.log"
      same "restart: 1 GPU to $(basename "$ck"), then $n GPUs to the end" "$(last h2_1 snapshot)" "$(last rn snapshot)"
      run 1 mc_1 configs/mcpi.toml model.batch=1000000 run.steps=20
      run "$n" mc_$n configs/mcpi.toml model.batch=1000000 run.steps=20
      echo "Monte Carlo, last diagnostics row, 1 GPU and $n GPUs:"; tail -1 "$w/mc_1/diagnostics.csv"; tail -1 "$w/mc_$n/diagnostics.csv"
      ;;
    fluid)
      w=$out/fluid; mkdir -p "$w"
      cav="configs/cavity_re1000.toml grid.cells=[512,512] run.end_time=0.1 output.every=20 checkpoint.every=30 model.pressure_tol=1e-10"
      cyl="configs/cylinder.toml run.precision=\"float64\" run.end_time=0.1 output.every=20 model.pressure_tol=1e-10"
      # shellcheck disable=SC2086
      { frun 1 cav_1 $cav; frun "$n" cav_$n $cav; frun 1 cyl_1 $cyl; frun "$n" cyl_$n $cyl; }
      close "fluid cavity 512^2 float64, $n GPUs vs 1" "$w/cav_1/diagnostics.csv" "$w/cav_$n/diagnostics.csv"
      close "fluid cylinder 1024x256 float64 (inflow, outflow, obstacle), $n GPUs vs 1" "$w/cyl_1/diagnostics.csv" "$w/cyl_$n/diagnostics.csv"
      rm -rf "$w/r"; mkdir -p "$w/r"; ck=$(ls "$w/cav_$n"/checkpoint_*.h5 | head -1); cp "$ck" "$w/r/"
      # shellcheck disable=SC2086
      "$sim" $cav --quiet --backend cuda --output "$w/r" --resume > "$w/r.log" 2>&1 || tail -3 "$w/r.log"
      for f in cav_1 r; do { head -1 "$w/cav_1/diagnostics.csv"; tail -1 "$w/$f/diagnostics.csv"; } > "$w/$f.last.csv"; done
      close "fluid restart: $n GPUs to $(basename "$ck"), then 1 GPU to the end (last row)" "$w/cav_1.last.csv" "$w/r.last.csv"
      rm -rf "$w/rn"; mkdir -p "$w/rn"; ck=$(ls "$w/cav_1"/checkpoint_*.h5 | head -1); cp "$ck" "$w/rn/"
      # shellcheck disable=SC2086
      mpi "$n" "$sim" $cav --quiet --backend cuda --output "$w/rn" --resume > "$w/rn.log" 2>&1 || tail -3 "$w/rn.log"
      { head -1 "$w/cav_1/diagnostics.csv"; tail -1 "$w/rn/diagnostics.csv"; } > "$w/rn.last.csv"
      close "fluid restart: 1 GPU to $(basename "$ck"), then $n GPUs to the end (last row)" "$w/cav_1.last.csv" "$w/rn.last.csv"
      [ "${FLUID_SCALING:-1}" = 1 ] || precs=""
      for prec in ${precs-float64 float32}; do  # strong scaling (FLUID_SCALING=0: none): the 4096^2 cavity on 1, 2 and N GPUs
        tol=1e-8; [ $prec = float32 ] && tol=1e-4
        nps="1 2"; [ "$n" -gt 2 ] && nps="$nps $n"
        # auto (the transform solver, distributed on several GPUs) and mg_cg on every count
        for run in $(for np in $nps; do echo "$np auto"; echo "$np mg_cg"; done | tr ' ' :); do
          read -r np solver <<<"${run/:/ }"
          tag=${prec}_${solver}_np$np
          mpi "$np" "$sim" configs/cavity_re1000.toml --backend cuda --output "$w/scratch" grid.cells=[4096,4096] \
            run.precision=\"$prec\" run.end_time=0.005 output.every=0 model.pressure_tol=$tol \
            model.pressure_solver=\"$solver\" --stats "$out/fluid4096_$tag.json" > "$out/fluid4096_$tag.log" 2>&1
          echo "fluid 4096^2 $prec $solver np$np: $(grep -o '"ms_per_step": [0-9.]*' "$out/fluid4096_$tag.json")," \
               "last step's $(grep -o 'pressure_iterations *[0-9]*' "$out/fluid4096_$tag.log" | tr -s ' ')"
        done
      done
      rm -rf "$w"/*/*.h5 ;;
    fluid-variants)  # fluid 4096^2 float64 strong scaling under halo paths and multigrid gather thresholds
      for v in SIMKIT_HALO=host SIMKIT_HALO=nccl SIMKIT_MG_GATHER_CELLS=4096 SIMKIT_MG_GATHER_CELLS=65536 \
               SIMKIT_MG_GATHER_CELLS=262144; do
        for np in 2 "$n"; do
          (export "${v?}"; mpi "$np" "$sim" configs/cavity_re1000.toml --quiet --backend cuda --output "$out/scratch" \
            grid.cells=[4096,4096] run.end_time=0.005 output.every=0 model.pressure_tol=1e-8 \
            --stats "$out/variant.json" > "$out/variant.log" 2>&1) || tail -3 "$out/variant.log"
          echo "fluid 4096^2 float64 $v np$np: $(grep -o '"ms_per_step": [0-9.]*' "$out/variant.json")"; rm -f "$out/variant.json"
        done
      done
      rm -rf "$out/scratch" ;;
    diagnose)  # why NCCL halos are slower than host ones: transports, and timings under NCCL settings
      base="bench/configs/heat2d_16384.toml --quiet --backend cuda grid.cells=[$((8192 * n)),8192] run.steps=300"
      # shellcheck disable=SC2086
      NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,TUNING SIMKIT_HALO=nccl mpi "$n" -x NCCL_DEBUG -x NCCL_DEBUG_SUBSYS "$sim" $base \
        --output "$out/scratch" --stats "$out/diag_nccl.json" > "$out/diag_nccl_debug.log" 2>&1
      grep -E "via|Channel|P2P|SHM|NVLS|CollNet|Using" "$out/diag_nccl_debug.log" | head -20
      for v in "NCCL_P2P_DISABLE=1" "NCCL_PROTO=Simple" "NCCL_PROTO=LL" "NCCL_MAX_NCHANNELS=1" "CUDA_DEVICE_MAX_CONNECTIONS=1"; do
        # shellcheck disable=SC2086
        (export "${v?}" SIMKIT_HALO=nccl; mpi "$n" -x "${v%%=*}" "$sim" $base --output "$out/scratch" --stats "$out/diag.json" > /dev/null 2>&1)
        echo "$v: $(grep -o '"ms_per_step": [0-9.]*' "$out/diag.json")"
      done
      echo "default nccl: $(grep -o '"ms_per_step": [0-9.]*' "$out/diag_nccl.json")"
      rm -rf "$out/scratch" ;;
    scaling)  # weak scaling on 1, 2 and N GPUs (the same cells per GPU), NCCL and host halos
      for prec in float32 float64; do
        for halo in ${SCALING_HALOS:-host nccl}; do  # SCALING_HALOS=nccl: only those (and no 1-GPU runs)
          nps="1 2"; [ "$n" -gt 2 ] && nps="$nps $n"
          for np in $nps; do
            [ "$np" = 1 ] && [ "$halo" = nccl ] && continue
            tag=${prec}_${halo}_np$np
            for c in 8192:500 16384:200; do
              SIMKIT_HALO=$halo mpi "$np" "$sim" bench/configs/heat2d_16384.toml --quiet --backend cuda run.precision=\"$prec\" \
                grid.cells=[$((${c%%:*} * np)),${c%%:*}] run.steps=${c##*:} --output "$out/scratch" \
                --stats "$out/weak2d_${c%%:*}_$tag.json" > "$out/weak2d_${c%%:*}_$tag.log" 2>&1
            done
            SIMKIT_HALO=$halo mpi "$np" "$sim" bench/configs/heat2d_16384.toml --quiet --backend cuda run.precision=\"$prec\" \
              grid.cells=[$((512 * np)),512,512] run.steps=200 'boundary.default="dirichlet"' --output "$out/scratch" \
              --stats "$out/weak3d_512_$tag.json" > "$out/weak3d_512_$tag.log" 2>&1
          done
        done
      done
      rm -rf "$out/scratch"
      grep -H '"ms_per_step"' "$out"/weak*.json | sed 's|.*/||' ;;
    weak3d)  # 3D weak scaling alone (512^3 per GPU): 1 GPU, and N GPUs under each halo path; twice
      for rep in 1 2; do
        for prec in float32 float64; do
          for cfg in "1 auto" "$n auto" "$n nccl" "$n host"; do
            read -r np halo <<<"$cfg"
            f=$out/weak3d_${prec}_${halo}_np${np}_$rep.json
            SIMKIT_HALO=$halo mpi "$np" "$sim" bench/configs/heat3d_512.toml --quiet --backend cuda run.precision=\"$prec\" \
              grid.cells=[$((512 * np)),512,512] run.steps=200 --output "$out/scratch" --stats "$f" >/dev/null 2>&1
            echo "weak3d $prec halo=$halo np$np rep$rep: $(grep -o '"ms_per_step": [0-9.]*' "$f")"
          done
        done
      done
      rm -rf "$out/scratch" ;;
    fluid3d)  # the 3D fluid: N GPUs against 1, a restart from N on 1, the Taylor-Green step's scaling
      w=$out/fluid3d; mkdir -p "$w"
      tg="configs/taylor_green_3d.toml grid.cells=[128,128,128] run.end_time=0.5 output.every_time=0.25 checkpoint.every=5"
      cav="configs/cavity3d.toml run.end_time=0.5 output.every_time=0.25 checkpoint.every=5"
      # shellcheck disable=SC2086
      { frun 1 tg_1 $tg; frun "$n" tg_$n $tg; frun 1 cav_1 $cav; frun "$n" cav_$n $cav; }
      close "fluid 3D Taylor-Green 128^3 float64, $n GPUs vs 1" "$w/tg_1/diagnostics.csv" "$w/tg_$n/diagnostics.csv"
      close "fluid 3D cavity 64^3 float64 (walls), $n GPUs vs 1" "$w/cav_1/diagnostics.csv" "$w/cav_$n/diagnostics.csv"
      rm -rf "$w/r"; mkdir -p "$w/r"; ck=$(ls "$w/tg_$n"/checkpoint_*.h5 | head -1); cp "$ck" "$w/r/"
      # shellcheck disable=SC2086
      "$sim" $tg --quiet --backend cuda --output "$w/r" --resume > "$w/r.log" 2>&1 || tail -3 "$w/r.log"
      for f in tg_1 r; do { head -1 "$w/tg_1/diagnostics.csv"; tail -1 "$w/$f/diagnostics.csv"; } > "$w/$f.last.csv"; done
      close "fluid 3D restart: $n GPUs to $(basename "$ck"), then 1 GPU to the end (last row)" "$w/tg_1.last.csv" "$w/r.last.csv"
      mpi "$n" "$bin/bench/bench_fluid_scaling" --backend cuda --cells2 0 --cells3 0 --tg3 512 \
        --json "$out/fluid3d_scaling_np$n.json" 2>&1 | grep -v '^wrote' ;;
    fluid-steps)  # the decomposed fluid step's paths on N GPUs: the same bits, ms per step
      w=$out/fluid-steps; mkdir -p "$w"
      cav="configs/cavity_re1000.toml grid.cells=[512,512] run.end_time=0.1 output.every=20 checkpoint.every=30"
      tg="configs/taylor_green_3d.toml grid.cells=[128,128,128] run.end_time=0.5 output.every_time=0.25 checkpoint.every=5"
      for case in cav tg; do
        for mode in auto replays host; do
          rm -rf "$w/${case}_$mode"
          # shellcheck disable=SC2086
          SIMKIT_DECOMPOSED_STEPS=$mode mpi "$n" "$sim" ${!case} --backend cuda --output "$w/${case}_$mode" \
            --stats "$w/${case}_$mode.json" > "$w/${case}_$mode.log" 2>&1 || { echo "FAILED ${case}_$mode"; tail -3 "$w/${case}_$mode.log"; }
          echo "$case $mode np$n: $(grep -o '"ms_per_step": [0-9.]*' "$w/${case}_$mode.json"); $(grep -o 'steps on .*' "$w/${case}_$mode.log")"
        done
        for mode in auto replays; do
          for kind in snapshot checkpoint; do
            same "$case $kind: $mode vs host, $n GPUs" "$(ls "$w/${case}_$mode"/${kind}_*.h5 | tail -1)" "$(ls "$w/${case}_host"/${kind}_*.h5 | tail -1)"
          done
        done
      done ;;
    transpose-paths)  # copy engines, transpose kernels, NCCL's all-to-all: the same bits, then the solve and the step timed
      w=$out/transpose-paths; mkdir -p "$w"
      tg="configs/taylor_green_3d.toml grid.cells=[128,128,128] run.end_time=0.5 output.every_time=0.25 checkpoint.every=5"
      for path in copies kernels nccl; do
        rm -rf "$w/tg_$path"
        # shellcheck disable=SC2086
        SIMKIT_TRANSPOSE_PATH=$path mpi "$n" "$sim" $tg --backend cuda --output "$w/tg_$path" --stats "$w/tg_$path.json" \
          > "$w/tg_$path.log" 2>&1 || { echo "FAILED tg_$path"; tail -3 "$w/tg_$path.log"; }
        echo "tg $path np$n: $(grep -o '"ms_per_step": [0-9.]*' "$w/tg_$path.json"); $(grep -o 'slabs along.*' "$w/tg_$path.log" | head -1)"
      done
      for kind in snapshot checkpoint; do
        for path in kernels nccl; do
          same "Taylor-Green 128^3 $kind: copy engines vs $path, $n GPUs" "$(ls "$w/tg_copies"/${kind}_*.h5 | tail -1)" "$(ls "$w/tg_$path"/${kind}_*.h5 | tail -1)"
        done
      done
      for path in nccl kernels copies; do
        echo "== SIMKIT_TRANSPOSE_PATH=$path, the solves alone"
        SIMKIT_TRANSPOSE_PATH=$path mpi "$n" "$bin/bench/bench_fluid_scaling" --backend cuda --solves-only --cells2 4096 --cells3 512 \
          --json "$out/solve_${path}_np$n.json" 2>&1 | grep -v '^wrote'
      done
      for path in nccl kernels copies; do
        echo "== SIMKIT_TRANSPOSE_PATH=$path, the cavity 4096^2 and Taylor-Green 512^3 steps"
        SIMKIT_TRANSPOSE_PATH=$path mpi "$n" "$bin/bench/bench_fluid_scaling" --backend cuda --cells2 4096 --cells3 0 --tg3 512 --no-mg \
          --json "$out/steps_${path}_np$n.json" 2>&1 | grep -v '^wrote'
      done ;;
    fluid-scaling)  # the distributed transform solve: 1 GPU against 2 and N, transposes against the all-to-all
      for np in 2 "$n"; do  # the transposes whole, and in 4 pieces overlapping the transforms
        for chunks in 1 4; do
          echo "SIMKIT_TRANSPOSE_CHUNKS=$chunks"
          SIMKIT_TRANSPOSE_CHUNKS=$chunks mpi "$np" -x SIMKIT_TRANSPOSE_CHUNKS "$bin/bench/bench_fluid_scaling" --backend cuda \
            --json "$out/fluid_scaling_np${np}_chunks$chunks.json" 2>&1 | grep -v '^wrote'
        done
        [ "$n" = 2 ] && break
      done ;;
    heat-repeat)  # does heat 2D 16384^2 float64's weak scaling repeat? (the clocks after each run)
      for rep in 1 2 3; do
        order="1 $n"; [ $((rep % 2)) = 0 ] && order="$n 1"
        for prec in float64 float32; do
          for np in $order; do
            f=$out/heat_repeat_${prec}_np${np}_$rep.json
            mpi "$np" "$sim" bench/configs/heat2d_16384.toml --quiet --backend cuda run.precision=\"$prec\" \
              grid.cells=[$((16384 * np)),16384] run.steps=200 --output "$out/scratch" --stats "$f" > /dev/null 2>&1
            echo "heat 2D 16384^2 per GPU $prec np$np round $rep: $(grep -o '"ms_per_step": [0-9.]*' "$f");" \
                 "$(nvidia-smi --query-gpu=index,clocks.sm,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader | tr '\n' ' ')"
          done
        done
      done
      rm -rf "$out/scratch" ;;
    heat-weak)  # heat weak scaling by bench_heat_scaling (medians of timed samples) on 2 and N GPUs, three runs each
      for rep in 1 2 3; do
        for np in 2 "$n"; do
          mpi "$np" "$bin/bench/bench_heat_scaling" --backend cuda --commit "${COMMIT:-unknown}" \
            --json "$out/heat_weak_np${np}_$rep.json" 2>&1 | grep -v '^wrote'
          [ "$n" = 2 ] && break
        done
      done ;;
    halo)  # exchange bandwidth alone, host-staged and NCCL, on 2 and N GPUs
      for np in 2 "$n"; do
        for halo in host nccl; do
          SIMKIT_HALO=$halo mpi "$np" "$bin/bench/bench_halo" --backend cuda --json "$out/halo_${halo}_np$np.json" 2>&1 | grep -v '^wrote'
        done
        [ "$n" = 2 ] && break
      done ;;
    orders)  # NCCL halos in heat 3D (512^3 per GPU) under orderings of the NCCL and compute streams
      # (core/distributed/nccl_channel.cpp) and NCCL settings, against 1 GPU; a setting that hangs is cut at 60 s
      for prec in float32 float64; do
        for v in SIMKIT_NCCL_ORDER=overlap SIMKIT_NCCL_ORDER=serial SIMKIT_NCCL_PRIORITY=low NCCL_P2P_NVL_CHUNKSIZE=1048576; do
          for np in 1 "$n"; do
            [ "$np" = 1 ] && [ "$v" != SIMKIT_NCCL_ORDER=overlap ] && continue
            rm -f "$out/order.json"
            (export "${v?}" SIMKIT_HALO=nccl; timeout 60 mpirun --allow-run-as-root --bind-to none -np "$np" -x LD_LIBRARY_PATH \
              -x NCCL_NVLS_ENABLE -x SIMKIT_HALO -x "${v%%=*}" "$sim" bench/configs/heat3d_512.toml --quiet --backend cuda \
              run.precision=\"$prec\" grid.cells=[$((512 * np)),512,512] run.steps=200 --output "$out/scratch" \
              --stats "$out/order.json" > "$out/order.log" 2>&1) || { echo "FAILED or timed out: $v"; tail -3 "$out/order.log"; }
            echo "$v 3d $prec np$np: $(grep -o '"ms_per_step": [0-9.]*' "$out/order.json" 2>/dev/null)"
          done
        done
      done
      rm -rf "$out/scratch" ;;
    nsys)  # a timeline of the NCCL path: which API calls and kernels take the time
      ns=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
      [ -n "$ns" ] || ns=$(timeout 20 find / -xdev -name nsys -type f -perm -u+x 2>/dev/null | head -1)
      if [ -z "$ns" ]; then echo "nsys: not found on this machine"; continue; fi
      SIMKIT_HALO=nccl timeout 120 mpirun --allow-run-as-root --bind-to none -np "$n" -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE \
        -x SIMKIT_HALO "$ns" profile --trace=cuda,nvtx --sample=none -o "$out/nccl_r%q{OMPI_COMM_WORLD_RANK}" \
        "$sim" bench/configs/heat3d_512.toml --quiet --backend cuda grid.cells=[$((512 * n)),512,512] \
        run.steps=60 --output "$out/scratch" > "$out/nsys.log" 2>&1 || tail -5 "$out/nsys.log"
      # rank 1 has neighbours on both sides: its kernel summary, and the GPU timeline of its last steps
      "$ns" stats --report cuda_gpu_kern_sum,cuda_gpu_trace --format csv -o "$out/nccl_r1" "$out"/nccl_r1.nsys-rep > /dev/null 2>&1
      for f in "$out"/nccl_r1_*.csv; do echo "== $f"; head -14 "$f" | cut -c1-220; done
      for f in "$out"/nccl_r1_*trace*.csv; do [ -f "$f" ] && tail -80 "$f" > "$f.tail" && rm "$f"; done
      # (on the 4-H200 machine of 2026-11-22 nsys could not import its own recordings and left
      # 770 MB .qdstrm files per rank)
      rm -f "$out"/*.nsys-rep "$out"/*.qdstrm
      rm -rf "$out/scratch" "$out"/*.sqlite ;;
  esac
done
