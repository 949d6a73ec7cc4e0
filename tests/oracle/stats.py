"""The statistics of apsp-stats (and apsp-cpu/apsp-gpu --stats) against
networkx and igraph on the same graph.

    python3 stats.py GRAPH.mtx TABLE.tsv NAME [unit]

GRAPH.mtx is the graph as bin2mtx exports it (coordinate, 1-based, the
finite off-diagonal weights of the stream); TABLE.tsv the table printed.
Distances come from igraph (Bellman-Ford where a weight is negative); closeness
and harmonic centrality from networkx's own functions where no weight is
negative (networkx's Dijkstra refuses them), else from networkx's formulas
on networkx's Bellman-Ford distances; eccentricities from igraph's
distances, and with "unit" (every weight 1) from igraph's eccentricity().
Prints one PASS or FAIL line per column.
"""
import math
import sys

import igraph
import networkx as nx


def read_mtx(path):
    n, edges, real = 0, [], False
    with open(path) as f:
        for line in f:
            if line.startswith("%%MatrixMarket"):
                real = "real" in line
                continue
            if line.startswith("%") or not line.strip():
                continue
            parts = line.split()
            if n == 0:
                n = int(parts[0])
                continue
            u, v, w = int(parts[0]) - 1, int(parts[1]) - 1, float(parts[2])
            edges.append((u, v, w))
    return n, edges, real


def read_table(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = [line.rstrip("\n").split("\t") for line in f]
    return {h: [r[i] for r in rows] for i, h in enumerate(head)}


def close(a, b, rel):
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def main():
    mtx, tsv, name = sys.argv[1], sys.argv[2], sys.argv[3]
    unit = len(sys.argv) > 4 and sys.argv[4] == "unit"
    n, edges, real = read_mtx(mtx)
    t = read_table(tsv)
    # float32 graphs: the engines add float32 weights, the oracles doubles
    rel = 1e-5 if real else 1e-12
    neg = any(w < 0 for _, _, w in edges)

    g = igraph.Graph(n=n, edges=[(u, v) for u, v, _ in edges], directed=True)
    g.es["weight"] = [w for _, _, w in edges]
    dist = g.distances(weights="weight", mode="out")
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(edges)

    want = {k: [] for k in ("out_reach", "in_reach", "out_sum", "in_sum",
                            "out_eccentricity", "in_eccentricity")}
    for u in range(n):
        out = [dist[u][v] for v in range(n) if v != u and math.isfinite(dist[u][v])]
        inc = [dist[v][u] for v in range(n) if v != u and math.isfinite(dist[v][u])]
        want["out_reach"].append(len(out))
        want["in_reach"].append(len(inc))
        want["out_sum"].append(sum(out))
        want["in_sum"].append(sum(inc))
        want["out_eccentricity"].append(max([0.0] + out))
        want["in_eccentricity"].append(max([0.0] + inc))
    if unit and n:
        want["out_eccentricity"] = [float(x) for x in g.eccentricity(mode="out")]
        want["in_eccentricity"] = [float(x) for x in g.eccentricity(mode="in")]
    if not neg:
        cc = nx.closeness_centrality(G, distance="weight")
        hc = nx.harmonic_centrality(G, distance="weight")
        want["closeness"] = [cc[u] for u in range(n)]
        want["harmonic"] = [hc[u] for u in range(n)]
    else:  # networkx's definitions on Bellman-Ford distances (incoming)
        d_in = {v: nx.single_source_bellman_ford_path_length(G.reverse(), v) for v in range(n)}
        want["closeness"], want["harmonic"] = [], []
        for u in range(n):
            sp = d_in[u]
            tot = sum(sp.values())
            c = (len(sp) - 1) / tot * ((len(sp) - 1) / (n - 1)) if tot > 0 and n > 1 else 0.0
            want["closeness"].append(c)
            want["harmonic"].append(sum(1 / d for v, d in sp.items() if d != 0))

    ok = len(t.get("vertex", [])) == n and t["vertex"] == [str(u) for u in range(n)]
    print(("PASS" if ok else "FAIL") + " %s: one line a vertex (%d)" % (name, n))
    for col, vals in want.items():
        got = [float(x) for x in t.get(col, [])]
        bad = [u for u in range(min(n, len(got))) if not close(got[u], float(vals[u]), rel)]
        if len(got) != n or bad:
            u = bad[0] if bad else 0
            print("FAIL %s: %s (vertex %d: %s, oracle %r)" % (
                name, col, u, got[u] if got else "-", vals[u] if vals else "-"))
        else:
            print("PASS %s: %s" % (name, col))


if __name__ == "__main__":
    main()
