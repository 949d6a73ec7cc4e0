"""Tests of the apsp package (python/apsp) against scipy.sparse.csgraph:
the same distances (bit for bit where weights are whole, within 1e-12
otherwise), the same predecessors where weights are whole, scipy's input
conventions, the errors, and stats() against its definitions and networkx.
Prints PASS/FAIL/SKIP lines.  Usage: python3 test_apsp.py TOP [DEVICE]"""

import os
import sys

TOP = sys.argv[1]
DEVICE = sys.argv[2] if len(sys.argv) > 2 else "cpu"
sys.path.insert(0, os.path.join(TOP, "python"))
import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
import scipy.sparse.csgraph as cg  # noqa: E402

import apsp  # noqa: E402
from apsp import _memory  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Checks  # noqa: E402

_c = Checks("python-apsp(%s): " % DEVICE)
check, raises = _c.check, _c.raises


def random_graph(rng, n, density=0.15, negative=False, whole=False):
    g = rng.random((n, n)) * 10
    if whole:
        g = np.floor(g)
    if negative:  # from potentials: no negative cycle
        h = rng.integers(0, 5, n).astype(float)
        g = g + h[:, None] - h[None, :]
    g[rng.random((n, n)) > density] = 0
    return g


def same(got, ref, whole):
    if got.shape != ref.shape or not np.array_equal(np.isinf(got), np.isinf(ref)):
        return False
    f = np.isfinite(ref)
    if whole:
        return np.array_equal(got[f], ref[f])
    return bool(np.all(np.abs(got[f] - ref[f]) <= 1e-12 * (1 + np.abs(ref[f]))))


def fw(g, **kw):
    return apsp.floyd_warshall(g, device=DEVICE, **kw)


rng = np.random.default_rng(7)
# distances and predecessors against scipy's floyd_warshall
for whole in (True, False):
    for negative in (False, True):
        ok_d = ok_p = ok_c = True
        for n in (1, 2, 3, 5, 17, 64, 65, 127, 200):
            for directed in (True, False):
                g = random_graph(rng, n, negative=negative and directed, whole=whole)
                rd, rp = cg.floyd_warshall(g, directed=directed, return_predecessors=True)
                d, p = fw(g, directed=directed, return_predecessors=True)
                ok_d &= same(d, rd, whole) and d.dtype == np.float64
                ok_p &= p.dtype == np.int32 and (not whole or np.array_equal(p, rp))
                ok_c &= same(cg.construct_dist_matrix(g, p, directed=directed), rd, False)
        what = "%s weights%s" % ("whole" if whole else "fractional",
                                 ", negative arcs" if negative else "")
        check("distances equal to scipy's (%s; n = 1 to 200, directed and not)" % what, ok_d)
        if whole:
            check("predecessors equal to scipy's, ties included (%s)" % what, ok_p)
        check("every predecessor chain adds up to its distance (%s)" % what, ok_c)

g = random_graph(rng, 60, whole=True)
ref = cg.shortest_path(g)
check("every method gives the same distances",
      all(np.array_equal(apsp.shortest_path(g, method=m, device=DEVICE), ref)
          for m in ("auto", "FW", "D", "BF", "J")))
d = apsp.shortest_path(g, indices=[[3, 4], [0, 59]], device=DEVICE)
check("indices: the rows of those sources, shaped as indices", d.shape == (2, 2, 60)
      and np.array_equal(d[1, 1], ref[59]) and np.array_equal(d[0, 0], ref[3]))
d = apsp.shortest_path(g, indices=-1, device=DEVICE)
check("indices: a negative index counts from the end", np.array_equal(d, ref[59]))
check("unweighted: every edge weighs 1",
      np.array_equal(fw(g, unweighted=True), cg.floyd_warshall((g != 0).astype(float))))
check("a list of lists and an int array are graphs too",
      np.array_equal(fw(g.tolist()), ref) and
      np.array_equal(fw(g.astype(np.int64)), cg.floyd_warshall(g.astype(np.int64))))

