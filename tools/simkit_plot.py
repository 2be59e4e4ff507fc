#!/usr/bin/python3
"""Plots one field of a simkit snapshot or checkpoint to a PNG.

2-D fields are drawn as a colour map (x = dimension 0 across, y = dimension 1 up, as the
config names them), 1-D fields as a line, 3-D fields as a slice (default: the middle of
dimension 0). With --vectors, velocity components (fields named like ux/uy or u_x/u_y,
x = dimension 0) are drawn on top as arrows or streamlines.

examples:
  simkit_plot.py output/heat2d/snapshot_000005826.h5 -o heat.png
  simkit_plot.py output/heat3d/snapshot_000000615.h5 --slice z=48 --cmap inferno
  simkit_plot.py output/cylinder/snapshot_000008270.h5 --field vorticity --cmap RdBu_r --symmetric --vmax 20
"""
import argparse
import os
import re
import sys

_here = os.path.dirname(os.path.realpath(__file__))
sys.path[:0] = [_here, os.path.join(_here, "..", "share", "simkit", "python")]  # source tree, installed tree

try:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    import numpy as np

    import simkit_reader as sk
except ImportError as e:
    sys.exit(f"{os.path.basename(sys.argv[0])}: error: {e}; on Debian: apt-get install python3-matplotlib python3-h5py")


def parse_size(text):
    """'600x500' -> (600, 500) pixels."""
    m = re.fullmatch(r"(\d+)x(\d+)", text)
    if not m or min(int(m.group(1)), int(m.group(2))) < 50:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT in pixels (each >= 50), e.g. 600x500")
    return int(m.group(1)), int(m.group(2))


def parse_slice(text):
    """'axis=index' (axis 0/1/2 or x/y/z) -> (axis, index)."""
    m = re.fullmatch(r"([012xyz])=(-?\d+)", text)
    if not m:
        raise argparse.ArgumentTypeError(f"{text!r} is not AXIS=INDEX, e.g. 0=32 or z=10")
    axis = m.group(1)
    return ("xyz".index(axis) if axis in "xyz" else int(axis)), int(m.group(2))


def add_figure_options(parser):
    """Adds the options shared by the plotting tools: --field, --slice, --size, --dpi, --cmap."""
    parser.add_argument("--field", help="field to show (default: the first one in the file)")
    parser.add_argument("--slice", type=parse_slice, metavar="AXIS=INDEX",
                        help="3-D only: the plane shown, e.g. 0=32 or z=10 (default: middle of axis 0)")
    parser.add_argument("--size", type=parse_size, default=(600, 500), metavar="WxH",
                        help="image size in pixels (default 600x500)")
    parser.add_argument("--dpi", type=int, default=80, help="dots per inch: sets the text size (default 80)")
    parser.add_argument("--cmap", default="viridis",
                        help="matplotlib colour map (default viridis; for signed fields a diverging one, e.g. RdBu_r)")
    parser.add_argument("--vmin", type=float, help="lower colour limit, 1-D: y limit (default: the data's minimum)")
    parser.add_argument("--vmax", type=float, help="upper colour limit, 1-D: y limit (default: the data's maximum)")
    parser.add_argument("--symmetric", action="store_true",
                        help="limits symmetric about zero, -m..m, zero at the middle of the colour map "
                             "(vorticity, velocity components): m is the largest |value| of the data, or "
                             "--vmax (or --vmin) when given: --symmetric --vmax 20 draws -20..20")


def colour_limits(lo, hi, vmin=None, vmax=None, symmetric=False):
    """The (lower, upper) limits drawn: the data's range lo..hi, with vmin or vmax instead where
    given. symmetric: -m..m, where m = the largest |vmin|, |vmax| given, else max(|lo|, |hi|)."""
    if symmetric:
        given = [abs(v) for v in (vmin, vmax) if v is not None]
        m = max(given) if given else max(abs(lo), abs(hi))
        return -m, m
    lo = lo if vmin is None else vmin
    hi = hi if vmax is None else vmax
    if not lo <= hi:
        raise ValueError(f"the lower colour limit {lo:g} is above the upper one {hi:g}")
    return lo, hi


def new_figure(size, dpi):
    """A figure of exactly size=(width, height) pixels."""
    return plt.figure(figsize=(size[0] / dpi, size[1] / dpi), dpi=dpi)


def with_unit(name, unit):
    """'u [K]', or just 'u' when there is no unit."""
    return f"{name} [{unit}]" if unit else name


def find_vectors(snap, dims):
    """The field names of one vector's components along dims (e.g. ['ux', 'uy']), or None."""
    for name in snap.attrs["field_names"]:
        m = re.fullmatch(r"(.+?)(_?)[xyz]", name)
        if m:
            names = [m.group(1) + m.group(2) + sk.axis_name(d) for d in dims]
            if all(n in snap.attrs["field_names"] for n in names):
                return names
    return None


