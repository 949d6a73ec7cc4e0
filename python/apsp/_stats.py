"""apsp-stats' columns and summary, from the distances the engines make
(lib/stats.h folds them, as apsp-stats does)."""
import ctypes

import numpy as np

from . import _engine, _lib, _memory
from ._graph import dense_graph, _is_sparse

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
    lib = _lib.cpu()
    _declare(lib)
    s = _lib.GsStats()
    err = _lib.Error()
    if lib.gs_init(ctypes.byref(s), n, _lib.ST_FLOAT64, ctypes.byref(err)) != 0:
        raise MemoryError(err.text())
    try:
        if n:
            lib.gs_add_rows(ctypes.byref(s), 0, n, dist.ctypes.data, n, _engine._threads(threads))
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


def stats(csgraph, directed=True, unweighted=False, *, device="auto", threads=None):
    """apsp-stats' table for csgraph (scipy's conventions, as for
    floyd_warshall): a dict of numpy arrays, one entry per vertex, under the
    names vertex, out_reach, in_reach, out_sum, in_sum, out_eccentricity,
    in_eccentricity, closeness (networkx's closeness_centrality) and
    harmonic (networkx's harmonic_centrality), and under "summary" a dict
    of n, pairs, diameter, radius, average and wiener (with directed=False,
    networkx's undirected figures, as apsp-stats gives them for an
    undirected stream: pairs and wiener over unordered pairs, and
    "undirected": True).  NegativeCycleError where a cycle is negative."""
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
