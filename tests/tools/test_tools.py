"""Tests of the post-processing tools in tools/ on fresh `simulate` output.

run: /usr/bin/python3 -m unittest -v tests/tools/test_tools.py     (from the repository root)
SIMKIT_SIMULATE names the simulate binary (default build/apps/simulate). Tests that draw
need matplotlib and are skipped, with the reason, without it.
"""
import importlib
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "tools")
sys.path.insert(0, TOOLS)
import simkit_reader as sk  # noqa: E402

SIMULATE = os.environ.get("SIMKIT_SIMULATE") or os.path.join(ROOT, "build", "apps", "simulate")
try:
    for module in ("matplotlib", "PIL"):  # PIL: python3-pil, a dependency of python3-matplotlib
        importlib.import_module(module)
    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False
needs_mpl = unittest.skipUnless(HAVE_MPL, "matplotlib is not importable by this python: apt-get install python3-matplotlib")
PYTHON = sys.executable

tmp = None  # the scratch directory of this module's runs
runs = {}   # name -> output directory


def simulate(name, config, *overrides):
    """Runs simulate on a copy of configs/CONFIG with overrides into tmp/NAME; returns that directory."""
    cfg = os.path.join(tmp, name + ".toml")
    shutil.copy(os.path.join(ROOT, "configs", config), cfg)
    out = os.path.join(tmp, name)
    r = subprocess.run([SIMULATE, cfg, "--backend", "cpu", "--output", out, "--quiet", *overrides],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"simulate {name} failed ({r.returncode}): {r.stderr}")
    return out


def setUpModule():
    """The runs every test reads: two 2-D runs (alpha 1 and 1.01), a tiny 3-D run and a 1-D run."""
    global tmp
    if not os.access(SIMULATE, os.X_OK):
        raise RuntimeError(f"no simulate binary at {SIMULATE}: build it (ninja -C build simulate) or set SIMKIT_SIMULATE")
    tmp = tempfile.mkdtemp(prefix="simkit_test_tools_")
    small2d = ["grid.cells=[64,64]", "run.end_time=0.006", "output.every_time=0", "output.every=20"]
    try:
        runs["a"] = simulate("a", "heat2d.toml", *small2d)
        runs["b"] = simulate("b", "heat2d.toml", *small2d, "model.alpha=1.01")
        runs["3d"] = simulate("3d", "heat3d.toml", "grid.cells=[16,12,10]", "run.end_time=0.004",
                              "output.every_time=0.001")
        runs["1d"] = simulate("1d", "heat1d.toml", "grid.cells=[40]", "run.end_time=0.1", "output.every_time=0.02")
    except Exception:
        tearDownModule()  # not called by unittest when setUpModule fails
        raise


def tearDownModule():
    """Removes the scratch directory."""
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)


