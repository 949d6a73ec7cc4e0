#!/bin/sh
# Whole pipelines as a user runs them, timed from the shell: each command
# REPS times (default 3), each run's wall time, then the stage times that
# every tool printed with -v, the marks of its timeline (APSP_TIMELINE, as
# seconds from the run's start), and the median.  apsp-gpu when a GPU is there,
# apsp-cpu otherwise.  bench/pipeline.md keeps the figures with the machine.
#   sh bench/pipeline.sh            the README's pipelines
#   LARGE=1 sh bench/pipeline.sh    also n = 100000 distances (GPU, minutes)
#   BIN=/other/bin sh bench/pipeline.sh   another build (before and after)
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/bin}
REPS=${REPS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pipeline.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

has_gpu() { [ -x "$BIN/apsp-gpu" ] && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }
now() { date +%s.%N; }

# run LABEL COMMAND: REPS runs of COMMAND under sh, stderr of every tool
# (their -v lines) kept per run; prints each run and the median wall time.
run() {
	label=$1 cmd=$2
	: >"$tmp/walls"
	for r in $(seq "$REPS"); do
		s=$(now)
		(cd "$tmp" && APSP_TIMELINE=1 PATH="$BIN:$PATH" sh -c "$cmd") >"$tmp/out" 2>"$tmp/err"
		rc=$?
		e=$(now)
		w=$(awk "BEGIN{printf \"%.3f\", $e - $s}")
		echo "$w" >>"$tmp/walls"
		printf '  run %d: %s s (exit %d)\n' "$r" "$w" "$rc"
		# the tools' timeline marks as seconds from the run's start (the
		# tools share one stderr, so the lines come in the order of time)
		awk -v s="$s" '$2 == "at" { printf "      +%.3f %s", $3 - s, $1; for (i = 4; i <= NF; i++) printf " %s", $i; print ""; next }
		               { print "      " $0 }' "$tmp/err"
	done
	m=$(sort -n "$tmp/walls" | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}')
	printf '%-60s median %s s\n' "$label" "$m" | tee -a "$tmp/summary"
}

echo "== pipeline: $(uname -n), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), BIN=$BIN"
has_gpu && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
: >"$tmp/summary"
"$BIN/gengraph" -n 100 -d 15 -s 1 -o "$tmp/g100.apm"
if has_gpu; then
	run "apsp-gpu on 100 vertices (whole process)" "apsp-gpu -v g100.apm >/dev/null"
	for n in 5000 10000; do
		run "gengraph -n $n -d 15 | apsp-gpu -B 64 | apsp-path 3 17" \
			"gengraph -v -n $n -d 15 | apsp-gpu -v -B 64 | apsp-path -v 3 17"
	done
	"$BIN/gengraph" -n 20000 -d 15 -s 1 -o "$tmp/g20k.apm"
	run "apsp-gpu n = 20000 with paths, file to file" "apsp-gpu -v -o r20k.apm g20k.apm"
	rm -f "$tmp/g20k.apm" "$tmp/r20k.apm"
	if [ "${LARGE:-0}" = 1 ]; then
		run "gengraph -n 100000 -d 5 | apsp-gpu --no-paths | cat" \
			"gengraph -v -n 100000 -d 5 | apsp-gpu -v --no-paths | cat >/dev/null"
	fi
else
	run "apsp-cpu on 100 vertices (whole process)" "apsp-cpu -v g100.apm >/dev/null"
	run "gengraph -n 2000 -d 15 | apsp-cpu | apsp-path 3 17" \
		"gengraph -v -n 2000 -d 15 | apsp-cpu -v | apsp-path -v 3 17"
fi
echo "== summary (median of $REPS)"
cat "$tmp/summary"
