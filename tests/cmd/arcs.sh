# A graph stored as a list of arcs (apspmat.5 "Arcs"; gengraph and mtx2bin
# --layout): the same graph as its weight matrix for every reader that
# takes it (bin2mtx's text, the engines' results and statistics, apsp-diff
# --graph), the automatic choice, refusals by name where a reader needs a
# matrix, and damage found.
. "$TOP/tests/lib.sh"
g=$BIN/gengraph
m=$BIN/mtx2bin
c=$BIN/apsp-cpu
b=$BIN/bin2mtx

# Both layouts of one graph give bin2mtx the same text (provenance aside).
same_text() {
	for f in "" --dense --npy; do
		$b $f $2 | grep -av '^% @PG' >$T/t1 && $b $f $3 | grep -av '^% @PG' >$T/t2 &&
			cmp -s $T/t1 $T/t2 || return 1
	done
}
for t in int32 float32 float64; do
	for shape in "--road 23x17" "-n 300 -d 3 --negative" "-n 200 --geometric 0.1 --undirected"; do
		$g $shape -t $t -s 5 -L arcs -o $T/a && $g $shape -t $t -s 5 -L matrix -o $T/w
		expect_true "gengraph $shape -t $t: arcs and matrix are the same graph" 'same_text x $T/a $T/w'
	done
done
expect_true "gengraph -B pads the list's header alone (no arcs on the padding)" \
	'$g --road 10x10 -B 64 -L arcs -o $T/ap && $BIN/apsp-info --json $T/ap | grep -q "\"n\":100,\"npad\":128," &&
	 $g --road 10x10 -L arcs | $b >$T/t1 && $b $T/ap | grep -v "^% @PG" | cmp -s - $(grep -v "^% @PG" $T/t1 >$T/t3; echo $T/t3)'

# mtx2bin: each pair once at its least weight, loops only where negative,
# the same text back; the engines' results the same bytes from either.
printf '%%%%MatrixMarket matrix coordinate integer general\n4 4 7\n1 2 5\n1 2 3\n2 2 4\n3 3 -1\n4 1 2\n2 3 1\n3 4 6\n' >$T/g.mtx
$m -L arcs -o $T/ga $T/g.mtx && $m -L matrix -o $T/gw $T/g.mtx
expect_true "mtx2bin: repeats and loops as the matrix holds them" 'same_text x $T/ga $T/gw'
expect_output "mtx2bin: the arcs counted (1>2 at 3, 2>3, 3>3 at -1, 3>4, 4>1)" "5" '$BIN/apsp-info --json $T/ga | sed "s/.*\"arcs\":\([0-9]*\),.*/\1/"'
expect_status "a negative loop is a negative cycle, from arcs as from the matrix" 3 '$c -o $T/x $T/ga'
$g --road 30x30 -w 1:1000 -s 2 -F mtx >$T/r.mtx
for t in int32 float32 float64; do
	$m -t $t -L arcs -o $T/ra $T/r.mtx && $m -t $t -L matrix -o $T/rw $T/r.mtx
	expect_true "apsp-cpu, $t: the result from arcs is the result from the matrix" \
		'$c -o $T/x1 $T/ra && $c -o $T/x2 $T/rw && $b --npy $T/x1 >$T/x1n && $b --npy $T/x2 >$T/x2n &&
		 cmp -s $T/x1n $T/x2n && $b --npy --pred $T/x1 >$T/p1 && $b --npy --pred $T/x2 >$T/p2 &&
		 cmp -s $T/p1 $T/p2'
	expect_true "apsp-cpu --stats, $t: the same figures from arcs (sparse engine) and matrix" \
		'$c --stats --summary $T/ra >$T/s1 && $c --stats --summary $T/rw >$T/s2 && cmp -s $T/s1 $T/s2'
	expect_true "apsp-diff --graph takes the list to check paths, $t" '$BIN/apsp-diff -q --graph $T/ra $T/x1'
