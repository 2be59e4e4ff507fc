#!/usr/bin/env python3
"""Fault injection against `simulate` (CPU backend): what docs/faults.md promises, tried.

    fault_suite.py PART      PART: errors | plugins | disk_full | kill | damage | writers | all

Every case must end with its documented exit code and a message, never with a crash (a
signal, exit 134/135/136/139, "terminate called"), and every snapshot and checkpoint left on
disk must be valid (`simulate info` reads it); where a run is resumed, its snapshots and final
state must be those of an uninterrupted run, bit for bit (the per-field digests of `info`).
Each part prints how many cases it tried. Environment: SIMKIT_SIMULATE (the binary),
SIMKIT_FAULT_PRELOAD (the ENOSPC shim, enospc_preload.c), SIMKIT_FAKE_PLUGIN (a plugin .so),
SIMKIT_FAULT_SEED (random choices; default 22), SIMKIT_FAULT_KEEP=1 keeps the scratch folder,
SIMKIT_FAULT_BACKEND (cpu; cuda runs the same cases on the GPU).
"""
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SIMULATE = os.environ.get("SIMKIT_SIMULATE", "simulate")
PRELOAD = os.environ.get("SIMKIT_FAULT_PRELOAD", "")
FAKE_PLUGIN = os.environ.get("SIMKIT_FAKE_PLUGIN", "")
RNG = random.Random(int(os.environ.get("SIMKIT_FAULT_SEED", "22")))
BACKEND = os.environ.get("SIMKIT_FAULT_BACKEND", "cpu")  # "cuda": the kill and damage parts on a GPU
CRASH_CODES = {134, 135, 136, 137, 139}

HEAT_T = """[run]
model = "heat"
backend = "{backend}"
steps = {steps}
[grid]
cells = [{n}, {n}]
[model]
init = "gaussian"
amplitude = 1.0
width = 0.1
[boundary]
default = "dirichlet"
default_value = 0.0
[output]
every = {out}
[checkpoint]
every = {ck}
keep = {keep}
"""

FLUID_T = """[run]
model = "fluid"
backend = "{backend}"
steps = {steps}
[grid]
cells = [{n}, {n}]
length = [1.0, 1.0]
[model]
viscosity = 0.01
pressure_solver = "mg_cg"
[boundary]
y_hi_value = 1.0
[output]
every = {out}
[checkpoint]
every = {ck}
keep = {keep}
"""

MCPI_T = """[run]
model = "mcpi"
backend = "{backend}"
steps = {steps}
seed = 7
[model]
batch = 20000
[output]
every = {out}
[checkpoint]
every = {ck}
keep = {keep}
"""

HEAT, FLUID, MCPI = (t.replace("{backend}", BACKEND) for t in (HEAT_T, FLUID_T, MCPI_T))


M64 = (1 << 64) - 1


def _mix(x):
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & M64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def with_trailer(body):
    """body (a file's bytes without trailer) with simkit's checksum trailer appended, as a writer
    of that content would leave it (io/hdf5/checksum.cpp, StreamHash): for files edited on purpose."""
    import struct
    lanes = [1, 2, 3, 4]
    whole = len(body) // 32 * 32
    for at in range(0, whole, 32):
        for k, w in enumerate(struct.unpack_from("<4Q", body, at)):
            lanes[k] = (_mix(lanes[k] ^ w) + 0x632BE59BD9B4E019) & M64
    h = (len(body) * 0x9E3779B97F4A7C15) & M64
    for lane in lanes:
        h = _mix(h ^ _mix(lane))
    rest = body[whole:]
    for i, b in enumerate(rest):
        h = _mix(h ^ ((b + 0x100 * (i + 1)) & M64))
    return bytes(body) + b"SIMKSUM1" + struct.pack("<Q", _mix(h ^ len(rest)))


def without_trailer(raw):
    return raw[:-16] if raw[-16:-8] == b"SIMKSUM1" else raw


