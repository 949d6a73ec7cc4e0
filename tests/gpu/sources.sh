# apsp-gpu --rows and --sources (the sparse engine's rows on the GPU for
# chosen sources): the same bytes as apsp-cpu's sparse engine for the same
# request (its rows and derived predecessors), in the order asked, every
# type, batches small enough that the list takes several, on the device
# listed twice; the automatic choice takes the sparse engine for them;
# routes that cannot take them refuse them by name.  Tables (--targets):
# apsp-cpu's table's bytes, in batches too.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
c=$BIN/apsp-cpu
g=$BIN/gengraph

need_gpu_build "apsp-gpu --rows"
expect_true "apsp-gpu --help names --rows and --sources" \
	'$gpu --help | grep -q -- "--rows A:B" && $gpu --help | grep -q -- "--sources FILE"'
expect_stderr "apsp-gpu: --rows with --stats refused" 2 "the statistics take every row" \
	'$gpu --rows 1:2 --stats /dev/null'
need_gpu "apsp-gpu --rows"

# The GPU's rows are the CPU's: the streams' matrices the same bytes, and
# the paths from source $3 the same (apsp-path's exit status 1: a vertex
# unreachable from it, which these graphs have).
same_as_cpu() {
	$BIN/bin2mtx --npy $1 >$T/n1 && $BIN/bin2mtx --npy $2 >$T/n2 && cmp -s $T/n1 $T/n2 &&
		$BIN/bin2mtx --npy --pred $1 >$T/n1 && $BIN/bin2mtx --npy --pred $2 >$T/n2 &&
		cmp -s $T/n1 $T/n2 || return 1
	$BIN/apsp-path -i $1 --from $3 --tsv >$T/p1; [ $? -le 1 ] || return 1
	$BIN/apsp-path -i $2 --from $3 --tsv >$T/p2; [ $? -le 1 ] && [ -s $T/p1 ] && cmp -s $T/p1 $T/p2
}
printf '333\n5\n# the last row\n1199\n600 0\n' >$T/src
for t in int32 float32 float64; do
	$g --road 40x30 -t $t -w 1:100 -s 6 -F mtx -o $T/r.mtx
	$c --engine sparse --sources $T/src -o $T/want $T/r.mtx
	expect_true "$t: --sources, one batch, the CPU's rows and paths" \
		'$gpu --engine sparse --sources $T/src -o $T/got $T/r.mtx && same_as_cpu $T/got $T/want 600'
	expect_true "$t: --sources, batches of 2, the CPU's rows and paths" \
		'APSP_SPARSE_BATCH=2 $gpu --engine sparse --sources $T/src -o $T/got $T/r.mtx &&
		 same_as_cpu $T/got $T/want 1199'
	expect_true "$t: --rows 100:1100 in batches of 96 on the device twice, the CPU's" \
		'$c --engine sparse --rows 100:1100 -o $T/want2 $T/r.mtx &&
		 APSP_SPARSE_DEVICES=0,0 APSP_SPARSE_BATCH=96 $gpu --engine sparse --rows 100:1100 -o $T/got $T/r.mtx &&
		 same_as_cpu $T/got $T/want2 1000'
done
expect_true "apsp-diff --graph: the GPU's rows' paths valid" '$BIN/apsp-diff --graph $T/r.mtx $T/got'
printf '7 1199\n0 333 600\n' >$T/dst
for t in int32 float32; do
	$g --road 40x30 -t $t -w 1:100 -s 7 -F mtx -o $T/t.mtx
	$c --engine sparse --sources $T/src --targets $T/dst -o $T/want $T/t.mtx
	expect_true "$t: --sources --targets, the CPU's table, one batch and batches of 2" \
		'$gpu --sources $T/src --targets $T/dst -o $T/got $T/t.mtx &&
		 $BIN/bin2mtx --npy $T/got >$T/n1 && $BIN/bin2mtx --npy $T/want >$T/n2 && cmp -s $T/n1 $T/n2 &&
		 APSP_SPARSE_BATCH=2 $gpu --engine sparse --sources $T/src --targets $T/dst -o $T/got $T/t.mtx &&
		 $BIN/bin2mtx --npy $T/got | cmp -s - $T/n2 && $BIN/apsp-info $T/got | grep -q "table *5 x 5"'
	expect_true "$t: --targets --paths, the CPU's table and its paths" \
		'$c --engine sparse --sources $T/src --targets $T/dst --paths -o $T/want $T/t.mtx &&
		 $gpu --sources $T/src --targets $T/dst --paths -o $T/got $T/t.mtx &&
		 $BIN/bin2mtx --npy --pred $T/got >$T/n1 && $BIN/bin2mtx --npy --pred $T/want | cmp -s - $T/n1 &&
		 $BIN/apsp-path -i $T/got --from 5 --tsv >$T/p1; [ $? -le 1 ] && $BIN/apsp-path -i $T/want --from 5 --tsv | cmp -s - $T/p1'
done
expect_true "auto: text with --rows takes the sparse engine (paths derived), -v says so" \
	'$gpu -v --rows 3:9 -o $T/got $T/r.mtx 2>$T/v && grep -q "route sparse.*some rows" $T/v &&
	 $c --engine sparse --rows 3:9 -o $T/want $T/r.mtx && same_as_cpu $T/got $T/want 4'
expect_true "a list of arcs with its order kept: the same rows" \
	'$g --road 40x30 -w 1:100 -s 6 -L arcs --keep-order -o $T/ra 2>/dev/null || $g --road 40x30 -w 1:100 -s 6 -L arcs -o $T/ra;
	 $gpu --rows 3:9 -o $T/got $T/ra && $c --engine sparse --rows 3:9 -o $T/want $T/ra && same_as_cpu $T/got $T/want 8'
$g -n 200 -d 20 -s 2 -o $T/dense
expect_stderr "a stream's matrix: --rows refused on the GPU by name, apsp-cpu named" 2 \
	"rows: the sparse engine's alone on the GPU.*apsp-cpu takes them" '$gpu --rows 1:5 -o $T/x $T/dense'
expect_true "... and nothing written" '[ ! -e $T/x ]'
expect_stderr "--engine dense with --sources refused by name" 2 "sources: the sparse engine's alone" \
	'$gpu --engine dense --sources $T/src -o $T/x $T/r.mtx'
expect_stderr "a negative cycle: exit 3" 3 "negative cycle" \
	'printf "%%%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 1\n2 3 -2\n3 2 1\n" >$T/neg.mtx &&
	 $gpu --engine sparse --rows 0:2 -o $T/nc $T/neg.mtx'
