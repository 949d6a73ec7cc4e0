# apsp-cpu's sparse engine (--engine sparse: elimination in nested-dissection
# order, rows in batches; run/sparse.c, lib/sparse/elim.c): the dense engine's
# distances (int32 exactly, floats within rounding) on road-like graphs and
# grids, one-way arcs, disconnected pieces, zero and negative arcs, repeats
# and loops, float32 and float64, padded streams and text; --stats equal to
# apsp-stats on the dense result; negative cycles; the automatic choice and
# its reasons; gengraph --road.
. "$TOP/tests/lib.sh"
g=$BIN/gengraph
c=$BIN/apsp-cpu
d=$BIN/apsp-diff
s=$BIN/apsp-stats

# same NAME GRAPH TOL: the sparse engine's distances are the dense engine's
# (within TOL; 0: exactly, and every pair reachable in both or neither).
same() {
	if ! $c --engine dense --no-paths -o $T/dense $2 2>$T/e1 ||
	   ! $c --engine sparse --no-paths -o $T/sparse $2 2>$T/e2; then
		fail "$1" "$(cat $T/e1 $T/e2 | head -c 300)"; return
	fi
	if $d -q -t $3 $T/dense $T/sparse 2>$T/e3; then pass "$1"
	else fail "$1" "$($d -n 3 -t $3 $T/dense $T/sparse 2>&1 | head -c 300)"; fi
}

$g --road 40x50 -s 5 -o $T/road
same "road-like 40x50, int32" $T/road 0
$g --road 40x50 -s 5 -t float32 -o $T/roadf
same "road-like 40x50, float32" $T/roadf 1e-5
$g --road 40x50 -s 5 -t float64 -o $T/roadd
same "road-like 40x50, float64" $T/roadd 1e-12
$g --grid 33x47 -s 2 -o $T/grid
same "grid 33x47 (n not a multiple of anything)" $T/grid 0
$g --road 30x30 -s 5 --negative -o $T/neg
same "negative arcs, no negative cycle, int32" $T/neg 0
$g --road 30x30 -s 6 --negative -t float32 -o $T/negf
same "negative arcs, float32" $T/negf 1e-5
$g --road 30x30 -s 9 -w 0:3 -o $T/zero
same "zero-weight arcs" $T/zero 0
$g -n 700 -d 0.4 -s 7 -o $T/oneway
same "random one-way arcs (0.4%), disconnected pieces" $T/oneway 0
$g -n 900 --geometric 0.06 -s 2 -t float64 -o $T/geo
same "geometric graph, float64" $T/geo 1e-12
$g --road 20x25 -s 3 -B 64 -o $T/padded
same "a padded stream" $T/padded 0
$g -n 200 -d 25 -s 1 -o $T/dg
same "a dense graph forced through the sparse engine" $T/dg 0
# Text: repeats keep the least weight, a loop of positive weight is dropped,
# vertices 5 and 6 apart from the rest, one-way arcs.
printf '1 2 4\n2 3 1\n1 2 2\n3 3 9\n3 1 1\n5 6 2\n4 1 7\n' >$T/e.txt
same "edge list: repeats, a loop, pieces apart" $T/e.txt 0
$g --road 20x20 -s 4 -F mtx -o $T/road.mtx
same "Matrix Market text" $T/road.mtx 0

# --stats: the same table and summary as apsp-stats on the dense result.
$c --engine dense --no-paths -o $T/rd $T/road
for form in "" --summary --json; do
	$s $form $T/rd >$T/want 2>/dev/null
	expect_true "--stats $form: apsp-stats' figures on the dense result" \
		'$c --engine sparse --stats $form $T/road >$T/got && cmp -s $T/want $T/got'
done
$c --engine dense --no-paths -o $T/rdf $T/roadf
$s $T/rdf >$T/want
$c --engine sparse --stats $T/roadf >$T/got
same_stats "--stats float32: apsp-stats' table within float32's rounding" $T/want $T/got 1e-5
$c --engine dense --stats -T 1 $T/neg >$T/want
expect_true "--stats with negative arcs: the dense engine's table" \
	'$c --engine sparse --stats -T 2 $T/neg >$T/got && cmp -s $T/want $T/got'

