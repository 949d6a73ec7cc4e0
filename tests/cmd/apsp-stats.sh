# apsp-stats and apsp-cpu --stats: the statistics of a result against
# networkx (closeness, harmonic centrality) and igraph (distances,
# eccentricity) on directed graphs with unreachable parts, zero weights,
# negative edges, duplicate entries and self loops, one vertex, two isolated
# vertices, float32 weights, a grid and a geometric graph; --summary and
# --json agree with the table; both tools print the same bytes; damaged,
# distance-less and negative-cycle inputs are refused with nothing written.
. "$TOP/tests/lib.sh"
s=$BIN/apsp-stats
c=$BIN/apsp-cpu
g=$BIN/gengraph
m=$BIN/mtx2bin
x=$BIN/bin2mtx

expect_true "help" '$s --help | grep -q "^Usage: apsp-stats"'
expect_true "apsp-cpu --help names --stats" '$c --help | grep -q -- "--stats"'
expect_stderr "apsp-cpu --summary alone" 2 'go with --stats' '$c --summary </dev/null'
expect_stderr "bad --base" 2 'base' '$s --base 2 </dev/null'

find_python networkx igraph

# stats_case NAME GRAPH [unit]: the table of apsp-stats on apsp-cpu's result
# is apsp-cpu --stats' to the byte, and the oracles agree with it.
stats_case() {
	name=$1 graph=$2
	if ! $c "$graph" -o "$T/r.apm" 2>"$T/err" || ! $s "$T/r.apm" >"$T/t.tsv" 2>>"$T/err"; then
		fail "stats $name" "$(head -c 300 "$T/err")"
		return
	fi
	if $c --stats "$graph" >"$T/t2.tsv" 2>"$T/err" && cmp -s "$T/t.tsv" "$T/t2.tsv"; then
		pass "stats $name: apsp-cpu --stats = apsp-stats"
	else
		fail "stats $name: apsp-cpu --stats = apsp-stats" "$(head -c 300 "$T/err")"
	fi
	# the summary from the table's own columns
	want=$(awk -F'\t' 'NR > 1 { p += $2; w += $4; if (NR == 2 || $6 > d) d = $6; if (NR == 2 || $6 < r) r = $6 }
		END { printf "%d %.10g %.10g %.10g", p, d, r, w }' "$T/t.tsv")
	got=$($s --summary "$T/r.apm" | awk -F'\t' '{ v[$1] = $2 } END { printf "%d %.10g %.10g %.10g", v["pairs"], v["diameter"], v["radius"], v["wiener"] }')
	if [ "$want" = "$got" ]; then pass "stats $name: --summary"; else fail "stats $name: --summary" "$got, table $want"; fi
	if [ -z "$py" ]; then
		skip "stats $name: oracles" "no python3 with networkx and igraph (Debian: python3-networkx, python3-igraph)"
		return
	fi
	$x --weights "$graph" >"$T/g.mtx"
	"$py" "$TOP/tests/oracle/stats.py" "$T/g.mtx" "$T/t.tsv" "stats $name" ${3:-}
}

$g -n 60 -d 4 -s 11 -o "$T/sparse"
stats_case "directed, unreachable parts" "$T/sparse"
$g -n 50 -d 15 -w 0:5 -s 12 -o "$T/zero"
stats_case "zero weights" "$T/zero"
$g -n 50 -d 15 --negative -s 13 -o "$T/neg"
stats_case "negative edges" "$T/neg"
$g -n 40 -d 20 -t float32 -w 0.5:9.5 -s 14 -o "$T/f32"
stats_case "float32" "$T/f32"
$g -n 1 -d 0 -o "$T/one"
stats_case "one vertex" "$T/one"
printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 0\n' | $m -o "$T/two"
stats_case "two isolated vertices" "$T/two"
printf '%%%%MatrixMarket matrix coordinate integer general\n4 4 7\n1 2 5\n1 2 3\n2 3 4\n3 3 9\n3 1 2\n4 4 0\n2 1 8\n' | $m -o "$T/dup"
stats_case "duplicates and self loops" "$T/dup"
$g --grid 7x9 -s 15 -o "$T/grid"
stats_case "grid" "$T/grid"
$g -n 80 --geometric 0.2 -s 16 -o "$T/geo"
stats_case "geometric" "$T/geo"
$g -n 45 -d 6 -w 1:1 -s 17 -o "$T/unit"
stats_case "unit weights" "$T/unit" unit

# Every thread count and window gives the same bytes; so does --json.
$g -n 700 -d 2 -t float32 -s 18 | $c -o "$T/big.apm"
$s -T 1 "$T/big.apm" >"$T/a.tsv"
expect_true "same table on 1 and 3 threads" '$s -T 3 "$T/big.apm" | cmp -s - "$T/a.tsv"'
expect_true "no predecessors needed" '$c --no-paths "$T/big.apm" 2>/dev/null; $g -n 700 -d 2 -t float32 -s 18 | $c --no-paths | $s | cmp -s - "$T/a.tsv"'
if [ -n "$py" ]; then
	expect_true "--json: the table's columns" '$s --json "$T/big.apm" | "$py" -c "import json,sys; d=json.load(sys.stdin); assert d[\"n\"] == 700 and len(d[\"harmonic\"]) == 700 and d[\"vertex\"][-1] == 699"'
	expect_true "--summary --json" '$s --summary --json "$T/big.apm" | "$py" -c "import json,sys; d=json.load(sys.stdin); assert set(d) == {\"n\",\"pairs\",\"diameter\",\"radius\",\"average\",\"wiener\"}"'
fi
expect_true "--base 1 numbers from 1" '$s --base 1 "$T/big.apm" | sed -n 2p | cut -f1 | grep -qx 1'

# Bad input: nothing presented as complete.
head -c 30000 "$T/big.apm" >"$T/cut.apm"
expect_stderr "truncated: names the input and the block" 2 'cut.apm: truncated in block [0-9]+ of the distance matrix' '$s "$T/cut.apm"'
expect_status "truncated with -o" 2 '$s -o "$T/none.tsv" "$T/cut.apm"'
expect_true "truncated with -o: no file" 'test ! -e "$T/none.tsv" && ! ls "$T" | grep -q none'

expect_stderr "a graph, no distances" 2 'holds no distances' '$s "$T/sparse"'
printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -3\n2 1 1\n' | $m -o "$T/cyc"
$c "$T/cyc" >"$T/cyc.apm" 2>/dev/null
expect_stderr "negative cycle refused" 3 'negative cycle through vertex' '$s "$T/cyc.apm"'
expect_stderr "apsp-cpu --stats: negative cycle" 3 'negative cycle' '$c --stats "$T/cyc"'
expect_stderr "not a stream" 2 'magic|not an apsp' 'echo hello | $s'

# The manual page: every option of --help, and clean for groff.
$s --help >"$T/h"
expect_true "man page names every option" 'for o in $(grep -o -- "--[a-z][a-z-]*" "$T/h" | sort -u); do
	grep -q -- "$(printf "%s" "$o" | sed "s/-/\\\\\\\\-/g")" "$TOP/man/apsp-stats.1" || { echo "$o not in man page" >&2; exit 1; }; done'
if command -v groff >/dev/null 2>&1; then
	expect_output "man page clean" '' 'groff -ww -man -Tutf8 "$TOP/man/apsp-stats.1" 2>&1 >/dev/null'
fi
expect_true "--progress accepted" '$s --progress "$T/big.apm" 2>/dev/null | cmp -s - "$T/a.tsv"'

# An undirected graph (a symmetric Matrix Market file, or --undirected): the
# summary is networkx's undirected one, and says so; the karate club's
# Wiener index is 1351 (networkx's wiener_index), its average 2.40819964...
$m "$TOP/datasets/karate.mtx" | $c -o "$T/karate.apm"
expect_true "undirected: the Wiener index over unordered pairs (karate club: 1351)" \
	'$s --summary "$T/karate.apm" >$T/ks && grep -qx "wiener	1351" $T/ks && grep -qx "pairs	561" $T/ks &&
	grep -qx "average	2.4081996434937611" $T/ks && grep -q "^undirected	" $T/ks'
expect_true "undirected: --json says so" \
	'$s --summary --json "$T/karate.apm" | grep -q "\"wiener\": 1351, \"undirected\": true}"'
expect_true "undirected: apsp-cpu --stats gives the same bytes" \
	'$m "$TOP/datasets/karate.mtx" | $c --stats --summary | cmp -s - $T/ks'
$g -n 40 -d 20 --undirected -s 21 -o "$T/und"
$c "$T/und" -o "$T/und.apm"
expect_true "undirected (gengraph --undirected): half the ordered sum" \
	'w=$($s "$T/und.apm" | awk -F"\t" "NR > 1 { w += \$4 } END { print w / 2 }") &&
	[ "$($s --summary "$T/und.apm" | awk -F"\t" "\$1 == \"wiener\" { print \$2 }")" = "$w" ]'
expect_true "a directed graph's summary unchanged (no undirected line)" \
	'! $s --summary "$T/sparse.apm" 2>/dev/null | grep -q undirected; $c "$T/sparse" -o "$T/sparse.apm" && ! $s --summary "$T/sparse.apm" | grep -q undirected'
