"""One differential test over every route that gives distances or paths.

    python3 routes.py TOP cpu|gpu GRAPHS [SEED]

Small hostile graphs (zero-weight arcs and cycles, negative arcs, ties,
repeated entries, loops, pieces apart, one-way arcs, float weights that
round, negative cycles now and then) go through each route of the engines
(dense and sparse, kept and derived predecessors, rows, sources, tables; the
element types int32, float32 and float64; Python's calls), every result is
certified shortest against its graph (apsp.certify, lib/certify.h; a
table, which cannot be, is held to the certified rows) and its distances
compared with the first route's.  Prints PASS or FAIL a route;
a failure names the seed, the graph's number and the route, and the graph
is left in build/routes-failed/ to run again."""
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile

import numpy as np

TOP = sys.argv[1]
sys.path[:0] = [os.path.join(TOP, "python")]
import apsp  # noqa: E402
import apspmat  # noqa: E402
try:
    import scipy.sparse as sp  # Python's routes take the graph as scipy.sparse
except ImportError:
    sp = None

DEVICE = sys.argv[2]
GRAPHS = int(sys.argv[3])
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 1
BIN = os.path.join(TOP, "bin")
ENGINE = os.path.join(BIN, "apsp-gpu" if DEVICE == "gpu" else "apsp-cpu")
TOL = {"int32": 0.0, "float32": 1e-5, "float64": 1e-12}
# apsp-gpu's rows are the sparse engine's alone; where it declines a graph
# the run is refused by name, as documented (apsp-cpu takes them).
REFUSAL = "the sparse engine's alone on the GPU"
# The command-line routes every CLI_EVERY graphs (a GPU run starts a device
# context, which costs more than the graph); Python's calls every graph.
CLI_EVERY = int(os.environ.get("ROUTES_CLI_EVERY", "1"))  # (0: Python's alone)
ROUNDING = [0.1, 0.2, 0.3, 0.7, 1e-3, 1.1, 2.675, 1 / 3, 1e-7, 3.3333333]


def weight(rng, kind, lo):
    if kind == "int32":
        return rng.randint(lo, 12) if rng.random() > 0.2 else 0
    r = rng.random()
    if r < 0.2:
        return 0.0
    if r < 0.5:
        return rng.choice(ROUNDING) * rng.randint(1, 9)
    return round(rng.uniform(max(lo, 0), 12), rng.randint(0, 9))


def hostile(rng):
    """n, type, undirected, and the entries (u, v, w) as a file lists them:
    repeats, loops and one-way arcs among them."""
    n = rng.choice([1, 2, 3, 5, 8, 13, 17, 24, 33])
    kind = rng.choice(["int32", "float32", "float64"])
    undirected = rng.random() < 0.3
    negative = not undirected and rng.random() < 0.35
    cycle = negative and rng.random() < 0.1
    density = rng.choice([0.05, 0.15, 0.3, 0.6])
    pot = [rng.randint(0, 6) for _ in range(n)]  # arcs + pot(u) - pot(v): no negative cycle
    pieces = rng.randint(1, 3)
    piece = [rng.randrange(pieces) for _ in range(n)]
    entries = []
    for u in range(n):
        for v in range(n):
            if u == v or piece[u] != piece[v] or rng.random() > density:
                continue
            if undirected and v < u:
                continue
            w = weight(rng, kind, 0)
            if negative:  # dyadic, so that every cycle's sum is exact in float32 too
                w = (rng.randint(0, 12 * 64) / 64 if kind != "int32" else w) + pot[u] - pot[v]
            entries.append((u, v, w))
            if rng.random() < 0.1:  # a repeat, heavier or lighter
                entries.append((u, v, w + rng.choice([-1, 1, 2]) * (0 if negative else 1)))
    for _ in range(rng.randint(0, 2)):  # loops of weight 0 or more
        if n:
            u = rng.randrange(n)
            entries.append((u, u, abs(weight(rng, kind, 0))))
    if cycle and n >= 2:
        u, v = rng.sample(range(n), 2)
        entries += [(u, v, 1), (v, u, -2)]
    return n, kind, undirected, entries


