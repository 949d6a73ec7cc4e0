#!/bin/sh
# apsp-gpu --stats --betweenness against the same run without it, on the
# GPU graphs of issue "betweenness centrality": random graphs at 5%
# (gengraph -n N -d 5 -s 1, weights 1..100; default sizes 5000 and 20000),
# REPS runs each (default 3): the engine's kernels (-v, CUDA events), the
# betweenness' kernels (-v: "betweenness on N GPUs ... kernels") and the
# wall (/usr/bin/time); then a road-like graph as text (gengraph --road
# KxK, default 200: n = 40000, the sparse engine's rows), the sources' sums
# on the GPU and on the host's cores (APSP_BETWEENNESS_HOST=1), whose bytes
# must be the same.  GPUS=N adds --gpus N; MPI=P runs every apsp-gpu as
# mpirun -np P (one GPU a process).  Not a test.
#   sh bench/betweenness-gpu.sh [K]        # SIZES="5000 20000", REPS=3
set -u
k=${1:-200}
reps=${REPS:-3}
gpus=${GPUS:+--gpus $GPUS}
mpi=${MPI:+mpirun -np $MPI --bind-to none}
BENCH_GPU=1
. "$(dirname "$0")/bench-lib.sh"
# run LABEL GRAPH [apsp-gpu options]: wall, the engine's and the betweenness' kernels
run() {
	label=$1 graph=$2
	shift 2
	/usr/bin/time -f "%e" -o "$tmp/time" $mpi "$bin/apsp-gpu" -v $gpus --stats "$@" "$graph" \
		>"$tmp/out" 2>"$tmp/err" || { echo "$label: failed: $(tail -n 1 "$tmp/err")"; return; }
	printf '%-28s wall %6s s  engine %-16s betweenness %s\n' "$label" "$(cat "$tmp/time")" \
		"$(grep -v 'betweenness on' "$tmp/err" | grep -o 'kernels [0-9.]* ms' | head -n 1)" \
		"$(grep -o 'betweenness on .*' "$tmp/err" || echo -)"
}
for n in ${SIZES:-5000 20000}; do
	"$bin/gengraph" -n "$n" -d 5 -s 1 -o "$tmp/g$n"
	for i in $(seq "$reps"); do
		run "n $n --summary" "$tmp/g$n" --summary
		run "n $n --betweenness" "$tmp/g$n" --betweenness
	done
done
"$bin/gengraph" --road "${k}x$k" -s 1 -F mtx -o "$tmp/road.mtx"
for i in $(seq "$reps"); do
	run "road ${k}x$k, GPU sums" "$tmp/road.mtx" --betweenness
	cp "$tmp/out" "$tmp/gpu.tsv"
	APSP_BETWEENNESS_HOST=1 run "road ${k}x$k, host sums" "$tmp/road.mtx" --betweenness
done
cmp -s "$tmp/gpu.tsv" "$tmp/out" && echo "road: the same bytes" || echo "road: the bytes DIFFER"
