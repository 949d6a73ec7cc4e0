#!/bin/sh
# Some rows of a road network (--rows, --sources) against all of them: the
# sparse engine's rows for 100 and 1000 random sources of gengraph's
# road-like graphs (as a list of arcs with the order kept, weights
# 1..1000), written as a result of some rows with their predecessors,
# beside the statistics of every row (--stats --summary) on the same graph;
# apsp-gpu, then apsp-cpu for the 100.  The GPU's rows must be apsp-cpu's
# bytes.  Not a test.
#   sh bench/sparse-road-rows.sh [K...]      (default: 355 514, n = 126025 and 264196)
set -u
sizes=${*:-355 514}
. "$(dirname "$0")/road-lib.sh"
run() { # LABEL TOOL ARGS...
	label=$1 tool=$2
	shift 2
	s=$(date +%s.%N)
	/usr/bin/time -f "peak %M KB" "$bin/$tool" -v "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	echo "== $label: wall $(echo "$(date +%s.%N) $s" | awk '{ print $1 - $2 }') s, exit $rc"
	grep -E "sparse engine|peak" "$dir/err"
}
for k in $sizes; do
	n=$((k * k))
	"$bin/gengraph" --road "${k}x$k" -w 1:1000 -s 1 -L arcs --keep-order -o "$dir/road.apm"
	for count in 100 1000; do
		awk -v n=$n -v c=$count 'BEGIN { srand(7); while (k < c) { v = int(rand() * n);
			if (!(v in s)) { s[v]; print v; k++ } } }' >"$dir/src$count"
		run "road $k, $count sources, paths" apsp-gpu --sources "$dir/src$count" -o "$dir/gpu$count.apm" "$dir/road.apm"
		run "road $k, $count sources, paths" apsp-gpu --sources "$dir/src$count" -o "$dir/gpu$count.apm" "$dir/road.apm"
		ls -l "$dir/gpu$count.apm" | awk '{ print "result", $5, "bytes" }'
	done
	run "road $k, every row, --stats" apsp-gpu --stats --summary "$dir/road.apm"
	run "road $k, every row, --stats" apsp-gpu --stats --summary "$dir/road.apm"
	run "road $k, 100 sources, apsp-cpu" apsp-cpu --sources "$dir/src100" -o "$dir/cpu100.apm" "$dir/road.apm"
	"$bin/bin2mtx" --npy "$dir/gpu100.apm" >"$dir/a" && "$bin/bin2mtx" --npy "$dir/cpu100.apm" >"$dir/b" &&
		cmp -s "$dir/a" "$dir/b" && "$bin/bin2mtx" --npy --pred "$dir/gpu100.apm" >"$dir/a" &&
		"$bin/bin2mtx" --npy --pred "$dir/cpu100.apm" >"$dir/b" && cmp -s "$dir/a" "$dir/b" &&
		echo "the GPU's 100 rows and predecessors are apsp-cpu's bytes"
done
