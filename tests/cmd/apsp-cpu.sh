# apsp-cpu against an independent oracle (tests/oracle/dijkstra.c: Johnson,
# Bellman-Ford + Dijkstra from every source, double precision), on graphs
# with negative, zero and duplicate edges, zero-weight cycles, disconnected
# parts, n = 1, 2, primes, n not a multiple of B, int32 and float32; every
# predecessor matrix must pass apsp-diff --graph.
. "$TOP/tests/lib.sh"
c=$BIN/apsp-cpu
g=$BIN/gengraph
CC=${CC:-cc}
if ! $CC -O2 -o "$T/oracle" "$TOP/tests/oracle/dijkstra.c" -lm 2>"$T/cc.err"; then
	fail apsp-cpu-oracle-builds "$(head -c 300 "$T/cc.err")"
	exit 1
fi

# Distances of a result stream as dense text.
dense() { "$BIN/bin2mtx" --dense --dist "$1"; }
# Same distances and predecessors (the provenance lines differ).
same_result() {
	for m in --dist --pred; do
		"$BIN/bin2mtx" --dense $m "$1" >"$T/sr1" && "$BIN/bin2mtx" --dense $m "$2" >"$T/sr2" &&
			cmp -s "$T/sr1" "$T/sr2" || return 1
	done
}
# The oracle's answer for a graph stream.
oracle() { "$BIN/bin2mtx" --weights "$1" | "$T/oracle"; }
# Compare two dense texts: exact for int32, 1e-4 relative for float32.
same_dense() {
	awk -v tol="$3" 'NR == FNR { a[FNR] = $0; next }
	{
		if (!(FNR in a)) exit 1
		na = split(a[FNR], x, " "); nb = split($0, y, " ")
		if (na != nb) exit 1
		for (i = 1; i <= na; i++) {
			if (x[i] == y[i]) continue
			if (tol == 0 || x[i] == "inf" || y[i] == "inf") exit 1
			d = x[i] - y[i]; if (d < 0) d = -d
			s = x[i] < 0 ? -x[i] : x[i]; if (s < 1) s = 1
			if (d > tol * s) exit 1
		}
		rows++
	}
	END { if (rows != length(a)) exit 1 }' "$1" "$2"
}

# check NAME GRAPH TOL [apsp-cpu options]: distances as the oracle's, and
# (unless --no-paths) every predecessor chain valid.
check() {
	name=$1 graph=$2 tol=$3
	shift 3
	if ! oracle "$graph" >"$T/want" 2>"$T/err"; then
		fail "$name" "oracle: $(head -c 200 "$T/want" "$T/err")"
		return
	fi
	if ! $c "$@" "$graph" >"$T/r" 2>"$T/err"; then
		fail "$name" "apsp-cpu failed: $(head -c 300 "$T/err")"
		return
	fi
	dense "$T/r" >"$T/got"
	if ! same_dense "$T/want" "$T/got" "$tol"; then
		fail "$name" "distances differ from the oracle"
		return
	fi
	case " $* " in *" --no-paths "*) pass "$name"; return ;; esac
	if "$BIN/apsp-diff" -q --graph "$graph" "$T/r" 2>"$T/err"; then
		pass "$name"
	else
		fail "$name" "predecessors invalid: $("$BIN/apsp-diff" -n 3 --graph "$graph" "$T/r" | head -c 300)"
	fi
}

i=0
# n = 1, 2, primes, multiples of B and not, several B, both modes.
for n in 1 2 3 17 31 64 97 131; do
	for B in 16 48 64 128; do
		i=$((i + 1))
		$g -n $n -d 20 -s $i -o "$T/g"
		check "int32 n=$n B=$B" "$T/g" 0 -B $B
		$g -n $n -d 20 -s $i --negative -o "$T/g"
		check "int32 negative n=$n B=$B" "$T/g" 0 -B $B
	done
	$g -n $n -d 25 -s $n -w 0:3 -o "$T/g"
	check "int32 zero weights and zero cycles n=$n" "$T/g" 0
	check "int32 zero weights n=$n --no-paths" "$T/g" 0 --no-paths
	$g -n $n -d 3 -s $n -o "$T/g"
	check "int32 sparse, disconnected n=$n" "$T/g" 0 -B 32
	$g -n $n -d 30 -s $n -t float32 -o "$T/g"
	check "float32 n=$n" "$T/g" 1e-4 -B 16
	$g -n $n -d 30 -s $n -t float32 --negative -o "$T/g"
	check "float32 negative n=$n" "$T/g" 1e-4
