"""Tests of many small graphs on the GPU (fwsg_solve, kernels/batch/): the
same bytes as the CPU's fw_batch for every type, both semirings, with and
without predecessors, graphs of every size class (1 .. 300 in one batch,
rooms wider than their graphs), zero weights and negative arcs; a graph
with a negative cycle named and the others answered; a bad graph named with
nothing changed; and apsp's batch calls with device='gpu' equal to scipy's
floyd_warshall on each graph.  Prints PASS/FAIL lines.
Usage: python3 test_batch_gpu.py TOP"""

import ctypes
import os
import sys

TOP = sys.argv[1]
sys.path.insert(0, os.path.join(TOP, "python"))
import numpy as np  # noqa: E402
import scipy.sparse.csgraph as cg  # noqa: E402

import apsp  # noqa: E402
from apsp import _lib  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Checks  # noqa: E402

_c = Checks("python-batch-gpu: ")
check, raises = _c.check, _c.raises
rng = np.random.default_rng(17)
TYPES = {_lib.ST_INT32: np.int32, _lib.ST_FLOAT32: np.float32, _lib.ST_FLOAT64: np.float64}
NONE = {_lib.ST_INT32: _lib.ST_INF_I32, _lib.ST_FLOAT32: np.inf, _lib.ST_FLOAT64: np.inf}


def room(k, n, t, density, negative=False, zeros=False, cycle=False):
    """A graph of k vertices in an n x n room of type t: weights 1..100
    (negative arcs from potentials: no negative cycle, unless cycle), no
    arc the type's INF; the rest of the room holds 7s (left as they are)."""
    r = np.full((n, n), 7, dtype=TYPES[t])
    w = rng.integers(1, 101, (k, k)).astype(np.float64)
    if t != _lib.ST_INT32:
        w = w + rng.random((k, k)).round(3)
    if negative:
        h = rng.integers(0, 40, k).astype(np.float64)
        w = w + h[:, None] - h[None, :]
    if zeros:
        w[rng.random((k, k)) < 0.1] = 0
    w[rng.random((k, k)) > density] = np.inf
    if cycle and k >= 3:
        a, b, c = rng.choice(k, 3, replace=False)
        w[a, b], w[b, c], w[c, a] = 1, 1, -5
    np.fill_diagonal(w, 0)
    g = np.where(np.isinf(w), NONE[t], w).astype(TYPES[t])
    r[:k, :k] = g
    return r


def both(semiring, t, rooms, sizes, paths):
    """The CPU's fw_batch and the GPU's fwsg_solve on copies: (rc, dist,
    pred, cycle) of each, or the error's text."""
    out = []
    for gpu in (False, True):
        d = rooms.copy()
        p = np.full(d.shape, 55, dtype=np.int32) if paths else None
        cyc = np.full(d.shape[0], -7, dtype=np.int64)
        sz = None if sizes is None else np.ascontiguousarray(sizes, dtype=np.uint32)
        args = (semiring, t, d.shape[0], d.shape[1], sz.ctypes.data if sz is not None else None,
                d.ctypes.data, p.ctypes.data if paths else None)
        if gpu:
            msg = ctypes.create_string_buffer(256)
            rc = _lib.gpu().fwsg_solve(*args, 0, cyc.ctypes.data, msg, 256)
            text = msg.value.decode()
        else:
            err = _lib.Error()
            rc = _lib.cpu().fw_batch(*args, 0, cyc.ctypes.data, ctypes.byref(err))
            text = err.text()
        out.append((rc, d, p, cyc, text))
    return out


def same(a, b):
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def within(p, sizes):
    """The predecessors inside each graph's corner (the GPU writes -1 beyond)."""
    return [p[g, :k, :k] for g, k in enumerate(sizes)]


# every size class and its edges, in rooms of 300, mixed in one batch
SIZES = [1, 2, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 95, 96, 97, 127, 128, 129,
         200, 300]
for t, tname in ((_lib.ST_INT32, "int32"), (_lib.ST_FLOAT32, "float32"),
                 (_lib.ST_FLOAT64, "float64")):
    for kind, kw in (("weights 1..100", {}), ("negative arcs", dict(negative=True)),
                     ("zero weights", dict(zeros=True))):
        sizes = np.array(SIZES * 2)
        rooms = np.stack([room(k, 300, t, 0.15 if b % 2 else 0.6, **kw)
                          for b, k in enumerate(sizes)])
        for paths in (False, True):
            (rc0, d0, p0, c0, e0), (rc1, d1, p1, c1, e1) = both(_lib.FW_MINPLUS, t, rooms,
                                                                sizes, paths)
            ok = rc0 == 0 and rc1 == 0 and same(d0, d1) and same(c0, c1)
            if paths:
                ok = ok and all(same(a, b) for a, b in zip(within(p0, sizes),
                                                             within(p1, sizes)))
                ok = ok and all((p1[g, k:, :] == -1).all() and (p1[g, :, k:] == -1).all()
                                for g, k in enumerate(sizes))
            check("%s, %s, %s: 44 graphs of 1..300 vertices in rooms of 300, the CPU's bytes"
                  % (tname, kind, "with predecessors" if paths else "distances"), ok,
                  "%d %d %s" % (rc0, rc1, e1))