def resolve_slice(snap, slice_):
    """The (axis, index) plane shown of a 3-D snapshot (default: middle of axis 0); None for 1-D/2-D."""
    if snap.rank != 3:
        if slice_:
            raise sk.Error(f"--slice needs a 3-D snapshot; {snap.path} is {snap.rank}-D")
        return None
    axis, index = slice_ if slice_ else (0, int(snap.attrs["cells"][0]) // 2)
    n = int(snap.attrs["cells"][axis])
    if not -n <= index < n:
        raise sk.Error(f"--slice {axis}={index}: index out of range, axis {axis} has {n} cells")
    return axis, index % n


def default_field(snap):
    """The first field of snap (sk.Error when it has none, as a checkpoint of a model without fields)."""
    if not snap.attrs["field_names"]:
        raise sk.Error(f"{snap.path}: has no fields to draw")
    return snap.attrs["field_names"][0]


def plane(snap, field, slice_):
    """The values drawn: the field itself (1-D, 2-D) or its plane slice_ = (axis, index) (3-D)."""
    data = snap.fields[field]
    return np.take(data, slice_[1], axis=slice_[0]) if slice_ else data


class FieldPlot:
    """A figure showing one field of a snapshot; update() shows another snapshot of the same run."""

    def __init__(self, snap, field, slice_=None, size=(600, 500), dpi=80, cmap="viridis", limits=None):
        if field not in snap.fields:
            raise sk.Error(f"{snap.path}: no field {field!r}; it has {', '.join(snap.fields)}")
        self.field, self.slice = field, resolve_slice(snap, slice_)
        self.fig = new_figure(size, dpi)
        self.ax = self.fig.add_subplot()
        rank = snap.rank
        self.dims = [d for d in range(rank) if not self.slice or d != self.slice[0]]
        label = with_unit(field, snap.attrs["units"][field])
        values = plane(snap, field, self.slice)
        xlabel = f"{sk.axis_name(self.dims[0])} [m]"
        if rank == 1:
            (self.artist,) = self.ax.plot(snap.coords[0], values)
            self.ax.set_xlabel(xlabel)
            self.ax.set_ylabel(label)
            self.ax.grid(True, alpha=0.3)
            if limits:
                self.ax.set_ylim(*limits)
        else:
            d0, d1 = self.dims
            extent = [*snap.edges(d0), *snap.edges(d1)]
            vmin, vmax = limits if limits else (None, None)
            self.artist = self.ax.imshow(values.T, origin="lower", extent=extent, cmap=cmap, vmin=vmin, vmax=vmax,
                                         interpolation="nearest")
            self.ax.set_xlabel(xlabel)
            self.ax.set_ylabel(f"{sk.axis_name(d1)} [m]")
            self.fig.colorbar(self.artist, ax=self.ax, label=label)
        self.set_title(snap)
        self.fig.tight_layout()

    def set_title(self, snap):
        """Title: model, field, time, step (and the plane of a 3-D slice)."""
        a = snap.attrs
        title = f"{a['model']}: {self.field} at t = {a['time']:.4g} s (step {a['step']})"
        if self.slice:
            axis, index = self.slice
            title += f"\n{sk.axis_name(axis)} = {snap.coords[axis][index]:.4g} m (index {index})"
        self.ax.set_title(title)

    def update(self, snap):
        """Shows snap (same grid and field) instead of the current snapshot."""
        values = plane(snap, self.field, self.slice)
        if snap.rank == 1:
            self.artist.set_ydata(values)
        else:
            self.artist.set_data(values.T)
        self.set_title(snap)

    def add_vectors(self, snap, style="arrows"):
        """Draws the in-plane velocity components as arrows or streamlines."""
        names = find_vectors(snap, self.dims)
        if snap.rank == 1 or not names:
            want = "/".join("u" + sk.axis_name(d) for d in self.dims)
            raise sk.Error(f"{snap.path}: --vectors needs velocity components named like {want} "
                           f"(or u_x/u_y); the fields are {', '.join(snap.attrs['field_names'])}")
        u, v = (plane(snap, n, self.slice).T for n in names)
        x, y = (snap.coords[d] for d in self.dims)
        if style == "streamlines":
            self.ax.streamplot(x, y, u, v, color="white", linewidth=0.7, density=1.2)
        else:
            s0, s1 = max(1, len(x) // 24), max(1, len(y) // 24)
            self.ax.quiver(x[::s0], y[::s1], u[::s1, ::s0], v[::s1, ::s0], color="white")

    def save(self, path):
        """Writes the figure (PNG, GIF frame, ... by the file extension)."""
        self.fig.savefig(path, dpi=self.fig.dpi)


def main(argv=None):
    """Command line entry point; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("snapshot", help="snapshot or checkpoint .h5 file")
    add_figure_options(p)
    p.add_argument("--vectors", nargs="?", const="arrows", choices=["arrows", "streamlines"],
                   help="draw velocity components (ux/uy, u_x/u_y, ...) as arrows (default) or streamlines")
    p.add_argument("-o", "--output", help="PNG to write (default: SNAPSHOT_FIELD.png in the current directory)")
    args = p.parse_args(argv)
    try:
        snap = sk.open(args.snapshot)
        field = args.field or default_field(snap)
        limits = None
        if (args.vmin is not None or args.vmax is not None or args.symmetric) and field in snap.fields:
            values = plane(snap, field, resolve_slice(snap, args.slice))
            limits = colour_limits(float(np.nanmin(values)), float(np.nanmax(values)), args.vmin, args.vmax,
                                   args.symmetric)
        plot = FieldPlot(snap, field, args.slice, args.size, args.dpi, args.cmap, limits)
        if args.vectors:
            plot.add_vectors(snap, args.vectors)
        out = args.output or os.path.splitext(os.path.basename(args.snapshot))[0] + f"_{field}.png"
        plot.save(out)
    except (sk.Error, OSError, ValueError) as e:  # bad input, unwritable or unknown output format
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
