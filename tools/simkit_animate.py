#!/usr/bin/python3
"""Animates one field over a simkit run's snapshots: a GIF, or an MP4 when ffmpeg is installed.

The colour limits (1-D: the y range) are fixed over the whole series, so the frames compare:
the range over all frames, or --vmin/--vmax, or with --symmetric -m..m about zero.
3-D fields are shown as a slice, as in simkit_plot.py.

examples:
  simkit_animate.py output/heat2d -o heat2d.gif
  simkit_animate.py output/heat2d/snapshot.xdmf --fps 20 -o heat2d.mp4
  simkit_animate.py output/heat3d --slice z=48 --every 2 -o heat3d.gif
  simkit_animate.py output/cylinder --field vorticity --cmap RdBu_r --symmetric --vmax 20 --start 8 -o street.gif
"""
import argparse
import os
import shutil
import sys

_here = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [_here, os.path.join(_here, "..", "share", "simkit", "python")]  # source tree, installed tree

try:
    import numpy as np
    from matplotlib.animation import FFMpegWriter, PillowWriter

    import simkit_reader as sk
    from simkit_plot import FieldPlot, add_figure_options, colour_limits, default_field, plane, resolve_slice
except ImportError as e:
    sys.exit(f"{os.path.basename(sys.argv[0])}: error: {e}; on Debian: apt-get install python3-matplotlib python3-h5py")


def writer_for(path, fps):
    """PillowWriter for .gif, FFMpegWriter for .mp4 (ffmpeg must be on PATH); sk.Error otherwise."""
    ext = os.path.splitext(path)[1].lower()
    if ext == ".gif":
        return PillowWriter(fps=fps)
    if ext == ".mp4":
        if not shutil.which("ffmpeg"):
            raise sk.Error(f"{path}: MP4 needs ffmpeg on PATH (apt-get install ffmpeg), or write a .gif")
        return FFMpegWriter(fps=fps)
    raise sk.Error(f"{path}: unknown animation format {ext or '(none)'!r}; use .gif, or .mp4 with ffmpeg")


def animate(entries, field, out, fps, slice_, size, dpi, cmap, vmin=None, vmax=None, symmetric=False):
    """Writes one frame per (time, step, path) entry to out; returns the number of frames. The
    limits are the range over all frames, unless vmin/vmax are given (see colour_limits)."""
    writer = writer_for(out, fps)
    fields = [field] if field else None
    lo, hi = np.inf, -np.inf
    for _, _, path in entries:  # first pass: the colour limits (one snapshot in memory at a time)
        snap = sk.open(path, fields)
        field = field or default_field(snap)
        fields = [field]
        values = plane(snap, field, resolve_slice(snap, slice_))
        lo, hi = min(lo, np.nanmin(values)), max(hi, np.nanmax(values))
    if snap.rank == 1:
        pad = 0.05 * (hi - lo) if hi > lo else 0.5
        lo, hi = lo - pad, hi + pad
    lo, hi = colour_limits(float(lo), float(hi), vmin, vmax, symmetric)
    plot = FieldPlot(sk.open(entries[0][2], fields), field, slice_, size, dpi, cmap, limits=(lo, hi))
    with writer.saving(plot.fig, out, dpi):
        for _, _, path in entries:
            plot.update(sk.open(path, fields))
            writer.grab_frame()
    return len(entries)


def main(argv=None):
    """Command line entry point; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", help="a run's output directory or its .xdmf file")
    add_figure_options(p)
    p.add_argument("--fps", type=int, default=10, help="frames per second (default 10)")
    p.add_argument("--every", type=int, default=1, metavar="N", help="use every Nth snapshot (default 1: all)")
    p.add_argument("--start", type=float, metavar="TIME",
                   help="begin at the first snapshot at or after this simulated time [s] (default: the first)")
    p.add_argument("-o", "--output", default="animation.gif",
                   help="output .gif, or .mp4 when ffmpeg is on PATH (default animation.gif)")
    args = p.parse_args(argv)
    if args.fps < 1 or args.every < 1:
        p.error("--fps and --every must be >= 1")
    try:
        entries = sk.series(args.run)
        if args.start is not None:
            entries = [e for e in entries if e[0] >= args.start]
            if not entries:
                raise sk.Error(f"{args.run}: no snapshot at or after --start {args.start:g} s")
        entries = entries[:: args.every]
        frames = animate(entries, args.field, args.output, args.fps, args.slice, args.size, args.dpi, args.cmap,
                         args.vmin, args.vmax, args.symmetric)
    except (sk.Error, OSError, ValueError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    print(f"{args.output}: {frames} frames")
    return 0


if __name__ == "__main__":
    sys.exit(main())