# calls from several threads at once (ctypes lets them in together)
import threading  # noqa: E402
graphs = [random_graph(np.random.default_rng(40 + k), 150, whole=True) for k in range(4)]
got = [None] * 4
workers = [threading.Thread(target=lambda k=k: got.__setitem__(k, fw(graphs[k]))) for k in range(4)]
for w in workers:
    w.start()
for w in workers:
    w.join()
check("four threads at once: each its own graph's distances",
      all(got[k] is not None and np.array_equal(got[k], cg.floyd_warshall(graphs[k])) for k in range(4)))

# scipy's input conventions
s = sp.csr_matrix(([0.0, 2.0, 5.0], ([0, 1, 0], [1, 2, 2])), shape=(3, 3))
check("sparse: an explicit zero is an edge of weight 0",
      np.array_equal(fw(s), cg.floyd_warshall(s)) and fw(s)[0, 2] == 2.0)
dup = sp.csr_matrix((np.array([5.0, 2.0, 3.0]), np.array([1, 1, 2]), np.array([0, 2, 3, 3])),
                    shape=(3, 3))
check("sparse: of repeated entries the smallest, as scipy", np.array_equal(fw(dup), cg.floyd_warshall(dup)))
m = random_graph(rng, 40, whole=True)
ok = True
for conv in (sp.csr_matrix, sp.csc_matrix, sp.lil_matrix, sp.coo_matrix, sp.dok_matrix):
    for directed in (True, False):
        ok &= np.array_equal(fw(conv(m), directed=directed),
                             cg.floyd_warshall(sp.csr_matrix(m), directed=directed))
check("sparse: csr, csc, lil, coo and dok give the same, directed and not", ok)
masked = np.ma.masked_greater(m, 7)
check("masked array: masked entries are no edge",
      np.array_equal(fw(masked), cg.floyd_warshall(masked)))
nan = np.array([[0, 1, np.nan], [np.inf, 0, 2], [-np.inf, 1, 0]])
check("dense: NaN and infinities are no edge, as scipy", np.array_equal(fw(nan), cg.floyd_warshall(nan)))
loop = np.array([[-3.0, 1.0], [2.0, 5.0]])
check("a loop's weight is ignored (the diagonal is 0), as scipy",
      np.array_equal(fw(loop), cg.floyd_warshall(loop)))
a = random_graph(rng, 30, whole=True)
keep = a.copy()
fw(a)
check("overwrite=False leaves the graph alone", np.array_equal(a, keep))
r = fw(a, overwrite=True)
check("overwrite=True computes in the caller's array", r is a and np.array_equal(r, cg.floyd_warshall(keep)))
ro = sp.csr_matrix([[1.0]])
ro.data.flags["WRITEABLE"] = False
check("a read-only sparse graph", fw(ro).shape == (1, 1))
check("an empty graph", fw(np.zeros((0, 0))).shape == (0, 0))

# errors
neg = np.ones((5, 5))
neg.flat[::6] = 0
neg[1, 2] = -2
raises("a negative cycle: NegativeCycleError", apsp.NegativeCycleError, lambda: fw(neg), "Negative cycle")
raises("NegativeCycleError is scipy's (existing except clauses work)", cg.NegativeCycleError,
       lambda: fw(neg))
raises("undirected, a negative edge is a negative cycle", apsp.NegativeCycleError,
       lambda: fw(np.array([[0, -1.0], [0, 0]]), directed=False))
raises("not square", ValueError, lambda: fw(np.ones((3, 4))), "shape (N, N)")
raises("not square: the message names what was given", ValueError, lambda: fw(np.ones((3, 4))),
       "a dense array of shape (3, 4) was given")
raises("1-D: the message names what was given", ValueError, lambda: fw(np.ones(3)),
       "must be 2-D: a dense array of shape (3,) was given")
raises("sparse, not square: named as sparse", ValueError,
       lambda: fw(sp.csr_matrix(np.ones((2, 3)))), "a scipy.sparse matrix of shape (2, 3)")
