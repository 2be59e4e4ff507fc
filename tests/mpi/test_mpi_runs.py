#!/usr/bin/python3
"""`mpirun -np N simulate` on the CPU backend against the one-process run.

Heat (1D/2D/3D, periodic, Dirichlet and Neumann faces, source, float32/float64, ghost
width 2; explicit schemes) must give the same bytes in every snapshot and checkpoint on 1, 2 and 4 ranks (4
oversubscribes a 2-core machine), and the implicit scheme (CG, dot products added over
ranks) the same values to the solver tolerance; Monte Carlo the same counts; a checkpoint written by N
ranks restarts on M ranks and ends bit for bit where the uninterrupted run ends (also after SIGTERM to
mpirun, which every rank answers with one shared checkpoint). The fluid model (its pressure
solvers, multigrid levels and coarsest solve split too) matches the one-process run to the solver
tolerance, and restarts across rank counts; the 3D fluid (Taylor-Green, walled cavity, a periodic
dimension split, a channel with inflow, outflow and dye, that channel past a sphere, a box obstacle
in a periodic box) matches it to rounding on 2, 3 (uneven) and 4 ranks and restarts across rank counts. With the transform solve and an adaptive dt, the fluid's
decomposed steps (2D and 3D) run recorded in device-clocked batches, as a device loop or as per-step
replays, and give the bytes of the step-by-step and of the unrecorded runs. The Gray-Scott example plugin (random noise keyed by
the global cell index, face rules of the stencil pass on the global boundary only) gives the same
bytes on 1, 2 and 3 ranks, split along either dimension. Options that do not run decomposed are refused with
exit code 2 and a message.

Environment: SIMKIT_SIMULATE (the simulate binary), SIMKIT_MPIEXEC (mpirun), and
SIMKIT_MPI_TEST (the test to run, e.g. Heat.test_2d_np4, for one CTest entry per case).
"""
import csv
import glob
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import h5py
import numpy as np

SIMULATE = os.environ["SIMKIT_SIMULATE"]
GRAY_SCOTT = os.environ.get("SIMKIT_GRAY_SCOTT_PLUGIN", "")
MPIEXEC = os.environ.get("SIMKIT_MPIEXEC", "mpirun")
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl_vader_single_copy_mechanism="none")

HEAT_2D = """
[run]
model = "heat"
backend = "cpu"
steps = 40
[grid]
cells = [37, 29]
[model]
scheme = "rk2"
init = "gaussian"
width = 0.2
center = [0.3, 0.6]
source = "gaussian"
source_value = 2.0
[boundary]
default = "dirichlet"
default_value = 0.5
x_lo = "periodic"
x_hi = "periodic"
y_hi = "neumann"
y_hi_value = 1.0
[output]
every = 10
[checkpoint]
every = 20
keep = 5
"""

HEAT_3D = """
[run]
model = "heat"
backend = "cpu"
steps = 24
[grid]
cells = [14, 11, 17]
[model]
scheme = "euler"
init = "hot_box"
width = 0.3
[boundary]
default = "neumann"
default_value = -0.5
x_lo = "dirichlet"
x_lo_value = 1.0
z_lo = "periodic"
z_hi = "periodic"
[output]
every = 8
[checkpoint]
every = 12
keep = 5
"""

HEAT_1D = """
[run]
model = "heat"
backend = "cpu"
steps = 30
[grid]
cells = [41]
[model]
init = "sine"
modes = [3]
[boundary]
default = "periodic"
[output]
every = 10
"""

FLUID_CAVITY = """
[run]
model = "fluid"
backend = "cpu"
end_time = 0.3
cfl = 0.9
[grid]
cells = [64, 48]
[model]
viscosity = 0.01
time_scheme = "rk2"
pressure_solver = "mg_cg"  # the iterative solver across ranks (auto: the transform solver, Fluid.test_auto_*)
pressure_tol = 1e-12
dye = "half"
dye_diffusivity = 0.001
[boundary]
y_hi_value = 1.0
[output]
every = 10
[checkpoint]
every = 10
keep = 5
"""

FLUID_CHANNEL = """
[run]
model = "fluid"
backend = "cpu"
steps = 24
[grid]
cells = [96, 32]
length = [3.0, 1.0]
[model]
viscosity = 0.02
inflow_profile = "parabolic"
obstacle = "cylinder"
obstacle_center = [0.7, 0.45]
obstacle_radius = 0.15
advection = "upwind"
upwind_weight = 0.5
pressure_tol = 1e-12
dye = "stripes"
[boundary]
x_lo = "inflow"
x_lo_value = 1.0
x_hi = "outflow"
[output]
every = 8
"""

FLUID_PERIODIC = """
[run]
model = "fluid"
backend = "cpu"
steps = 20
[grid]
cells = [48, 48]
[model]
viscosity = 0.01
init = "taylor_green"
pressure_solver = "cg"
pressure_tol = 1e-12
[boundary]
default = "periodic"
[output]
every = 10
"""

# The 3D Taylor-Green vortex (configs/taylor_green_3d.toml) on a small uneven grid.
FLUID3D_TAYLOR_GREEN = """
[run]
model = "fluid"
backend = "cpu"
steps = 6
cfl = 0.6
[grid]
cells = [16, 12, 10]
length = [6.283185307179586, 6.283185307179586, 6.283185307179586]
[model]
viscosity = 0.01
init = "taylor_green"
time_scheme = "rk2"
[boundary]
default = "periodic"
[output]
every = 3
[checkpoint]
every = 3
"""

# A walled 3D cavity: a lid along +x at y_hi and a moving x_lo wall (along +y).
FLUID3D_CAVITY = """
[run]
model = "fluid"
backend = "cpu"
steps = 8
cfl = 0.5
[grid]
cells = [12, 10, 14]
length = [1.0, 1.0, 1.0]
[model]
viscosity = 0.01
time_scheme = "rk2"
[boundary]
default = "wall"
y_hi_value = 1.0
x_lo_value = 0.5
[output]
every = 4
[checkpoint]
every = 4
"""

MCPI = """
[run]
model = "mcpi"
backend = "cpu"
steps = 3
seed = 7
[model]
batch = 100003
[output]
every = 1
"""

# Mixed faces on the last (contiguous) dimension, whose rules the stencil pass applies itself.
GRAY_SCOTT_2D = """
[run]
model = "gray_scott"
backend = "cpu"
steps = 60
dt = 1.0
seed = 7
[grid]
cells = [30, 41]
length = [0.3, 0.41]
[model]
seeds = 3
seed_size = 0.08
noise = 0.05
[boundary]
default = "periodic"
y_lo = "neumann"
y_lo_value = 0.5
y_hi = "dirichlet"
y_hi_value = 0.25
[output]
every = 30
[checkpoint]
every = 60
"""