done
$g -n 150 -d 20 -s 5 -w 0:0 -o "$T/g"
check "int32 every weight 0 (zero cycles everywhere)" "$T/g" 0 -B 32
$g -n 150 -d 10 -s 5 --undirected -o "$T/g"
check "int32 undirected" "$T/g" 0
$g -n 70 -d 10 -s 9 -B 32 -o "$T/g"
check "int32 padded input stream (npad > n)" "$T/g" 0

# Predecessors are derived from the final distances by default; tracked
# through the rounds with --derive-paths never, and where a float32 weight
# is negative.
for n in 17 131; do
	$g -n $n -d 25 -s $n -w 0:3 -o "$T/g"
	check "tracked paths, zero weights n=$n" "$T/g" 0 --derive-paths never
	$g -n $n -d 20 -s $n --negative -o "$T/g"
	check "tracked paths, negative n=$n B=16" "$T/g" 0 --derive-paths never -B 16
	$g -n $n -d 30 -s $n -t float32 -w 0:2 -o "$T/gf"
	check "derived paths, float32 ties and zeros n=$n" "$T/gf" 1e-4
done
expect_stderr "derived paths said" 0 'paths derived from the distances' '$c -v $T/g >/dev/null'
expect_stderr "--derive-paths never said" 0 ', paths tracked' '$c -v --derive-paths never $T/g >/dev/null'
$g -n 90 -d 20 -s 4 -t float32 --negative -o "$T/gf"
expect_stderr "float32 negative weights: paths tracked" 0 ', paths tracked' '$c -v $T/gf >/dev/null'
expect_stderr "--derive-paths bad" 2 "is not auto, always or never" '$c --derive-paths maybe $T/g'
expect_true "derived paths: the same predecessors on 1 and 2 threads" \
	'$g -n 200 -d 30 -s 3 -w 0:5 -o $T/gt && $c -T 1 $T/gt >$T/t1 && $c -T 2 $T/gt >$T/t2 &&
	"$BIN/bin2mtx" --npy --pred $T/t1 >$T/p1 && "$BIN/bin2mtx" --npy --pred $T/t2 | cmp - $T/p1'

# Every SIMD level this processor runs gives the same bytes.
$g -n 100 -d 20 -s 4 --negative -o "$T/g"
$c -T 1 --simd portable "$T/g" >"$T/portable"
for s in avx2 avx512; do
	if $c --simd $s "$T/g" >"$T/$s" 2>"$T/err"; then
		expect_true "--simd $s matches portable" 'same_result $T/$s $T/portable'
		$g -n 90 -d 20 -s 4 -t float32 --negative -o "$T/gf"
		check "float32 --simd $s" "$T/gf" 1e-4 --simd $s
		check "int32 --simd $s -B 16" "$T/g" 0 --simd $s -B 16
	else
		skip "--simd $s" "not on this processor"
	fi
done
expect_true "-T 1 and -T 2 give the same result" '$c -T 1 $T/g >$T/t1 && $c -T 2 $T/g >$T/t2 && same_result $T/t1 $T/t2'
expect_stderr "-v says the SIMD level" 0 'avx512|avx2|portable' '$c -v $T/g >/dev/null'

# Duplicate edges, a zero-weight cycle, a negative edge, two components,
# through mtx2bin's edge lists.
cat >"$T/dup.txt" <<'EOF'
# tail head weight, 0-based
0 1 7
0 1 3
1 2 0
2 1 0
2 3 -2
3 0 5
0 3 9
4 5 1
5 4 1
5 6 2
6 6 4
EOF
"$BIN/mtx2bin" -F edges "$T/dup.txt" >"$T/dup" 2>"$T/err" || fail "mtx2bin edge list" "$(cat "$T/err")"
check "duplicate edges, zero-weight cycle, two parts" "$T/dup" 0
expect_output "duplicate edges keep the minimum" "0 3 3 1 inf inf inf" 'dense $T/r | head -1'

