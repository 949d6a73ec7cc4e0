#!/bin/sh
# A road network's size on one GPU: a K x K grid (default 355, n = 126025)
# with --stats --summary, given as Matrix Market text (gengraph -F mtx; the
# weight matrix made on the device from the arcs), REPS times (default 2);
# with DENSE=1 also as gengraph's stream of the same graph (the dense n x n
# matrix read on the host), whose summary must be the same bytes; with NO16=1
# each run followed by one on 32 bits (--no-16bit), the same.  Not a test.
#   sh bench/stats-road-grid.sh [K]
set -u
k=${1:-355}
reps=${REPS:-2}
tmp=${TMPDIR:-/tmp}/road-grid.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
now() { date +%s%N; }
secs() { awk "BEGIN { printf \"%.2f\", ($2 - $1) / 1e9 }"; }
echo "== $(date -u) $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
s0=$(now)
bin/gengraph --grid "${k}x$k" -s 1 -F mtx -o "$tmp/grid.mtx"
echo "gengraph --grid ${k}x$k -F mtx: $(secs "$s0" "$(now)") s, $(wc -c <"$tmp/grid.mtx") bytes"
for r in $(seq "$reps"); do
	s0=$(now)
	bin/apsp-gpu -v --stats --summary "$tmp/grid.mtx" >"$tmp/text.sum" 2>"$tmp/err"
	echo "text run $r: wall $(secs "$s0" "$(now)") s"
	cat "$tmp/err"
	if [ "${NO16:-0}" = 1 ]; then
		s0=$(now)
		bin/apsp-gpu -v --stats --summary --no-16bit "$tmp/grid.mtx" >"$tmp/no16.sum" 2>"$tmp/err"
		echo "text run $r, --no-16bit: wall $(secs "$s0" "$(now)") s"
		cat "$tmp/err"
		cmp -s "$tmp/text.sum" "$tmp/no16.sum" && echo "summaries: the same bytes" ||
			echo "summaries DIFFER"
	fi
done
cat "$tmp/text.sum"
if [ "${DENSE:-0}" = 1 ]; then
	s0=$(now)
	bin/gengraph --grid "${k}x$k" -s 1 | bin/apsp-gpu -v --stats --summary >"$tmp/dense.sum" 2>"$tmp/err"
	echo "dense stream: wall $(secs "$s0" "$(now)") s (gengraph included)"
	cat "$tmp/err"
	if cmp -s "$tmp/text.sum" "$tmp/dense.sum"; then
		echo "summaries: the same bytes"
	else
		echo "summaries DIFFER"; diff "$tmp/text.sum" "$tmp/dense.sum"
	fi
fi
