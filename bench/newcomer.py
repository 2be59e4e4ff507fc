#!/usr/bin/env python3
"""The newcomer table: each from_cupy example's timed section against the same NumPy code on
the CPU and the same CuPy code on the GPU, in one run. simkit's times are the "timed DTYPE S"
lines the examples print (the device synchronised around the section); NumPy's and CuPy's are
the best of --repeat runs of the NumPy code each example's header quotes.

  bench/newcomer.py --build BUILD_DIR [--backend cpu|cuda|both] [--dtype float32|float64]
                    [--repeat 3] [--json OUT.json]

Rows a peer cannot run (no CuPy installed, no GPU) show '-'. A ratio below 1 means simkit
was faster.
"""
import argparse
import json
import os
import subprocess
import sys
import time

def batch_setup(xp, rows, dtype):
    rng = xp.random.default_rng(1) if hasattr(xp.random, "default_rng") else xp.random
    X = (rng.random((rows, 1000), dtype=dtype) * 2 - 1).astype(dtype)
    return (X,)


def batch_run(xp, X):
    e = (X ** 2).sum(axis=1)
    Z = X / xp.sqrt(e)[:, None]
    return float(e.mean()), float(Z.std())


def gram_setup(xp, m, dtype):
    rng = xp.random.default_rng(1) if hasattr(xp.random, "default_rng") else xp.random
    A = rng.standard_normal((m, max(m // 2, 1)), dtype=dtype)
    return (A,)


def gram_run(xp, A):
    G = A @ A.T
    return float(G.mean()), float(G.std()), float(xp.trace(G)), float(G.sum(axis=1).max())


def chain_setup(xp, n, dtype):
    rng = xp.random.default_rng(1) if hasattr(xp.random, "default_rng") else xp.random
    return (rng.random(n, dtype=dtype),)


def chain_run(xp, x):
    # in place, as the example's three statements (the values grow; only the time matters)
    x *= 5
    x *= x
    x += x
    return None


def mcpi_setup(xp, n, dtype):
    rng = xp.random.default_rng(1) if hasattr(xp.random, "default_rng") else xp.random
    return rng.random(n, dtype=dtype), rng.random(n, dtype=dtype)


def mcpi_run(xp, x, y):
    return int(xp.count_nonzero(x * x + y * y < 1))


def matmul_setup(xp, n, dtype):
    rng = xp.random.default_rng(1) if hasattr(xp.random, "default_rng") else xp.random
    return rng.random((n, n), dtype=dtype), rng.random((n, n), dtype=dtype)


def matmul_run(xp, A, B):
    return A @ B


def norms_setup(xp, n, dtype):
    rng = xp.random.default_rng(1) if hasattr(xp.random, "default_rng") else xp.random
    return rng.standard_normal(n * n, dtype=dtype), rng.standard_normal((n, n), dtype=dtype)


def norms_run(xp, x, M):
    la = xp.linalg
    return (float(la.norm(x)), float(la.norm(x, 1)), float(la.norm(x, xp.inf)), float(la.norm(M)),
            la.norm(M, axis=1))


def inv_solve_setup(xp, n, dtype):
    rng = xp.random.default_rng(1) if hasattr(xp.random, "default_rng") else xp.random
    A = (rng.random((n, n), dtype=dtype) * 2 - 1).astype(dtype) + n * xp.eye(n, dtype=dtype)
    return A, rng.random(n, dtype=dtype)


def inv_solve_run(xp, A, b):
    return xp.linalg.solve(A, b), xp.linalg.inv(A)


def masks_setup(xp, n, dtype):
    rng = xp.random.default_rng(1) if hasattr(xp.random, "default_rng") else xp.random
    side = int(n ** 0.5)
    return (rng.standard_normal(n, dtype=dtype), rng.standard_normal(n, dtype=dtype),
            rng.random((side, side), dtype=dtype))


def masks_run(xp, x, y, M):
    m = (x > 0) & ~(y < 0)
    r = (int(m.sum()), bool(m.any()), bool(m.all()), x[m])
    y[m] = 0
    return r, (M > 0.5).sum(axis=1)


# name: (size, setup, the timed section); the sizes are the --size given to the example
EXAMPLES = {
    "matmul": (1024, matmul_setup, matmul_run),
    "norms": (2048, norms_setup, norms_run),
    "inv_solve": (1000, inv_solve_setup, inv_solve_run),
    "masks": (1 << 24, masks_setup, masks_run),
    "batch": (20000, batch_setup, batch_run),
    "gram_stats": (4000, gram_setup, gram_run),
    "chain": (10000000, chain_setup, chain_run),
    "mcpi": (10000000, mcpi_setup, mcpi_run),
}


def peer_seconds(xp, sync, name, size, dtype, repeat):
    _, setup, run = EXAMPLES[name]
    args = setup(xp, size, dtype)
    run(xp, *args)  # warm-up (CuPy compiles its kernels here)
    sync()
    best = float("inf")
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        run(xp, *args)
        sync()
        best = min(best, time.perf_counter() - t0)
    return best


def simkit_seconds(build, name, backend, size, dtype, repeat):
    exe = os.path.join(build, "examples", "from_cupy", "from_cupy_" + name)
    best = float("inf")
    for _ in range(repeat):
        out = subprocess.run([exe, "--backend", backend, "--size", str(size), "--dtype", dtype],
                             capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit("%s failed (exit %d):\n%s%s" % (exe, out.returncode, out.stdout, out.stderr))
        for line in out.stdout.splitlines():
            if line.startswith("timed " + dtype + " "):
                best = min(best, float(line.split()[2]))
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", required=True)
    p.add_argument("--backend", default="both", choices=["cpu", "cuda", "both"])
    p.add_argument("--dtype", default="float64", choices=["float32", "float64"])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--json")
    a = p.parse_args()
    import numpy
    cupy = None
    if a.backend != "cpu":
        try:
            import cupy  # noqa: F401
        except ImportError:
            cupy = None
    rows = []
    for name, (size, _, _) in EXAMPLES.items():
        if a.backend in ("cpu", "both"):
            ours = simkit_seconds(a.build, name, "cpu", size, a.dtype, a.repeat)
            peer = peer_seconds(numpy, lambda: None, name, size, numpy.dtype(a.dtype), a.repeat)
            rows.append({"example": name, "backend": "cpu", "peer": "NumPy", "simkit_s": ours, "peer_s": peer})
        if a.backend in ("cuda", "both"):
            ours = simkit_seconds(a.build, name, "cuda", size, a.dtype, a.repeat)
            peer = None
            if cupy is not None:
                sync = lambda: cupy.cuda.Stream.null.synchronize()  # noqa: E731
                peer = peer_seconds(cupy, sync, name, size, cupy.dtype(a.dtype), a.repeat)
            rows.append({"example": name, "backend": "cuda", "peer": "CuPy", "simkit_s": ours, "peer_s": peer})
    print("| example (%s) | backend | simkit ms | peer | peer ms | simkit / peer |" % a.dtype)
    print("|---|---|---|---|---|---|")
    for r in rows:
        peer = "-" if r["peer_s"] is None else "%.4g" % (r["peer_s"] * 1e3)
        ratio = "-" if r["peer_s"] is None else "%.2f" % (r["simkit_s"] / r["peer_s"])
        print("| %s | %s | %.4g | %s | %s | %s |" % (r["example"], r["backend"], r["simkit_s"] * 1e3, r["peer"], peer, ratio))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"dtype": a.dtype, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
