"""Reads simkit output (snapshots, checkpoints, XDMF series, diagnostics.csv) into numpy.

    import simkit_reader as sk
    s = sk.open("output/heat2d/snapshot_000000200.h5")
    s.fields["u"], s.coords[0], s.attrs["time"], s.attrs["units"]["u"]
    for time, step, path in sk.series("output/heat2d"): ...
    d = sk.diagnostics("output/heat2d"); d["time"], d["total_heat"], d.units["total_heat"]

The file layout is described in docs/output-format.md, this module in docs/postprocessing.md.
Every problem with the input (missing file, not a simkit file, unknown field) raises
simkit_reader.Error with a message that names the file.
"""
import builtins
import csv
import glob
import os
import re
import xml.etree.ElementTree as ET

import h5py
import numpy as np

__all__ = ["Error", "Snapshot", "open", "series", "diagnostics", "Diagnostics", "axis_name"]


class Error(Exception):
    """A problem with simkit input files, with a message naming the file."""


def axis_name(dim):
    """The config's name of dimension dim: x for 0, y for 1, z for 2 (as in [boundary] x_lo)."""
    return "xyz"[dim]


class Snapshot:
    """One snapshot or checkpoint: .fields, .coords, .attrs, .path; .counters, .reals (see open())."""

    def __init__(self, path, fields, attrs, counters=None, reals=None):
        self.path = path
        self.fields = fields
        self.attrs = attrs
        self.counters = counters or {}  # checkpoints: step, RNG offsets, ... (numpy uint64)
        self.reals = reals or {}        # checkpoints: time, dt, next output time
        cells, origin, spacing = attrs["cells"], attrs["origin"], attrs["spacing"]
        self.coords = [origin[d] + (np.arange(cells[d]) + 0.5) * spacing[d] for d in range(len(cells))]

    @property
    def rank(self):
        """Number of grid dimensions (1, 2 or 3)."""
        return len(self.attrs["cells"])

    def edges(self, dim):
        """(low, high) coordinate of the grid along dimension dim (cell faces, not centres)."""
        lo = self.attrs["origin"][dim]
        return lo, lo + self.attrs["cells"][dim] * self.attrs["spacing"][dim]

    def __repr__(self):
        a = self.attrs
        return (f"<simkit {a['kind']} {a['model']} step {a['step']} t={a['time']:g} "
                f"cells {list(a['cells'])} fields {list(self.fields)}>")


def _scalar(value):
    """A numpy scalar attribute as a plain Python value."""
    return value.item() if isinstance(value, np.generic) else value