def tool(name, *args):
    """Runs tools/NAME with args; returns the CompletedProcess (text output)."""
    return subprocess.run([PYTHON, os.path.join(TOOLS, name), *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def snapshots(run):
    """The snapshot files of a run, oldest first."""
    return sorted(os.path.join(run, f) for f in os.listdir(run) if f.startswith("snapshot_") and f.endswith(".h5"))


class ToolCase(unittest.TestCase):
    def out(self, name):
        """A path for an output file of this test."""
        return os.path.join(tmp, f"{self.id().rsplit('.', 1)[-1]}_{name}")

    def assertRuns(self, r, code=0):
        """The tool exited with code; its output is shown when it did not."""
        self.assertEqual(r.returncode, code, f"exit {r.returncode}, expected {code}\nstdout: {r.stdout}\nstderr: {r.stderr}")

    def assertImage(self, path, size=(600, 500), frames=None, min_bytes=5000):
        """path is a valid image (PIL opens it) of the given size, frame count and at least min_bytes."""
        from PIL import Image

        self.assertTrue(os.path.isfile(path), f"{path} was not written")
        self.assertGreater(os.path.getsize(path), min_bytes, f"{path} is suspiciously small")
        with Image.open(path) as im:
            im.verify()
        with Image.open(path) as im:
            self.assertEqual(im.size, size)
            if frames is not None:
                self.assertEqual(getattr(im, "n_frames", 1), frames)
            im.seek(0)
            self.assertGreater(len(set(im.convert("RGB").getdata())), 10, f"{path} is (nearly) one colour")


class ReaderTest(ToolCase):
    def test_open_gives_fields_coords_and_attrs(self):
        last = snapshots(runs["a"])[-1]
        s = sk.open(last)
        self.assertEqual(list(s.fields), ["u"])
        self.assertEqual(s.fields["u"].shape, (64, 64))
        self.assertEqual(s.fields["u"].dtype, np.float64)
        self.assertEqual(s.rank, 2)
        for d in range(2):
            np.testing.assert_allclose(s.coords[d], (np.arange(64) + 0.5) / 64, rtol=0, atol=1e-15)
        self.assertEqual(s.edges(0), (0.0, 1.0))
        a = s.attrs
        self.assertEqual((a["kind"], a["model"], a["units"]["u"]), ("snapshot", "heat", "K"))
        self.assertEqual(a["step"], int(os.path.basename(last)[9:18]))
        self.assertAlmostEqual(a["time"], 0.006, places=15)
        self.assertGreater(a["dt"], 0)
        self.assertIn("alpha = 1.0", a["config"])
        with h5py.File(last, "r") as f:
            np.testing.assert_array_equal(s.fields["u"], f["fields/u"][()])

    def test_open_3d_float32_and_a_checkpoint(self):
        s = sk.open(snapshots(runs["3d"])[0])
        self.assertEqual(s.fields["u"].shape, (16, 12, 10))
        self.assertEqual(s.fields["u"].dtype, np.float32)
        self.assertEqual([len(c) for c in s.coords], [16, 12, 10])
        self.assertAlmostEqual(s.coords[2][0], 0.05)
        checkpoints = [f for f in os.listdir(runs["a"]) if f.startswith("checkpoint_")]
        self.assertTrue(checkpoints)
        c = sk.open(os.path.join(runs["a"], checkpoints[0]))
        self.assertEqual(c.attrs["kind"], "checkpoint")
        self.assertEqual(c.fields["u"].shape, (64, 64))
        self.assertEqual(sk.open(snapshots(runs["a"])[0], fields=[]).fields, {})

    def test_series_from_directory_xdmf_and_bare_files(self):
        files = snapshots(runs["a"])
        from_dir = sk.series(runs["a"])
        self.assertEqual(from_dir, sk.series(os.path.join(runs["a"], "snapshot.xdmf")))
        self.assertEqual([os.path.abspath(p) for _, _, p in from_dir], [os.path.abspath(f) for f in files])
        self.assertEqual([s for _, s, _ in from_dir], [0, 20, 40, 60, 80, 100, 110])
        for t, step, path in from_dir:
            a = sk.open(path, fields=[]).attrs
            self.assertEqual((a["time"], a["step"]), (t, step))
        bare = os.path.join(tmp, "bare")  # snapshots without their .xdmf: found by their kind attribute
        os.makedirs(bare, exist_ok=True)
        for f in files:
            shutil.copy(f, bare)
        self.assertEqual([(t, s) for t, s, _ in sk.series(bare)], [(t, s) for t, s, _ in from_dir])

    def test_diagnostics(self):
        d = sk.diagnostics(runs["a"])
        self.assertEqual(list(d)[:2], ["step", "time"])
        self.assertIn("total_heat", d)
        self.assertEqual(d.units["total_heat"], "K m^2")
        self.assertEqual(d.units["time"], "s")
        self.assertEqual(d["step"].dtype, np.int64)
        series = sk.series(runs["a"])
        np.testing.assert_array_equal(d["step"], [s for _, s, _ in series])
        np.testing.assert_array_equal(d["time"], [t for t, _, _ in series])
        np.testing.assert_allclose(d["total_heat"], d["total_heat"][0], rtol=1e-3)  # heat is nearly conserved early on
        self.assertEqual(sk.diagnostics(os.path.join(runs["3d"], "diagnostics.csv")).units["total_heat"], "K m^3")

    def test_errors_name_the_file(self):
        for call in (lambda: sk.open(os.path.join(tmp, "missing.h5")),
                     lambda: sk.open(os.path.join(runs["a"], "diagnostics.csv")),
                     lambda: sk.open(snapshots(runs["a"])[0], fields=["v"]),
                     lambda: sk.series(os.path.join(tmp, "missing")),
                     lambda: sk.diagnostics(os.path.join(tmp, "missing")),
                     lambda: sk.diagnostics(snapshots(runs["a"])[0])):
            with self.assertRaises(sk.Error) as e:
                call()
            self.assertIn(tmp, str(e.exception))


class CompareTest(ToolCase):
    def test_a_run_against_itself_is_the_same(self):
        r = tool("simkit_compare.py", runs["a"], runs["a"])
        self.assertRuns(r, 0)
        self.assertIn("same", r.stdout)
        self.assertRuns(tool("simkit_compare.py", runs["a"], runs["a"], "--all", "--rtol", "0"), 0)

    def test_a_snapshot_and_the_checkpoint_of_the_same_step_match(self):
        checkpoint = os.path.join(runs["a"], "checkpoint_000000110.h5")
        self.assertRuns(tool("simkit_compare.py", snapshots(runs["a"])[-1], checkpoint, "--rtol", "0"), 0)

    def test_different_alpha_differs(self):
        r = tool("simkit_compare.py", runs["a"], runs["b"])
        self.assertRuns(r, 1)
        self.assertIn("DIFFERS", r.stdout)
        row = next(line.split() for line in r.stdout.splitlines() if line.split()[:1] == ["u"])
        self.assertGreater(float(row[1]), 0)  # max abs diff
        self.assertRuns(tool("simkit_compare.py", runs["a"], runs["b"], "--rtol", "1"), 0)  # |a-b| <= max(|a|,|b|)

    def test_checkpoints_compare_counters_exactly(self):
        checkpoint = os.path.join(runs["a"], "checkpoint_000000110.h5")
        r = tool("simkit_compare.py", checkpoint, checkpoint)
        self.assertRuns(r, 0)
        self.assertIn("counters/step", r.stdout)
        changed = self.out("checkpoint.h5")
        shutil.copy(checkpoint, changed)
        with h5py.File(changed, "r+") as f:
            f["counters/rng_offset"][0] += 1
        r = tool("simkit_compare.py", checkpoint, changed, "--rtol", "1")
        self.assertRuns(r, 1)
        self.assertIn("counters/rng_offset", next(line for line in r.stdout.splitlines() if "DIFFERS" in line))

    def test_runs_without_snapshots_compare_their_diagnostics(self):
        a, b = self.out("fieldless_a"), self.out("fieldless_b")  # as a model without fields leaves them
        for d in (a, b):
            os.makedirs(d, exist_ok=True)
            shutil.copy(os.path.join(runs["a"], "diagnostics.csv"), d)
        self.assertRuns(tool("simkit_compare.py", a, b), 0)
        with open(os.path.join(b, "diagnostics.csv")) as f:
            lines = f.read().splitlines()
        lines[-1] = lines[-1][: lines[-1].rindex(",")] + ",12.5"  # the last value of the last row
        with open(os.path.join(b, "diagnostics.csv"), "w") as f:
            f.write("\n".join(lines) + "\n")
        r = tool("simkit_compare.py", a, b)
        self.assertRuns(r, 1)
        self.assertIn("DIFFERS", r.stdout)
        self.assertRuns(tool("simkit_compare.py", a, runs["a"]), 2)  # snapshots on one side only

    def test_bad_input_exits_2(self):
        r = tool("simkit_compare.py", runs["a"], os.path.join(tmp, "missing.h5"))
        self.assertRuns(r, 2)
        self.assertIn("missing.h5", r.stderr)
        self.assertRuns(tool("simkit_compare.py", runs["a"], runs["3d"]), 2)  # shapes differ
        self.assertRuns(tool("simkit_compare.py", runs["a"], runs["b"], "--all"), 2)  # different steps
        self.assertRuns(tool("simkit_compare.py", runs["a"], os.path.join(runs["a"], "diagnostics.csv")), 2)


@needs_mpl
class PlotTest(ToolCase):
    def test_2d_colour_map(self):
        png = self.out("u.png")
        self.assertRuns(tool("simkit_plot.py", snapshots(runs["a"])[1], "-o", png))
        self.assertImage(png)
        self.assertRuns(tool("simkit_plot.py", snapshots(runs["a"])[1], "--field", "u", "--size", "400x300", "-o", png))
        self.assertImage(png, size=(400, 300))

    def test_3d_slices_and_1d_line(self):
        for args in ([], ["--slice", "z=5"], ["--slice", "1=0"]):
            png = self.out("3d.png")
            self.assertRuns(tool("simkit_plot.py", snapshots(runs["3d"])[0], *args, "-o", png))
            self.assertImage(png)
        png = self.out("1d.png")
        self.assertRuns(tool("simkit_plot.py", snapshots(runs["1d"])[-1], "-o", png))
        self.assertImage(png)

    def test_vectors_as_arrows_and_streamlines(self):
        flow = self.out("flow.h5")  # a snapshot with velocity components, as a flow model writes them
        shutil.copy(snapshots(runs["a"])[-1], flow)
        with h5py.File(flow, "r+") as f:
            x, y = np.meshgrid((np.arange(64) + 0.5) / 64, (np.arange(64) + 0.5) / 64, indexing="ij")
            for name, v in (("ux", -(y - 0.5)), ("uy", x - 0.5)):  # a vortex; x = dimension 0
                f["fields"].create_dataset(name, data=v).attrs["unit"] = "m/s"
        for style in ("arrows", "streamlines"):
            png = self.out(style + ".png")
            self.assertRuns(tool("simkit_plot.py", flow, "--vectors", style, "-o", png))
            self.assertImage(png)
        r = tool("simkit_plot.py", snapshots(runs["a"])[-1], "--vectors", "-o", self.out("none.png"))
        self.assertRuns(r, 2)
        self.assertIn("ux/uy", r.stderr)

    def test_bad_input_exits_2(self):
        self.assertRuns(tool("simkit_plot.py", os.path.join(tmp, "missing.h5")), 2)
        r = tool("simkit_plot.py", snapshots(runs["a"])[0], "--field", "v", "-o", self.out("v.png"))
        self.assertRuns(r, 2)
        self.assertIn("no field 'v'", r.stderr)
        self.assertRuns(tool("simkit_plot.py", snapshots(runs["a"])[0], "--slice", "0=3"), 2)  # 2-D
        self.assertRuns(tool("simkit_plot.py", snapshots(runs["3d"])[0], "--slice", "2=10"), 2)  # out of range
        self.assertFalse(os.path.exists(self.out("v.png")))


@needs_mpl
class ColourLimitsTest(ToolCase):
    """--vmin/--vmax/--symmetric of simkit_plot.py and simkit_animate.py (run in-process, with a
    FieldPlot that records the limits it drew with)."""

    def limits_drawn(self, module_name, argv):
        """(exit code, [(lower, upper) of each FieldPlot made]) of module_name.main(argv)."""
        module = importlib.import_module(module_name)
        seen = []

        class Spy(module.FieldPlot):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                seen.append(tuple(self.ax.get_ylim()) if self.artist.axes.lines else tuple(self.artist.get_clim()))

        with mock.patch.object(module, "FieldPlot", Spy), mock.patch("sys.stdout"), mock.patch("sys.stderr"):
            code = module.main(list(map(str, argv)))
        return code, seen

    def test_colour_limits(self):
        from simkit_plot import colour_limits

        self.assertEqual(colour_limits(-1, 3), (-1, 3))
        self.assertEqual(colour_limits(-1, 3, symmetric=True), (-3, 3))
        self.assertEqual(colour_limits(-5, 3, symmetric=True), (-5, 5))
        self.assertEqual(colour_limits(0.5, 3, vmax=2, symmetric=True), (-2, 2))
        self.assertEqual(colour_limits(0.5, 3, vmin=-4, symmetric=True), (-4, 4))
        self.assertEqual(colour_limits(-65, 60, vmax=25, symmetric=True), (-25, 25))  # given beats the data
        self.assertEqual(colour_limits(-65, 60, vmin=-1, vmax=25, symmetric=True), (-25, 25))
        self.assertEqual(colour_limits(0.5, 3, vmin=1), (1, 3))
        with self.assertRaises(ValueError):
            colour_limits(0, 1, vmin=2)

    def test_plot_symmetric_and_explicit_limits(self):
        last = snapshots(runs["a"])[-1]
        top = float(sk.open(last).fields["u"].max())
        png = self.out("u.png")
        for extra, want in (([], None), (["--symmetric"], (-top, top)), (["--vmax", 0.1, "--symmetric"], (-0.1, 0.1)),
                            (["--vmin", 0.05], (0.05, top)), (["--vmin", -1, "--vmax", 2], (-1, 2))):
            code, seen = self.limits_drawn("simkit_plot", [last, "--cmap", "RdBu_r", *extra, "-o", png])
            self.assertEqual(code, 0, extra)
            if want is None:  # matplotlib's own: the data range
                want = (float(sk.open(last).fields["u"].min()), top)
            np.testing.assert_allclose(seen, [want], rtol=1e-12, err_msg=str(extra))
        self.assertImage(png)
        r = tool("simkit_plot.py", last, "--vmin", 1, "--vmax", 0, "-o", self.out("bad.png"))
        self.assertRuns(r, 2)
        self.assertIn("above the upper", r.stderr)
        self.assertFalse(os.path.exists(self.out("bad.png")))

    def test_animation_limits_over_the_series(self):
        top = max(float(sk.open(p).fields["u"].max()) for _, _, p in sk.series(runs["a"]))
        gif = self.out("a.gif")
        code, seen = self.limits_drawn("simkit_animate", [runs["a"], "--symmetric", "--cmap", "RdBu_r", "-o", gif])
        self.assertEqual(code, 0)
        np.testing.assert_allclose(seen, [(-top, top)], rtol=1e-12)
        self.assertImage(gif, frames=len(snapshots(runs["a"])))
        code, seen = self.limits_drawn("simkit_animate", [runs["a"], "--vmin", -0.5, "--vmax", 0.25, "-o", gif])
        self.assertEqual((code, seen), (0, [(-0.5, 0.25)]))
        code, seen = self.limits_drawn("simkit_animate", [runs["1d"], "--vmax", 3, "--symmetric", "-o", gif])
        self.assertEqual((code, seen), (0, [(-3, 3)]))  # 1-D: the y range
        self.assertRuns(tool("simkit_animate.py", runs["a"], "--vmin", 1, "--vmax", 0, "-o", self.out("bad.gif")), 2)


@needs_mpl
class AnimateTest(ToolCase):
    def test_gif_of_2d_and_3d_runs(self):
        gif = self.out("a.gif")
        r = tool("simkit_animate.py", runs["a"], "-o", gif, "--fps", "5")
        self.assertRuns(r)
        self.assertImage(gif, frames=len(snapshots(runs["a"])))
        gif = self.out("3d.gif")
        self.assertRuns(tool("simkit_animate.py", os.path.join(runs["3d"], "snapshot.xdmf"), "--every", "2",
                             "--size", "320x240", "-o", gif))
        self.assertImage(gif, size=(320, 240), frames=(len(snapshots(runs["3d"])) + 1) // 2)

    def test_start_time(self):
        times = [t for t, _, _ in sk.series(runs["1d"])]  # 0, 0.02, ..., 0.1
        gif = self.out("late.gif")
        self.assertRuns(tool("simkit_animate.py", runs["1d"], "--start", times[2], "-o", gif))
        self.assertImage(gif, frames=len(times) - 2, min_bytes=1000)
        self.assertRuns(tool("simkit_animate.py", runs["1d"], "--start", times[2] - 1e-9, "--every", 2, "-o", gif))
        self.assertImage(gif, frames=(len(times) - 2 + 1) // 2, min_bytes=1000)
        r = tool("simkit_animate.py", runs["1d"], "--start", times[-1] + 1, "-o", self.out("none.gif"))
        self.assertRuns(r, 2)
        self.assertIn("--start", r.stderr)

    def test_mp4_needs_ffmpeg_and_other_formats_are_refused(self):
        mp4 = self.out("a.mp4")
        r = tool("simkit_animate.py", runs["1d"], "-o", mp4)
        if shutil.which("ffmpeg"):
            self.assertRuns(r)
            self.assertGreater(os.path.getsize(mp4), 1000)
        else:
            self.assertRuns(r, 2)
            self.assertIn("ffmpeg", r.stderr)
        self.assertRuns(tool("simkit_animate.py", runs["1d"], "-o", self.out("a.avi")), 2)
        self.assertRuns(tool("simkit_animate.py", os.path.join(tmp, "missing"), "-o", self.out("m.gif")), 2)


@needs_mpl
class DiagnosticsTest(ToolCase):
    def test_one_panel_per_column(self):
        png = self.out("d.png")
        self.assertRuns(tool("simkit_diagnostics.py", runs["a"], "-o", png, "--logy", "min"))
        self.assertImage(png, size=(600, 3 * 150 + 100))
        self.assertRuns(tool("simkit_diagnostics.py", os.path.join(runs["3d"], "diagnostics.csv"),
                             "--size", "500x400", "-o", png))
        self.assertImage(png, size=(500, 400))
        self.assertRuns(tool("simkit_diagnostics.py", os.path.join(tmp, "missing")), 2)


class CommandLineTest(ToolCase):
    TOOLS = ["simkit_plot.py", "simkit_animate.py", "simkit_diagnostics.py", "simkit_compare.py"]

    def test_every_tool_has_help(self):
        for name in self.TOOLS:
            if name != "simkit_compare.py" and not HAVE_MPL:
                continue
            r = tool(name, "--help")
            self.assertRuns(r)
            self.assertIn("usage:", r.stdout)

    def test_scripts_compile(self):
        for path in [os.path.join(TOOLS, n) for n in self.TOOLS + ["simkit_reader.py"]] + [
                os.path.join(ROOT, "tests", "tools", n) for n in ("paraview_render.py", "run_paraview_test.py")]:
            py_compile.compile(path, cfile=os.path.join(tmp, "compiled.pyc"), doraise=True)
        subprocess.run(["bash", "-n", os.path.join(TOOLS, "make_gallery.sh")], check=True)



@needs_mpl
class TaylorGreen3dTest(ToolCase):
    def test_compares_a_3d_run_with_the_reference(self):
        tg = simulate("tg3d", "taylor_green_3d.toml", "grid.cells=[8,8,8]", "run.end_time=0.5", "run.cfl=0.5",
                      "output.every_time=0")  # (several steps: rows every 0.1 s)
        png = self.out("tg.png")
        r = tool("taylor_green_3d.py", f"8={tg}", "-o", png)
        self.assertRuns(r)
        self.assertIn("8: kinetic energy within", r.stdout)
        self.assertIn("reference 0.01285 at t = 9.00", r.stdout)
        self.assertImage(png, size=(1100, 450))
        diag = sk.diagnostics(tg)  # rows every 0.1 s (here every step) without snapshots
        self.assertGreater(len(diag["time"]), 2)
        self.assertEqual(snapshots(tg), [])

    def test_refuses_a_run_without_the_3d_columns(self):
        self.assertRuns(tool("taylor_green_3d.py", runs["a"], "-o", self.out("x.png")), 2)


if __name__ == "__main__":
    unittest.main()
