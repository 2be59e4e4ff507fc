"""Tests of tools/sphere_wake.py: the drag coefficient and the recirculation length from a
synthetic run (a diagnostics.csv and a snapshot with a known centreline), its errors, --tol,
and a tiny run of configs/sphere.toml through simulate.

run: /usr/bin/python3 -m unittest -v tests/tools/test_sphere_wake.py     (from the repository root)
SIMKIT_SIMULATE names the simulate binary (default build/apps/simulate).
"""
import importlib.util
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "tools")
sys.path.insert(0, TOOLS)
import sphere_wake  # noqa: E402

SIMULATE = os.environ.get("SIMKIT_SIMULATE") or os.path.join(ROOT, "build", "apps", "simulate")
CONFIG = """[model]
viscosity = 0.01
obstacle = "sphere"
obstacle_center = [2.0, 1.0, 1.0]
obstacle_radius = 0.5
[boundary]
x_lo = "inflow"
x_lo_value = 1.0
"""

tmp = None


def setUpModule():
    """A scratch directory for the files of every test."""
    global tmp
    tmp = tempfile.mkdtemp(prefix="simkit_test_sphere_wake_")


def tearDownModule():
    """Removes the scratch directory."""
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)


def tool(*args):
    """Runs tools/sphere_wake.py with args; returns the CompletedProcess (text output)."""
    return subprocess.run([sys.executable, os.path.join(TOOLS, "sphere_wake.py"), *map(str, args)], capture_output=True,
                          text=True, timeout=120)


def synthetic_run(name, force, bubble=0.9, config=CONFIG):
    """A run directory: force_x = force (constant after t = 5), and a snapshot whose u is
    x - (2.5 + bubble) behind the sphere's rear at x = 2.5 (so L = bubble), the same across y, z."""
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "diagnostics.csv"), "w") as f:
        f.write("step,time,force_x [m^4/s^2]\n")
        for n in range(101):
            t = 0.1 * n
            f.write(f"{n},{t},{force if t >= 5 else 3 * force}\n")
    cells, h = np.array([64, 16, 16]), 0.125
    x = (np.arange(cells[0]) + 0.5) * h
    u = np.where(x > 2.5, x - (2.5 + bubble), 1.0)
    with h5py.File(os.path.join(d, "snapshot_000000100.h5"), "w") as f:
        f.attrs["kind"], f.attrs["model"], f.attrs["step"], f.attrs["time"] = "snapshot", "fluid", 100, 10.0
        f.attrs["cells"], f.attrs["origin"], f.attrs["spacing"] = cells, np.zeros(3), np.full(3, h)
        f.attrs["config"] = config
        f.create_group("fields")["u"] = np.broadcast_to(u[:, None, None], tuple(cells)).astype(np.float32)
    return d


class SphereWake(unittest.TestCase):
    def test_drag_coefficient_and_recirculation_length(self):
        force = 1.09 * 0.5 * math.pi / 4  # Cd 1.09 at U = D = 1
        r = tool(synthetic_run("good", force), "--tail", "0.4")
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        self.assertIn("Re 100", r.stdout)
        self.assertIn("Cd  = 1.0900", r.stdout)  # the early transient (t < 5) is outside the tail
        self.assertIn("L/D = 0.900", r.stdout)
        self.assertIn("reference 1.09", r.stdout)

    @unittest.skipUnless(importlib.util.find_spec("matplotlib"), "matplotlib is not installed (apt-get install python3-matplotlib)")
    def test_the_figure(self):
        png = os.path.join(tmp, "wake.png")
        r = tool(synthetic_run("figure", 1.09 * 0.5 * math.pi / 4), "--tail", "0.4", "-o", png)
        self.assertEqual(r.returncode, 0, r.stderr + r.stdout)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertGreater(os.path.getsize(png), 10000)

    def test_tolerance_and_the_transient(self):
        d = synthetic_run("off", 1.09 * 0.5 * math.pi / 4)
        self.assertEqual(tool(d, "--tail", "1").returncode, 1)  # the whole run: the transient's triple force counts
        self.assertEqual(tool(d, "--tail", "0.4", "--tol", "1e-6").returncode, 0)

    def test_bad_input_exits_2(self):
        d = synthetic_run("bad", 1.0)
        for args, words in (([os.path.join(tmp, "nowhere")], "no such"),
                            ([d, "--tail", "0"], "--tail"),
                            ([d, "--reference", os.path.join(tmp, "none.dat")], "none.dat")):
            r = tool(*args)
            self.assertEqual(r.returncode, 2, r.stdout)
            self.assertIn(words, r.stderr)
        no_sphere = synthetic_run("noconfig", 1.0, config="")
        r = tool(no_sphere)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--velocity", r.stderr)
        self.assertEqual(tool(no_sphere, "--velocity", 1, "--diameter", 1, "--center", 2, 1, 1).returncode, 1)

    def test_recirculation_length_edge_cases(self):
        x = np.linspace(0.0, 4.0, 9)
        self.assertIsNone(sphere_wake.recirculation_length(x, np.ones(9), 1.0))
        self.assertTrue(math.isinf(sphere_wake.recirculation_length(x, -np.ones(9), 1.0)))
        self.assertAlmostEqual(sphere_wake.recirculation_length(x, x - 2.25, 1.0), 1.25)

    @unittest.skipUnless(os.path.isfile(SIMULATE), f"no simulate binary at {SIMULATE}")
    def test_a_tiny_run_of_the_sphere_config(self):
        out = os.path.join(tmp, "tiny")
        run = subprocess.run([SIMULATE, os.path.join(ROOT, "configs", "sphere.toml"), "grid.cells=[32,16,16]",
                              "run.end_time=1.0", "output.every_time=1.0", f"output.directory={out}",
                              "model.pressure_tol=1e-4"], capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        r = tool(out)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        self.assertIn("Cd  = ", r.stdout)
        self.assertIn("L/D", r.stdout)


if __name__ == "__main__":
    unittest.main()
