"""Tests of tools/cavity3d.py: the centreline extraction on a synthetic snapshot with known
profiles, the comparison and --tol on a tiny run of configs/cavity3d.toml.

run: /usr/bin/python3 -m unittest -v tests/tools/test_cavity3d.py     (from the repository root)
SIMKIT_SIMULATE names the simulate binary (default build/apps/simulate).
"""
import importlib
import json
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
import cavity3d  # noqa: E402
import simkit_reader as sk  # noqa: E402

SIMULATE = os.environ.get("SIMKIT_SIMULATE") or os.path.join(ROOT, "build", "apps", "simulate")
try:
    for module in ("matplotlib", "PIL"):
        importlib.import_module(module)
    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False

tmp = None


def setUpModule():
    """A scratch directory for the files of every test."""
    global tmp
    tmp = tempfile.mkdtemp(prefix="simkit_test_cavity3d_")


def tearDownModule():
    """Removes the scratch directory."""
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)


def tool(*args):
    """Runs tools/cavity3d.py with args; returns the CompletedProcess (text output)."""
    return subprocess.run([sys.executable, os.path.join(TOOLS, "cavity3d.py"), *map(str, args)], capture_output=True,
                          text=True, timeout=120)


def u_exact(y):
    """The synthetic u: zero on the floor, the lid's speed at y = 1, the same in x and z."""
    return y * y


def v_exact(x):
    """The synthetic v: zero on both x walls."""
    return np.sin(np.pi * x) * (0.5 - x)


def synthetic_snapshot(path, n, viscosity=0.001):
    """A snapshot of n^3 cells whose cell-centred u and v are u_exact(y) and v_exact(x)."""
    h = 1.0 / n
    c = (np.arange(n) + 0.5) * h
    shape = (n, n, n)
    fields = {"u": np.broadcast_to(u_exact(c)[None, :, None], shape), "v": np.broadcast_to(v_exact(c)[:, None, None], shape),
              "w": np.zeros(shape)}
    with h5py.File(path, "w") as f:
        f.attrs["kind"] = "snapshot"
        f.attrs["model"] = "fluid"
        f.attrs["cells"] = np.array([n, n, n])
        f.attrs["origin"] = np.zeros(3)
        f.attrs["spacing"] = np.full(3, h)
        f.attrs["time"] = 1.0
        f.attrs["step"] = 10
        f.attrs["config"] = f"[model]\nviscosity = {viscosity}\n[boundary]\ny_hi_value = 1.0\n"
        g = f.create_group("fields")
        for name, data in fields.items():
            g.create_dataset(name, data=np.ascontiguousarray(data))
    return path


def reference_file(path, shift=0.0, reynolds=1000):
    """A reference file of the synthetic profiles at 17 points each, u moved by shift."""
    s = np.linspace(0, 1, 17)
    rows = [f"u {a:.6f} {u_exact(a) + (shift if 0 < a < 1 else 0):.8f}" for a in s]
    rows += [f"v {a:.6f} {v_exact(a):.8f}" for a in s]
    with open(path, "w") as f:
        f.write(f"# synthetic profiles at Re = {reynolds}: u = y^2, v = sin(pi x) (1/2 - x)\n" + "\n".join(rows) + "\n")
    return path


