"""Many small graphs in one call: scipy's floyd_warshall on each graph of a
batch, a graph a thread on the CPU engine (the library's fw_batch), the
graphs padded to one size and the results padded or as a list."""
import ctypes

import numpy as np

from . import _engine, _lib
from ._errors import NegativeCycleError
from ._graph import FLOAT, NULL_ATOL, dense_graph, _is_sparse


def is_batch(csgraph):
    """A (B, N, N) array, or a list or tuple of graphs (2-D arrays, masked
    arrays or scipy.sparse matrices; a nested list of numbers is one graph,
    as scipy reads it)."""
    if isinstance(csgraph, (list, tuple)):
        return len(csgraph) > 0 and all(
            _is_sparse(g) or (isinstance(g, np.ndarray) and g.ndim == 2) for g in csgraph)
    return isinstance(csgraph, np.ndarray) and csgraph.ndim == 3


def _stacked(a, directed, unweighted):
    """A (B, N, N) array by scipy's rules for each graph, as one float64
    array (a copy): no edge +inf, the diagonal 0."""
    if np.ma.isMaskedArray(a):
        mask = np.ma.getmaskarray(a)
        dist = np.array(a.data, dtype=FLOAT, order="C")
        dist[mask] = np.inf
    else:
        if a.dtype == object:
            raise ValueError("the graphs must hold numbers")
        dist = np.array(a, dtype=FLOAT, order="C")
    if dist.shape[1] != dist.shape[2]:
        raise ValueError("a batch of graphs must be shape (B, N, N): %s was given"
                         % (tuple(dist.shape),))
    # a few graphs at a time, their temporaries in cache (5x faster at N = 32)
    step = max(1, (1 << 18) // max(1, dist.shape[1] ** 2))
    for b in range(0, dist.shape[0], step):
        _null_as_none(dist[b:b + step], directed, unweighted)
    i = np.arange(dist.shape[1])
    dist[:, i, i] = 0
    return dist, np.full(dist.shape[0], dist.shape[1], dtype=np.int64)


def _null_as_none(d, directed, unweighted):
    """In place: no edge (null_entries: 0 within NULL_ATOL, NaN, the
    infinities) +inf; finite weights 1 if unweighted; the smaller of the
    two ways if not directed."""
    size = np.abs(d)
    edge = size > NULL_ATOL  # (False for NaN)
    edge &= size < np.inf
    np.copyto(d, np.inf, where=~edge)
    if unweighted:
        np.copyto(d, 1.0, where=edge)
    if not directed:
        np.minimum(d, d.transpose(0, 2, 1).copy(), out=d)


def _listed(graphs, directed, unweighted):
    """A list of graphs of any sizes, each by scipy's rules, padded to the
    largest with isolated vertices."""
    mats = [dense_graph(g, directed, unweighted) for g in graphs]
    sizes = np.array([m.shape[0] for m in mats], dtype=np.int64)
    n = int(sizes.max()) if len(mats) else 0
    dist = np.full((len(mats), n, n), np.inf)
    for b, m in enumerate(mats):
        dist[b, :m.shape[0], :m.shape[0]] = m
    i = np.arange(n)
    dist[:, i, i] = 0
    return dist, sizes


def graphs(csgraph, directed, unweighted):
    """One graph or a batch, by scipy's rules for each, as one (B, N, N)
    float64 array (no edge +inf, the diagonal 0), the graphs' sizes, and
    whether it was one graph."""
    if not is_batch(csgraph):
        d = dense_graph(csgraph, directed, unweighted)
        return d[None], np.array([d.shape[0]], dtype=np.int64), True
    if isinstance(csgraph, np.ndarray):
        return _stacked(csgraph, directed, unweighted) + (False,)
    return _listed(csgraph, directed, unweighted) + (False,)


def room_sizes(sizes, n):
    """The graphs' sizes for the library (uint32), or None where every
    graph fills its room."""
    return None if np.all(sizes == n) else np.ascontiguousarray(sizes, dtype=np.uint32)


def solve(dist, paths, threads, semiring=_lib.FW_MINPLUS, sizes=None, device="cpu"):
    """fw_batch (device 'cpu') or fwsg_solve ('gpu') on dist (B, N, N,
    float64, in place) over the semiring (_lib.FW_MINPLUS or FW_WIDEST),
    graph b in the top-left sizes[b] x sizes[b] of its room (a smaller graph
    costs its own size's work): the predecessors (-9999: none) or None;
    NegativeCycleError naming the first graph with one."""
    count, n = dist.shape[0], dist.shape[1]
    pred = np.empty(dist.shape, dtype=np.int32) if paths else None
    cycle = np.empty(count, dtype=np.int64)
    own = room_sizes(sizes, n) if sizes is not None else None
    args = (semiring, _lib.ST_FLOAT64, count, n, own.ctypes.data if own is not None else None,
            dist.ctypes.data, pred.ctypes.data if paths else None)
    if device == "gpu":
        msg = ctypes.create_string_buffer(256)
        rc = _lib.gpu().fwsg_solve(*args, 0, cycle.ctypes.data, msg, 256)
        text = msg.value.decode("utf-8", "replace")
    else:
        err = _lib.Error()
        rc = _lib.cpu().fw_batch(*args, _engine._threads(threads), cycle.ctypes.data,
                                 ctypes.byref(err))
        text = err.text()
    if rc < 0:
        if "out of memory" in text:
            raise MemoryError(text)
        raise ValueError(text)
    _raise_cycles(rc, cycle)
    if paths:
        np.copyto(pred, _engine.NO_PREDECESSOR, where=pred < 0)
    return pred


def _raise_cycles(rc, cycle):
    """NegativeCycleError naming the first graph with a negative cycle
    (.graphs: all of them), where there is one (rc > 0)."""
    if rc > 0:
        bad = np.flatnonzero(cycle >= 0)
        e = NegativeCycleError("Negative cycle in graph %d (through vertex %d)%s"
                               % (bad[0], cycle[bad[0]], " and %d more graphs" % (len(bad) - 1)
                                  if len(bad) > 1 else ""), int(cycle[bad[0]]))
        e.graphs = bad
        raise e


# numpy's types the GPU reads a dense batch of as they are
_DENSE_TYPES = {np.dtype(np.float64): _lib.ST_FLOAT64, np.dtype(np.float32): _lib.ST_FLOAT32,
                np.dtype(np.int64): _lib.FWSG_INT64, np.dtype(np.int32): _lib.ST_INT32}


def dense_on_gpu(a, semiring, directed, unweighted, paths, unreachable):
    """A (B, N, N) array (not masked) of a type the GPU reads, solved there
    from the caller's memory (fwsg_solve_dense: scipy's rules for dense
    arrays applied on the device, the results padded with unreachable and
    -9999): (dist, pred or None), or None where the array is not of such a
    type."""
    if (not isinstance(a, np.ndarray) or np.ma.isMaskedArray(a) or a.ndim != 3
            or a.dtype not in _DENSE_TYPES or a.shape[1] != a.shape[2]):
        return None
    a = np.ascontiguousarray(a)
    count, n = a.shape[0], a.shape[1]
    dist = np.empty(a.shape, dtype=FLOAT)
    pred = np.empty(a.shape, dtype=np.int32) if paths else None
    cycle = np.empty(count, dtype=np.int64)
    flags = (0 if directed else _lib.FWSG_UNDIRECTED) | (_lib.FWSG_UNWEIGHTED if unweighted else 0)
    msg = ctypes.create_string_buffer(256)
    rc = _lib.gpu().fwsg_solve_dense(semiring, _DENSE_TYPES[a.dtype], count, n, a.ctypes.data,
                                     flags, float(unreachable), _engine.NO_PREDECESSOR,
                                     dist.ctypes.data, pred.ctypes.data if paths else None, 0,
                                     cycle.ctypes.data, msg, 256)
    if rc < 0:
        text = msg.value.decode("utf-8", "replace")
        raise MemoryError(text) if "out of memory" in text else ValueError(text)
    _raise_cycles(rc, cycle)
    return dist, pred


# The GPU's register rounds take graphs of up to this many vertices
# (FWSG_SHARED_MAX, kernels/batch/fw_smallgraphs.h); a larger one is solved
# by one thread block, so device='auto' keeps batches of those on the CPU.
GPU_SHARED_MAX = 128


def where(device, sizes):
    """The engine for a batch: device 'cpu' or 'gpu' as asked; 'auto' the
    GPU where there is one and every graph fits its register rounds."""
    got = _engine.pick_device(device)
    if device == "auto" and got == "gpu" and sizes.size and sizes.max() > GPU_SHARED_MAX:
        return "cpu"
    return got


def pad(a, sizes, fill):
    """The entries of a (B, N, N) outside each graph's sizes[b] x sizes[b]
    set to fill, the graphs of a size at a time (slices, no N x N mask)."""
    n = a.shape[1]
    for k in np.unique(sizes[sizes < n]):
        some = np.flatnonzero(sizes == k)
        a[some, k:, :] = fill
        a[some, :k, k:] = fill


def shaped(dist, pred, sizes, padded, unreachable, none=np.inf):
    """Unreachable pairs (none: their value in dist) and the padding as
    unreachable (predecessors -9999); the (B, N, N) arrays, or lists of
    each graph's own."""
    n = dist.shape[1]
    if not (isinstance(unreachable, float) and unreachable == none):
        np.copyto(dist, unreachable, where=dist == none)
    pad(dist, sizes, unreachable)
    if pred is not None:
        pad(pred, sizes, _engine.NO_PREDECESSOR)
    if padded:
        return (dist, pred) if pred is not None else dist
    dl = [dist[b, :k, :k] for b, k in enumerate(sizes)]
    if pred is None:
        return dl
    return dl, [pred[b, :k, :k] for b, k in enumerate(sizes)]


def floyd_warshall(graphs_given, directed=True, return_predecessors=False, unweighted=False,
                   *, device="auto", threads=None, padded=True, unreachable=np.inf):
    """floyd_warshall on each graph of a batch: a (B, N, N) array (dense or
    masked, scipy's rules for each graph) or a list of graphs of any sizes
    (dense, masked or scipy.sparse).  Returns the distances as one (B, N, N)
    float64 array (padded: entries of vertices a graph does not have are
    unreachable), or with padded=False a list of each graph's; unreachable
    pairs hold unreachable (+inf by default).  return_predecessors: int32
    predecessors alike (-9999: none).  NegativeCycleError names the first
    graph with a negative cycle (.graphs: all of them).  device: 'gpu' (a
    group of threads a graph, the same bytes), 'cpu' (a graph a thread on
    every core or threads), 'auto' the GPU where there is one and no graph
    has more than GPU_SHARED_MAX vertices."""
    _engine.pick_device(device)
    if isinstance(graphs_given, np.ndarray) and graphs_given.ndim == 3:
        if where(device, np.array([graphs_given.shape[1]])) == "gpu":
            got = dense_on_gpu(graphs_given, _lib.FW_MINPLUS, directed, unweighted,
                               return_predecessors, unreachable)
            if got is not None:
                return unpadded(got, padded)
    dist, sizes, _ = graphs(graphs_given, directed, unweighted)
    pred = solve(dist, return_predecessors, threads, sizes=sizes, device=where(device, sizes))
    return shaped(dist, pred, sizes, padded, unreachable)


def unpadded(got, padded):
    """dense_on_gpu's (dist, pred) as floyd_warshall returns them."""
    dist, pred = got
    if padded:
        return (dist, pred) if pred is not None else dist
    dl = list(dist)
    return dl if pred is None else (dl, list(pred))


def batch_from_edges(edge_index, weights=None, batch=None, *, directed=True,
                     return_predecessors=False, unweighted=False, device="auto", threads=None,
                     padded=True, unreachable=np.inf):
    """All pairs of every graph of a batch kept as PyG and DGL keep one:
    edge_index (2, E) arcs u -> v between the batch's vertices, numbered
    across the batch; weights (E,) (None: 1 each); batch (the vertex count,)
    each vertex's graph, the graphs' vertices in turn (None: one graph).  An
    arc is an edge whatever its weight (0 too; the least of repeated arcs;
    loops ignored), as a scipy.sparse matrix's stored entries are.  Returns
    as floyd_warshall does for a batch: (B, N, N) distances padded to the
    largest graph, or a list with padded=False; device as there."""
    ei = np.asarray(edge_index)
    if ei.ndim != 2 or ei.shape[0] != 2:
        raise ValueError("edge_index must be shape (2, E): %s was given" % (tuple(ei.shape),))
    u, v = ei[0].astype(np.int64), ei[1].astype(np.int64)
    w = np.ones(u.size) if weights is None or unweighted else np.asarray(weights, dtype=FLOAT)
    if w.shape != u.shape:
        raise ValueError("weights must be shape (E,) = (%d,): %s was given"
                         % (u.size, tuple(w.shape)))
    if np.isnan(w).any() or np.isneginf(w).any():
        raise ValueError("an edge weight is NaN or -infinity")
    if batch is None:
        batch = np.zeros(int(ei.max()) + 1 if ei.size else 0, dtype=np.int64)
    batch = np.asarray(batch, dtype=np.int64)
    if batch.size and (np.any(np.diff(batch) < 0) or batch[0] < 0):
        raise ValueError("batch must number the graphs from 0 up, each graph's vertices in turn")
    nv = batch.size
    if u.size and (u.min() < 0 or v.min() < 0 or max(u.max(), v.max()) >= nv):
        raise ValueError("edge_index names a vertex outside 0 .. %d" % (nv - 1))
    sizes = np.bincount(batch).astype(np.int64) if nv else np.zeros(0, dtype=np.int64)
    first = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    g = batch[u]
    if np.any(batch[v] != g):
        k = int(np.flatnonzero(batch[v] != g)[0])
        raise ValueError("arc %d joins graphs %d and %d" % (k, g[k], batch[v[k]]))
    n = int(sizes.max()) if sizes.size else 0
    keep = (u != v) & np.isfinite(w)
    g, lu, lv, w = g[keep], (u - first[g])[keep], (v - first[g])[keep], w[keep]
    if not directed:
        g, lu, lv, w = (np.concatenate((g, g)), np.concatenate((lu, lv)),
                        np.concatenate((lv, lu)), np.concatenate((w, w)))
    _engine.pick_device(device)
    if where(device, sizes) == "gpu" and n <= 65535:
        got = _arcs_on_gpu(sizes, n, g, lu, lv, w, return_predecessors, unreachable)
        return unpadded(got, True) if padded else _own_sizes(got, sizes)
    dist = np.full((sizes.size, n, n), np.inf)
    order = np.argsort(-w, kind="stable")  # the least of repeated arcs written last
    dist[g[order], lu[order], lv[order]] = w[order]
    i = np.arange(n)
    dist[:, i, i] = 0
    pred = solve(dist, return_predecessors, threads, sizes=sizes, device=where(device, sizes))
    return shaped(dist, pred, sizes, padded, unreachable)


def _arcs_on_gpu(sizes, n, g, lu, lv, w, paths, unreachable):
    """fwsg_solve_arcs: each graph's arcs (graph g, its own vertices lu ->
    lv, weights w) up to the device, its room made there: (dist, pred or
    None), padded with unreachable and -9999."""
    if g.size and np.any(g[1:] < g[:-1]):
        order = np.argsort(g, kind="stable")
        g, lu, lv, w = g[order], lu[order], lv[order], w[order]
    count = sizes.size
    first = np.zeros(count + 1, dtype=np.uint64)
    np.cumsum(np.bincount(g, minlength=count), out=first[1:])
    arcs = np.empty((g.size, 2), dtype=np.uint16)
    arcs[:, 0], arcs[:, 1] = lu, lv
    w = np.ascontiguousarray(w, dtype=FLOAT)
    own = np.ascontiguousarray(sizes, dtype=np.uint32)
    dist = np.empty((count, n, n), dtype=FLOAT)
    pred = np.empty((count, n, n), dtype=np.int32) if paths else None
    cycle = np.empty(count, dtype=np.int64)
    msg = ctypes.create_string_buffer(256)
    rc = _lib.gpu().fwsg_solve_arcs(count, n, own.ctypes.data, first.ctypes.data,
                                    arcs.ctypes.data, w.ctypes.data, float(unreachable),
                                    _engine.NO_PREDECESSOR, dist.ctypes.data,
                                    pred.ctypes.data if paths else None, 0, cycle.ctypes.data,
                                    msg, 256)
    if rc < 0:
        text = msg.value.decode("utf-8", "replace")
        raise MemoryError(text) if "out of memory" in text else ValueError(text)
    _raise_cycles(rc, cycle)
    return dist, pred


def _own_sizes(got, sizes):
    """(dist, pred) padded as each graph's own arrays (padded=False)."""
    dist, pred = got
    dl = [dist[b, :k, :k] for b, k in enumerate(sizes)]
    return dl if pred is None else (dl, [pred[b, :k, :k] for b, k in enumerate(sizes)])
