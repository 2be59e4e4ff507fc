#!/usr/bin/python3
"""Compares a run of configs/cavity3d.toml (the lid-driven cube) with published centreline
velocities: u along the vertical centreline x = z = 1/2 and v along the horizontal centreline
y = z = 1/2, both in the symmetry plane z = 1/2, in lid units. Prints one line per run and profile (the
largest and the RMS difference over the reference's interior points, and the extremum beside the
reference points' own extremum, from a parabola through the three nearest), draws the profiles
of every run against the reference, and exits with 1 when a difference is above --tol (a
regression check), 2 on bad input.

How the profiles are taken from the snapshot: a snapshot holds the velocity at cell centres
(each component the mean of its cell's two staggered faces); a checkpoint holds the staggered
faces themselves (u_face on the low x-faces, v_face on the low y-faces), and those are used when
the file has them. Across the line (two axes) the field is interpolated bilinearly to 1/2 (on an
even grid of centres, the mean of the 2 x 2 middle columns; a face field's own axis has a face at
1/2, which is taken as it is); along the line its samples are extended by the wall
values (the lid's speed for u at y = 1, zero elsewhere) and interpolated linearly to the
reference's positions. The reference (tools/data/cavity3d_re1000_albensoeder_kuhlmann.dat) is
Albensoeder & Kuhlmann (2005), Re 1000; its header gives the source and the axes.

examples:
  cavity3d.py output/cavity3d_re1000 -o cavity3d.png
  cavity3d.py 64=output/re1000_64 96=output/re1000_96 -o cavity3d.png --json cavity3d.json
  cavity3d.py output/cavity3d_re1000/snapshot_000012345.h5 --tol 0.05
  cavity3d.py output/cavity3d --reference none      # Re 100: the profiles' extrema only
"""
import argparse
import os
import sys

_here = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [_here, os.path.join(_here, "..", "share", "simkit", "python")]  # source tree, installed tree

try:
    import numpy as np
    import simkit_reader as sk
except ImportError as e:
    sys.exit(f"{os.path.basename(sys.argv[0])}: error: {e}; on Debian: apt-get install python3-matplotlib python3-h5py")

try:
    import tomllib
except ImportError:  # Python < 3.11: the run's Reynolds number is not checked
    tomllib = None

REFERENCE = os.path.join(_here, "data", "cavity3d_re1000_albensoeder_kuhlmann.dat")
PROFILES = {  # line -> (component, axis along the line, axis label)
    "u": (0, 1, "y"),
    "v": (1, 0, "x"),
}


def reference(path=REFERENCE):
    """{line: (s, velocity)} of a reference file (columns: line s velocity ...) and its Reynolds number (or None)."""
    lines, reynolds = {}, None
    try:
        with open(path) as f:
            for number, text in enumerate(f, 1):
                words = text.split()
                if text.startswith("#"):
                    if "Re =" in text and reynolds is None:
                        try:
                            reynolds = float(text.split("Re =", 1)[1].split(":")[0].split()[0])
                        except (ValueError, IndexError):
                            pass
                    continue
                if not words:
                    continue
                if words[0] not in PROFILES or len(words) < 3:
                    raise sk.Error(f"{path}:{number}: expected 'u' or 'v', then s and the velocity; got {text.strip()!r}")
                lines.setdefault(words[0], []).append((float(words[1]), float(words[2])))
    except ValueError as e:
        raise sk.Error(f"{path}: not a number ({e})") from None
    missing = [k for k in PROFILES if len(lines.get(k, ())) < 3]
    if missing:
        raise sk.Error(f"{path}: no profile {', '.join(missing)} (at least 3 rows of each of u and v)")
    return {k: tuple(np.array(c) for c in zip(*sorted(v))) for k, v in lines.items()}, reynolds


def last_snapshot(path):
    """The newest snapshot of a run directory (or path itself when it is a file)."""
    if os.path.isfile(path):
        return path
    series = sk.series(path)
    if not series:
        raise sk.Error(f"{path}: no snapshots")
    return series[-1][2]


def run_parameters(snap):
    """(Reynolds number or None, lid speed) from the config stored in the snapshot."""
    lid, nu = 1.0, None
    if tomllib is not None and isinstance(snap.attrs.get("config"), str):
        try:
            cfg = tomllib.loads(snap.attrs["config"])
            lid = float(cfg.get("boundary", {}).get("y_hi_value", 1.0))
            nu = cfg.get("model", {}).get("viscosity")
        except (tomllib.TOMLDecodeError, TypeError, ValueError):
            pass
    length = snap.edges(0)[1] - snap.edges(0)[0]
    return (abs(lid) * length / nu if nu and lid else None), lid


def positions(snap, axis, on_faces):
    """The sample positions of a field along axis: the low faces or the cell centres."""
    lo = snap.edges(axis)[0]
    h = snap.attrs["spacing"][axis]
    n = snap.attrs["cells"][axis]
    return lo + (np.arange(n) + (0.0 if on_faces else 0.5)) * h


