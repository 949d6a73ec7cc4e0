"""Betweenness centrality from the engines (lib/stats.h, gs_betweenness_arcs):
networkx's betweenness_centrality on the same graph."""
import ctypes

import numpy as np

from . import _engine, _lib, _memory
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


def _declare_steps(lib, glib):
    p, u64, c = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_char_p
    lib.gs_bc_new.argtypes = [p, u64, ctypes.c_uint32, u64, p, p, p, p, p, p]
    lib.gs_bc_new.restype = ctypes.c_int
    lib.gs_bc_graph.argtypes = [p, p, p]
    lib.gs_bc_graph.restype = p
    lib.gs_bc_add_partials.argtypes = [p, u64, u64, p, p]
    lib.gs_bc_add_partials.restype = ctypes.c_int
    lib.gs_bc_finish.argtypes = [p, p, p]
    lib.gs_bc_finish.restype = ctypes.c_int
    lib.gs_bc_free.argtypes = [p]
    lib.gs_bc_free.restype = None
    glib.fwb_new.argtypes = [p, ctypes.c_int, u64, p, p, u64, u64, c, ctypes.c_size_t]
    glib.fwb_new.restype = ctypes.c_int
    glib.fwb_room.argtypes = [p, c, ctypes.c_size_t]
    glib.fwb_room.restype = p
    glib.fwb_put.argtypes = [p, u64, u64, c, ctypes.c_size_t]
    glib.fwb_put.restype = ctypes.c_int
    glib.fwb_take.argtypes = [p, ctypes.POINTER(ctypes.c_double), c, ctypes.c_size_t]
    glib.fwb_take.restype = p
    glib.fwb_free.argtypes = [p]
    glib.fwb_free.restype = None
    glib.fwb_free_memory.argtypes = [ctypes.c_int]
    glib.fwb_free_memory.restype = ctypes.c_double
    glib.fwb_batch_bytes.argtypes = [u64, u64]
    glib.fwb_batch_bytes.restype = ctypes.c_double


def _check_rc(rc, bad, err):
    if rc == 1:
        raise ValueError("edge %d -> %d has a negative weight (betweenness counts shortest "
                         "paths with weights of 0 or more)" % (bad[0], bad[1]))
    if rc == 2:
        raise ValueError("edge %d -> %d lies on a cycle of zero weight (its vertices have "
                         "shortest walks without end, and no count)" % (bad[0], bad[1]))
    if rc < 0:
        raise (MemoryError if "out of memory" in err.text() else ValueError)(err.text())


def _distances_on_gpu(n, u, v, w, threads):
    """All pairs of the arcs (whole weights) by the GPU engine: float64, whose
    sums of whole weights below 2^53 are exact."""
    _memory.check_gpu_host(n, False, False)
    g = np.full((n, n), np.inf)
    np.minimum.at(g, (u, v), w)  # the least of repeats
    _engine.solve(g, False, "gpu", threads)
    return g


