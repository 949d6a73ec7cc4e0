# A result of some rows (apsp-cpu --rows A:B, --sources FILE; apspmat.5
# "Rows of some sources"): the same rows as the whole result, on both
# engines and every type, in the order asked; every reader that takes it
# (apsp-path, bin2mtx, apsp-diff, apsp-info, apspmat.py) reads the rows by
# their sources, apsp-stats refuses it by name; bad requests and damaged
# lists named.
. "$TOP/tests/lib.sh"
g=$BIN/gengraph
c=$BIN/apsp-cpu
b=$BIN/bin2mtx

# Row V (from 0) of a result's matrix as text ("j value" lines), from
# bin2mtx's Matrix Market: $1 the stream, $2 the vertex, $3 the matrix.
row_text() {
	$b $3 "$1" | awk -v r=$(($2 + 1)) '!/^%/ && n++ && $1 == r { print $2, $3 }'
}
# The rows of $3 (vertices) are the same in result $1 (some rows) and
# result $2 (every row), distances and predecessors.
same_rows() {
	for v in $3; do
		for m in --dist --pred; do
			row_text "$1" $v $m >$T/r1 && row_text "$2" $v $m >$T/r2 && [ -s $T/r1 ] &&
				cmp -s $T/r1 $T/r2 || return 1
		done
	done
}

$g -n 300 -d 5 -s 3 -o $T/g
$c -o $T/full $T/g
expect_true "--rows 5:9: the rows of 5 to 8, distances and predecessors" \
	'$c --rows 5:9 -o $T/p $T/g && same_rows $T/p $T/full "5 6 7 8"'
expect_output "--rows 5:9: four rows listed, by apsp-info" '4' \
	'$BIN/apsp-info --json $T/p | sed "s/.*\"rows\":\([0-9]*\),.*/\1/"'
expect_true "apsp-info: the rows of how many vertices, and the list named" \
	'$BIN/apsp-info $T/p | grep -q "rows *4 of 300" && $BIN/apsp-info $T/p | grep -q "^  sources "'
expect_output "a result of some rows has a version 2 header" "2" \
	'od -An -tu4 -j8 -N4 $T/p | tr -d " "'
expect_output "the whole result keeps version 1" "1" 'od -An -tu4 -j8 -N4 $T/full | tr -d " "'
expect_true "--rows 0:300 is every row: the same distances and predecessors as the result" \
	'$c --rows 0:300 -o $T/all $T/g && $b --npy $T/full >$T/fn && $b --npy $T/all | cmp -s - $T/fn &&
	 $b --npy --pred $T/full >$T/fpn && $b --npy --pred $T/all | cmp -s - $T/fpn'

# The sparse engine, sources in the order given; its predecessors derived
# (the same rule as its whole result's).
printf '250 3\n# a comment, then a blank line\n\n7  # and one after a vertex\n' >$T/src
expect_true "--sources: the rows in the order listed (bin2mtx --dense)" \
	'$c --engine sparse --sources $T/src -o $T/s $T/g && $c --engine sparse -o $T/sfull $T/g &&
	 $b --dense $T/s >$T/d && $b --dense $T/sfull >$T/e &&
	 for k in "1 251" "2 4" "3 8"; do set -- $k; sed -n ${1}p $T/d >$T/d1; sed -n ${2}p $T/e >$T/e1;
	 cmp -s $T/d1 $T/e1 || exit 1; done'
expect_true "--sources, sparse engine: its rows are its whole result's" \
	'same_rows $T/s $T/sfull "250 3 7"'
expect_true "apsp-diff --graph: every path of the rows valid" '$BIN/apsp-diff --graph $T/g $T/s'
expect_output "apsp-diff: the rows compared with the whole result" "the 3 rows of $T/s compared" \
	'$BIN/apsp-diff $T/s $T/full | head -1'
expect_output "apsp-path: a path from a source of the rows, as from the whole result" \
	"$($BIN/apsp-path -i $T/sfull 250 9)" '$BIN/apsp-path -i $T/s 250 9'
expect_output "apsp-path --from: every path of a source of the rows" \
	"$($BIN/apsp-path -i $T/sfull --from 3 --tsv | md5sum)" '$BIN/apsp-path -i $T/s --from 3 --tsv | md5sum'
expect_stderr "apsp-path: a vertex whose row the result lacks, named" 2 \
	"vertex 4 is not a source of this result \(it holds the rows of 3 sources" '$BIN/apsp-path -i $T/s 4 3'
expect_stderr "apsp-stats: refused by name" 2 "a result of some rows only.*take every row" \
	'$BIN/apsp-stats $T/s'
expect_stderr "apsp-diff: a row the other lacks, named" 2 "holds the row of vertex 250, .* does not" \
	'$BIN/apsp-diff $T/s $T/p'

# Every type, both engines, text and stream input; floats within rounding.
for t in int32 float32 float64; do
	$g --road 20x15 -t $t -w 1:100 -s 4 -F mtx -o $T/r.mtx
	$c -o $T/rfull $T/r.mtx
	for e in dense sparse; do
		expect_true "$t, $e engine, text: the rows equal the dense engine's whole result" \
			'$c --engine $e --rows 17:40 -o $T/rp $T/r.mtx && $BIN/apsp-diff $T/rp $T/rfull &&
			 $BIN/apsp-diff --graph $T/r.mtx $T/rp'
	done
