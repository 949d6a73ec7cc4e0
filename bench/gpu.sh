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
for t in int32 float32; do for B in 16 32 64 128; do for p in "" -p --no-16bit; do
	for n in 1 37 300; do
		r=$($kb -n $n -B $B $p -t $t -r 0 --check 2>&1 | tail -n 1)
		case "$r" in *" 0 wrong distances, 0 bad"*) ;; *) echo "FAIL n=$n B=$B $t $p: $r";; esac
	done
done; done; done
echo "(no FAIL line above: all correct)"
$kb --header
for B in 64 128; do $kb -n 4096 -B $B -r 3; done
for mode in "" --no-16bit -p; do for t in int32 float32; do
	[ "$mode$t" = "--no-16bitfloat32" ] && continue
	$kb -n 20000 -B 128 $mode -t $t -r ${REPS:-3}
done; done
$kb -n 20000 -B 64 -r ${REPS:-3}
} 2>&1 | tee "$log"
{
echo "== end to end, n=10000 (wall seconds; apsp-gpu -v reports its parts)"
t() { s=$(date +%s.%N); "$@"; e=$(date +%s.%N); awk "BEGIN{printf \"  %.3f s  \", $e - $s}"; echo "$*" | cut -c1-100; }
t sh -c "bin/gengraph -n 10000 -d 15 >/dev/null"
t sh -c "bin/gengraph -n 10000 -d 15 -o $out/g10k.apm"
t sh -c "bin/apsp-gpu -v $out/g10k.apm >$out/r10k.apm"
t sh -c "bin/apsp-gpu -v -z 0 $out/g10k.apm >/dev/null"
t sh -c "bin/apsp-gpu -v --no-paths $out/g10k.apm >/dev/null"
t sh -c "bin/apsp-path 3 17 <$out/r10k.apm"
ls -l $out/g10k.apm $out/r10k.apm | awk '{print "  " $5 " bytes " $9}'
for mode in "" --no-paths; do
	t sh -c "bin/gengraph -n 10000 -d 15 | bin/apsp-gpu $mode | bin/apsp-path 3 17"
done
rm -f $out/g10k.apm $out/r10k.apm
} 2>&1 | tee -a "$log"
