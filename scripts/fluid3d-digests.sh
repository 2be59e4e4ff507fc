#!/bin/bash
# The 3D fluid's fields and diagnostics after a few steps over its schemes, boundary kinds,
# pressure solvers, an obstacle, the dye, two ranks and a restart: the field digests
# `simulate info` prints and each run's diagnostics.csv. Two builds that give the same output
# are bit-identical on these runs (a refactoring's check: run it with each build, then diff).
#   scripts/fluid3d-digests.sh SIMULATE [BACKEND] > digests.txt   (BACKEND: cpu (default) or cuda)
# FLUID3D_DIGESTS_NEW=1 adds the runs of upwind advection and implicit viscosity.
set -u
sim=$(realpath "$1"); backend=${2:-cpu}
source "$(dirname "$0")/fluid-digests-common.sh"
copy_configs taylor_green_3d cavity3d sphere
steps="run.steps=8 output.every=4 output.every_time=0 output.diagnostics_every_time=0 checkpoint.every=4"
all='output.fields=["u","v","w","p","vorticity"]'
run 1 taylor_green_rk2 taylor_green_3d "grid.cells=[32,32,32]" "$all"
run 1 taylor_green_euler_float32 taylor_green_3d "grid.cells=[16,16,16]" model.time_scheme=\"euler\" run.precision=\"float32\" "$all"
run 1 cavity_dye cavity3d "grid.cells=[16,16,16]" model.dye=\"half\" model.dye_diffusivity=0.001 "$all"
run 1 cavity_mg_cg cavity3d "grid.cells=[16,16,16]" model.pressure_solver=\"mg_cg\" "$all"
run 1 sphere_stripes sphere "grid.cells=[32,16,16]" "grid.length=[8.0,4.0,4.0]" "model.obstacle_center=[2.5,2.0,2.0]" \
  model.obstacle_radius=0.75 model.dye=\"stripes\" "$all"
run 1 sphere_cg_parabolic sphere "grid.cells=[32,16,16]" "grid.length=[8.0,4.0,4.0]" "model.obstacle_center=[2.5,2.0,2.0]" \
  model.obstacle_radius=0.75 model.pressure_solver=\"cg\" model.inflow_profile=\"parabolic\" run.precision=\"float64\" "$all"
run 1 channel_outflow sphere "grid.cells=[24,12,12]" "grid.length=[8.0,4.0,4.0]" model.obstacle=\"none\" "$all"
run 2 ranks2_cavity cavity3d "grid.cells=[16,16,16]" model.dye=\"stripes\" "$all"
run 1 taylor_green_dye taylor_green_3d "grid.cells=[16,16,16]" model.dye=\"half\" "$all"
for split in "[2,1,1]" "[1,2,1]" "[1,1,2]"; do  # z unsplit, then split
  run 2 "ranks2_taylor_green_${split//[^0-9]/}" taylor_green_3d "grid.cells=[16,16,16]" "grid.decomposition=$split" model.dye=\"half\" "$all"
done
if [ "${FLUID3D_DIGESTS_NEW:-0}" = 1 ]; then
  run 1 cavity_upwind cavity3d "grid.cells=[16,16,16]" model.advection=\"upwind\" model.dye=\"half\" "$all"
  run 1 cavity_implicit_euler cavity3d "grid.cells=[16,16,16]" model.viscous_scheme=\"implicit\" model.time_scheme=\"euler\" "$all"
  run 1 taylor_green_implicit_rk2 taylor_green_3d "grid.cells=[16,16,16]" model.viscous_scheme=\"implicit\" "$all"
  run 1 sphere_implicit_upwind sphere "grid.cells=[32,16,16]" "grid.length=[8.0,4.0,4.0]" "model.obstacle_center=[2.5,2.0,2.0]" \
    model.obstacle_radius=0.75 model.dye=\"stripes\" model.viscous_scheme=\"implicit\" model.advection=\"upwind\" "$all"
  run 2 ranks2_channel_implicit sphere "grid.cells=[24,12,12]" "grid.length=[8.0,4.0,4.0]" model.obstacle=\"none\" \
    model.viscous_scheme=\"implicit\" model.inflow_profile=\"parabolic\" "$all"
fi
# a restart from step 4 of the cavity with dye
"$sim" --quiet --backend "$backend" --output "$w/restart" "$w/cavity3d.toml" "grid.cells=[16,16,16]" model.dye=\"half\" \
  run.steps=4 output.every=0 output.every_time=0 output.diagnostics_every_time=0 checkpoint.every=4 > "$w/restart.log" 2>&1 &&
  "$sim" --quiet --backend "$backend" --output "$w/restart" --resume "$w/restart/checkpoint_000000004.h5" \
    "$w/cavity3d.toml" "grid.cells=[16,16,16]" model.dye=\"half\" $steps "$all" >> "$w/restart.log" 2>&1 || echo "FAILED restart"
report restart
