#!/bin/sh
# Runs every test: C unit tests (build/tests/test_*), command tests
# (tests/cmd/*.sh) and GPU tests (tests/gpu/*.sh, skipped without a GPU).
# Each prints PASS/FAIL/SKIP lines; this counts them.
# Usage: sh tests/run.sh [PATTERN]   (only test files whose name contains PATTERN)
top=$(cd "$(dirname "$0")/.." && pwd)
pat=${1:-}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export TOP="$top" BIN="$top/bin" TDATA="$top/tests/data" PATH="$top/bin:$PATH"
run() {
	name=$1; shift
	case "$name" in *"$pat"*) ;; *) return ;; esac
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed "s|^|[$name] |" >>"$log"
	printf '%s\n' "$out" | grep -aE '^(PASS|FAIL|SKIP) ' | sed "s|^\([A-Z]*\) |\1 $name: |"
	if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -aq '^FAIL '; then
		echo "FAIL $name: exited $rc without reporting"
		printf '%s\n' "$out" | tail -n 5 | sed 's/^/    /'
	fi
}
{
for t in "$top"/build/tests/test_*; do
	[ -x "$t" ] && run "$(basename "$t")" "$t"
done
for t in "$top"/tests/cmd/*.sh "$top"/tests/gpu/*.sh; do
	[ -f "$t" ] && run "$(basename "$t" .sh)" sh "$t"
done
} | tee "$log.res" | grep -aE '^(FAIL|SKIP)' | sed 's/^/  /'
p=$(grep -ac '^PASS' "$log.res"); f=$(grep -ac '^FAIL' "$log.res"); s=$(grep -ac '^SKIP' "$log.res")
if [ "$f" -ne 0 ]; then
	mkdir -p "$top/build"; cp "$log" "$top/build/test.log"
	echo "full output of failing runs: build/test.log"
fi
rm -f "$log.res"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