def write_mtx(path, n, kind, undirected, entries):
    field = "integer" if kind == "int32" else "real"
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate %s %s\n" %
                (field, "symmetric" if undirected else "general"))
        f.write("%d %d %d\n" % (n, n, len(entries)))
        for u, v, w in entries:
            a, b = (max(u, v), min(u, v)) if undirected else (u, v)
            f.write("%d %d %s\n" % (a + 1, b + 1, repr(w) if kind != "int32" else w))


def arcs(n, kind, undirected, entries):
    """The graph as the engines read it, as arcs (n, tails, heads, weights):
    the least of repeats, non-negative loops left out, mirrored where
    undirected; weights rounded to the type."""
    best = {}
    for u, v, w in entries:
        if u == v and w >= 0:
            continue
        w = float(np.float32(w)) if kind == "float32" else float(w)
        for a, b in ((u, v), (v, u)) if undirected and u != v else ((u, v),):
            best[(a, b)] = min(best.get((a, b), np.inf), w)
    keys = list(best)
    return (n, np.array([a for a, _ in keys], dtype=np.uint32),
            np.array([b for _, b in keys], dtype=np.uint32),
            np.array([best[k] for k in keys], dtype=np.float64))


def negative_cycle(g):
    """Floyd-Warshall in numpy (n is small): a negative diagonal."""
    n, u, v, w = g
    d = np.full((n, n), np.inf)
    np.fill_diagonal(d, 0)
    for a, b, x in zip(u, v, w):
        d[a, b] = min(d[a, b], x)
    for k in range(n):
        d = np.minimum(d, d[:, k:k + 1] + d[k:k + 1, :])
    return bool((np.diag(d) < 0).any())


def scipy_graph(g):
    n, u, v, w = g
    return sp.coo_matrix((w, (u, v)), shape=(n, n)).tocsr()


def as_float(s):
    d = np.asarray(s.dist, dtype=np.float64)
    if s.type == "int32":
        d = np.where(np.asarray(s.dist) >= 0x3FFFFFFF, np.inf, d)
    return d[:, :s.n]


class Failure(Exception):
    pass


def run(args, want_rc=0, env=None):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if want_rc is not None and p.returncode != want_rc:
        raise Failure("%s exited %d (wanted %d): %s" % (" ".join(args[-4:]), p.returncode,
                                                         want_rc, p.stderr.decode()[:300]))
    return p


