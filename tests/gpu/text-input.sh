# apsp-gpu on a graph as text, the dense engine (--engine dense; auto takes
# the sparse engine for --stats): a sparse one without paths has its weight
# matrix made on the device from its arcs (-v says so), with the results and
# statistics of the same graph's stream, in a nested-dissection order or
# not, int32 and float32, repeated arcs and loops; a graph with a negative
# weight, or a run with paths, reads the matrix on the host as for a stream;
# a device too small says why; the kernels run clean under compute-sanitizer.
# Where its weights fit 16-bit lanes, the matrix is made in them, in the
# first half of the 32-bit matrix's own memory, kept or rejected; a sparse
# run's map of live blocks is made from the arcs.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
c=$BIN/apsp-cpu
m=$BIN/mtx2bin
D=$TOP/datasets
G=$TOP/tests/data/mtx2bin

need_gpu_build "apsp-gpu on text"
need_gpu "apsp-gpu on text"

# The same graphs as text (gengraph -F mtx) and as streams.
$BIN/gengraph --grid 40x40 -s 3 -F mtx -o "$T/grid.mtx"
$BIN/gengraph --grid 40x40 -s 3 -o "$T/grid.apm"
$BIN/gengraph -n 900 --geometric 0.06 -s 5 -t float32 -F mtx -o "$T/geo.mtx"
printf '0 1 5\n0 1 3\n1 1 2\n1 2 4\n2 0 1\n3 4 2\n4 3 2\n2 3 6\n' >"$T/repeats.txt"

# by_arcs NAME FILE [options]: the dense engine (--engine dense: auto takes
# the sparse engine for text with --stats): --stats on the device from the arcs equals
# apsp-gpu's on the stream, and apsp-stats' on the result of the same run
# (float32 distances may differ from apsp-cpu's in their last bit); -v says
# the matrix was made on the device.
by_arcs() {
	name=$1 f=$2
	shift 2
	$m "$f" -o "$T/g.apm" 2>/dev/null
	$gpu --engine dense --no-paths "$@" "$f" -o "$T/r.apm" 2>/dev/null && $BIN/apsp-stats "$T/r.apm" >"$T/own.tsv"
	$gpu --engine dense --stats "$@" "$T/g.apm" >"$T/stream.tsv" 2>/dev/null
	if ! $gpu --engine dense -v --stats "$@" "$f" >"$T/arcs.tsv" 2>"$T/v"; then
		fail "$name" "apsp-gpu failed: $(head -c 300 "$T/v")"; return
	fi
	if ! grep -q "the matrix made on the device" "$T/v"; then
		fail "$name" "not made on the device: $(head -c 300 "$T/v")"; return
	fi
	if ! cmp -s "$T/stream.tsv" "$T/arcs.tsv"; then
		fail "$name" "--stats differs from the stream's run"; return
	fi
	same_stats "$name" "$T/own.tsv" "$T/arcs.tsv"
}
by_arcs "grid, nested dissection" "$T/grid.mtx"
by_arcs "grid, natural order" "$T/grid.mtx" --order natural
by_arcs "grid, B 32" "$T/grid.mtx" -B 32
by_arcs "float32, symmetric" "$D/USAir97.mtx"
if $c --order nd --help >/dev/null 2>&1; then
	by_arcs "float32, nested dissection" "$D/USAir97.mtx" --order nd
	by_arcs "geometric, float32" "$T/geo.mtx" --order nd
else
	skip "float32 from arcs, nested dissection" "no METIS in this build"
fi
by_arcs "pattern mesh" "$D/jagmesh7.mtx"
by_arcs "repeated arcs and a loop" "$T/repeats.txt"
# Arcs repeated many times onto neighbouring entries (two lanes of one
# 32-bit word), the least weight of each kept.
awk 'BEGIN { srand(7); print "%%MatrixMarket matrix coordinate integer general"; print 96, 96, 96 * 4 * 6
	for (r = 0; r < 6; r++) for (i = 0; i < 96; i++) for (k = 1; k <= 4; k++)
		print i + 1, (i + k) % 96 + 1, 1 + int(rand() * 50) }' >"$T/crowded.mtx"