# Negative cycles: exit 3 naming a vertex on the cycle (1 -> 2 -> 3 -> 1).
printf '%%%%MatrixMarket matrix coordinate integer general\n4 4 4\n1 2 3\n2 3 -2\n3 1 -2\n3 4 1\n' >$T/cyc.mtx
expect_stderr "negative cycle: exit 3, a vertex on it" 3 "negative cycle through vertex [123]$" \
	'$c --engine sparse --no-paths -o $T/cyc $T/cyc.mtx'
expect_true "negative cycle: the result says so, no distances" \
	'$BIN/apsp-info $T/cyc | grep -q "negative cycle"'
expect_stderr "negative cycle with --stats: exit 3" 3 "negative cycle through vertex [123]: no statistics" \
	'$c --engine sparse --stats $T/cyc.mtx'
printf '1 2 3\n2 2 -1\n' >$T/loop.txt
expect_stderr "a negative loop is a negative cycle" 3 "negative cycle through vertex 2$" \
	'$c --engine sparse --no-paths $T/loop.txt >/dev/null'

# Options and the choice.
expect_stderr "--engine: a bad name" 2 "is not auto, dense or sparse" '$c --engine tiles $T/road'
# With paths, --engine sparse derives predecessors from the distances: every
# chain a path of the graph as long as its distance (apsp-diff --graph),
# zero and negative arcs (ties, loops of equal chains) and rounding included.
paths() { # NAME GRAPH TOL
	if ! $c --engine dense -o $T/dense $2 2>$T/e1 || ! $c --engine sparse -o $T/sparse $2 2>$T/e2
	then
		fail "$1" "$(cat $T/e1 $T/e2 | head -c 300)"; return
	fi
	if $d -q -t $3 --graph $2 $T/dense $T/sparse 2>$T/e3; then pass "$1"
	else fail "$1" "$($d -n 3 -t $3 --graph $2 $T/dense $T/sparse 2>&1 | head -c 300)"; fi
}
paths "--engine sparse with paths, int32: every chain a shortest path" $T/road 0
paths "... float32 (rounding)" $T/roadf 1e-5
paths "... float64" $T/roadd 1e-12
$g --road 30x30 -s 9 -w 0:3 --negative -o $T/zn
paths "... zero and negative arcs" $T/zn 0
$g --grid 20x20 -w 0:0 -o $T/zeros
paths "... every arc of weight 0 (every chain tied)" $T/zeros 0
$g -n 700 -d 0.4 -s 7 -o $T/pieces
paths "... one-way arcs, pieces apart" $T/pieces 0
expect_true "--engine sparse with paths: apsp-path's route on its result" \
	'$c --engine sparse -o $T/sp $T/road && $BIN/apsp-path -i $T/sp 3 1999 | grep -q .'
expect_stderr "--engine sparse with --checkpoint: a usage error" 2 "keeps none" \
	'$c --engine sparse --no-paths --checkpoint $T/ck $T/road >/dev/null'
expect_true "auto, a dense graph: the dense engine, said with -v" \
	'$c -v --stats $T/dg 2>&1 >/dev/null | grep -Eq "dense engine: (over 32 arcs a vertex|no nested dissection)"'
expect_true "auto with paths: the dense engine, said with -v" \
	'$c -v -o /dev/null $T/road 2>&1 | grep -q "dense engine: predecessors asked"'
if $c --order nd /dev/null 2>&1 | grep -q "no METIS"; then
	skip "auto, a road-like graph: the sparse engine" "built without METIS"
	expect_true "auto without METIS: the dense engine, said with -v" \
		'$c -v --stats $T/road 2>&1 >/dev/null | grep -q "dense engine: no nested dissection"'
