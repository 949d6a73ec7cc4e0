"""scipy.sparse.csgraph's conventions for the graph a caller passes: what
is an edge, what is not, as a dense float64 matrix with +inf where there is
no edge and 0 on the diagonal, ready for the engines."""
import numpy as np

try:
    import scipy.sparse as _sparse
except ImportError:  # numpy alone: dense and masked arrays only
    _sparse = None

FLOAT = np.float64
# scipy reads a dense array through np.ma.masked_values(graph, 0), whose
# tolerance (atol 1e-8, rtol 1e-5 of 0) makes every weight of magnitude at
# most 1e-8 "no edge", not only 0 (scipy's issue 18051).  As a drop-in the
# package gives scipy's answer: such weights are no edge in dense input.
NULL_ATOL = 1e-8


def null_entries(a):
    """Where a dense float64 array holds no edge, as scipy reads it: 0 within
    NULL_ATOL, NaN and the infinities."""
    return (np.abs(a) <= NULL_ATOL) | ~np.isfinite(a)


def _is_sparse(g):
    return _sparse is not None and _sparse.issparse(g)


def _square(shape, what="a dense array"):
    """N of an N x N graph; else scipy's words, naming what was given."""
    if len(shape) != 2:
        raise ValueError("compressed-sparse graph must be 2-D: %s of shape %s was given"
                         % (what, tuple(shape)))
    if shape[0] != shape[1]:
        raise ValueError("compressed-sparse graph must be shape (N, N): %s of shape %s was "
                         "given" % (what, tuple(shape)))
    return shape[0]


def _from_sparse(g):
    """Stored entries are edges (explicit zeros too); of repeated entries
    the smallest; a NaN weight is an error."""
    n = _square(g.shape, "a scipy.sparse matrix")
    if g.format not in ("csr", "csc"):
        g = g.tocsr()
    data = np.asarray(g.data, dtype=FLOAT)
    if np.isnan(data).any():
        raise ValueError("a stored edge weight is NaN")
    major = np.repeat(np.arange(n), np.diff(g.indptr))
    minor = np.asarray(g.indices)
    rows, cols = (major, minor) if g.format == "csr" else (minor, major)
    dist = np.full((n, n), np.inf, dtype=FLOAT)
    # the largest first, so that of repeated entries the smallest is left
    order = np.argsort(-data, kind="stable")
    dist[rows[order], cols[order]] = data[order]
    return dist


def _from_dense(g, overwrite):
    """0 (within NULL_ATOL, as scipy), NaN and infinities are no edge;
    masked entries are none either."""
    if np.ma.isMaskedArray(g):
        mask = np.ma.getmaskarray(g)
        dist = np.array(g.data, dtype=FLOAT)
        _square(dist.shape, "a masked array")
        dist[mask] = np.inf
    else:
        a = np.asarray(g)
        if a.dtype == object:
            raise ValueError("the graph must hold numbers")
        reuse = (overwrite and isinstance(g, np.ndarray) and a.dtype == FLOAT
                 and a.flags.c_contiguous and a.flags.writeable)
        dist = a if reuse else np.array(a, dtype=FLOAT, order="C")
        _square(dist.shape)
    dist[null_entries(dist)] = np.inf
    return dist


def dense_graph(csgraph, directed=True, unweighted=False, overwrite=False):
    """The n x n float64 weights (C order): +inf where there is no edge, the
    diagonal 0; symmetric (the smaller of the two ways) when not directed.
    With overwrite, a C-ordered float64 ndarray is used in place."""
    if _is_sparse(csgraph):
        dist = _from_sparse(csgraph)
    else:
        dist = _from_dense(csgraph, overwrite)
    if unweighted:
        dist[np.isfinite(dist)] = 1
    if not directed:
        np.minimum(dist, dist.T.copy(), out=dist)
    np.fill_diagonal(dist, 0)
    if np.isneginf(dist).any():
        raise ValueError("an edge weight is -infinity")
    return dist


def arcs(g, directed, unweighted):
    """A scipy.sparse graph's arcs by scipy's conventions (stored entries are
    edges, explicit zeros too; +inf is none; the smallest of repeats; the
    diagonal ignored): n, and from, to (uint32) and weights (float64)."""
    n = _square(g.shape, "a scipy.sparse matrix")
    g = g.tocoo()
    w = np.asarray(g.data, dtype=np.float64)
    if np.isnan(w).any():
        raise ValueError("a stored edge weight is NaN")
    if np.isneginf(w).any():
        raise ValueError("an edge weight is -infinity")
    keep = (g.row != g.col) & np.isfinite(w)
    u, v, w = g.row[keep].astype(np.uint32), g.col[keep].astype(np.uint32), w[keep]
    if unweighted:
        w = np.ones_like(w)
    if not directed:
        u, v, w = np.concatenate((u, v)), np.concatenate((v, u)), np.concatenate((w, w))
    return n, np.ascontiguousarray(u), np.ascontiguousarray(v), np.ascontiguousarray(w)