class Case(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="simkit_mpi_")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def config(self, name, text):
        path = os.path.join(self.dir, name + ".toml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def simulate(self, ranks, config, out, *args, expect=0):
        """Runs simulate on `ranks` processes (0: without mpirun); returns stderr."""
        cmd = [SIMULATE, config, "--output", os.path.join(self.dir, out), "-q", *args]
        if ranks:
            cmd = [MPIEXEC, "--oversubscribe", "-np", str(ranks), *cmd]
        p = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, expect, f"{' '.join(cmd)}\n{p.stderr}")
        return p.stderr

    def assert_same_files(self, a, b, pattern):
        """Every file matching pattern in run a exists in run b with the same datasets, byte for byte."""
        files = sorted(os.path.basename(f) for f in glob.glob(os.path.join(self.dir, a, pattern)))
        self.assertTrue(files, f"no {pattern} in {a}")
        self.assertEqual(files, sorted(os.path.basename(f) for f in glob.glob(os.path.join(self.dir, b, pattern))))
        for name in files:
            with h5py.File(os.path.join(self.dir, a, name)) as fa, h5py.File(os.path.join(self.dir, b, name)) as fb:
                for group in ("fields", "counters", "reals"):
                    if group not in fa:
                        continue
                    self.assertEqual(sorted(fa[group]), sorted(fb[group]), f"{name}/{group}")
                    for key in fa[group]:
                        x, y = fa[group][key][()], fb[group][key][()]
                        self.assertEqual(np.asarray(x).dtype, np.asarray(y).dtype, f"{name}:{group}/{key}")
                        self.assertTrue(np.array_equal(np.asarray(x).view(np.uint8), np.asarray(y).view(np.uint8)),
                                        f"{name}:{group}/{key} differs between {a} and {b}")

    def assert_same_run(self, a, b):
        self.assert_same_files(a, b, "snapshot_*.h5")
        with open(os.path.join(self.dir, a, "snapshot.xdmf")) as fa, open(os.path.join(self.dir, b, "snapshot.xdmf")) as fb:
            self.assertEqual(fa.read(), fb.read(), "snapshot.xdmf differs")
        if glob.glob(os.path.join(self.dir, a, "checkpoint_*.h5")):
            self.assert_same_files(a, b, "checkpoint_*.h5")


