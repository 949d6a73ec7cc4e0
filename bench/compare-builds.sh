#!/bin/sh
# Two builds of the toolkit side by side on one GPU machine, in one call:
# kernel times (fw-kernel-bench, the median of REPS runs, alternating the
# builds so that clocks and heat treat both alike) and the result streams
# of apsp-gpu compared byte for byte on the same inputs.
#   sh bench/compare-builds.sh BEFORE_DIR AFTER_DIR
# Each DIR is the top of a built checkout (DIR/bin/...).  With OUT set, the
# log goes there too.
set -u
a=$1 b=$2
out=${OUT:-build}
reps=${REPS:-3}
mkdir -p "$out"
{
echo "== $(date -u) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
echo "== kernels: before ($a) and after ($b), ms, median of $reps"
for n in 5000 20000; do
	for mode in "" --no-16bit -p; do
		for pass in 1 2; do
			for d in "$a" "$b"; do
				ms=$("$d/bin/fw-kernel-bench" -n $n $mode -r "$reps" 2>&1 | tail -n 1)
				echo "n=$n mode=${mode:-16bit} pass=$pass $(basename "$d"): $ms"
			done
		done
	done
done
echo "== result streams, byte for byte"
tmp=$(cd "$out" && pwd)/cmp
mkdir -p "$tmp"
# From the top of each build, so that the provenance line (argv) is the same.
run() { d=$1; shift; (cd "$d" && "$@"); }
"$a/bin/gengraph" -n 3000 -d 10 -s 7 -o "$tmp/g.apm"
"$a/bin/gengraph" -n 2500 -d 3 -s 8 -t float32 -o "$tmp/f.apm"
"$a/bin/gengraph" -n 1800 -d 1 -s 9 -o "$tmp/s.apm"
"$a/bin/gengraph" -n 1200 -d 10 -s 10 --negative -o "$tmp/neg.apm"
same=0 differ=0
for g in g f s neg; do
	for opts in "" --no-paths --no-16bit "-B 32" "--derive-paths never" "--order natural"; do
		run "$a" bin/apsp-gpu $opts "$tmp/$g.apm" >"$tmp/a.apm" 2>"$tmp/a.err"
		ra=$?
		run "$b" bin/apsp-gpu $opts "$tmp/$g.apm" >"$tmp/b.apm" 2>"$tmp/b.err"
		rb=$?
		if [ $ra = $rb ] && cmp -s "$tmp/a.apm" "$tmp/b.apm" && cmp -s "$tmp/a.err" "$tmp/b.err"; then
			same=$((same + 1))
		else
			differ=$((differ + 1))
			echo "DIFFER $g $opts (exit $ra, $rb)"
		fi
	done
done
for opts in "" --no-paths; do
	APSP_DEVICE_MEMORY=60000000 run "$a" bin/apsp-gpu $opts "$tmp/g.apm" >"$tmp/a.apm" 2>/dev/null
	APSP_DEVICE_MEMORY=60000000 run "$b" bin/apsp-gpu $opts "$tmp/g.apm" >"$tmp/b.apm" 2>/dev/null
	if cmp -s "$tmp/a.apm" "$tmp/b.apm"; then same=$((same + 1)); else differ=$((differ + 1)); echo "DIFFER out of core $opts"; fi
done
echo "streams: $same the same, $differ differ"
rm -rf "$tmp"
} 2>&1 | tee "$out/compare-builds.log"