raises("not 2-D", ValueError, lambda: fw(np.ones(3)), "2-D")
raises("a NaN stored edge", ValueError, lambda: fw(sp.csr_matrix(([np.nan], ([0], [1])), shape=(2, 2))), "NaN")
raises("a stored -inf edge", ValueError, lambda: fw(sp.csr_matrix(([-np.inf], ([0], [1])), shape=(2, 2))), "-infinity")
raises("an unknown method", ValueError, lambda: apsp.shortest_path(g, method="X"), "unrecognized method")
raises("indices with method FW", ValueError, lambda: apsp.shortest_path(g, method="FW", indices=[0]), "indices")
raises("indices out of range", ValueError, lambda: apsp.shortest_path(g, indices=[60]), "out of range")
raises("an unknown device", ValueError, lambda: apsp.floyd_warshall(g, device="tpu"), "device")
raises("threads below 1", ValueError, lambda: apsp.floyd_warshall(g, device="cpu", threads=0), "threads")
saved = _memory.available
_memory.available = lambda: 1 << 30
try:
    raises("too large for memory: the largest n that fits, before allocating", MemoryError,
           lambda: fw(sp.csr_matrix((100000, 100000))), "at most n = ")
finally:
    _memory.available = saved
if not apsp.has_gpu():
    raises("device='gpu' without a GPU: a clear error", RuntimeError,
           lambda: apsp.floyd_warshall(g, device="gpu"), "device='gpu'")
    check("device='auto' without a GPU runs on the CPU",
          np.array_equal(apsp.floyd_warshall(g, device="auto"), ref))

# stats
g = random_graph(rng, 90, density=0.04)
g[:, 5] = 0  # no way into 5
t = apsp.stats(g, device=DEVICE)
dist = fw(g)  # the engine's own distances: the definitions exactly
check("stats: its distances within 1e-12 of scipy's", same(dist, cg.floyd_warshall(g), False))
n = dist.shape[0]
fin = np.isfinite(dist) & ~np.eye(n, dtype=bool)
reach_in = fin.sum(axis=0)
sum_in = np.where(fin, dist, 0).sum(axis=0)
ok = (np.array_equal(t["out_reach"], fin.sum(axis=1)) and np.array_equal(t["in_reach"], reach_in)
      and np.allclose(t["out_sum"], np.where(fin, dist, 0).sum(axis=1), rtol=1e-12, atol=0)
      and np.allclose(t["in_sum"], sum_in, rtol=1e-12, atol=0)
      and np.array_equal(t["out_eccentricity"], np.where(fin, dist, 0).max(axis=1))
      and np.array_equal(t["in_eccentricity"], np.where(fin, dist, 0).max(axis=0)))
check("stats: reach, sums and eccentricities by their definitions", ok, "")
check("stats: the columns apsp-stats prints", tuple(k for k in t if k != "summary") == apsp.COLUMNS)
summ = t["summary"]
check("stats: the summary", summ["n"] == n and summ["pairs"] == int(fin.sum())
      and summ["diameter"] == float(np.where(fin, dist, 0).max(axis=1).max())
      and abs(summ["average"] - dist[fin].sum() / fin.sum()) <= 1e-12 * summ["average"])
try:
    import networkx as nx
except ImportError:
    print("SKIP %sstats against networkx (no python3-networkx)" % _c.prefix)
else:
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    for u, v in zip(*np.nonzero(g)):
        G.add_edge(int(u), int(v), weight=float(g[u, v]))
    cl = nx.closeness_centrality(G, distance="weight")
    hc = nx.harmonic_centrality(G, distance="weight")
    check("stats: closeness is networkx's closeness_centrality",
          all(abs(t["closeness"][v] - cl[v]) <= 1e-12 * (1 + cl[v]) for v in range(n)))
    check("stats: harmonic is networkx's harmonic_centrality",
          all(abs(t["harmonic"][v] - hc[v]) <= 1e-12 * (1 + hc[v]) for v in range(n)))

