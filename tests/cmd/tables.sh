# A table of distances (apsp-cpu --sources S --targets T; apspmat.5 "A
# table of distances"): the columns of the rows' result in the order asked,
# on both engines, searched and eliminated, every type; every reader that
# takes it (apsp-info, apsp-diff, bin2mtx, apspmat.py) reads it, those that
# cannot (apsp-path, apsp-stats, a certificate) refuse it by name; bad
# requests named; Python's distance_table against scipy.
. "$TOP/tests/lib.sh"
g=$BIN/gengraph
c=$BIN/apsp-cpu
b=$BIN/bin2mtx

# Columns $3 (vertices, from 0) of the rows of result $1, as bin2mtx --dense
# prints them, into $2.
columns() {
	$b --dense "$1" | awk -v want="$3" 'BEGIN { k = split(want, w, " ") }
		{ line = ""; for (i = 1; i <= k; i++) line = line (i > 1 ? " " : "") $(w[i] + 1); print line }' >"$2"
}

$g --road 20x15 -w 1:100 -s 4 -F mtx -o $T/r.mtx
printf '250 3\n# a comment\n7 299\n' >$T/src
printf '0 299\n17 44 3\n' >$T/dst
$c --sources $T/src -o $T/rows $T/r.mtx
columns $T/rows $T/want "0 299 17 44 3"
for route in "dense" "sparse" "sparse, eliminated"; do
	e=${route%%,*}
	most=; [ "$route" = "sparse, eliminated" ] && most=0
	expect_true "$route engine: the table is the rows' columns, in the order asked" \
		'APSP_SEARCH_MOST=$most $c --engine $e --sources $T/src --targets $T/dst -o $T/t $T/r.mtx &&
		 $b --dense $T/t | cmp -s - $T/want'
done
expect_output "a table has a version 3 header" "3" 'od -An -tu4 -j8 -N4 $T/t | tr -d " "'
expect_true "apsp-info: the table's size, and both lists named" \
	'$BIN/apsp-info $T/t >$T/info && grep -q "table *4 x 5 of 300" $T/info &&
	 grep -q "^  sources " $T/info && grep -q "^  targets " $T/info && ! grep -q predecessors $T/info'
expect_output "apsp-info --json: rows and columns" '"rows":4,"cols":5' \
	'$BIN/apsp-info --json $T/t | grep -o "\"rows\":[0-9]*,\"cols\":[0-9]*"'
expect_output "bin2mtx: Matrix Market entries named by source and target" "251 1 $(sed -n 1p $T/want | cut -d' ' -f1)" \
	'$b $T/t | grep -v "^%" | sed -n 2p'
expect_true "bin2mtx --npy: a rows x columns array" \
	'$b --npy $T/t | head -c 128 | grep -q "(4, 5)"'
expect_output "bin2mtx --json: the lists and the rows, null where unreachable" \
	"$(printf '{"n":1,"type":"int32","matrix":"distances","sources":[0],"targets":[0],"rows":[\n[0]\n]}')" \
	'printf "%%%%MatrixMarket matrix coordinate pattern general\n1 1 0\n" >$T/one.mtx && echo 0 >$T/z &&
	 $c --sources $T/z --targets $T/z $T/one.mtx | $b --json'
if find_python numpy; then
	expect_true "bin2mtx --json: a table as JSON, the same values as --dense" \
		"$b --json \$T/t | $py -c \"
import json, sys
o = json.load(sys.stdin)
want = [[int(x) for x in l.split()] for l in open('$T/want')]
assert o['sources'] == [250, 3, 7, 299] and o['targets'] == [0, 299, 17, 44, 3] and o['rows'] == want
\""
fi
expect_true "apsp-diff: the table against the rows' result, the columns compared" \
	'$BIN/apsp-diff -v $T/t $T/rows | grep -q "the 5 columns of $T/t compared"'
expect_true "apsp-diff: two tables of the same request are equal" \
	'$c --engine dense --sources $T/src --targets $T/dst -o $T/t2 $T/r.mtx && $BIN/apsp-diff -q $T/t $T/t2'