class Heat(Case):
    def compare(self, text, ranks, *args):
        c = self.config("heat", text)
        self.simulate(0, c, "one", *args)
        self.simulate(ranks, c, "many", *args)
        self.assert_same_run("one", "many")

    def test_2d_np2(self):
        self.compare(HEAT_2D, 2)

    def test_2d_np4(self):
        self.compare(HEAT_2D, 4, "grid.decomposition=[2, 2]")

    def test_2d_np4_slabs_ghost2_float32(self):
        self.compare(HEAT_2D, 4, "grid.decomposition=[1, 4]", "grid.ghost=2", "run.precision=\"float32\"")

    def test_3d_np2(self):
        self.compare(HEAT_3D, 2, "grid.decomposition=[1, 1, 2]")

    def test_3d_np4(self):
        self.compare(HEAT_3D, 4)

    def test_1d_periodic_np4(self):
        self.compare(HEAT_1D, 4)

    def test_implicit_np4_to_solver_tolerance(self):
        # CG's dot products are added over ranks in another order: equal to the tolerance, not the bit
        c = self.config("heat", HEAT_2D)
        args = ("model.scheme=\"crank_nicolson\"", "model.cg_tol=1e-12", "run.dt=0.002", "run.steps=10",
                "output.every=5", "checkpoint.every=0")
        self.simulate(0, c, "one", *args)
        self.simulate(4, c, "many", *args)
        compare = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "simkit_compare.py")
        p = subprocess.run(["/usr/bin/python3", compare, os.path.join(self.dir, "one"), os.path.join(self.dir, "many"),
                            "--all", "--rtol", "1e-9", "--atol", "1e-11"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_diagnostics_on_rank0_only(self):
        c = self.config("heat", HEAT_2D)
        self.simulate(2, c, "many")
        with open(os.path.join(self.dir, "many", "diagnostics.csv")) as f:
            rows = f.read().splitlines()
        self.assertEqual(len(rows), 1 + 5, rows)  # header + one row per snapshot, written once


class Fluid(Case):
    """Decomposed fluid runs equal the one-process run to the pressure solver's tolerance."""

    def compare_dirs(self, a, b, rtol=1e-8, atol=1e-9):
        compare = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "simkit_compare.py")
        p = subprocess.run(["/usr/bin/python3", compare, os.path.join(self.dir, a), os.path.join(self.dir, b), "--all",
                            "--rtol", str(rtol), "--atol", str(atol)], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def compare(self, text, ranks, *args, rtol=1e-8, atol=1e-9):
        c = self.config("fluid", text)
        self.simulate(0, c, "one", *args)
        self.simulate(ranks, c, "many", *args)
        self.compare_dirs("one", "many", rtol, atol)
        with open(os.path.join(self.dir, "one", "diagnostics.csv")) as fa, \
             open(os.path.join(self.dir, "many", "diagnostics.csv")) as fb:
            one, many = fa.read().splitlines(), fb.read().splitlines()
        self.assertEqual(len(one), len(many))  # the same steps (adaptive dt included)

    def test_cavity_np2(self):
        self.compare(FLUID_CAVITY, 2)

    def test_cavity_stage_output_unfilled_np2_np4(self):
        # walls all round: a stage's output is not filled before its projection, only the faces on
        # the shared sides exchanged (on 2 ranks, slabs along x, the pressure also goes through the
        # distributed solve's staged rows): filling every stage's output must change no bit
        c = self.config("fluid", FLUID_CAVITY)
        for ranks, split in ((2, None), (4, "[2, 2]")):
            extra = ["model.pressure_solver=\"auto\"", *(["grid.decomposition=" + split] if split else [])]
            self.simulate(ranks, c, "lean%d" % ranks, *extra)
            self.simulate(ranks, c, "filled%d" % ranks, "model.fill_every_stage=true", *extra)
            self.assert_same_run("lean%d" % ranks, "filled%d" % ranks)

    def test_cavity_np4_multigrid_float32(self):
        self.compare(FLUID_CAVITY, 4, "model.pressure_solver=\"multigrid\"", "run.precision=\"float32\"",
                     "model.pressure_tol=1e-5", rtol=1e-4, atol=1e-5)

    def test_channel_cylinder_np4(self):
        # inflow, outflow and an obstacle cut by the box sides: auto takes the obstacle transform
        # solve on one rank and, distributed, on 2 ranks (slabs) and 4 (the corners of a 2 x 2
        # split). Each solve equals the one-rank solve to rounding (tests/mpi/obstacle_transform_check.cpp:
        # 50 eps max|p|); over the run's steps the fields stay within 1e-10 relative + 1e-10 absolute
        # of the one-rank run (the vorticity, speed differences over a cell, carries their
        # rounding times 1 / h: about 1e-11 where it is near 0)
        c = self.config("fluid", FLUID_CHANNEL)
        self.simulate(0, c, "one")
        for ranks, split in ((2, "[2, 1]"), (4, "[2, 2]")):
            out = "many%d" % ranks
            self.simulate(ranks, c, out, "grid.decomposition=" + split)
            self.compare_dirs("one", out, 1e-10, 1e-10)
            with open(os.path.join(self.dir, "one", "diagnostics.csv")) as fa, \
                 open(os.path.join(self.dir, out, "diagnostics.csv")) as fb:
                self.assertEqual(len(fa.read().splitlines()), len(fb.read().splitlines()))  # the same steps
        p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "4", SIMULATE, c, "--output", os.path.join(self.dir, "dry"),
                            "--dry-run", "grid.decomposition=[2, 2]"], env=ENV, capture_output=True, text=True, timeout=120)
        self.assertIn("pressure solver transform: auto: a cylinder in a transformable box split over 4 ranks", p.stdout,
                      p.stdout + p.stderr)
        self.assertIn("with a capacitance correction of", p.stdout, p.stdout + p.stderr)

    def test_periodic_cylinder_transform_np3(self):
        # periodic all round with a cylinder: the singular case (the fluid mean summed over the
        # ranks, one cell pinned, the mean of p the same on every rank), "transform" asked for,
        # on an uneven split of 3 ranks, within 1e-10 of the one-rank run
        text = FLUID_PERIODIC.replace("cells = [48, 48]", "cells = [50, 44]").replace(
            'pressure_solver = "cg"', 'pressure_solver = "transform"\nobstacle = "cylinder"\nobstacle_radius = 0.12')
        self.compare(text, 3, "grid.decomposition=[3, 1]", rtol=1e-10, atol=1e-10)

    def test_channel_cylinder_mg_cg_np4(self):
        # the same channel with mg_cg on one rank and on the 2 x 2 split (the iterative solve
        # around an obstacle across rank corners)
        self.compare(FLUID_CHANNEL, 4, "grid.decomposition=[2, 2]", "model.pressure_solver=\"mg_cg\"")

    def test_cavity_implicit_viscosity_residual_np2(self):
        # walls all round on 2 slabs: the explicit projection of the initial state goes through
        # the distributed solve's staged rows, the implicit stages through pressure_rhs_; the
        # pressure_residual diagnostic must measure the stages' own right-hand side (rounding, as
        # on one rank), not what the rows last held
        text = FLUID_CAVITY.replace('pressure_solver = "mg_cg"', 'viscous_scheme = "implicit"\nviscous_tol = 1e-12').replace(
            'dye = "half"', 'dye = "none"').replace("end_time = 0.3", "steps = 20")
        self.compare(text, 2, "checkpoint.every=0")
        for out in ("one", "many"):
            with open(os.path.join(self.dir, out, "diagnostics.csv")) as f:
                rows = list(csv.reader(f))
            i = [h.split(" ")[0] for h in rows[0]].index("pressure_residual")
            residuals = [float(r[i]) for r in rows[1:]]
            self.assertTrue(len(residuals) >= 3 and all(r < 1e-10 for r in residuals), f"{out}: {residuals}")

    def test_channel_implicit_viscosity_np3(self):
        self.compare(FLUID_CHANNEL, 3, "model.viscous_scheme=\"implicit\"", "model.viscous_tol=1e-12",
                     "grid.decomposition=[3, 1]", "model.obstacle=\"none\"")

    def test_periodic_np4(self):
        self.compare(FLUID_PERIODIC, 4, "grid.decomposition=[2, 2]")

    def test_auto_is_transform_on_any_rank_count(self):
        # auto takes the transform solver on any rank count (distributed by all-to-all
        # transposes on several): slabs on 2 ranks, uneven slabs on 3, blocks on 4. Each solve
        # equals the one-rank solve to rounding (tests/mpi/transform_check.cpp: 50 eps max|p|);
        # over the run's steps the fields stay within 1e-10 relative of the one-rank run
        c = self.config("fluid", FLUID_CAVITY.replace('pressure_solver = "mg_cg"', ""))
        short = "run.end_time=0.1"
        self.simulate(0, c, "one", short)
        for ranks, split in ((2, None), (3, "[3, 1]"), (4, "[2, 2]")):
            out = "many%d" % ranks
            self.simulate(ranks, c, out, short, *(["grid.decomposition=" + split] if split else []))
            self.compare_dirs("one", out, 1e-10, 1e-12)
        for ranks, note in ((0, "on one rank"), (2, "distributed over the ranks by all-to-all transposes")):
            cmd = [SIMULATE, c, "--output", os.path.join(self.dir, "dry"), "--dry-run"]
            if ranks:
                cmd = [MPIEXEC, "--oversubscribe", "-np", str(ranks), *cmd]
            p = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=120)
            self.assertIn("pressure solver transform: auto", p.stdout, p.stdout + p.stderr)
            self.assertIn(note, p.stdout, p.stdout + p.stderr)

    def test_auto_is_mg_cg_around_an_obstacle_on_several_ranks(self):
        # where the obstacle transform does not apply (a wall of a box across the channel cuts
        # the fluid into an inflow piece whose pressure level nothing fixes), auto keeps mg_cg on
        # several ranks and says why; "transform" is refused with the same reason
        wall = FLUID_CHANNEL.replace('obstacle = "cylinder"', 'obstacle = "box"\nobstacle_size = [0.2, 2.0]')
        c = self.config("fluid", wall)
        cmd = [MPIEXEC, "--oversubscribe", "-np", "2", SIMULATE, c, "--output", os.path.join(self.dir, "dry"), "--dry-run"]
        p = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=120)
        self.assertIn("pressure solver mg_cg: auto: mg_cg, since the obstacle cuts the fluid into pieces", p.stdout,
                      p.stdout + p.stderr)
        p = subprocess.run(cmd + ["model.pressure_solver=\"transform\""], env=ENV, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("cuts the fluid into pieces", p.stderr + p.stdout)

    def test_restart_from_2_ranks_to_1_and_1_to_4(self):
        self.restart_across(FLUID_CAVITY, ((2, 0, "a"), (0, 4, "b")))

    def test_euler_np2_and_restart_from_2_ranks_to_1(self):
        # Euler steps start each pressure solve from the pressure extrapolated through the
        # last steps' (their history mean-free over all ranks, and in the checkpoints)
        euler = FLUID_CAVITY.replace('time_scheme = "rk2"', 'time_scheme = "euler"')
        self.compare(euler, 2)
        self.restart_across(euler, ((2, 0, "a"),))

    def restart_across(self, text, runs):
        """Each (first, then, out): a run on `first` ranks cut at a middle checkpoint and resumed on
        `then` ranks ends where the uninterrupted one-process run ends, to the solver tolerance."""
        c = self.config("fluid", text)
        self.simulate(0, c, "whole")
        for first, then, out in runs:
            self.simulate(first, c, out)
            part = os.path.join(self.dir, out)
            steps = sorted(int(os.path.basename(f).split("_")[-1].split(".")[0])
                           for f in glob.glob(os.path.join(part, "checkpoint_*.h5")))
            self.assertGreaterEqual(len(steps), 2, steps)
            keep = steps[len(steps) // 2]
            for f in glob.glob(os.path.join(part, "snapshot_*.h5")) + glob.glob(os.path.join(part, "checkpoint_*.h5")):
                if int(os.path.basename(f).split("_")[-1].split(".")[0]) > keep:
                    os.remove(f)
            self.simulate(then, c, out, "--resume", os.path.join(part, f"checkpoint_{keep:09d}.h5"))
            self.compare_dirs("whole", out)


# A 3D channel: a parabolic inflow carrying stripes of dye, an outflow, walls on y, periodic z.
FLUID3D_CHANNEL = """
[run]
model = "fluid"
backend = "cpu"
steps = 8
cfl = 0.5
[grid]
cells = [16, 8, 6]
length = [2.0, 1.0, 0.75]
[model]
viscosity = 0.02
time_scheme = "rk2"
inflow_profile = "parabolic"
dye = "stripes"
dye_diffusivity = 0.002
[boundary]
x_lo = "inflow"
x_lo_value = 1.0
x_hi = "outflow"
y_lo = "wall"
y_hi = "wall"
z_lo = "periodic"
z_hi = "periodic"
[output]
every = 4
"""

# The 3D channel past a sphere: the parabolic inflow carrying stripes of dye, the outflow,
# walls on y, periodic z; the sphere (r = 0.2 = 3.2 cells) sits across the middle planes of y
# and z and across x = 0.6875, so that the splits below cut it.
FLUID3D_SPHERE = """
[run]
model = "fluid"
backend = "cpu"
steps = 8
cfl = 0.5
[grid]
cells = [32, 16, 16]
length = [2.0, 1.0, 1.0]
[model]
viscosity = 0.02
time_scheme = "rk2"
inflow_profile = "parabolic"
dye = "stripes"
dye_diffusivity = 0.002
obstacle = "sphere"
obstacle_center = [0.6, 0.5, 0.5]
obstacle_radius = 0.2
[boundary]
x_lo = "inflow"
x_lo_value = 1.0
x_hi = "outflow"
y_lo = "wall"
y_hi = "wall"
z_lo = "periodic"
z_hi = "periodic"
[output]
every = 4
[checkpoint]
every = 2
keep = 5
"""

# Periodic all round with a box obstacle (no Dirichlet side: the pressure's level is fixed on
# the fluid cells, the fluid mean summed over the ranks) in a Taylor-Green flow, Euler steps.
FLUID3D_PERIODIC_BOX = """
[run]
model = "fluid"
backend = "cpu"
steps = 6
cfl = 0.5
[grid]
cells = [16, 12, 10]
length = [1.0, 1.0, 1.0]
[model]
viscosity = 0.01
time_scheme = "euler"
init = "taylor_green"
dye = "half"
obstacle = "box"
obstacle_center = [0.4, 0.55, 0.5]
obstacle_size = [0.3, 0.2, 0.35]
[boundary]
default = "periodic"
[output]
every = 3
[checkpoint]
every = 3
"""


class Fluid3D(Case):
    """The 3D fluid split over ranks equals the one-process run to rounding: the distributed
    transform solve equals the one-rank solve to rounding, the rest is the same arithmetic. Fields
    (snapshots and checkpoints) within 1e-12 relative + 1e-13 absolute (speeds about 1 m/s), the
    diagnostics within 1e-10 relative + 1e-13 (sums over ranks in another order)."""

    compare_dirs = Fluid.compare_dirs
    restart_across = Fluid.restart_across

    def compare_diagnostics(self, a, b, rounding=1e-12):
        """Diagnostics within 1e-10 relative + 1e-13; the rounding-level ones (max_divergence,
        pressure_residual) within `rounding` absolute."""
        with open(os.path.join(self.dir, a, "diagnostics.csv")) as fa, open(os.path.join(self.dir, b, "diagnostics.csv")) as fb:
            one, many = fa.read().splitlines(), fb.read().splitlines()
        self.assertEqual(one[0], many[0])
        self.assertEqual(len(one), len(many))  # the same steps
        self.assertGreater(len(one), 2)
        header = one[0].split(",")
        for ra, rb in zip(one[1:], many[1:]):
            for name, x, y in zip(header, ra.split(","), rb.split(",")):
                x, y = float(x), float(y)
                if name.startswith(("max_divergence", "pressure_residual")):  # rounding-level values
                    self.assertLess(abs(x - y), rounding, f"{name}: {x} vs {y}")
                elif name.startswith("viscous_iterations"):  # CG's sums in rank order: one iteration more or less
                    self.assertLessEqual(abs(x - y), 1, f"{name}: {x} vs {y} in {b}")
                else:
                    self.assertLessEqual(abs(x - y), 1e-13 + 1e-10 * abs(x), f"{name}: {x} vs {y} in {b}")

    def across_splits(self, text, splits, *args):
        c = self.config("fluid3d", text)
        self.simulate(0, c, "one", *args)
        for ranks, split in splits:
            out = "many%d" % ranks
            self.simulate(ranks, c, out, *args, *(["grid.decomposition=" + split] if split else []))
            self.compare_dirs("one", out, 1e-12, 1e-13)
            self.compare_diagnostics("one", out)

    def test_taylor_green_np2_np3_np4(self):
        # slabs on 2 ranks, uneven slabs along z on 3 (4 + 3 + 3 cells), blocks on 4
        self.across_splits(FLUID3D_TAYLOR_GREEN, ((2, None), (3, "[1, 1, 3]"), (4, "[1, 2, 2]")))

    def test_taylor_green_rk3_np3(self):
        # SSP-RK3 at the shipped config's Courant number: three projections a step, the third stage's output in stage 1's fields
        self.across_splits(FLUID3D_TAYLOR_GREEN, ((3, "[1, 1, 3]"),), 'model.time_scheme="rk3"', "run.cfl=1.5")

    def test_cavity_np2_np3_np4(self):
        # walls on every side; uneven slabs along y on 3 (4 + 3 + 3), blocks cut along x and z on 4
        self.across_splits(FLUID3D_CAVITY, ((2, None), (3, "[1, 3, 1]"), (4, "[2, 1, 2]")))

    def test_cavity_periodic_z_split_along_z_np4(self):
        # a periodic dimension split over the ranks (its wrap through the halo), walls on the others
        self.across_splits(FLUID3D_CAVITY, ((4, "[1, 1, 4]"), (3, "[3, 1, 1]")), "boundary.z_lo=\"periodic\"",
                           "boundary.z_hi=\"periodic\"")

    def test_implicit_viscosity_upwind_np2_np3(self):
        # the implicit viscous solve's CG over the ranks (its sums in rank order, its correction's
        # ghosts through the halo), the incremental pressure form's A p on each box, upwind advection
        args = ('model.viscous_scheme="implicit"', 'model.advection="upwind"', "model.viscous_tol=1e-13")
        self.across_splits(FLUID3D_CAVITY, ((2, None), (3, "[1, 3, 1]")), *args)
        self.across_splits(FLUID3D_CAVITY, ((2, "[1, 1, 2]"),), *args, 'model.time_scheme="euler"', "boundary.z_lo=\"periodic\"",
                           "boundary.z_hi=\"periodic\"")
        # the outflow's rules in the incremental form (the outflow on one rank of an x split)
        self.across_splits(FLUID3D_CHANNEL, ((2, "[2, 1, 1]"), (3, "[1, 1, 3]")), *args)
        # a restart on other rank counts: p carries over (the incremental form), its ghosts exchanged again
        implicit = FLUID3D_CAVITY.replace('time_scheme = "rk2"', 'time_scheme = "rk2"\nviscous_scheme = "implicit"\nviscous_tol = 1e-13')
        self.restart_across(implicit.replace("[checkpoint]\nevery = 4\n", "[checkpoint]\nevery = 2\nkeep = 5\n"), ((2, 3, "r"),))

    def test_channel_inflow_outflow_dye_np2_np3_np4(self):
        # the inflow and the outflow on different ranks (x slabs), the parabola and the outflow's
        # continuity rule across a y split, the periodic z split
        self.across_splits(FLUID3D_CHANNEL, ((2, "[2, 1, 1]"), (3, "[1, 1, 3]"), (4, "[2, 2, 1]")))

    def compare_obstacle_runs(self, a, b):
        """Every snapshot and checkpoint of run a equals run b's to rounding: the obstacle solve
        is exact on any split (its distributed solve equals the one-rank solve to about 10 eps
        max|p|: tests/mpi/obstacle_transform_check.cpp), so every field is within 1e-12
        relative + 1e-13 absolute (speeds about 1 m/s), the vorticity (speed differences over a
        cell, h = 1/16) within 1e-12 relative + 1e-12 absolute."""
        files = sorted(os.path.basename(f) for f in glob.glob(os.path.join(self.dir, a, "snapshot_*.h5")) +
                       glob.glob(os.path.join(self.dir, a, "checkpoint_*.h5")))
        self.assertTrue(any(f.startswith("checkpoint_") for f in files), files)
        compared = 0
        for name in files:
            with h5py.File(os.path.join(self.dir, a, name)) as fa, h5py.File(os.path.join(self.dir, b, name)) as fb:
                self.assertEqual(sorted(fa["fields"]), sorted(fb["fields"]), name)
                for key in fa["fields"]:
                    x, y = fa["fields"][key][()], fb["fields"][key][()]
                    self.assertEqual(x.shape, y.shape, f"{name}:{key}")
                    atol = 1e-12 if key == "vorticity" else 1e-13
                    excess = np.abs(x - y) - (atol + 1e-12 * np.maximum(np.abs(x), np.abs(y)))
                    self.assertLessEqual(float(excess.max()), 0.0,
                                         f"{name}:{key} of {b}: max |a - b| = {float(np.abs(x - y).max()):.3g}")
                    compared += 1
        self.assertGreater(compared, 10)

    def obstacle_across_splits(self, text, splits):
        c = self.config("fluid3d", text)
        self.simulate(0, c, "one")
        for ranks, split in splits:
            out = "many%d_%s" % (ranks, split.replace(" ", "").strip("[]").replace(",", "x"))
            self.simulate(ranks, c, out, "grid.decomposition=" + split)
            self.compare_obstacle_runs("one", out)
            # force_x, force_y, force_z included; the largest divergence after the first projection
            # (dt = 1 there) is about 3e-12 on one rank and on several
            self.compare_diagnostics("one", out, rounding=1e-11)
        with open(os.path.join(self.dir, "one", "diagnostics.csv")) as f:
            header = f.readline()
        self.assertIn("force_x", header)

    def test_channel_sphere_np2_np3_np4(self):
        # inflow, outflow, dye and a sphere: cut along the periodic z (the wrap an exchange) on 2
        # ranks, along x in uneven slabs (11 + 11 + 10, the inflow and the outflow on different
        # ranks) on 3, at the corners of a y-z split on 4; auto takes the distributed obstacle
        # transform solve and says so
        self.obstacle_across_splits(FLUID3D_SPHERE, ((2, "[1, 1, 2]"), (3, "[3, 1, 1]"), (4, "[1, 2, 2]")))
        p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "4", SIMULATE, self.config("sphere", FLUID3D_SPHERE),
                            "--output", os.path.join(self.dir, "dry"), "--dry-run", "grid.decomposition=[1, 2, 2]"],
                           env=ENV, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("pressure solver transform: auto: a sphere in a transformable box split over 4 ranks", p.stdout,
                      p.stdout + p.stderr)
        self.assertIn("with a capacitance correction of", p.stdout, p.stdout + p.stderr)

    def test_implicit_viscosity_past_a_sphere_np2_np3(self):
        # implicit viscosity (the viscous CG with the obstacle's closed faces over the ranks) and
        # upwind advection past the sphere: the incremental pressure form through the distributed
        # obstacle solve, on a z split and on uneven x slabs
        text = FLUID3D_SPHERE.replace('time_scheme = "rk2"', 'time_scheme = "rk2"\nviscous_scheme = "implicit"\n'
                                      'viscous_tol = 1e-13\nadvection = "upwind"')
        self.obstacle_across_splits(text, ((2, "[1, 1, 2]"), (3, "[3, 1, 1]")))

    def test_periodic_box_obstacle_np3_np4(self):
        # no Dirichlet side (singular), a box obstacle cut by uneven slabs along x (6 + 5 + 5)
        # and by a 2 x 2 split of y and z
        self.obstacle_across_splits(FLUID3D_PERIODIC_BOX, ((3, "[3, 1, 1]"), (4, "[1, 2, 2]")))

    def test_cylinder_np4_and_mask_np3(self):
        # a cylinder along z in the channel on a 2 x 2 split of x and y; a mask from a file (the
        # first snapshot's "half" dye: the fluid is the slab x < 0.5 of the periodic box, solid
        # beyond, 240 surface cells) on uneven slabs along y (4 + 4 + 4 of 12)
        c = self.config("cylinder", FLUID3D_SPHERE.replace('obstacle = "sphere"', 'obstacle = "cylinder"').replace(
            "obstacle_radius = 0.2", "obstacle_radius = 0.15"))
        self.simulate(0, c, "cyl1")
        self.simulate(4, c, "cyl4", "grid.decomposition=[2, 2, 1]")
        self.compare_obstacle_runs("cyl1", "cyl4")
        self.compare_diagnostics("cyl1", "cyl4", rounding=1e-11)
        box = self.config("box", FLUID3D_PERIODIC_BOX)
        self.simulate(0, box, "dye", "model.obstacle=\"none\"", "run.steps=1")
        mask = ("model.obstacle=\"mask\"", "model.obstacle_dataset=\"dye\"",
                "model.obstacle_file=\"%s\"" % os.path.join(self.dir, "dye", "snapshot_000000000.h5"))
        self.simulate(0, box, "mask1", *mask)
        self.simulate(3, box, "mask3", *mask, "grid.decomposition=[1, 3, 1]")
        self.compare_obstacle_runs("mask1", "mask3")
        self.compare_diagnostics("mask1", "mask3", rounding=1e-11)
        with h5py.File(os.path.join(self.dir, "mask3", "snapshot_000000006.h5")) as f:
            u = f["fields"]["u"][()]
        self.assertEqual(float(np.abs(u[8:]).max()), 0.0)  # the solid half is at rest
        self.assertGreater(float(np.abs(u[:8]).max()), 0.01)

    def test_restart_with_a_sphere_from_2_ranks_on_3_and_4_on_1(self):
        # a checkpoint of the sphere run written on N ranks resumes on M and ends where the
        # uninterrupted one-process run ends, to rounding
        c = self.config("fluid3d", FLUID3D_SPHERE)
        self.simulate(0, c, "whole")
        for first, then, out in ((2, 3, "a"), (4, 1, "b")):
            self.simulate(first, c, out)
            part = os.path.join(self.dir, out)
            for f in glob.glob(os.path.join(part, "snapshot_*.h5")) + glob.glob(os.path.join(part, "checkpoint_*.h5")):
                if int(os.path.basename(f).split("_")[-1].split(".")[0]) > 4:
                    os.remove(f)
            self.simulate(then, c, out, "--resume", os.path.join(part, "checkpoint_000000004.h5"))
            self.assertTrue(os.path.exists(os.path.join(part, "checkpoint_000000008.h5")))
            self.compare_obstacle_runs("whole", out)

    def test_obstacle_refusals_on_several_ranks(self):
        # cg (the one-rank fallback around obstacles) does not run decomposed; an obstacle the
        # transform solve cannot take (a wall across the channel: the inflow's piece of fluid has
        # no pressure level) is refused at model.obstacle, "transform" at model.pressure_solver;
        # nothing written
        c = self.config("sphere", FLUID3D_SPHERE)
        err = self.simulate(2, c, "cg", "model.pressure_solver=\"cg\"", expect=2)
        self.assertIn("pressure_solver", err)
        self.assertIn("cg around an obstacle on a 3D grid runs on one rank", err)
        wall = ("model.obstacle=\"box\"", "model.obstacle_size=[0.2, 2.0, 2.0]")
        err = self.simulate(2, c, "wall", *wall, expect=2)
        self.assertIn("obstacle", err)
        self.assertIn("cuts the fluid into pieces", err)
        err = self.simulate(2, c, "wall_transform", *wall, "model.pressure_solver=\"transform\"", expect=2)
        self.assertIn("pressure_solver", err)
        self.assertIn("cuts the fluid into pieces", err)
        for out in ("cg", "wall", "wall_transform"):
            self.assertFalse(os.path.exists(os.path.join(self.dir, out)), f"a refused run wrote {out}")

    def test_restart_from_2_ranks_on_3_and_4_on_1(self):
        self.restart_across(FLUID3D_TAYLOR_GREEN.replace("steps = 6", "steps = 8").replace("[checkpoint]\nevery = 3\n",
                                                                                               "[checkpoint]\nevery = 2\nkeep = 5\n"),
                            ((2, 3, "a"), (4, 0, "b")))
        self.restart_across(FLUID3D_CAVITY.replace("[checkpoint]\nevery = 4\n", "[checkpoint]\nevery = 2\nkeep = 5\n"),
                            ((3, 2, "c"),))

    def test_dry_run_names_the_distributed_solve(self):
        c = self.config("fluid3d", FLUID3D_TAYLOR_GREEN)
        p = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", SIMULATE, c, "--output", os.path.join(self.dir, "dry"),
                            "--dry-run"], env=ENV, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("distributed over the ranks by all-to-all transposes", p.stdout, p.stdout + p.stderr)
        self.assertIn("over 2 ranks", p.stdout, p.stdout + p.stderr)


