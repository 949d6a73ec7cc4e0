#!/bin/sh
# The sparse engine on one GPU and on all of them: apsp-gpu --stats
# --summary --gpus 1 against --gpus N (N: the machine's GPUs) and, where
# mpirun is found, N processes of one GPU each (mpirun -np N), on gengraph's
# road-like graphs as lists of arcs with their orders kept (weights
# 1..1000), alternated; the summaries must be the same bytes.  Not a test.
#   sh bench/sparse-road-gpus.sh [K...]      (default: 514 1000, n = 264196 and 1e6)
set -u
sizes=${*:-514 1000}
. "$(dirname "$0")/road-lib.sh"
for k in $sizes; do
	"$bin/gengraph" --road "${k}x$k" -w 1:1000 -s 1 -L arcs --keep-order -o "$dir/road.apm"
	reps=2
	[ "$k" -ge 1000 ] && reps=1
	for rep in $(seq $reps); do
		for g in 1 "$gpus" mpi; do
			[ $g = mpi ] && ! command -v mpirun >/dev/null 2>&1 && continue
			s=$(date +%s.%N)
			if [ $g = mpi ]; then
				mpirun -np "$gpus" --bind-to none "$bin/apsp-gpu" -v --stats --summary \
					"$dir/road.apm" >"$dir/sum$g" 2>"$dir/err"
			else
				"$bin/apsp-gpu" -v --gpus "$g" --stats --summary "$dir/road.apm" >"$dir/sum$g" \
					2>"$dir/err"
			fi
			rc=$?
			echo "== road $k, $g GPU: wall $(echo "$(date +%s.%N) $s" | awk '{ print $1 - $2 }') s, exit $rc"
			grep "sparse engine" "$dir/err"
		done
		cmp -s "$dir/sum1" "$dir/sum$gpus" && echo "the same summary"
		[ -s "$dir/summpi" ] && cmp -s "$dir/sum1" "$dir/summpi" && echo "the same summary (mpirun)"
	done
done