class Synthetic(unittest.TestCase):
    """Known profiles: the extraction, the numbers printed and the exit codes."""

    def test_extracts_known_profiles(self):
        """The centrelines of a synthetic snapshot follow u_exact and v_exact to the interpolation error."""
        snap = sk.open(synthetic_snapshot(os.path.join(tmp, "extract.h5"), 32))
        y, u = cavity3d.centreline(snap, 0, 1, 1.0)
        x, v = cavity3d.centreline(snap, 1, 0, 1.0)
        self.assertEqual((y[0], y[-1], u[0], u[-1]), (0.0, 1.0, 0.0, 1.0))  # the walls: floor and lid
        self.assertEqual((x[0], x[-1], v[0], v[-1]), (0.0, 1.0, 0.0, 0.0))
        s = np.linspace(0.01, 0.99, 50)
        h = 1.0 / 32
        self.assertLess(np.max(np.abs(np.interp(s, y, u) - u_exact(s))), h * h)
        self.assertLess(np.max(np.abs(np.interp(s, x, v) - v_exact(s))), 3 * h * h)
        value, where = cavity3d.extremum(x, v, False)
        xs = np.linspace(0, 1, 100001)
        self.assertAlmostEqual(value, np.max(v_exact(xs)), delta=2e-3)
        self.assertAlmostEqual(where, xs[np.argmax(v_exact(xs))], delta=h / 2)

    def test_reports_and_passes_within_tol(self):
        """Against its own profiles the largest difference is at the interpolation error and --tol passes."""
        snap = synthetic_snapshot(os.path.join(tmp, "pass.h5"), 32)
        r = tool(snap, "--reference", reference_file(os.path.join(tmp, "ref.dat")), "--tol", 0.01)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2, r.stdout)
        self.assertTrue(lines[0].startswith("pass.h5: u along y (32x32x32, t = 1)"), lines[0])
        self.assertTrue(lines[1].startswith("pass.h5: v along x"), lines[1])
        largest = float(lines[0].split("largest difference ")[1].split(",")[0])
        self.assertLess(largest, 1e-3)

    def test_several_runs_and_json(self):
        """Two labelled runs: two lines each, and their numbers in the JSON file."""
        a = synthetic_snapshot(os.path.join(tmp, "a.h5"), 16)
        b = synthetic_snapshot(os.path.join(tmp, "b.h5"), 32)
        ref = reference_file(os.path.join(tmp, "ref2.dat"))
        out = os.path.join(tmp, "two.json")
        r = tool(f"16={a}", f"32={b}", "--reference", ref, "--json", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([line.split(":")[0] for line in r.stdout.splitlines()], ["16", "16", "32", "32"])
        with open(out) as f:
            doc = json.load(f)
        self.assertEqual(sorted(doc), ["16", "32"])
        self.assertEqual(doc["32"]["cells"], [32, 32, 32])
        self.assertLess(doc["32"]["u"]["largest"], doc["16"]["u"]["largest"])  # finer: closer to the exact profile
        self.assertIn("max", doc["32"]["v"]["extrema"])

    def test_fails_above_tol(self):
        """A reference 0.1 away fails --tol 0.05 with exit 1 and says by how much; without --tol it reports it."""
        snap = synthetic_snapshot(os.path.join(tmp, "fail.h5"), 32)
        ref = reference_file(os.path.join(tmp, "shifted.dat"), shift=0.1)
        r = tool(snap, "--reference", ref, "--tol", 0.05)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("above --tol 0.05", r.stderr)
        largest = float(r.stdout.split("largest difference ")[1].split(",")[0])
        self.assertAlmostEqual(largest, 0.1, delta=2e-3)
        self.assertEqual(tool(snap, "--reference", ref).returncode, 0)

    def test_refuses_another_reynolds_number(self):
        """A run at Re 100 against the Re 1000 reference: exit 2, the fix named, nothing drawn."""
        snap = synthetic_snapshot(os.path.join(tmp, "re100.h5"), 16, viscosity=0.01)
        png = os.path.join(tmp, "re100.png")
        r = tool(snap, "-o", png)
        self.assertEqual(r.returncode, 2)
        self.assertIn("Re 100", r.stderr)
        self.assertIn("model.viscosity=0.001", r.stderr)
        self.assertFalse(os.path.exists(png))
        r = tool(snap, "--reference", "none")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("min", r.stdout)

    def test_bad_input(self):
        """No such run, a malformed reference, a bad --tol: exit 2 with the file or option named."""
        r = tool(os.path.join(tmp, "missing"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("missing", r.stderr)
        bad = os.path.join(tmp, "bad.dat")
        with open(bad, "w") as f:
            f.write("u 0 0\nq 1 2\n")
        r = tool(synthetic_snapshot(os.path.join(tmp, "bad.h5"), 8), "--reference", bad)
        self.assertEqual(r.returncode, 2)
        self.assertIn("bad.dat:2", r.stderr)
        self.assertEqual(tool(os.path.join(tmp, "bad.h5"), "--tol", "-1").returncode, 2)


@unittest.skipUnless(os.access(SIMULATE, os.X_OK), f"no simulate binary at {SIMULATE}: build it or set SIMKIT_SIMULATE")
class TinyRun(unittest.TestCase):
    """configs/cavity3d.toml at Re 1000 on 8^3 cells up to t = 1, a snapshot and a checkpoint every step."""

    @classmethod
    def setUpClass(cls):
        cls.out = os.path.join(tmp, "run")
        r = subprocess.run([SIMULATE, os.path.join(ROOT, "configs", "cavity3d.toml"), "--backend", "cpu", "--quiet",
                            "--output", cls.out, "grid.cells=[8,8,8]", "model.viscosity=0.001", "run.end_time=1",
                            "output.every=1", "output.every_time=0", "checkpoint.every=1", "checkpoint.keep=1"],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"simulate failed ({r.returncode}): {r.stderr}")

    def test_reads_the_newest_snapshot_and_draws(self):
        """The run directory: two lines at the last step, a PNG, and --tol 1e-6 fails (the flow has barely started)."""
        png = os.path.join(tmp, "run.png")
        args = [self.out] + (["-o", png] if HAVE_MPL else [])
        r = tool(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("u along y (8x8x8", r.stdout)
        self.assertIn("v along x (8x8x8", r.stdout)
        if HAVE_MPL:
            self.assertGreater(os.path.getsize(png), 1000)
        self.assertEqual(tool(self.out, "--tol", 1e-6).returncode, 1)

    def test_checkpoint_faces_agree_with_snapshot_centres(self):
        """The checkpoint's staggered faces and the snapshot's centred velocities give close profiles."""
        snaps = sk.series(self.out)
        checkpoint = os.path.join(self.out, f"checkpoint_{snaps[-1][1]:09d}.h5")
        faces, centres = sk.open(checkpoint), sk.open(snaps[-1][2])
        self.assertIn("u_face", faces.fields)
        for component, along in ((0, 1), (1, 0)):
            sf, vf = cavity3d.centreline(faces, component, along, 1.0)
            sc, vc = cavity3d.centreline(centres, component, along, 1.0)
            s = np.linspace(0, 1, 41)
            self.assertLess(np.max(np.abs(np.interp(s, sf, vf) - np.interp(s, sc, vc))), 0.05)
            self.assertGreater(np.max(np.abs(vc[1:-1])), 1e-4)  # the lid has set the fluid moving


if __name__ == "__main__":
    unittest.main()
