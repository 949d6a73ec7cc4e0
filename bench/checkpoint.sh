#!/bin/sh
# What checkpoints cost and save: a whole run without them, with them at
# the default interval (EVERY: --checkpoint-every EVERY instead), and a run
# killed (kill -9) at 70% of a whole run's time then resumed.  REPS runs
# each, alternating (SWAP=1: the run with checkpoints first; KILL=0: no
# killed run).  ENGINE: apsp-cpu (default) or apsp-gpu; OPTS: more of its
# options.
#   sh bench/checkpoint.sh [N]        (default 3500)
#   ENGINE=apsp-gpu OPTS=--no-paths sh bench/checkpoint.sh 40000
set -u
n=${1:-3500}
reps=${REPS:-3}
e="bin/${ENGINE:-apsp-cpu} ${OPTS:-}"
every=${EVERY:+--checkpoint-every $EVERY}
tmp=${TMPDIR:-/tmp}/ckpt-bench.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
now() { date +%s%N; }
secs() { awk "BEGIN { printf \"%.3f\", ($2 - $1) / 1e9 }"; }
bin/gengraph -n "$n" -d 15 -s 1 -o "$tmp/g"
echo "== $(date -u) $(uname -n) $(nproc) cores, n = $n, $e ${every:-}, $($e --version | head -n 1)"
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L
whole_run() {
	t0=$(now); $e -v "$tmp/g" >"$tmp/full" 2>"$tmp/vw"; t1=$(now)
	whole=$(secs "$t0" "$t1")
	rounds=$(sed -n 's/.*kernels \([0-9.]*\) ms.*/kernels \1 ms/p; s/.*: solve \([0-9.]*\) s .*/solve \1 s/p' "$tmp/vw" | head -n 1)
}
with_run() {
	t0=$(now); $e -v --checkpoint "$tmp/ck" ${every:-} "$tmp/g" >"$tmp/r" 2>"$tmp/v"; t1=$(now)
	with=$(secs "$t0" "$t1")
	with_k=$(sed -n 's/.*kernels \([0-9.]*\) ms.*/kernels \1 ms/p' "$tmp/v" | head -n 1)
	written=$(sed -n 's/.*: \([0-9]*\) checkpoints\{0,1\} written (the last took \([0-9.]*\) s).*/\1 (last \2 s)/p' "$tmp/v")
}
for k in $(seq "$reps"); do
	if [ "${SWAP:-0}" = 1 ]; then with_run; whole_run; else whole_run; with_run; fi
	cmp -s "$tmp/r" "$tmp/full" || echo "MISMATCH with checkpoints"
	if [ "${KILL:-1}" = 0 ]; then
		echo "whole $whole s (${rounds:-?}); with checkpoints $with s (${with_k:-?}; ${written:-0} written)"
		continue
	fi
	kill_at=$(awk "BEGIN { printf \"%.2f\", 0.7 * $whole }")
	rm -f "$tmp"/ck*
	timeout -s KILL "$kill_at" $e -v --checkpoint "$tmp/ck" ${every:-} "$tmp/g" >"$tmp/part" 2>/dev/null
	t0=$(now); $e -v --checkpoint "$tmp/ck" ${every:-} --resume "$tmp/ck" "$tmp/g" >"$tmp/r" 2>"$tmp/vr"; t1=$(now)
	resumed=$(secs "$t0" "$t1")
	# (the round it went on from: the checkpoint in place, or one written
	# whole beside it but not yet synced when the kill came)
	held=$(sed -n 's/.*going on from round \([0-9]*\) of \([0-9]*\), written whole.*/round \1 of \2 (not yet synced)/p
		s/.*going on from round \([0-9]*\) of \([0-9]*\).*/round \1 of \2/p
		s/.*the rounds from step \([0-9]*\).*/step \1/p' "$tmp/vr" | head -n 1)
	cmp -s "$tmp/r" "$tmp/full" || echo "MISMATCH after the resume"
	echo "whole $whole s (${rounds:-?}); with checkpoints $with s (${written:-0} written); killed at $kill_at s" \
		"holding ${held:-no checkpoint}, resumed in $resumed s" \
		"($(awk "BEGIN { printf \"%.2f\", $resumed / $whole }")x the whole run)"
done
