"""scipy.sparse.csgraph's shortest_path and floyd_warshall on the toolkit's
engines: the same arguments, conventions and results, float64 as scipy
computes, every core, or the GPU."""
import ctypes

import numpy as np

from . import _batch, _engine, _lib, _memory
from ._errors import NegativeCycleError
from ._graph import NULL_ATOL, arcs as _arcs, dense_graph, _is_sparse, _square

METHODS = ("auto", "FW", "D", "BF", "J")


def _plain_float64(g):
    return (isinstance(g, np.ndarray) and not np.ma.isMaskedArray(g) and g.dtype == np.float64
            and g.flags.c_contiguous)


def _on_gpu(csgraph, directed, return_predecessors, unweighted, overwrite, threads):
    """A dense array goes up as it is and is read there by scipy's rules;
    the result comes down into a new array (or into it, with overwrite)."""
    n = np.shape(csgraph)[0] if np.ndim(csgraph) == 2 else 0
    _memory.check_gpu_host(n, return_predecessors, copy=not _plain_float64(csgraph))
    graph = np.ascontiguousarray(csgraph, dtype=np.float64)
    _square(graph.shape)
    # The device reads 0, NaN and the infinities as no edge; a weight within
    # scipy's tolerance of 0 becomes 0 first (on a copy unless overwrite).
    tiny = (np.abs(graph) <= NULL_ATOL) & (graph != 0)
    if tiny.any():
        if graph is csgraph and not (overwrite and graph.flags.writeable):
            graph = graph.copy()
        graph[tiny] = 0
    reuse = overwrite and graph is csgraph and graph.flags.writeable
    dist = graph if reuse else np.empty(graph.shape)
    flags = (_engine.NULL_VALUES | (0 if directed else _engine.UNDIRECTED)
             | (_engine.UNWEIGHTED if unweighted else 0))
    pred = _engine.solve(dist, return_predecessors, "gpu", threads, graph=graph, flags=flags)
    return (dist, pred) if return_predecessors else dist


def _run(csgraph, directed, return_predecessors, unweighted, overwrite, device, threads):
    where = _engine.pick_device(device)
    if where == "gpu" and not _is_sparse(csgraph) and not np.ma.isMaskedArray(csgraph):
        return _on_gpu(csgraph, directed, return_predecessors, unweighted, overwrite, threads)
    shape = np.shape(csgraph) if not _is_sparse(csgraph) else csgraph.shape
    n = shape[0] if len(shape) == 2 else 0
    in_place = overwrite and _plain_float64(csgraph) and csgraph.flags.writeable
    _memory.check(n, return_predecessors, directed, in_place)
    dist = dense_graph(csgraph, directed, unweighted, overwrite)
    pred = _engine.solve(dist, return_predecessors, where, threads)
    return (dist, pred) if return_predecessors else dist


def floyd_warshall(csgraph, directed=True, return_predecessors=False, unweighted=False,
                   overwrite=False, *, device="auto", threads=None, **batch):
    """All-pairs shortest paths, as scipy.sparse.csgraph.floyd_warshall:
    csgraph is a dense array (0, NaN and infinities: no edge; as scipy reads
    it, through np.ma.masked_values, any weight within 1e-8 of 0 is no edge
    too: scipy's issue 18051), a masked
    array (masked: no edge) or a scipy.sparse matrix (stored entries are
    edges, explicit zeros too).  Returns the float64 distances (inf where
    unreachable) and, with return_predecessors, the int32 predecessors
    (-9999: none).  NegativeCycleError where a cycle is negative.
    device: 'auto' (the GPU where there is one), 'cpu' or 'gpu'; threads:
    CPU threads (None: every core).  A batch of graphs, a (B, N, N) array
    or a list of graphs, is answered in one call, each graph as one
    (padded=, unreachable=: see apsp._batch.floyd_warshall)."""
    if _batch.is_batch(csgraph):
        return _batch.floyd_warshall(csgraph, directed, return_predecessors, unweighted,
                                     device=device, threads=threads, **batch)
    if batch:
        raise TypeError("padded= and unreachable= are for a batch of graphs: %s"
                        % ", ".join(sorted(batch)))
    return _run(csgraph, directed, return_predecessors, unweighted, overwrite, device,
                threads)


