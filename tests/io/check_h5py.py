#!/usr/bin/env python3
"""Checks a simkit snapshot and an XDMF series against docs/output-format.md, with h5py.

usage: /usr/bin/python3 tests/io/check_h5py.py SNAPSHOT.h5 SERIES.xdmf
Exits 0 when both match the documented layout, else prints every problem and exits 1.
"""
import math
import os
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

problems = []


def check(ok, message):
    if not ok:
        problems.append(message)
    return ok


def check_snapshot(path):
    with h5py.File(path, "r") as f:
        a = f.attrs
        for name in ("kind", "model", "config", "simkit_version", "git_commit", "backend", "device", "precision"):
            check(name in a and isinstance(a[name], str), f"{path}: root attribute {name!r} missing or not a string")
        check(a.get("kind") == "snapshot", f"{path}: kind is {a.get('kind')!r}, expected 'snapshot'")
        for name, dtype in (("step", np.int64), ("time", np.float64), ("dt", np.float64)):
            v = np.asarray(a.get(name))
            check(name in a and v.dtype == dtype and v.shape == (), f"{path}: {name!r} should be a scalar {dtype.__name__}")
        cells = np.asarray(a.get("cells", []))
        check(cells.dtype == np.int64 and cells.ndim == 1 and cells.size >= 1, f"{path}: 'cells' should be an int64 array")
        for name in ("origin", "spacing"):
            v = np.asarray(a.get(name, []))
            check(v.dtype == np.float64 and v.shape == cells.shape, f"{path}: {name!r} should be float64 like 'cells'")
        if not check(isinstance(f.get("fields"), h5py.Group), f"{path}: no group /fields"):
            return
        check(len(f["fields"]) > 0, f"{path}: /fields is empty")
        for name, d in f["fields"].items():
            if not check(isinstance(d, h5py.Dataset), f"{path}: /fields/{name} is not a dataset"):
                continue
            check(d.dtype in (np.float32, np.float64), f"{path}: /fields/{name} has type {d.dtype}, not float32/64")
            check(d.shape == tuple(int(n) for n in cells), f"{path}: /fields/{name} has shape {d.shape}, cells {cells}")
            check(d.chunks is not None, f"{path}: /fields/{name} is not chunked")
            check(isinstance(d.attrs.get("unit"), str), f"{path}: /fields/{name} has no string attribute 'unit'")
            check(np.all(np.isfinite(d[()])), f"{path}: /fields/{name} holds NaN or Inf")


def ints(text):
    return [int(x) for x in text.split()]


def check_xdmf(path):
    root = ET.parse(path).getroot()
    base = os.path.dirname(os.path.abspath(path))
    check(root.tag == "Xdmf" and root.get("Version", "").startswith("3"), f"{path}: root is not <Xdmf Version='3...'>")
    series = root.find("./Domain/Grid")
    if not check(series is not None and series.get("CollectionType") == "Temporal", f"{path}: no temporal collection"):
        return
    grids = series.findall("Grid")
    check(len(grids) > 0, f"{path}: the time series is empty")
    times = []
    for g in grids:
        where = f"{path}: grid {g.get('Name')}"
        t = g.find("Time")
        if check(t is not None and t.get("Value") is not None, f"{where}: no <Time Value=...>"):
            times.append(float(t.get("Value")))
        topo = g.find("Topology")
        if not check(topo is not None and topo.get("TopologyType") in ("2DCoRectMesh", "3DCoRectMesh"),
                     f"{where}: topology is not a 2D/3D CoRectMesh"):
            continue
        points = ints(topo.get("Dimensions"))
        check(len(points) == int(topo.get("TopologyType")[0]), f"{where}: topology dimensions {points} do not fit its type")
        geometry = g.find("Geometry")
        items = geometry.findall("DataItem") if geometry is not None else []
        check(len(items) == 2 and all(len(i.text.split()) == len(points) for i in items),
              f"{where}: geometry needs an origin and a spacing with {len(points)} values each")
        ncells = math.prod(p - 1 for p in points)
        for attr in g.findall("Attribute"):
            item = attr.find("DataItem")
            check(attr.get("Center") == "Cell", f"{where}: attribute {attr.get('Name')} is not cell-centred")
            per_cell = 3 if attr.get("AttributeType") == "Vector" else 1  # a 3D velocity: JOIN of three fields
            if check(item is not None, f"{where}: attribute {attr.get('Name')} has no DataItem"):
                check(math.prod(ints(item.get("Dimensions"))) == ncells * per_cell,
                      f"{where}: attribute {attr.get('Name')} does not have {per_cell} value(s) per cell ({ncells} cells)")
    check(times == sorted(times), f"{path}: times are not increasing: {times}")
    # Every heavy-data reference must exist with the declared dimensions and type.
    files = {}
    try:
        for item in root.iter("DataItem"):
            if item.get("Format") != "HDF":
                continue
            ref = item.text.strip()
            name, sep, dset = ref.partition(":")
            if not check(sep and dset.startswith("/"), f"{path}: DataItem {ref!r} is not FILE:/DATASET"):
                continue
            full = os.path.join(base, name)
            if not check(os.path.isfile(full), f"{path}: {ref}: file {full} does not exist"):
                continue
            if full not in files:
                files[full] = h5py.File(full, "r")
            d = files[full].get(dset)
            if not check(isinstance(d, h5py.Dataset), f"{path}: {ref}: no such dataset"):
                continue
            dims = tuple(ints(item.get("Dimensions")))
            check(d.shape == dims, f"{path}: {ref}: dataset shape {d.shape}, XDMF declares {dims}")
            want = {("Float", "4"): np.float32, ("Float", "8"): np.float64}.get(
                (item.get("NumberType", "Float"), item.get("Precision", "4")))
            check(d.dtype == want, f"{path}: {ref}: dataset type {d.dtype}, XDMF declares {want}")
    finally:
        for f in files.values():
            f.close()


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip())
        return 2
    for fn, path in ((check_snapshot, sys.argv[1]), (check_xdmf, sys.argv[2])):
        try:
            fn(path)
        except Exception as e:  # unreadable file: report, do not crash
            problems.append(f"{path}: {type(e).__name__}: {e}")
    for p in problems:
        print("PROBLEM:", p)
    if not problems:
        print(f"ok: {sys.argv[1]} and {sys.argv[2]} match docs/output-format.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
