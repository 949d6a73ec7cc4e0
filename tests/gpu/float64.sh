# apsp-gpu on float64 streams (run/float64.c: the GPU engine with its float64
# tiles, kernels/dense/fw_f64.cuh): apsp-cpu's distances (equal where weights are
# whole, 1e-12 relative otherwise), predecessor chains that are shortest
# paths of the graph, the textbook predecessors (equal to a textbook loop's
# where weights are whole, ties included: against the Python package's CPU
# engine), negative arcs, a negative cycle, n that are not multiples of the
# blocking factor, --stats folded on one GPU and on several (apsp-stats'
# bytes), several GPUs (the same bits as one), the minima with fmin() alone
# (the same distances), a blocking factor other than 64 refused, and a
# clean run under compute-sanitizer.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
c=$BIN/apsp-cpu
g=$BIN/gengraph
need_gpu_build "apsp-gpu float64"
need_gpu "apsp-gpu float64"

for n in 1 2 63 64 65 130 300; do
	$g -n $n -d 8 -t float64 -w 0.01:5 -s $n -o $T/g$n
	$gpu -o $T/gpu$n $T/g$n 2>$T/err || { fail "float64-n$n-runs" "$(cat $T/err)"; continue; }
	$c -o $T/cpu$n $T/g$n
	expect_true "float64-n$n-distances-within-1e-12" '$BIN/apsp-diff $T/cpu$n $T/gpu$n'
	expect_true "float64-n$n-chains" '$BIN/apsp-diff --graph $T/g$n $T/gpu$n'
done
# whole weights with ties: distances bit for bit, and the textbook
# predecessors (fw_solve on the CPU gives them too); the second graph, of
# weights 1 and 2 over 11 block rows, ties nearly everywhere, so phase 3's
# sums through a pivot above k (dropped) would show in the predecessors
$g -n 200 -d 10 -w 0:6 -s 5 | $BIN/bin2mtx | $BIN/mtx2bin -t float64 -o $T/gw
$g -n 700 -d 2 -w 1:2 -s 9 | $BIN/bin2mtx | $BIN/mtx2bin -t float64 -o $T/gt
$gpu -o $T/gpuw $T/gw
$gpu -o $T/gput $T/gt
$c -o $T/cpuw $T/gw
expect_true float64-whole-distances-equal '$BIN/bin2mtx --dense --dist $T/gpuw >$T/a && $BIN/bin2mtx --dense --dist $T/cpuw >$T/b && cmp -s $T/a $T/b'
expect_true float64-whole-chains '$BIN/apsp-diff --graph $T/gw $T/gpuw'
if find_python numpy scipy; then
	for x in w t; do
		expect_true float64-textbook-predecessors-as-the-cpu-engine-$x '"$py" -c "