# The 2D cavity with the automatic (distributed transform) pressure solve and an adaptive dt.
FLUID_CAVITY_BATCHES = FLUID_CAVITY.replace('pressure_solver = "mg_cg"  # the iterative solver across ranks (auto: the transform solver, Fluid.test_auto_*)\n', "").replace(
    "end_time = 0.3", "end_time = 0.12").replace("[output]\nevery = 10", "[output]\nevery = 7\nevery_time = 0.05")

# The 3D Taylor-Green vortex with an adaptive dt over more steps than FLUID3D_TAYLOR_GREEN's.
FLUID3D_TAYLOR_GREEN_BATCHES = FLUID3D_TAYLOR_GREEN.replace("steps = 6", "end_time = 3.0").replace(
    "[output]\nevery = 3", "[output]\nevery = 9\nevery_time = 1.3").replace("[checkpoint]\nevery = 3", "[checkpoint]\nevery = 10")


class FluidBatches(Case):
    """On several ranks the fluid's step (explicit viscosity, the distributed transform solve) is
    recorded and an adaptive dt is chosen on the device from the speeds' maximum over the ranks,
    in batches of steps up to the next output: a device loop (SIMKIT_DECOMPOSED_STEPS=loop, the
    default) or per-step replays queued one ahead (replays). Both give the steps, times and bytes
    of the step-by-step run (SIMKIT_DEVICE_STEPS=0: dt reduced on the host each step) and of the
    unrecorded steps (SIMKIT_DECOMPOSED_STEPS=host): snapshots, checkpoints, the XDMF series and
    diagnostics.csv byte for byte. The run's summary must say that batches ran, fewer than the steps."""

    def run_logged(self, ranks, config, out, env, *args):
        """simulate on `ranks` processes with env added, its summary on (no -q); returns its output."""
        cmd = [MPIEXEC, "--oversubscribe", "-np", str(ranks), SIMULATE, config, "--output", os.path.join(self.dir, out), *args]
        p = subprocess.run(cmd, env=dict(ENV, **env), capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, f"{' '.join(cmd)}\n{p.stderr}")
        return p.stdout + p.stderr

    def assert_same_diagnostics(self, a, b):
        with open(os.path.join(self.dir, a, "diagnostics.csv")) as fa, open(os.path.join(self.dir, b, "diagnostics.csv")) as fb:
            self.assertEqual(fa.read(), fb.read(), f"diagnostics.csv differs between {a} and {b}")

    def batched_against_step_by_step(self, text, splits, *args, unrecorded_too=False):
        c = self.config("fluid", text)
        for ranks, split in splits:
            extra = [*args, *(["grid.decomposition=" + split] if split else [])]
            reference = "steps%d" % ranks
            log = self.run_logged(ranks, c, reference, {"SIMKIT_DEVICE_STEPS": "0"}, *extra)
            self.assertIn("steps on %d ranks: recorded" % ranks, log)
            self.assertIn("(0 batches run)", log)
            for mode, says in (("loop", "each one device loop"), ("replays", "of per-step replays queued one ahead")):
                out = "%s%d" % (mode, ranks)
                log = self.run_logged(ranks, c, out, {"SIMKIT_DECOMPOSED_STEPS": mode}, *extra)
                found = re.search(r"done: (\d+) steps.*steps on %d ranks: recorded; an adaptive dt from the speeds' maximum "
                                  r"over the ranks \(MPI\) on the device, in batches %s \((\d+) batches run\)" % (ranks, says),
                                  log, re.S)
                self.assertTrue(found, log)
                steps, batches = int(found.group(1)), int(found.group(2))
                self.assertGreater(batches, 1, log)
                self.assertLess(2 * batches, steps, log)  # batches of several steps, not one step each
                self.assert_same_run(reference, out)
                self.assert_same_diagnostics(reference, out)
            if unrecorded_too:
                out = "host%d" % ranks
                log = self.run_logged(ranks, c, out, {"SIMKIT_DECOMPOSED_STEPS": "host"}, *extra)
                self.assertIn("steps on %d ranks: not recorded (SIMKIT_DECOMPOSED_STEPS=host)" % ranks, log)
                self.assert_same_run(reference, out)
                self.assert_same_diagnostics(reference, out)

    def test_cavity_slabs_np2(self):
        self.batched_against_step_by_step(FLUID_CAVITY_BATCHES, ((2, None),), unrecorded_too=True)

    def test_cavity_blocks_np4(self):
        # blocks: the transposes' box <-> slab moves
        self.batched_against_step_by_step(FLUID_CAVITY_BATCHES, ((4, "[2, 2]"),), unrecorded_too=True)

    def test_cavity_uneven_np3(self):
        self.batched_against_step_by_step(FLUID_CAVITY_BATCHES, ((3, "[3, 1]"),), unrecorded_too=True)

    def test_cavity_float32_euler_np3(self):
        self.batched_against_step_by_step(FLUID_CAVITY_BATCHES, ((3, "[1, 3]"),), "run.precision=\"float32\"",
                                          "model.time_scheme=\"euler\"", unrecorded_too=True)

    def test_taylor_green_3d_slabs_np2(self):
        self.batched_against_step_by_step(FLUID3D_TAYLOR_GREEN_BATCHES, ((2, None),), unrecorded_too=True)

    def test_taylor_green_3d_uneven_np3(self):
        # uneven slabs along z (4 + 3 + 3 cells)
        self.batched_against_step_by_step(FLUID3D_TAYLOR_GREEN_BATCHES, ((3, "[1, 1, 3]"),), unrecorded_too=True)

    def test_taylor_green_3d_blocks_np4(self):
        self.batched_against_step_by_step(FLUID3D_TAYLOR_GREEN_BATCHES, ((4, "[1, 2, 2]"),))

    def test_taylor_green_3d_float32_np3(self):
        self.batched_against_step_by_step(FLUID3D_TAYLOR_GREEN_BATCHES, ((3, "[3, 1, 1]"),), "run.precision=\"float32\"")