# one size filling its room (no sizes given), every register class
for k in (16, 24, 32, 40, 64, 100, 128):
    for t in (_lib.ST_INT32, _lib.ST_FLOAT64):
        rooms = np.stack([room(k, k, t, 0.2, negative=True) for _ in range(300)])
        (rc0, d0, p0, c0, _), (rc1, d1, p1, c1, e1) = both(_lib.FW_MINPLUS, t, rooms, None, True)
        check("300 graphs of %d vertices, %s, full rooms: the CPU's distances and predecessors"
              % (k, "int32" if t == _lib.ST_INT32 else "float64"),
              rc0 == rc1 == 0 and same(d0, d1) and same(p0, p1), e1)

# negative cycles: named by graph, the others answered
for t in (_lib.ST_INT32, _lib.ST_FLOAT64):
    sizes = np.array([10, 40, 20, 130, 33, 5, 70, 12])
    bad = {1, 3, 6}
    rooms = np.stack([room(k, 130, t, 0.5, negative=True, cycle=b in bad)
                      for b, k in enumerate(sizes)])
    (rc0, d0, p0, c0, _), (rc1, d1, p1, c1, e1) = both(_lib.FW_MINPLUS, t, rooms, sizes, True)
    good = [b for b in range(len(sizes)) if b not in bad]
    ok = rc0 == rc1 == len(bad) and set(np.flatnonzero(c1 >= 0)) == bad
    # the vertex named is on a negative cycle: the CPU's diagonal there is below 0
    ok = ok and all(d0[b, c1[b], c1[b]] < 0 for b in bad)
    ok = ok and all(same(d0[b], d1[b]) and same(p0[b, :k, :k], p1[b, :k, :k])
                    for b, k in zip(good, sizes[good]))
    check("%s: 3 graphs of 8 with a negative cycle named (a vertex on it), the 5 others the "
          "CPU's bytes" % ("int32" if t == _lib.ST_INT32 else "float64"), ok,
          "%d %d %s %s" % (rc0, rc1, c0, c1))

# widest paths
for t in (_lib.ST_FLOAT32, _lib.ST_FLOAT64):
    sizes = np.array(SIZES)
    rooms = np.stack([room(k, 300, t, 0.3) for k in sizes])
    rooms[np.isposinf(rooms)] = -np.inf
    (rc0, d0, p0, _, _), (rc1, d1, p1, _, e1) = both(_lib.FW_WIDEST, t, rooms, sizes, True)
    check("widest paths, %s, 22 graphs of 1..300: the CPU's widths and predecessors"
          % ("float32" if t == _lib.ST_FLOAT32 else "float64"),
          rc0 == rc1 == 0 and same(d0, d1)
          and all(same(a, b) for a, b in zip(within(p0, sizes), within(p1, sizes))), e1)

# a bad graph: named, every room as it was
rooms = np.stack([room(20, 20, _lib.ST_FLOAT64, 0.3) for _ in range(50)])
rooms[37, 3, 4] = np.nan
(_, _, _, _, e0), (rc1, d1, _, _, e1) = both(_lib.FW_MINPLUS, _lib.ST_FLOAT64, rooms, None, True)
check("a NaN in graph 37: refused by name, nothing changed",
      rc1 == -1 and "graph 37" in e1 and e0 == e1 and same(d1, rooms), e1)
rooms = np.stack([room(20, 20, _lib.ST_INT32, 0.3) for _ in range(10)])
rooms[4, 1, 2] = rooms[4, 2, 3] = 2 ** 29
(_, _, _, _, e0), (rc1, d1, _, _, e1) = both(_lib.FW_MINPLUS, _lib.ST_INT32, rooms, None, False)
check("int32 sums that could reach ST_INF_I32 in graph 4: refused by name, nothing changed",
      rc1 == -1 and "graph 4" in e1 and same(d1, rooms), e1)
sizes = np.array([20] * 9 + [21])
(_, _, _, _, e0), (rc1, d1, _, _, e1) = both(_lib.FW_MINPLUS, _lib.ST_INT32, rooms, sizes, False)
check("a graph larger than its room: refused by name", rc1 == -1 and "graph 9" in e1, e1)

