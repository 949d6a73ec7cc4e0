# apsp-gpu's sparse engine (--engine sparse; run/sparse.c's factor, the rows
# on the GPU: kernels/sparse/fw_sparse.cu): apsp-cpu's distances (int32 exactly,
# floats within rounding) on road-like graphs and grids, one-way arcs,
# disconnected pieces, zero and negative arcs, float32 and float64, text and
# streams, batches small enough that a graph takes several (APSP_SPARSE_BATCH)
# and as large as the device holds; --stats equal to apsp-stats on the dense
# result; negative cycles; the automatic choice and its reasons.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
c=$BIN/apsp-cpu
g=$BIN/gengraph
d=$BIN/apsp-diff
s=$BIN/apsp-stats

need_gpu_build "apsp-gpu --engine sparse"
expect_true "apsp-gpu --help names --engine" '$gpu --help | grep -q -- "--engine E"'
expect_stderr "--engine: a bad name" 2 "is not auto, dense or sparse" '$gpu --engine tiles /dev/null'
need_gpu "apsp-gpu --engine sparse"

# same NAME GRAPH TOL [batch]: the GPU's sparse rows are apsp-cpu's dense distances.
same() {
	$c --engine dense --no-paths -o $T/want $2 2>$T/e1 || { fail "$1" "$(head -c 300 $T/e1)"; return; }
	if ! APSP_SPARSE_BATCH=${4:-} $gpu --engine sparse --no-paths -o $T/got $2 2>$T/e2; then
		fail "$1" "$(head -c 300 $T/e2)"; return
	fi
	if $d -q -t $3 $T/want $T/got 2>$T/e3; then pass "$1"
	else fail "$1" "$($d -n 3 -t $3 $T/want $T/got 2>&1 | head -c 300)"; fi
}
$g --road 40x50 -s 5 -o $T/road
same "road-like 40x50, int32, one batch" $T/road 0
same "road-like 40x50, int32, batches of 96 (the last short)" $T/road 0 96
$g --road 40x50 -s 5 -t float32 -o $T/roadf
same "road-like, float32, batches of 64" $T/roadf 1e-5 64
$g --road 40x50 -s 5 -t float64 -o $T/roadd
same "road-like, float64" $T/roadd 1e-12
$g --grid 33x47 -s 2 -F mtx -o $T/grid.mtx
same "grid 33x47 as Matrix Market text" $T/grid.mtx 0 128
$g --road 30x30 -s 5 --negative -o $T/neg
same "negative arcs, int32" $T/neg 0 64
$g --road 30x30 -s 6 --negative -t float32 -o $T/negf
same "negative arcs, float32" $T/negf 1e-5
$g --road 30x30 -s 9 -w 0:3 -o $T/zero
same "zero-weight arcs" $T/zero 0
$g -n 700 -d 0.4 -s 7 -o $T/oneway
same "random one-way arcs, disconnected pieces" $T/oneway 0 32
printf '1 2 4\n2 3 1\n1 2 2\n3 3 9\n3 1 1\n5 6 2\n4 1 7\n' >$T/e.txt
same "edge list: repeats, a loop, pieces apart" $T/e.txt 0

# --stats: apsp-stats' figures on the dense result.
$c --engine dense --no-paths -o $T/rd $T/road
for form in "" --summary; do
	$s $form $T/rd >$T/want
	expect_true "--stats $form: apsp-stats' bytes, batches of 160" \
		'APSP_SPARSE_BATCH=160 $gpu --engine sparse --stats $form $T/road >$T/got && cmp -s $T/want $T/got'
done
$c --engine dense --no-paths -o $T/rdd $T/roadd
$s $T/rdd >$T/want
$gpu --engine sparse --stats $T/roadd >$T/got 2>$T/err
same_stats "--stats float64: apsp-stats' table within rounding" $T/want $T/got 1e-12
$c --engine dense --stats $T/negf >$T/want
$gpu --engine sparse --stats $T/negf >$T/got 2>$T/err
same_stats "--stats float32, negative arcs: within float32's rounding" $T/want $T/got 1e-5

# The down sweep's shapes at their smallest (APSP_SPARSE_SHAPE): most of
# the entries read from d rather than slots, in the top and in the parts,
# the top's groups closed inside its separators.
export APSP_SPARSE_SHAPE=3,1,4,40,30
same "small sweep shapes: road-like, int32, batches of 96" $T/road 0 96
same "small sweep shapes: float64" $T/roadd 1e-12
same "small sweep shapes: negative arcs, int32" $T/neg 0 64
$s $T/rd >$T/want
expect_true "small sweep shapes: --stats, apsp-stats' bytes" \
	'APSP_SPARSE_BATCH=160 $gpu --engine sparse --stats $T/road >$T/got && cmp -s $T/want $T/got'
