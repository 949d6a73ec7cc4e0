# Command tests of gengraph: options, determinism, the graphs it makes.
. "$TOP/tests/lib.sh"
D=$TDATA/gengraph
g=$BIN/gengraph
b2m=$BIN/bin2mtx

# The generator is frozen: a seed means the same graph forever.
expect_true golden-int32 '$g -n 8 -d 40 -s 7 | $b2m --dense | cmp - $D/n8-d40-s7.dense'
expect_true golden-float32 '$g -n 6 -d 50 -s 3 -t float32 -w 0.5:2 | $b2m --dense | cmp - $D/n6-d50-s3-f32.dense'
expect_true other-seed-differs '! $g -n 8 -d 40 -s 8 | $b2m --dense | cmp -s - $D/n8-d40-s7.dense'
expect_true default-seed-stable '$g -n 50 -d 30 | $b2m --dense >$T/a && $g -n 50 -d 30 -s 1 | $b2m --dense | cmp - $T/a'

# Same bytes whatever the thread count (the header's command line aside).
for t in int32 float32; do
	expect_true threads-same-$t '$g -n 333 -d 20 -t $t -T 1 -o $T/t1 && $g -n 333 -d 20 -t $t -T 2 -o $T/t2 &&
		$g -n 333 -d 20 -t $t -T 7 -o $T/t7 &&
		$b2m --npy $T/t1 >$T/n1 && $b2m --npy $T/t2 | cmp - $T/n1 && $b2m --npy $T/t7 | cmp - $T/n1'
done
# The stream's bytes depend on -T only through the @PG line (and its checksum).
expect_true threads-same-bytes '$g -n 300 -d 20 -T 1 -o $T/a1 && $g -n 300 -d 20 -T 2 -o $T/a2 &&
	[ $(wc -c <$T/a1) -eq $(wc -c <$T/a2) ] && [ $(cmp -l $T/a1 $T/a2 | wc -l) -le 8 ]'

# Shape of the graph.
expect_output nnz-density-0 '7 7 0' '$g -n 7 -d 0 | $b2m | grep -v "^%"| head -n 1'
expect_output nnz-density-100 '7 7 42' '$g -n 7 -d 100 | $b2m | grep -v "^%"| head -n 1'
expect_output diagonal-zero '300' '$g -n 300 -d 50 | $b2m --dense | awk "\$NR == 0" | wc -l'
# 20% of 300*299 ordered pairs = 17940 edges; allow 5%.
expect_true density-20 'm=$($g -n 300 -d 20 | $b2m | grep -v "^%" | head -n 1 | cut -d" " -f3);
	e=$m; [ $e -gt 17043 ] && [ $e -lt 18837 ]'
expect_true weights-in-range '$g -n 200 -d 30 -w 5:9 | $b2m | awk "!/^%/ && NR>1 && \$1!=\$2 && (\$3<5 || \$3>9) {bad=1} END {exit bad}"'
expect_true weights-reach-ends '$g -n 200 -d 30 -w 5:9 | $b2m | grep -v "^%" >$T/w && grep -q " 5$" $T/w && grep -q " 9$" $T/w'
expect_true weights-single '$g -n 50 -d 30 -w 4 | $b2m | awk "!/^%/ && NR>1 && \$1!=\$2 && \$3!=4 {bad=1} END {exit bad}"'
expect_true float-weights-in-range '$g -n 100 -d 30 -t float32 -w 0.25:0.5 | $b2m | grep "coordinate real" >/dev/null &&
	$g -n 100 -d 30 -t float32 -w 0.25:0.5 | $b2m | awk "!/^%/ && NF==3 && \$1!=\$2 && (\$3<0.25 || \$3>0.5) {bad=1} END {exit bad}"'
expect_true int-extremes '$g -n 30 -d 50 -w -1073741822:1073741822 | $b2m --dense >/dev/null'
expect_true undirected-symmetric '$g -n 60 -d 25 --undirected | $b2m --dense >$T/u &&
	awk "{for (j = 1; j <= NF; j++) m[NR, j] = \$j} END {for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++) if (m[i, j] != m[j, i]) exit 1}" $T/u'