done
expect_true "a padded stream: the rows unpadded, as the whole result's" \
	'$g -n 100 -d 8 -B 64 -s 9 -o $T/pad && $c --rows 90:100 -o $T/pp $T/pad && $c -o $T/pf $T/pad &&
	 same_rows $T/pp $T/pf "90 99" && $BIN/apsp-info --json $T/pp | grep -q "\"n\":100,\"npad\":100,"'
expect_true "with checkpoints (the dense engine): the same rows" \
	'$c --checkpoint $T/ck --rows 5:9 -o $T/pk $T/g && same_rows $T/pk $T/p "5 8" && [ ! -e $T/ck ]'
expect_true "--no-paths: the rows' distances alone" \
	'$c --no-paths --rows 1:3 -o $T/np $T/g && ! $BIN/apsp-info $T/np | grep -q predecessors &&
	 $BIN/apsp-diff $T/np $T/full'
expect_stderr "a negative cycle: exit 3, a stream that says so" 3 "negative cycle" \
	'printf "%%%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 1\n2 3 -2\n3 2 1\n" >$T/neg.mtx &&
	 $c --rows 0:2 -o $T/nc $T/neg.mtx'
expect_true "... and its stream reads back as a negative cycle" \
	'$BIN/apsp-info $T/nc | grep -q "cycle vertex"'

# Requests refused, named.
expect_stderr "--rows 5:5: no rows" 2 "no rows" '$c --rows 5:5 -o $T/x $T/g'
expect_stderr "--rows past n: the vertex named" 2 "vertex 400: no such vertex \(the graph has 300" \
	'$c --rows 9:400 -o $T/x $T/g'
expect_stderr "--rows not A:B" 2 "not A:B" '$c --rows 5-9 -o $T/x $T/g'
printf '1\n2 300\n' >$T/bad1
expect_stderr "--sources: a vertex out of range, by file and line" 2 "bad1:2: vertex 300: no such vertex" \
	'$c --sources $T/bad1 -o $T/x $T/g'
printf '1 5\n\n5\n' >$T/bad2
expect_stderr "--sources: a vertex twice, both lines named" 2 "bad2:3: vertex 5 a second time \(first on line 1\)" \
	'$c --sources $T/bad2 -o $T/x $T/g'
printf '1 x2\n' >$T/bad3
expect_stderr "--sources: not a number, by file and line" 2 "bad3:1: 'x2' is not a vertex number" \
	'$c --sources $T/bad3 -o $T/x $T/g'
printf '# nothing\n' >$T/bad4
expect_stderr "--sources: an empty list" 2 "no vertices listed" '$c --sources $T/bad4 -o $T/x $T/g'
expect_stderr "--sources: a file that is not there" 2 "nowhere" '$c --sources $T/nowhere -o $T/x $T/g'
expect_stderr "--rows and --sources together" 2 "give one of them" \
	'$c --rows 1:2 --sources $T/src -o $T/x $T/g'
expect_stderr "--rows with --stats" 2 "the statistics take every row" '$c --rows 1:2 --stats $T/g'
expect_stderr "--sources - with the graph on stdin" 2 "cannot both be stdin" \
	'$c --sources - <$T/g'
expect_true "--sources - with the graph a file" \
	'echo 7 | $c --sources - -o $T/x $T/g && $BIN/apsp-diff $T/x $T/full'
expect_true "nothing half-written where the request is refused" \
	'rm -f $T/x; ! $c --sources $T/bad1 -o $T/x $T/g 2>/dev/null && [ ! -e $T/x ]'

# A damaged list: a source twice, its block's CRC right (made with
# apspmat.py, then one vertex changed and the CRC made again).
if find_python numpy; then
	expect_true "apspmat.py: the rows by their sources, as the whole result's" \
		"$py -c \"
import sys; sys.path.insert(0, '$TOP/python'); import apspmat as A
p, f = A.load('$T/s'), A.load('$T/sfull')
assert list(p.sources) == [250, 3, 7] and p.dist.shape == (3, 300)
assert (p.dist == f.dist[p.sources]).all() and (p.pred == f.pred[p.sources]).all()
A.save('$T/resaved', p)
q = A.load('$T/resaved')
assert (q.dist == p.dist).all() and (q.pred == p.pred).all() and list(q.sources) == [250, 3, 7]
\" && $BIN/apsp-diff $T/resaved $T/s"
	$py -c "
import sys, struct, zlib; sys.path.insert(0, '$TOP/python'); import apspmat as A
p = A.load('$T/s'); A.save('$T/twice', p, level=0)
b = bytearray(open('$T/twice', 'rb').read())
hlen = struct.unpack_from('<I', b, 12)[0]
at = hlen + 16                       # the list's first block: header, then 3 vertices
struct.pack_into('<I', b, at + 4, 250)  # vertex 3 becomes 250 again
crc = zlib.crc32(bytes(b[at:at + 12])) ^ A.place_tag(A.SOURCES, 0)
struct.pack_into('<I', b, hlen + 8, crc)
open('$T/twice', 'wb').write(bytes(b))
" 2>$T/perr
	for tool in "apsp-path -i \$T/twice 250 3" "bin2mtx \$T/twice" "apsp-diff \$T/twice \$T/full"; do
		expect_stderr "a source listed twice, CRC right: ${tool%% *} names it" 2 \
			"list of sources, row 1: vertex 250 a second time" "\$BIN/$tool"
	done
	expect_stderr "a source listed twice: apspmat.py names it" 1 "row 1: vertex 250 a second time" \
		"$py -c \"import sys; sys.path.insert(0, '$TOP/python'); import apspmat as A; A.load('$T/twice')\""
else
	skip "apspmat.py and a damaged list of sources" "no python3 with numpy"
fi
