#!/usr/bin/python3
"""The drag coefficient and the recirculation length of a run of configs/sphere.toml (steady flow
past a sphere), beside the published values (tools/data/sphere_re100_johnson_patel.dat).

  Cd = force_x / (0.5 U^2 pi D^2 / 4)

with force_x the diagnostic column (the force of the fluid on the obstacle per unit density),
averaged over the end of the run (--tail, a fraction of the run's time; the spread of Cd over it
says how steady the run was). The recirculation length L runs from the rear of the sphere
(x_c + D/2) to where the centreline velocity u(x, y_c, z_c) turns positive again; the
centreline value is the bilinear interpolation of the cell-centred u of the last snapshot (or
the one given) to (y_c, z_c), and the crossing is interpolated linearly between cells. U, D, the
centre and nu come from the run's config (stored in every snapshot; Python 3.11's tomllib), or
from --velocity, --diameter, --center where given.

Prints one line each for Cd and L/D, with the reference and the difference; exits with 1 when
Cd differs from the reference by more than --tol (relative; a regression check), 2 on bad input.

examples:
  sphere_wake.py output/sphere
  sphere_wake.py output/sphere --tail 0.2 --tol 0.1
  sphere_wake.py output/sphere --snapshot output/sphere/snapshot_000003000.h5
  sphere_wake.py output/sphere -o sphere.png     # also draw u on the plane z = z_c and Cd over time
"""
import argparse
import math
import os
import sys

_here = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [_here, os.path.join(_here, "..", "share", "simkit", "python")]  # source tree, installed tree

try:
    import numpy as np
    import simkit_reader as sk
except ImportError as e:
    sys.exit(f"{os.path.basename(sys.argv[0])}: error: {e}; on Debian: apt-get install python3-numpy python3-h5py")

try:
    import tomllib
except ImportError:  # Python < 3.11: give --velocity, --diameter and --center
    tomllib = None

REFERENCE = os.path.join(_here, "data", "sphere_re100_johnson_patel.dat")


class Error(Exception):
    """Bad input: a message naming the file or the option."""


def reference(path=REFERENCE):
    """{Re: (Cd, L/D)} of a reference file (columns: Re Cd L/D; # comments)."""
    table = {}
    try:
        with open(path) as f:
            for number, text in enumerate(f, 1):
                words = text.split()
                if not words or text.startswith("#"):
                    continue
                if len(words) != 3:
                    raise Error(f"{path}:{number}: expected 3 columns (Re Cd L/D), got {len(words)}")
                table[float(words[0])] = (float(words[1]), float(words[2]))
    except OSError as e:
        raise Error(f"{path}: {e.strerror}") from None
    except ValueError as e:
        raise Error(f"{path}: {e}") from None
    if not table:
        raise Error(f"{path}: no rows")
    return table


def run_parameters(snapshot, args):
    """(U, D, centre, nu) from the options, else from the run's config in the snapshot."""
    config = {}
    if tomllib is not None and snapshot.attrs.get("config"):
        try:
            config = tomllib.loads(snapshot.attrs["config"])
        except tomllib.TOMLDecodeError as e:
            raise Error(f"{snapshot.path}: its config does not parse ({e})") from None
    model, boundary = config.get("model", {}), config.get("boundary", {})
    velocity = args.velocity if args.velocity is not None else boundary.get("x_lo_value", boundary.get("default_value"))
    radius = model.get("obstacle_radius")
    diameter = args.diameter if args.diameter is not None else (2 * radius if radius is not None else None)
    centre = args.center if args.center is not None else model.get("obstacle_center")
    nu = model.get("viscosity")
    missing = [name for name, value in (("--velocity", velocity), ("--diameter", diameter), ("--center", centre))
               if value is None]
    if missing:
        raise Error(f"{snapshot.path}: the run's config does not give {', '.join(missing)}; pass them")
    if len(centre) != 3:
        raise Error(f"--center: expected 3 coordinates, got {len(centre)}")
    if model and model.get("obstacle", "sphere") != "sphere":
        raise Error(f"{snapshot.path}: the run's obstacle is {model.get('obstacle')!r}, not a sphere")
    return float(velocity), float(diameter), [float(c) for c in centre], (float(nu) if nu is not None else None)