import sys; sys.path.insert(0, \"$TOP/python\"); import apspmat, apsp, numpy as np, scipy.sparse as sps
g = apspmat.load(\"$T/g$x\"); r = apspmat.load(\"$T/gpu$x\")
W = g.weights; fin = np.isfinite(W); np.fill_diagonal(fin, False)
i, j = np.nonzero(fin)
d, p = apsp.floyd_warshall(sps.csr_matrix((W[i, j], (i, j)), shape=W.shape), return_predecessors=True, device=\"cpu\")
sys.exit(not (np.array_equal(d, r.dist) and np.array_equal(np.where(p < 0, -1, p), r.pred)))"'
	done
fi
$g -n 150 -d 10 -t float64 --negative -s 7 -o $T/gn
$gpu -o $T/gpun $T/gn
$c -o $T/cpun $T/gn
expect_true float64-negative-arcs '$BIN/apsp-diff $T/cpun $T/gpun && $BIN/apsp-diff --graph $T/gn $T/gpun'
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 0.5\n2 3 -0.25\n3 2 -0.5\n' | $BIN/mtx2bin -t float64 -o $T/cyc
expect_status float64-negative-cycle 3 '$gpu -o $T/cyc.out $T/cyc'
expect_true float64-stats-as-apsp-stats '$gpu --stats $T/gw >$T/s1 && $BIN/apsp-stats $T/cpuw >$T/s2 && cmp -s $T/s1 $T/s2'
# (the statistics' distances are those of distances alone: with paths they
# may differ in the last place, as the man page says)
expect_true float64-stats-folded-on-the-device '$gpu -v --stats $T/g300 2>$T/err >$T/s1 && grep -q "folded on the device" $T/err && $gpu --no-paths $T/g300 | $BIN/apsp-stats >$T/s2 && cmp -s $T/s1 $T/s2'
expect_true float64-stats-summary-negative-arcs '$gpu --stats --summary $T/gn >$T/s1 && $BIN/apsp-stats --summary $T/gpun >$T/s2 && cmp -s $T/s1 $T/s2'
expect_true float64-fmin-alone-same-bytes '$gpu --no-paths -o $T/fb $T/g300 && mv $T/fb $T/fb1 && APSP_FLOAT_BITS=never $gpu --no-paths -o $T/fb $T/g300 && cmp -s $T/fb $T/fb1'
# row order (asked for: the whole matrix is on the host anyway; n = 1300,
# 21 block rows: two bands), with and without paths and with --stats: the
# matrices of the rounds' order, bit for bit (the streams' provenance
# differs by -v)
$g -n 1300 -d 5 -t float64 -w 0.01:5 -s 31 -o $T/gr
for o in "" --no-paths; do
	$gpu $o -o $T/fb1 $T/gr
	expect_true "float64-row-order-same-matrices$o" 'APSP_SCHEDULE=rows $gpu -v $o -o $T/fb $T/gr 2>$T/err && grep -q "in row order" $T/err && same_results row-order $T/fb1 $T/fb $T/gr "row order" $o'
done
expect_true float64-row-order-stats 'APSP_SCHEDULE=rows $gpu --stats $T/gr >$T/s1 && $gpu --stats $T/gr >$T/s2 && cmp -s $T/s1 $T/s2'
expect_stderr float64-other-blocking-factor-refused 2 'blocking factor of 64' '$gpu -B 32 -o $T/x $T/g300'
expect_true float64-no-paths '$gpu --no-paths -o $T/np $T/g300 && [ "$($BIN/apsp-info --json $T/np | grep -c pred)" = 0 ] && $BIN/apsp-diff $T/cpu300 $T/np'
# several GPUs: bands of block rows, the pivot rows copied between them;
# every entry sees the same relaxations in the same order, so the same bits
count=$(gpu_count)
if [ "$count" -ge 2 ]; then
	$g -n 700 -d 8 -t float64 -w 0.01:5 -s 21 -o $T/g700
	$gpu -o $T/one700 $T/g700
	$gpu --no-paths -o $T/one700np $T/g700
	for k in 2 $count; do
		expect_true "float64-$k-gpus-same-bits" '$gpu --gpus $k -o $T/many $T/g700 && $BIN/bin2mtx --dense --dist $T/many >$T/a && $BIN/bin2mtx --dense --dist $T/one700 >$T/b && cmp -s $T/a $T/b &&
			$BIN/bin2mtx --dense --pred $T/many >$T/a && $BIN/bin2mtx --dense --pred $T/one700 >$T/b && cmp -s $T/a $T/b'
		expect_true "float64-$k-gpus-no-paths" '$gpu --gpus $k --no-paths -o $T/many $T/g700 && $BIN/apsp-diff -t 0 $T/one700np $T/many && $BIN/apsp-diff $T/one700 $T/many'
		expect_true "float64-$k-gpus-negative-arcs" '$gpu --gpus $k -o $T/many $T/gn && $BIN/bin2mtx --dense --dist $T/many >$T/a && $BIN/bin2mtx --dense --dist $T/gpun >$T/b && cmp -s $T/a $T/b'
		expect_true "float64-$k-gpus-stats-as-apsp-stats" '$gpu --gpus $k --stats $T/g700 >$T/s1 && $BIN/apsp-stats $T/one700np >$T/s2 && cmp -s $T/s1 $T/s2'
	done
	expect_true float64-more-gpus-than-block-rows '$gpu --gpus 2 -o $T/many $T/g63 && $BIN/apsp-diff -t 0 $T/gpu63 $T/many'
else
	expect_stderr float64-gpus-beyond-the-machine 2 'asked for: 1 device found' '$gpu --gpus 2 -o $T/x $T/g300'
fi
expect_stderr float64-too-large-for-the-device 2 'at most n = ' 'APSP_DEVICE_MEMORY=1000000 $gpu -o $T/x $T/g300'
if find_python numpy; then
	expect_true float64-python-too-large-for-the-device 'APSP_DEVICE_MEMORY=100000 "$py" -c "
import sys; sys.path.insert(0, \"$TOP/python\"); import apsp, numpy as np
try:
    apsp.floyd_warshall(np.ones((300, 300)), device=\"gpu\")
except MemoryError as e:
    sys.exit(0 if \"at most n = \" in str(e) else 1)
sys.exit(1)"'
fi
# nested dissection on a 64 x 64 grid: blocks skipped level by level, the
# distances of the vertices' own order (whole weights: bit for bit; else
# within 1e-12), valid chains; auto keeps the vertices' order (the textbook
# predecessors)
$g --grid 64x64 -w 1:100 -s 4 | $BIN/bin2mtx | $BIN/mtx2bin -t float64 -o $T/grid
$g --grid 64x64 -t float64 -w 0.01:5 -s 4 -o $T/gridf
$gpu --order natural -o $T/gridn $T/grid
expect_true float64-grid-nd-skips-blocks '$gpu -v --order nd -o $T/gridnd $T/grid 2>$T/err && grep -q "block updates skipped" $T/err && grep -q "nested-dissection" $T/err'
expect_true float64-grid-nd-distances-bit-for-bit '$BIN/bin2mtx --dense --dist $T/gridnd >$T/a && $BIN/bin2mtx --dense --dist $T/gridn >$T/b && cmp -s $T/a $T/b'
expect_true float64-grid-nd-chains '$BIN/apsp-diff --graph $T/grid $T/gridnd'
expect_true float64-grid-nd-as-the-cpu-engine '$c -o $T/gridc $T/grid && $BIN/apsp-diff -t 0 $T/gridc $T/gridnd'
expect_true float64-grid-nd-no-paths '$gpu --order nd --no-paths -o $T/gridnp $T/grid && $BIN/apsp-diff -t 0 $T/gridn $T/gridnp'
expect_true float64-grid-nd-fractional-weights '$gpu --order nd -o $T/a $T/gridf && $gpu --order natural -o $T/b $T/gridf && $BIN/apsp-diff $T/b $T/a && $BIN/apsp-diff --graph $T/gridf $T/a'
expect_true float64-grid-auto-keeps-the-order-textbook 'v=$($gpu -v -o $T/a $T/grid 2>&1 >/dev/null) && ! echo "$v" | grep -q "nested-dissection" && $BIN/bin2mtx --dense --pred $T/a >$T/pa && $BIN/bin2mtx --dense --pred $T/gridn >$T/pb && cmp -s $T/pa $T/pb'
expect_true float64-grid-nd-stats 'v=$($gpu -v --order nd --stats $T/grid 2>&1 >$T/s1) && echo "$v" | grep -q "nested-dissection" && $BIN/apsp-stats $T/gridnp >$T/s2 && cmp -s $T/s1 $T/s2'
# out of core (a device made small): bands through the device, the same
# matrices as the run that fits where weights are whole (its ties are the
# textbook's either way), valid chains; fractional weights within rounding
# (n = 1000, paths: 12.6 MB in core; 8 MB hold bands of 64 rows, five of
# them on the device, 4 MB none)
$g -n 1000 -d 6 -w 1:50 -s 12 | $BIN/bin2mtx | $BIN/mtx2bin -t float64 -o $T/o
$g -n 1000 -d 6 -t float64 -w 0.01:5 -s 13 -o $T/of
$gpu -o $T/oin $T/o
for cap in 8000000 4000000; do
	expect_true "float64-out-of-core-$cap" 'APSP_DEVICE_MEMORY=$cap $gpu -v -o $T/oout $T/o 2>$T/err && grep -q "out of core: [0-9]* bands" $T/err &&
		$BIN/bin2mtx --npy --dist $T/oin >$T/a && $BIN/bin2mtx --npy --dist $T/oout >$T/b && cmp -s $T/a $T/b &&
		$BIN/bin2mtx --npy --pred $T/oin >$T/a && $BIN/bin2mtx --npy --pred $T/oout >$T/b && cmp -s $T/a $T/b'
done
expect_true float64-out-of-core-no-paths 'APSP_DEVICE_MEMORY=4000000 $gpu -v --no-paths -o $T/oout $T/o 2>$T/err && grep -q "out of core" $T/err && $BIN/apsp-diff -t 0 $T/oin $T/oout'
expect_true float64-out-of-core-fractional 'APSP_DEVICE_MEMORY=4000000 $gpu -v -o $T/oout $T/of 2>$T/err && grep -q "out of core" $T/err && $gpu -o $T/oin $T/of && $BIN/apsp-diff $T/oin $T/oout && $BIN/apsp-diff --graph $T/of $T/oout'
expect_true float64-out-of-core-stats 'APSP_DEVICE_MEMORY=4000000 $gpu --stats $T/o >$T/s1 && $gpu --no-paths $T/o | $BIN/apsp-stats >$T/s2 && cmp -s $T/s1 $T/s2'
if command -v compute-sanitizer >/dev/null 2>&1; then
	sanitized float64-memcheck memcheck $gpu -o $T/san $T/g130
	sanitized float64-memcheck-nd memcheck $gpu --order nd -o $T/san $T/grid
fi
