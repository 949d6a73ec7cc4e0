"""Tests of a batch of graphs in one call (apsp.floyd_warshall on a (B, N, N)
array or a list, apsp.batch_from_edges): every graph's distances and
predecessors are scipy's floyd_warshall's on that graph alone, bit for bit;
padding, unreachable=, padded=False, negative cycles named by graph, bad
input refused.  Prints PASS/FAIL lines.  Usage: python3 test_batch.py TOP"""

import os
import sys

TOP = sys.argv[1]
sys.path.insert(0, os.path.join(TOP, "python"))
import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
import scipy.sparse.csgraph as cg  # noqa: E402

import apsp  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Checks  # noqa: E402

_c = Checks("python-batch: ")
check, raises = _c.check, _c.raises
rng = np.random.default_rng(7)


def graph(n, density=0.2, negative=False, whole=True):
    g = rng.random((n, n)) * 10
    if whole:
        g = np.floor(g) + 1
    if negative:  # from potentials: no negative cycle
        h = rng.integers(0, 5, n).astype(float)
        g = g + h[:, None] - h[None, :]
        g[g == 0] = 0.5
    g[rng.random((n, n)) > density] = 0
    return g


def scipy_each(graphs, **kw):
    return [cg.floyd_warshall(g, return_predecessors=True, **kw) for g in graphs]


def equal(a, b):
    return a.shape == b.shape and np.array_equal(a, b)


# (B, N, N) arrays: whole, fractional and negative weights, directed or
# not, unweighted, 1 and 2 threads.
for name, kw, gk in [("whole weights", {}, {}),
                     ("fractional weights", {}, dict(whole=False)),
                     ("negative arcs", {}, dict(negative=True)),
                     ("undirected", dict(directed=False), {}),
                     ("unweighted", dict(unweighted=True), dict(whole=False))]:
    a = np.stack([graph(20, **gk) for _ in range(60)])
    a0 = a.copy()
    want = scipy_each(a, **kw)
    for threads in (1, 2):
        d, p = apsp.floyd_warshall(a, return_predecessors=True, threads=threads, **kw)
        ok = d.shape == a.shape and p.dtype == np.int32
        ok = ok and all(equal(d[b], want[b][0]) and equal(p[b], want[b][1]) for b in range(60))
        check("(60, 20, 20), %s, %d thread%s: scipy's distances and predecessors, each graph"
              % (name, threads, "s" if threads > 1 else ""), ok)
    d = apsp.shortest_path(a, **kw)
    check("shortest_path on a batch, %s: the same distances" % name,
          all(equal(d[b], want[b][0]) for b in range(60)))
    check("%s: the batch given is left as it was" % name, equal(a, a0))

# A list of graphs of other sizes, dense, masked and scipy.sparse (explicit
# zeros are edges there), padded to the largest or each its own.
sizes = [1, 5, 17, 3, 30, 12]
gl = [graph(n) for n in sizes]
gl[1] = sp.csr_matrix(gl[1])
gl[3] = np.ma.masked_values(gl[3], 0)
zero = sp.csr_matrix(([0.0, 2.0], ([0, 1], [1, 2])), shape=(4, 4))
gl.append(zero)
want = scipy_each(gl)
d, p = apsp.floyd_warshall(gl, return_predecessors=True)
n = max(m.shape[0] for m in gl)
ok = d.shape == (len(gl), n, n)
for b, g in enumerate(gl):
    k = g.shape[0]
    ok = ok and equal(d[b, :k, :k], want[b][0]) and equal(p[b, :k, :k], want[b][1])
    ok = ok and np.all(np.isinf(d[b, k:, :])) and np.all(np.isinf(d[b, :, k:]))
    ok = ok and np.all(p[b, k:, :] == -9999) and np.all(p[b, :, k:] == -9999)
check("a list of 7 graphs (1..30 vertices; dense, masked, sparse with an explicit zero): "
      "scipy's answers, padded with unreachable", ok)
dl, pl = apsp.floyd_warshall(gl, return_predecessors=True, padded=False)
check("padded=False: a list of each graph's own arrays",
      len(dl) == len(gl) and all(equal(dl[b], want[b][0]) and equal(pl[b], want[b][1])
                                 for b in range(len(gl))))
d = apsp.floyd_warshall(gl, unreachable=-1)
ok = True
for b, g in enumerate(gl):
    k = g.shape[0]
    w = want[b][0].copy()
    w[np.isinf(w)] = -1
    ok = ok and equal(d[b, :k, :k], w) and np.all(d[b, k:, :] == -1) and np.all(d[b, :, k:] == -1)
check("unreachable=-1 (DGL's): unreachable pairs and the padding -1", ok)
d = apsp.floyd_warshall(gl, unreachable=510)
check("unreachable=510 (Graphormer's)", not np.isinf(d).any() and (d == 510).any())

