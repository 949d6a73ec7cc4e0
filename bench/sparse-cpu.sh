#!/bin/sh
# apsp-cpu's sparse engine against its dense one, --stats --summary, on the
# graphs of issue "road networks of any size": a K x K grid (default 64) and
# a road-like R x R graph (gengraph --road, default 200: n = 40000), both as
# Matrix Market text; wall time and peak memory (/usr/bin/time), the -v
# line, REPS runs each (default 3), one engine after the other.  The dense
# engine runs on the grid only (DENSE=1: on the road-like graph too).  With
# igraph importable, its closeness on the grid beside.  Not a test.
#   sh bench/sparse-cpu.sh [K [R]]
set -u
k=${1:-64}
r=${2:-200}
reps=${REPS:-3}
. "$(dirname "$0")/bench-lib.sh"
"$bin/gengraph" --grid "${k}x$k" -s 1 -F mtx -o "$tmp/grid.mtx"
"$bin/gengraph" --road "${r}x$r" -s 1 -F mtx -o "$tmp/road.mtx"
run() { # LABEL GRAPH ENGINE
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$bin/apsp-cpu" -v --stats --summary --engine "$3" \
		"$2" >"$tmp/$1.$3.sum" 2>"$tmp/err"
	printf '%-26s %-6s wall %6s s, peak %7s KB  %s\n' "$1" "$3" $(cat "$tmp/time") \
		"$(grep -o 'factor.*\|solve.*' "$tmp/err" | head -n 1)"
}
for i in $(seq "$reps"); do
	run "grid ${k}x$k" "$tmp/grid.mtx" sparse
	run "grid ${k}x$k" "$tmp/grid.mtx" dense
	run "road ${r}x$r" "$tmp/road.mtx" sparse
	[ "${DENSE:-0}" = 1 ] && run "road ${r}x$r" "$tmp/road.mtx" dense
done
cmp -s "$tmp/grid ${k}x$k.sparse.sum" "$tmp/grid ${k}x$k.dense.sum" && echo "grid: the same summary"
cat "$tmp/road ${r}x$r.sparse.sum"
for py in python3 /usr/bin/python3; do
	$py -c 'import igraph' 2>/dev/null || continue
	$py - "$tmp/grid.mtx" <<'PY'
import sys, time, igraph
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith('%')][1:]
n = 0
edges, w = [], []
for a, b, x in rows:
    edges.append((int(a) - 1, int(b) - 1)); w.append(float(x)); n = max(n, int(a), int(b))
g = igraph.Graph(n=n, edges=edges, directed=True)
t = time.perf_counter(); g.closeness(mode="in", weights=w); t = time.perf_counter() - t
print(f"igraph {igraph.__version__} closeness (weighted, in) on the grid: {t:.2f} s")
PY
	break
done
