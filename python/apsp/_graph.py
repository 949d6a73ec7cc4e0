"""scipy.sparse.csgraph's conventions for the graph a caller passes: what
is an edge, what is not, as a dense float64 matrix with +inf where there is
no edge and 0 on the diagonal, ready for the engines."""
import numpy as np

try:
    import scipy.sparse as _sparse
except ImportError:  # numpy alone: dense and masked arrays only
    _sparse = None

FLOAT = np.float64


def _is_sparse(g):
    return _sparse is not None and _sparse.issparse(g)


def _square(shape):
    if len(shape) != 2:
        raise ValueError("compressed-sparse graph must be 2-D")
    if shape[0] != shape[1]:
        raise ValueError("compressed-sparse graph must be shape (N, N)")
    return shape[0]


def _from_sparse(g):
    """Stored entries are edges (explicit zeros too); of repeated entries
    the smallest; a NaN weight is an error."""
    n = _square(g.shape)
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
    """0, NaN and infinities are no edge; masked entries are none either."""
    if np.ma.isMaskedArray(g):
        mask = np.ma.getmaskarray(g)
        dist = np.array(g.data, dtype=FLOAT)
        _square(dist.shape)
        dist[mask] = np.inf
    else:
        a = np.asarray(g)
        if a.dtype == object:
            raise ValueError("the graph must hold numbers")
        reuse = (overwrite and isinstance(g, np.ndarray) and a.dtype == FLOAT
                 and a.flags.c_contiguous and a.flags.writeable)
        dist = a if reuse else np.array(a, dtype=FLOAT, order="C")
        _square(dist.shape)
    dist[(dist == 0) | ~np.isfinite(dist)] = np.inf
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
