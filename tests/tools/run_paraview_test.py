#!/usr/bin/python3
"""CTest tools.paraview: ParaView opens simkit's XDMF series (1-D, 2-D, 3-D) and renders them.

usage: run_paraview_test.py [--simulate PATH] [--keep DIR]
       (simulate default: $SIMKIT_SIMULATE, else build/apps/simulate)

Runs small heat simulations (1-D, 2-D, 3-D) and a small fluid run (five fields), then
paraview_render.py under `pvpython --force-offscreen-rendering` on each series, and checks
  - what ParaView read: the reader, the cell array names, the grid's cell
    counts per axis, the number of time steps, the last time, and each array's range, all
    against the HDF5 files themselves;
  - the PNG: its size, that the data covers a real part of the frame (pixels that are not
    the background), with many distinct colours, from both ends of the colour map.
Exit 0 passed, 1 failed, 77 skipped (no pvpython, or no display and no Xvfb; CTest maps 77
to "skipped" through SKIP_RETURN_CODE, and the reason is printed).

Debian's ParaView (5.11) renders through GLX even with --force-offscreen-rendering, so without
a DISPLAY the test starts its own Xvfb, once for all renders, with
  -displayfd   the server picks a free display and names it once it accepts connections
               (no guessing, no sleep; `xvfb-run -a` back to back raced and leaked servers here)
  -noreset     a server that resets when its last client leaves refuses connections for a
               moment: without this flag about one pvpython in sixteen died here with
               "vtkXOpenGLRenderWindow: bad X server connection. DISPLAY=:0. Aborting."
Mesa's llvmpipe does the drawing (no GPU needed).
"""
import argparse
import glob
import importlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77
SIZE = (600, 500)

# name, config, overrides, field to colour by, least fraction of the frame the data covers
RUNS = [
    ("heat1d", "heat1d.toml", ["grid.cells=[50]", "run.end_time=0.05", "output.every_time=0.01"], "u", 0.005),
    ("heat2d", "heat2d.toml", ["grid.cells=[48,32]", "run.end_time=0.004", "output.every_time=0.001"], "u", 0.2),
    ("heat3d", "heat3d.toml", ["grid.cells=[16,12,10]", "run.end_time=0.004", "output.every_time=0.001"], "u", 0.2),
    ("cavity", "cavity_re100.toml", ["grid.cells=[32,24]", "run.end_time=0.2", "output.every_time=0.1"],
     "vorticity", 0.2),
]


def start_xvfb(log):
    """Starts Xvfb on a free display; returns (process, ':N'). Raises RuntimeError when it does not come up."""
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1024x768x24", "-nolisten", "tcp",
                             "-noreset"],
                            pass_fds=(write_fd,), stdout=log, stderr=log)
    os.close(write_fd)
    number = b""
    while not number.endswith(b"\n"):
        ready, _, _ = select.select([read_fd], [], [], 30)
        chunk = os.read(read_fd, 16) if ready else b""
        if not chunk:
            os.close(read_fd)
            proc.kill()
            proc.wait()
            raise RuntimeError("Xvfb did not report a display within 30 s")
        number += chunk
    os.close(read_fd)
    return proc, ":" + number.decode().strip()


def expected(run):
    """What ParaView should read of a run: from its HDF5 snapshots."""
    import h5py
    import numpy as np

    files = sorted(glob.glob(os.path.join(run, "snapshot_*.h5")))
    with h5py.File(files[-1], "r") as f:
        names = list(f["fields"].keys())
        fields = {name: f["fields"][name][()] for name in names}
        time = float(f.attrs["time"])
        shape = fields[names[0]].shape
    # ParaView's X axis is the last dimension: 3-D [a, b, c] -> [c, b, a]; 2-D [a, b] is the
    # plane X = 0 with b cells along Y, a along Z; 1-D [a] is a strip along Y, one cell thick
    dims = {3: lambda s: [s[2], s[1], s[0]], 2: lambda s: [1, s[1], s[0]], 1: lambda s: [1, s[0], 1]}[len(shape)](shape)
    ranges = {n: [float(np.nanmin(v)), float(np.nanmax(v))] for n, v in fields.items()}
    return {"times": len(files), "last_time": time, "cell_arrays": names, "cell_dims": dims, "ranges": ranges}


def check_read(read, want):
    """Differences between what ParaView read and what the files hold, as messages."""
    problems = []
    if read.get("reader", "").lower().find("xdmf") < 0:
        problems.append(f"reader {read.get('reader')!r} is not an XDMF reader")
    for key in ("times", "cell_arrays", "cell_dims"):
        got, wanted = read.get(key), want[key]
        if key == "cell_arrays":  # ParaView lists arrays by name, not in the file's order
            got, wanted = sorted(got or []), sorted(wanted)
        if got != wanted:
            problems.append(f"{key}: ParaView read {read.get(key)}, the files have {want[key]}")
    if abs(read.get("last_time", -1) - want["last_time"]) > 1e-12 * max(1, abs(want["last_time"])):
        problems.append(f"last time: ParaView read {read.get('last_time')}, the files have {want['last_time']}")
    for name, (lo, hi) in want["ranges"].items():
        got = read.get("ranges", {}).get(name)
        tol = 1e-6 * max(abs(lo), abs(hi), 1e-30)
        if not got or abs(got[0] - lo) > tol or abs(got[1] - hi) > tol:
            problems.append(f"range of {name}: ParaView read {got}, the last snapshot has {[lo, hi]}")
    return problems


