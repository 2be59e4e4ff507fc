#!/usr/bin/python3
"""Compares 3D Taylor-Green runs (Re 1600) with the 512^3 spectral reference of the High-Order
CFD Workshop (case C3.5): the mean kinetic energy and the dissipation rate against time, the
dissipation both as -dK/dt (from the energy history) and as 2 nu <|omega|^2 / 2> (the
enstrophy, where the run wrote it). Prints each run's largest energy deviation up to t = 10
and its dissipation peak beside the reference's.

examples:
  taylor_green_3d.py output/taylor_green_3d -o taylor_green_3d.png
  taylor_green_3d.py 128=output/tg128 256=output/tg256 512=output/tg512 -o taylor_green_3d.png
"""
import argparse
import os
import sys

_here = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [_here, os.path.join(_here, "..", "share", "simkit", "python")]  # source tree, installed tree

try:
    import numpy as np
    import simkit_reader as sk
    from simkit_plot import new_figure
except ImportError as e:
    sys.exit(f"{os.path.basename(sys.argv[0])}: error: {e}; on Debian: apt-get install python3-matplotlib python3-h5py")

REFERENCE = os.path.join(_here, "data", "spectral_Re1600_512_dt0.1.dat")
NU = 1.0 / 1600.0


def reference(path=REFERENCE):
    """(t, K, -dK/dt) of the spectral reference."""
    d = np.loadtxt(path, comments="#")
    return d[:, 0], d[:, 1], d[:, 2]


def minus_derivative(t, k):
    """-dK/dt at the midpoints of the samples (t_mid, rate)."""
    return 0.5 * (t[1:] + t[:-1]), -(k[1:] - k[:-1]) / (t[1:] - t[:-1])


def summary(label, t, k, rate_t, rate, ref):
    """A line: the largest relative energy deviation for t <= 10 and the dissipation peak against the reference's."""
    rt, rk, reps = ref
    early = t <= 10 + 1e-9
    dev = np.max(np.abs(k[early] - np.interp(t[early], rt, rk)) / np.interp(t[early], rt, rk)) if early.any() else np.nan
    i, j = int(np.argmax(rate)), int(np.argmax(reps))
    return (f"{label}: kinetic energy within {100 * dev:.2f}% of the reference for t <= 10; "
            f"peak dissipation {rate[i]:.5f} at t = {rate_t[i]:.2f} (reference {reps[j]:.5f} at t = {rt[j]:.2f}, "
            f"{100 * (rate[i] / reps[j] - 1):+.1f}%)")


def main(argv=None):
    """Command line entry point; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", metavar="[LABEL=]RUN", help="a run's output directory or its diagnostics.csv")
    p.add_argument("-o", "--output", default="taylor_green_3d.png", help="PNG to write (default taylor_green_3d.png)")
    p.add_argument("--reference", default=REFERENCE, help="the reference history (t, K, -dK/dt columns)")
    p.add_argument("--dpi", type=int, default=80, help="dots per inch: sets the text size (default 80)")
    args = p.parse_args(argv)
    try:
        ref = reference(args.reference)
        fig = new_figure((1100, 450), args.dpi)
        ek, ed = fig.subplots(1, 2)
        ek.plot(ref[0], ref[1], "k-", lw=2, label="spectral 512^3")
        ed.plot(ref[0], ref[2], "k-", lw=2, label="spectral 512^3")
        for spec in args.runs:
            label, _, path = spec.rpartition("=")
            diag = sk.diagnostics(path)
            label = label or os.path.basename(os.path.normpath(os.path.dirname(path) if path.endswith(".csv") else path))
            if "mean_kinetic_energy" not in diag:
                raise sk.Error(f"{path}: no mean_kinetic_energy column: not a 3D fluid run")
            t, k = diag["time"], diag["mean_kinetic_energy"]
            rate_t, rate = minus_derivative(t, k)
            (line,) = ek.plot(t, k, label=label)
            ed.plot(rate_t, rate, color=line.get_color(), label=f"{label} -dK/dt")
            if "dissipation" in diag:
                ed.plot(t, diag["dissipation"], color=line.get_color(), ls="--", label=f"{label} 2 nu enstrophy")
            print(summary(label, t, k, rate_t, rate, ref))
        ek.set_xlabel("t")
        ek.set_ylabel("kinetic energy")
        ed.set_xlabel("t")
        ed.set_ylabel("dissipation rate")
        for ax in (ek, ed):
            ax.set_xlim(0, 20)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize="small")
        fig.suptitle("Taylor-Green vortex, Re 1600")
        fig.tight_layout()
        fig.savefig(args.output, dpi=args.dpi)
    except (sk.Error, OSError, ValueError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