by_arcs "repeated arcs side by side, 16-bit lanes" "$T/crowded.mtx" --16bit
by_arcs "repeated arcs and a loop, 16-bit lanes" "$T/repeats.txt" --16bit
# 16-bit lanes in the 32-bit matrix's own memory (--16bit: below n = 2000
# they are not tried by default): kept (the statistics folded from them,
# the distances widened where they are to go out), and rejected (distances
# past the lanes' limit), the matrix then made again from the arcs.
by_arcs "grid, 16-bit lanes in place" "$T/grid.mtx" --16bit
expect_true "-v: 16-bit lanes in the matrix's own memory" \
	'grep -q "16-bit lanes in the matrix.s own memory" "$T/v"'
awk 'BEGIN { print "%%MatrixMarket matrix coordinate integer general"; print 300, 300, 600
	for (i = 0; i < 300; i++) { print i + 1, (i + 1) % 300 + 1, 5000; print i + 1, (i + 2) % 300 + 1, 7000 } }' \
	>"$T/heavy.mtx"
by_arcs "16-bit lanes in place, rejected" "$T/heavy.mtx" --16bit
expect_true "-v: rejected, the matrix made again from the arcs" \
	'grep -q "16-bit lanes rejected, the matrix made again from the arcs" "$T/v"'
$c --stats "$T/grid.mtx" >"$T/cpu.tsv"
$gpu --stats "$T/grid.mtx" >"$T/gpu.tsv"
same_stats "grid: apsp-cpu's statistics" "$T/cpu.tsv" "$T/gpu.tsv"

# The distances themselves, panel by panel, as from gengraph's stream.
$gpu --no-paths "$T/grid.apm" -o "$T/want.apm" 2>/dev/null
if $gpu --no-paths "$T/grid.mtx" -o "$T/got.apm" 2>"$T/err" \
   && same_results "grid distances from the arcs" "$T/want.apm" "$T/got.apm" "$T/grid.apm" \
	   "apsp-gpu --no-paths on the text" --no-paths; then
	pass "grid distances from the arcs"
fi
expect_true "grid distances from the arcs, 16-bit lanes in place" \
	'$gpu --no-paths --16bit "$T/grid.mtx" -o "$T/got16.apm" && $BIN/apsp-diff -q "$T/want.apm" "$T/got16.apm"'
expect_true "distances through a pipe" \
	'cat "$T/grid.mtx" | $gpu --no-paths >"$T/pipe.apm" && $BIN/apsp-diff -q "$T/want.apm" "$T/pipe.apm"'

# The host's way: a negative weight (reweighted), or paths.
expect_true "a negative weight is read on the host" \
	'$gpu -v --stats "$G/small.gr" >"$T/neg.tsv" 2>"$T/v" && ! grep -q "made on the device" "$T/v" && $c --stats "$G/small.gr" | cmp -s - "$T/neg.tsv"'
# paths_text NAME TEXT TOL: with paths, as apsp-cpu on the text, chains
# valid on the graph's stream.
paths_text() {
	$m "$2" -o "$T/p.apm"
	if $c "$2" -o "$T/pc.apm" 2>"$T/err" && $gpu "$2" -o "$T/pg.apm" 2>>"$T/err" \
	   && $BIN/apsp-diff -q -t "$3" "$T/pc.apm" "$T/pg.apm" 2>>"$T/err" \
	   && $BIN/apsp-diff -q --graph "$T/p.apm" "$T/pg.apm" 2>>"$T/err"; then
		pass "$1"
	else
		fail "$1" "$(head -c 300 "$T/err")"
	fi
}
paths_text "paths from text" "$T/grid.mtx" 0
paths_text "paths from text, float32" "$D/USAir97.mtx" 1e-5

# A device too small: refused, saying what fits.
expect_stderr "a device too small" 2 'at most n = [0-9]+ fits.*solved in core' \
	'APSP_DEVICE_MEMORY=2000000 $gpu --engine dense --stats "$T/grid.mtx"'

if command -v compute-sanitizer >/dev/null 2>&1; then
	sanitized "memcheck, arcs" memcheck $gpu --engine dense --stats "$T/grid.mtx"
	sanitized "racecheck, arcs" racecheck $gpu --engine dense --stats "$T/repeats.txt"
	sanitized "memcheck, 16-bit lanes in place" memcheck $gpu --no-paths --16bit "$T/grid.mtx"
	sanitized "racecheck, repeated arcs in 16-bit lanes" racecheck $gpu --engine dense --stats --16bit "$T/crowded.mtx"
else
	skip "memcheck, arcs" "no compute-sanitizer"
fi