def check_image(png, min_fraction):
    """Problems with the rendered frame (rendered --bare: everything not background is data)."""
    from PIL import Image

    if not os.path.isfile(png):
        return ["no PNG was written"], {}
    with Image.open(png) as im:
        size = im.size
        pixels = list(im.convert("RGB").getdata())
    background = pixels[0]  # the top left corner
    data = [p for p in pixels if max(abs(a - b) for a, b in zip(p, background)) > 8]
    colours = set(data)
    # ParaView's default map (Cool to Warm) runs from blue (59, 76, 192) to red (180, 4, 38)
    blue = any(b > 150 and r < 90 for r, g, b in colours)
    red = any(r > 150 and b < 70 for r, g, b in colours)
    stats = {"size": size, "data_fraction": round(len(data) / len(pixels), 4), "colours": len(colours),
             "low_end": blue, "high_end": red}
    problems = []
    if size != SIZE:
        problems.append(f"image is {size[0]}x{size[1]}, asked for {SIZE[0]}x{SIZE[1]}")
    if len(data) < min_fraction * len(pixels):
        problems.append(f"blank frame: data covers {len(data) / len(pixels):.2%} of it, expected >= {min_fraction:.1%}")
    if len(colours) < 8:
        problems.append(f"only {len(colours)} distinct data colours")
    if not (blue and red):
        problems.append("the colours do not reach both ends of the colour map (blue: %s, red: %s)" % (blue, red))
    return problems, stats


def main():
    """Runs the check; returns 0, 1 or SKIP."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--simulate", default=os.environ.get("SIMKIT_SIMULATE") or os.path.join(ROOT, "build/apps/simulate"))
    p.add_argument("--keep", metavar="DIR", help="write the runs and the PNGs here (default: a temporary directory)")
    args = p.parse_args()
    pvpython = shutil.which("pvpython")
    if not pvpython:
        print("SKIPPED: pvpython is not on PATH, so ParaView cannot be tested here; install ParaView "
              "(apt-get install paraview python3-paraview xvfb) to run this test.")
        return SKIP
    if not os.environ.get("DISPLAY") and not shutil.which("Xvfb"):
        print("SKIPPED: no X display and no Xvfb, and Debian's ParaView renders through GLX even offscreen; "
              "install xvfb (apt-get install xvfb) or set DISPLAY to run this test.")
        return SKIP
    try:
        for module in ("h5py", "PIL.Image"):
            importlib.import_module(module)
    except ImportError as e:
        print(f"FAILED: {e}: the checks need h5py and PIL (apt-get install python3-h5py python3-pil)")
        return 1
    if not os.access(args.simulate, os.X_OK):
        print(f"FAILED: no simulate binary at {args.simulate} (build it: ninja -C build simulate)")
        return 1
    print(subprocess.run([pvpython, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1])

    failures = 0
    with tempfile.TemporaryDirectory(prefix="simkit_paraview_") as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        env = dict(os.environ)
        xvfb = None
        if not env.get("DISPLAY"):
            log = open(os.path.join(work, "xvfb.log"), "w")
            try:
                xvfb, env["DISPLAY"] = start_xvfb(log)
            except RuntimeError as e:
                log.close()
                print(f"FAILED: {e}:\n{open(log.name).read()}")
                return 1
            print(f"Xvfb on display {env['DISPLAY']}")
        try:
            for name, config, overrides, field, min_fraction in RUNS:
                out = os.path.join(work, name)
                shutil.rmtree(out, ignore_errors=True)
                subprocess.run([args.simulate, os.path.join(ROOT, "configs", config), "--backend", "cpu", "--output",
                                out, "--quiet", *overrides], check=True)
                for bare in (True, False):
                    png = os.path.join(work, name + ("_bare" if bare else "") + ".png")
                    cmd = [pvpython, "--force-offscreen-rendering", os.path.join(HERE, "paraview_render.py"),
                           os.path.join(out, "snapshot.xdmf"), png, "--field", field, "--size", "%dx%d" % SIZE]
                    r = subprocess.run(cmd + (["--bare"] if bare else []), capture_output=True, text=True,
                                       timeout=300, env=env)
                    print(r.stdout.strip())
                    problems = [] if r.returncode == 0 else [f"pvpython exit {r.returncode}:\n{r.stderr.strip()}"]
                    if bare:  # check what was read once, and the pixels where they are data alone
                        line = next((x for x in r.stdout.splitlines() if x.startswith("paraview_render: read ")), None)
                        if line is None:
                            problems.append("paraview_render printed no 'read' line")
                        else:
                            problems += check_read(json.loads(line[len("paraview_render: read "):]), expected(out))
                        image_problems, stats = check_image(png, min_fraction)
                        problems += image_problems
                        print(f"  image: {stats}")
                    elif os.path.getsize(png) < 5000 if os.path.isfile(png) else True:
                        problems.append("the PNG with colour bar is missing or tiny")
                    what = f"{name} ({'bare' if bare else 'with colour bar'}, {field})"
                    print(f"{'FAILED' if problems else 'ok'}: {what}" + "".join(f"\n  - {x}" for x in problems))
                    failures += bool(problems)
        finally:
            if xvfb:
                xvfb.terminate()
                xvfb.wait(timeout=30)
    print("tools.paraview: " + (f"{failures} check(s) FAILED" if failures else "all passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
