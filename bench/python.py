"""The apsp package against scipy's floyd_warshall, float64, in one run.

    python3 bench/python.py [-n N] [-d DENSITY] [--device cpu|gpu]
                                 [--reps R] [--paths] [--no-scipy] [--dense]

A random graph (weights uniform in (0, 1), each edge with probability
DENSITY, seed 1; --dense: every edge), scipy's floyd_warshall once (unless
--no-scipy), then apsp.floyd_warshall R times on the device (the first
call makes the CUDA context; the others are the ones to read).  Prints the
wall times, n^3 relaxations a second, the GPU kernels' time where there is
one, and the largest difference from scipy's distances, relative."""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import numpy as np  # noqa: E402

import apsp  # noqa: E402
from apsp import _lib  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=2000)
    ap.add_argument("-d", type=float, default=0.15)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--paths", action="store_true")
    ap.add_argument("--no-scipy", action="store_true")
    ap.add_argument("--dense", action="store_true")
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    g = rng.random((a.n, a.n))
    if not a.dense:
        g[rng.random((a.n, a.n)) >= a.d] = 0
    relax = float(a.n) ** 3
    print("n = %d, density %s, float64, device %s, paths %s" %
          (a.n, "1 (dense)" if a.dense else a.d, a.device, "yes" if a.paths else "no"))
    ref = None
    if not a.no_scipy:
        from scipy.sparse.csgraph import floyd_warshall
        t = time.perf_counter()
        ref = floyd_warshall(g, return_predecessors=a.paths)
        t = time.perf_counter() - t
        ref = ref[0] if a.paths else ref
        print("scipy floyd_warshall: %.3f s (%.3g relaxations/s)" % (t, relax / t))
    for r in range(a.reps):
        t = time.perf_counter()
        got = apsp.floyd_warshall(g, return_predecessors=a.paths, device=a.device)
        t = time.perf_counter() - t
        got = got[0] if a.paths else got
        extra = ""
        if a.device == "gpu":
            import ctypes
            up, ker, down = ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
            _lib.gpu().fwm_times(ctypes.byref(up), ctypes.byref(ker), ctypes.byref(down))
            extra = (", up %.1f ms, kernels %.1f ms (%.3g relaxations/s), down %.1f ms" %
                     (up.value, ker.value, relax / (ker.value / 1e3), down.value))
        print("apsp floyd_warshall run %d: %.3f s wall (%.3g relaxations/s)%s" %
              (r + 1, t, relax / t, extra))
    if ref is not None:
        f = np.isfinite(ref)
        same = np.array_equal(np.isfinite(got), f)
        err = float(np.max(np.abs(got[f] - ref[f]) / (1 + np.abs(ref[f])))) if f.any() else 0.0
        print("largest difference from scipy, relative: %.3g (reachability %s)" %
              (err, "the same" if same else "DIFFERS"))


if __name__ == "__main__":
    main()
