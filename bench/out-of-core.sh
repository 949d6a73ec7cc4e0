#!/bin/bash
# Out of core: apsp-gpu on one random graph, once as it fits in the device
# and once with the device made smaller (APSP_DEVICE_MEMORY=CAP bytes), so
# that the second run streams bands through it; the -v line of each (kernel
# time by CUDA events: out of core it includes any wait for a transfer), the
# wall time, and the paths from a few sources compared (apsp-path).  Both
# runs take the options in GPU_OPTS (default --no-16bit: out of core is on 32
# bits, so the run that fits then takes the same way and ties break alike).
# Not a test; bench/out-of-core.md keeps the figures with the machine.
#   bash bench/out-of-core.sh N CAP [gengraph options]
# e.g. bash bench/out-of-core.sh 100000 $((64 << 30)) -d 5 -w 1:20
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bin
n=$1 cap=$2
shift 2
dir=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1), n = $n, cap $cap bytes, gengraph ${*:--d 5}"
"$bin/gengraph" -n "$n" -s 1 ${*:--d 5} -o "$dir/g.apm" || exit 1
awk -v n="$n" 'BEGIN { srand(7); for (i = 0; i < 1000; i++) print int(rand() * n), int(rand() * n) }' >"$dir/pairs"
for mode in fits out-of-core; do
	c=
	[ $mode = out-of-core ] && c=$cap
	s=$(date +%s.%N)
	APSP_DEVICE_MEMORY=$c "$bin/apsp-gpu" -v ${GPU_OPTS---no-16bit} "$dir/g.apm" 2>"$dir/err.$mode" |
		tee >("$bin/apsp-path" -p "$dir/pairs" >"$dir/pairs.$mode") |
		"$bin/apsp-path" --from 1 >"$dir/from.$mode"
	rc=$?
	e=$(date +%s.%N)
	sleep 1 # the pairs' apsp-path
	printf '%-12s rc %d  wall %7.2f s  %s\n' $mode $rc "$(echo "$e $s" | awk '{print $1 - $2}')" \
		"$(grep -o 'apsp-gpu: .*kernels [0-9.]* ms ([^)]*)' "$dir/err.$mode")"
	grep -v '^apsp-gpu: .*kernels' "$dir/err.$mode" | head -5
done
for k in from pairs; do
	if cmp -s "$dir/$k.fits" "$dir/$k.out-of-core" && [ -s "$dir/$k.fits" ]; then
		echo "paths ($k): the same, $(wc -l <"$dir/$k.fits") lines"
	else
		echo "paths ($k): DIFFERENT"
	fi
done
