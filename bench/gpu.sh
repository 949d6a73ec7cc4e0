#!/bin/sh
# GPU benchmark: correctness sweep of the kernels at small n, then kernel
# timings at large n and the end-to-end pipeline.  Prints a table; with
# OUT set, keeps the full log there.  Run from the top directory after make.
#   sh bench/gpu.sh [quick]
set -u
out=${OUT:-build}
mkdir -p "$out"
log="$out/gpu-bench.log"
kb=bin/fw-kernel-bench
{
echo "== $(date -u) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null)"
echo "== correctness (host reference, every predecessor chain walked)"
for t in int32 float32; do for B in 16 32 64 128; do for p in "" -p; do
	for n in 1 37 300; do
		r=$($kb -n $n -B $B $p -t $t -r 0 --check 2>&1 | tail -n 1)
		case "$r" in *" 0 wrong distances, 0 bad"*) ;; *) echo "FAIL n=$n B=$B $t $p: $r";; esac
	done
done; done; done
echo "(no FAIL line above: all correct)"
$kb --header
for B in 64 128; do $kb -n 4096 -B $B -r 3; done
for mode in "" -p; do for t in int32 float32; do
	$kb -n 20000 -B 128 $mode -t $t -r ${REPS:-3}
done; done
} 2>&1 | tee "$log"
{
echo "== end to end (wall seconds, whole pipeline; apsp-gpu -v reports its parts)"
for n in 10000; do
	for mode in "" --no-paths; do
		s=$(date +%s.%N)
		r=$(bin/gengraph -n $n -d 15 | bin/apsp-gpu -v $mode 2>"$out/e2e-$n.err" | bin/apsp-path 3 17 2>&1)
		e=$(date +%s.%N)
		printf "n=%s %-10s wall %s s  apsp-path: %s\n" $n "${mode:-paths}" "$(awk "BEGIN{printf \"%.3f\", $e - $s}")" "$r"
		cat "$out/e2e-$n.err"
	done
done
} 2>&1 | tee -a "$log"
