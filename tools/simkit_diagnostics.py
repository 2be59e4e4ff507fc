#!/usr/bin/python3
"""Plots every column of a run's diagnostics.csv against time, one panel per diagnostic.

examples:
  simkit_diagnostics.py output/heat2d -o heat2d_diagnostics.png
  simkit_diagnostics.py output/heat2d/diagnostics.csv --logy max
"""
import argparse
import os
import sys

_here = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [_here, os.path.join(_here, "..", "share", "simkit", "python")]  # source tree, installed tree

try:
    import simkit_reader as sk
    from simkit_plot import new_figure, parse_size, with_unit
except ImportError as e:
    sys.exit(f"{os.path.basename(sys.argv[0])}: error: {e}; on Debian: apt-get install python3-matplotlib python3-h5py")


ESTIMATE = ("estimate", "ci95_low", "ci95_high", "exact", "samples")


def plot_estimate(diag, title, size, dpi):
    """A Monte Carlo run: the estimate and its 95% band converging on the exact value, against samples."""
    keep = diag["samples"] > 0
    n = diag["samples"][keep]
    fig = new_figure(size, dpi)
    ax = fig.subplots()
    ax.fill_between(n, diag["ci95_low"][keep], diag["ci95_high"][keep], alpha=0.3, label="95% confidence interval")
    ax.plot(n, diag["estimate"][keep], marker=".", label="estimate")
    ax.axhline(diag["exact"][-1], color="k", lw=1, ls="--", label=f"exact {diag['exact'][-1]:.10g}")
    ax.set_xscale("log")
    ax.set_xlabel("samples")
    ax.set_ylabel("estimate")
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(title)
    fig.tight_layout()
    return fig


def plot_diagnostics(diag, title, size, dpi, logy=()):
    """A figure with one panel per diagnostic (every column but step and time) against time."""
    if all(c in diag for c in ESTIMATE) and len(diag["samples"]) > 1:
        return plot_estimate(diag, title, size or (600, 450), dpi)
    names = [n for n in diag if n not in ("step", "time")]
    if not names:
        raise sk.Error(f"{title}: diagnostics.csv has no columns besides step and time")
    unknown = set(logy) - set(names)
    if unknown:
        raise sk.Error(f"--logy {', '.join(sorted(unknown))}: no such column; the columns are {', '.join(names)}")
    fig = new_figure(size, dpi)
    axes = fig.subplots(len(names), 1, sharex=True, squeeze=False)[:, 0]
    for ax, name in zip(axes, names):
        ax.plot(diag["time"], diag[name], marker="." if len(diag["time"]) < 50 else None)
        ax.set_ylabel(with_unit(name, diag.units[name]))
        ax.grid(True, alpha=0.3)
        if name in logy:
            ax.set_yscale("log")
    axes[-1].set_xlabel(with_unit("time", diag.units["time"]))
    axes[0].set_title(title)
    fig.align_ylabels(axes)
    fig.tight_layout()
    return fig


def main(argv=None):
    """Command line entry point; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", help="a run's output directory, or its diagnostics.csv")
    p.add_argument("-o", "--output", default="diagnostics.png", help="PNG to write (default diagnostics.png)")
    p.add_argument("--size", type=parse_size, metavar="WxH",
                   help="image size in pixels (default: 600 wide, 150 high per panel + 100)")
    p.add_argument("--dpi", type=int, default=80, help="dots per inch: sets the text size (default 80)")
    p.add_argument("--logy", action="append", default=[], metavar="COLUMN", help="log scale for this column (repeatable)")
    args = p.parse_args(argv)
    try:
        diag = sk.diagnostics(args.run)
        panels = len(diag) - 2
        size = args.size or (None if all(c in diag for c in ESTIMATE) else (600, 150 * max(panels, 1) + 100))
        run = os.path.dirname(os.path.abspath(args.run)) if args.run.endswith(".csv") else os.path.abspath(args.run)
        fig = plot_diagnostics(diag, f"diagnostics of {os.path.basename(run)}", size, args.dpi, args.logy)
        fig.savefig(args.output, dpi=args.dpi)
    except (sk.Error, OSError, ValueError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
