"""apsp-stats' columns and summary, from the distances the engines make
(lib/stats.h folds them, as apsp-stats does)."""
import ctypes

import numpy as np

from . import _engine, _lib, _memory
from ._errors import NegativeCycleError
from ._graph import arcs as _arcs, dense_graph, _is_sparse

COLUMNS = ("vertex", "out_reach", "in_reach", "out_sum", "in_sum", "out_eccentricity",
           "in_eccentricity", "closeness", "harmonic")


def _array(ptr, n, ctype):
    if n == 0:
        return np.zeros(0, dtype=ctype)
    return np.ctypeslib.as_array((ctype * n).from_address(ptr)).copy()


def _declare(lib):
    lib.gs_closeness.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    lib.gs_closeness.restype = ctypes.c_double
    lib.gs_summarize.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.gs_summarize.restype = None
    lib.gs_summary_undirected.argtypes = [ctypes.c_void_p]
    lib.gs_summary_undirected.restype = None


def _fold(dist, threads, undirected=False):
    """The columns and the summary, as lib/stats/stats.c makes them for apsp-stats
    (the same bits for the same distances; undirected: networkx's undirected
    summary, gs_summary_undirected)."""
    n = dist.shape[0]

    def add(lib, s):
        if n:
            lib.gs_add_rows(ctypes.byref(s), 0, n, dist.ctypes.data, n, _engine._threads(threads))
    return _folded(n, add, undirected)


def _folded(n, add, undirected):
    """gs_stats for n vertices filled by add(lib, stats), as the table."""
    lib = _lib.cpu()
    _declare(lib)
    s = _lib.GsStats()
    err = _lib.Error()
    if lib.gs_init(ctypes.byref(s), n, _lib.ST_FLOAT64, ctypes.byref(err)) != 0:
        raise MemoryError(err.text())
    try:
        add(lib, s)
        d = ctypes.c_double
        cols = {
            "vertex": np.arange(n, dtype=np.int64),
            "out_reach": _array(s.reach[_lib.GS_OUT], n, ctypes.c_uint64).astype(np.int64),
            "in_reach": _array(s.reach[_lib.GS_IN], n, ctypes.c_uint64).astype(np.int64),
            "out_sum": _array(s.sum[_lib.GS_OUT], n, d), "in_sum": _array(s.sum[_lib.GS_IN], n, d),
            "out_eccentricity": _array(s.ecc[_lib.GS_OUT], n, d),
            "in_eccentricity": _array(s.ecc[_lib.GS_IN], n, d),
            "closeness": np.array([lib.gs_closeness(ctypes.byref(s), u) for u in range(n)],
                                  dtype=np.float64),
            "harmonic": _array(s.harmonic, n, d),
        }
        m = _lib.GsSummary()
        lib.gs_summarize(ctypes.byref(s), ctypes.byref(m))
        if undirected:
            lib.gs_summary_undirected(ctypes.byref(m))
    finally:
        lib.gs_free(ctypes.byref(s))
    table = {name: cols[name] for name in COLUMNS}
    table["summary"] = {"n": n, "pairs": m.pairs, "diameter": m.diameter, "radius": m.radius,
                        "average": m.average, "wiener": m.wiener}
    return table


def _declare_arcs(lib):
    p = ctypes.c_void_p
    lib.gs_add_arcs.argtypes = [p, ctypes.c_uint64, p, p, p, ctypes.c_uint64, ctypes.c_int, p, p]
    lib.gs_add_arcs.restype = ctypes.c_int


def _sparse_stats(csgraph, directed, unweighted, threads, forced):
    """The table by the sparse engine (lib/sparse/elim.h: elimination in
    nested-dissection order, the rows folded a batch at a time, no n x n
    matrix), or None where it declines (auto: over 32 arcs a vertex, or a
    fill over n^2/16 entries)."""
    n, u, v, w = _arcs(csgraph, directed, unweighted)
    if not forced and (n < 2 or len(w) > 32 * n):
        return None
    lib = _lib.cpu()
    _declare_arcs(lib)
    cycle = ctypes.c_int64(-1)
    err = _lib.Error()
    rc = []

    def add(lib, s):
        rc.append(lib.gs_add_arcs(ctypes.byref(s), len(w), u.ctypes.data, v.ctypes.data,
                                  w.ctypes.data, 0 if forced else n * n // 16,
                                  _engine._threads(threads), ctypes.byref(cycle),
                                  ctypes.byref(err)))
        if rc[0] == 1:
            raise NegativeCycleError("Negative cycle through vertex %d" % cycle.value,
                                     cycle.value)
        if rc[0] < 0:
            raise (MemoryError if "out of memory" in err.text() else ValueError)(err.text())
    table = _folded(n, add, not directed)
    return None if rc[0] == 2 else table


def stats(csgraph, directed=True, unweighted=False, *, device="auto", threads=None,
          engine="auto"):
    """apsp-stats' table for csgraph (scipy's conventions, as for
    floyd_warshall): a dict of numpy arrays, one entry per vertex, under the
    names vertex, out_reach, in_reach, out_sum, in_sum, out_eccentricity,
    in_eccentricity, closeness (networkx's closeness_centrality) and
    harmonic (networkx's harmonic_centrality), and under "summary" a dict
    of n, pairs, diameter, radius, average and wiener (with directed=False,
    networkx's undirected figures, as apsp-stats gives them for an
    undirected stream: pairs and wiener over unordered pairs, and
    "undirected": True).  NegativeCycleError where a cycle is negative.

    engine: "dense" (Floyd-Warshall on the n x n matrix, on device), "sparse"
    (a scipy.sparse graph eliminated in nested-dissection order, its rows
    folded a batch at a time on the CPU: no n x n matrix; float64 sums in
    another order, equal within rounding) or "auto" (sparse for a
    scipy.sparse graph of at most 32 arcs a vertex whose fill is small,
    unless device="gpu")."""
    if engine not in ("auto", "dense", "sparse"):
        raise ValueError("engine=%r: 'auto', 'dense' or 'sparse'" % (engine,))
    if engine == "sparse" and not _is_sparse(csgraph):
        raise ValueError("engine='sparse' takes a scipy.sparse graph")
    if engine == "sparse" or (engine == "auto" and device != "gpu" and _is_sparse(csgraph)):
        table = _sparse_stats(csgraph, directed, unweighted, threads, engine == "sparse")
        if table is not None:
            if not directed:
                table["summary"]["undirected"] = True
            return table
    shape = csgraph.shape if _is_sparse(csgraph) else np.shape(csgraph)
    n = shape[0] if len(shape) == 2 else 0
    where = _engine.pick_device(device)
    _memory.check(n, False, directed, False)
    dist = dense_graph(csgraph, directed, unweighted, False)
    _engine.solve(dist, False, where, threads)
    table = _fold(dist, threads, undirected=not directed)
    if not directed:
        table["summary"]["undirected"] = True
    return table