unset APSP_SPARSE_SHAPE

# Negative cycles; the choice.
printf '%%%%MatrixMarket matrix coordinate integer general\n4 4 4\n1 2 3\n2 3 -2\n3 1 -2\n3 4 1\n' >$T/cyc.mtx
expect_stderr "negative cycle: exit 3, a vertex on it" 3 "negative cycle through vertex [123]: no statistics" \
	'$gpu --engine sparse --stats $T/cyc.mtx'
$g --road 30x30 -s 4 -F mtx -o $T/road.mtx
expect_true "auto, text, --stats: the sparse route, said with -v" \
	'$gpu -v --stats $T/road.mtx 2>&1 >/dev/null | grep -q "route sparse: .*tried" &&
	 $gpu -v --stats $T/road.mtx 2>&1 >/dev/null | grep -q "sparse engine: int32: sweeps"'
$g -n 300 -d 30 -s 2 -F mtx -o $T/dense.mtx
expect_true "auto, a dense graph as text: declined, the route planned again" \
	'$gpu -v --stats $T/dense.mtx 2>$T/err >$T/got && grep -q "dense engine: over 32 arcs" $T/err &&
	 [ "$(grep -c ": route " $T/err)" = 2 ] && $c --engine dense --stats $T/dense.mtx | cmp -s - $T/got'
expect_true "auto, a stream: a dense route" \
	'$gpu -v --stats $T/road 2>$T/err >/dev/null && grep -q ": route " $T/err && ! grep -q "route sparse" $T/err'
