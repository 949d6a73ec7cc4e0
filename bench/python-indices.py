"""A few rows of a road graph by apsp.shortest_path(indices=...) and by
scipy's shortest_path, in the same run: the sources searched (Dijkstra's
algorithm, lib/sparse/search.c) where the graph has no negative weight, not
ordered and eliminated.  Results: bench/python.md.

    python3 bench/python-indices.py [SIDE [REPS]]   (default 450: n = 202,500)
"""
import os
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "python"))
import numpy as np  # noqa: E402
import scipy.io  # noqa: E402
import scipy.sparse.csgraph as cg  # noqa: E402
import apsp  # noqa: E402

side = int(sys.argv[1]) if len(sys.argv) > 1 else 450
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 3
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "road.mtx")
    subprocess.run([os.path.join(TOP, "bin", "gengraph"), "--road", "%dx%d" % (side, side),
                    "-w", "1:1000", "-F", "mtx", "-o", path], check=True)
    g = scipy.io.mmread(path).tocsr()
print("road %dx%d: n = %d, %d arcs" % (side, side, g.shape[0], g.nnz))
for rep in range(reps):
    t0 = time.perf_counter()
    want = cg.shortest_path(g, indices=[0, 1])
    t1 = time.perf_counter()
    got = apsp.shortest_path(g, indices=[0, 1], device="cpu")
    t2 = time.perf_counter()
    print("scipy %.4f s   apsp %.4f s   ratio %.2f   same distances %s"
          % (t1 - t0, t2 - t1, (t2 - t1) / (t1 - t0), np.allclose(want, got)))
