#!/usr/bin/python3
"""Compares two simkit outputs value by value: the regression check to run after changing code.

A and B are each a snapshot, a checkpoint, a run's output directory or its .xdmf file. For
runs, the last snapshot of each is compared, or with --all every step (the two runs must
have written the same steps); runs of a model without fields (no snapshots) are compared
by their diagnostics.csv. Of two checkpoints, /reals are compared too and /counters must be
equal. Per field it prints the largest absolute difference max|A-B|, the largest relative
difference max(|A-B| / max(|A|,|B|)) and the L2 norm of the difference sqrt(sum((A-B)^2)).
A value passes when |A-B| <= atol + rtol * max(|A|,|B|).

exit status: 0 all values within tolerance, 1 some value is not, 2 bad input (a missing or
unreadable file, different field names or grid shapes, different steps with --all).

examples:
  simkit_compare.py output/heat2d reference/heat2d
  simkit_compare.py old/checkpoint_000000500.h5 new/checkpoint_000000500.h5 --rtol 0
  simkit_compare.py run_a run_b --all --rtol 1e-6 --atol 1e-12
"""
import argparse
import glob
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
    """{step: file} of a snapshot/checkpoint, or of every snapshot of a run (directory or .xdmf).

    A run directory without snapshots and without an .xdmf (a model with no fields) gives {}
    when it has a diagnostics.csv: such runs are compared by their diagnostics.
    """
    if os.path.isfile(path) and not path.endswith(".xdmf"):
        return {sk.open(path, fields=[]).attrs["step"]: path}
    try:
        return {step: file for _, step, file in sk.series(path)}
    except sk.Error:
        if os.path.isdir(path) and not glob.glob(os.path.join(path, "*.xdmf")) and \
                os.path.isfile(os.path.join(path, "diagnostics.csv")):
            return {}
        raise


def field_stats(a, b, rtol, atol):
    """(max abs diff, max rel diff, L2 diff, within tolerance) of two arrays of one shape."""
    a, b = np.array(a, np.float64, ndmin=1), np.array(b, np.float64, ndmin=1)
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


def report(name, a, b, rtol, atol, exact=False):
    """Prints one table row for arrays a and b; returns True when they are within tolerance (exact: equal)."""
    max_abs, max_rel, l2, passed = field_stats(a, b, rtol, atol)
    if exact:
        passed = bool(np.array_equal(a, b))
    print(f"  {name:<24} {max_abs:13.6g} {max_rel:13.6g} {l2:13.6g}  {'ok' if passed else 'DIFFERS'}")
    return passed


def print_header(fa, fb):
    """Prints the two inputs and the column titles of the table."""
    print(f"A: {fa}\nB: {fb}")
    print(f"  {'name':<24} {'max abs diff':>13} {'max rel diff':>13} {'L2 diff':>13}  result")


def same_names(what, a, b, fa, fb):
    """Raises sk.Error when the two name lists differ."""
    if sorted(a) != sorted(b):
        raise sk.Error(f"different {what}: {fa} has {', '.join(a) or 'none'}; {fb} has {', '.join(b) or 'none'}")


def compare_files(fa, fb, rtol, atol):
    """Prints the comparison of two snapshots/checkpoints; returns True when all is within tolerance.

    Fields are compared with rtol/atol; of two checkpoints also /reals (rtol/atol) and
    /counters (exactly).
    """
    a, b = sk.open(fa), sk.open(fb)
    same_names("fields", a.fields, b.fields, fa, fb)
    for name in a.fields:
        if a.fields[name].shape != b.fields[name].shape:
            raise sk.Error(f"field {name!r}: shape {a.fields[name].shape} in {fa} but {b.fields[name].shape} in {fb}")
    checkpoints = a.attrs["kind"] == b.attrs["kind"] == "checkpoint"
    if checkpoints:
        same_names("counters", a.counters, b.counters, fa, fb)
        same_names("reals", a.reals, b.reals, fa, fb)
    elif not a.fields:
        raise sk.Error(f"nothing to compare: {fa} and {fb} have no fields")
    for key in ("model", "step", "time", "cells", "origin", "spacing", "precision"):
        va, vb = a.attrs.get(key), b.attrs.get(key)
        if not np.array_equal(va, vb):
            print(f"note: {key} differs: {va} (A) vs {vb} (B)")
    print_header(fa, fb)
    ok = all([report(n, a.fields[n], b.fields[n], rtol, atol) for n in a.fields])
    if checkpoints:
        ok &= all([report("reals/" + n, a.reals[n], b.reals[n], rtol, atol) for n in a.reals])
        ok &= all([report("counters/" + n, a.counters[n], b.counters[n], 0, 0, exact=True) for n in a.counters])
    return ok


def compare_diagnostics(ra, rb, rtol, atol):
    """Prints the comparison of two runs' diagnostics.csv (same steps needed); returns True when within tolerance."""
    a, b = sk.diagnostics(ra), sk.diagnostics(rb)
    same_names("diagnostics columns", list(a), list(b), ra, rb)
    if not np.array_equal(a["step"], b["step"]):
        raise sk.Error(f"the runs' diagnostics have different steps: {list(a['step'])} (A) vs {list(b['step'])} (B)")
    print_header(os.path.join(ra, "diagnostics.csv"), os.path.join(rb, "diagnostics.csv"))
    return all([report(n, a[n], b[n], rtol, atol) for n in a if n != "step"])


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
        if not sa and not sb:  # runs of a model without fields
            ok, pairs = compare_diagnostics(args.a, args.b, args.rtol, args.atol), [(args.a, args.b)]
        else:
            if not sa or not sb:
                raise sk.Error(f"{args.a if not sa else args.b} has no snapshots, the other side has")
            if args.all:
                if sorted(sa) != sorted(sb):
                    raise sk.Error(f"the runs wrote different steps: {sorted(sa)} (A) vs {sorted(sb)} (B)")
                pairs = [(sa[s], sb[s]) for s in sorted(sa)]
            else:
                pairs = [(sa[max(sa)], sb[max(sb)])]
            ok = all([compare_files(fa, fb, args.rtol, args.atol) for fa, fb in pairs])
    except (sk.Error, OSError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    print(f"{'same' if ok else 'DIFFERENT'}: {len(pairs)} file pair(s), rtol={args.rtol:g}, atol={args.atol:g}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
