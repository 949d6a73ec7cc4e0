"""A batch of small graphs as molecules come, in PyG's layout, for
bench/batch.py and bench/batch-gpu.py."""
import numpy as np


def molecules(count, rng):
    """count random graphs of 10 to 60 vertices, about 1.1 bonds a vertex,
    each bond both ways: (edge_index (2, E), batch (each vertex's graph),
    the graphs' sizes)."""
    sizes = rng.integers(10, 61, count)
    first = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    batch = np.repeat(np.arange(count), sizes)
    g = np.repeat(np.arange(count), (sizes * 1.1).astype(int))
    u = first[g] + (rng.random(g.size) * sizes[g]).astype(int)
    v = first[g] + (rng.random(g.size) * sizes[g]).astype(int)
    return np.array([np.concatenate((u, v)), np.concatenate((v, u))]), batch, sizes
