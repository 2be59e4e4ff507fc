#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, over binaries built here and carried
# in SIMKIT_DEV_DIR (.dev, made by scripts/device/prepare.sh, with their libraries in
# .dev/devlib): every test binary, then the core benchmark and, in the same call, the peer
# libraries (.shared/peers) on the same workloads.
#   OUT=... COMMIT=... SIMKIT_DEV_DIR=.dev scripts/device/gpu-suite.sh [tests] [bench] [peers] [fluid3d] [tg3d] [newcomer] [ncu-fluid3d] ...
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
root=$(pwd)
bin=${SIMKIT_DEV_DIR:-build}
export LD_LIBRARY_PATH=$root/$bin/devlib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"
parts=("$@"); [ ${#parts[@]} -gt 0 ] || parts=(tests bench peers)
tg() { local name=$1; shift  # the Taylor-Green vortex at Re 1600 end to end into output/NAME, with overrides
  timeout "${TG_TIMEOUT:-200}" "$bin"/apps/simulate configs/taylor_green_3d.toml --quiet --output "output/$name" --stats "$out/e2e_$name.json" "$@" 2>&1 | tail -4
  mkdir -p "$out/$name" && cp "output/$name/diagnostics.csv" "$out/$name/" 2>/dev/null; }
for part in "${parts[@]}"; do
  case $part in
    tests)
      status=0
      for t in "$bin"/tests/*/test_*; do
        [ -x "$t" ] && [ -f "$t" ] || continue
        echo "== $t" | tee -a "$out/tests.log"
        SIMKIT_SIMULATE=$root/$bin/apps/simulate SIMKIT_SOURCE_DIR=$root SIMKIT_FAKE_PLUGIN=$root/$bin/tests/apps/libfake_plugin.so "$t" --gtest_brief=1 >>"$out/tests.log" 2>&1 || status=1
        tail -4 "$out/tests.log" | grep -E "PASSED|FAILED|SKIPPED" || true
      done
      echo "tests exit status: $status" | tee -a "$out/tests.log" ;;
    bench)
      "$bin"/bench/bench_core --json "$out/bench_core.json" --commit "${COMMIT:-unknown}" 2>&1 | tee "$out/bench_core.log" ;;
    heat)
      "$bin"/bench/bench_heat --json "$out/bench_heat.json" --commit "${COMMIT:-unknown}" 2>&1 | tee "$out/bench_heat.log"
      sim="$bin/apps/simulate"
      for f in float32 float64; do
        "$sim" bench/configs/heat2d_16384.toml run.precision=$f --quiet --stats "$out/e2e_16384_$f.json"
        "$sim" bench/configs/heat3d_512.toml run.precision=$f --quiet --stats "$out/e2e_512cubed_$f.json"
      done
      for rep in 1 2; do
        for every in 0 1000 100; do
          "$sim" bench/configs/heat2d_overlap.toml --quiet output.every=$every --output output/overlap_${every}_$rep \
            --stats "$out/overlap_every${every}_$rep.json"
        done
      done
      for r in 1 2 4; do
        SIMKIT_STENCIL_ROWS=$r "$bin"/bench/bench_heat --json "$out/bench_heat_rows$r.json" --commit "${COMMIT:-unknown}" \
          --case 2:16384:50 --case 3:512:50 2>&1 | grep heat
      done
      grep -H '"ms_per_step"\|"output_blocked' "$out"/overlap_*.json "$out"/e2e_*.json ;;
    stencil)
      # the Gray-Scott plugin's step on the core's stencil pass (4 fields a step), and rows per thread
      "$bin"/bench/bench_stencil --json "$out/bench_stencil.json" --commit "${COMMIT:-unknown}" 2>&1 | tee "$out/bench_stencil.log"
      for r in 1 2 4 8; do
        SIMKIT_STENCIL_ROWS=$r "$bin"/bench/bench_stencil --json "$out/bench_stencil_rows$r.json" --commit "${COMMIT:-unknown}" 2>&1 | grep gray_scott
      done ;;
    mcpi)
      "$bin"/bench/bench_mcpi --json "$out/bench_mcpi.json" --commit "${COMMIT:-unknown}" --big 1000000000000 2>&1 | tee "$out/bench_mcpi.log"
      for d in float32 float64; do
        timeout 300 python3 .shared/peers/peers.py mcpi --dtype $d --backend cupy jax torch 2>&1 | tee -a "$out/peers_mcpi.jsonl"
      done ;;
    fluid-tests)
      for t in "$bin"/tests/solvers/test_* "$bin"/tests/models/test_models_fluid; do
        echo "== $t" | tee -a "$out/tests.log"
        "$t" --gtest_brief=0 2>&1 | grep -E "^\[ |Failure|Expected|actual|Which|differs" >>"$out/tests.log" || true
        tail -3 "$out/tests.log"
      done ;;
    fluid)
      "$bin"/bench/bench_fluid --json "$out/bench_fluid.json" --commit "${COMMIT:-unknown}" 2>&1 | tee "$out/bench_fluid.log"
      timeout 240 python3 .shared/peers/fluid.py --backend cupy --n 1024 --steps 10 2>&1 | tee -a "$out/peers_fluid.jsonl"
      timeout 240 python3 .shared/peers/fluid.py --backend cupy --n 1024 --steps 10 --dtype float32 --tol 1e-5 2>&1 | tee -a "$out/peers_fluid.jsonl" ;;
    fluid3d)
      # the 3D step against the expert JAX script (one fori_loop), on the same GPU in the same call
      "$bin"/bench/bench_fluid3d --backend cuda --sizes 128,256,512 --json "$out/bench_fluid3d.json" 2>&1 | tee "$out/bench_fluid3d.log"
      for n in 128 256 512; do for p in float32 float64; do for s in euler rk2; do
        timeout 120 python3 .shared/peers/fluid3d_fast.py --backend jax --fused --n $n --steps 50 --dtype $p --scheme $s 2>&1 | tail -1 | tee -a "$out/peers_fluid3d.jsonl"
      done; done; done ;;
    tg3d)  # the Taylor-Green vortex at Re 1600 end to end: 128^3 and 256^3 float64, 512^3 float32
      tg tg128 'grid.cells=[128,128,128]'
      tg tg256
      tg tg512 'grid.cells=[512,512,512]' 'run.precision="float32"' ;;
    tg3d-schemes)  # the same at 256^3 float64 with rk2 at cfl 0.75 and rk3 at TG_RK3_CFLS (default 1.2 1.5), 512^3 float32 with rk3 at the last
      tg tg256_rk2_cfl0.75 'model.time_scheme="rk2"' run.cfl=0.75
      cfls=(${TG_RK3_CFLS:-1.2 1.5})
      for c in "${cfls[@]}"; do tg "tg256_rk3_cfl$c" 'model.time_scheme="rk3"' "run.cfl=$c"; done
      c=${cfls[${#cfls[@]}-1]}
      tg "tg512_f32_rk3_cfl$c" 'grid.cells=[512,512,512]' 'run.precision="float32"' 'model.time_scheme="rk3"' "run.cfl=$c" ;;
    fluid-e2e)
      for cfg in configs/cavity_re1000.toml configs/cylinder.toml configs/taylor_green.toml; do
        name=$(basename "$cfg" .toml)
        timeout 150 "$bin"/apps/simulate "$cfg" --quiet --output "output/$name" --stats "$out/e2e_$name.json" 2>&1 | tail -8 | tee "$out/e2e_$name.log"
        tail -2 "output/$name/diagnostics.csv" | tee -a "$out/e2e_$name.log"
        mkdir -p "$out/$name" && cp "output/$name/diagnostics.csv" "$out/$name/" 2>/dev/null
        last=$(ls output/$name/snapshot_*.h5 2>/dev/null | tail -1); [ -n "$last" ] && cp "$last" "$out/$name/"
      done ;;
    newcomer)  # the from_cupy examples (each checks itself), the newcomer table against CuPy, random fills and their bits
      for e in "$bin"/examples/from_cupy/from_cupy_*; do "$e" --backend cuda 2>&1 | tail -1; done | tee "$out/examples.log"
      for d in float32 float64; do
        timeout 300 python3 bench/newcomer.py --build "$bin" --backend cuda --dtype $d --json "$out/newcomer_$d.json" 2>&1 | tee -a "$out/newcomer.log"
      done
      "$bin"/bench/bench_random --backend cuda 2>&1 | tee "$out/bench_random.log" ;;
    ncu-fluid3d)  # each kernel of a 256^3 float32 Euler step: its time and DRAM bytes (one pass each, clocks as they are)
      nc=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
      export LD_LIBRARY_PATH
      for p in float32 float64; do
        timeout 240 "$nc" --clock-control none --kernel-name-base demangled -s 300 -c 40 --csv --print-units base \
          --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__registers_per_thread \
          "$bin"/bench/bench_fluid3d --backend cuda --sizes 256 --precisions $p --schemes euler --samples 3 --batch 10 \
          >"$out/ncu_fluid3d_$p.csv" 2>&1; echo "ncu fluid3d $p: $?"
      done ;;
    ncu-heat)
      # hardware counters of the 3D/2D stage kernels and the 3D ghost fill (one launch each)
      nc=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
      export LD_LIBRARY_PATH
      h=("$bin"/bench/bench_heat --case 3:512:10 --repeat 1 --precision float32 --precision float64)
      prof() { "$nc" --clock-control none --kernel-name-base demangled -k "regex:$1" -s 2 -c 1 --set full "${h[@]}" >"$out/ncu_$2.txt" 2>&1; echo "ncu $2: $?"; }
      prof 'stencil_pass_3d<float' stage3d_f32
      prof 'stencil_pass_3d<double' stage3d_f64
      prof 'stencil_pass_2d<float' stage2d_f32
      prof 'GhostFillAll<float, \(int\)3>' fill3d_f32 ;;
    peers-heat)
      peers=.shared/peers/peers.py
      for d in float32 float64; do
        timeout 300 python3 "$peers" heat2d --dtype $d --backend cupy cupy-kernel jax torch 2>&1 | tee -a "$out/peers_heat.jsonl"
        timeout 300 python3 "$peers" heat3d --dtype $d --backend cupy cupy-kernel jax torch 2>&1 | tee -a "$out/peers_heat.jsonl"
      done ;;
    peers)
      peers=.shared/peers/peers.py
      : >"$out/peers.jsonl"
      run() { timeout 300 python3 "$peers" "$@" 2>&1 | tee -a "$out/peers.jsonl"; }
      run copy
      run elementwise --dtype float64 --backend cupy jax torch
      run reduce --dtype float32 --backend cupy jax torch
      run reduce --dtype float64 --backend cupy jax torch ;;
  esac
done
