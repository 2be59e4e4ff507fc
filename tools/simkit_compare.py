#!/usr/bin/python3
"""Compares the fields of two simkit outputs: the regression check to run after changing code.

A and B are each a snapshot, a checkpoint, a run's output directory or its .xdmf file. For
runs, the last snapshot of each is compared, or with --all every step (the two runs must
have written the same steps). Per field it prints the largest absolute difference
max|A-B|, the largest relative difference max(|A-B| / max(|A|,|B|)) and the L2 norm of the
difference sqrt(sum((A-B)^2)). A value passes when |A-B| <= atol + rtol * max(|A|,|B|).

exit status: 0 all fields within tolerance, 1 some value is not, 2 bad input (a missing or
unreadable file, different field names or grid shapes, different steps with --all).

examples:
  simkit_compare.py output/heat2d reference/heat2d
  simkit_compare.py old/checkpoint_000000500.h5 new/checkpoint_000000500.h5 --rtol 0
  simkit_compare.py run_a run_b --all --rtol 1e-6 --atol 1e-12
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
    sys.exit(f"{os.path.basename(sys.argv[0])}: error: {e}; on Debian: apt-get install python3-numpy python3-h5py")


def outputs(path):
    """{step: file} of a snapshot/checkpoint file, or of every snapshot of a run (directory or .xdmf)."""
    if os.path.isfile(path) and not path.endswith(".xdmf"):
        return {sk.open(path, fields=[]).attrs["step"]: path}
    return {step: file for _, step, file in sk.series(path)}


def field_stats(a, b, rtol, atol):
    """(max abs diff, max rel diff, L2 diff, within tolerance) of two arrays of one shape."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.size == 0:
        return 0.0, 0.0, 0.0, True
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = np.abs(a - b)
        diff[(a == b) | (np.isnan(a) & np.isnan(b))] = 0.0  # equal infinities and NaN pairs match
        scale = np.maximum(np.abs(a), np.abs(b))
        rel = np.where(diff == 0, 0.0, diff / scale)
        within = bool(np.all((diff == 0) | (diff <= atol + rtol * scale)))  # a NaN against a number fails
        top = np.max(diff)
        l2 = top * np.sqrt(np.sum((diff / top) ** 2)) if 0 < top < np.inf else top  # scaled: no underflow
    return float(top), float(np.max(rel)), float(l2), within


def compare_files(fa, fb, rtol, atol):
    """Prints the comparison of two files; returns True when every field is within tolerance."""
    a, b = sk.open(fa), sk.open(fb)
    if sorted(a.fields) != sorted(b.fields):
        raise sk.Error(f"different fields: {fa} has {', '.join(a.fields)}; {fb} has {', '.join(b.fields)}")
    for name in a.fields:
        if a.fields[name].shape != b.fields[name].shape:
            raise sk.Error(f"field {name!r}: shape {a.fields[name].shape} in {fa} but {b.fields[name].shape} in {fb}")
    for key in ("model", "step", "time", "cells", "origin", "spacing", "precision"):
        va, vb = a.attrs.get(key), b.attrs.get(key)
        if not np.array_equal(va, vb):
            print(f"note: {key} differs: {va} (A) vs {vb} (B)")
    print(f"A: {fa}\nB: {fb}")
    print(f"  {'field':<12} {'max abs diff':>13} {'max rel diff':>13} {'L2 diff':>13}  result")
    ok = True
    for name in a.fields:
        max_abs, max_rel, l2, passed = field_stats(a.fields[name], b.fields[name], rtol, atol)
        ok &= passed
        print(f"  {name:<12} {max_abs:13.6g} {max_rel:13.6g} {l2:13.6g}  {'ok' if passed else 'DIFFERS'}")
    return ok


def main(argv=None):
    """Command line entry point; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="snapshot, checkpoint, run directory or .xdmf")
    p.add_argument("b", metavar="B", help="the same for the other side")
    p.add_argument("--rtol", type=float, default=1e-12, help="relative tolerance (default 1e-12)")
    p.add_argument("--atol", type=float, default=0.0, help="absolute tolerance (default 0)")
    p.add_argument("--all", action="store_true", help="runs: compare every step, not only the last snapshot")
    args = p.parse_args(argv)
    if args.rtol < 0 or args.atol < 0:
        p.error("--rtol and --atol must be >= 0")
    try:
        sa, sb = outputs(args.a), outputs(args.b)
        if args.all:
            if sorted(sa) != sorted(sb):
                raise sk.Error(f"the runs wrote different steps: {sorted(sa)} (A) vs {sorted(sb)} (B)")
            pairs = [(sa[s], sb[s]) for s in sorted(sa)]
        else:
            pairs = [(sa[max(sa)], sb[max(sb)])]
        ok = True
        for fa, fb in pairs:
            ok &= compare_files(fa, fb, args.rtol, args.atol)
    except (sk.Error, OSError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    print(f"{'same' if ok else 'DIFFERENT'}: {len(pairs)} file pair(s), rtol={args.rtol:g}, atol={args.atol:g}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
