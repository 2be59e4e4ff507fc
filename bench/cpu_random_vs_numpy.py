#!/usr/bin/env python3
"""Random fills on simkit's cpu backend (bench_random) against NumPy's default_rng on the same
machine in the same run: uniform and normal, float32 and float64, n elements a fill. Each
round runs bench_random (the median of --repeat fills) and then NumPy's fill into a preallocated
array (random(out=) / standard_normal(out=), the median of --repeat); the table gives the median
over rounds of each side and the ratio (below 1: simkit faster), and simkit's bit hashes.

  bench/cpu_random_vs_numpy.py --build BUILD_DIR [--n 10000000] [--rounds 5] [--repeat 5] [--json OUT]
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy


def numpy_ms(n, dist, dtype, repeat):
    rng = numpy.random.default_rng(1)
    out = numpy.empty(n, dtype=dtype)
    fill = rng.random if dist == "uniform" else rng.standard_normal
    fill(out=out, dtype=dtype)  # warm-up: the pages are touched
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fill(out=out, dtype=dtype)
        t.append(time.perf_counter() - t0)
    return statistics.median(t) * 1e3


def simkit_rows(build, n, repeat):
    out = subprocess.run([build + "/bench/bench_random", "--backend", "cpu", "--n", str(n), "--repeat", str(repeat)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("bench_random failed (exit %d):\n%s%s" % (out.returncode, out.stdout, out.stderr))
    rows = {}
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) > 3 and f[3] == "median_ms":
            rows[(f[0], f[1])] = (float(f[4]), f[-1])
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", required=True)
    p.add_argument("--n", type=int, default=10000000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--json")
    a = p.parse_args()
    keys = [(d, t) for t in ("float32", "float64") for d in ("uniform", "normal")]
    ours = {k: [] for k in keys}
    peer = {k: [] for k in keys}
    hashes = {}
    for _ in range(a.rounds):
        rows = simkit_rows(a.build, a.n, a.repeat)
        for k in keys:
            ours[k].append(rows[k][0])
            hashes[k] = rows[k][1]
            peer[k].append(numpy_ms(a.n, k[0], numpy.dtype(k[1]), a.repeat))
    print("| fill (n = %d) | simkit cpu ms | NumPy ms | simkit / NumPy | simkit bits (FNV-1a) |" % a.n)
    print("|---|---|---|---|---|")
    result = []
    for k in keys:
        s, q = statistics.median(ours[k]), statistics.median(peer[k])
        print("| %s %s | %.4g | %.4g | %.2f | %s |" % (k[0], k[1], s, q, s / q, hashes[k]))
        result.append({"fill": k[0], "dtype": k[1], "simkit_ms": ours[k], "numpy_ms": peer[k], "hash": hashes[k]})
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"n": a.n, "rounds": a.rounds, "repeat": a.repeat, "numpy": numpy.__version__, "rows": result}, f,
                      indent=1)


if __name__ == "__main__":
    main()