printf '0 298\n' >$T/dst2
expect_stderr "apsp-diff: a column the other lacks, named" 2 "t3 holds the column of vertex 298, .* does not" \
	'$c --sources $T/src --targets $T/dst2 -o $T/t3 $T/r.mtx && $BIN/apsp-diff $T/t $T/t3'
for t in float32 float64; do
	$g --road 20x15 -t $t -w 1:100 -s 5 -F mtx -o $T/f.mtx
	expect_true "$t, both engines: the table equals the dense engine's rows within rounding" \
		'$c --engine dense --sources $T/src -o $T/frows $T/f.mtx &&
		 $c --engine sparse --sources $T/src --targets $T/dst -o $T/ft $T/f.mtx && $BIN/apsp-diff -q $T/ft $T/frows &&
		 $c --engine dense --sources $T/src --targets $T/dst -o $T/ft $T/f.mtx && $BIN/apsp-diff -q $T/ft $T/frows'
done
expect_true "--rows A:B with --targets: the table of those rows" \
	'$c --rows 3:5 --targets $T/dst -o $T/tr $T/r.mtx && $c --rows 3:5 -o $T/rr $T/r.mtx &&
	 $BIN/apsp-diff -q $T/tr $T/rr && $BIN/apsp-info $T/tr | grep -q "table *2 x 5"'
expect_stderr "a negative cycle: exit 3, a stream that says so" 3 "negative cycle" \
	'printf "%%%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 1\n2 3 -2\n3 2 1\n" >$T/neg.mtx &&
	 echo 1 >$T/one && $c --rows 0:2 --targets $T/one -o $T/nc $T/neg.mtx'
expect_true "... and its stream reads back as a negative cycle" \
	'$BIN/apsp-info $T/nc | grep -q "cycle vertex"'

# --paths: the sources' predecessors beside the table, so that apsp-path
# prints the table's paths (the rows' result's), to its targets alone.
$c --sources $T/src -o $T/rowsp $T/r.mtx
for route in "dense" "sparse" "sparse, eliminated"; do
	e=${route%%,*}
	most=; [ "$route" = "sparse, eliminated" ] && most=0
	expect_true "$route engine, --paths: apsp-path prints the rows' paths to the targets" \
		'APSP_SEARCH_MOST=$most $c --engine $e --sources $T/src --targets $T/dst --paths -o $T/tp $T/r.mtx &&
		 $BIN/apsp-path -i $T/tp 250 0 3 299 7 17 299 44 >$T/p1 && $BIN/apsp-path -i $T/rowsp 250 0 3 299 7 17 299 44 >$T/p2 &&
		 cmp -s $T/p1 $T/p2 && $b --dense $T/tp | cmp -s - $T/want'
done
expect_true "--paths: apsp-path --from a source: a path to each target" \
	'$BIN/apsp-path -i $T/tp --from 3 --tsv >$T/f && [ $(wc -l <$T/f) = 5 ] && cut -f2 $T/f | tr "\n" " " | grep -qx "0 3 17 44 299 "'
expect_stderr "--paths: a vertex that is not a target, named" 2 "vertex 1 is not a target of this table" \
	'$BIN/apsp-path -i $T/tp 3 1'
expect_true "--paths: bin2mtx --pred gives the sources' whole rows, the rows' result's" \
	'$b --pred --dense $T/tp >$T/x1 && $b --pred --dense $T/rowsp | cmp -s - $T/x1'
expect_stderr "--paths without --targets: refused" 2 "paths goes with --targets" \
	'$c --sources $T/src --paths -o $T/x $T/r.mtx'
expect_stderr "--paths with --no-paths: refused" 2 "give one of them" \
	'$c --sources $T/src --targets $T/dst --paths --no-paths -o $T/x $T/r.mtx'

# Readers that cannot take a table refuse it by name.
expect_stderr "apsp-path: no predecessors in a table, said" 2 "a table of distances .*holds no predecessors" \
	'$BIN/apsp-path -i $T/t 250 3'
expect_stderr "apsp-stats: refused by name" 2 "a table of distances .*take every row" '$BIN/apsp-stats $T/t'
expect_stderr "apsp-diff --graph: a table cannot be certified, said" 2 "a table of distances .*cannot be certified" \
	'$BIN/apsp-diff --graph $T/r.mtx $T/t'
