# apsp-gpu on sparse graphs: a nested-dissection order (renumbered on the
# device) and skipped blocks give apsp-cpu's distances (int32 bit for bit)
# and valid predecessor chains, in every kind of run (packed and plain paths,
# 32-bit and 16-bit distances, float32), on grids, geometric graphs, one-way
# edges, disconnected pieces, negative and zero weights, and n that is not a
# multiple of B.  Without a GPU these are counted as skipped.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
c=$BIN/apsp-cpu
g=$BIN/gengraph
d=$BIN/apsp-diff

need_gpu_build "apsp-gpu --order"
expect_true "apsp-gpu --help names --order" '$gpu --help | grep -q -- "--order ORDER"'
expect_stderr "apsp-gpu --order bad" 2 "is not nd, natural or auto" '$gpu --order spiral /dev/null'
need_gpu "apsp-gpu sparse runs"

# check NAME GRAPH TOL [options]: apsp-cpu's distances, valid chains (tests/lib.sh).
CPU_OPTS="--order natural"
check() { gpu_check "$@"; }

if $gpu --order nd /dev/null 2>&1 | grep -q "no METIS"; then
	orders=natural
	skip "apsp-gpu --order nd" "built without METIS"
else
	orders="nd natural"
fi
$g --grid 24x20 -s 1 -o "$T/grid" # n = 480: not a multiple of any B
$g --grid 16x16 -s 2 --negative -o "$T/gneg"
$g --grid 16x12 -s 3 -w 0:3 -o "$T/gzero"
$g --grid 16x12 -s 4 -t float32 -o "$T/gf"
$g -n 500 --geometric 0.08 -s 5 -o "$T/geo"
$g -n 600 --geometric 0.02 -s 6 -o "$T/geo2"
$g -n 400 -d 1 -s 7 -o "$T/oneway"
$g --grid 20x20 -s 8 -w 100000:1000000 -o "$T/gbig" # too large to pack
$g --grid 40x40 -s 9 -o "$T/g1600"
for o in $orders; do
	for B in 16 32 64 128; do
		check "grid 24x20 $o B=$B" "$T/grid" 0 --order $o -B $B
		check "grid 24x20 $o B=$B --no-paths" "$T/grid" 0 --order $o -B $B --no-paths
	done
	check "grid 24x20 $o, 16-bit lanes" "$T/grid" 0 --order $o --no-paths --16bit -B 64
	check "grid 24x20 $o, 16-bit lanes, B=128" "$T/grid" 0 --order $o --no-paths --16bit -B 128
	check "grid with negative edges $o" "$T/gneg" 0 --order $o
	check "grid with negative edges $o --no-paths --16bit" "$T/gneg" 0 --order $o --no-paths --16bit
	check "grid with zero weights (ties) $o" "$T/gzero" 0 --order $o -B 16
	check "float32 grid $o" "$T/gf" 1e-4 --order $o
	check "float32 grid $o --no-paths" "$T/gf" 1e-4 --order $o --no-paths -B 32
	check "float32 grid $o, predecessors derived" "$T/gf" 1e-4 --order $o --derive-paths always
	check "geometric graph $o" "$T/geo" 0 --order $o
	check "geometric graph in many pieces $o" "$T/geo2" 0 --order $o -B 32
	check "one-way edges $o" "$T/oneway" 0 --order $o
	check "large weights, unpacked paths $o" "$T/gbig" 0 --order $o -B 64
	check "grid 40x40 $o, 50 rounds" "$T/g1600" 0 --order $o -B 32
	check "grid 40x40 $o --no-paths --16bit" "$T/g1600" 0 --order $o --no-paths --16bit
	check "grid 40x40 $o, predecessors derived" "$T/g1600" 0 --order $o --16bit
	check "grid with zero weights $o, predecessors derived" "$T/gzero" 0 --order $o --16bit
	check "grid with negative edges $o, predecessors derived" "$T/gneg" 0 --order $o --16bit
done
# 16-bit lanes rejected (distances past the limit): the 32-bit run starts
# again from the live blocks of the graph.
$g -n 400 -d 1 -s 12 -w 2000:4000 -o "$T/far"
check "sparse, 16-bit result rejected, 32-bit rerun" "$T/far" 0 --no-paths -B 64 --16bit
expect_stderr "sparse, rejected 16-bit run said" 0 'rejected.*block updates skipped' \
	'$gpu -v -B 64 --16bit --no-paths $T/far >/dev/null'

expect_stderr "sparse graph: skipped blocks reported" 0 ' [1-9][0-9]* of [0-9]+ block updates skipped' \
	'$gpu -v $T/g1600 >/dev/null'
expect_true "nd skips more blocks than natural" \
	'a=$($gpu -v --order natural -o /dev/null $T/g1600 2>&1 | sed -n "s/.* \([0-9]*\) of [0-9]* block updates.*/\1/p") &&
	b=$($gpu -v --order nd -o /dev/null $T/g1600 2>&1 | sed -n "s/.* \([0-9]*\) of [0-9]* block updates.*/\1/p") &&
	[ -n "$a" ] && [ "$b" -gt "$a" ]'
