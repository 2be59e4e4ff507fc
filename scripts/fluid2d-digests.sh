#!/bin/bash
# The 2D fluid's fields and diagnostics after 24 steps over its schemes, solvers, precisions,
# boundary kinds, tuning knobs, two ranks and a restart: the field digests `simulate info`
# prints and each run's diagnostics.csv. Two builds that give the same output are bit-identical
# on these runs (a refactoring's check: run it with each build, then diff the outputs).
#   scripts/fluid2d-digests.sh SIMULATE [BACKEND] > digests.txt   (BACKEND: cpu (default) or cuda)
set -u
sim=$(realpath "$1"); backend=${2:-cpu}
source "$(dirname "$0")/fluid-digests-common.sh"
copy_configs cavity_re100 cavity_re1000 cylinder taylor_green
steps="run.steps=24 output.every=12 output.every_time=0 checkpoint.every=12"
S="grid.cells=[64,64]" C="grid.cells=[128,32]"
run 1 cavity_euler_transform cavity_re100 $S
run 1 cavity_rk2_transform cavity_re100 $S model.time_scheme=\"rk2\"
run 1 cavity_fixed_dt cavity_re100 $S run.dt=0.002
run 1 cavity_mg_cg cavity_re100 $S model.pressure_solver=\"mg_cg\"
run 1 cavity_cg_float32 cavity_re100 $S model.pressure_solver=\"cg\" run.precision=\"float32\" model.pressure_tol=1e-5
run 1 cavity_multigrid_rk2_unscaled cavity_re100 $S model.pressure_solver=\"multigrid\" model.time_scheme=\"rk2\" model.pressure_guess_scale=false
run 1 cavity_mg_cg_rk2 cavity_re100 $S model.pressure_solver=\"mg_cg\" model.time_scheme=\"rk2\"
run 1 cavity_implicit_euler cavity_re100 $S model.viscous_scheme=\"implicit\" model.pressure_solver=\"mg_cg\"
run 1 cavity_implicit_rk2 cavity_re100 $S model.viscous_scheme=\"implicit\" model.time_scheme=\"rk2\"
run 1 cavity_fill_every_stage cavity_re100 $S model.fill_every_stage=true model.time_scheme=\"rk2\"
run 1 cavity_guess_last cavity_re100 $S model.pressure_solver=\"mg_cg\" model.pressure_guess_order=\"last\"
run 1 cavity1000_upwind cavity_re1000 $S model.advection=\"upwind\" model.dye_diffusivity=0.001
run 1 cylinder cylinder $C
run 1 cylinder_implicit_euler_float64 cylinder $C model.time_scheme=\"euler\" model.viscous_scheme=\"implicit\" run.precision=\"float64\"
run 1 box_parabolic cylinder $C model.obstacle=\"box\" model.inflow_profile=\"parabolic\" model.advection=\"central\"
run 1 cylinder_mg_smooth cylinder $C "model.pressure_mg_smooth=[3,1]"
run 1 taylor_green_rk2 taylor_green $S
run 1 taylor_green_euler_float32 taylor_green $S model.time_scheme=\"euler\" run.precision=\"float32\"
run 1 taylor_green_jacobi taylor_green "grid.cells=[16,16]" model.pressure_solver=\"jacobi\" model.pressure_tol=1e-6
SIMKIT_FLUID_GUESS_ORDER=1 run 1 knob_guess_order cavity_re100 $S model.pressure_solver=\"mg_cg\"
SIMKIT_FLUID_SCALE_GUESS=0 run 1 knob_scale_guess cylinder $C
SIMKIT_FLUID_FILL_EVERY_STAGE=1 run 1 knob_fill_every_stage cavity_re100 $S
run 2 ranks2_cavity_mg_cg cavity_re100 $S model.pressure_solver=\"mg_cg\"
run 2 ranks2_cavity_transform cavity_re100 $S model.time_scheme=\"rk2\"
run 2 ranks2_cylinder cylinder $C
run 2 ranks2_taylor_green_implicit taylor_green $S model.viscous_scheme=\"implicit\" model.pressure_solver=\"cg\"
# a restart from step 12 of the mg_cg cavity (its pressure history in the checkpoint)
"$sim" --quiet --backend "$backend" --output "$w/restart" "$w/cavity_re100.toml" $S model.pressure_solver=\"mg_cg\" \
  run.steps=12 output.every=0 output.every_time=0 checkpoint.every=12 > "$w/restart.log" 2>&1 &&
  "$sim" --quiet --backend "$backend" --output "$w/restart" --resume "$w/restart/checkpoint_000000012.h5" \
    "$w/cavity_re100.toml" $S model.pressure_solver=\"mg_cg\" $steps >> "$w/restart.log" 2>&1 || echo "FAILED restart"
report restart
