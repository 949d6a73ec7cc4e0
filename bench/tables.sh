#!/bin/sh
# Distance tables on a real road network: K random sources by K random
# targets of FLA (the 9th DIMACS challenge's Florida topology, 1,070,376
# vertices, unit weights, from ../shared/datasets/roads/pace16-dimacs9-topology),
# `TOOL -v --sources S --targets T`, twice; the first 20 rows of the table
# checked against scipy's dijkstra where scipy is there.  Not a test.
#   sh bench/tables.sh [K...]      (default: 1000 with apsp-cpu; with a GPU
#                                   also 1000 and 10000 with apsp-gpu)
# GRAPH: another PACE topology (NY, BAY, COL, FLA, NW, NE).  ROADS: the folder.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
roads=${ROADS:-$top/../shared/datasets/roads}
name=${GRAPH:-FLA}
file=$roads/pace16-dimacs9-topology/$name.gr.xz
if [ ! -f "$file" ]; then
	echo "no $file (../shared/datasets/roads beside the checkout): skipped"
	exit 0
fi
dir=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$dir"' EXIT
gpu=; nvidia-smi -L >/dev/null 2>&1 && gpu=1
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), ${gpu:+$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1), }$(nproc) cores, $name unit weights"
{ xz -dc "$file" 2>/dev/null || python3 -c 'import lzma, sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$file"; } |
	awk '$1 == "c" { next }
	     $1 == "p" { print "%%MatrixMarket matrix coordinate pattern symmetric"; print $3, $3, $4; next }
	     { print ($1 > $2 ? $1 : $2), ($1 > $2 ? $2 : $1) }' >"$dir/g.mtx"
n=$(sed -n 2p "$dir/g.mtx" | cut -d' ' -f1)
pick() { # COUNT SEED: distinct random vertices
	awk -v n="$n" -v c="$1" -v seed="$2" 'BEGIN { srand(seed); while (k < c) {
		v = int(rand() * n); if (!(v in s)) { s[v]; print v; k++ } } }'
}
check() { # TABLE: its first 20 rows against scipy's dijkstra
	py=
	for p in python3 /usr/bin/python3; do $p -c 'import scipy' 2>/dev/null && py=$p && break; done
	[ -n "$py" ] || { echo "  (no python3 with scipy: not checked)"; return; }
	PYTHONPATH=$top/python $py -c '
import sys, numpy as np, scipy.sparse as sp, scipy.sparse.csgraph as cg, apspmat
e = np.loadtxt(sys.argv[1], skiprows=2, dtype=np.int64, ndmin=2); n = int(sys.argv[3])
A = sp.coo_matrix((np.ones(len(e)), (e[:, 0] - 1, e[:, 1] - 1)), shape=(n, n)).tocsr()
t = apspmat.load(sys.argv[2])
d = cg.dijkstra(A, directed=False, indices=t.sources[:20].astype(np.int64))[:, t.targets.astype(np.int64)]
mine = np.where(t.dist[:20] >= 1073741823, np.inf, t.dist[:20].astype(float))
print("  the first 20 rows %s scipy dijkstra'"'"'s" % ("equal" if np.array_equal(d, mine) else "DIFFER from"))
' "$dir/g.mtx" "$1" "$n"
}
run() { # TOOL K
	pick "$2" 7 >"$dir/S"; pick "$2" 8 >"$dir/T"
	for pass in 1 2; do
		s=$(date +%s.%N)
		/usr/bin/time -f "peak %M KB" "$top/bin/$1" -v --sources "$dir/S" --targets "$dir/T" \
			-o "$dir/t.apm" "$dir/g.mtx" 2>"$dir/err"
		rc=$?
		echo "$1 $2 x $2: wall $(echo "$(date +%s.%N) $s" | awk '{ printf "%.2f", $1 - $2 }') s, exit $rc, $(grep -o 'peak [0-9]* KB' "$dir/err")"
		grep -E "sparse engine" "$dir/err" | sed 's/^/  /'
	done
	check "$dir/t.apm"
}
if [ $# -gt 0 ]; then
	for k in "$@"; do run "${TOOL:-apsp-cpu}" "$k"; done
else
	run apsp-cpu 1000
	if [ -n "$gpu" ]; then
		run apsp-gpu 1000
		run apsp-gpu 10000
	fi
fi
