#!/bin/sh
# Several GPUs: kernel time (fw-kernel-bench, CUDA events) and whole runs of
# apsp-gpu on one GPU, on G GPUs of one process, and as G processes under
# mpirun, on the same random graph (15% of pairs, weights 1..100).  Not a
# test; bench/multi-gpu.md keeps the figures with the machine.
#   sh bench/multi-gpu.sh [N...]      (default: 20000 40000; G: every GPU)
# KERNELS=0 leaves out fw-kernel-bench, ONE=0 the runs on one GPU; SHOW=1
# shows each run's -v lines.  mpirun runs twice: as it comes, and
# with every process's host memory capped at 60% of one matrix
# (APSP_HOST_MEMORY): each process reads and writes its own rows.
# Writes the results to /dev/shm (or $TMPDIR where that is missing).
# DENSITY=P makes the graphs with P% of pairs (default 15); REPS=K runs each
# whole run K times, one after another in turn (take the median); NULL=1
# writes the results to /dev/null.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/bin
sizes=${*:-20000 40000}
G=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
dir=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $G x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)"
for n in $sizes; do
	[ "${KERNELS:-1}" = 0 ] && break
	for p in "" -p; do
		"$bin/fw-kernel-bench" -n "$n" -r 2 $p -g 1 | sed 's/^/kernels, 1 GPU:  /'
		"$bin/fw-kernel-bench" -n "$n" -r 2 $p -g "$G" | sed "s/^/kernels, $G GPUs: /"
	done
done
# whole: label command...: wall time and the -v line's kernel time
whole() {
	label=$1
	shift
	s=$(date +%s.%N)
	out=$dir/r.apm
	[ "${NULL:-0}" = 1 ] && out=/dev/null
	"$@" -v -o "$out" "$dir/g.apm" 2>"$dir/err"
	rc=$?
	[ "${SHOW:-0}" = 1 ] && cat "$dir/err"
	e=$(date +%s.%N)
	printf '%-28s rc %d  wall %6.2f s  %s\n' "$label" "$rc" "$(echo "$e $s" | awk '{print $1 - $2}')" \
		"$(grep -o 'kernels [0-9.]* ms' "$dir/err"), $(grep -o 'upload [0-9.]* ms' "$dir/err")"
	rm -f "$dir/r.apm"
}
for n in $sizes; do
	"$bin/gengraph" -n "$n" -d "${DENSITY:-15}" -s 1 -o "$dir/g.apm"
	cat "$dir/g.apm" >/dev/null # (the first read after writing is slower)
	for p in --no-paths ""; do
	for rep in $(seq "${REPS:-1}"); do
		[ "${ONE:-1}" = 1 ] && whole "n $n $p, 1 GPU" "$bin/apsp-gpu" --gpus 1 $p
		whole "n $n $p, $G GPUs" "$bin/apsp-gpu" --gpus "$G" $p
		command -v mpirun >/dev/null || continue
		whole "n $n $p, mpirun -np $G" mpirun -np "$G" --bind-to none "$bin/apsp-gpu" $p
		# every process's host memory capped at 60% of one matrix
		whole "n $n $p, mpirun, 60% each" env APSP_HOST_MEMORY=$((n * n * 4 * 6 / 10)) \
			mpirun -np "$G" --bind-to none "$bin/apsp-gpu" $p
	done
	done
done