def routes(n):
    """(name, engine options, paths) of the command-line routes."""
    half = "%d:%d" % (n // 3, max(n // 3 + 1, n - n // 4)) if n else "0:0"
    out = [("dense", [], True), ("dense-tracked", ["--derive-paths", "never"], True),
           ("dense-nopaths", ["--no-paths"], False), ("sparse", ["--engine", "sparse"], True),
           ("sparse-nopaths", ["--engine", "sparse", "--no-paths"], False),
           ("rows", ["--rows", half], True), ("rows-nopaths", ["--rows", half, "--no-paths"], False),
           ("sources", ["--sources", "SRC"], True),
           ("sparse-sources", ["--engine", "sparse", "--sources", "SRC", "--no-paths"], False),
           ("eliminated-sources", ["ELIMINATE", "--engine", "sparse", "--sources", "SRC"], True),
           ("table", ["--sources", "SRC", "--targets", "DST"], False),
           ("eliminated-table", ["ELIMINATE", "--engine", "sparse", "--sources", "SRC",
                                 "--targets", "DST"], False)]
    if DEVICE == "cpu":
        out.append(("dense-B16", ["-B", "16", "-T", "2"], True))
    return out


def check_graph(rng, k, tmp, stats):
    n, kind, undirected, entries = hostile(rng)
    text = os.path.join(tmp, "g.mtx")
    write_mtx(text, n, kind, undirected, entries)
    g = arcs(n, kind, undirected, entries)
    cycle = negative_cycle(g) if n else False
    graph = text
    if kind == "float64":
        graph = os.path.join(tmp, "g.apm")
        layout = ["-L", "arcs"] if DEVICE == "gpu" else []  # (apsp-gpu's rows: text or arcs)
        run([os.path.join(BIN, "mtx2bin"), "-T", "1", "-t", "float64"] + layout + ["-o", graph,
                                                                                   text])
    srcs = rng.sample(range(n), min(n, rng.randint(1, 4))) if n else []
    with open(os.path.join(tmp, "src"), "w") as f:
        f.write(" ".join(map(str, srcs)) + "\n")
    pick = random.Random(SEED * 1000003 + k)  # (its own: the graphs stay the seed's)
    dsts = pick.sample(range(n), min(n, pick.randint(1, 5))) if n else []
    with open(os.path.join(tmp, "dst"), "w") as f:
        f.write(" ".join(map(str, dsts)) + "\n")
    ref = None
    tol = TOL[kind]
    for name, opts, paths in routes(n) if CLI_EVERY and k % CLI_EVERY == 0 else ():
        if not n and "SRC" in opts:
            continue
        opts = [os.path.join(tmp, "src") if o == "SRC" else os.path.join(tmp, "dst")
                if o == "DST" else o for o in opts]
        env = None
        out = os.path.join(tmp, "r.apm")
        try:
            env = dict(os.environ)
            if "ELIMINATE" in opts:  # a few rows eliminated, not searched
                opts.remove("ELIMINATE")
                env["APSP_SEARCH_MOST"] = "0"
            p = run([ENGINE, "-T", "1"] + opts + ["-o", out, graph], None, env)
            if p.returncode == 2 and REFUSAL in p.stderr.decode():
                stats["refused " + name] = stats.get("refused " + name, 0) + 1
                continue
            if p.returncode != (3 if cycle else 0):
                raise Failure("%s exited %d (wanted %d): %s" % (name, p.returncode,
                                                                 3 if cycle else 0,
                                                                 p.stderr.decode()[:300]))
            stats[name] = stats.get(name, 0) + 1
            if cycle:
                continue
            s = apspmat.load(out)
            d = as_float(s)
            pred = np.asarray(s.pred)[:, :n] if paths else None
            idx = None if s.sources is None else np.asarray(s.sources, dtype=np.int64)
            cols = None if s.targets is None else np.asarray(s.targets, dtype=np.int64)
            if cols is None:  # (a table is held to the first route's certified rows)
                try:
                    apsp.certify(g, d, pred, indices=idx, tol=tol, threads=1)
                except apsp.NotShortestError as e:
                    raise Failure(str(e))
            if ref is None:
                ref = d
            else:
                rows = ref if idx is None else ref[idx]
                rows = rows if cols is None else rows[:, cols]
                fin = np.isfinite(rows)
                if not (np.array_equal(fin, np.isfinite(d)) and
                        np.allclose(d[fin], rows[fin], rtol=tol, atol=tol)):
                    raise Failure("distances differ from the first route's")
        except Failure as e:
            stats.setdefault("failed", []).append((name, k, kind, str(e)))
            keep = os.path.join(TOP, "build", "routes-failed")
            os.makedirs(keep, exist_ok=True)
            shutil.copy(text, os.path.join(keep, "seed%d-graph%d.mtx" % (SEED, k)))
    python_routes(g, n, cycle, srcs, k, kind, stats)


def python_routes(g, n, cycle, srcs, k, kind, stats):
    """scipy's interface on the same graph (float64)."""
    if n == 0 or sp is None:
        return
    arcs_of = g
    g = scipy_graph(g)
    dev = "gpu" if DEVICE == "gpu" else "cpu"
    calls = [("python-fw", dict(method="FW", return_predecessors=True), None),
             ("python-D-indices", dict(method="D", indices=srcs), srcs),
             ("python-J-indices-pred", dict(method="J", indices=srcs, return_predecessors=True),
              srcs)]
    try:  # the table of the sources and some targets, against the first call's rows
        if not cycle:
            tg = list(range(0, n, max(1, n // 4)))
            t = apsp.distance_table(g, srcs, tg, device=dev, threads=1)
            d = apsp.shortest_path(g, method="D", indices=srcs, device=dev, threads=1)
            if not np.array_equal(t, np.asarray(d)[:, tg]):
                raise Failure("the table differs from the rows' columns")
            stats["python-table"] = stats.get("python-table", 0) + 1
    except (Failure, ValueError) as e:
        stats.setdefault("failed", []).append(("python-table", k, kind, str(e)))
    try:  # a batch: the graph beside one of a single vertex (its room padded)
        try:
            d, p = apsp.floyd_warshall([g, sp.csr_matrix((1, 1))], return_predecessors=True,
                                       device=dev, threads=1)
            if cycle:
                raise Failure("no NegativeCycleError on a graph with a negative cycle")
            apsp.certify(arcs_of, d[0], p[0], threads=1)
        except apsp.NegativeCycleError as e:
            if not cycle or list(e.graphs) != [0]:
                raise Failure("NegativeCycleError naming graphs %s" % list(e.graphs))
        stats["python-batch"] = stats.get("python-batch", 0) + 1
    except (Failure, apsp.NotShortestError, ValueError) as e:
        stats.setdefault("failed", []).append(("python-batch", k, kind, str(e)))
    try:  # the batch's arcs as PyG holds them (on the GPU: its room made there)
        if not cycle:  # (a negative loop is a cycle; batch_from_edges passes loops over)
            c = g.tocoo()
            d, p = apsp.batch_from_edges(np.array([c.row, c.col]), c.data,
                                         np.repeat([0, 1], [n, 1]), return_predecessors=True,
                                         device=dev, threads=1)
            apsp.certify(arcs_of, d[0, :n, :n], p[0, :n, :n], threads=1)
            stats["python-batch-arcs"] = stats.get("python-batch-arcs", 0) + 1
    except (Failure, apsp.NotShortestError, ValueError) as e:
        stats.setdefault("failed", []).append(("python-batch-arcs", k, kind, str(e)))
    for name, kw, idx in calls:
        try:
            try:
                got = apsp.shortest_path(g, device=dev, threads=1, **kw)
            except apsp.NegativeCycleError:
                if not cycle:
                    raise Failure("NegativeCycleError on a graph without one")
                stats[name] = stats.get(name, 0) + 1
                continue
            if cycle:
                raise Failure("no NegativeCycleError on a graph with a negative cycle")
            d, p = got if kw.get("return_predecessors") else (got, None)
            apsp.certify(arcs_of, d, p, indices=idx, threads=1)
            stats[name] = stats.get(name, 0) + 1
        except (Failure, apsp.NotShortestError, ValueError) as e:
            stats.setdefault("failed", []).append((name, k, kind, str(e)))


def main():
    rng = random.Random(SEED)
    stats = {}
    tmp = tempfile.mkdtemp()
    def stop(sig, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    try:
        for k in range(GRAPHS):
            check_graph(rng, k, tmp, stats)
    except KeyboardInterrupt:  # (a time limit: say what ran)
        stats.setdefault("failed", []).append(("all", k, "-", "stopped at graph %d" % k))
    finally:
        shutil.rmtree(tmp)
    failed = stats.pop("failed", [])
    bad = {}
    for name, k, kind, why in failed:
        bad.setdefault(name, []).append((k, kind, why))
    refused = {k[len("refused "):]: v for k, v in stats.items() if k.startswith("refused ")}
    for k in list(stats):
        if k.startswith("refused "):
            del stats[k]
    for name in sorted(set(stats) | set(bad)):
        more = " (%d refused by name)" % refused[name] if name in refused else ""
        if name in bad:
            k, kind, why = bad[name][0]
            print("FAIL routes-%s %s: %d of %d graphs (seed %d, graph %d, %s: %s)"
                  % (DEVICE, name, len(bad[name]), stats.get(name, 0), SEED, k, kind, why))
        else:
            print("PASS routes-%s %s: %d hostile graphs certified and compared (seed %d)%s"
                  % (DEVICE, name, stats[name], SEED, more))


if sp is None:
    print("SKIP routes-%s python: no scipy" % DEVICE)
main()