def _sparse_rows(csgraph, idx, directed, unweighted, threads):
    """The rows of sources idx (flat) of a scipy.sparse graph by the sparse
    engine (fw_sparse_rows in lib/fw.h: elimination in nested-dissection
    order, only those rows made, no n x n matrix), or None where it
    declines (over 32 arcs a vertex, or a fill over n^2/16 entries)."""
    n, u, v, w = _arcs(csgraph, directed, unweighted)
    if n < 2 or len(w) > 32 * n:
        return None
    lib = _lib.cpu()
    p = ctypes.c_void_p
    lib.fw_sparse_rows.argtypes = [ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint64, p, p, p,
                                   p, ctypes.c_uint64, p, ctypes.c_uint64, ctypes.c_int, p, p]
    lib.fw_sparse_rows.restype = ctypes.c_int
    src = np.ascontiguousarray(idx, dtype=np.uint32)
    rows = np.empty((len(src), n))
    cycle = ctypes.c_int64(-1)
    err = _lib.Error()
    rc = lib.fw_sparse_rows(n, _lib.ST_FLOAT64, len(w), u.ctypes.data, v.ctypes.data,
                            w.ctypes.data, src.ctypes.data, len(src), rows.ctypes.data,
                            n * n // 16, _engine._threads(threads), ctypes.byref(cycle),
                            ctypes.byref(err))
    if rc == 1:
        raise NegativeCycleError("Negative cycle through vertex %d" % cycle.value, cycle.value)
    if rc < 0:
        raise (MemoryError if "out of memory" in err.text() else ValueError)(err.text())
    return None if rc == 2 else rows


def _indices(indices, n):
    idx = np.array(indices, order="C", dtype=np.int64, copy=True)
    idx[idx < 0] += n
    if np.any(idx < 0) or np.any(idx >= n):
        raise ValueError("indices out of range 0...N")
    return idx


def shortest_path(csgraph, method="auto", directed=True, return_predecessors=False,
                  unweighted=False, overwrite=False, indices=None, *, device="auto",
                  threads=None, **batch):
    """scipy.sparse.csgraph.shortest_path: every method ('auto', 'FW', 'D',
    'BF', 'J') runs the toolkit's engines and gives the same results;
    indices keeps the rows of those sources (shaped as indices, then N),
    which 'FW' refuses as scipy does.  With indices, a scipy.sparse graph,
    no predecessors and device not 'gpu', only those rows are made, by the
    sparse engine (elimination in nested-dissection order, no N x N matrix)
    where the graph has at most 32 arcs a vertex and a small fill.  device
    and threads as for floyd_warshall, and a batch of graphs as there
    (without indices)."""
    if method not in METHODS:
        raise ValueError("unrecognized method '%s'" % (method,))
    if _batch.is_batch(csgraph) or batch:
        if indices is not None:
            raise ValueError("indices are for one graph, not a batch")
        return floyd_warshall(csgraph, directed, return_predecessors, unweighted, overwrite,
                              device=device, threads=threads, **batch)
    if method == "FW" and indices is not None:
        raise ValueError("Cannot specify indices with method == 'FW'.")
    if indices is None:
        return _run(csgraph, directed, return_predecessors, unweighted, overwrite, device,
                    threads)
    n = (csgraph.shape if _is_sparse(csgraph) else np.shape(csgraph))[0]
    idx = _indices(indices, n)
    if _is_sparse(csgraph) and not return_predecessors and device != "gpu":
        rows = _sparse_rows(csgraph, idx.ravel(), directed, unweighted, threads)
        if rows is not None:
            return rows.reshape(idx.shape + (n,))
    got = _run(csgraph, directed, return_predecessors, unweighted, False, device, threads)
    dist, pred = got if return_predecessors else (got, None)
    dist = dist[idx.ravel()].reshape(idx.shape + (n,))
    if not return_predecessors:
        return dist
    return dist, pred[idx.ravel()].reshape(idx.shape + (n,))