# stats on a scipy.sparse graph: the sparse engine (elimination in
# nested-dissection order, no n x n matrix) gives the dense engine's table.
def sparse_grid(rng, k, integral=True, oneway=0.0):
    """A k x k grid as scipy.sparse: its arcs both ways, weights 1..99
    (or real), some arcs dropped one way, some explicit zeros."""
    rows, cols = [], []
    for i in range(k * k):
        r, c = divmod(i, k)
        for j in ([i + 1] if c + 1 < k else []) + ([i + k] if r + 1 < k else []):
            rows += [i, j]
            cols += [j, i]
    w = rng.integers(1, 100, len(rows)).astype(float) if integral else rng.random(len(rows)) * 10
    keep = rng.random(len(rows)) >= oneway
    w[rng.random(len(rows)) < 0.02] = 0
    return sp.csr_matrix((w[keep], (np.array(rows)[keep], np.array(cols)[keep])),
                         shape=(k * k, k * k))


def same_table(a, b, rtol):
    return all(np.allclose(a[c], b[c], rtol=rtol, atol=0) for c in apsp.COLUMNS) and all(
        abs(a["summary"][x] - b["summary"][x]) <= rtol * abs(b["summary"][x])
        for x in ("n", "pairs", "diameter", "radius", "average", "wiener"))


for name, G, rtol in (("a 30 x 30 grid, whole weights", sparse_grid(rng, 30), 0),
                      ("real weights, a fifth of the arcs one way",
                       sparse_grid(rng, 25, False, 0.2), 1e-12)):
    want = apsp.stats(G, engine="dense", device=DEVICE)
    check("stats(engine='sparse'), %s: the dense engine's table" % name,
          same_table(apsp.stats(G, engine="sparse"), want, rtol))
    check("stats(engine='auto'), %s: the same" % name, same_table(apsp.stats(G), want, rtol))
G = sparse_grid(rng, 20)
check("stats(directed=False, engine='sparse'): the dense engine's undirected summary",
      apsp.stats(G, directed=False, engine="sparse")["summary"]
      == apsp.stats(G, directed=False, engine="dense", device=DEVICE)["summary"])
check("stats(unweighted=True, engine='sparse'): the dense engine's table",
      same_table(apsp.stats(G, unweighted=True, engine="sparse"),
                 apsp.stats(G, unweighted=True, engine="dense", device=DEVICE), 0))
raises("stats(engine='sparse'): a negative cycle", apsp.NegativeCycleError,
       lambda: apsp.stats(sp.csr_matrix(np.array([[0, 1, 0], [0, 0, -3], [1, 0, 0]], float)),
                          engine="sparse"), "Negative cycle")
raises("stats(engine='sparse') on a dense array: a clear error", ValueError,
       lambda: apsp.stats(np.zeros((3, 3)), engine="sparse"), "scipy.sparse")
raises("stats(engine='tiles'): a clear error", ValueError,
       lambda: apsp.stats(G, engine="tiles"), "'auto', 'dense' or 'sparse'")

# shortest_path(indices=) on a scipy.sparse graph: only those rows, by the
# sparse engine; scipy's Dijkstra's rows (bit for bit with whole weights).
G = sparse_grid(rng, 30)
for directed in (True, False):
    for unweighted in (False, True):
        want = cg.dijkstra(G, directed=directed, unweighted=unweighted, indices=[5, 0, 899])
        got = apsp.shortest_path(G, directed=directed, unweighted=unweighted,
                                 indices=[5, 0, -1], device=DEVICE)
        check("shortest_path(indices=), sparse graph, directed=%s unweighted=%s: scipy's rows"
              % (directed, unweighted), same(got, want, True))
G = sparse_grid(rng, 25, False, 0.2)
check("shortest_path(indices=), real weights, some arcs one way: scipy's rows within 1e-12",
      same(apsp.shortest_path(G, indices=[[3, 7], [600, 1]], device=DEVICE).reshape(4, -1),
           cg.dijkstra(G, indices=[3, 7, 600, 1]), False))
raises("shortest_path(indices=), sparse graph: a negative cycle", apsp.NegativeCycleError,
       lambda: apsp.shortest_path(sp.csr_matrix(np.array([[0, 1, 0], [0, 0, -3], [1, 0, 0]],
                                                         float)), indices=[0], device=DEVICE),
       "Negative cycle")