def _sums_on_gpu(lib, glib, bc, n, g):
    """The sources' sums of bc from g's rows (float64 distances, +inf none)
    on GPU 0 (kernels/betweenness/fw_betweenness.h), in batches as many as fit."""
    arcs, m = ctypes.c_void_p(), ctypes.c_uint64()
    first = lib.gs_bc_graph(bc, ctypes.byref(arcs), ctypes.byref(m))
    fit = int(0.8 * glib.fwb_free_memory(0) / glib.fwb_batch_bytes(n, 64)) * 64
    batch = min((n + 63) // 64 * 64, fit)
    if batch < 64:
        raise MemoryError("betweenness on the GPU: no room for 64 sources of n = %d" % n)
    msg = ctypes.create_string_buffer(512)
    err = _lib.Error()
    fb = ctypes.c_void_p()
    if glib.fwb_new(ctypes.byref(fb), 0, n, first, arcs, m.value, batch, msg, 512) < 0:
        raise RuntimeError(msg.value.decode("utf-8", "replace"))
    try:
        kernel_ms = ctypes.c_double(0)
        for s0 in range(0, n, batch):
            count = min(batch, n - s0)
            room = glib.fwb_room(fb, msg, 512)
            if not room:
                raise RuntimeError(msg.value.decode("utf-8", "replace"))
            rows = np.ctypeslib.as_array((ctypes.c_int32 * (count * n)).from_address(room))
            rows = rows.reshape(count, n)
            for r0 in range(0, count, 1024):  # (a few rows at a time: no copy n x n)
                block = g[s0 + r0:s0 + min(count, r0 + 1024)]
                np.copyto(rows[r0:r0 + len(block)],
                          np.where(np.isinf(block), _lib.ST_INF_I32, block), casting="unsafe")
            if glib.fwb_put(fb, s0, count, msg, 512) < 0:
                raise RuntimeError(msg.value.decode("utf-8", "replace"))
            partials = glib.fwb_take(fb, ctypes.byref(kernel_ms), msg, 512)
            if not partials:
                raise RuntimeError(msg.value.decode("utf-8", "replace"))
            if lib.gs_bc_add_partials(bc, s0, count, partials, ctypes.byref(err)) < 0:
                raise RuntimeError(err.text())
    finally:
        glib.fwb_free(fb)


def _on_gpu(lib, glib, n, u, v, wt, threads, out):
    """out filled by the GPU: the distances, then the sources' sums.  False
    (out untouched) where a distance is past int32's range, which the
    sums on the GPU take."""
    _declare_steps(lib, glib)
    bc = ctypes.c_void_p()
    bad = (ctypes.c_uint32 * 2)()
    err = _lib.Error()
    opts = _lib.GsBcOpts(0, _engine._threads(threads), None, None)
    rc = lib.gs_bc_new(ctypes.byref(bc), n, _lib.ST_INT32, len(wt), u.ctypes.data, v.ctypes.data,
                       wt.ctypes.data, ctypes.byref(opts), bad, ctypes.byref(err))
    _check_rc(rc, bad, err)
    try:
        g = _distances_on_gpu(n, u, v, wt.astype(np.float64), threads)
        if np.max(g, where=np.isfinite(g), initial=0) >= _lib.ST_INF_I32:
            return False
        _sums_on_gpu(lib, glib, bc, n, g)
        del g
        if lib.gs_bc_finish(bc, ctypes.byref(out), ctypes.byref(err)) < 0:
            raise (MemoryError if "out of memory" in err.text() else RuntimeError)(err.text())
    finally:
        lib.gs_bc_free(bc)
    return True


def betweenness_centrality(csgraph, directed=True, weighted=True, normalized=True, *,
                           device="auto", threads=None):
    """networkx's betweenness_centrality(G, weight="weight" if weighted else
    None, normalized=normalized) of csgraph, normalized by default as
    networkx's is (scipy's conventions: a dense
    array's 0 is no edge, a scipy.sparse graph's stored entries are edges,
    the least of repeats; with directed=False each edge both ways and the
    values halved, as networkx gives an undirected graph's): a float64 array
    of one value per vertex.  Paths are counted exactly, zero-weight edges
    included, without overflow; whole weights in int32's range are summed as
    integers (the sparse engine's rows, or the CPU engine's rounds, read for
    each source's tight edges), others in doubles along a search from each
    source as networkx sums them.  ValueError where a weight is negative or
    a cycle has zero weight (its paths have no count).  device: 'gpu' (or
    'auto' where a GPU is there and the graph has whole weights and over 32
    edges a vertex, as the engines' dense rule) makes the distances on the
    GPU and each source's sums there too (the same values as the CPU's, to
    the bit; a distance past int32's range sends the sums to the CPU);
    'cpu', and graphs of fractional weights, on the CPU.  device='gpu'
    without a GPU is a RuntimeError."""
    if device not in ("auto", "cpu", "gpu"):
        raise ValueError("device=%r: 'auto', 'cpu' or 'gpu'" % (device,))
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
    gpu = _engine.pick_device(device) == "gpu" and whole and n > 0 \
        and (device == "gpu" or len(wt) > 32 * n)
    if not (gpu and _on_gpu(lib, _lib.gpu(), n, u, v, wt, threads, out)):
        opts = _lib.GsBcOpts(0, _engine._threads(threads), None, None)
        bad = (ctypes.c_uint32 * 2)()
        err = _lib.Error()
        rc = lib.gs_betweenness_arcs(ctypes.byref(out), n, kind, len(wt), u.ctypes.data,
                                     v.ctypes.data, wt.ctypes.data, ctypes.byref(opts), bad,
                                     ctypes.byref(err))
        _check_rc(rc, bad, err)
    try:
        lib.gs_betweenness_scale(ctypes.byref(out), int(normalized), int(directed))
        values = np.ctypeslib.as_array(ctypes.cast(out.vertex, ctypes.POINTER(ctypes.c_double)),
                                       shape=(n,)).copy() if n else np.zeros(0)
    finally:
        lib.gs_betweenness_free(ctypes.byref(out))
    return values