expect_true directed-asymmetric '$g -n 60 -d 25 | $b2m --dense >$T/u &&
	! awk "{for (j = 1; j <= NF; j++) m[NR, j] = \$j} END {for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++) if (m[i, j] != m[j, i]) exit 1}" $T/u'
expect_output padded-real-n '5 5 0' '$g -n 5 -d 0 -B 4 | $b2m | grep -v "^%" | head -n 1'
expect_true padded-same-graph '$g -n 37 -d 30 -B 16 | $b2m --dense >$T/p && $g -n 37 -d 30 | $b2m --dense | cmp - $T/p'
expect_true padded-size '$g -n 37 -d 0 -B 16 -z 0 -o $T/p16 && $g -n 48 -d 0 -z 0 -o $T/p48 &&
	[ $(wc -c <$T/p16) -gt $(( 48 * 48 * 4 )) ] && [ $(wc -c <$T/p48) -gt $(( 48 * 48 * 4 )) ]'
# The int32 rows are made three ways (a sparse graph's weights in a second
# pass, a dense graph's in one, the general path where potentials come in):
# with potentials of 0 all give the same edges and weights, padded or not.
for d in 1 4.9 30; do
	expect_true "fast-rows-same-d$d" '$g -n 300 -d '$d' -s 9 -B 64 | $b2m | grep -v "^%" >$T/fr &&
		$g -n 300 -d '$d' -s 9 -B 64 --negative=0 | $b2m | grep -v "^%" | cmp - $T/fr &&
		[ $(wc -l <$T/fr) -gt 100 ]'
done
expect_true provenance '$g -n 5 -d 10 | $b2m | grep -q "^% @PG.ID:gengraph.VN:0.1.0.CL:.*gengraph -n 5 -d 10"'

