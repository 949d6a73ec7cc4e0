"""Many small graphs on one GPU (fwsg_solve, kernels/batch/), in process
from numpy, against the CPU's batch and scipy's floyd_warshall in a Python
loop, in the same run: random directed graphs, 15% arcs, whole weights
1..100 (a set of distinct graphs repeated to the batch's size).  For each:
the whole call apsp.floyd_warshall(a, device=...) (reading the graphs by
scipy's rules, the copies to and from the device, the padding), and
fwsg_solve's own share: its whole call and its kernels (CUDA events), with
the relaxations a second of the kernels (each graph's size cubed).  Every
answer is compared with scipy's on the distinct graphs.  Results:
bench/batch.md.

    python3 bench/batch-gpu.py [SCALE]    (SCALE 1: the issue's sizes,
                                           1,000,000 graphs of 32; 0.1 a tenth)
"""
import ctypes
import os
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
import numpy as np  # noqa: E402
import scipy.sparse.csgraph as cg  # noqa: E402
import apsp  # noqa: E402
from molecules import molecules  # noqa: E402
from apsp import _batch, _lib  # noqa: E402

scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
rng = np.random.default_rng(1)
DISTINCT = 2000
gpu = _lib.gpu()
if gpu is None:
    sys.exit("no GPU: %s" % _lib.gpu_error())


def times():
    k, t = ctypes.c_double(), ctypes.c_double()
    gpu.fwsg_times(ctypes.byref(k), ctypes.byref(t))
    return k.value / 1e3, t.value / 1e3


def graphs(b, n, dtype=float):
    one = np.where(rng.random((DISTINCT, n, n)) < 0.15,
                   rng.integers(1, 101, (DISTINCT, n, n)), 0).astype(dtype)
    return one, np.tile(one, (b // DISTINCT, 1, 1))


def best_of(k, f):
    best = None
    for _ in range(k):
        t = time.perf_counter()
        got = f()
        e = time.perf_counter() - t
        best = e if best is None or e < best else best
    return best, got


print("# %s; %d host cores" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                              os.cpu_count()))
print("%-34s %9s %9s %9s %9s %12s %12s" % ("batch", "graphs", "call s", "solve s", "kernel s",
                                           "graphs/s", "relax/s"))
for label, b, n, paths in (("32 vertices", 1000000, 32, False),
                           ("32 vertices, predecessors", 1000000, 32, True),
                           ("128 vertices", 100000, 128, False)):
    b = max(DISTINCT, int(b * scale) // DISTINCT * DISTINCT)
    one, a = graphs(b, n)
    want = [cg.floyd_warshall(one[k]) for k in range(200)]
    for device in ("gpu", "cpu"):
        if device == "cpu":  # the CPU's on a tenth
            b2 = b // 10
            a2 = a[:b2]
        else:
            b2, a2 = b, a
        call, got = best_of(2, lambda: apsp.floyd_warshall(a2, device=device,
                                                           return_predecessors=paths))
        d = got[0] if paths else got
        if not all(np.array_equal(d[k], want[k]) for k in range(200)):
            sys.exit("%s on the %s: distances differ from scipy's" % (label, device))
        kern, solve = times() if device == "gpu" else (float("nan"), float("nan"))
        print("%-34s %9d %9.3f %9.3f %9.4f %12.0f %12.3g" % (
            "%s, %s" % (label, device), b2, call, solve, kern, b2 / call,
            b2 * n ** 3 / kern if device == "gpu" else b2 * n ** 3 / call))
        del got, d
    t = time.perf_counter()
    for k in range(200):
        cg.floyd_warshall(one[k])
    print("%-34s %9d %9.3f %9s %9s %12.0f" % ("%s, scipy in a loop (200)" % label, 200,
                                             time.perf_counter() - t, "", "",
                                             200 / (time.perf_counter() - t)))
    del a

# The kernels alone on each type: fwsg_solve on rooms prepared as the
# library takes them (no edge: the type's INF).
for tname, t, dt, none in (("int32", _lib.ST_INT32, np.int32, _lib.ST_INF_I32),
                           ("float32", _lib.ST_FLOAT32, np.float32, np.inf),
                           ("float64", _lib.ST_FLOAT64, np.float64, np.inf)):
    b, n = max(DISTINCT, int(1000000 * scale) // DISTINCT * DISTINCT), 32
    one, _ = graphs(DISTINCT, n)
    one[one == 0] = np.inf
    one = np.where(np.isinf(one), none, one).astype(dt)
    rooms = np.tile(one, (b // DISTINCT, 1, 1))
    cyc = np.empty(b, dtype=np.int64)
    msg = ctypes.create_string_buffer(256)
    call, rc = best_of(3, lambda: gpu.fwsg_solve(_lib.FW_MINPLUS, t, b, n, None,
                                                 rooms.ctypes.data, None, 0, cyc.ctypes.data,
                                                 msg, 256))
    if rc != 0:
        sys.exit("fwsg_solve: %s" % msg.value.decode())
    kern, solve = times()
    print("%-34s %9d %9.3f %9.3f %9.4f %12.0f %12.3g" % (
        "fwsg_solve %s, 32 vertices" % tname, b, call, solve, kern, b / call,
        b * n ** 3 / kern))
    del rooms

# A mix of sizes as molecules come (10 to 60 vertices, about 1.1 bonds a
# vertex, both ways), PyG's layout, padded output with unreachable -1.
count = int(1000000 * scale)
ei, batch, sizes_mix = molecules(count, rng)
for device in ("gpu",):
    call, d = best_of(2, lambda: apsp.batch_from_edges(ei, None, batch, unreachable=-1,
                                                       device=device))
    kern, solve = times() if device == "gpu" else (float("nan"), float("nan"))
    work = float(np.sum(sizes_mix.astype(np.float64) ** 3))
    print("%-34s %9d %9.3f %9.3f %9.4f %12.0f %12.3g" % (
        "mix 10..60, batch_from_edges, %s" % device, count, call, solve, kern, count / call,
        work / kern if device == "gpu" else work / call))
    del d