# With paths the rows come down twice, the second time for the
# predecessors the host derives from them (run/sparse.c, lib/sparse/preds.c).
for x in "road 0" "roadd 1e-12" "zero 0" "neg 0"; do
	graph=$T/${x% *} tol=${x#* }
	expect_true "--engine sparse with paths, ${x% *}: every chain a shortest path, batches of 96" \
		'APSP_SPARSE_BATCH=96 $gpu --engine sparse -o $T/gp $graph && $c --engine dense -o $T/cp $graph &&
		 $d -q -t $tol --graph $graph $T/cp $T/gp'
done

# Several GPUs: the batches taken in turn, the running column figures
# passed from each batch's GPU to the next: the same bytes as one GPU.  One
# device listed twice or three times (APSP_SPARSE_DEVICES) runs that way on
# a machine of one; --gpus 2 where there are two.
for x in "road int32" "roadf float32" "roadd float64"; do
	graph=$T/${x% *}
	APSP_SPARSE_BATCH=96 $gpu --engine sparse --stats $graph >$T/one 2>$T/err
	APSP_SPARSE_BATCH=96 $gpu --engine sparse --no-paths -o $T/r1 $graph 2>>$T/err
	for devs in 0,0 0,0,0; do
		expect_true "devices $devs, ${x#* }: --stats the same bytes as one device" \
			'APSP_SPARSE_DEVICES=$devs APSP_SPARSE_BATCH=96 $gpu -v --engine sparse --stats $graph >$T/two 2>$T/v &&
			 grep -q "on [23] GPUs" $T/v && cmp -s $T/one $T/two'
		expect_true "devices $devs, ${x#* }: the rows written in order, the same distances" \
			'APSP_SPARSE_DEVICES=$devs APSP_SPARSE_BATCH=96 $gpu --engine sparse --no-paths -o $T/r2 $graph &&
			 $BIN/bin2mtx --npy $T/r1 >$T/r1n && $BIN/bin2mtx --npy $T/r2 | cmp -s - $T/r1n'
	done
done
expect_true "devices 0,0: paths (the rows made twice) valid" \
	'APSP_SPARSE_DEVICES=0,0 APSP_SPARSE_BATCH=96 $gpu --engine sparse -o $T/gp $T/road &&
	 $d -q --graph $T/road $T/gp'
expect_true "devices 0,0 -v: the engine's line whole (its end, the device wait, not cut)" \
	'APSP_SPARSE_DEVICES=0,0 APSP_SPARSE_BATCH=96 $gpu -v --engine sparse --stats $T/road 2>&1 >/dev/null |
	 grep "on 2 GPUs" | grep -q "device wait [0-9.]* s$"'
if [ "$(gpu_count)" -ge 2 ]; then
	expect_true "--gpus 2: --stats the same bytes as one GPU" \
		'APSP_SPARSE_BATCH=96 $gpu -v --gpus 2 --engine sparse --stats $T/road >$T/two 2>$T/v &&
		 grep -q "on 2 GPUs" $T/v && APSP_SPARSE_BATCH=96 $gpu --engine sparse --stats $T/road | cmp -s - $T/two'
else
	skip "--gpus 2, the sparse engine" "one GPU on this machine"
fi

# Under mpirun, one GPU a process (on a machine of one, both on device 0:
# APSP_SPARSE_DEVICES): the batches taken by the processes in turn, the in
# figures passed from process to process: one process's table, whether
# every process has a batch or not; a graph as text taken by the automatic
# choice, or declined and solved by the processes' rounds; distances alone
# and some rows written by process 0 alone; a negative cycle's exit.
if has_mpi; then
	one=0
	[ "$(gpu_count)" -ge 2 ] || one=1
	for x in "road int32" "roadf float32" "roadd float64"; do
		graph=$T/${x% *}
		$gpu --engine sparse --stats --summary $graph >$T/one 2>$T/err
		for b in 0 96; do
			expect_true "mpirun -np 2, ${x#* }, batches of $b (0: as many as fit): --stats one process's table" \
				'APSP_SPARSE_BATCH=$b mpi $gpu -v --engine sparse --stats --summary $graph >$T/two 2>$T/v &&
				 grep -q "process 0 of 2 (the batches taken in turn" $T/v && cmp -s $T/one $T/two'
		done
	done
	$g --road 40x50 -s 5 -F mtx -o $T/road.mtx
	$gpu --stats $T/road.mtx >$T/one 2>$T/err
	expect_true "mpirun -np 2 --stats, a road-like graph as text: the sparse engine chosen, one process's table" \
		'APSP_SPARSE_BATCH=64 mpi $gpu -v --stats $T/road.mtx >$T/two 2>$T/v &&
		 grep -q "process 0 of 2" $T/v && cmp -s $T/one $T/two'
	$g -n 600 -d 30 -s 8 -F mtx -o $T/dense.mtx
	$gpu --stats $T/dense.mtx >$T/one 2>$T/err
	if [ $one = 0 ]; then
		expect_true "mpirun -np 2 --stats, a dense graph as text: declined, the processes' rounds, one process's table" \
			'mpi $gpu -v --stats $T/dense.mtx >$T/two 2>$T/v && grep -q "2 processes x" $T/v &&
			 grep -q "over 32 arcs" $T/v && cmp -s $T/one $T/two'
	else
		skip "mpirun -np 2, a graph the sparse engine declines" "one GPU on this machine"
	fi
	$gpu --engine sparse --no-paths -o $T/r1 $T/road 2>$T/err
	expect_true "mpirun -np 2 --engine sparse, distances alone: process 0 alone, said by -v, the same rows" \
		'mpi $gpu -v --engine sparse --no-paths -o $T/r2 $T/road 2>$T/v && grep -q "process 0 alone of 2" $T/v &&
		 $BIN/bin2mtx --npy $T/r1 >$T/r1n && $BIN/bin2mtx --npy $T/r2 | cmp -s - $T/r1n'
	$gpu --rows 3:40 -o $T/rw1 $T/road.mtx 2>$T/err
	expect_true "mpirun -np 2 --rows 3:40: process 0 alone, said by -v, one process's rows and predecessors" \
		'mpi $gpu -v --rows 3:40 -o $T/rw2 $T/road.mtx 2>$T/v && grep -q "process 0 alone of 2" $T/v &&
		 $BIN/bin2mtx --npy --dist $T/rw1 >$T/rw1n && $BIN/bin2mtx --npy --dist $T/rw2 | cmp -s - $T/rw1n &&
		 $BIN/bin2mtx --npy --pred $T/rw1 >$T/rw1p && $BIN/bin2mtx --npy --pred $T/rw2 | cmp -s - $T/rw1p'
	expect_status "mpirun -np 2 --engine sparse --stats, a negative cycle: exit 3" 3 \
		'mpi $gpu --engine sparse --stats $T/cyc.mtx >/dev/null 2>&1'
else
	skip "mpirun, the sparse engine" "no mpirun, or built without MPI"
fi