# 202,500 vertices: a matrix of 328 GB, which the dense engines would
# refuse; the rows of three sources need no more than the fill.
k = 450
line = np.arange(k * k - 1)
big = sp.csr_matrix((np.ones(2 * (k * k - 1)), (np.concatenate((line, line + 1)),
                                                 np.concatenate((line + 1, line)))),
                    shape=(k * k, k * k))
if DEVICE != "gpu":
    got = apsp.shortest_path(big, indices=[0, 1000, k * k - 1], device=DEVICE)
    check("shortest_path(indices=) at n = 202,500 (a path): three rows, no n x n matrix",
          got.shape == (3, k * k) and got[0, -1] == k * k - 1 and got[1, 0] == 1000
          and got[2, 0] == k * k - 1)

# scipy reads a dense array through np.ma.masked_values(graph, 0): a weight
# within 1e-8 of 0 is no edge (scipy's issue 18051).  The same answers.
g = np.array([[0, 4e-9, 0], [0, 0, 1], [0, 0, 0]])
rd, rp = cg.floyd_warshall(g, return_predecessors=True)
d, p = fw(g, return_predecessors=True)
check("a weight of 4e-9 is no edge, as scipy reads a dense array", np.array_equal(d, rd)
      and np.array_equal(p, rp) and np.isinf(d[0, 1]), "%r" % (d,))
g = rng.random((300, 300))
g[g > 0.15] = 0
g[3, 7] = 5e-9
g[8, 2] = -2e-9
g[5, 6] = 2e-8
rd, rp = cg.floyd_warshall(g, return_predecessors=True)
d, p = fw(g, return_predecessors=True)
check("tiny weights in a random graph: scipy's distances and predecessors",
      np.array_equal(np.isinf(d), np.isinf(rd)) and same(d, rd, False) and np.array_equal(p, rp))
check("the caller's array is left as it was", g[3, 7] == 5e-9 and g[8, 2] == -2e-9)

# An undirected graph's summary is networkx's: the Wiener index over
# unordered pairs (the karate club: 1351).
try:
    import networkx as nx
except ImportError:
    print("SKIP %sundirected summary against networkx (no python3-networkx)" % _c.prefix)
else:
    K = nx.karate_club_graph()
    A = nx.to_numpy_array(K, weight=None)
    summ = apsp.stats(A, directed=False, device=DEVICE)["summary"]
    check("stats(directed=False): networkx's Wiener index of the karate club",
          summ["wiener"] == nx.wiener_index(K) == 1351 and summ.get("undirected") is True,
          "%r" % (summ,))
    check("stats(directed=False): the average as networkx's",
          abs(summ["average"] - nx.average_shortest_path_length(K)) <= 1e-12)
    check("stats(): a directed graph keeps ordered pairs",
          apsp.stats(A, device=DEVICE)["summary"]["wiener"] == 2702)

    # betweenness_centrality against networkx's, weighted and not, directed
    # and not, normalized and not, dense and scipy.sparse
    def nx_graph(g, directed, weighted):
        G = nx.DiGraph() if directed else nx.Graph()
        G.add_nodes_from(range(len(g)))
        for u, v in zip(*np.nonzero(g)):
            if u != v:
                G.add_edge(int(u), int(v), weight=float(g[u, v]))
        return G

    def close(a, b):
        return bool(np.all(np.abs(a - b) <= 1e-9 * np.maximum(1, np.abs(b))))

    ok = True
    for whole in (True, False):
        for directed in (True, False):
            for weighted in (True, False):
                for normalized in (False, True):
                    g = random_graph(rng, 45, density=0.12, whole=whole)
                    if whole:
                        g = np.where(g > 0, g % 3 + 1, 0)  # weights 1..3: ties
                    if not directed:
                        g = np.triu(g) + np.triu(g, 1).T
                    ref = nx.betweenness_centrality(nx_graph(g, directed, weighted),
                                                    weight="weight" if weighted else None,
                                                    normalized=normalized)
                    ref = np.array([ref[i] for i in range(len(g))])
                    got = apsp.betweenness_centrality(g, directed=directed, weighted=weighted,
                                                      normalized=normalized, device="cpu")
                    got_sp = apsp.betweenness_centrality(sp.csr_matrix(g), directed=directed,
                                                         weighted=weighted, normalized=normalized)
                    if not (close(got, ref) and close(got_sp, ref)):
                        ok = False
                        print("# whole %s directed %s weighted %s normalized %s: %r / %r"
                              % (whole, directed, weighted, normalized, got[:4], ref[:4]))
    check("betweenness_centrality: networkx's, within 1e-9 (16 kinds of graph and call)", ok)
    K = nx.karate_club_graph()
    ref = nx.betweenness_centrality(K)
    got = apsp.betweenness_centrality(nx.to_numpy_array(K, weight=None), directed=False)
    check("betweenness_centrality: the karate club's, normalized by default as networkx's",
          close(got, np.array([ref[i] for i in range(34)])))
    raises("betweenness_centrality: a negative weight refused", ValueError,
           lambda: apsp.betweenness_centrality(np.array([[0, -1.0], [2, 0]])), "negative")
    zc = sp.csr_matrix((np.array([1.0, 0, 0]), (np.array([0, 1, 2]), np.array([1, 2, 1]))),
                       shape=(3, 3))
    raises("betweenness_centrality: a zero cycle refused", ValueError,
           lambda: apsp.betweenness_centrality(zc), "zero weight")
    check("betweenness_centrality: an empty graph",
          apsp.betweenness_centrality(np.zeros((0, 0))).shape == (0,))

