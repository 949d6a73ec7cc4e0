"""Betweenness centrality from the engines (lib/stats.h, gs_betweenness_arcs):
networkx's betweenness_centrality on the same graph."""
import ctypes

import numpy as np

from . import _engine, _lib
from ._graph import arcs as _arcs, null_entries, _is_sparse, _square


def _dense_arcs(g, directed, unweighted):
    """A dense array's arcs by scipy's conventions (0, NaN and the infinities
    are no edge; the diagonal ignored)."""
    a = np.asarray(g, dtype=np.float64)
    n = _square(a.shape)
    if np.isneginf(a).any():
        raise ValueError("an edge weight is -infinity")
    keep = ~null_entries(a)
    np.fill_diagonal(keep, False)
    u, v = np.nonzero(keep)
    w = np.ones(len(u)) if unweighted else a[u, v]
    if not directed:
        u, v, w = np.concatenate((u, v)), np.concatenate((v, u)), np.concatenate((w, w))
    return n, u.astype(np.uint32), v.astype(np.uint32), np.ascontiguousarray(w)


def _declare(lib):
    p = ctypes.c_void_p
    lib.gs_betweenness_arcs.argtypes = [p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint64,
                                        p, p, p, p, p, p]
    lib.gs_betweenness_arcs.restype = ctypes.c_int
    lib.gs_betweenness_scale.argtypes = [p, ctypes.c_int, ctypes.c_int]
    lib.gs_betweenness_scale.restype = None
    lib.gs_betweenness_free.argtypes = [p]
    lib.gs_betweenness_free.restype = None


def betweenness_centrality(csgraph, directed=True, weighted=True, normalized=False, *,
                           device="auto", threads=None):
    """networkx's betweenness_centrality(G, weight="weight" if weighted else
    None, normalized=normalized) of csgraph (scipy's conventions: a dense
    array's 0 is no edge, a scipy.sparse graph's stored entries are edges,
    the least of repeats; with directed=False each edge both ways and the
    values halved, as networkx gives an undirected graph's): a float64 array
    of one value per vertex.  Paths are counted exactly, zero-weight edges
    included, without overflow; whole weights in int32's range are summed as
    integers (the sparse engine's rows, or the CPU engine's rounds, read for
    each source's tight edges), others in doubles along a search from each
    source as networkx sums them.  ValueError where a weight is negative or
    a cycle has zero weight (its paths have no count).  device: the CPU
    makes it ('auto', 'cpu'; 'gpu' is refused: the GPU engine does not yet)."""
    if device not in ("auto", "cpu", "gpu"):
        raise ValueError("device=%r: 'auto', 'cpu' or 'gpu'" % (device,))
    if device == "gpu":
        raise ValueError("device='gpu': betweenness runs on the CPU (the GPU engine does not "
                         "make it yet)")
    if _is_sparse(csgraph):
        n, u, v, w = _arcs(csgraph, directed, not weighted)
    else:
        n, u, v, w = _dense_arcs(csgraph, directed, not weighted)
    whole = len(w) == 0 or (np.all(w == np.round(w)) and np.all(np.abs(w) < _lib.ST_INF_I32))
    if whole:
        wt, kind = np.ascontiguousarray(w, dtype=np.int32), _lib.ST_INT32
    else:
        wt, kind = w, _lib.ST_FLOAT64
    lib = _lib.cpu()
    _declare(lib)
    out = _lib.GsBetweenness()
    opts = _lib.GsBcOpts(0, _engine._threads(threads), None, None)
    bad = (ctypes.c_uint32 * 2)()
    err = _lib.Error()
    rc = lib.gs_betweenness_arcs(ctypes.byref(out), n, kind, len(wt), u.ctypes.data,
                                 v.ctypes.data, wt.ctypes.data, ctypes.byref(opts), bad,
                                 ctypes.byref(err))
    if rc == 1:
        raise ValueError("edge %d -> %d has a negative weight (betweenness counts shortest "
                         "paths with weights of 0 or more)" % (bad[0], bad[1]))
    if rc == 2:
        raise ValueError("edge %d -> %d lies on a cycle of zero weight (its vertices have "
                         "shortest walks without end, and no count)" % (bad[0], bad[1]))
    if rc < 0:
        raise (MemoryError if "out of memory" in err.text() else ValueError)(err.text())
    try:
        lib.gs_betweenness_scale(ctypes.byref(out), int(normalized), int(directed))
        values = np.ctypeslib.as_array(ctypes.cast(out.vertex, ctypes.POINTER(ctypes.c_double)),
                                       shape=(n,)).copy() if n else np.zeros(0)
    finally:
        lib.gs_betweenness_free(ctypes.byref(out))
    return values
