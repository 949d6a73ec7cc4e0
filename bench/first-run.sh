#!/bin/sh
# The first run's kernels: a command-line run is always its process's
# first, so what apsp-gpu -v reports is the kernels with their code loaded
# as they launch.  For each n, apsp-gpu -v with paths (derived where the
# engine chooses), with --derive-paths never, and without paths, REPS
# times each, without the warm-up (APSP_WARM=0) and with it, alternating;
# then fw-kernel-bench's first run and the median of later runs, without
# and with --warm.  With MODULE_LOADING set, CUDA_MODULE_LOADING is set to
# it too (LAZY, EAGER) for a comparison.
#   sh bench/first-run.sh [N...]      (default 2000 5000)
set -u
reps=${REPS:-3}
sizes=${*:-2000 5000}
tmp=${TMPDIR:-/tmp}/first-run.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
[ -n "${MODULE_LOADING:-}" ] && export CUDA_MODULE_LOADING=$MODULE_LOADING
echo "== $(date -u) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)" \
	"CUDA_MODULE_LOADING=${CUDA_MODULE_LOADING:-(unset)}"
for n in $sizes; do
	bin/gengraph -n "$n" -d 15 -s 1 -o "$tmp/g"
	for mode in "" "--derive-paths never" --no-paths; do
		for k in $(seq "$reps"); do
			for warm in 0 1; do
				s0=$(date +%s%N)
				# shellcheck disable=SC2086
				APSP_WARM=$warm bin/apsp-gpu -v $mode -o "$tmp/r" "$tmp/g" 2>"$tmp/err"
				s1=$(date +%s%N)
				kern=$(sed -n 's/.*: kernels \([0-9.]*\) ms.*/\1/p' "$tmp/err")
				wait=$(sed -n 's/.*device wait \([0-9.]*\) s.*/\1/p' "$tmp/err")
				wu=$(sed -n 's/.*(warm-up \([0-9.]*\) s).*/\1/p' "$tmp/err")
				echo "apsp-gpu n=$n ${mode:---paths} warm=$warm: kernels $kern ms," \
					"device wait $wait s (warm-up ${wu:-?} s), wall" \
					"$(awk "BEGIN { printf \"%.3f\", ($s1 - $s0) / 1e9 }") s"
			done
		done
	done
	for mode in -p ""; do
		for warm in "" --warm; do
			# shellcheck disable=SC2086
			echo "fw-kernel-bench n=$n ${mode:-dist} ${warm:-cold}:" \
				"$(bin/fw-kernel-bench -n "$n" $mode $warm -r 5 | tail -n 1)"
		done
	done
done