# betweenness_centrality on the GPU (the distances, then each source's sums
# there): the CPU's values, to the bit; a distance past int32's range sends
# the sums to the CPU.  Without a GPU, device='gpu' is a clear error.
if apsp.has_gpu():
    ok = True
    for n, density, directed in ((300, 0.2, True), (257, 0.3, False), (70, 0.9, True)):
        g = random_graph(rng, n, density=density, whole=True)
        g = np.where(g > 0, g % 5 + 1, 0)  # weights 1..5: ties
        if not directed:
            g = np.triu(g) + np.triu(g, 1).T
        a = apsp.betweenness_centrality(g, directed=directed, device="cpu")
        for dev in ("gpu", "auto"):
            b = apsp.betweenness_centrality(g, directed=directed, device=dev)
            if not np.array_equal(a, b):
                ok = False
                print("# n %d directed %s %s: %r / %r" % (n, directed, dev, a[:4], b[:4]))
    check("betweenness_centrality on the GPU: the CPU's values, to the bit (3 graphs, "
          "device 'gpu' and 'auto')", ok)
    g = random_graph(rng, 120, density=0.3, whole=True)
    u, v = np.nonzero(g)
    w = np.where(u < v, g[u, v] % 3, g[u, v] % 3 + 1)  # zeros forward only: no zero cycle
    z = sp.csr_matrix((w, (u, v)), shape=g.shape)  # (stored zeros are edges of weight 0)
    check("betweenness_centrality on the GPU: zero-weight edges, the CPU's values",
          np.array_equal(apsp.betweenness_centrality(z, device="gpu"),
                         apsp.betweenness_centrality(z, device="cpu")))
    far = np.array([[0, 2e9, 0], [0, 0, 2e9], [0, 0, 0]])
    check("betweenness_centrality on the GPU: a distance past int32's, the CPU's values",
          np.array_equal(apsp.betweenness_centrality(far, device="gpu"),
                         apsp.betweenness_centrality(far, device="cpu")))
else:
    raises("betweenness_centrality: device='gpu' without a GPU, a clear error", RuntimeError,
           lambda: apsp.betweenness_centrality(np.ones((2, 2)), device="gpu"), "device='gpu'")

# The layouts the package mirrors: the library built beside it agrees; one
# whose answer differs in any of them, or that cannot tell, is refused by
# name (a field added in C would otherwise give wrong numbers).
from apsp import _lib  # noqa: E402

