"""Many small graphs in one call: apsp.floyd_warshall on a (B, N, N) batch,
against scipy's floyd_warshall in a Python loop and apsp.floyd_warshall
called once a graph, on the same graphs in the same run (random directed
graphs, 15% arcs, whole weights 1..100; every answer compared with scipy's).
Prints a line a size: graphs a second for each, and the batch's
relaxations a second (N^3 a graph).  Results: bench/batch.md.

    python3 bench/batch.py [GRAPHS [SIZES]]   (default 20000 graphs; 16,32,64,128,256)

Then a mix of sizes as molecules come (10 to 60 vertices, about 1.1 bonds a
vertex, both ways), GRAPHS of them through apsp.batch_from_edges as PyG
holds them, padded output: graphs a second, whole call and the rounds alone
(each graph's own size, against every graph at the largest size).
"""
import os
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
import numpy as np  # noqa: E402
import scipy.sparse.csgraph as cg  # noqa: E402
import apsp  # noqa: E402
from molecules import molecules  # noqa: E402

count = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
sizes = [int(s) for s in (sys.argv[2] if len(sys.argv) > 2 else "16,32,64,128,256").split(",")]
rng = np.random.default_rng(1)
loop = 200


def _timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t

  # graphs timed one call each (scipy, and apsp alone)
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
        apsp.floyd_warshall(a[k], device="cpu")  # (the GPU's: bench/batch-gpu.py)
    call_rate = loop / (time.perf_counter() - t)
    best, bestp = 0.0, 0.0
    for _ in range(3):
        t = time.perf_counter()
        d = apsp.floyd_warshall(a, device="cpu")
        best = max(best, b / (time.perf_counter() - t))
        t = time.perf_counter()
        d2, p = apsp.floyd_warshall(a, return_predecessors=True, device="cpu")
        bestp = max(bestp, b / (time.perf_counter() - t))
    if not all(np.array_equal(d[k], want[k]) and np.array_equal(d2[k], want[k])
               for k in range(loop)):
        sys.exit("N = %d: the batch's distances differ from scipy's" % n)
    print("%5d %7d %12.0f %12.0f %12.0f %12.0f %10.3g" % (n, b, scipy_rate, call_rate, best,
                                                        bestp, best * n ** 3))

# A mix of sizes, PyG's layout: the whole call, and the rounds alone with
# each graph's size and at the largest.
from apsp import _batch  # noqa: E402
ei, batch, sizes_mix = molecules(count, rng)
whole = min(_timed(lambda: apsp.batch_from_edges(ei, None, batch, unreachable=-1,
                                                device="cpu"))
            for _ in range(3))
d = apsp.batch_from_edges(ei, None, batch, device="cpu")
d[np.isinf(d)] = np.inf

def _rounds(sizes):
    best = 1e9
    for _ in range(3):
        x = d.copy()
        best = min(best, _timed(lambda: _batch.solve(x, False, None, sizes=sizes)))
    return best


own, at_n = _rounds(sizes_mix), _rounds(None)
print("mix of 10..60 vertices, %d graphs, batch_from_edges: %.0f graphs/s; the rounds alone "
      "%.0f graphs/s (at the largest size: %.0f)" % (count, count / whole, count / own,
                                                    count / at_n))