def weights(coords, at):
    """Linear interpolation weights of the samples coords at the position at: [(index, weight)]."""
    j = int(np.clip(np.searchsorted(coords, at) - 1, 0, len(coords) - 2))
    t = (at - coords[j]) / (coords[j + 1] - coords[j])
    return [(j, 1.0 - t), (j + 1, t)]


def centreline(snap, component, along, lid):
    """(s, velocity) of a velocity component along the centreline parallel to axis along, walls included."""
    name = "uvw"[component]
    face_name = name + "_face"
    on_faces = face_name in snap.fields
    field = snap.fields[face_name] if on_faces else snap.fields[name]
    across = [d for d in range(3) if d != along]
    column = 0.0
    middle = [0.5 * sum(snap.edges(d)) for d in range(3)]
    for i, wi in weights(positions(snap, across[0], on_faces and component == across[0]), middle[across[0]]):
        for k, wk in weights(positions(snap, across[1], on_faces and component == across[1]), middle[across[1]]):
            index = [slice(None)] * 3
            index[across[0]], index[across[1]] = i, k
            column = column + wi * wk * field[tuple(index)]
    s = positions(snap, along, on_faces and component == along)
    lo, hi = snap.edges(along)
    high_wall = lid if (component == 0 and along == 1) else 0.0  # the lid: u at y = 1
    if s[0] > lo:  # centres (or the faces of another component): the low wall is not a sample
        s, column = np.concatenate(([lo], s)), np.concatenate(([0.0], column))
    return np.concatenate((s, [hi])), np.concatenate((column, [high_wall]))


def compare(s, velocity, ref_s, ref_velocity):
    """(largest, RMS) difference at the reference's interior points (the walls are exact on both sides)."""
    inner = (ref_s > s[0] + 1e-12) & (ref_s < s[-1] - 1e-12)
    diff = np.interp(ref_s[inner], s, velocity) - ref_velocity[inner]
    return float(np.max(np.abs(diff))), float(np.sqrt(np.mean(diff ** 2)))


def extremum(s, velocity, lowest):
    """(value, position) of the profile's minimum (or maximum), refined by a parabola through the
    extreme sample and its neighbours."""
    i = int(np.argmin(velocity) if lowest else np.argmax(velocity))
    if 0 < i < len(s) - 1:
        a, b, c = velocity[i - 1], velocity[i], velocity[i + 1]
        xa, xb, xc = s[i - 1], s[i], s[i + 1]
        denom = (xa - xb) * (xa - xc) * (xb - xc)
        A = (xc * (b - a) + xb * (a - c) + xa * (c - b)) / denom
        B = (xc * xc * (a - b) + xb * xb * (c - a) + xa * xa * (b - c)) / denom
        if A != 0:
            x0 = -B / (2 * A)
            if xa <= x0 <= xc:
                C = b - A * xb * xb - B * xb
                return float(A * x0 * x0 + B * x0 + C), float(x0)
    return float(velocity[i]), float(s[i])


def load_run(path, ref_re, reference_path):
    """(snapshot, Reynolds number or None, lid speed) of a run directory or file, checked against the reference's Re."""
    path = last_snapshot(path)
    snap = sk.open(path)
    if snap.rank != 3 or not all(n in snap.fields or n + "_face" in snap.fields for n in ("u", "v")):
        raise sk.Error(f"{path}: not a 3D fluid snapshot (it needs 3 dimensions and the fields u and v, or u_face and v_face)")
    if min(snap.attrs["cells"]) < 2:
        raise sk.Error(f"{path}: at least 2 cells along each axis are needed to find the centrelines")
    run_re, lid = run_parameters(snap)
    if run_re is not None and ref_re is not None and abs(run_re / ref_re - 1) > 1e-6:
        raise sk.Error(f"{path}: the run is at Re {run_re:g} but the reference {reference_path} is at Re {ref_re:g}; "
                       f"run with model.viscosity={1 / ref_re:g} or give the matching --reference")
    if lid == 0:
        raise sk.Error(f"{path}: the lid (boundary.y_hi_value) does not move: not a lid-driven cavity")
    return snap, run_re, lid


def analyse(snap, lid, ref):
    """{line: {s, velocity, extrema, largest, rms}} of one snapshot; no differences without a reference."""
    out = {}
    for line, (component, along, axis) in PROFILES.items():
        s, velocity = centreline(snap, component, along, lid)
        velocity = velocity / lid
        kinds = ("min",) if line == "u" else ("max", "min")  # u's maximum is the lid's speed
        entry = {"s": s, "velocity": velocity, "axis": axis,
                 "extrema": {k: extremum(s, velocity, k == "min") for k in kinds}}
        if ref is not None:
            entry["largest"], entry["rms"] = compare(s, velocity, *ref[line])
            entry["reference_extrema"] = {k: extremum(*ref[line], k == "min") for k in kinds}
        out[line] = entry
    return out