real = _lib.cpu()
check("layout: the library built beside the package has its layout",
      all(real.st_layout(k.encode()) == v for k, v in _lib._mirrored()))


# The GPU library, where make built it, loads on any machine (no symbol it
# needs is missing from what it links), with or without a device.
import glob  # noqa: E402
if glob.glob(os.path.join(TOP, "build", "libapsp-gpu.so.*")):
    _lib.gpu()
    why = _lib.gpu_error() or ""
    check("the GPU library loads", not why.startswith("no GPU library"), why)


class _FakeLib:
    def __init__(self, answers):
        self.answers = answers

        def ask(name):
            return self.answers.get(name.decode(), -1)
        self.st_layout = ask


good = {k: v for k, v in _lib._mirrored()}
for name in ("version", "sizeof gs_stats", "offsetof gs_summary.wiener_exact", "ST_INF_I32"):
    bad = dict(good)
    bad[name] += 8
    try:
        _lib.check_layout(_FakeLib(bad), "libfake.so")
        refused = ""
    except _lib.LayoutError as e:
        refused = str(e)
    check("layout: a library whose %s differs is refused, naming it" % name,
          "libfake.so has another layout" in refused and name in refused, refused)
try:
    _lib.check_layout(object(), "libold.so")
    refused = ""
except _lib.LayoutError as e:
    refused = str(e)
check("layout: a library that cannot tell its layout is refused", "libold.so is older" in refused,
      refused)
# scipy's dijkstra (limit=, min_only=), bellman_ford and johnson: the same
# distances as scipy's, every predecessor certified (apsp.certify), and the
# explicit-zero graph whose predecessors once named a non-edge.
ok = True
for trial in range(6):
    g = sp.csr_matrix(random_graph(rng, 50, density=0.1, negative=trial % 2 == 1))
    idx = [3, 7, 11]
    calls = [("dijkstra", dict(indices=idx)), ("dijkstra", dict(indices=idx, limit=6.0)),
             ("dijkstra", dict(indices=idx, min_only=True)), ("bellman_ford", dict(indices=idx)),
             ("johnson", dict(indices=idx))]
    for name, kw in calls:
        if name == "dijkstra" and trial % 2 == 1:
            continue  # (scipy's dijkstra is not exact with negative weights)
        want = getattr(cg, name)(g, **kw)
        d, p = getattr(apsp, name)(g, return_predecessors=True, device=DEVICE, **kw)[:2]
        if not same(np.asarray(d), np.asarray(want), False):
            ok = False
            print("# %s %r: distances differ" % (name, kw))
        if not kw.get("min_only") and kw.get("limit") is None:
            try:
                apsp.certify(g, d, p, indices=idx)
            except apsp.NotShortestError as e:
                ok = False
                print("# %s %r: %s" % (name, kw, e))
check("dijkstra (limit=, min_only=), bellman_ford, johnson: scipy's distances, certified paths",
      ok)
e = [(53, 7, 8.55), (53, 50, 6.071), (54, 50, 2.258), (70, 7, 5.184), (71, 54, 0.0)]
r = [a for a, b, w in e] + [b for a, b, w in e]
c_ = [b for a, b, w in e] + [a for a, b, w in e]
zg = sp.csr_matrix(([w for a, b, w in e] * 2, (r, c_)), shape=(76, 76))
ok = True
for method in ("auto", "FW", "D", "J", "BF"):
    d, p = apsp.shortest_path(zg, method=method, return_predecessors=True, device=DEVICE)
    try:
        apsp.certify(zg, d, p)
    except apsp.NotShortestError as err:
        ok = False
        print("# %s: %s" % (method, err))
check("an explicit zero: every method's predecessors are arcs of shortest paths "
      "(pred[54, 70] once named 54)", ok)
bad = np.array(cg.shortest_path(zg))
bad[53, 7] = 100.0  # consistent with no chain, not shortest
raises("certify: a distance that is not the shortest", apsp.NotShortestError,
       lambda: apsp.certify(zg, bad), "d(53, 7) = 100")
sys.exit(1 if _c.failed else 0)