class Restart(Case):
    def restart(self, text, first_ranks, then_ranks, checkpoint):
        c = self.config("run", text)
        self.simulate(0, c, "whole")
        self.simulate(first_ranks, c, "part")
        # keep what the interrupted run had written up to the checkpoint, then resume
        part = os.path.join(self.dir, "part")
        for f in glob.glob(os.path.join(part, "snapshot_*.h5")) + glob.glob(os.path.join(part, "checkpoint_*.h5")):
            step = int(os.path.basename(f).split("_")[-1].split(".")[0])
            if step > checkpoint:
                os.remove(f)
        self.simulate(then_ranks, c, "part", "--resume", os.path.join(part, f"checkpoint_{checkpoint:09d}.h5"))
        self.assert_same_run("whole", "part")

    def test_2d_from_2_ranks_to_1(self):
        self.restart(HEAT_2D, 2, 0, 20)

    def test_2d_from_1_rank_to_4(self):
        self.restart(HEAT_2D, 0, 4, 20)

    def test_3d_from_4_ranks_to_2(self):
        self.restart(HEAT_3D, 4, 2, 12)


class Signals(Case):
    def test_sigterm_checkpoint_resumes_bit_for_bit(self):
        # SIGTERM to mpirun reaches every rank; they agree on the step, write one checkpoint
        # together and stop; resuming it on one process ends where the uninterrupted run ends
        c = self.config("heat", HEAT_2D)
        args = ("run.steps=400000", "output.every=20000", "checkpoint.every=0")
        out = os.path.join(self.dir, "cut")
        cmd = [MPIEXEC, "--oversubscribe", "-np", "2", SIMULATE, c, "--output", out, *args]
        p = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while not os.path.exists(os.path.join(out, "snapshot_000020000.h5")) and time.time() < deadline:
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        err = p.communicate(timeout=120)[1]
        self.assertIn("stopped by SIGTERM", err)
        checkpoints = glob.glob(os.path.join(out, "checkpoint_*.h5"))
        self.assertEqual(len(checkpoints), 1, err)
        self.assertFalse(os.path.exists(os.path.join(out, "snapshot_000400000.h5")), "the run was not interrupted")
        self.simulate(0, c, "cut", *args, "--resume")
        self.simulate(0, c, "whole", *args)
        self.assert_same_run("whole", "cut")


