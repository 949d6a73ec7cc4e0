"""The betweenness of apsp-cpu --stats --betweenness (and its
--edge-betweenness file) against networkx and igraph on the same graph.

    python3 betweenness.py GRAPH.mtx TABLE.tsv NAME [options]

GRAPH.mtx is the graph as bin2mtx exports it (coordinate, 1-based, the
finite weights, repeats already merged; the diagonal is dropped here, as
the engines drop loops: networkx would double a vertex's path count for a
zero loop); TABLE.tsv the table printed, its last column the betweenness.
Options:
  --undirected   the graph is undirected (an nx.Graph; the table halved)
  --normalized   the values are normalized=True's
  --edges FILE   FILE is the --edge-betweenness file, held to networkx's
                 edge_betweenness_centrality
  --exact        hold the values to a count of every simple path instead
                 (fractions, small graphs): networkx's Dijkstra miscounts
                 paths along zero-weight arcs (a tie found after a vertex
                 settled is not passed on), and igraph refuses zero weights
Prints one PASS or FAIL line per oracle.
"""
import sys
from fractions import Fraction

import igraph
import networkx as nx

import stats  # (beside this file: its Matrix Market reader)

TOL = 1e-9


def read_mtx(path):
    """The arcs off the diagonal (stats.py reads the file)."""
    n, edges, _ = stats.read_mtx(path)
    return n, [(u, v, w) for u, v, w in edges if u != v]


def read_column(path, n):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        col = head.index("betweenness")
        rows = [line.rstrip("\n").split("\t") for line in f]
    if len(rows) != n:
        raise SystemExit("FAIL table: %d rows for %d vertices" % (len(rows), n))
    return [float(r[col]) for r in rows]


def exact(n, arcs, directed):
    """Every simple path from each source enumerated: the shortest ones'
    shares, as fractions."""
    out = {}
    for u, v, w in arcs:
        out.setdefault(u, []).append((v, w))
    bc = [Fraction(0)] * n
    for s in range(n):
        best, paths = {}, {}
        stack = [(s, 0.0, (s,))]
        while stack:
            u, d, path = stack.pop()
            for v, w in out.get(u, []):
                if v in path:
                    continue
                nd, p = d + w, path + (v,)
                if v not in best or nd < best[v]:
                    best[v], paths[v] = nd, [p]
                elif nd == best[v]:
                    paths[v].append(p)
                stack.append((v, nd, p))
        for t, ps in paths.items():
            for p in ps:
                for x in p[1:-1]:
                    bc[x] += Fraction(1, len(ps))
    return [float(x) if directed else float(x) / 2 for x in bc]


def close(a, b):
    return abs(a - b) <= TOL * max(1.0, abs(a), abs(b))


def report(name, got, want):
    bad = [i for i in range(len(want)) if not close(got[i], want[i])]
    if bad:
        i = bad[0]
        print("FAIL %s: %d values differ; vertex %d: %r, wanted %r" % (name, len(bad), i, got[i], want[i]))
    else:
        print("PASS %s" % name)


def main():
    graph, table, name = sys.argv[1:4]
    opts = sys.argv[4:]
    directed = "--undirected" not in opts
    normalized = "--normalized" in opts
    n, arcs = read_mtx(graph)
    got = read_column(table, n)
    if "--exact" in opts:
        want = exact(n, arcs, directed)
        if normalized and n > 2:
            want = [x * (1 if directed else 2) / ((n - 1) * (n - 2)) for x in want]
        report(name + ": exact path counts", got, want)
        return
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(arcs)
    b = nx.betweenness_centrality(G, weight="weight", normalized=normalized)
    report(name + ": networkx", got, [b[i] for i in range(n)])
    if all(w > 0 for _, _, w in arcs):
        edges = list(G.edges())
        g = igraph.Graph(n=n, edges=edges, directed=directed)
        ib = g.betweenness(weights=[G[u][v]["weight"] for u, v in edges], directed=directed)
        if normalized and n > 2:
            ib = [x * (1 if directed else 2) / ((n - 1) * (n - 2)) for x in ib]
        report(name + ": igraph", got, ib)
    if "--edges" in opts:
        path = opts[opts.index("--edges") + 1]
        eb = nx.edge_betweenness_centrality(G, weight="weight", normalized=normalized)
        lines = [l.split("\t") for l in open(path).read().splitlines()]
        have = {(int(u), int(v)): float(x) for u, v, x in lines}
        want = {}
        for (u, v), x in eb.items():
            want[(u, v) if directed or u < v else (v, u)] = x
        if set(have) != set(want):
            print("FAIL %s: edges: %d lines for %d edges" % (name, len(have), len(want)))
        else:
            keys = sorted(want)
            report(name + ": networkx's edge betweenness", [have[k] for k in keys],
                    [want[k] for k in keys])


main()
