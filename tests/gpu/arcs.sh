# apsp-gpu on a graph stored as a list of arcs (gengraph and mtx2bin
# --layout arcs): statistics, distances and paths equal to apsp-cpu's on the
# same list and to its own on the same graph's matrix, int32, float32 and
# float64; a pipe from gengraph with no matrix anywhere.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
c=$BIN/apsp-cpu
b=$BIN/bin2mtx

need_gpu_build "apsp-gpu on a list of arcs"
need_gpu "apsp-gpu on a list of arcs"

for t in int32 float32 float64; do
	$BIN/gengraph --road 45x40 -w 1:1000 -s 7 -t $t -L arcs -o $T/a
	$BIN/gengraph --road 45x40 -w 1:1000 -s 7 -t $t -L matrix -o $T/w
	# (the sparse engine from the list, the dense one from the matrix: the
	# same int32 distances, so the same bytes; float sums along other paths
	# may differ in their last bits)
	tol=0; [ $t = float32 ] && tol=1e-5; [ $t = float64 ] && tol=1e-12
	$gpu --stats $T/a >$T/s1 && $gpu --stats $T/w >$T/s2 && $c --stats $T/a >$T/s3
	same_stats "$t --stats from the list: the matrix's figures (dense engine)" $T/s2 $T/s1 $tol
	same_stats "$t --stats from the list: apsp-cpu's figures (its sparse engine)" $T/s3 $T/s1 $tol
	expect_true "$t distances and paths: from the list, valid and apsp-cpu's distances" \
		'$gpu -o $T/r1 $T/a && $c -o $T/r2 $T/a && $BIN/apsp-diff -q -t '$tol' $T/r1 $T/r2 &&
		 $BIN/apsp-diff -q --graph $T/a $T/r1'
	expect_true "$t --no-paths: the same distances from the list as from the matrix" \
		'$gpu --no-paths -o $T/r3 $T/a && $gpu --no-paths -o $T/r4 $T/w &&
		 $BIN/apsp-diff -q -t '$tol' $T/r3 $T/r4'
done
expect_true "a pipe: gengraph --road 200x200 | apsp-gpu --stats, the sparse engine on the list" \
	'$BIN/gengraph --road 200x200 -w 1:1000 | $gpu -v --stats --summary 2>$T/v >$T/s1 &&
	 grep -q "sparse" $T/v && $BIN/gengraph --road 200x200 -w 1:1000 | $c --stats --summary | cmp -s - $T/s1'
