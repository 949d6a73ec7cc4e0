# apsp-diff: distances compared like cmp(1) (0 equal, 1 different, 2
# trouble), float32 tolerance, and predecessor chains checked against the
# graph with --graph.
. "$TOP/tests/lib.sh"
d=$BIN/apsp-diff
c=$BIN/apsp-cpu
g=$BIN/gengraph
$g -n 120 -d 8 -s 3 --negative -o "$T/g"
$c "$T/g" >"$T/a"
$c --simd portable -B 16 -T 1 "$T/g" >"$T/b"
$c --no-paths "$T/g" >"$T/np"
$g -n 120 -d 8 -s 4 -o "$T/g2"
$c "$T/g2" >"$T/other"

expect_status "equal: exit 0" 0 '$d $T/a $T/b'
expect_true "summary line" '$d $T/a $T/b | grep -q "^14400 pairs compared, 0 different"'
expect_status "with and without paths: equal" 0 '$d $T/a $T/np'
expect_status "different: exit 1" 1 '$d $T/a $T/other'
expect_true "differences listed, -n limits them" '$d -n 3 $T/a $T/other >$T/o; [ $? -eq 1 ] && [ $(grep -c " != " $T/o) -eq 3 ] && grep -q "different" $T/o'
expect_true "-n 0 prints the summary only" '$d -n 0 $T/a $T/other >$T/o; [ $? -eq 1 ] && [ $(wc -l <$T/o) -eq 1 ]'
expect_true "-q prints nothing" '$d -q $T/a $T/other >$T/o; [ $? -eq 1 ] && [ ! -s $T/o ]'
$g -n 120 -d 1 -s 4 -o "$T/gs"
$c "$T/gs" >"$T/sparse"
expect_true "reachable in one only is counted" '$d -n 0 $T/a $T/sparse | grep -Eq "\([1-9][0-9]* reachable in one only\)"'
expect_status "stdin as one side" 0 '$d - $T/b <$T/a'

# --graph: every chain a path of G with the right weight.
expect_status "--graph valid" 0 '$d --graph $T/g $T/a'
expect_status "--graph with two results" 0 '$d --graph $T/g $T/a $T/b'
expect_status "--graph, the wrong graph: exit 1" 1 '$d -q --graph $T/g2 $T/a'
expect_true "--graph names the first fault" '$d -n 2 --graph $T/g2 $T/a >$T/o; [ $? -eq 1 ] && grep -q "not shortest: " $T/o && grep -q "certified against the graph, [1-9][0-9]* fail" $T/o'
expect_status "--graph certifies distances alone" 0 '$d --graph $T/g $T/np'
expect_status "--graph, distances alone against the wrong graph: exit 1" 1 '$d -q --graph $T/g2 $T/np'
expect_stderr "--graph G must be a graph" 2 'no edge weights' '$d --graph $T/a $T/a'

# Distances that are consistent but not shortest: a result of the graph
# less one arc that matters has chains that add up to its distances, yet
# the arc gives less (with predecessors and without); and a diagonal that
# is not 0, or a predecessor on it.
"$BIN/bin2mtx" --weights "$T/g" | grep -v '^%' | awk 'NR > 1 && $1 != $2' >"$T/gm.arcs"
arcs=$(wc -l <"$T/gm.arcs")
{ echo '%%MatrixMarket matrix coordinate integer general'; echo "120 120 $arcs"; cat "$T/gm.arcs"; } >"$T/gm.mtx"
found=
for k in $(seq 1 40); do
	{ echo '%%MatrixMarket matrix coordinate integer general'; echo "120 120 $((arcs - 1))"
	  awk -v k=$k 'NR != k' "$T/gm.arcs"; } >"$T/less.mtx"
	$c "$T/less.mtx" >"$T/less" 2>/dev/null && $c --no-paths "$T/less.mtx" >"$T/lessnp" 2>/dev/null || continue
	$d -q "$T/less" "$T/a" || { found=$k; break; }
done
if [ -n "$found" ]; then
	expect_true "--graph rejects a result made without one arc (its chains consistent)" \
		'$d --graph $T/less.mtx $T/less && ! $d --graph $T/gm.mtx $T/less >$T/o && grep -q "but the arc .* gives" $T/o'
	expect_status "... and the same distances without predecessors" 1 '$d -q --graph $T/gm.mtx $T/lessnp'
else
	fail "--graph rejects a result made without one arc" "no arc of the first 40 changes a distance"
fi
if find_python numpy; then
	for what in dist pred; do
		PYTHONPATH=$TOP/python "$py" -c "
import apspmat, sys
s = apspmat.load(sys.argv[1])
if sys.argv[2] == 'dist':
    s.dist[3, 3] = 1
else:
    s.pred[3, 3] = 3
