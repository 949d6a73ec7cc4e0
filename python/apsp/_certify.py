"""A proof that distances (and predecessors) are exactly the shortest of a
graph: lib/certify.h's conditions, read by scipy's conventions."""
import ctypes

import numpy as np

from . import _engine, _lib
from ._graph import arcs as _arcs, dense_graph, _is_sparse


class NotShortestError(AssertionError):
    """A row of distances or predecessors that is not the shortest: row,
    source, vertex and, where an arc is concerned, its tail (else -1)."""

    def __init__(self, message, row=-1, source=-1, vertex=-1, tail=-1):
        super().__init__(message)
        self.row, self.source, self.vertex, self.tail = row, source, vertex, tail


def _graph_arcs(csgraph, directed, unweighted):
    if isinstance(csgraph, tuple):  # (n, tails, heads, weights): arcs as they are
        n, u, v, w = csgraph
        return (n, np.ascontiguousarray(u, dtype=np.uint32),
                np.ascontiguousarray(v, dtype=np.uint32),
                np.ascontiguousarray(w, dtype=np.float64))
    if _is_sparse(csgraph):
        return _arcs(csgraph, directed, unweighted)
    w = dense_graph(csgraph, directed, unweighted)
    u, v = np.nonzero(np.isfinite(w))
    keep = u != v
    return (w.shape[0], u[keep].astype(np.uint32), v[keep].astype(np.uint32),
            np.ascontiguousarray(w[u[keep], v[keep]]))


def certify(csgraph, dist, predecessors=None, directed=True, unweighted=False, indices=None,
            tol=1e-12, threads=None):
    """Raise NotShortestError unless dist (float64, a row per source: every
    vertex's, or those of indices) are exactly the shortest distances of
    csgraph, read as shortest_path reads it (or, as a tuple (n, tails,
    heads, weights), those arcs), and each chain of predecessors
    (scipy's -9999 for none) a path of that weight; else return the number
    of rows proved.  Floats within tol of each other are equal (the engines
    add in other orders).  O(m) a row."""
    n, u, v, w = _graph_arcs(csgraph, directed, unweighted)
    dist = np.ascontiguousarray(np.atleast_2d(dist), dtype=np.float64)
    rows = dist.shape[0]
    src = None
    if indices is not None:
        src = np.ascontiguousarray(np.ravel(indices), dtype=np.int64)
        src[src < 0] += n
        src = src.astype(np.uint32)
        if len(src) != rows:
            raise ValueError("%d indices for %d rows" % (len(src), rows))
    elif rows != n:
        raise ValueError("%d rows of distances for %d vertices: give indices" % (rows, n))
    if dist.shape[1] != n:
        raise ValueError("rows of %d distances for %d vertices" % (dist.shape[1], n))
    pred = None
    if predecessors is not None:
        pred = np.ascontiguousarray(np.atleast_2d(predecessors), dtype=np.int32).copy()
        pred[pred < 0] = -1
    lib = _lib.cpu()
    err = _lib.Error()
    g = lib.ce_graph_new(n, _lib.ST_FLOAT64, len(w), u.ctypes.data, v.ctypes.data,
                         w.ctypes.data, ctypes.byref(err))
    if not g:
        raise ValueError(err.text())
    try:
        fault = _lib.CeFault()
        bad = lib.ce_check_rows(g, _lib.ST_FLOAT64, None if src is None else src.ctypes.data,
                                0, rows, dist.ctypes.data,
                                None if pred is None else pred.ctypes.data, n, tol,
                                _engine._threads(threads), ctypes.byref(fault),
                                ctypes.byref(err))
    finally:
        lib.ce_graph_free(g)
    if bad < 0:
        raise MemoryError(err.text())
    if bad:
        raise NotShortestError("%d of %d rows not shortest; the first: %s"
                               % (bad, rows, fault.what.decode("utf-8", "replace")),
                               fault.row, fault.source, fault.vertex, fault.tail)
    return rows