# --negative: negative edges appear, cycles keep their weight.
expect_true negative-has-negative '$g -n 100 -d 20 --negative | $b2m | awk "!/^%/ && NF==3 && \$3<0 {n++} END {exit !(n > 100)}"'
expect_true negative-float '$g -n 100 -d 20 --negative -t float32 -w 1:2 | $b2m | awk "!/^%/ && NF==3 && \$3<0 {n++} END {exit !(n > 10)}"'
# Around every 2-cycle u->v->u the potentials cancel: w'(u,v) + w'(v,u) >= 2 MIN.
expect_true negative-two-cycles '$g -n 80 -d 60 --negative=500 -w 3:10 | $b2m --dense >$T/n &&
	awk "{for (j = 1; j <= NF; j++) m[NR, j] = \$j} END {for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++)
		if (i != j && m[i, j] != \"inf\" && m[j, i] != \"inf\" && m[i, j] + m[j, i] < 6) exit 1}" $T/n'
expect_stderr negative-overflow 2 'int32 range' '$g -n 10 -d 10 -w 1:1000000000 --negative=100000000'
expect_stderr negative-undirected 2 'directed' '$g -n 10 -d 10 --negative --undirected'
if [ -x "$BIN/apsp-cpu" ]; then
	expect_status negative-no-cycle 0 '$g -n 120 -d 10 --negative | $BIN/apsp-cpu >/dev/null'
	expect_status pipeline 0 '$g -n 200 -d 15 | $BIN/apsp-cpu | $BIN/apsp-path 3 17'
	if [ -x "$BIN/apsp-diff" ]; then
		expect_true negative-paths-valid '$g -n 150 -d 8 --negative -B 16 -o $T/ng && $BIN/apsp-cpu $T/ng -o $T/nd &&
			$BIN/apsp-diff -q --graph $T/ng $T/nd && $b2m $T/nd | awk "!/^%/ && NF==3 && \$3<0 {n++} END {exit !(n > 0)}"'
		expect_true float-negative-paths-valid '$g -n 150 -d 8 --negative -t float32 -w 1:2 -o $T/fg && $BIN/apsp-cpu $T/fg -o $T/fd &&
			$BIN/apsp-diff -q --graph $T/fg $T/fd'
	fi
else
	skip negative-no-cycle "no apsp-cpu"
	skip pipeline "no apsp-cpu"
fi

# Option checking: usage errors exit 2 before anything is written.
expect_stderr missing-n 2 'required' '$g -d 10'
expect_stderr missing-d 2 'required' '$g -n 10'
expect_stderr n-zero 2 'n: 0 is out of range' '$g -n 0 -d 10'
expect_stderr n-text 2 "n: '10x' is not an integer" '$g -n 10x -d 10'
expect_stderr n-space 2 'not an integer' '$g -n " 10" -d 10'
expect_stderr n-huge 2 'out of range|too large' '$g -n 3000000000 -d 10'
expect_stderr n-overflow 2 'out of range' '$g -n 99999999999999999999999 -d 10'
expect_stderr d-negative 2 'out of range' '$g -n 10 -d -1'
expect_stderr d-above 2 'out of range' '$g -n 10 -d 100.5'
expect_stderr d-text 2 'not a number' '$g -n 10 -d ten'
expect_stderr d-nan 2 'not a number' '$g -n 10 -d nan'
expect_stderr w-reversed 2 'above MAX' '$g -n 10 -d 10 -w 9:5'
expect_stderr w-inf 2 'out of range' '$g -n 10 -d 10 -w 1:1073741823'
expect_stderr w-garbage 2 'not an integer' '$g -n 10 -d 10 -w 1:x'
expect_stderr w-float-int32 2 'not an integer' '$g -n 10 -d 10 -w 1.5:2'
expect_stderr t-unknown 2 'unknown type' '$g -n 10 -d 10 -t int64'
expect_stderr B-zero 2 'B: 0 is out of range' '$g -n 10 -d 10 -B 0'
expect_stderr extra-arg 2 'unexpected argument' '$g -n 10 -d 10 foo'
expect_stderr T-negative 2 'T: -1 is out of range' '$g -n 10 -d 10 -T -1'
expect_stderr z-range 2 'z: 10 is out of range' '$g -n 10 -d 10 -z 10'
expect_true level-0-same-graph '$g -n 100 -d 20 -z 0 | $b2m --npy >$T/z0 && $g -n 100 -d 20 -z 9 | $b2m --npy | cmp - $T/z0'

# ---- shapes: grids and random geometric graphs ----
g=$BIN/gengraph
b=$BIN/bin2mtx
# finite off-diagonal entries of a stream's dense matrix
edges() { $b --dense "$1" | awk '{ for (j = 1; j <= NF; j++) if (j != NR && $j != "inf") e++ } END { print e + 0 }'; }
# 1 when the finite pattern (with weights: exact values) is symmetric
symmetric() { $b --dense "$1" | awk -v w="$2" '{ for (j = 1; j <= NF; j++) m[NR, j] = (w ? $j : ($j != "inf")) }
	END { for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++) if (m[i, j] != m[j, i]) { print 0; exit } print 1 }'; }
$g --grid 3x4 -w 1:1 -o $T/grid
expect_output grid-edges 34 'edges $T/grid'
expect_output grid-n '12' '$BIN/apsp-info --json $T/grid | sed "s/.*\"n\":\([0-9]*\),.*/\1/"'
expect_true grid-neighbours '$b --dense $T/grid | awk "NR == 1 { exit !(\$2 == 1 && \$5 == 1 && \$3 == \"inf\" && \$6 == \"inf\") }" &&
	$b --dense $T/grid | awk "NR == 6 { exit !(\$2 == 1 && \$5 == 1 && \$7 == 1 && \$10 == 1 && \$1 == \"inf\") }"'
expect_true grid-corner-to-corner '$BIN/apsp-cpu $T/grid | $BIN/apsp-path 0 11 | grep -q "distance 5$"'
expect_output grid-row-ends-not-joined 'inf inf' '$b --dense $T/grid | awk "NR == 4 { print \$5 } NR == 5 { print \$4 }" | tr "\n" " " | sed "s/ $//"'
$g --grid 20x30 -s 4 -o $T/g1 -T 1
$g --grid 20x30 -s 4 -o $T/g2 -T 2
$g --grid 20x30 -s 5 -o $T/g3
expect_true grid-deterministic '$b --npy $T/g1 >$T/n1 && $b --npy $T/g2 | cmp - $T/n1 && ! $b --npy $T/g3 | cmp -s - $T/n1'
expect_output grid-directed-weights-differ 0 'symmetric $T/g1 1'
expect_output grid-pattern-symmetric 1 'symmetric $T/g1 0'
$g --grid 20x30 -s 4 --undirected -o $T/gu
expect_output grid-undirected-symmetric 1 'symmetric $T/gu 1'
$g --grid 16x16 -s 6 --negative -o $T/gn
expect_true grid-negative-solves '$BIN/apsp-cpu $T/gn | $BIN/apsp-diff -q --graph $T/gn -'
$g --grid 1x1 -o $T/g11
expect_output grid-one-vertex 0 'edges $T/g11'
$g -n 20 --geometric 2 -o $T/geo
expect_output geometric-radius-2-complete 380 'edges $T/geo'
$g -n 20 --geometric 0 -o $T/geo0
expect_output geometric-radius-0-empty 0 'edges $T/geo0'
$g -n 300 --geometric 0.1 -s 7 -T 1 -o $T/geo1
$g -n 300 --geometric 0.1 -s 7 -T 2 -o $T/geo2
expect_true geometric-deterministic '$b --npy $T/geo1 >$T/n1 && $b --npy $T/geo2 | cmp - $T/n1'
expect_output geometric-pattern-symmetric 1 'symmetric $T/geo1 0'
expect_true geometric-sparse 'e=$(edges $T/geo1) && [ $e -gt 300 ] && [ $e -lt 15000 ]'
expect_stderr grid-with-n 2 'no -n' '$g --grid 3x4 -n 12'
expect_stderr grid-with-d 2 'not with --grid' '$g --grid 3x4 -d 10'
expect_stderr grid-bad 2 "is not ROWSxCOLS" '$g --grid 12'
expect_stderr grid-zero 2 'grid' '$g --grid 0x4'
expect_stderr two-shapes 2 'give one' '$g --grid 3x4 --geometric 0.2'
expect_stderr geometric-range 2 'out of range' '$g -n 10 --geometric 3'
expect_stderr geometric-needs-n 2 'n is required' '$g --geometric 0.3'

# -F mtx: the same graph as text, weights that read back exactly.
same_text() { # NAME GENGRAPH-ARGS (mtx2bin -t TYPE for float64)
	_n=$1; shift
	_t=; case " $* " in *" float64 "*) _t="-t float64" ;; esac
	if $g "$@" -o "$T/s.apm" && $g "$@" -F mtx -o "$T/s.mtx" && $BIN/mtx2bin $_t "$T/s.mtx" -o "$T/t.apm" \
	   && $b --npy --weights "$T/s.apm" >"$T/s.npy" && $b --npy --weights "$T/t.apm" | cmp -s - "$T/s.npy"; then
		pass "$_n"
	else
		fail "$_n" "the text's weights differ from the stream's"
	fi
}
same_text "text: random int32" -n 200 -d 5 -s 3
same_text "text: random float32" -n 150 -d 8 -s 4 -t float32 -w 0.001:1000
same_text "text: float64" -n 100 -d 8 -s 4 -t float64
same_text "text: negative" -n 120 -d 6 --negative
same_text "text: undirected" -n 120 -d 6 --undirected
same_text "text: grid" --grid 17x23 -s 2
same_text "text: geometric" -n 300 --geometric 0.1 -s 7
expect_output "text: Matrix Market header" '%%MatrixMarket matrix coordinate integer general
6 6 14' '$g --grid 2x3 -F mtx | head -n 2'
expect_stderr "text: no padding" 2 'not with -F mtx' '$g -n 10 -d 5 -B 4 -F mtx'
expect_stderr "text: unknown format" 2 'unknown format' '$g -n 10 -d 5 -F dimacs'