def drag_coefficient(diag, velocity, diameter, tail):
    """(mean Cd, spread of Cd, first and last time) over the last `tail` of the run's time."""
    if "force_x" not in diag:
        raise Error("diagnostics.csv has no force_x column: not a run with an obstacle")
    t, f = diag["time"], diag["force_x"]
    if len(t) < 2:
        raise Error("diagnostics.csv has fewer than 2 rows")
    start = t[-1] - tail * (t[-1] - t[0])
    keep = t >= start
    cd = f[keep] / (0.5 * velocity ** 2 * math.pi * diameter ** 2 / 4)
    return float(np.mean(cd)), float(np.max(cd) - np.min(cd)), float(t[keep][0]), float(t[-1])


def centreline(snapshot, centre):
    """(x, u) along the line y = y_c, z = z_c: u bilinearly interpolated across it."""
    if snapshot.rank != 3 or "u" not in snapshot.fields:
        raise Error(f"{snapshot.path}: expected a 3D snapshot holding the cell-centred u")
    u = snapshot.fields["u"]
    weights = []
    for axis in (1, 2):
        c = snapshot.coords[axis]
        k = int(np.clip(np.searchsorted(c, centre[axis]) - 1, 0, len(c) - 2))
        s = (centre[axis] - c[k]) / (c[k + 1] - c[k])
        weights.append((k, min(max(s, 0.0), 1.0)))
    (j, a), (k, b) = weights
    line = ((1 - a) * (1 - b) * u[:, j, k] + a * (1 - b) * u[:, j + 1, k] + (1 - a) * b * u[:, j, k + 1] +
            a * b * u[:, j + 1, k + 1])
    return snapshot.coords[0], line


def recirculation_length(x, u, rear):
    """Distance from rear to the first crossing of u from negative to non-negative behind it (None: no
    negative u there; inf: still negative at the end of the line)."""
    behind = x > rear
    xs, us = x[behind], u[behind]
    negative = np.nonzero(us < 0)[0]
    if len(negative) == 0:
        return None
    for q in range(negative[0], len(us) - 1):
        if us[q] < 0 <= us[q + 1]:
            crossing = xs[q] + (xs[q + 1] - xs[q]) * (-us[q]) / (us[q + 1] - us[q])
            return float(crossing - rear)
    return math.inf