class MonteCarlo(Case):
    def diagnostics(self, out):
        with open(os.path.join(self.dir, out, "diagnostics.csv")) as f:
            return f.read()

    def test_same_count_on_1_2_4_ranks(self):
        c = self.config("mcpi", MCPI)
        self.simulate(0, c, "one")
        for n in (2, 4):
            self.simulate(n, c, f"np{n}")
            self.assertEqual(self.diagnostics("one"), self.diagnostics(f"np{n}"), f"{n} ranks")

    def test_restart_from_2_ranks_on_3(self):
        c = self.config("mcpi", MCPI + "[checkpoint]\nevery = 1\nkeep = 5\n")
        self.simulate(0, c, "one")
        self.simulate(2, c, "two")
        os.remove(os.path.join(self.dir, "two", "checkpoint_000000003.h5"))
        self.simulate(3, c, "two", "--resume", os.path.join(self.dir, "two", "checkpoint_000000001.h5"))
        self.assertEqual(self.diagnostics("one"), self.diagnostics("two"))


class GrayScott(Case):
    def test_same_bits_on_1_2_3_ranks(self):
        self.assertTrue(GRAY_SCOTT, "SIMKIT_GRAY_SCOTT_PLUGIN names no plugin")
        c = self.config("gs", GRAY_SCOTT_2D)
        self.simulate(0, c, "one", "--plugin", GRAY_SCOTT)
        for ranks, split in ((2, "[2, 1]"), (2, "[1, 2]"), (3, "[3, 1]"), (3, "[1, 3]")):
            out = f"np{ranks}_{split[1]}x{split[4]}"
            self.simulate(ranks, c, out, "--plugin", GRAY_SCOTT, f"grid.decomposition={split}")
            self.assert_same_run("one", out)

    def test_3d_periodic_last_dimension_np2(self):
        c = self.config("gs", GRAY_SCOTT_2D.replace("[30, 41]", "[12, 9, 14]").replace("[0.3, 0.41]", "[0.12, 0.09, 0.14]")
                        .replace("dt = 1.0", "dt = 0.8").replace("steps = 60", "steps = 20").replace("every = 30", "every = 10")
                        .replace("every = 60", "every = 20").replace("seed_size = 0.08", "seed_size = 0.04"))
        self.simulate(0, c, "one", "--plugin", GRAY_SCOTT)
        self.simulate(2, c, "two", "--plugin", GRAY_SCOTT, "grid.decomposition=[1, 1, 2]")
        self.assert_same_run("one", "two")