# Negative cycles: exit 3, a message, and a stream that says why.
cat >"$T/neg.txt" <<'EOF'
0 1 2
1 2 -3
2 0 0
2 3 1
EOF
"$BIN/mtx2bin" -F edges "$T/neg.txt" >"$T/neg"
expect_stderr "negative cycle: exit 3" 3 '^apsp-cpu: .*/neg: the graph has a negative cycle through vertex [0-2]$' '$c $T/neg >$T/nr'
expect_stderr "negative cycle stream: apsp-path exit 3" 3 'negative cycle through vertex [0-2]' '$c $T/neg 2>/dev/null | $BIN/apsp-path 0 1'
expect_output "negative cycle agrees with the oracle" "negative cycle" '$BIN/bin2mtx --weights $T/neg | $T/oracle; [ $? -eq 3 ]'
printf '0 0 -1\n0 1 1\n' >"$T/loop.txt"
"$BIN/mtx2bin" -F edges "$T/loop.txt" >"$T/loop"
expect_stderr "negative self-loop: exit 3" 3 'negative cycle through vertex 0' '$c $T/loop >/dev/null'
$g -n 60 -d 20 -s 3 -w -5:10 -o "$T/g"
if oracle "$T/g" >/dev/null 2>&1; then
	check "random negative weights without a cycle" "$T/g" 0
else
	expect_status "random negative weights with a cycle: exit 3" 3 '$c $T/g >/dev/null'
fi

# int32 sums that could overflow are refused, never wrapped.
printf '0 1 600000000\n1 2 600000000\n' >"$T/big.txt"
"$BIN/mtx2bin" -F edges "$T/big.txt" >"$T/big"
expect_stderr "int32 overflow refused" 2 'could overflow.*float32' '$c $T/big >/dev/null'
expect_true "as float32 it works" '"$BIN/mtx2bin" -F edges -t float32 $T/big.txt | $c | "$BIN/apsp-path" 0 2 | grep -q "distance 1200000000"'

# Usage and input errors.
expect_stderr "bad -B" 2 'multiple of 16' '$c -B 24 $T/g'
expect_stderr "bad --simd" 2 'simd' '$c --simd sse9 $T/g'
expect_stderr "a result as input" 2 'no edge weights' '$c $T/r'
expect_stderr "missing input" 2 '^apsp-cpu: ' '$c $T/no-such-file'
expect_stderr "garbage input" 2 '^apsp-cpu: ' 'echo garbage | $c'
expect_stderr "write error" 2 'No space left' '$c $T/g >/dev/full'
expect_true "provenance appended" '"$BIN/bin2mtx" $T/r | grep -q "ID:apsp-cpu"'
tool_docs apsp-cpu

# Real graphs: nos4 and bcsstk08 (datasets/), as absolute values and as unit
# weights, through mtx2bin | apsp-cpu | apsp-path; the oracle agrees, the
# paths are valid.  With the stored (signed) values, an undirected negative
# edge is a negative cycle.
for ds in nos4 bcsstk08; do
	f=$TOP/datasets/$ds.tar.gz
	if [ ! -f "$f" ]; then
		skip "$ds" "datasets/$ds.tar.gz missing"
		continue
	fi
	if ! has_archives; then # mtx2bin without libarchive: unpack with tar
		tar -xzf "$f" -C "$T" && f=$T/$ds/$ds.mtx
	fi
	for w in abs unit; do
		"$BIN/mtx2bin" -q --weights $w "$f" >"$T/ds" 2>/dev/null || { fail "$ds --weights $w" "mtx2bin failed"; continue; }
		tol=0
		[ $w = abs ] && tol=1e-4
		check "$ds --weights $w" "$T/ds" $tol
		expect_true "$ds --weights $w: mtx2bin | apsp-cpu | apsp-path" '
			"$BIN/mtx2bin" -q --weights $w "$f" | $c | "$BIN/apsp-path" --tsv 0 99 5 17 >$T/p &&
			[ $(wc -l <$T/p) -eq 2 ] && grep -q "^0	99	[0-9.e+-]*	0,.*,99$" $T/p'
	done
	expect_stderr "$ds signed values: negative cycle" 3 'negative cycle' '"$BIN/mtx2bin" -q $f | $c | "$BIN/apsp-path" 0 1'
done

# float32 chains add up to their distances within apsp-diff's default 1e-5:
# spaceStation_10 (datasets/, n = 1272, real weights), where many chains
# must be re-attached and a loose choice of edges drifts from the distance
# by more than that over a long chain; both vertex orders.
f=$TOP/datasets/spaceStation_10.tar.gz
if [ ! -f "$f" ]; then
	skip "spaceStation_10" "datasets/spaceStation_10.tar.gz missing"
