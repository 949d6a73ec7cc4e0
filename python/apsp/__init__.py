"""apsp: all-pairs shortest paths on the toolkit's engines, in this process.

    import apsp
    dist = apsp.floyd_warshall(G)                       # scipy's interface
    dist, pred = apsp.shortest_path(G, return_predecessors=True, device="cpu")
    table = apsp.stats(G)                               # apsp-stats' columns
    table = apsp.stats(road, engine="sparse")            # scipy.sparse, no n x n
    bc = apsp.betweenness_centrality(G)                 # networkx's, weighted
    apsp.certify(G, dist, pred)                         # proved shortest, or raises
    d = apsp.distance_table(G, sources, targets)        # len(sources) x len(targets)
    D = apsp.floyd_warshall(graphs)                     # (B, N, N): many small graphs
    D = apsp.batch_from_edges(edge_index, w, batch)     # PyG's and DGL's layout
    W = apsp.widest_paths(G)                            # bottleneck widths (max, min)
    R = apsp.reachability(G)                            # bool: who reaches whom

shortest_path, floyd_warshall, dijkstra (limit=, min_only=), bellman_ford
and johnson take scipy.sparse.csgraph's arguments and
give its results (float64 distances, int32 predecessors with -9999 for
none, NegativeCycleError); device= ('auto', 'cpu', 'gpu') and threads= are
this package's.  load and save read and write the toolkit's streams
(apspmat.py).  numpy is needed; scipy only for scipy matrices.  The
libraries are found in the checkout (after make) or where make install put
them (see _lib.py)."""
from . import _lib
from ._batch import batch_from_edges
from ._betweenness import betweenness_centrality
from ._certify import certify, NotShortestError
from ._csgraph import (bellman_ford, dijkstra, distance_table, floyd_warshall, johnson,
                       shortest_path)
from ._engine import has_gpu
from ._semirings import reachability, widest_paths
from ._errors import NegativeCycleError
from ._stats import stats, COLUMNS

# A library of another layout is refused at once; one not built yet is
# looked for again at the first call that needs it.
try:
    _lib.cpu()
except _lib.LayoutError:
    raise
except ImportError:
    pass

try:
    from apspmat import Stream, StreamError, load, save
except ImportError:  # pragma: no cover - apspmat.py lies beside this package
    pass

__all__ = ["floyd_warshall", "shortest_path", "dijkstra", "bellman_ford", "johnson",
           "distance_table", "stats", "COLUMNS", "betweenness_centrality",
           "certify", "NegativeCycleError", "NotShortestError",
           "has_gpu", "load", "save", "Stream", "StreamError"]