def report(label, snap, result):
    """One line per profile: differences (with a reference) and extrema."""
    cells = "x".join(str(n) for n in snap.attrs["cells"])
    for line, e in result.items():
        text = f"{label}: {line} along {e['axis']} ({cells}, t = {snap.attrs['time']:g}): "
        if "largest" in e:
            text += f"largest difference {e['largest']:.4f}, RMS {e['rms']:.4f}; "
        parts = []
        for k, (v, w) in e["extrema"].items():
            part = f"{k} {v:.4f} at {e['axis']} = {w:.3f}"
            if "reference_extrema" in e:
                rv, rw = e["reference_extrema"][k]
                part += f" (reference points {rv:.4f} at {rw:.3f})"
            parts.append(part)
        print(text + "; ".join(parts))


def main(argv=None):
    """Command line entry point; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", metavar="[LABEL=]RUN",
                   help="a run's output directory (its newest snapshot is read) or a snapshot/checkpoint file")
    p.add_argument("-o", "--output", help="PNG to write (the profiles of every run against the reference); none by default")
    p.add_argument("--reference", default=REFERENCE,
                   help="the reference profiles (default: Albensoeder & Kuhlmann, Re 1000); 'none': the runs' profiles and extrema only")
    p.add_argument("--tol", type=float, help="exit with 1 when a profile's largest difference is above TOL (lid units)")
    p.add_argument("--json", help="write the numbers of every run (differences, extrema, step, time) to this JSON file")
    p.add_argument("--dpi", type=int, default=80, help="dots per inch: sets the text size (default 80)")
    args = p.parse_args(argv)
    if args.tol is not None and args.reference == "none":
        p.error("--tol needs a reference to compare with: leave out --reference none")
    if args.tol is not None and not args.tol > 0:
        p.error(f"--tol {args.tol}: expected a positive number (a velocity difference in lid units, e.g. 0.05)")
    try:
        ref, ref_re = (None, None) if args.reference == "none" else reference(args.reference)
        runs = []
        for spec in args.runs:
            label, _, path = spec.rpartition("=")
            snap, run_re, lid = load_run(path, ref_re, args.reference)
            label = label or os.path.basename(os.path.normpath(path))
            result = analyse(snap, lid, ref)
            report(label, snap, result)
            runs.append((label, snap, run_re, result))
        if args.json:
            import json
            doc = {label: {"snapshot": os.path.basename(snap.path), "cells": [int(n) for n in snap.attrs["cells"]],
                           "step": int(snap.attrs["step"]), "time": float(snap.attrs["time"]), "reynolds": run_re,
                           **{line: {k: (round(v, 6) if k in ("largest", "rms") else
                                         {n: [round(x, 6) for x in vw] for n, vw in v.items()})
                                     for k, v in e.items() if k in ("largest", "rms", "extrema", "reference_extrema")}
                              for line, e in result.items()}}
                   for label, snap, run_re, result in runs}
            with open(args.json, "w") as f:
                json.dump(doc, f, indent=1)
        if args.output:
            from simkit_plot import new_figure
            fig = new_figure((900, 450), args.dpi)
            au, av = fig.subplots(1, 2)
            for label, snap, run_re, result in runs:
                au.plot(result["u"]["velocity"], result["u"]["s"], "-", label=label)
                av.plot(result["v"]["s"], result["v"]["velocity"], "-", label=label)
            if ref is not None:
                name = ("Albensoeder & Kuhlmann (2005)" if os.path.realpath(args.reference) == os.path.realpath(REFERENCE)
                        else os.path.basename(args.reference))
                au.plot(ref["u"][1], ref["u"][0], "ko", mfc="none", label=name)
                av.plot(ref["v"][0], ref["v"][1], "ko", mfc="none", label=name)
            au.set_xlabel("u / U on x = z = 1/2")
            au.set_ylabel("y")
            av.set_xlabel("x")
            av.set_ylabel("v / U on y = z = 1/2")
            for ax in (au, av):
                ax.grid(True, alpha=0.3)
                ax.legend(fontsize="small")
            res = {r for _, _, r, _ in runs if r}
            fig.suptitle("lid-driven cube" + (f", Re {res.pop():g}" if len(res) == 1 else ""))
            fig.tight_layout()
            fig.savefig(args.output, dpi=args.dpi)
            print(args.output)
    except (sk.Error, OSError, ValueError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    worst = max((e.get("largest", 0.0) for *_, result in runs for e in result.values()), default=0.0)
    if args.tol is not None and worst > args.tol:
        print(f"{p.prog}: largest difference {worst:.4f} is above --tol {args.tol:g}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