def _limited(got, limit, return_predecessors):
    """Distances past limit as unreachable (their predecessors none), as
    scipy's limit= gives them."""
    if limit is None or limit == np.inf:
        return got
    dist, pred = got if return_predecessors else (got, None)
    far = dist > limit
    dist[far] = np.inf
    if pred is not None:
        pred[far] = -9999
    return (dist, pred) if return_predecessors else dist


def dijkstra(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False,
             limit=np.inf, min_only=False, *, device="auto", threads=None):
    """scipy.sparse.csgraph.dijkstra: shortest_path's rows of indices (every
    vertex where None), distances past limit unreachable; with min_only, one
    row: each vertex's distance from the nearest of indices (and, with
    return_predecessors, its predecessor and that source, -9999 for none).
    Negative weights are solved exactly (scipy warns of them)."""
    n = (csgraph.shape if _is_sparse(csgraph) else np.shape(csgraph))[0]
    if min_only:
        idx = np.arange(n) if indices is None else _indices(indices, n).ravel()
        got = shortest_path(csgraph, "D", directed, return_predecessors, unweighted, False, idx,
                            device=device, threads=threads)
        dist, pred = got if return_predecessors else (np.atleast_2d(got), None)
        dist, pred = np.atleast_2d(dist), None if pred is None else np.atleast_2d(pred)
        if len(idx) == 0:
            best = np.full(n, np.inf)
            return (best, np.full(n, -9999, np.int32), np.full(n, -9999, np.int32)) \
                if return_predecessors else best
        near = np.argmin(dist, axis=0)
        cols = np.arange(n)
        best = dist[near, cols]
        if limit is not None and limit != np.inf:
            best[best > limit] = np.inf
        if not return_predecessors:
            return best
        p = pred[near, cols].astype(np.int32)
        src = idx[near].astype(np.int32)
        p[~np.isfinite(best)] = -9999
        src[~np.isfinite(best)] = -9999
        return best, p, src
    got = shortest_path(csgraph, "D", directed, return_predecessors, unweighted, False, indices,
                        device=device, threads=threads)
    return _limited(got, limit, return_predecessors)


def bellman_ford(csgraph, directed=True, indices=None, return_predecessors=False,
                 unweighted=False, *, device="auto", threads=None):
    """scipy.sparse.csgraph.bellman_ford: shortest_path's rows of indices;
    NegativeCycleError where a cycle is negative."""
    return shortest_path(csgraph, "BF", directed, return_predecessors, unweighted, False, indices,
                         device=device, threads=threads)


def johnson(csgraph, directed=True, indices=None, return_predecessors=False, unweighted=False,
            *, device="auto", threads=None):
    """scipy.sparse.csgraph.johnson: shortest_path's rows of indices;
    NegativeCycleError where a cycle is negative."""
    return shortest_path(csgraph, "J", directed, return_predecessors, unweighted, False, indices,
                         device=device, threads=threads)


def distance_table(csgraph, sources, targets, directed=True, unweighted=False, *,
                   device="auto", threads=None):
    """The distances from each of sources to each of targets (vertex
    numbers, each list without repeats): a float64 array of shape
    (len(sources), len(targets)), inf where unreachable, entry (i, j) the
    distance from sources[i] to targets[j], as apsp-cpu --sources S
    --targets T writes it.  The rows of the sources are made as
    shortest_path(indices=sources) makes them (by the sparse engine where
    it takes the graph), then their targets' columns kept."""
    n = (csgraph.shape if _is_sparse(csgraph) else np.shape(csgraph))[0]
    src = _indices(np.atleast_1d(sources), n).ravel()
    dst = _indices(np.atleast_1d(targets), n).ravel()
    for name, v in (("sources", src), ("targets", dst)):
        if len(np.unique(v)) != len(v):
            raise ValueError("%s: a vertex given twice" % name)
    rows = shortest_path(csgraph, "auto", directed, False, unweighted, False, src,
                         device=device, threads=threads)
    return np.ascontiguousarray(np.atleast_2d(rows)[:, dst])
