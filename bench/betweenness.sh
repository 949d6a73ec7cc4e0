#!/bin/sh
# apsp-cpu --stats --betweenness beside igraph's betweenness(weights=) on
# the graphs of issue "betweenness centrality": a K x K grid (default 64,
# gengraph --grid: both ways, weights 1..100) and a random graph of N
# vertices at P percent (default 2000 at 15, weights 1..100), both as
# Matrix Market text, directed.  Wall time of the whole run (reading,
# engine, betweenness, the table: /usr/bin/time) and the -v lines, REPS
# runs each (default 3); igraph's call alone (its graph built outside the
# clock), in the same run.  The two columns are compared (1e-9 relative).
# Not a test.
#   sh bench/betweenness.sh [K [N [P]]]
set -u
k=${1:-64}
n=${2:-2000}
p=${3:-15}
reps=${REPS:-3}
. "$(dirname "$0")/bench-lib.sh"
"$bin/gengraph" --grid "${k}x$k" -s 1 -F mtx -o "$tmp/grid.mtx"
"$bin/gengraph" -n "$n" -d "$p" -s 1 -F mtx -o "$tmp/random.mtx"
run() { # LABEL GRAPH
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$bin/apsp-cpu" -v --stats --betweenness "$2" \
		>"$tmp/$1.tsv" 2>"$tmp/err"
	printf '%-14s apsp-cpu wall %6s s, peak %7s KB  %s\n' "$1" $(cat "$tmp/time") \
		"$(grep -o 'sparse engine.*rows [0-9.]* s\|solve [0-9.]* s' "$tmp/err" | head -n 1)"
}
for i in $(seq "$reps"); do
	run grid "$tmp/grid.mtx"
	run random "$tmp/random.mtx"
done
for py in python3 /usr/bin/python3; do
	$py -c 'import igraph' 2>/dev/null || continue
	for g in grid random; do
		$py - "$tmp/$g.mtx" "$tmp/$g.tsv" "$g" "$reps" <<'PY'
import sys, time, igraph
rows = [l.split() for l in open(sys.argv[1]) if not l.startswith('%')]
n = int(rows[0][0])
edges = [(int(a) - 1, int(b) - 1) for a, b, _ in rows[1:]]
w = [float(x) for _, _, x in rows[1:]]
g = igraph.Graph(n=n, edges=edges, directed=True)
for _ in range(int(sys.argv[4])):
    t = time.perf_counter(); b = g.betweenness(weights=w); t = time.perf_counter() - t
    print(f"{sys.argv[3]:<14} igraph {igraph.__version__} betweenness(weights=): {t:.2f} s")
col = [float(l.split('\t')[9]) for l in open(sys.argv[2]).read().splitlines()[1:]]
worst = max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(col, b))
print(f"{sys.argv[3]:<14} apsp-cpu against igraph: largest relative difference {worst:.1e}")
PY
	done
	break
done