done
# (the sparse engine and the kept orders: nested dissection, METIS)
metis=1
$c --order nd /dev/null 2>&1 | grep -q "no METIS" && metis=0
expect_true "a pipe: gengraph --road 60x60 -L arcs | apsp-cpu --stats, the matrix's figures" \
	'$g --road 60x60 -L arcs | $c -v --stats --summary 2>$T/v >$T/s1 &&
	 { [ $metis = 0 ] || grep -q "sparse engine" $T/v; } &&
	 $g --road 60x60 -L matrix | $c --stats --summary | cmp -s - $T/s1'

# auto: a list where the matrix would pass 256 MiB and the list is a
# sixteenth of it or less; a matrix otherwise.
expect_true "auto: an 80 x 80 grid (164 MB as a matrix) stays a matrix" \
	'$g --grid 80x80 | $BIN/apsp-info --json | grep -q "\"arcs\":0,\"rows\":0,\"cols\":0,\"matrices\":{\"weights\""'
expect_true "auto: a 91 x 91 grid of float64 (n = 8281, 549 MB) becomes a list" \
	'$g --grid 91x91 -t float64 | $BIN/apsp-info --json | grep -q "\"arcs\":32760,\"rows\":0,\"cols\":0,\"matrices\":{\"arcs\""'
expect_true "auto: a random graph of n = 9000 at 5% stays a matrix (its list: over a sixteenth)" \
	'$g -n 9000 -d 5 2>/dev/null | head -c 12 | od -A n -t u4 -j 8 -N 4 | grep -qw 1'
expect_true "auto: mtx2bin, a road of n = 8464 from text becomes a list" \
	'$g --road 92x92 -F mtx | $m | $BIN/apsp-info | grep -q "^  arc count"'
expect_true "gengraph --road 600x600 -L arcs: no matrix, in the memory of its arcs" \
	'$g --road 600x600 -L arcs | $BIN/apsp-info --json | grep -q "\"n\":360000,"'

# The sparse engine's order kept beside the list (--keep-order): taken by
# the engine instead of computing it, the same figures; --order natural
# still asks for none; only beside a list.
if [ $metis = 0 ]; then
	skip "--keep-order" "built without METIS"
	expect_stderr "--keep-order without METIS: said" 2 "no nested dissection in this build" \
		'$m -L arcs --keep-order $T/r.mtx'
else
	$g --road 60x60 -w 1:1000 -s 3 -L arcs --keep-order -o $T/ko
	$g --road 60x60 -w 1:1000 -s 3 -L arcs -o $T/nko
	expect_true "--keep-order: the engine takes the order kept, the same figures" \
		'$c -v --stats --summary $T/ko 2>$T/v >$T/s1 && grep -q "order kept in the stream (none made)" $T/v &&
		 $c --stats --summary $T/nko | cmp -s - $T/s1'
	expect_true "--keep-order: the same distances as without it" \
		'$c --engine sparse --no-paths -o $T/x1 $T/ko && $c --engine sparse --no-paths -o $T/x2 $T/nko &&
		 $BIN/apsp-diff -q $T/x1 $T/x2'
	expect_true "--order natural leaves the kept order aside, and says so" \
		'$c -v --engine sparse --order natural --stats $T/ko 2>&1 >/dev/null | grep "sparse engine:" | grep -v kept | grep -q "natural order (--order natural)"'
	expect_true "-v: an order made here is named, with its time" \
		'$c -v --engine sparse --stats $T/nko 2>&1 >/dev/null | grep "sparse engine:" | grep -q "order [0-9.]* s (nested dissection by METIS, made here on [0-9]* cores)"'
	expect_true "apsp-info shows the order kept" '$BIN/apsp-info $T/ko | grep -q "^  order  "'
	expect_true "mtx2bin --keep-order: the engine takes it too" \
		'$m -L arcs --keep-order -o $T/mko $T/r.mtx && $c -v --stats $T/mko 2>&1 >/dev/null | grep -q "order kept in the stream"'
