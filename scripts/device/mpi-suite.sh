#!/usr/bin/env bash
# Runs on a multi-GPU machine (H200 x2 or x4) from the repository root, over binaries built
# here with CUDA + MPI (+ NCCL) and carried in SIMKIT_DEV_DIR (scripts/device/prepare.sh):
#   1. halo_check on the GPU backend (every ghost, edge and corner against the one-rank fill),
#      through NCCL and through host buffers (SIMKIT_HALO=host);
#   2. heat 2D/3D and Monte Carlo on N GPUs against 1 GPU, compared by `simulate info`'s
#      field digests (equal digests: bit-identical fields); a restart from N ranks on 1;
#   3. weak scaling of heat 2D (8192^2 and 16384^2 per GPU) and 3D (512^3 per GPU), float32 and float64,
#      NCCL and host halos: ms per step from --stats.
#   4. (halo) bench_halo: exchange bandwidth alone; (nsys) an nsys profile of the NCCL path.
#   OUT=... SIMKIT_DEV_DIR=.dev scripts/device/mpi-suite.sh N [checks] [scaling] [halo] [nsys] [diagnose]
set -u
n=$1; shift
parts=("$@"); [ ${#parts[@]} -gt 0 ] || parts=(checks scaling halo)
out=${OUT:-/tmp/out}; mkdir -p "$out"
root=$(pwd)
bin=$root/${SIMKIT_DEV_DIR:-.dev}
export LD_LIBRARY_PATH=$bin/devlib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sim=$bin/apps/simulate
mpi() { local np=$1; shift; mpirun --allow-run-as-root --bind-to none -np "$np" -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x SIMKIT_HALO "$@"; }
digests() { "$sim" info "$1" | grep -o '^  [a-z_]* .*digest [0-9a-f]*' | sed 's/  */ /g'; }
same() {  # label, file A, file B
  if [ "$(digests "$2")" = "$(digests "$3")" ] && [ -n "$(digests "$2")" ]; then echo "SAME   $1"; else echo "DIFFER $1"; digests "$2"; digests "$3"; fi
}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpus.txt"
for part in "${parts[@]}"; do
  case $part in
    checks)
      for halo in nccl host; do
        SIMKIT_HALO=$halo mpi "$n" "$bin/tests/mpi/halo_check" cuda 2>&1 | tail -2 | sed "s/^/[$halo] /"
      done
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
      unset SIMKIT_HALO
      # restart: the N-rank run's older checkpoint continued on 1 GPU, against the uninterrupted run
      rm -rf "$w/r"; mkdir -p "$w/r"; ck=$(ls "$w/h2_$n"/checkpoint_*.h5 | head -1); cp "$ck" "$w/r/"
      # shellcheck disable=SC2086
      "$sim" $h2 --quiet --backend cuda --output "$w/r" --resume > "$w/r.log" 2>&1 || tail -3 "$w/r.log"
      same "restart: $n GPUs to $(basename "$ck"), then 1 GPU to the end" "$(last h2_1 snapshot)" "$(last r snapshot)"
      run 1 mc_1 configs/mcpi.toml model.batch=1000000 run.steps=20
      run "$n" mc_$n configs/mcpi.toml model.batch=1000000 run.steps=20
      echo "Monte Carlo, last diagnostics row, 1 GPU and $n GPUs:"; tail -1 "$w/mc_1/diagnostics.csv"; tail -1 "$w/mc_$n/diagnostics.csv"
      ;;
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
    halo)  # exchange bandwidth alone, host-staged and NCCL, on 2 and N GPUs
      for np in 2 "$n"; do
        for halo in host nccl; do
          SIMKIT_HALO=$halo mpi "$np" "$bin/bench/bench_halo" --backend cuda --json "$out/halo_${halo}_np$np.json" 2>&1 | grep -v '^wrote'
        done
        [ "$n" = 2 ] && break
      done ;;
    orders)  # NCCL halos in heat under orderings of the NCCL and compute streams (core/nccl_channel.cpp)
      for v in SIMKIT_NCCL_ORDER=overlap SIMKIT_NCCL_ORDER=serial SIMKIT_NCCL_ORDER=deferred SIMKIT_NCCL_ORDER=hostsync \
               SIMKIT_NCCL_PRIORITY=high NCCL_P2P_USE_CUDA_MEMCPY=1 NCCL_MAX_CTAS=1; do
        for c in "2 [16384,8192] 2d" "$n [$((512 * n)),512,512] 3d"; do
          set -- $c
          (export "${v?}" SIMKIT_HALO=nccl; mpi "$1" -x "${v%%=*}" "$sim" bench/configs/heat2d_16384.toml --quiet --backend cuda \
            run.precision=\"float32\" grid.cells="$2" run.steps=200 'boundary.default="dirichlet"' --output "$out/scratch" \
            --stats "$out/order.json" > "$out/order.log" 2>&1) || tail -3 "$out/order.log"
          echo "$v $3 np$1: $(grep -o '"ms_per_step": [0-9.]*' "$out/order.json")"; rm -f "$out/order.json"
        done
      done
      rm -rf "$out/scratch" ;;
    nsys)  # a timeline of the NCCL path: which API calls and kernels take the time
      ns=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
      [ -n "$ns" ] || ns=$(find / -xdev -name nsys -type f -perm -u+x 2>/dev/null | head -1)
      if [ -z "$ns" ]; then echo "nsys: not found on this machine"; continue; fi
      SIMKIT_HALO=nccl mpi 2 "$ns" profile --trace=cuda,nvtx,osrt --sample=none -o "$out/nccl_r%q{OMPI_COMM_WORLD_RANK}" \
        "$sim" bench/configs/heat2d_16384.toml --quiet --backend cuda run.precision=\"float32\" grid.cells=[16384,8192] \
        run.steps=200 --output "$out/scratch" > "$out/nsys.log" 2>&1 || tail -5 "$out/nsys.log"
      "$ns" stats --report cuda_api_sum,cuda_gpu_kern_sum,osrt_sum --format csv -o "$out/nccl_r0" "$out"/nccl_r0.nsys-rep > /dev/null 2>&1
      for f in "$out"/nccl_r0_*.csv; do echo "== $f"; head -14 "$f" | cut -c1-220; done
      rm -rf "$out/scratch" "$out"/*.sqlite ;;
  esac
done
