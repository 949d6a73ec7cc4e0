"""apsp-stats' columns and summary, from the distances the engines make
(lib/stats.h folds them, as apsp-stats does)."""
import ctypes

import numpy as np

from . import _engine, _lib, _memory
from ._graph import dense_graph, _is_sparse

COLUMNS = ("vertex", "out_reach", "in_reach", "out_sum", "in_sum", "out_eccentricity",
           "in_eccentricity", "closeness", "harmonic")


class _GsStats(ctypes.Structure):
    _fields_ = [("n", ctypes.c_uint64), ("type", ctypes.c_uint32),
                ("reach", ctypes.c_void_p * 2), ("sum", ctypes.c_void_p * 2),
                ("ecc", ctypes.c_void_p * 2), ("harmonic", ctypes.c_void_p)]


def _array(ptr, n, ctype):
    if n == 0:
        return np.zeros(0, dtype=np.ctypeslib.as_ctypes_type(ctype) if False else ctype)
    return np.ctypeslib.as_array((ctype * n).from_address(ptr)).copy()


def _fold(dist, threads):
    n = dist.shape[0]
    lib = _lib.cpu()
    s = _GsStats()
    err = _lib.Error()
    if lib.gs_init(ctypes.byref(s), n, _engine.ST_FLOAT64, ctypes.byref(err)) != 0:
        raise MemoryError(err.text())
    try:
        if n:
            lib.gs_add_rows(ctypes.byref(s), 0, n, dist.ctypes.data, n, _engine._threads(threads))
        d = ctypes.c_double
        cols = {
            "vertex": np.arange(n, dtype=np.int64),
            "out_reach": _array(s.reach[0], n, ctypes.c_uint64).astype(np.int64),
            "in_reach": _array(s.reach[1], n, ctypes.c_uint64).astype(np.int64),
            "out_sum": _array(s.sum[0], n, d), "in_sum": _array(s.sum[1], n, d),
            "out_eccentricity": _array(s.ecc[0], n, d),
            "in_eccentricity": _array(s.ecc[1], n, d),
            "harmonic": _array(s.harmonic, n, d),
        }
    finally:
        lib.gs_free(ctypes.byref(s))
    reach, total = cols["in_reach"].astype(np.float64), cols["in_sum"]
    close = np.zeros(n)
    if n > 1:
        ok = total > 0
        close[ok] = reach[ok] / total[ok] * (reach[ok] / float(n - 1))
    cols["closeness"] = close
    return {name: cols[name] for name in COLUMNS}


def _summary(cols, n):
    pairs = int(cols["out_reach"].sum())
    ecc = cols["out_eccentricity"]
    wiener = float(np.add.reduce(cols["out_sum"])) if n else 0.0
    return {"n": n, "pairs": pairs,
            "diameter": float(ecc.max()) if n else 0.0,
            "radius": float(ecc.min()) if n else 0.0,
            "average": wiener / pairs if pairs else 0.0,
            "wiener": wiener}


def stats(csgraph, directed=True, unweighted=False, *, device="auto", threads=None):
    """apsp-stats' table for csgraph (scipy's conventions, as for
    floyd_warshall): a dict of numpy arrays, one entry per vertex, under the
    names vertex, out_reach, in_reach, out_sum, in_sum, out_eccentricity,
    in_eccentricity, closeness (networkx's closeness_centrality) and
    harmonic (networkx's harmonic_centrality), and under "summary" a dict
    of n, pairs, diameter, radius, average and wiener.
    NegativeCycleError where a cycle is negative."""
    shape = csgraph.shape if _is_sparse(csgraph) else np.shape(csgraph)
    n = shape[0] if len(shape) == 2 else 0
    where = _engine.pick_device(device)
    _memory.check(n, False, directed, False)
    dist = dense_graph(csgraph, directed, unweighted, False)
    _engine.solve(dist, False, where, threads)
    cols = _fold(dist, threads)
    cols["summary"] = _summary(cols, dist.shape[0])
    return cols