apspmat.save(sys.argv[3], s)" "$T/a" $what "$T/diag$what"
	done
	expect_true "--graph rejects d(s, s) != 0" '! $d --graph $T/g $T/diagdist >$T/o && grep -q "d(3, 3) = 1, not 0" $T/o'
	expect_true "--graph rejects pred(s, s) != -1" '! $d --graph $T/g $T/diagpred >$T/o && grep -q "pred(3, 3) = 3, not -1" $T/o'
else
	skip "--graph and a wrong diagonal" "no python3 with numpy"
fi

# A chain through an edge whose weight is not the graph's is caught: two
# graphs with the same distances, one with a heavier direct edge.
# 0 -> 2 ties between the edge and 0 -> 1 -> 2, both last edges of weight 2:
# either engine keeps the edge (the first of equal candidates); with that
# edge made heavier the other path is the only one.
cat >"$T/e1.txt" <<'EOT'
0 1 0
1 2 2
0 2 2
EOT
sed 's/^0 2 2$/0 2 5/' "$T/e1.txt" >"$T/e2.txt"
"$BIN/mtx2bin" -F edges "$T/e1.txt" >"$T/ge1"
"$BIN/mtx2bin" -F edges "$T/e2.txt" >"$T/ge2"
$c "$T/ge1" >"$T/re1"
$c "$T/ge2" >"$T/re2"
expect_status "same distances, other paths: equal" 0 '$d $T/re1 $T/re2'
expect_status "both valid against their own graph" 0 '$d --graph $T/ge1 $T/re1 && $d --graph $T/ge2 $T/re2'
expect_status "path through an edge of the wrong weight: exit 1" 1 '$d -q --graph $T/ge2 $T/re1'

# float32: tolerance.
$g -n 80 -d 20 -s 5 -t float32 --negative -o "$T/gf"
$c "$T/gf" >"$T/fa"
$c --simd portable -B 32 "$T/gf" >"$T/fb"
expect_status "float32 within the default tolerance" 0 '$d $T/fa $T/fb'
expect_status "float32 --graph" 0 '$d --graph $T/gf $T/fa $T/fb'
expect_status "--tolerance 0 on identical results" 0 '$d -t 0 $T/fa $T/fa'
printf '0 1 1.5\n1 2 1.25\n' >"$T/f1.txt"
printf '0 1 1.5\n1 2 1.2500001\n' >"$T/f2.txt"
"$BIN/mtx2bin" -F edges -t float32 "$T/f1.txt" | $c >"$T/f1"
"$BIN/mtx2bin" -F edges -t float32 "$T/f2.txt" | $c >"$T/f2"
expect_status "float32 tiny difference: equal" 0 '$d $T/f1 $T/f2'
expect_status "float32 tiny difference, --tolerance 0: different" 1 '$d -q -t 0 $T/f1 $T/f2'

# Trouble.
$g -n 50 -d 8 -o "$T/g50"
$c "$T/g50" >"$T/r50"
expect_stderr "sizes differ: exit 2" 2 'vertices' '$d $T/a $T/r50'
expect_stderr "missing file: exit 2" 2 '^apsp-diff: ' '$d $T/a $T/nope'
expect_stderr "a graph is not a result" 2 'no distances' '$d $T/g $T/a'
expect_stderr "truncated: exit 2" 2 '^apsp-diff: ' 'head -c 200 $T/a >$T/trunc; $d $T/a $T/trunc'
expect_stderr "one argument" 2 'two results' '$d $T/a'
expect_stderr "bad tolerance" 2 'tolerance' '$d -t -1 $T/a $T/b'
printf '0 1 -1\n1 0 0\n' >"$T/neg.txt"
"$BIN/mtx2bin" -F edges "$T/neg.txt" | $c >"$T/negr" 2>/dev/null
expect_stderr "negative-cycle result: exit 3" 3 'negative cycle' '$d $T/negr $T/negr'
tool_docs apsp-diff

# -o FILE takes the report, as in every tool; nothing on stdout.
expect_true "-o FILE: the report there" '$d -o "$T/report" "$T/a" "$T/b" >"$T/stdout" && grep -q "pairs compared" "$T/report" && [ ! -s "$T/stdout" ]'
# ... and the help and the man page say so; -z and -f, for binary output, are refused.
expect_true "--help lists -o" '$d --help | grep -q -- "-o, --output FILE"'
expect_true "the man page says -o writes the report, not that it has no effect" \
	'grep -q "Write the report to" $TOP/man/apsp-diff.1 && ! grep -q "have no effect: the report goes to standard output" $TOP/man/apsp-diff.1'
expect_stderr "-z refused: the report is text" 2 "^apsp-diff: -z" '$d -z 3 "$T/a" "$T/b"'