def draw(path, snapshot, centre, diameter, diag, velocity, cd, length, dpi):
    """u on the plane z = z_c (the sphere's outline, the recirculation region's end) and Cd over time, as a PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x, y, z = snapshot.coords
    k = int(np.argmin(np.abs(z - centre[2])))
    u = snapshot.fields["u"][:, :, k]
    fig, (ap, ac) = plt.subplots(2, 1, figsize=(9, 6.5), gridspec_kw={"height_ratios": [3, 1.4]})
    image = ap.imshow(u.T, origin="lower", extent=(x[0], x[-1], y[0], y[-1]), cmap="RdBu_r", aspect="equal",
                      vmin=-0.4 * velocity, vmax=1.6 * velocity)
    ap.contour(x, y, u.T, levels=[0.0], colors="k", linewidths=0.8)
    ap.add_patch(matplotlib.patches.Circle(centre[:2], diameter / 2, fill=False, color="k", lw=1))
    if length is not None and math.isfinite(length):
        ap.plot([centre[0] + diameter / 2 + length], [centre[1]], "k|", ms=12)
    fig.colorbar(image, ax=ap, label="u / U", shrink=0.8)
    ap.set_xlabel("x / D")
    ap.set_ylabel("y / D")
    ap.set_title(f"u on z = {z[k]:g} at t = {snapshot.attrs['time']:g} (the line: u = 0)")
    area = 0.5 * velocity ** 2 * math.pi * diameter ** 2 / 4
    ac.plot(diag["time"], diag["force_x"] / area, "-", lw=1)
    ac.axhline(cd, color="k", lw=0.6, ls="--")
    ac.set_ylim(0, 2.5 * cd)
    ac.set_xlabel("t U / D")
    ac.set_ylabel("Cd")
    ac.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("examples:")[1])
    p.add_argument("run", help="the run's output directory (diagnostics.csv and the snapshots)")
    p.add_argument("--snapshot", help="the snapshot for the centreline (default: the run's last)")
    p.add_argument("--tail", type=float, default=0.25, help="fraction of the run's time to average Cd over (default 0.25)")
    p.add_argument("--tol", type=float, default=0.10, help="largest relative difference of Cd from the reference (default 0.1)")
    p.add_argument("--velocity", type=float, help="the free stream U (default: the run's x_lo_value)")
    p.add_argument("--diameter", type=float, help="the sphere's D (default: twice the run's obstacle_radius)")
    p.add_argument("--center", type=float, nargs=3, help="the sphere's centre (default: the run's obstacle_center)")
    p.add_argument("--reference", default=REFERENCE, help="the reference file (default: %(default)s)")
    p.add_argument("-o", "--output", help="PNG to write (u on the plane through the centre, Cd over time); none by default")
    p.add_argument("--dpi", type=int, default=110, help="resolution of the PNG (default %(default)s)")
    args = p.parse_args(argv)
    try:
        if not 0 < args.tail <= 1:
            raise Error(f"--tail: expected a fraction in (0, 1], got {args.tail}")
        table = reference(args.reference)
        path = args.snapshot or sk.series(args.run)[-1][2]
        snapshot = sk.open(path, fields=["u"])
        velocity, diameter, centre, nu = run_parameters(snapshot, args)
        diag = sk.diagnostics(args.run)
        cd, spread, t0, t1 = drag_coefficient(diag, velocity, diameter, args.tail)
        x, u = centreline(snapshot, centre)
        length = recirculation_length(x, u, centre[0] + 0.5 * diameter)
        if args.output:
            draw(args.output, snapshot, centre, diameter, diag, velocity, cd, length, args.dpi)
    except (Error, sk.Error, OSError) as e:
        print(f"{os.path.basename(sys.argv[0])}: error: {e}", file=sys.stderr)
        return 2
    reynolds = velocity * diameter / nu if nu else None
    re_ref = min(table, key=lambda r: abs(r - reynolds)) if reynolds else min(table)
    cd_ref, l_ref = table[re_ref]
    re_text = f"Re {reynolds:g}" if reynolds else "Re unknown"
    print(f"sphere: {re_text} (U {velocity:g}, D {diameter:g}); reference: Johnson & Patel (1999) at Re {re_ref:g}")
    if reynolds and abs(reynolds - re_ref) > 0.01 * re_ref:
        print(f"  note: the run's Re {reynolds:g} is not the reference's {re_ref:g}")
    difference = cd / cd_ref - 1
    print(f"  Cd  = {cd:.4f} (mean over t {t0:g}..{t1:g}, spread {spread:.2e})   reference {cd_ref:g}   "
          f"difference {100 * difference:+.1f}%")
    if length is None:
        print(f"  L/D: no negative u on the centreline behind the sphere (snapshot t = {snapshot.attrs['time']:g})")
    elif math.isinf(length):
        print(f"  L/D: u still negative at the end of the domain (snapshot t = {snapshot.attrs['time']:g})")
    else:
        print(f"  L/D = {length / diameter:.3f} (snapshot t = {snapshot.attrs['time']:g})   reference {l_ref:g}   "
              f"difference {100 * (length / diameter / l_ref - 1):+.1f}%")
    if abs(difference) > args.tol:
        print(f"  Cd differs from the reference by more than --tol {args.tol:g}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
