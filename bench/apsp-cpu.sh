#!/bin/sh
# apsp-cpu benchmark: relaxations per second (n^3 / solve time) at n = 4096,
# distances only and with paths, every block size and SIMD level this
# processor runs, and scipy.sparse.csgraph.floyd_warshall on the same graph
# in the same run.  Not a test: run it on an idle machine.
#   sh bench/apsp-cpu.sh [N] [LOG]      (defaults: 4096, build/bench/apsp-cpu.log)
# Needs: make; python3 with numpy and scipy (Debian: python3-scipy) for the
# comparison, skipped without them.
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-4096}
log=${2:-$top/build/bench/apsp-cpu.log}
bin=$top/bin
mkdir -p "$(dirname "$log")"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
exec >"$log.tmp" 2>&1 </dev/null
echo "# apsp-cpu benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc) cores"
grep -m1 'model name' /proc/cpuinfo
echo "# graph: gengraph -n $n -d 15 -s 1 (int32, weights 1..100)"
"$bin/gengraph" -n "$n" -d 15 -s 1 -o "$dir/g"
solve() { # label, options...: prints the -v line's solve time and rate
	label=$1
	shift
	line=$("$bin/apsp-cpu" -v "$@" "$dir/g" 2>&1 >/dev/null)
	s=$(printf '%s\n' "$line" | sed -n 's/.*solve \([0-9.]*\) s (\([0-9.e+]*\) relaxations.*/\1 \2/p')
	printf '%-34s %s\n' "$label" "$s"
}
echo "# label                            solve-seconds relaxations/s"
best=auto
for simd in avx512 avx2 portable; do
	"$bin/apsp-cpu" --simd $simd -B 16 "$dir/g" >/dev/null 2>&1 </dev/null || continue
	for B in 32 64 128 256; do
		[ $simd = portable ] && [ "$n" -gt 2048 ] && [ $B -ne 64 ] && continue
		solve "$simd B=$B distances" --simd $simd -B $B --no-paths
	done
done
for B in 64 128; do
	solve "auto B=$B paths" -B $B
done
solve "auto default distances" --no-paths
solve "auto default paths"
t0=$(date +%s.%N)
"$bin/apsp-cpu" --no-paths "$dir/g" >/dev/null
t1=$(date +%s.%N)
echo "end-to-end apsp-cpu --no-paths (read, solve, write): $(awk -v a="$t0" -v b="$t1" "BEGIN { printf \"%.3f\", b - a }") s"
ours=$("$bin/apsp-cpu" -v --no-paths "$dir/g" 2>&1 >/dev/null | sed -n 's/.*solve \([0-9.]*\) s.*/\1/p')
if /usr/bin/python3 -c 'import numpy, scipy.sparse.csgraph' 2>/dev/null; then
	"$bin/bin2mtx" --npy --weights "$dir/g" >"$dir/g.npy"
	/usr/bin/python3 - "$dir/g.npy" "$ours" "$n" <<'PY'
import sys, time
import numpy as np
import scipy
from scipy.sparse.csgraph import floyd_warshall
w = np.load(sys.argv[1]).astype(np.float64)
w[w >= 1073741823] = np.inf
t = time.perf_counter()
d = floyd_warshall(w, directed=True)
t = time.perf_counter() - t
n = int(sys.argv[3]); ours = float(sys.argv[2])
print("scipy %s floyd_warshall: %.3f s, %.3g relaxations/s" % (scipy.__version__, t, n**3 / t))
print("apsp-cpu --no-paths solve %.3f s: %.1f x faster than scipy" % (ours, t / ours))
PY
else
	echo "scipy: not installed, comparison skipped"
fi
mv "$log.tmp" "$log"
cat "$log" >&2