fi
expect_stderr "--keep-order beside a matrix is a usage error" 2 "give --layout arcs" '$m --keep-order $T/r.mtx'

# Readers that need a matrix refuse a list by name.
expect_stderr "apsp-stats refuses a list of arcs by name" 2 "a graph as a list of arcs: run apsp-cpu or apsp-gpu first" \
	'$BIN/apsp-stats $T/ra'
expect_stderr "apsp-path refuses a list of arcs by name" 2 "a graph as a list of arcs" \
	'$BIN/apsp-path 1 2 <$T/ra'
expect_stderr "bin2mtx --dist of a list of arcs" 2 "holds no distances .a graph as a list of arcs: its weights only." \
	'$b --dist $T/ra'
expect_stderr "mtx2bin -L: an unknown layout" 2 "unknown layout 'dense' .auto, matrix or arcs." '$m -L dense $T/r.mtx'
expect_stderr "gengraph --layout with -F mtx" 2 "not with -F mtx" '$g --road 3x3 -L arcs -F mtx'

# Damage: a changed byte is a CRC mismatch; a record against the rules
# (sorted, in range, finite, loops negative) is named.
cp $T/ra $T/bad && printf '\377' | dd of=$T/bad bs=1 seek=200 conv=notrunc 2>/dev/null
expect_stderr "a damaged list of arcs is refused" 2 "CRC|corrupt|damaged" '$c -o $T/x $T/bad'
if find_python zlib; then
	# streams of two vertices made by hand, their CRCs good: a list whose
	# second arc comes before its first; a kept order that is no
	# permutation (vertex 0 twice)
	$py - $T/unsorted $T/badorder <<'PY'
import struct, sys, zlib
def tag(bit, k):
    M = (1 << 64) - 1
    x = ((bit << 48) ^ k) & M
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
    return (x ^ (x >> 31)) & 0xFFFFFFFF
def matrix(bit, raw):
    return (struct.pack("<IIII", len(raw), len(raw), zlib.crc32(raw) ^ tag(bit, 0), 0) + raw
            + struct.pack("<IIII", 0, 0, 1, 0x4D444E45))
def stream(path, bits, *parts):
    hd = b"\x89APM\r\n\x1a\n" + struct.pack("<IIQQIIIIiqI", 2, 76, 2, 2, 1, bits, 1, 1 << 20,
                                              1073741823, -1, 0) + struct.pack("<Q", 2)
    hd += struct.pack("<I", zlib.crc32(hd))
    body = b"".join(matrix(bit, raw) for bit, raw in parts)
    open(path, "wb").write(hd + body + struct.pack("<IIII", 0, 0, len(parts), 0x53444E45))
arc = lambda u, v, w: struct.pack("<IIi", u, v, w)
stream(sys.argv[1], 8, (8, arc(1, 0, 5) + arc(0, 1, 5)))
stream(sys.argv[2], 8 | 16, (8, arc(0, 1, 5) + arc(1, 0, 5)), (16, struct.pack("<ii", 0, 0)))
PY
	expect_stderr "apsp-cpu names the arc out of order" 2 "unsorted: arc 1 .0 -> 1.: out of order" '$c -o $T/x $T/unsorted'
	expect_stderr "bin2mtx names it too" 2 "unsorted: arc 1 .0 -> 1.: out of order" '$b $T/unsorted'
	expect_true "apsp-info reads it (its blocks whole)" '$BIN/apsp-info -c $T/unsorted | grep -q "arc count     2"'
	expect_stderr "a kept order that is no permutation is named" 2 "badorder: vertex order, position 1: vertex 0 a second time" \
		'$c --stats $T/badorder'
else
	skip "apsp-cpu names the arc out of order" "no python3 with zlib"
fi
