# The 44 Stanford APSP cases (tests/data/stanford): the smallest distance
# over all pairs u != v, or NULL when the graph has a negative cycle, as
# published; the predecessors pass apsp-diff --graph; small cases also
# agree with the independent oracle on the whole matrix.
. "$TOP/tests/lib.sh"
S=$TDATA/stanford
CC=${CC:-cc}
$CC -O2 -o "$T/oracle" "$TOP/tests/oracle/dijkstra.c" -lm 2>/dev/null || rm -f "$T/oracle"
# Smallest finite off-diagonal distance of a result (Matrix Market entries).
smallest() {
	"$BIN/bin2mtx" --dist "$1" | awk '/^%/ { next } !h { h = 1; next }
		$1 != $2 && (!seen || $3 < m) { m = $3; seen = 1 }
		END { if (seen) print m; else print "none" }'
}
for f in "$S"/input_*.txt; do
	case=$(basename "$f" .txt | sed 's/^input_//')
	want=$(tr -d ' \r\n' <"$S/output_$case.txt")
	"$BIN/mtx2bin" -F edges --base 1 "$f" >"$T/g" 2>"$T/err" ||
		{ fail "stanford $case" "mtx2bin: $(head -c 200 "$T/err")"; continue; }
	"$BIN/apsp-cpu" "$T/g" >"$T/r" 2>"$T/err"
	rc=$?
	if [ $rc -eq 3 ]; then
		got=NULL
	elif [ $rc -eq 0 ]; then
		got=$(smallest "$T/r")
	else
		fail "stanford $case" "apsp-cpu exit $rc: $(head -c 200 "$T/err")"
		continue
	fi
	if [ "$got" != "$want" ]; then
		fail "stanford $case" "got $got, published $want"
		continue
	fi
	if [ $rc -eq 0 ] && ! "$BIN/apsp-diff" -q --graph "$T/g" "$T/r"; then
		fail "stanford $case" "predecessors invalid"
		continue
	fi
	n=$(head -1 "$f" | awk '{ print $1 }')
	if [ -x "$T/oracle" ] && [ "$n" -le 256 ]; then
		"$T/oracle" -s <"$f" >"$T/want"
		orc=$?
		if [ $rc -eq 3 ]; then
			[ $orc -eq 3 ] || { fail "stanford $case" "the oracle finds no negative cycle"; continue; }
		elif ! "$BIN/bin2mtx" --dense --dist "$T/r" | cmp -s - "$T/want"; then
			fail "stanford $case" "distances differ from the oracle"
			continue
		fi
	fi
	pass "stanford $case: $want"
done
