#!/bin/sh
# Runs every benchmark, from the top directory: each program in build/bench/
# (built by `make bench`) with its default arguments, then each bench/*.sh
# other than this one and the *-lib.sh that scripts source.  Scripts whose
# name holds "gpu" run only when nvidia-smi sees a GPU (those of road
# networks say so themselves).  Each benchmark prints its own table; run
# them on an idle machine.  To add one, drop a bench/NAME.c or bench/NAME.sh in place.
#   sh bench/run.sh [PATTERN]     (only benchmarks whose name contains PATTERN)
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
pat=${1:-}
export TOP="$top" BIN="$top/bin" PATH="$top/bin:$PATH"
has_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }
status=0
for b in build/bench/* bench/*.sh; do
	name=$(basename "$b")
	case "$name" in run.sh | *-lib.sh | *.log | *.txt) continue ;; esac
	case "$name" in *"$pat"*) ;; *) continue ;; esac
	case "$b" in
	*.sh)
		case "$name" in *gpu*) has_gpu || { echo "== $name: skipped, no GPU"; continue; } ;; esac
		echo "== $name"
		sh "$b" || { echo "== $name failed"; status=1; } ;;
	*)
		[ -f "$b" ] && [ -x "$b" ] || continue
		echo "== $name"
		"$b" || { echo "== $name failed"; status=1; } ;;
	esac
done
exit $status