class Refusals(Case):
    def test_fluid_multigrid_needs_factors_of_two(self):
        # (auto takes the transform solver here, which splits any grid: Fluid.test_auto_*)
        c = self.config("fluid", '[run]\nmodel = "fluid"\nbackend = "cpu"\nsteps = 2\n[grid]\ncells = [97, 97]\n'
                                 '[model]\npressure_solver = "mg_cg"\n')
        err = self.simulate(2, c, "f", expect=2)
        self.assertIn("pressure_solver", err)
        self.assertIn("factors of 2", err)

    def test_fluid_boxes_of_one_cell_are_refused(self):
        c = self.config("fluid", '[run]\nmodel = "fluid"\nbackend = "cpu"\nsteps = 2\n[grid]\ncells = [6, 64]\n')
        err = self.simulate(4, c, "f", "grid.decomposition=[4, 1]", expect=2)
        self.assertIn("at least 2 x 2 cells", err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "f")), "a refused run wrote output")

    def test_fluid_3d_boxes_of_one_cell_are_refused(self):
        c = self.config("fluid3d", '[run]\nmodel = "fluid"\nbackend = "cpu"\nsteps = 2\n[grid]\ncells = [3, 8, 8]\n'
                                   'length = [1.0, 1.0, 1.0]\n[boundary]\ndefault = "periodic"\n')
        err = self.simulate(2, c, "f3", "grid.decomposition=[2, 1, 1]", expect=2)
        self.assertIn("at least 2 x 2 x 2 cells", err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "f3")), "a refused run wrote output")

    def test_fluid_3d_mg_cg_refuses_several_ranks(self):
        c = self.config("fluid3d", '[run]\nmodel = "fluid"\nbackend = "cpu"\nsteps = 2\n[grid]\ncells = [16, 16, 16]\n'
                                   'length = [1.0, 1.0, 1.0]\n[model]\npressure_solver = "mg_cg"\n[boundary]\ndefault = "wall"\n')
        err = self.simulate(2, c, "mg3", expect=2)
        self.assertIn("pressure_solver", err)
        self.assertIn("mg_cg in 3D runs on one rank", err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "mg3")), "a refused run wrote output")

    def test_mcpi_array_path_refuses_several_ranks(self):
        err = self.simulate(2, self.config("mcpi", MCPI), "m", "model.path=\"array\"", expect=2)
        self.assertIn("fused", err)

    def test_decomposition_must_match_rank_count(self):
        err = self.simulate(2, self.config("heat", HEAT_2D), "h", "grid.decomposition=[3, 1]", expect=2)
        self.assertIn("grid.decomposition", err.replace("[grid] decomposition", "grid.decomposition"))
        self.assertIn("mpirun -np 3", err)

    def test_dry_run_shows_the_split(self):
        cmd = [MPIEXEC, "--oversubscribe", "-np", "4", SIMULATE, self.config("heat", HEAT_2D), "--dry-run"]
        p = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("ranks      4, grid split 2 x 2", p.stdout)
        self.assertEqual(p.stdout.count("model "), 1, p.stdout)  # rank 0 alone prints the plan

    def test_split_too_fine_for_the_grid(self):
        err = self.simulate(4, self.config("heat", HEAT_1D), "h", "grid.cells=[3]", expect=2)
        self.assertIn("too small to split", err)


if __name__ == "__main__":
    only = os.environ.get("SIMKIT_MPI_TEST")
    unittest.main(argv=["test_mpi_runs", "-v", only] if only else ["test_mpi_runs", "-v"])