# many chunks: 70,000 graphs of 32 vertices (several pinned chunks)
rooms = np.stack([room(32, 32, _lib.ST_FLOAT32, 0.15) for _ in range(500)])
rooms = np.tile(rooms, (140, 1, 1))
(rc0, d0, p0, _, _), (rc1, d1, p1, _, e1) = both(_lib.FW_MINPLUS, _lib.ST_FLOAT32, rooms, None,
                                                 True)
check("70,000 graphs of 32 vertices with predecessors (several chunks): the CPU's bytes",
      rc0 == rc1 == 0 and same(d0, d1) and same(p0, p1), e1)

# apsp's batch calls on the GPU: scipy's floyd_warshall on each graph
graphs = []
for b in range(200):
    k = int(rng.integers(1, 61))
    g = rng.integers(1, 101, (k, k)).astype(float)
    g[rng.random((k, k)) > 0.15] = 0
    graphs.append(g)
d, p = apsp.floyd_warshall(graphs, return_predecessors=True, device="gpu", padded=False)
ok = True
for b, g in enumerate(graphs):
    wd, wp = cg.floyd_warshall(g, return_predecessors=True)
    ok = ok and same(d[b], wd) and same(p[b], wp)
check("apsp.floyd_warshall, 200 graphs of 1..60 vertices, device='gpu': scipy's distances and "
      "predecessors of each", ok)
a = np.stack([rng.integers(1, 101, (32, 32)) * (rng.random((32, 32)) < 0.15)
              for _ in range(1000)]).astype(float)
got = apsp.floyd_warshall(a, device="gpu", directed=False, unreachable=-1)
want = np.stack([cg.floyd_warshall(g, directed=False) for g in a])
want[np.isinf(want)] = -1
check("apsp.floyd_warshall, (1000, 32, 32) undirected, unreachable=-1, device='gpu': scipy's",
      same(got, want))
# (B, N, N) arrays read on the device by scipy's rules (fwsg_solve_dense):
# every dtype it takes, directed or not, unweighted, tiny weights as no
# edge, NaN and infinities, negative arcs; the CPU's batch bytes and scipy's
for dt in (np.float64, np.float32, np.int64, np.int32):
    for n in (7, 32, 50, 128, 140):
        raw = rng.integers(-3, 101, (60, n, n)) * (rng.random((60, n, n)) < 0.2)
        raw = np.abs(raw) if n != 50 else raw  # negative arcs at n = 50 (some cycles)
        a = raw.astype(dt)
        if dt in (np.float64, np.float32):
            a[:, 1, 2], a[:, 2, 3], a[:, 3, 4] = np.nan, np.inf, 1e-9
        for kw in (dict(), dict(directed=False), dict(unweighted=True)):
            if n == 50 and kw.get("directed") is False:
                continue  # (every negative edge both ways is a cycle)
            for paths in (False, True):
                try:
                    got = apsp.floyd_warshall(a, device="gpu", return_predecessors=paths, **kw)
                    want = apsp.floyd_warshall(a, device="cpu", return_predecessors=paths, **kw)
                except apsp.NegativeCycleError as e:
                    try:
                        apsp.floyd_warshall(a, device="cpu", **kw)
                        ok = False
                    except apsp.NegativeCycleError as e2:
                        ok = list(e.graphs) == list(e2.graphs)
                    check("(60, %d, %d) %s %s: the same graphs with negative cycles as the CPU's"
                          % (n, n, np.dtype(dt).name, kw), ok)
                    continue
                if paths:
                    ok = same(got[0], want[0]) and same(got[1], want[1])
                else:
                    ok = same(got, want)
                s0 = cg.floyd_warshall(a[0].astype(np.float64), **kw)
                ok = ok and same((got[0] if paths else got)[0], s0)
                check("(60, %d, %d) %s %s%s, device='gpu' from the array as it is: the CPU's "
                      "batch and scipy's bytes" % (n, n, np.dtype(dt).name, kw,
                                                   " with predecessors" if paths else ""), ok)
a = (rng.integers(1, 101, (100, 20, 20)) * (rng.random((100, 20, 20)) < 0.2)).astype(np.int64)
got = apsp.floyd_warshall(a, device="gpu", unreachable=510, padded=False)
want = apsp.floyd_warshall(a, device="cpu", unreachable=510, padded=False)
check("int64 (100, 20, 20), unreachable=510, padded=False on the GPU: the CPU's list",
      len(got) == 100 and all(same(x, y) for x, y in zip(got, want)))
w = apsp.widest_paths(a.astype(float), device="gpu", return_predecessors=True)
wc = apsp.widest_paths(a.astype(float), device="cpu", return_predecessors=True)
check("widest_paths of a (100, 20, 20) array on the GPU (read there): the CPU's widths and "
      "predecessors", same(w[0], wc[0]) and same(w[1], wc[1]))

