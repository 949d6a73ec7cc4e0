#!/bin/sh
# Road networks on one GPU: apsp-gpu's sparse engine against its dense one,
# --stats --summary on gengraph's road-like graphs (a K x K grid with a
# third of its streets removed, weights 1..1000, as Matrix Market text in
# /dev/shm), each run twice; the dense engine on the first size only (it is
# refused beyond n = 193088 on one H200); apsp-cpu's sparse engine beside
# on the first size; then the same graph as a list of arcs with the vertex
# order kept beside it (gengraph --layout arcs --keep-order), whose runs
# skip the ordering.  The summaries must be the same bytes.  Not a test.
#   sh bench/sparse-road.sh [K...]      (default: 355 514, n = 126025 and 264196)
set -u
sizes=${*:-355 514}
. "$(dirname "$0")/road-lib.sh"
run() { # LABEL TOOL ENGINE GRAPH
	s=$(date +%s.%N)
	/usr/bin/time -f "peak %M KB" "$bin/$2" -v --stats --summary --engine "$3" "$4" \
		>"$dir/$1.sum" 2>"$dir/err"
	echo "== $1: wall $(echo "$(date +%s.%N) $s" | awk '{ print $1 - $2 }') s"
	cat "$dir/err"
}
first=1
for k in $sizes; do
	"$bin/gengraph" --road "${k}x$k" -w 1:1000 -s 1 -F mtx -o "$dir/road.mtx"
	run "road $k sparse" apsp-gpu sparse "$dir/road.mtx"
	run "road $k sparse" apsp-gpu sparse "$dir/road.mtx"
	cat "$dir/road $k sparse.sum"
	if [ $first = 1 ]; then
		run "road $k dense" apsp-gpu dense "$dir/road.mtx"
		cmp -s "$dir/road $k dense.sum" "$dir/road $k sparse.sum" && echo "the same summary"
		run "road $k apsp-cpu" apsp-cpu sparse "$dir/road.mtx"
		cmp -s "$dir/road $k apsp-cpu.sum" "$dir/road $k sparse.sum" && echo "the same summary"
	fi
	"$bin/gengraph" --road "${k}x$k" -w 1:1000 -s 1 -L arcs --keep-order -o "$dir/road.apm"
	run "road $k kept" apsp-gpu sparse "$dir/road.apm"
	run "road $k kept" apsp-gpu sparse "$dir/road.apm"
	cmp -s "$dir/road $k kept.sum" "$dir/road $k sparse.sum" && echo "the same summary"
	first=0
done
