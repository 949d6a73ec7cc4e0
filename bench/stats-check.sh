#!/bin/sh
# apsp-stats against apsp-info --check on the same result (the analysis
# issue's target: at most 1.5x its time, at most 64 MB of memory): the
# result of gengraph -n N -d 10 -s 5 from apsp-cpu, with predecessors and
# without (--no-paths), each tool run REPS times a round (perf stat -r, or
# a loop of /usr/bin/time where perf is missing), ROUNDS rounds alternating,
# then the peak memory of apsp-stats.  Not a test: the machine's other work
# shows in the figures, so run it on an idle machine.
# BASE=DIR also times DIR/apsp-stats (another build's bin/) in the same
# rounds, for a before and after.
#   sh bench/stats-check.sh [N]        (default 6000)
set -u
n=${1:-6000}
reps=${REPS:-20}
rounds=${ROUNDS:-3}
tmp=${TMPDIR:-/tmp}/stats-check.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
echo "== $(date -u) $(uname -n) $(nproc) cores, n = $n, $(bin/apsp-stats --version | head -n 1)"
bin/gengraph -n "$n" -d 10 -s 5 -o "$tmp/g"
bin/apsp-cpu "$tmp/g" -o "$tmp/paths"
bin/apsp-cpu --no-paths "$tmp/g" -o "$tmp/dist"
# seconds a run of "$@", the mean of $reps
mean() {
	if command -v perf >/dev/null 2>&1; then
		perf stat -r "$reps" "$@" 2>&1 >/dev/null |
			sed -n 's/^ *\([0-9.]*\) +- .* seconds time elapsed.*/\1/p'
	else
		t0=$(date +%s%N)
		for _ in $(seq "$reps"); do "$@" >/dev/null; done
		awk "BEGIN { printf \"%.5f\", ($(date +%s%N) - $t0) / 1e9 / $reps }"
	fi
}
for s in dist paths; do
	for r in $(seq "$rounds"); do
		c=$(mean bin/apsp-info --check "$tmp/$s")
		a=$(mean bin/apsp-stats "$tmp/$s")
		echo "$s, round $r: apsp-info --check $c s, apsp-stats $a s, ratio" \
			"$(awk "BEGIN { printf \"%.2f\", $a / $c }")"
		if [ -n "${BASE:-}" ]; then
			b=$(mean "$BASE/apsp-stats" "$tmp/$s")
			echo "$s, round $r: $BASE/apsp-stats $b s, ratio $(awk "BEGIN { printf \"%.2f\", $b / $c }")"
		fi
	done
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "$s: apsp-stats peak memory %M KB" bin/apsp-stats "$tmp/$s" 2>&1 >/dev/null |
			tail -n 1
	fi
done
