#!/usr/bin/python3
"""The finite-volume example (examples/advection_diffusion) through simulate on the CPU backend.

Between zero-flux walls the mass (the integral of c) stays what it was to rounding while the
blob is carried by the velocity and stopped by the walls; a periodic dimension carries it out
of one side and in at the other; with MPI, 2 and 3 ranks give the one-process bytes.

Environment: SIMKIT_SIMULATE, SIMKIT_ADVECTION_DIFFUSION_PLUGIN, SIMKIT_MPIEXEC and
SIMKIT_EXAMPLE_TEST (the test to run, for one CTest entry per case).
"""
import csv
import glob
import os
import shutil
import subprocess
import tempfile
import unittest

import h5py
import numpy as np

SIMULATE = os.environ["SIMKIT_SIMULATE"]
PLUGIN = os.environ["SIMKIT_ADVECTION_DIFFUSION_PLUGIN"]
MPIEXEC = os.environ.get("SIMKIT_MPIEXEC", "mpirun")
ENV = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl_vader_single_copy_mechanism="none")

CONFIG_2D = """
[run]
model = "advection_diffusion"
backend = "cpu"
steps = 600
cfl = 0.9
[grid]
cells = [48, 40]
length = [1.2, 1.0]
[model]
velocity = [0.6, 0.3]
D = 2e-4
center = [0.5, 0.4]
width = 0.08
[boundary]
default = "wall"
[output]
every = 10
"""


class AdvectionDiffusion(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="simkit_examples_")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_model(self, text, out, *args, ranks=0):
        path = os.path.join(self.dir, "ad.toml")
        with open(path, "w") as f:
            f.write(text)
        cmd = [SIMULATE, path, "--plugin", PLUGIN, "--output", os.path.join(self.dir, out), "-q", *args]
        if ranks:
            cmd = [MPIEXEC, "--oversubscribe", "-np", str(ranks), *cmd]
        p = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=240)
        self.assertEqual(p.returncode, 0, f"{' '.join(cmd)}\n{p.stderr}")

    def column(self, out, name):
        with open(os.path.join(self.dir, out, "diagnostics.csv")) as f:
            rows = list(csv.reader(f))
        i = [h.split(" ")[0] for h in rows[0]].index(name)
        return np.array([float(r[i]) for r in rows[1:]])

    def field(self, out, step):
        with h5py.File(os.path.join(self.dir, out, f"snapshot_{step:09d}.h5")) as f:
            return np.asarray(f["fields"]["c"][()], dtype=np.float64)

    def centroid(self, c, lengths):
        axes = np.meshgrid(*[(np.arange(n) + 0.5) * (l / n) for n, l in zip(c.shape, lengths)], indexing="ij")
        return [float((x * c).sum() / c.sum()) for x in axes]

    def test_2d_mass_conserved_and_blob_carried(self):
        self.run_model(CONFIG_2D, "walls")
        mass = self.column("walls", "mass")
        self.assertGreater(mass[0], 0)
        self.assertLess(np.max(np.abs(mass - mass[0])), 1e-13 * mass[0], f"mass drifts: {mass[0]} -> {mass}")
        # carried: the centroid moves by a t (0.6, 0.3 m/s) while the blob is clear of the walls
        start, later = self.centroid(self.field("walls", 0), (1.2, 1.0)), self.centroid(self.field("walls", 10), (1.2, 1.0))
        dt = float(self.column("walls", "time")[1])
        self.assertAlmostEqual(later[0] - start[0], 0.6 * dt, delta=0.02 * 0.6 * dt + 1e-3)
        self.assertAlmostEqual(later[1] - start[1], 0.3 * dt, delta=0.02 * 0.3 * dt + 1e-3)
        # stopped: at the end it lies against the high-x wall, inside the box, none of it lost
        end = self.field("walls", 600)
        self.assertGreater(self.centroid(end, (1.2, 1.0))[0], 1.0)
        self.assertGreater(end.min(), -1e-12)
        self.assertGreater(end[-1, :].max(), end[0, :].max())

    def test_3d_float32_mass_conserved(self):
        text = (CONFIG_2D.replace("[48, 40]", "[20, 16, 18]").replace("[1.2, 1.0]", "[1.0, 0.8, 0.9]")
                .replace("[0.6, 0.3]", "[0.5, -0.3, 0.4]").replace("[0.5, 0.4]", "[0.5, 0.4, 0.45]")
                .replace("steps = 600", "steps = 200"))
        self.run_model(text, "f32", "run.precision=\"float32\"")
        mass = self.column("f32", "mass")
        self.assertLess(np.max(np.abs(mass - mass[0])), 1e-5 * mass[0], f"mass drifts: {mass}")
        self.assertGreater(self.field("f32", 200).min(), -1e-6)

    def test_periodic_dimension_carries_the_blob_round(self):
        text = CONFIG_2D.replace('default = "wall"', 'default = "wall"\nx_lo = "periodic"\nx_hi = "periodic"')
        self.run_model(text, "periodic")
        mass = self.column("periodic", "mass")
        self.assertLess(np.max(np.abs(mass - mass[0])), 1e-13 * mass[0])
        # the blob leaves through x_hi and comes back in at x_lo: c near x = 0 rises from ~0
        first, last = self.field("periodic", 0), self.field("periodic", 600)
        self.assertLess(first[0, :].max(), 1e-6)
        self.assertGreater(last[:4, :].max(), 0.05)

    def test_same_bits_on_1_2_3_ranks(self):
        text = CONFIG_2D.replace("steps = 600", "steps = 60").replace("every = 10", "every = 30")
        self.run_model(text, "one")
        for ranks, split in ((2, "[2, 1]"), (3, "[1, 3]")):
            out = f"np{ranks}_{split[1]}x{split[4]}"
            self.run_model(text, out, f"grid.decomposition={split}", ranks=ranks)
            for snap in sorted(glob.glob(os.path.join(self.dir, "one", "snapshot_*.h5"))):
                name = os.path.basename(snap)
                with h5py.File(snap) as a, h5py.File(os.path.join(self.dir, out, name)) as b:
                    x, y = a["fields"]["c"][()], b["fields"]["c"][()]
                    self.assertTrue(np.array_equal(x.view(np.uint8), y.view(np.uint8)), f"{out}/{name}")


if __name__ == "__main__":
    only = os.environ.get("SIMKIT_EXAMPLE_TEST")
    unittest.main(argv=["test_examples", "-v", only] if only else ["test_examples", "-v"])
