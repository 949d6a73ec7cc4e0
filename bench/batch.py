"""Many small graphs in one call: apsp.floyd_warshall on a (B, N, N) batch,
against scipy's floyd_warshall in a Python loop and apsp.floyd_warshall
called once a graph, on the same graphs in the same run (random directed
graphs, 15% arcs, whole weights 1..100; every answer compared with scipy's).
Prints a line a size: graphs a second for each, and the batch's
relaxations a second (N^3 a graph).  Results: bench/batch.md.

    python3 bench/batch.py [GRAPHS [SIZES]]   (default 20000 graphs; 16,32,64,128,256)
"""
import os
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
import numpy as np  # noqa: E402
import scipy.sparse.csgraph as cg  # noqa: E402
import apsp  # noqa: E402

count = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
sizes = [int(s) for s in (sys.argv[2] if len(sys.argv) > 2 else "16,32,64,128,256").split(",")]
rng = np.random.default_rng(1)
loop = 200  # graphs timed one call each (scipy, and apsp alone)
print("graphs a second; the batch of B graphs in one call (threads: every core, %d here)"
      % os.cpu_count())
print("%5s %7s %12s %12s %12s %12s %10s" % ("N", "B", "scipy loop", "apsp a call", "batch",
                                          "batch+pred", "relax/s"))
for n in sizes:
    b = max(loop, count * 32 * 32 // (n * n))  # (the same work at every size)
    a = np.where(rng.random((b, n, n)) < 0.15,
                 rng.integers(1, 101, (b, n, n)).astype(float), 0.0)
    t = time.perf_counter()
    want = [cg.floyd_warshall(a[k]) for k in range(loop)]
    scipy_rate = loop / (time.perf_counter() - t)
    t = time.perf_counter()
    for k in range(loop):
        apsp.floyd_warshall(a[k], device="cpu")
    call_rate = loop / (time.perf_counter() - t)
    best, bestp = 0.0, 0.0
    for _ in range(3):
        t = time.perf_counter()
        d = apsp.floyd_warshall(a)
        best = max(best, b / (time.perf_counter() - t))
        t = time.perf_counter()
        d2, p = apsp.floyd_warshall(a, return_predecessors=True)
        bestp = max(bestp, b / (time.perf_counter() - t))
    if not all(np.array_equal(d[k], want[k]) and np.array_equal(d2[k], want[k])
               for k in range(loop)):
        sys.exit("N = %d: the batch's distances differ from scipy's" % n)
    print("%5d %7d %12.0f %12.0f %12.0f %12.0f %10.3g" % (n, b, scipy_rate, call_rate, best,
                                                        bestp, best * n ** 3))