def open(path, fields=None):
    """Reads a snapshot or checkpoint; fields: names to load (default all), to save time on big files."""
    if not os.path.isfile(path):
        raise Error(f"{path}: no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise Error(f"{path}: not a readable HDF5 file ({e})") from None
    with f:
        if f.attrs.get("kind") not in ("snapshot", "checkpoint") or not isinstance(f.get("fields"), h5py.Group):
            raise Error(f"{path}: not a simkit snapshot or checkpoint (no kind attribute or /fields group)")
        attrs = {k: _scalar(v) for k, v in f.attrs.items()}
        for k in ("cells", "origin", "spacing"):
            attrs[k] = np.asarray(attrs[k])
        group = f["fields"]
        names = list(group) if fields is None else list(fields)
        missing = [n for n in names if n not in group]
        if missing:
            raise Error(f"{path}: no field {', '.join(map(repr, missing))}; it has {', '.join(group)}")
        attrs["units"] = {n: group[n].attrs.get("unit", "") for n in group}
        attrs["field_names"] = list(group)
        try:
            data = {n: group[n][()] for n in names}
            extra = [{n: d[0] for n, d in f[g].items()} if isinstance(f.get(g), h5py.Group) else {}
                     for g in ("counters", "reals")]  # checkpoints only: shape-(1,) datasets
        except OSError as e:  # truncated file, checksum mismatch
            raise Error(f"{path}: cannot read the data ({e})") from None
    return Snapshot(path, data, attrs, *extra)


def _series_from_xdmf(xdmf):
    """(time, step, path) of every grid of an XDMF time series, in file order."""
    try:
        root = ET.parse(xdmf).getroot()
    except (OSError, ET.ParseError) as e:
        raise Error(f"{xdmf}: not a readable XDMF file ({e})") from None
    base = os.path.dirname(os.path.abspath(xdmf))
    out = []
    for grid in root.iter("Grid"):
        if grid.get("GridType") != "Uniform":
            continue
        t, item = grid.find("Time"), grid.find("Attribute/DataItem")
        if t is None or item is None:
            raise Error(f"{xdmf}: grid {grid.get('Name')!r} has no Time or no attribute data")
        path = os.path.join(base, item.text.strip().partition(":")[0])
        m = re.fullmatch(r"step_(\d+)", grid.get("Name", ""))
        step = int(m.group(1)) if m else int(open(path, fields=[]).attrs["step"])
        out.append((float(t.get("Value")), step, path))
    return out


def _series_from_files(directory):
    """(time, step, path) of every snapshot file in directory, ordered by step."""
    out = []
    for path in sorted(glob.glob(os.path.join(directory, "*.h5"))):
        try:
            with h5py.File(path, "r") as f:
                if f.attrs.get("kind") == "snapshot":
                    out.append((float(f.attrs["time"]), int(f.attrs["step"]), path))
        except OSError:
            continue  # not HDF5 (or being written): not part of the series
    return sorted(out, key=lambda e: e[1])


def series(xdmf_or_dir):
    """The snapshots of a run as a list of (time, step, path), oldest first.

    Takes the run's .xdmf file, or its output directory: the directory's one .xdmf file is
    used when there is exactly one, otherwise the snapshot files (kind = "snapshot") in it.
    """
    p = xdmf_or_dir
    if os.path.isdir(p):
        found = sorted(glob.glob(os.path.join(p, "*.xdmf")))
        entries = _series_from_xdmf(found[0]) if len(found) == 1 else _series_from_files(p)
    elif os.path.isfile(p):
        entries = _series_from_xdmf(p)
    else:
        raise Error(f"{p}: no such file or directory")
    if not entries:
        raise Error(f"{p}: no snapshots found")
    return entries


class Diagnostics(dict):
    """Column name -> numpy array, plus .units (column name -> unit string, '' if none)."""

    def __init__(self):
        super().__init__()
        self.units = {}


def diagnostics(path):
    """Reads DIR/diagnostics.csv (or the given .csv) into a Diagnostics dict of numpy arrays.

    Keys are the bare column names ('step', 'time', 'total_heat', ...); a header's
    'name [unit]' puts the unit into .units. 'step' is int64, every other column float64.
    """
    csv_path = os.path.join(path, "diagnostics.csv") if os.path.isdir(path) else path
    if not os.path.isfile(csv_path):
        raise Error(f"{csv_path}: no such file")
    try:
        with builtins.open(csv_path, newline="") as f:
            rows = [r for r in csv.reader(f) if r]
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise Error(f"{csv_path}: unreadable ({e})") from None
    heads = [re.fullmatch(r"\s*(.*?)\s*(?:\[(.*)\])?\s*", h) for h in rows[0]] if rows else []
    names = [m.group(1) for m in heads]
    if names[:2] != ["step", "time"]:
        raise Error(f"{csv_path}: not a simkit diagnostics.csv (the header must start with step,time)")
    out = Diagnostics()
    for i, (name, m) in enumerate(zip(names, heads)):
        try:
            out[name] = np.array([r[i] for r in rows[1:]], dtype=np.int64 if name == "step" else np.float64)
        except (IndexError, ValueError) as e:
            raise Error(f"{csv_path}: column {name!r}: {e}") from None
        out.units[name] = m.group(2) or ("s" if name == "time" else "")
    return out
