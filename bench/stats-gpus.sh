#!/bin/sh
# The analysis issue's large run: gengraph -n N -d D | apsp-gpu --stats
# --summary on every GPU of the machine (default N = 200000, D = 1; the
# graph read straight onto the GPUs), REPS times (default 1): the wall as a
# user runs it (the parent ends once the summary is committed), then with
# -v (kernels, read, the reading's line) and APSP_DETACH=0 under
# /usr/bin/time (the peak resident memory of the process that did the work);
# with FIRST=1 also APSP_DIRECT=0 (the graph read into a host matrix first:
# 4 N^2 bytes of memory).  Every summary must be the same bytes.  Not a test.
#   sh bench/stats-gpus.sh [N] [D]
set -u
n=${1:-200000}
d=${2:-1}
reps=${REPS:-1}
tmp=${TMPDIR:-/tmp}/stats-gpus.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
now() { date +%s%N; }
secs() { awk "BEGIN { printf \"%.2f\", ($2 - $1) / 1e9 }"; }
echo "== $(date -u) $(nvidia-smi -L 2>/dev/null | wc -l) x" \
	"$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1), $(nproc) cores," \
	"gengraph -n $n -d $d | apsp-gpu --stats --summary"
for r in $(seq "$reps"); do
	s0=$(now)
	bin/gengraph -n "$n" -d "$d" | bin/apsp-gpu --stats --summary >"$tmp/user.sum"
	echo "run $r as a user runs it: wall $(secs "$s0" "$(now)") s, summary $(md5sum <"$tmp/user.sum")"
	for way in straight first; do
		[ "$way" = first ] && [ "${FIRST:-0}" != 1 ] && continue
		env=""
		[ "$way" = first ] && env="APSP_DIRECT=0"
		bin/gengraph -n "$n" -d "$d" |
			env $env APSP_DETACH=0 /usr/bin/time -f "%e s wall, %M KB peak resident" -o "$tmp/time" \
				bin/apsp-gpu -v --stats --summary >"$tmp/$way.sum" 2>"$tmp/err"
		echo "run $r, read $way, -v: $(cat "$tmp/time"), summary $(md5sum <"$tmp/$way.sum")"
		grep -o "read straight:.*" "$tmp/err"
		grep -o "kernels [0-9.]* ms ([^)]*)\|read [0-9.]* s\|upload [0-9.]* ms" "$tmp/err" | tr '\n' ' '
		echo
	done
done