# lists of arcs made into rooms on the device (fwsg_solve_arcs): repeated
# arcs (the least kept), zero and negative weights, arcs out of order,
# undirected, predecessors, padded or not: the CPU's batch
for directed in (True, False):
    count = 3000
    sz = rng.integers(1, 61, count)
    sz[:5] = [1, 16, 32, 64, 60]
    first = np.concatenate(([0], np.cumsum(sz)[:-1]))
    gg = np.repeat(np.arange(count), sz * 2)
    uu = first[gg] + (rng.random(gg.size) * sz[gg]).astype(int)
    vv = first[gg] + (rng.random(gg.size) * sz[gg]).astype(int)
    ww = rng.integers(0, 20, gg.size).astype(float) - (0 if not directed else 0)
    if directed:  # negative arcs from potentials (no negative cycle)
        h = rng.integers(0, 6, sz.sum()).astype(float)
        ww = ww + 1 + h[uu] - h[vv]
    order = rng.permutation(gg.size)
    ei, ww = np.array([uu[order], vv[order]]), ww[order]
    bt = np.repeat(np.arange(count), sz)
    for paths in (False, True):
        got = apsp.batch_from_edges(ei, ww, bt, directed=directed, device="gpu",
                                    return_predecessors=paths, unreachable=-1)
        want = apsp.batch_from_edges(ei, ww, bt, directed=directed, device="cpu",
                                     return_predecessors=paths, unreachable=-1)
        ok = all(same(x, y) for x, y in zip(got, want)) if paths else same(got, want)
        check("batch_from_edges, 3000 graphs of 1..60, %s%s, arcs out of order and repeated, "
              "device='gpu' (rooms made there): the CPU's bytes"
              % ("directed with negative arcs" if directed else "undirected",
                 ", predecessors" if paths else ""), ok)
gl = apsp.batch_from_edges(ei, ww, bt, directed=False, device="gpu", padded=False)
wl = apsp.batch_from_edges(ei, ww, bt, directed=False, device="cpu", padded=False)
check("batch_from_edges padded=False on the GPU: the CPU's list",
      len(gl) == len(wl) and all(same(x, y) for x, y in zip(gl, wl)))
try:
    apsp.batch_from_edges(np.array([[0, 1, 2, 3], [1, 0, 3, 2]]), np.array([1.0, -2, 1, 1]),
                          np.array([0, 0, 1, 1]), device="gpu")
    check("batch_from_edges on the GPU, a negative cycle in graph 0: named", False)
except apsp.NegativeCycleError as e:
    check("batch_from_edges on the GPU, a negative cycle in graph 0: named",
          list(e.graphs) == [0], str(e))

ei = np.array([[0, 1, 3, 4], [1, 2, 4, 3]])
d = apsp.batch_from_edges(ei, np.array([2.0, 3.0, 1.0, 5.0]), np.array([0, 0, 0, 1, 1]),
                          device="gpu")
check("apsp.batch_from_edges, device='gpu'", d.shape == (2, 3, 3) and d[0, 0, 2] == 5
      and d[1, 1, 0] == 5 and np.isinf(d[1, 2, 2]))
# A batch without a single arc right after one with arcs of the same shape:
# each chunk's offsets of its arcs go up even where it has none (they were
# once left out, and the device read the last call's offsets and arcs).
for k in range(3):
    apsp.batch_from_edges(np.array([[0, 2], [1, 1]]), np.array([1.0, 2.0]), np.array([0, 0, 0, 1]),
                          device="gpu")
    d, p = apsp.batch_from_edges(np.zeros((2, 0), dtype=np.int64), np.zeros(0),
                                 np.array([0, 0, 0, 1]), return_predecessors=True, device="gpu")
    want = np.full((2, 3, 3), np.inf)
    want[0, [0, 1, 2], [0, 1, 2]] = want[1, 0, 0] = 0
    check("batch_from_edges on the GPU, no arcs after some (%d): no paths" % k,
          np.array_equal(d, want) and (p == -9999).all(), str(d))
w = apsp.widest_paths(a[:50], device="gpu")
check("apsp.widest_paths on a batch, device='gpu': the CPU's widths",
      same(w, apsp.widest_paths(a[:50], device="cpu")))
c = np.zeros((3, 4, 4))
c[1, 0, 1], c[1, 1, 0] = 1, -3
try:
    apsp.floyd_warshall(c, device="gpu")
    check("a batch with a negative cycle on the GPU: NegativeCycleError naming graph 1", False)
except apsp.NegativeCycleError as e:
    check("a batch with a negative cycle on the GPU: NegativeCycleError naming graph 1",
          list(e.graphs) == [1] and "graph 1" in str(e), str(e))

sys.exit(1 if _c.failed else 0)
