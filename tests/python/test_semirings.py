"""Tests of apsp.widest_paths and apsp.reachability on one graph and on
batches: widths against a widest-first search from every vertex (written
here: networkx and python-igraph have none), every predecessor chain a
path as wide as its width, reachability against scipy's searches; scipy's
input rules.  Prints PASS/FAIL lines.  Usage: python3 test_semirings.py TOP"""

import heapq
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

_c = Checks("python-semirings: ")
check, raises = _c.check, _c.raises
rng = np.random.default_rng(11)


def arcs_of(g, directed):
    """The graph's arcs {(u, v): weight} by scipy's rules (the same the
    package reads: dense 0/NaN/inf none, sparse entries all; undirected the
    smaller of the two ways)."""
    w = {}
    if sp.issparse(g):
        c = g.tocoo()
        items = [(int(u), int(v), float(x)) for u, v, x in zip(c.row, c.col, c.data)
                 if np.isfinite(x)]
    else:
        a = np.asarray(g, dtype=float)
        items = [(u, v, a[u, v]) for u, v in zip(*np.nonzero(np.isfinite(a) & (np.abs(a) > 1e-8)))]
    for u, v, x in items:
        if u == v:
            continue
        for key in ([(u, v)] if directed else [(u, v), (v, u)]):
            w[key] = min(w.get(key, np.inf), x)
    return w


def widest_oracle(n, w):
    """Widest-first search (a Dijkstra of max and min) from every vertex."""
    out = np.full((n, n), -np.inf)
    adj = [[] for _ in range(n)]
    for (u, v), x in w.items():
        adj[u].append((v, x))
    for s in range(n):
        best = out[s]
        best[s] = np.inf
        heap = [(-np.inf, s)]
        done = set()
        while heap:
            negw, u = heapq.heappop(heap)
            if u in done:
                continue
            done.add(u)
            for v, x in adj[u]:
                y = min(-negw, x)
                if y > best[v]:
                    best[v] = y
                    heapq.heappush(heap, (-y, v))
    return out


def chains_ok(width, pred, w):
    n = width.shape[0]
    for s in range(n):
        for t in range(n):
            if s == t or width[s, t] == -np.inf:
                if pred[s, t] != -9999:
                    return False
                continue
            v, narrow, steps = t, np.inf, 0
            while v != s and steps <= n:
                u = pred[s, v]
                if (u, v) not in w:
                    return False
                narrow, v, steps = min(narrow, w[(u, v)]), u, steps + 1
            if v != s or narrow != width[s, t]:
                return False
    return True


def graph(n, density=0.25, ties=True):
    g = rng.integers(1, 5, (n, n)).astype(float) if ties else rng.random((n, n)) * 10 - 2
    g[rng.random((n, n)) > density] = 0
    return g


# One graph at a time: dense, sparse with an explicit zero, negative
# weights, undirected; ties everywhere (weights 1..4).
ok_w = ok_p = True
cases = []
for trial in range(40):
    n = int(rng.integers(1, 30))
    directed = trial % 3 != 0
    g = graph(n, ties=trial % 4 != 1)
    if trial % 5 == 2:
        g = sp.csr_matrix(g)
        if n > 2:
            g = g.tolil()
            g[0, 1] = 0.0  # an explicit zero: an edge of width 0
            g[1, 0] = 0.0
            g = g.tocsr()
    cases.append((g, directed))
    w = arcs_of(g, directed)
    width, pred = apsp.widest_paths(g, directed=directed, return_predecessors=True)
    ok_w = ok_w and np.array_equal(width, widest_oracle(n, w))
    ok_p = ok_p and chains_ok(width, pred, w)
check("widest_paths: 40 graphs (dense, sparse with explicit zeros, negative weights, "
      "undirected, ties): a widest-first search's widths", ok_w)
check("widest_paths: every predecessor chain a path back to its source, as wide as the width",
      ok_p)
check("widest_paths without predecessors: the same widths",
      all(np.array_equal(apsp.widest_paths(g, directed=d),
                         apsp.widest_paths(g, directed=d, return_predecessors=True)[0])
          for g, d in cases[:10]))

# A batch: a (B, N, N) array and a list of other sizes, as each graph alone.
a = np.stack([graph(17) for _ in range(30)])
got, gp = apsp.widest_paths(a, return_predecessors=True)
check("widest_paths on a (30, 17, 17) batch: each graph's widths and predecessors alone",
      all(np.array_equal(got[b], apsp.widest_paths(a[b])) and
          np.array_equal(gp[b], apsp.widest_paths(a[b], return_predecessors=True)[1])
          for b in range(30)))
gl = [graph(k) for k in (3, 9, 1, 14)]
got = apsp.widest_paths(gl, unreachable=0.0)
ok = got.shape == (4, 14, 14)
for b, g in enumerate(gl):
    k = g.shape[0]
    want = widest_oracle(k, arcs_of(g, True))
    want[want == -np.inf] = 0
    ok = ok and np.array_equal(got[b, :k, :k], want) and np.all(got[b, k:, :] == 0)
check("widest_paths on a list of 4 graphs (1..14 vertices), unreachable=0: padded, each "
      "graph's widths", ok)
gl2 = apsp.widest_paths(gl, padded=False)
check("widest_paths padded=False: each graph's own array",
      [x.shape for x in gl2] == [(3, 3), (9, 9), (1, 1), (14, 14)])

# Reachability against scipy's searches, one graph and batches.
ok = True
for g, directed in cases:
    want = np.isfinite(cg.shortest_path(abs(g), directed=directed, unweighted=True))
    ok = ok and np.array_equal(apsp.reachability(g, directed=directed), want)
check("reachability: the 40 graphs, scipy's unweighted searches (finite: reached)", ok)
big = sp.random(300, 300, density=0.004, random_state=3, format="csr")
check("reachability: a sparse graph of 300 vertices (rows of five words), scipy's",
      np.array_equal(apsp.reachability(big), np.isfinite(cg.shortest_path(big, unweighted=True))))
r = apsp.reachability(gl)
ok = r.dtype == np.bool_ and r.shape == (4, 14, 14)
for b, g in enumerate(gl):
    k = g.shape[0]
    ok = ok and np.array_equal(r[b, :k, :k], np.isfinite(cg.shortest_path(g, unweighted=True)))
    ok = ok and not r[b, k:, :].any() and not r[b, :, k:].any()
check("reachability on a list of graphs: bool (B, N, N), each graph's, the padding False", ok)
raises("widest_paths: a NaN in a sparse matrix is refused", ValueError,
       lambda: apsp.widest_paths(sp.csr_matrix(np.array([[0, np.nan], [1, 0]]))), "NaN")
sys.exit(1 if _c.failed else 0)
