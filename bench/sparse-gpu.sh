#!/bin/sh
# Sparse graphs on the GPU: kernel time (CUDA events, from apsp-gpu -v) of a
# nested-dissection run with skipped blocks against a dense run of the same
# graph, on k x k grids and SuiteSparse matrices.  Not a test.
#   BASE=dir sh bench/sparse-gpu.sh [GRIDS] [MTX...]
# GRIDS: grid sides (default "64 128 256"); MTX: Matrix Market files,
# imported as float32 with absolute weights.  BASE: another build's bin
# folder, whose runs are the "dense" ones (the build from before tile
# skipping); without it the dense runs are this build's --order natural on
# a graph it sees as dense (none: then only this build's lines are printed).
# NATURAL=0 leaves out the --order natural runs.  Each line: graph, the
# options, kernel ms, the -v summary of order and skipping.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bin
base=${BASE:-}
grids=${1:-64 128 256}
[ $# -gt 0 ] && shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() { # label graph gpu-binary options...
	label=$1 graph=$2 exe=$3
	shift 3
	line=$("$exe" -v "$@" "$graph" 2>&1 >/dev/null)
	ms=$(printf '%s\n' "$line" | sed -n 's/.*kernels \([0-9.]*\) ms.*/\1/p')
	what=$(printf '%s\n' "$line" | sed -n 's/.*, \([a-z-]* order.*\), deflate .*/\1/p')
	printf '%-22s %-32s %10s ms  %s\n' "$label" "$*" "${ms:-?}" "$what"
}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)"
for k in $grids; do
	g=$dir/grid$k
	"$bin/gengraph" --grid ${k}x$k -s 1 -o "$g"
	for p in --no-paths ""; do
		[ -n "$base" ] && run "grid ${k}x$k (before)" "$g" "$base/apsp-gpu" $p
		run "grid ${k}x$k" "$g" "$bin/apsp-gpu" $p
		[ "${NATURAL:-1}" = 0 ] || run "grid ${k}x$k" "$g" "$bin/apsp-gpu" --order natural $p
	done
	rm -f "$g"
done
for m in "$@"; do
	g=$dir/m
	"$bin/mtx2bin" -t float32 --weights abs "$m" -o "$g" 2>/dev/null || { echo "# $m: not imported"; continue; }
	name=$(basename "$m" .mtx)
	for p in --no-paths ""; do
		[ -n "$base" ] && run "$name (before)" "$g" "$base/apsp-gpu" $p
		run "$name" "$g" "$bin/apsp-gpu" $p
		[ "${NATURAL:-1}" = 0 ] || run "$name" "$g" "$bin/apsp-gpu" --order natural $p
		run "$name" "$g" "$bin/apsp-gpu" --order nd $p
	done
done