# Negative cycles: the first graph with one named, all listed.
a = np.stack([graph(6) for _ in range(5)])
a[2, 0, 1], a[2, 1, 0] = -3, 1
a[4, 3, 4], a[4, 4, 3] = -2, 1
try:
    apsp.floyd_warshall(a)
    got = None
except apsp.NegativeCycleError as e:
    got = e
check("a negative cycle in graphs 2 and 4: NegativeCycleError names graph 2, .graphs both",
      got is not None and "graph 2" in str(got) and list(got.graphs) == [2, 4],
      str(got))
check("NegativeCycleError of a batch is scipy's class",
      isinstance(got, cg.NegativeCycleError))

# Refused: bad shapes, options for one graph, the GPU.
raises("a (B, N, M) array is refused", ValueError,
       lambda: apsp.floyd_warshall(np.zeros((2, 3, 4))), "(B, N, N)")
raises("indices with a batch are refused", ValueError,
       lambda: apsp.shortest_path(np.zeros((2, 3, 3)), indices=[0]), "batch")
raises("padded= for one graph is refused", TypeError,
       lambda: apsp.floyd_warshall(np.zeros((3, 3)), padded=False), "batch")
if apsp._engine.has_gpu():
    check("device='gpu' with a batch: answered on the GPU (tests/python/test_batch_gpu.py)",
          equal(apsp.floyd_warshall(np.zeros((2, 3, 3)), device="gpu"),
                np.where(np.eye(3, dtype=bool), 0.0, np.inf)[None].repeat(2, 0)))
else:
    raises("device='gpu' with a batch and no GPU is refused, saying why", RuntimeError,
           lambda: apsp.floyd_warshall(np.zeros((2, 3, 3)), device="gpu"), "device='gpu'")
check("a nested list of numbers is one graph, as scipy reads it",
      equal(apsp.floyd_warshall([[0, 1], [1, 0]]), cg.floyd_warshall([[0, 1], [1, 0]])))

# PyG's and DGL's layout: arcs numbered across the batch, a graph id a vertex.
sizes = [4, 1, 7, 3]
batch = np.repeat(np.arange(len(sizes)), sizes)
first = np.concatenate(([0], np.cumsum(sizes)[:-1]))
us, vs, ws = [], [], []
for b, k in enumerate(sizes):
    for _ in range(2 * k):
        us.append(first[b] + rng.integers(0, k)), vs.append(first[b] + rng.integers(0, k))
        ws.append(float(rng.integers(0, 9)))
# the reference: each graph as a scipy.sparse matrix of its arcs (zero too,
# the least of repeats, loops ignored)
refs = []
for b, k in enumerate(sizes):
    sel = batch[np.array(us)] == b
    u = np.array(us)[sel] - first[b]
    v = np.array(vs)[sel] - first[b]
    w = np.array(ws)[sel]
    keep = u != v
    dense = np.full((k, k), np.inf)
    for x, y, z in zip(u[keep], v[keep], w[keep]):
        dense[x, y] = min(dense[x, y], z)
    rows, cols = np.nonzero(np.isfinite(dense))
    refs.append(cg.floyd_warshall(sp.csr_matrix((dense[rows, cols], (rows, cols)), shape=(k, k)),
                                  return_predecessors=True))
ei = np.array([us, vs])
d, p = apsp.batch_from_edges(ei, ws, batch, return_predecessors=True)
ok = d.shape == (4, 7, 7)
for b, k in enumerate(sizes):
    ok = ok and equal(d[b, :k, :k], refs[b][0]) and equal(p[b, :k, :k], refs[b][1])
check("batch_from_edges: 4 graphs of 1..7 vertices, zero weights, repeats and loops: scipy's "
      "answers on each graph's arcs", ok)
d1 = apsp.batch_from_edges(ei, None, batch, directed=False, padded=False)
ok = len(d1) == 4
for b, k in enumerate(sizes):
    sel = batch[np.array(us)] == b
    u, v = np.array(us)[sel] - first[b], np.array(vs)[sel] - first[b]
    keep = u != v
    m = sp.csr_matrix((np.ones(keep.sum()), (u[keep], v[keep])), shape=(k, k))
    ok = ok and equal(d1[b], cg.floyd_warshall(m, directed=False, unweighted=True))
check("batch_from_edges: unit weights, undirected, padded=False", ok)
raises("batch_from_edges: an arc across two graphs is refused", ValueError,
       lambda: apsp.batch_from_edges(np.array([[0], [5]]), None, batch), "joins graphs 0 and 2")
raises("batch_from_edges: a NaN weight is refused", ValueError,
       lambda: apsp.batch_from_edges(np.array([[0], [1]]), [np.nan], batch), "NaN")
raises("batch_from_edges: graph ids out of order are refused", ValueError,
       lambda: apsp.batch_from_edges(np.array([[0], [1]]), None, [1, 0]), "in turn")
sys.exit(1 if _c.failed else 0)
