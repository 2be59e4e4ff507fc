"""Renders one frame of a simkit XDMF series to a PNG with ParaView, offscreen.

usage: pvpython --force-offscreen-rendering paraview_render.py SERIES.xdmf OUT.png
           [--field u] [--size 600x500] [--bare]
(without a display, inside a virtual X server: xvfb-run -a -s "-screen 0 1024x768x24" pvpython ...)

Opens the series (snapshot.xdmf) with ParaView's XDMF reader, goes to its last time step,
colours the grid by the field's cell data with a colour bar, and saves a screenshot. --bare
leaves out the colour bar and the orientation axes, so that every pixel that is not the
background is data (the test's blank-frame check). Before rendering it prints one line
    paraview_render: read {"reader": ..., "cell_arrays": [...], "cell_dims": [...], ...}
(JSON: what ParaView read, for a test to check). Exits 1 when the series has no such field
or no time steps.

How ParaView sees simkit's grids (its X axis is the dataset's *last* dimension): a 3-D grid
[nx, ny, nz] is nz x ny x nx cells along X, Y, Z; a 2-D grid [nx, ny] is a plane at X = 0
with ny cells along Y and nx along Z; a 1-D grid [nx] is a strip of nx cells along Y, one
cell thick along Z. ParaView's default representation of a flat image is "Slice" along Z,
which cuts the 2-D plane edge-on (an empty frame), so this script shows surfaces, and looks
at a flat grid face on, with simkit's x across and y up as in simkit_plot.py.
"""
import argparse
import json
import os
import sys

from paraview.simple import ColorBy, CreateView, GetAnimationScene, OpenDataFile, Render, ResetCamera, SaveScreenshot, Show


def main():
    """Renders the last time step of the series; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("xdmf")
    p.add_argument("png")
    p.add_argument("--field", default="u")
    p.add_argument("--size", default="600x500", help="WIDTHxHEIGHT in pixels")
    p.add_argument("--bare", action="store_true", help="no colour bar, no orientation axes: data pixels only")
    args = p.parse_args()
    width, height = (int(v) for v in args.size.split("x"))

    reader = OpenDataFile(args.xdmf)
    if reader is None:
        print(f"paraview_render: ParaView cannot open {args.xdmf}", file=sys.stderr)
        return 1
    times = reader.TimestepValues
    times = list(times) if hasattr(times, "__len__") else [times]
    if not times:
        print(f"paraview_render: {args.xdmf} has no time steps", file=sys.stderr)
        return 1
    reader.UpdatePipeline(times[-1])
    info = reader.GetDataInformation()
    extent = info.GetExtent()
    cell_dims = [max(extent[2 * a + 1] - extent[2 * a], 1) for a in range(3)]  # cells along X, Y, Z
    cells = list(reader.CellData.keys())
    read = {
        "reader": reader.GetXMLName(),
        "data_type": info.GetDataSetTypeAsString(),
        "times": len(times),
        "last_time": times[-1],
        "cell_arrays": cells,
        "point_arrays": list(reader.PointData.keys()),
        "cell_dims": cell_dims,
        "cells": info.GetNumberOfCells(),
        "bounds": list(info.GetBounds()),
        "ranges": {name: list(reader.CellData[name].GetRange()) for name in cells},
    }
    print("paraview_render: read " + json.dumps(read), flush=True)
    if args.field not in cells:
        print(f"paraview_render: no cell field {args.field!r} in {args.xdmf}; it has {cells}", file=sys.stderr)
        return 1

    view = CreateView("RenderView")
    view.ViewSize = [width, height]
    view.ViewTime = times[-1]
    view.OrientationAxesVisibility = 0 if args.bare else 1
    scene = GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    scene.AnimationTime = times[-1]
    display = Show(reader, view)
    bounds = info.GetBounds()
    if bounds[1] - bounds[0] > 0:  # 3-D: the middle plane of simkit's x (ParaView's Z), as simkit_plot.py shows
        display.SetRepresentationType("Slice")
        display.SliceMode = "XY Plane"
        display.Slice = (extent[5] - extent[4]) // 2
        view.ResetActiveCameraToPositiveZ()
        view.CameraViewUp = [1, 0, 0]  # simkit's y (ParaView's Y) across, z (X) up
    else:  # flat in X: a 2-D grid (or the strip of a 1-D one)
        display.SetRepresentationType("Surface")  # not "Slice", ParaView's default, edge-on here
        view.InteractionMode = "2D"
        if extent[5] - extent[4] > 1:  # 2-D: simkit's x (ParaView's Z) across, y (Y) up
            view.ResetActiveCameraToPositiveX()
            view.CameraViewUp = [0, 1, 0]
        else:  # 1-D: the strip along Y, across
            view.ResetActiveCameraToNegativeX()
    ColorBy(display, ("CELLS", args.field))
    display.RescaleTransferFunctionToDataRange(True, False)
    display.SetScalarBarVisibility(view, not args.bare)
    ResetCamera(view)
    Render(view)
    SaveScreenshot(args.png, view, ImageResolution=[width, height])
    print(f"paraview_render: {args.png}: {args.field} at t = {times[-1]:g} ({len(times)} time steps)", flush=True)
    return 0


if __name__ == "__main__":
    code = main()
    # Leave without ParaView's teardown: under Xvfb it has crashed tearing down its GLX
    # context after the image was written; the work is done.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
