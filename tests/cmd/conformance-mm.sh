#!/bin/sh
# Every Matrix Market conformance file (tests/data/mm, see its README): a
# valid file imports with the expected vertex, entry and edge counts; an
# invalid one exits 2 with "file:line: reason"; none crashes.
. "$TOP/tests/lib.sh"
cd "$TDATA/mm" || exit 1
tab=$(printf '\t')
while IFS="$tab" read -r file status a b; do
	"$BIN/mtx2bin" --check "$file" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$status" = 0 ]; then
		got=$(sed -E 's/^[^:]*: ([0-9]+) vertices, ([0-9]+) entries, ([0-9]+) edges.*/\1 \2 \3/' "$T/out")
		if [ $rc -eq 0 ] && [ "$got" = "$a" ]; then pass "mm $file"
		else fail "mm $file" "exit $rc, counts '$got', wanted '$a'; $(head -c 200 "$T/err")"; fi
	else
		want="mtx2bin: $file:$a: $b"
		if [ $rc -eq "$status" ] && [ "$(cat "$T/err")" = "$want" ]; then pass "mm $file"
		else fail "mm $file" "exit $rc, stderr '$(head -c 200 "$T/err")', wanted '$want'"; fi
	fi
	# The same file through the stream: it writes, or fails the same way.
	if [ "$status" = 0 ]; then
		"$BIN/mtx2bin" "$file" >"$T/s.apm" 2>"$T/err"
		[ $? -eq 0 ] && [ -s "$T/s.apm" ] || fail "mm $file stream" "$(head -c 200 "$T/err")"
	fi
done <expected.tsv