# Levels: the rounds of independent pivot blocks run together (blocks of
# the two halves of a separator, aligned to B by the order).  Rounds of one
# level share the blocks of their separators, each taken once through every
# pivot that updates it, in the level's order (no locks); the last levels,
# whose pivots cover the matrix, a CTA a block.
$g --grid 64x64 -s 13 -o "$T/g4096"
$g --grid 64x64 -s 14 -w 1:3 -o "$T/g4096t" # ties
$g --grid 24x24 -s 17 -w 0:3 -o "$T/g576z"   # ties and zero-weight cycles
$g --grid 48x48 -s 15 -t float32 -o "$T/g2304f"
$g -n 6000 --geometric 0.004 -s 16 -o "$T/specks" # hundreds of pieces: levels wider than 64
check "levels: grid 64x64 nd, 16-bit" "$T/g4096" 0 --order nd --no-paths
check "levels: grid 64x64 nd, paths derived" "$T/g4096" 0 --order nd
check "levels: grid 64x64 nd, packed paths" "$T/g4096" 0 --order nd --derive-paths never
check "levels: grid 64x64 nd, 32-bit" "$T/g4096" 0 --order nd --no-paths --no-16bit
check "levels: grid 64x64 with ties, packed paths" "$T/g4096t" 0 --order nd --derive-paths never
check "levels: grid 64x64 with ties, 16-bit, derived" "$T/g4096t" 0 --order nd
check "levels: grid 24x24 with zero weights, packed paths" "$T/g576z" 0 --order nd -B 64 --derive-paths never
check "levels: grid 24x24 with zero weights, derived" "$T/g576z" 0 --order nd -B 64 --16bit
check "levels: float32 grid 48x48 nd" "$T/g2304f" 1e-4 --order nd --no-paths
check "levels: float32 grid 48x48 nd, tracked paths" "$T/g2304f" 1e-4 --order nd --derive-paths never
check "levels: many pieces, nd" "$T/specks" 0 --order nd --no-paths
check "levels: many pieces, nd, packed paths" "$T/specks" 0 --order nd --derive-paths never
expect_true "levels: grid 64x64 nd takes its 64 rounds in at most 16 levels" \
	'l=$($gpu -v --order nd --no-paths -o /dev/null $T/g4096 2>&1 | sed -n "s/.*, 64 rounds in \([0-9]*\) levels.*/\1/p") &&
	[ -n "$l" ] && [ "$l" -le 16 ]'
# A SuiteSparse mesh (datasets/jagmesh7.mtx, n = 1138), unit weights.
if "$BIN/mtx2bin" -q --weights unit "$TOP/datasets/jagmesh7.mtx" -o "$T/jag" 2>/dev/null; then
	check "levels: SuiteSparse jagmesh7 nd" "$T/jag" 0 --order nd
	check "levels: SuiteSparse jagmesh7 nd --no-paths" "$T/jag" 0 --order nd --no-paths
	check "levels: SuiteSparse jagmesh7 nd, packed paths, B=32" "$T/jag" 0 --order nd -B 32
else
	fail "mtx2bin datasets/jagmesh7.mtx" "not imported"
fi
for m in --no-paths "--derive-paths never" ""; do
	expect_true "levels: the same bytes every time, nd ${m:-paths}" \
		'for r in 1 2 3; do $gpu --order nd $m $T/g4096t >$T/r$r || exit 1; done &&
		cmp -s $T/r1 $T/r2 && cmp -s $T/r1 $T/r3'
done
$g -n 300 -d 30 -s 10 -o "$T/dense"
expect_stderr "dense graph: natural order, every block" 0 'natural order \(dense.*every block updated' \
	'$gpu -v $T/dense >/dev/null'
check "dense graph, forced nd" "$T/dense" 0 --order nd
expect_true "nd: the same distances and predecessors with -T 1" \
	'$gpu --order nd -o $T/a $T/geo && $gpu --order nd -T 1 -o $T/b $T/geo && $d -q $T/a $T/b &&
	$BIN/bin2mtx --npy --pred $T/a >$T/p1 && $BIN/bin2mtx --npy --pred $T/b | cmp - $T/p1'

if command -v compute-sanitizer >/dev/null 2>&1; then
	for m in "" --no-paths "--no-paths --16bit"; do
		expect_true "compute-sanitizer memcheck clean, nd ${m:-paths}" \
			'APSP_DETACH=0 compute-sanitizer --error-exitcode 9 --tool memcheck $gpu --order nd -B 32 $m $T/grid >/dev/null'
	done
	expect_true "compute-sanitizer racecheck clean, nd" \
		'APSP_DETACH=0 compute-sanitizer --error-exitcode 9 --tool racecheck $gpu --order nd -B 32 $T/grid >/dev/null'
	expect_true "compute-sanitizer racecheck clean, nd 16-bit" \
		'APSP_DETACH=0 compute-sanitizer --error-exitcode 9 --tool racecheck $gpu --order nd -B 64 --no-paths --16bit $T/grid >/dev/null'
	expect_true "compute-sanitizer memcheck clean, levels of several pivots" \
		'APSP_DETACH=0 compute-sanitizer --error-exitcode 9 --tool memcheck $gpu --order nd --no-paths $T/g4096 >/dev/null'
	expect_true "compute-sanitizer synccheck clean, levels of several pivots" \
		'APSP_DETACH=0 compute-sanitizer --error-exitcode 9 --tool synccheck $gpu --order nd --no-paths $T/g4096 >/dev/null'
	expect_true "compute-sanitizer racecheck clean, levels of several pivots, packed paths" \
		'APSP_DETACH=0 compute-sanitizer --error-exitcode 9 --tool racecheck $gpu --order nd --derive-paths never $T/g4096 >/dev/null'
else
	skip "compute-sanitizer, sparse runs" "not installed"
fi
