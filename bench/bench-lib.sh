# bench-lib.sh - what a benchmark script shares, sourced once its
# arguments are read: bin (the programs), tmp (a scratch folder, removed at
# the end), and the machine's line printed (the date, the cores or the
# first GPU where BENCH_GPU is set, the commit).  Not run by itself.
bin=$(cd "$(dirname "$0")/.." && pwd)/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${BENCH_GPU:-}" ]; then
	machine=$(nvidia-smi -L | head -n 1)
else
	machine="$(nproc) cores, $(uname -m)"
fi
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $machine, $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo 'no git')"