else
	expect_true "auto, a road-like graph: the sparse engine, said with -v" \
		'$c -v --stats $T/road 2>&1 >/dev/null | grep -q "^apsp-cpu: sparse engine: n 2000"'
	expect_true "auto, a random graph of 1%: the dense engine (the fill is large)" \
		'$g -n 600 -d 1 -s 4 | $c -v --stats 2>&1 >/dev/null | grep -q "dense engine: the elimination.s fill"'
	# The stream read for its arcs, then handed over as a matrix: the
	# dense engine's result (a stream with padding too).
	$g -n 600 -d 1 -s 4 -o $T/r1
	$g -n 97 -d 20 -w 0:3 -B 64 -s 4 -o $T/r2
	for x in r1 r2; do
		$c --engine dense --no-paths -o $T/$x.want $T/$x
		expect_true "auto, stream $x declined once its arcs were read: the dense engine's result" \
			'$c --no-paths -o $T/$x.got $T/$x && $d -q -t 0 $T/$x.want $T/$x.got'
	done
fi
# The sparse engine never makes n x n: a 300 x 300 road-like graph as text
# (n = 90,000: 32 GB as a matrix) under a 2 GB address-space limit (in
# nested-dissection order: numbered as made, its fill is 30 times larger).
if $c --order nd /dev/null 2>&1 | grep -q "no METIS"; then
	skip "n = 90000 --stats under a 2 GB limit" "built without METIS"
else
	$g --road 300x300 -s 1 -F mtx -o $T/big.mtx
	if ldd $c 2>/dev/null | grep -q libasan; then # (sanitizers need their address space)
		expect_true "n = 90000 --stats (sanitized: no address-space limit)" \
			'$c --engine sparse --stats --summary $T/big.mtx >$T/sum && grep -q "^n	90000" $T/sum'
	else
		expect_true "n = 90000 --stats under a 2 GB limit (its matrix would be 32 GB)" \
			'(ulimit -v 2000000; $c --engine sparse --stats --summary $T/big.mtx) >$T/sum &&
			 grep -q "^n	90000" $T/sum'
	fi
fi

# gengraph --road: a grid with about a third of its streets gone, both ways.
expect_true "gengraph --road: mean degree between 2.4 and 3.0, arcs both ways" \
	'$g --road 60x60 -s 3 -F mtx | awk "NR == 2 { a = \$3 } NR > 2 { k[\$1 \" \" \$2] = 1 }
	  END { for (x in k) { split(x, p, \" \"); if (!((p[2] \" \" p[1]) in k)) exit 1 }
	        exit !(a / 3600 > 2.4 && a / 3600 < 3.0) }"'
expect_true "gengraph --road: the same seed, the same bytes" \
	'$g --road 30x30 -s 8 >$T/r1 && $g --road 30x30 -s 8 >$T/r2 && cmp -s $T/r1 $T/r2'
expect_stderr "gengraph --road and --grid: one shape" 2 "three shapes: give one" \
	'$g --road 3x3 --grid 3x3'
expect_stderr "gengraph --road: a bad size named as --road" 2 "^gengraph: --road: " '$g --road 3by3'

# Float weights with zero-weight arcs: the sparse engine's derived
# predecessors are shortest paths (580c112's chains through the vertices
# whose closest in-arcs looped took arcs far from tight), also under the
# default --rows; every result certified against its graph.
printf '12 0 5\n' >"$T/zsrc"
for f in "$TDATA"/certify/zero-arcs-*.mtx; do
	for t in float32 float64; do
		for r in "--engine sparse" "--rows 3:11" "--engine sparse --sources $T/zsrc"; do
			expect_true "$(basename "$f") $t $r: certified" \
				'$BIN/mtx2bin -q -t $t "$f" -o "$T/zg" && $BIN/apsp-cpu -t $t $r "$f" -o "$T/z.apm" &&
				 $BIN/apsp-diff -q --graph "$T/zg" "$T/z.apm"'
		done
	done
done
