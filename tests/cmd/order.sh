# Vertex orders and tile skipping (apsp-cpu --order): a nested-dissection
# order gives the same distances as the natural one (int32 bit for bit) and
# predecessor chains that are shortest paths of the graph, on grids,
# geometric graphs, one-way edges, disconnected pieces, negative edges, and
# n that is not a multiple of B.
. "$TOP/tests/lib.sh"
g=$BIN/gengraph
c=$BIN/apsp-cpu
d=$BIN/apsp-diff
same() { # NAME GRAPH TOL [apsp-cpu options]: nd and natural agree, nd's chains are valid
	_n=$1 _gr=$2 _t=$3; shift 3
	if ! $c --order natural "$@" -o $T/nat $_gr 2>$T/e1 || ! $c --order nd "$@" -o $T/nd $_gr 2>$T/e2; then
		fail "$_n" "$(cat $T/e1 $T/e2 | head -c 300)"; return
	fi
	if ! $d -q -t $_t $T/nat $T/nd 2>$T/e3; then
		fail "$_n" "distances differ: $($d -n 3 -t $_t $T/nat $T/nd 2>&1 | head -c 300)"; return
	fi
	case " $* " in *" --no-paths "*) pass "$_n"; return ;; esac
	$d -q --graph $_gr $T/nd 2>$T/e4 && pass "$_n" || fail "$_n" "bad chains: $(head -c 300 $T/e4)"
}
if ! $c --help | grep -q -- "--order"; then
	fail order "apsp-cpu has no --order"
	exit 0
fi
expect_stderr order-bad 2 "is not nd, natural or auto" '$c --order spiral /dev/null'
if $c --order nd /dev/null 2>&1 | grep -q "no METIS"; then
	skip order "built without METIS"
	expect_true auto-natural-without-metis '$g --grid 20x20 | $c -v -o /dev/null 2>&1 | grep -q "natural order (built without METIS)"'
	exit 0
fi
$g --grid 24x20 -s 1 -o $T/grid                     # n = 480: not a multiple of 64
same "grid 24x20" $T/grid 0
same "grid 24x20, B = 32" $T/grid 0 -B 32
same "grid 24x20, distances only" $T/grid 0 --no-paths
$g --grid 16x16 -s 2 --negative -o $T/gneg
same "grid with negative edges" $T/gneg 0
$g --grid 16x16 -s 3 -w 0:3 -o $T/gzero
same "grid with zero weights (ties)" $T/gzero 0
$g --grid 16x12 -s 4 -t float32 -o $T/gf
same "float32 grid" $T/gf 1e-5
$g -n 500 --geometric 0.08 -s 5 -o $T/geo
same "geometric graph" $T/geo 0
$g -n 600 --geometric 0.02 -s 6 -o $T/geo2
same "geometric graph in many pieces" $T/geo2 0
$g -n 400 -d 1 -s 7 -o $T/oneway
same "sparse random graph, one-way edges" $T/oneway 0
$g -n 300 -d 2 -s 8 --negative -o $T/rneg
same "sparse random graph, negative edges" $T/rneg 0
$g -n 300 -d 30 -s 9 -o $T/dense
same "dense random graph, forced nd" $T/dense 0 --order nd
expect_true auto-chooses-nd '$c -v -o /dev/null $T/grid 2>&1 | grep -q "nested-dissection order (sparse"'
expect_true auto-keeps-dense-natural '$c -v -o /dev/null $T/dense 2>&1 | grep -q "natural order (dense"'
expect_true auto-float32-natural '$c -v -o /dev/null $T/gf 2>&1 | grep -q "natural order (float32"'
expect_true auto-small-natural '$g --grid 10x10 | $c -v -o /dev/null 2>&1 | grep -q "natural order (n < 256)"'
expect_true skipped-tiles-reported '$c -v -o /dev/null $T/grid 2>&1 | grep -Eq "[1-9][0-9]* of [0-9]+ tiles skipped"'
expect_true nd-skips-more-than-natural 'a=$($c -v --order natural -o /dev/null $T/grid 2>&1 | sed -n "s/.*, \([0-9]*\) of .*/\1/p") &&
	b=$($c -v --order nd -o /dev/null $T/grid 2>&1 | sed -n "s/.*, \([0-9]*\) of .*/\1/p") && [ "$b" -gt "$a" ]'
expect_true nd-same-result-on-any-thread-count '$c --order nd -o $T/a $T/geo && $c --order nd -T 1 -o $T/b $T/geo &&
	$BIN/bin2mtx --npy --pred $T/a >$T/p1 && $BIN/bin2mtx --npy --pred $T/b | cmp - $T/p1 && $d -q $T/a $T/b'
