"""Widest (bottleneck) paths and reachability of a graph or a batch of
graphs, read by scipy's rules, on the CPU engine's small-graph rounds
(fw_batch over the semiring: a graph a thread)."""
import ctypes

import numpy as np

from . import _batch, _lib
from ._engine import _threads


def _unbatched(got, single):
    if not single:
        return got
    if isinstance(got, tuple):
        return tuple(x[0] for x in got)
    return got[0]


def widest_paths(csgraph, directed=True, return_predecessors=False, *, device="auto",
                 threads=None, padded=True, unreachable=-np.inf):
    """The width of the widest (bottleneck) path between every two vertices:
    a path's width is its narrowest edge's weight, and the answer is the
    largest width of any path (+inf from a vertex to itself, unreachable,
    -inf by default, where there is no path).  csgraph is one graph as
    scipy's floyd_warshall takes it (a dense array's 0, NaN and infinities
    are no edge; a scipy.sparse matrix's stored entries are edges, zero
    too; an undirected graph's edge the smaller of its two ways) or a batch
    (a (B, N, N) array or a list of graphs, answered as floyd_warshall
    answers a batch: padded=, unreachable=).  return_predecessors: int32
    predecessors of a widest path (-9999: none).  A graph a thread on the
    CPU, or one graph of 1024 vertices or more on every core; a batch runs
    on the GPU as floyd_warshall's does (device=): n^3 steps, meant for
    graphs of up to a few thousand vertices."""
    if isinstance(csgraph, np.ndarray) and csgraph.ndim == 3:
        if _batch.where(device, np.array([csgraph.shape[1]])) == "gpu":
            got = _batch.dense_on_gpu(csgraph, _lib.FW_WIDEST, directed, False,
                                      return_predecessors, unreachable)
            if got is not None:
                return _batch.unpadded(got, padded)
    dist, sizes, single = _batch.graphs(csgraph, directed, False)
    np.copyto(dist, -np.inf, where=np.isposinf(dist))  # no edge: the semiring's zero
    on = _batch.where(device, sizes)
    on = "cpu" if single and device == "auto" else on  # one graph: the CPU's rounds
    pred = _batch.solve(dist, return_predecessors, threads, _lib.FW_WIDEST, sizes, on)
    return _unbatched(_batch.shaped(dist, pred, sizes, padded or single, unreachable,
                                    none=-np.inf), single)


def reachability(csgraph, directed=True, *, threads=None, padded=True):
    """Whether each vertex reaches each other (itself too) through the
    graph's edges: a bool array (N, N), or (B, N, N) for a batch (a graph's
    padding False; padded=False: a list).  The graph as widest_paths reads
    it; weights do not matter, only which edges there are.  Rows of bits, a
    graph a thread on the CPU (one of 1024 vertices or more on every core)."""
    dist, sizes, single = _batch.graphs(csgraph, directed, False)
    reach = np.isfinite(dist).view(np.uint8)
    n = reach.shape[1]
    err = _lib.Error()
    own = _batch.room_sizes(sizes, n)
    if _lib.cpu().fw_batch_reach(reach.shape[0], n, own.ctypes.data if own is not None else None,
                                 reach.ctypes.data, _threads(threads), ctypes.byref(err)) < 0:
        raise MemoryError(err.text())
    got = reach.view(np.bool_)
    _batch.pad(got, sizes, False)
    if single:
        return got[0]
    return got if padded else [got[b, :k, :k] for b, k in enumerate(sizes)]
