"""Renders one frame of a simkit XDMF series to a PNG with ParaView, offscreen.

usage: pvpython --force-offscreen-rendering paraview_render.py SERIES.xdmf OUT.png [--field u] [--size 600x500]

Opens the series (snapshot.xdmf) as ParaView does, goes to its last time step, colours the
grid by the field's cell data with a colour bar, and saves a screenshot. Exits 1 when the
series has no such field or no time steps.
"""
import argparse
import os
import sys

from paraview.simple import (ColorBy, GetAnimationScene, GetDisplayProperties, OpenDataFile, Render,
                             ResetCamera, SaveScreenshot, Show, CreateView)


def main():
    """Renders the last time step of the series; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("xdmf")
    p.add_argument("png")
    p.add_argument("--field", default="u")
    p.add_argument("--size", default="600x500", help="WIDTHxHEIGHT in pixels")
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
    names = list(reader.CellData.keys())
    if args.field not in names:
        print(f"paraview_render: no cell field {args.field!r} in {args.xdmf}; it has {names}", file=sys.stderr)
        return 1

    view = CreateView("RenderView")
    view.ViewSize = [width, height]
    view.ViewTime = times[-1]
    scene = GetAnimationScene()
    scene.UpdateAnimationUsingDataTimeSteps()
    scene.AnimationTime = times[-1]
    Show(reader, view)
    display = GetDisplayProperties(reader, view)
    ColorBy(display, ("CELLS", args.field))
    display.RescaleTransferFunctionToDataRange(True, False)
    display.SetScalarBarVisibility(view, True)
    # A 2-D (or 1-D) CoRectMesh is a plane at constant X in ParaView: look at it face on.
    bounds = reader.GetDataInformation().GetBounds()
    if bounds[1] - bounds[0] == 0:
        view.ResetActiveCameraToNegativeX()
    ResetCamera(view)
    Render(view)
    SaveScreenshot(args.png, view, ImageResolution=[width, height])
    print(f"paraview_render: {args.png}: {args.field} at t = {times[-1]:g} ({len(times)} time steps)", flush=True)
    return 0


if __name__ == "__main__":
    code = main()
    # Debian's ParaView under Xvfb can crash tearing down its GLX context after the image is
    # written; the work is done, so leave without the teardown.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