expect_stderr "apsp-info --graph: the same" 2 "cannot be certified" '$BIN/apsp-info --graph $T/r.mtx $T/t'

# Requests refused, named; nothing half-written.
expect_stderr "--targets alone: the rows asked for" 2 "give the table's rows too" \
	'$c --targets $T/dst -o $T/x $T/r.mtx'
expect_stderr "--targets with --stats" 2 "the statistics take every row" \
	'$c --sources $T/src --targets $T/dst --stats $T/r.mtx'
printf '1\n2 300\n' >$T/bad1
expect_stderr "--targets: a vertex out of range, by file and line" 2 "bad1:2: vertex 300: no such vertex" \
	'$c --sources $T/src --targets $T/bad1 -o $T/x $T/r.mtx'
printf '1 5\n5\n' >$T/bad2
expect_stderr "--targets: a vertex twice, both lines named" 2 "bad2:2: vertex 5 a second time \(first on line 1\)" \
	'$c --sources $T/src --targets $T/bad2 -o $T/x $T/r.mtx'
expect_stderr "--targets - with the graph on stdin" 2 "cannot both be stdin" \
	'$c --sources $T/src --targets - <$T/r.mtx'
expect_stderr "--targets - with --sources -" 2 "the sources cannot both be stdin" \
	'$c --sources - --targets - -o $T/x $T/r.mtx </dev/null'
expect_true "--targets - with the graph a file" \
	'printf "0 299 17 44 3" | $c --sources $T/src --targets - -o $T/x $T/r.mtx && $BIN/apsp-diff -q $T/x $T/t'
expect_true "nothing half-written where the request is refused" \
	'rm -f $T/x; ! $c --sources $T/src --targets $T/bad1 -o $T/x $T/r.mtx 2>/dev/null && [ ! -e $T/x ]'

if find_python numpy; then
	sanitizer_preload # (the library loaded into python, where built with the sanitizers)
	expect_true "apspmat.py: the table read and written again, the same" \
		"$py -c \"
import sys; sys.path.insert(0, '$TOP/python'); import apspmat as A
t, r = A.load('$T/t'), A.load('$T/rows')
assert list(t.sources) == [250, 3, 7, 299] and list(t.targets) == [0, 299, 17, 44, 3]
assert t.dist.shape == (4, 5) and t.pred is None and (t.dist == r.dist[:, t.targets]).all()
A.save('$T/resaved', t)
q = A.load('$T/resaved')
assert (q.dist == t.dist).all() and list(q.targets) == list(t.targets)
p, rp = A.load('$T/tp'), A.load('$T/rowsp')
assert p.pred.shape == (4, 300) and (p.pred == rp.pred).all()
A.save('$T/resavedp', p)
assert (A.load('$T/resavedp').pred == p.pred).all()
\" && $BIN/apsp-diff -q $T/resaved $T/t && $BIN/apsp-path -i $T/resavedp 3 17 | cmp -s - \$($BIN/apsp-path -i $T/tp 3 17 >$T/pp; echo $T/pp)"
	if find_python numpy scipy; then
		expect_true "apsp.distance_table equals scipy's dijkstra's columns, directed and not" \
			"$py -c \"
import sys; sys.path.insert(0, '$TOP/python'); import apsp, numpy as np
import scipy.sparse as sp, scipy.sparse.csgraph as cg
A = sp.random(400, 400, density=0.01, random_state=3, format='csr'); A.data = np.round(A.data * 50) + 1
S, T = [5, 17, 3, 399], [0, 399, 17, 44, 250]
for d in (True, False):
    assert np.array_equal(apsp.distance_table(A, S, T, directed=d), cg.dijkstra(A, directed=d, indices=S)[:, T])
    assert np.array_equal(apsp.distance_table(A.toarray(), S, T, directed=d, device='cpu'),
                          cg.dijkstra(A, directed=d, indices=S)[:, T])
try:
    apsp.distance_table(A, S, [1, 1]); sys.exit(1)
except ValueError as e:
    assert 'twice' in str(e)
\""
	else
		skip "apsp.distance_table" "no python3 with scipy"
	fi
else
	skip "apspmat.py and apsp.distance_table" "no python3 with numpy"
fi