class Suite:
    def __init__(self, part, root):
        self.part, self.root = part, root
        self.cases = 0
        self.failures = []

    def case(self, name, ok, detail=""):
        self.cases += 1
        if not ok:
            self.failures.append(f"{name}: {detail}")
            print(f"FAIL {self.part}/{name}: {detail}", flush=True)

    def scratch(self, name):
        d = os.path.join(self.root, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d


def run(args, timeout=120, env=None, cwd=None):
    """Runs simulate; returns (rc, stderr). A signal gives -SIG."""
    e = dict(os.environ, OMP_NUM_THREADS="2")
    e.update(env or {})
    try:
        p = subprocess.run([SIMULATE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=e, cwd=cwd)
    except subprocess.TimeoutExpired:
        return -999, "timed out"
    return p.returncode, p.stderr.decode(errors="replace")


def crashed(rc, err):
    return rc < 0 or rc in CRASH_CODES or "terminate called" in err or "Segmentation" in err


def info(path):
    """The comparable content of a file per `simulate info`: digests and counters/reals/strings lines."""
    p = subprocess.run([SIMULATE, "info", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if p.returncode != 0:
        return None, p.returncode, p.stderr.decode(errors="replace")
    keep = []
    for line in p.stdout.decode(errors="replace").splitlines():
        if "digest" in line:
            keep.append(line.split()[0] + " " + line.split("digest")[1].strip())
        elif line.startswith("  run_id = "):  # the run's identity: not state (each run draws its own)
            continue
        elif line.startswith("  ") and " = " in line and not line.startswith("  |"):
            keep.append(line.strip())
    return "\n".join(keep), 0, ""


def outputs(d):
    if not os.path.isdir(d):  # killed before it made its output directory (a GPU run starts slower)
        return []
    return sorted(f for f in os.listdir(d) if re.match(r"(snapshot|checkpoint)_\d+\.h5$", f))


def check_outputs_valid(s, name, d, killed=False):
    """Every snapshot and checkpoint on disk is readable and verified; no temporary left behind
    (but by a kill -9: the next run removes those)."""
    for f in outputs(d):
        content, rc, err = info(os.path.join(d, f))
        s.case(f"{name}:{f} valid", content is not None and not crashed(rc, err), f"info rc {rc}: {err.strip()[:300]}")
    if not killed:
        tmps = [f for f in os.listdir(d) if f.endswith(".tmp")] if os.path.isdir(d) else []
        s.case(f"{name}: no temporary left", not tmps, f"left {tmps}")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def reference(s, name, template, **kw):
    """An uninterrupted run: its directory and {file: content}."""
    d = s.scratch(name + "_ref")
    cfg = write(os.path.join(d, "run.toml"), template.format(**kw))
    rc, err = run([cfg, "--output", d + "/out", "-q"])
    if rc != 0:
        raise SystemExit(f"reference run {name} failed (rc {rc}): {err}")
    return cfg, {f: info(os.path.join(d, "out", f))[0] for f in outputs(d + "/out")}


def same_as_reference(s, name, d, ref, snapshots_only=False):
    """The run in d has every snapshot of the reference, bit for bit, and its final checkpoint."""
    have = set(outputs(d))
    for f, content in ref.items():
        if f.startswith("checkpoint") and (snapshots_only or f != max(k for k in ref if k.startswith("checkpoint"))):
            continue
        if f not in have:
            s.case(f"{name}: {f} present", False, "missing: a snapshot or checkpoint was lost")
            continue
        got = info(os.path.join(d, f))[0]
        s.case(f"{name}: {f} identical", got == content, f"differs from the uninterrupted run:\n{got}\nvs\n{content}")


# ---------------------------------------------------------------- errors: items 1, 5, 7, 8, 9


def part_errors(s):
    d = s.scratch("errors")
    heat = write(os.path.join(d, "heat.toml"), HEAT.format(steps=20, n=32, out=5, ck=10, keep=2))

    def bad_input(name, args, words, out=None, timeout=60):
        out = out or os.path.join(d, "out_" + re.sub(r"\W", "_", name))
        rc, err = run(args + ["--output", out, "-q"] if "--output" not in args else args, timeout=timeout)
        ok = rc == 2 and all(w in err for w in words) and not crashed(rc, err)
        s.case(name, ok, f"rc {rc}, expected 2 and {words} in: {err.strip()[:400]}")
        s.case(name + ": nothing written", not os.path.exists(out), f"{out} was created")

    # item 1: a run that fails while a snapshot is being written (rc 139 before)
    for i in range(4):
        out = os.path.join(d, f"blowup{i}")
        rc, err = run([heat, "--output", out, "-q", "grid.cells=[512,512]", "model.amplitude=1e308",
                       "output.every=1", "output.compression=9", "run.steps=5"])
        s.case(f"failure during a snapshot write #{i}", rc == 1 and "blew up" in err, f"rc {rc}: {err.strip()[:300]}")
        s.case(f"failure during a snapshot write #{i}: snapshot 0 kept", os.path.exists(out + "/snapshot_000000000.h5"),
               str(os.listdir(out)) if os.path.isdir(out) else "no directory")
        if os.path.isdir(out):
            check_outputs_valid(s, f"blowup{i}", out)

    # item 5: overflow is bad input, not a silent success or a crash
    timed = write(os.path.join(d, "timed.toml"), HEAT.format(steps=20, n=32, out=5, ck=10, keep=2).replace(
        "steps = 20", "end_time = 0.001"))
    bad_input("end_time 1e300", [timed, "run.end_time=1e300"], ["end_time", "steps"])
    rc, err = run([timed, "run.end_time=1e300", "--dry-run"])
    s.case("end_time 1e300 --dry-run", rc == 2 and "-9223372036854775808" not in err, f"rc {rc}: {err[:300]}")
    bad_input("alpha 0 with end_time", [timed, "model.alpha=0.0"], ["dt", "alpha"])
    bad_input("cells 2^63-1", [heat, "grid.cells=[9223372036854775807,2]"], ["grid", "cells"])
    bad_input("cells product overflows", [heat, "grid.cells=[3037000500,3037000500]"], ["cells"])
    bad_input("cells 2^40 (beyond memory)", [heat, "grid.cells=[1048576,1048576]"], ["memory"])
    # a plan whose every allocation fits but whose sum does not (the cpu backend allocates
    # lazily: the kernel killed the run, 137, after it had written its diagnostics). Only
    # --dry-run here: a simulate without the check would touch all of that memory.
    avail = 0
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            avail = int(line.split()[1]) * 1024
    if avail > 0:
        n = int((0.45 * avail / 8) ** 0.5)  # one float64 field: 45% of the memory; heat holds three
        bad_input("heat grid that cannot fit, --dry-run", [heat, f"grid.cells=[{n},{n}]", "--dry-run"],
                  ["grid.cells", "available"])
        mcpi = write(os.path.join(d, "mcpi.toml"), MCPI.format(steps=2, n=0, out=1, ck=0, keep=1))
        batch = int(0.65 * avail / 8)  # two float64 arrays of 65% each
        bad_input("mcpi batch that cannot fit, --dry-run", [mcpi, 'model.path="array"', f"model.batch={batch}", "--dry-run"],
                  ["model.batch", "available"])

    # a step that crosses many output times (or an interval below the resolution of the time)
    # spun in EveryTime::fired at full CPU, deaf to SIGTERM: refused before anything is written
    for name, extra in (("every_time 1e-20", ["output.every_time=1e-20"]),
                        ("implicit, dt 1e13, every_time 1", ['model.scheme="crank_nicolson"', "run.dt=1e13",
                                                              "output.every_time=1"]),
                        ("alpha 1e-300, every_time 0.002", ["model.alpha=1e-300", "output.every_time=0.002"])):
        bad_input(name, [heat] + extra, ["every_time"], timeout=20)

    # messages that name the problem: the key given, numbers in %g form, the real cause
    fluid = write(os.path.join(d, "fluid.toml"), FLUID.format(steps=3, n=16, out=1, ck=0, keep=1))
    bad_input("run.cfl 0 named", [heat, "run.cfl=0"], ["[run] cfl", "run.cfl = 0"])
    bad_input("tiny grid.length named", [heat, "grid.length=[1e-300,1e-300]"], ["[grid] length", "1e-300"])
    bad_input("huge viscosity named", [fluid, "model.viscosity=1e308"], ["[model] viscosity", "1e+308"])
    bad_input("huge lid speed named", [fluid, "boundary.y_hi_value=1e308"], ["[boundary] y_hi_value"])
    rc, err = run([heat, "--output", d + "/cg_tol", "-q", 'model.scheme="crank_nicolson"', "model.cg_tol=1e-16",
                   "run.dt=0.001"])
    s.case("cg_tol 1e-16: numbers in %g form", rc == 1 and "0.000000" not in err and "1e-16" in err and "stalled" in err,
           f"rc {rc}: {err[-400:]}")
    rc, err = run([fluid, "--output", d + "/ptol", "-q", "model.pressure_tol=1e-18"])
    s.case("pressure_tol 1e-18: stalled at rounding, not the cap", rc == 1 and "stalled" in err
           and "below what this precision can reach" in err and "pressure_max_iterations" not in err, f"rc {rc}: {err[-400:]}")
    rc, err = run([heat, "--output", d + "/overflow", "-q", "model.amplitude=1e308", "run.steps=200"])
    s.case("1e308 initial values: overflow of the input, not 'lower run.dt'", rc == 1 and "overflows" in err
           and "Lower run.dt" not in err, f"rc {rc}: {err[-400:]}")

    # input that wrote files before it was refused: --resume of nothing, a long prefix, --stats
    bad_input("--resume of a missing file", [heat, "--resume", d + "/nope.h5"], ["--resume", "no such file"])
    bad_input("--resume of a directory", [heat, "--resume", d], ["--resume", "not a regular file"])
    bad_input("--resume into a new directory", [heat, "--resume"], ["--resume", "no checkpoint"])
    for key in ("output", "checkpoint"):
        bad_input(f"300-byte {key}.prefix", [heat, f'{key}.prefix="{"p" * 300}"'], [f"{key}.prefix", "255"])
        rc, err = run([heat, f'{key}.prefix="{"p" * 300}"', "--output", d + "/long_prefix", "-q"])
        s.case(f"300-byte {key}.prefix: a short message", len(err) < 600, f"{len(err)} bytes")
    bad_input("--stats into a missing folder", [heat, "--stats", "/nonexistent/dir/s.json"], ["--stats", "does not exist"])

    # item 7: paths stay inside output.directory; --output is not TOML text
    evil = os.path.join(d, "nest1", "nest2")
    os.makedirs(evil, exist_ok=True)
    bad_input("output.prefix ../../evil", [heat, 'output.prefix="../../evil"', "--output", evil + "/o"], ["output", "prefix"],
              out=evil + "/o")
    s.case("output.prefix ../../evil: nothing two levels up",
           not [f for f in os.listdir(d) if f.startswith("evil")], str(os.listdir(d)))
    bad_input("absolute checkpoint.prefix", [heat, f'checkpoint.prefix="{d}/abs"'], ["checkpoint", "prefix"])
    bad_input("checkpoint.prefix a/b", [heat, 'checkpoint.prefix="a/b"'], ["checkpoint", "prefix"])
    bad_input("same prefixes", [heat, 'checkpoint.prefix="snapshot"'], ["prefix"])
    quote = os.path.join(d, 'quo"te\\back')
    rc, err = run([heat, "--output", quote, "-q"])
    s.case("--output with a quote and a backslash", rc == 0 and os.path.exists(quote + "/snapshot_000000020.h5"),
           f"rc {rc}: {err[:300]}; {os.listdir(d)}")

    # item 8: every init_file problem is bad input (exit 2, nothing written)
    snap = os.path.join(d, "blowup0", "snapshot_000000000.h5")  # 512 x 512, valid
    text = write(os.path.join(d, "text.h5"), "not hdf5\n")
    init = ["model.init=\"file\""]
    bad_input("init_file missing", [heat] + init + [f'model.init_file="{d}/nope.h5"'], ["init_file", "no such file"])
    bad_input("init_file not HDF5", [heat] + init + [f'model.init_file="{text}"'], ["init_file", "not an HDF5 file"])
    bad_input("init_file wrong dataset", [heat] + init + [f'model.init_file="{snap}"', 'model.init_dataset="w"'],
              ["init_file", "no field 'w'"])
    bad_input("init_file wrong shape", [heat] + init + [f'model.init_file="{snap}"'], ["init_file", "shape"])
    # a NaN inside the file: a snapshot of a constant field with one value replaced, its checksum trailer cut off
    const = os.path.join(d, "const")
    rc, err = run([heat, "--output", const, "-q", "model.init=\"constant\"", "model.init_value=0.123456789",
                   "run.steps=1", "checkpoint.every=0"])
    raw = bytearray(open(const + "/snapshot_000000000.h5", "rb").read())
    import struct
    at = raw.find(struct.pack("<d", 0.123456789))
    s.case("NaN file prepared", rc == 0 and at > 0, f"rc {rc} {err[:200]}")
    raw[at:at + 8] = struct.pack("<d", float("nan"))
    nan_file = os.path.join(d, "nan.h5")
    open(nan_file, "wb").write(with_trailer(without_trailer(raw)))  # as a writer of NaN would leave it
    bad_input("init_file holds NaN", [heat] + init + [f'model.init_file="{nan_file}"'], ["init_file", "NaN"])
    # its trailer cut off and its global heap damaged (the 'kind' string's length): HDF5 crashed
    # in H5HG_read; a file without a trailer is refused before HDF5 opens it
    heap = bytearray(without_trailer(open(const + "/snapshot_000000000.h5", "rb").read()))
    heap[heap.find(b"GCOL") + 25] ^= 0x40
    heap_file = write(os.path.join(d, "heap.h5"), "")
    open(heap_file, "wb").write(heap)
    bad_input("init_file without trailer, global heap damaged", [heat] + init + [f'model.init_file="{heap_file}"'],
              ["init_file", heap_file, "checksum"])
    rc, err = run(["info", heap_file])
    s.case("info of a damaged file without trailer", rc == 2 and heap_file in err and not crashed(rc, err),
           f"rc {rc}: {err[:300]}")
    rc, err = run([heat, "--output", d + "/out_nan", "-q"] + init + [f'model.init_file="{nan_file}"'])
    s.case("init_file NaN is not a blow-up", "blew up" not in err and "lower run.dt" not in err.lower(), err[:300])
    bad_input("initial state Inf", [heat, "model.amplitude=1e308", "model.init_value=1e308"], ["initial state", "Inf"])

    # item 9: configs that are not files; diagnostics.csv damaged
    t0 = time.time()
    bad_input("config /dev/zero", ["/dev/zero"], ["/dev/zero", "not a regular file"], timeout=20)
    s.case("config /dev/zero: quick", time.time() - t0 < 10, f"{time.time() - t0:.1f} s")
    bad_input("config is a directory", [d], [d, "is a directory"])
    for kind, edit in (("damaged row", lambda t: t.replace("\n10,", "\n1x,", 1)), ("cut last row", lambda t: t[:-7])):
        out = os.path.join(d, "diag_" + kind.replace(" ", "_"))
        rc, err = run([heat, "--output", out, "-q", "run.steps=12", "checkpoint.every=12"])
        path = out + "/diagnostics.csv"
        text = open(path).read()
        open(path, "w").write(edit(text))
        rc, err = run([heat, "--output", out, "--resume", "-q", "run.steps=20"])
        rows = [r for r in open(path).read().splitlines()[1:]]
        ok = rc == 0 and "diagnostics.csv" in err and all(re.match(r"^\d+(,[^,]+)+$", r) for r in rows)
        s.case(f"diagnostics.csv {kind}: resume with a note", ok, f"rc {rc}: {err[:300]} rows {rows}")
        steps = [int(r.split(",")[0]) if r.split(",")[0].isdigit() else -1 for r in rows]
        s.case(f"diagnostics.csv {kind}: rows in order", steps == sorted(steps) and steps[-1] == 20, str(steps))


# ---------------------------------------------------------------- plugins: item 9


def part_plugins(s):
    d = s.scratch("plugins")
    if not FAKE_PLUGIN or not os.path.exists(FAKE_PLUGIN):
        raise SystemExit("SIMKIT_FAKE_PLUGIN is not set to a built plugin")
    whole = open(FAKE_PLUGIN, "rb").read()
    cuts = sorted({0, 1, 16, 63, 64, 200, 1000} | {int(len(whole) * f) for f in (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)}
                  | {len(whole) - 1})
    heat = write(os.path.join(d, "heat.toml"), HEAT.format(steps=2, n=16, out=1, ck=0, keep=1))
    for n in cuts:
        so = os.path.join(d, f"cut_{n}.so")
        open(so, "wb").write(whole[:n])
        rc, err = run(["models", "--plugin", so])
        s.case(f"plugin cut at {n} of {len(whole)} bytes", rc == 2 and so in err and not crashed(rc, err),
               f"rc {rc}: {err[:300]}")
    for name, data in (("text.so", b"hello, not a library\n"), ("zeros.so", bytes(4096)),
                       ("elf_header_only.so", whole[:64] + bytes(100))):
        so = os.path.join(d, name)
        open(so, "wb").write(data)
        rc, err = run(["models", "--plugin", so])
        s.case(f"plugin {name}", rc == 2 and so in err and not crashed(rc, err), f"rc {rc}: {err[:300]}")
    rc, err = run(["models", "--plugin", d])
    s.case("plugin is a directory", rc == 2 and not crashed(rc, err), f"rc {rc}: {err[:300]}")
    so = os.path.join(d, f"cut_{cuts[len(cuts) // 2]}.so")
    out = os.path.join(d, "out")
    rc, err = run([heat, "--plugin", so, "--output", out, "-q"])
    s.case("run with a cut plugin", rc == 2 and not os.path.exists(out), f"rc {rc}: {err[:300]}")
    # plugins that fail while loading (tests/apps/faulty_plugin.cpp): "terminate called", rc 134
    faulty = os.environ.get("SIMKIT_FAULTY_PLUGIN_DIR", "")
    if not faulty:
        print("faults.plugins: no SIMKIT_FAULTY_PLUGIN_DIR: the faulty plugin cases are skipped")
        return
    for n, what in ((1, "registration threw"), (2, "an int, 42"), (3, "a static constructor threw"), (4, "null")):
        so = os.path.join(faulty, f"libfaulty_plugin_{n}.so")
        rc, err = run(["models", "--plugin", so])
        s.case(f"faulty plugin {n} ({what}): simulate models", rc == 2 and so in err and what in err and not crashed(rc, err),
               f"rc {rc}: {err[:300]}")
        out = os.path.join(d, f"out_faulty_{n}")
        rc, err = run([heat, "--plugin", so, "--output", out, "-q"])
        s.case(f"faulty plugin {n} ({what}): --plugin", rc == 2 and so in err and not crashed(rc, err) and not os.path.exists(out),
               f"rc {rc}: {err[:300]}")
        listed = write(os.path.join(d, f"faulty_{n}.toml"), open(heat).read().replace("[run]\n", f'[run]\nplugins = ["{so}"]\n', 1))
        rc, err = run([listed, "--output", out, "-q"])
        s.case(f"faulty plugin {n} ({what}): [run] plugins", rc == 2 and so in err and not crashed(rc, err)
               and not os.path.exists(out), f"rc {rc}: {err[:300]}")


# ---------------------------------------------------------------- disk full: items 2, 3


def tmpfs_ok():
    if shutil.which("unshare") is None:
        return False
    p = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt && umount /mnt"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return p.returncode == 0


def part_disk_full(s):
    kw = dict(steps=60, n=48, out=5, ck=10, keep=2)
    cfg, ref = reference(s, "disk", HEAT, **kw)
    total = sum(os.path.getsize(os.path.join(s.root, "disk_ref", "out", f)) for f in os.listdir(s.root + "/disk_ref/out"))
    cases = []
    if PRELOAD and os.path.exists(PRELOAD):
        for frac in (0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.2):
            cases.append(("shim", int(total * frac) + RNG.randrange(0, 3000)))
    else:
        print("faults.disk_full: no SIMKIT_FAULT_PRELOAD: the injected-failure cases are skipped")
    if tmpfs_ok():
        for kib in (64, 128, 256, 512, 1024):
            cases.append(("tmpfs", kib))
    else:
        print("faults.disk_full: cannot mount a tmpfs here (not root, no unshare): the tmpfs cases are skipped")
    if not cases:
        raise SystemExit("faults.disk_full: neither the ENOSPC shim nor a tmpfs is available")
    for kind, size in cases:
        name = f"{kind}{size}"
        d = s.scratch("disk_" + name)
        out = d + "/out"
        if kind == "shim":
            rc, err = run([cfg, "--output", out, "-q"], env={"LD_PRELOAD": PRELOAD, "SIMKIT_FAULT_DISK_BYTES": str(size)})
        else:  # a small tmpfs in a mount namespace of its own; the output is copied out before it goes
            mnt = d + "/mnt"
            os.makedirs(mnt)
            script = (f"mount -t tmpfs -o size={size}k tmpfs '{mnt}' && '{SIMULATE}' '{cfg}' --output '{mnt}/out' -q "
                      f"2>'{d}/err'; rc=$?; cp -a '{mnt}/out' '{out}' 2>/dev/null; exit $rc")
            p = subprocess.run(["unshare", "-m", "sh", "-c", script], env=dict(os.environ, OMP_NUM_THREADS="2"),
                               timeout=120)
            rc, err = p.returncode, open(d + "/err").read() if os.path.exists(d + "/err") else ""
        full = rc != 0
        s.case(f"{name}: ends cleanly", not crashed(rc, err) and rc in (0, 1, 2), f"rc {rc}: {err[-400:]}")
        if full:
            s.case(f"{name}: says why", "error" in err and ("space" in err or "disk" in err or "cannot" in err),
                   f"rc {rc}: {err[-400:]}")
        if not os.path.isdir(out):
            continue
        check_outputs_valid(s, name, out)
        # space again: the resumed (or restarted) run writes every snapshot of the uninterrupted run
        if full:
            rc2, err2 = run([cfg, "--output", out, "--resume", "-q"])
            if rc2 == 2 and "no checkpoint" in err2:
                rc2, err2 = run([cfg, "--output", out, "-q"])
            s.case(f"{name}: resumed with space", rc2 == 0, f"rc {rc2}: {err2[-300:]}")
        same_as_reference(s, name, out, ref)
    # a resume rewrites diagnostics.csv (its rows up to the checkpoint): with the disk full
    # then, it was left empty (and the next resume lost the header and every earlier row)
    if PRELOAD and os.path.exists(PRELOAD):
        for budget in (0, 40, 300):
            out = s.scratch(f"disk_csv{budget}") + "/out"
            rc, err = run([cfg, "--output", out, "-q", "run.steps=20", "checkpoint.every=20", "output.every=1"])
            before = open(out + "/diagnostics.csv", "rb").read()
            rc, err = run([cfg, "--output", out, "--resume", "-q", "run.steps=30", "output.every=1"],
                          env={"LD_PRELOAD": PRELOAD, "SIMKIT_FAULT_DISK_BYTES": str(budget)})
            s.case(f"csv rewrite on a full disk ({budget} bytes): exit 1 with a message", rc == 1 and "diagnostics.csv" in err,
                   f"rc {rc}: {err[-300:]}")
            s.case(f"csv rewrite on a full disk ({budget} bytes): the file as it was", open(out + "/diagnostics.csv", "rb").read()
                   == before and not [f for f in os.listdir(out) if f.endswith(".tmp")], str(os.listdir(out)))
            rc, err = run([cfg, "--output", out, "--resume", "-q", "run.steps=30", "output.every=1"])
            rows = open(out + "/diagnostics.csv").read().splitlines()
            steps = [int(r.split(",")[0]) for r in rows[1:] if r.split(",")[0].isdigit()]
            s.case(f"csv rewrite on a full disk ({budget} bytes): resumed with space", rc == 0 and rows[0].startswith("step")
                   and steps == list(range(31)), f"rc {rc}: {rows[:2]} {steps}")


# ---------------------------------------------------------------- kill -9 and signals


def part_kill(s):
    kw = dict(steps=400, n=96, out=20, ck=40, keep=3)
    cfg, ref = reference(s, "kill", HEAT, **kw)
    t0 = time.time()
    run([cfg, "--output", s.scratch("kill_timing") + "/out", "-q"])
    wall = max(time.time() - t0, 0.2)
    for trial in range(int(os.environ.get("SIMKIT_FAULT_KILL_TRIALS", "24"))):
        d = s.scratch(f"kill{trial}")
        out = d + "/out"
        kills = 0
        for attempt in range(6):  # kill -9 at random moments until a run gets to the end
            have = outputs(out) if os.path.isdir(out) else []  # complete files only: a kill leaves *.tmp
            resume = ["--resume"] if any(f.startswith("checkpoint_") for f in have) else []
            p = subprocess.Popen([SIMULATE, cfg, "--output", out, "-q"] + resume, stderr=subprocess.PIPE,
                                 env=dict(os.environ, OMP_NUM_THREADS="2"))
            sig = None
            if attempt < 3:
                time.sleep(RNG.uniform(0.02, wall))
                sig = signal.SIGKILL if trial % 4 else RNG.choice([signal.SIGTERM, signal.SIGINT])
                if p.poll() is None:
                    p.send_signal(sig)
                    kills += 1
            err = p.communicate(timeout=120)[1].decode(errors="replace")
            rc = p.returncode
            if sig in (signal.SIGTERM, signal.SIGINT) and rc != 0:
                # 130/143 with a checkpoint; or, sent before the run has checked its input (and
                # written nothing), the signal's default action
                s.case(f"kill{trial}.{attempt}: {sig.name} exit code",
                       (rc == 128 + sig.value and "checkpoint" in err) or rc == -sig.value, f"rc {rc}: {err[-300:]}")
            elif rc not in (0, -9):
                s.case(f"kill{trial}.{attempt}: ends cleanly", False, f"rc {rc}: {err[-300:]}")
            check_outputs_valid(s, f"kill{trial}.{attempt}", out, killed=rc == -9)
            if rc == 0:
                break
        s.case(f"kill{trial}: finished", rc == 0, f"after {kills} kills, rc {rc}")
        same_as_reference(s, f"kill{trial} ({kills} kills)", out, ref)


# ---------------------------------------------------------------- damaged checkpoints, every model


def part_damage(s):
    models = (("heat", HEAT, dict(steps=30, n=24, out=10, ck=10, keep=3), 30),
              ("fluid", FLUID, dict(steps=12, n=16, out=4, ck=4, keep=3), 20),
              ("mcpi", MCPI, dict(steps=30, n=0, out=5, ck=10, keep=3), 20))
    for model, template, kw, flips in models:
        cfg, ref = reference(s, "damage_" + model, template, **kw)
        final = f"checkpoint_{kw['steps']:09d}.h5"
        # a run stopped after its second-to-last checkpoint's step: the newest checkpoint then gets damaged
        base = s.scratch(f"damage_{model}_base")
        rc, err = run([cfg, "--output", base + "/out", "-q", f"run.steps={kw['steps'] - kw['ck']}"])
        if rc != 0:
            raise SystemExit(f"{model}: base run failed: {err}")
        newest = sorted(f for f in os.listdir(base + "/out") if f.startswith("checkpoint_"))[-1]
        raw = open(os.path.join(base, "out", newest), "rb").read()
        damages = []
        for w in (model.encode(), b"float64", b"[run]", b"GCOL", b"TREE", b"FRHP", b"OHDR", b"SIMKSUM1"):
            at = raw.find(w)
            if at >= 0:
                damages.append((f"flip in '{w.decode()}'", ("flip", at + len(w) // 2)))
        for _ in range(flips):
            damages.append(("random flip", ("flip", RNG.randrange(len(raw)))))
        for frac in (0.0, 0.3, 0.9, 0.999):
            damages.append((f"cut to {frac:.0%}", ("cut", int(len(raw) * frac))))
        damages.append(("trailer cut off", ("cut", len(raw) - 16)))
        # without the trailer, HDF5 copied a global heap object by its stored size: SIGSEGV
        gcol = raw.find(b"GCOL")
        if gcol >= 0:
            damages.append(("trailer cut off, the 'kind' string's heap length changed", ("heap", gcol + 24 + 1)))
        for _ in range(flips // 2):
            damages.append(("trailer cut off and a random flip", ("cutflip", RNG.randrange(len(raw) - 16))))
        damages.append(("a snapshot in its place", ("snapshot", 0)))
        for label, (how, at) in damages:
            name = f"{model}: {label} @{at}"
            d = s.scratch("damage_case")
            shutil.copytree(base + "/out", d + "/out")
            path = os.path.join(d, "out", newest)
            data = bytearray(raw)
            if how == "flip":
                data[at] ^= 1 << RNG.randrange(8)
            elif how == "cut":
                data = data[:at]
            elif how == "heap":
                data = data[:-16]
                data[at] ^= 0x40
            elif how == "cutflip":
                data = data[:-16]
                data[at] ^= 1 << RNG.randrange(8)
            else:
                snaps = sorted(f for f in os.listdir(d + "/out") if f.startswith("snapshot_"))
                data = bytearray(open(os.path.join(d, "out", snaps[-1]), "rb").read()) if snaps else bytearray()
            open(path, "wb").write(bytes(data))
            _, irc, ierr = info(path)
            if label in ("trailer cut off", "flip in 'SIMKSUM1'"):  # every other byte intact: readable, flagged
                p = subprocess.run([SIMULATE, "info", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                s.case(name + ": info flags no checksum", p.returncode == 0 and b"checksum   none" in p.stdout,
                       f"rc {p.returncode}: {p.stderr[:300]}")
            elif how == "cutflip":  # the flip may hit bytes info does not read: no crash is the promise
                s.case(name + ": info does not crash", not crashed(irc, ierr) and irc in (0, 2), f"rc {irc}: {ierr[:300]}")
            else:
                s.case(name + ": info refuses", not crashed(irc, ierr) and (irc == 2 or how == "snapshot"),
                       f"rc {irc}: {ierr[:300]}")
            rc, err = run([cfg, "--output", d + "/out", "--resume"])
            ok = rc == 0 and "unusable" in err and "trying the one before it" in err
            s.case(name + ": resume falls back", ok and not crashed(rc, err), f"rc {rc}: {err[-500:]}")
            if rc == 0:
                got = info(os.path.join(d, "out", final))[0]
                s.case(name + ": final state as uninterrupted", got == ref.get(final), f"{got}\nvs\n{ref.get(final)}")


# ---------------------------------------------------------------- two writers: item 6


def part_writers(s):
    d = s.scratch("writers")
    cfg = write(os.path.join(d, "run.toml"), HEAT.format(steps=10 ** 7, n=128, out=50, ck=100, keep=2))
    out = d + "/out"
    a = subprocess.Popen([SIMULATE, cfg, "--output", out, "-q"], stderr=subprocess.PIPE,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    deadline = time.time() + 30
    while not os.path.exists(out + "/snapshot_000000000.h5") and time.time() < deadline and a.poll() is None:
        time.sleep(0.02)
    for i in range(3):
        rc, err = run([cfg, "--output", out, "-q"])
        s.case(f"second writer #{i} refused", rc == 2 and f"pid {a.pid}" in err and "in use" in err,
               f"rc {rc} (first still running: {a.poll() is None}): {err[:300]}")
    rc, err = run([cfg, "--output", out, "--resume", "-q"])
    s.case("a resume into a running run's directory refused", rc == 2 and "in use" in err, f"rc {rc}: {err[:300]}")
    a.send_signal(signal.SIGTERM)  # the first run is long: stop it, as a user would
    err = a.communicate(timeout=300)[1].decode(errors="replace")
    s.case("first writer unharmed", a.returncode == 143 and "stopped by SIGTERM" in err, f"rc {a.returncode}: {err[-300:]}")
    rows = open(out + "/diagnostics.csv").read().splitlines()[1:]
    steps = [int(r.split(",")[0]) if r.split(",")[0].isdigit() else -1 for r in rows]
    s.case("diagnostics.csv not interleaved", len(steps) > 1 and steps == list(range(0, 50 * len(steps), 50)), str(steps))
    check_outputs_valid(s, "writers", out)
    # a stale lock: its process is gone (kill -9), or the file names a pid that does not exist
    b = subprocess.Popen([SIMULATE, cfg, "--output", d + "/stale", "-q"], stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while not os.path.exists(d + "/stale/snapshot_000000000.h5") and time.time() < deadline and b.poll() is None:
        time.sleep(0.02)
    b.kill()
    b.wait()
    s.case("stale lock file left by kill -9", os.path.exists(d + "/stale/.simulate.lock"), "no lock file")
    rc, err = run([cfg, "--output", d + "/stale", "-q", "run.steps=20"])
    s.case("stale lock (process gone) does not block", rc == 0, f"rc {rc}: {err[:300]}")
    os.makedirs(d + "/bogus")
    write(d + "/bogus/.simulate.lock", "pid 999999 on nowhere\n")
    rc, err = run([cfg, "--output", d + "/bogus", "-q", "run.steps=20"])
    s.case("lock file of a dead pid does not block", rc == 0, f"rc {rc}: {err[:300]}")
    # a lock file that is a symbolic link: it was followed, and the file it names overwritten
    os.makedirs(d + "/link")
    victim = write(d + "/victim.txt", "precious\n")
    os.symlink(victim, d + "/link/.simulate.lock")
    rc, err = run([cfg, "--output", d + "/link", "-q", "run.steps=20"])
    s.case("lock file that is a symbolic link: refused", rc == 2 and "symbolic link" in err, f"rc {rc}: {err[:300]}")
    s.case("lock file that is a symbolic link: its target untouched", open(victim).read() == "precious\n",
           repr(open(victim).read()))
    s.case("lock file that is a symbolic link: nothing written", sorted(os.listdir(d + "/link")) == [".simulate.lock"],
           str(os.listdir(d + "/link")))
    # 8 runs started at once into one new directory: one runs, each other is told whose it is
    # (the write probe came before the lock: some said "cannot create or write")
    # a run that lasts until it is stopped: each of the others starts while it holds the lock
    cfg_long = write(os.path.join(d, "long.toml"), HEAT.format(steps=10 ** 8, n=64, out=10 ** 6, ck=0, keep=1))
    for trial in range(4):
        out = f"{d}/together{trial}"
        procs = [subprocess.Popen([SIMULATE, cfg_long, "--output", out, "-q"], stderr=subprocess.PIPE,
                                  env=dict(os.environ, OMP_NUM_THREADS="1")) for _ in range(8)]
        deadline = time.time() + 60
        while sum(p.poll() is not None for p in procs) < 7 and time.time() < deadline:
            time.sleep(0.05)
        running = [p for p in procs if p.poll() is None]
        for p in running:
            p.send_signal(signal.SIGTERM)
        results = [(p.wait(timeout=120), p.stderr.read().decode(errors="replace")) for p in procs]
        refused = [(p.returncode, e) for p, (_, e) in zip(procs, results) if p not in running]
        s.case(f"8 at once #{trial}: exactly one runs", len(running) == 1 and all(rc == 2 for rc, _ in refused),
               str([r[0] for r in results]))
        s.case(f"8 at once #{trial}: the others told it is in use",
               all(rc == 2 and "in use by another simulate (pid" in e for rc, e in refused),
               "; ".join(f"rc {rc}: {e.strip()[:160]}" for rc, e in refused if "in use" not in e)[:600])


# ---------------------------------------------------------------- one run per directory, and its identity


def part_ownership(s):
    d = s.scratch("ownership")
    cfg = write(os.path.join(d, "run.toml"), HEAT.format(steps=40, n=16, out=10, ck=30, keep=3))
    out = d + "/out"
    # run A: checkpoints at 30 and 40; then a fresh run B into the same directory, a checkpoint
    # every 2 steps, keep 2: pruning counted A's higher-numbered checkpoints first, B kept none
    rc, err = run([cfg, "--output", out, "-q"])
    s.case("run A", rc == 0, f"rc {rc}: {err[:300]}")
    a_final = info(out + "/checkpoint_000000040.h5")[0]
    rc, err = run([cfg, "--output", out, "-q", "run.steps=20", "checkpoint.every=2", "checkpoint.keep=2",
                   "model.alpha=0.5"])
    have = [f for f in outputs(out) if f.startswith("checkpoint_")]
    s.case("fresh run B keeps its own checkpoints", rc == 0 and have == ["checkpoint_000000018.h5", "checkpoint_000000020.h5"],
           f"rc {rc}: {have}: {err[:300]}")
    aside = [f for f in os.listdir(out) if f.startswith("previous_run_")] if os.path.isdir(out) else []
    s.case("run A's files moved aside, with a note", len(aside) == 1 and "moved them to" in err, f"{aside}: {err[:300]}")
    if aside:
        kept = info(os.path.join(out, aside[0], "checkpoint_000000040.h5"))[0]
        s.case("run A's checkpoint intact", kept is not None and kept == a_final, "changed or missing")
    # --resume continues B (20 -> 30), never A's checkpoint_40, even when A's is put back
    if aside:
        shutil.copy(os.path.join(out, aside[0], "checkpoint_000000040.h5"), out + "/checkpoint_000000040.h5")
    rc, err = run([cfg, "--output", out, "--resume", "run.steps=30", "checkpoint.every=2", "checkpoint.keep=2",
                   "model.alpha=0.5"])
    s.case("resume skips another run's checkpoint", rc == 0 and "another run" in err and "checkpoint_000000020" in err
           and "resumed from " + out + "/checkpoint_000000020.h5" in err, f"rc {rc}: {err[-500:]}")
    s.case("another run's checkpoint not pruned", os.path.exists(out + "/checkpoint_000000040.h5"), str(outputs(out)))
    os.remove(out + "/checkpoint_000000040.h5")
    # a changed physical parameter is refused on resume (nothing written), unless asked for
    before = sorted(os.listdir(out))
    rc, err = run([cfg, "--output", out, "--resume", "-q", "run.steps=40", "checkpoint.every=2", "checkpoint.keep=2"])
    s.case("resume with another model.alpha refused", rc == 2 and "alpha" in err and "--accept-changes" in err
           and not crashed(rc, err), f"rc {rc}: {err[:400]}")
    s.case("refused resume writes nothing", sorted(os.listdir(out)) == before, f"{before} -> {sorted(os.listdir(out))}")
    rc, err = run([cfg, "--output", out, "--resume", "-q", "run.steps=40", "checkpoint.every=2", "checkpoint.keep=2",
                   "--accept-changes"])
    s.case("resume with --accept-changes", rc == 0 and "alpha" in err, f"rc {rc}: {err[:300]}")
    # an explicit checkpoint of another run into this directory is refused
    if aside:
        rc, err = run([cfg, "--output", out, "--resume", os.path.join(out, aside[0], "checkpoint_000000030.h5"), "-q"])
        s.case("resume of another run's checkpoint into this directory refused", rc == 2 and "belongs to run" in err,
               f"rc {rc}: {err[:300]}")
    # run C, stopped by SIGTERM in a directory that holds A's later checkpoints: its own is kept
    c_out = d + "/c"
    rc, err = run([cfg, "--output", c_out, "-q"])  # checkpoints 30 and 40, renamed as if of steps C never reaches
    for n, f in enumerate(sorted(f for f in outputs(c_out) if f.startswith("checkpoint_"))):
        os.rename(os.path.join(c_out, f), os.path.join(c_out, f"checkpoint_{900000000 + n:09d}.h5"))
    c = subprocess.Popen([SIMULATE, cfg, "--output", c_out, "-q", "run.steps=100000000", "grid.cells=[96,96]",
                          "checkpoint.every=1000000", "checkpoint.keep=2", "output.every=1000000"], stderr=subprocess.PIPE,
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    deadline = time.time() + 30
    while not os.path.exists(c_out + "/snapshot_000000000.h5") and time.time() < deadline and c.poll() is None:
        time.sleep(0.02)
    time.sleep(0.3)
    c.send_signal(signal.SIGTERM)
    err = c.communicate(timeout=120)[1].decode(errors="replace")
    m = re.search(r"at step (\d+); writing a checkpoint", err)
    s.case("SIGTERM: its checkpoint kept", c.returncode == 143 and m is not None
           and os.path.exists(f"{c_out}/checkpoint_{int(m.group(1)):09d}.h5"), f"rc {c.returncode}: {err[-300:]}: {outputs(c_out)}")


# ---------------------------------------------------------------- an error on one rank under mpirun


def part_mpi(s):
    mpirun = shutil.which(os.environ.get("SIMKIT_MPIEXEC", "mpirun"))
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl_vader_single_copy_mechanism="none")
    d = s.scratch("mpi")
    heat = write(os.path.join(d, "heat.toml"), HEAT.format(steps=4, n=16, out=2, ck=4, keep=2))
    if mpirun:
        p = subprocess.run([mpirun, "-np", "2", SIMULATE, heat, "--dry-run"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=env, timeout=60)
    if not mpirun or b"ranks      2" not in p.stdout:
        print("faults.mpi: no mpirun, or simulate built without MPI: skipped")
        return
    bad = write(os.path.join(d, "bad.toml"), HEAT.format(steps=4, n=16, out=2, ck=4, keep=2) + "[run]\n")
    bogus = write(os.path.join(d, "bogus.toml"), HEAT.format(steps=4, n=16, out=2, ck=4, keep=2).replace(
        "steps = 4", "steps = 4\nbogus = 1"))
    big = "grid.cells=[12000,12000]"  # 550 MiB a field on each rank: more than a 1.5 GB address space holds
    cases = (  # one rank's input differs (MPMD): rank 1 reads a bad config, or runs out of memory
        ("rank 1 reads a config with an unknown key", [heat], [bogus], "bogus"),
        ("rank 0 reads a config with a duplicate section", [bad], [heat], "run"),
        ("rank 1 out of memory", [heat, big], ["bash", "-c", f"ulimit -v 1500000; exec '{SIMULATE}' '{heat}' '{big}' "
                                                             f"--output '{d}/out_rank_1_out_of_memory' -q"], "memory"),
    )
    for name, rank0, rank1, word in cases:
        out = os.path.join(d, "out_" + re.sub(r"\W", "_", name))
        r1 = rank1 if rank1[0] == "bash" else [SIMULATE] + rank1 + ["--output", out, "-q"]
        try:
            p = subprocess.run([mpirun, "-np", "1", SIMULATE] + rank0 + ["--output", out, "-q", ":", "-np", "1"] + r1,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=60)
            rc, err = p.returncode, p.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired:
            rc, err = -999, "timed out: the ranks hang"
        ours = [l for l in err.splitlines() if "error" in l and "simulate" in l or l.startswith("[rank") or ": error:" in l]
        s.case(f"{name}: exit 2, no hang", rc == 2, f"rc {rc}: {err[-400:]}")
        s.case(f"{name}: one message naming it", len(ours) == 1 and word in ours[0], str(ours)[:400])
        s.case(f"{name}: nothing written", not os.path.exists(out), f"{out} exists")


PARTS = {"mpi": part_mpi, "ownership": part_ownership, "errors": part_errors, "plugins": part_plugins, "disk_full": part_disk_full, "kill": part_kill,
         "damage": part_damage, "writers": part_writers}


def main():
    want = sys.argv[1:] or ["all"]
    parts = list(PARTS) if want == ["all"] else want
    root = tempfile.mkdtemp(prefix="simkit_faults_")
    total, failed = 0, 0
    try:
        for part in parts:
            s = Suite(part, root)
            t0 = time.time()
            PARTS[part](s)
            total += s.cases
            failed += len(s.failures)
            print(f"faults.{part}: {s.cases} cases tried, {len(s.failures)} failed ({time.time() - t0:.1f} s)", flush=True)
    finally:
        if os.environ.get("SIMKIT_FAULT_KEEP") != "1":
            shutil.rmtree(root, ignore_errors=True)
        else:
            print("scratch kept in", root)
    if len(parts) > 1:
        print(f"faults: {total} cases tried, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