else
	if ! has_archives; then
		tar -xzf "$f" -C "$T" && f=$T/spaceStation_10/spaceStation_10.mtx
	fi
	"$BIN/mtx2bin" -q --weights abs "$f" -o "$T/ss" 2>/dev/null || fail "spaceStation_10" "mtx2bin failed"
	for o in natural nd; do
		if [ $o = nd ] && $c --order nd /dev/null 2>&1 | grep -q "no METIS"; then
			skip "spaceStation_10 --order nd" "built without METIS"
			continue
		fi
		expect_true "spaceStation_10 float32 --order $o: every chain within 1e-5 of its distance" \
			'$c --order $o -o $T/ssr $T/ss && "$BIN/apsp-diff" -q --graph $T/ss $T/ssr'
	done
fi

# --progress names every step, from the read to the write, in order (a long
# run once showed nothing for its first fifth, while it read and prepared).
"$BIN/gengraph" -n 300 -d 20 -s 5 >"$T/pr.apm"
steps() { tr '\r' '\n' <"$T/pe" | sed -n 's/^apsp-cpu: \([a-z][a-z ]*[a-z]\).*/\1/p' | uniq | grep -v "^rounds$\|^MiB of the graph read$" | tr '\n' ','; }
expect_output "--progress: every step in order, with paths" \
	"reading the graph,preparing the graph,ordering the vertices,tiling,deriving the predecessors,untiling,writing the result," \
	'$c --progress "$T/pr.apm" -o "$T/pr.out" 2>"$T/pe" && steps'
expect_output "--progress: every step in order, statistics" \
	"reading the graph,preparing the graph,ordering the vertices,tiling,untiling,folding the statistics," \
	'$c --progress --stats "$T/pr.apm" -o "$T/pr.out" 2>"$T/pe" && steps'
expect_output "--progress: tracked paths are repaired" \
	"reading the graph,preparing the graph,ordering the vertices,tiling,repairing the predecessors,untiling,writing the result," \
	'$c --progress --derive-paths never "$T/pr.apm" -o "$T/pr.out" 2>"$T/pe" && steps'
expect_output "no progress without --progress off a terminal" "" '$c "$T/pr.apm" -o "$T/pr.out" 2>&1'

# Memory before work: a 79-byte file that declares n = 2e9 with one edge is
# refused from its header on every route (the dense one's words: "n = ...
# needs ... GiB"), also as a list of arcs and against APSP_MEMORY; n = 5e7
# with one edge and a row asked is searched, not ordered (an answer, in
# about 1.4 GB here).
printf '%%%%MatrixMarket matrix coordinate integer general\n2000000000 2000000000 1\n1 2 5\n' >"$T/huge.mtx"
for opts in "--stats" "--no-paths" "--rows 0:2" "--stats --betweenness" ""; do
	expect_stderr "n = 2e9, one edge, ${opts:-no option}: refused before work" 2 \
		'n = 2000000000 needs [0-9.]+ GiB of memory' '$c $opts "$T/huge.mtx" >/dev/null'
done
expect_stderr "n = 2e9 as a list of arcs: refused before work" 2 'n = 2000000000 needs' \
	'$BIN/mtx2bin -L arcs "$T/huge.mtx" -o "$T/huge.apm" && $c --stats "$T/huge.apm"'
expect_stderr "APSP_MEMORY: a smaller machine, the same refusal" 2 'n = 2000000 needs .* this machine has 0.1 GiB' \
	'printf "%%%%MatrixMarket matrix coordinate integer general\n2000000 2000000 1\n1 2 5\n" >"$T/two-m.mtx" &&
	 APSP_MEMORY=107374182 $c --stats "$T/two-m.mtx"'
printf '%%%%MatrixMarket matrix coordinate integer general\n50000000 50000000 1\n1 2 5\n' >"$T/fifty-m.mtx"
expect_true "n = 5e7, one edge, --rows 0:1: searched, the row right" \
	'$c -v --rows 0:1 "$T/fifty-m.mtx" -o "$T/fifty.apm" 2>"$T/fv" && grep -q "1 sources searched" "$T/fv" &&
	 $BIN/apsp-path -i "$T/fifty.apm" 0 1 | grep -q "distance 5"'
rm -f "$T/fifty.apm"
