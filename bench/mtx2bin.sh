#!/bin/sh
# Matrix Market parse throughput of mtx2bin, in MB of text per second on one
# core (the parser is single-threaded): generated files of a few hundred MB,
# real and integer weights, timed with `mtx2bin --check` (parse into the dense
# matrix, no stream written), best of 3 runs.  Results: bench/mtx2bin.md.
#
#   sh bench/mtx2bin.sh [N [DENSITY]]     (default 8000 25: about 330 MB)
# The files are kept in $BENCH_DIR (default /tmp/apsp-bench) for reruns.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bin
n=${1:-8000} d=${2:-25}
dir=${BENCH_DIR:-/tmp/apsp-bench}
mkdir -p "$dir"
now() { date +%s.%N; }
for t in float32 int32; do
	f=$dir/parse-$n-$d-$t.mtx
	if [ ! -s "$f" ]; then
		echo "generating $f" >&2
		"$bin/gengraph" -n "$n" -d "$d" -t $t -w 0:100000 | "$bin/bin2mtx" >"$f.tmp"
		mv "$f.tmp" "$f"
	fi
	bytes=$(wc -c <"$f")
	cat "$f" >/dev/null # into the page cache
	best=
	for i in 1 2 3; do
		t0=$(now)
		taskset -c 0 "$bin/mtx2bin" --check "$f" >/dev/null 2>&1 || "$bin/mtx2bin" --check "$f" >/dev/null
		t1=$(now)
		s=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then best=$s; fi
	done
	lines=$(sed -n 4p "$f" | cut -d' ' -f3)
	printf '%-8s %7.1f MB %10s entries %6.2f s %7.1f MB/s\n' "$t" \
		"$(echo "$bytes / 1000000" | bc -l)" "$lines" "$best" "$(echo "$bytes / 1000000 / $best" | bc -l)"
done
