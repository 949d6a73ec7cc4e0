# apsp-gpu --stats --betweenness and --edge-betweenness: the same bytes as
# apsp-cpu's (tests/cmd/betweenness.sh holds those to networkx and igraph)
# on a dense random graph (the host route: the panels come back to the
# host, which folds the statistics; the sources' sums made on the GPU,
# kernels/betweenness/fw_betweenness.cu, in one batch or in batches of 64 or 128
# (APSP_BETWEENNESS_BATCH), or on the host's cores (APSP_BETWEENNESS_HOST=1,
# and with --edge-betweenness), 16-bit lanes and 32 bits, float32 and
# float64 (searched on the host), an undirected graph, a road-like graph as text (the sparse
# engine's rows on the GPU, their sums too, on one device or dealt to two
# of them: APSP_SPARSE_DEVICES=0,0 takes one device twice), zero arcs, a
# complete graph of equal weights (every arc of a source tight); with two
# GPUs, --gpus 2 deals the batches to both; compute-sanitizer
# finds nothing in the kernels; under mpirun (below) apsp-cpu's bytes too.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
c=$BIN/apsp-cpu
g=$BIN/gengraph
x=$BIN/bin2mtx

need_gpu_build "apsp-gpu --betweenness"
expect_true "apsp-gpu --help names --betweenness" '$gpu --help | grep -q -- "--betweenness"'
expect_stderr "apsp-gpu --betweenness without --stats" 2 'go with --stats' '$gpu --betweenness </dev/null'
need_gpu "apsp-gpu --betweenness"

# btw_gpu NAME GRAPH [options]: apsp-gpu's table and arcs' file are apsp-cpu's
# bytes ($GPU_OPTS: apsp-gpu's alone).
btw_gpu() {
	name=$1 graph=$2
	shift 2
	if ! $c --stats --betweenness --edge-betweenness "$T/ec" "$@" "$graph" >"$T/a.tsv" 2>"$T/err"; then
		fail "betweenness $name" "apsp-cpu: $(head -c 300 "$T/err")"; return
	fi
	if ! $gpu -v ${GPU_OPTS:-} --stats --betweenness --edge-betweenness "$T/eg" "$@" "$graph" >"$T/b.tsv" 2>"$T/v"; then
		fail "betweenness $name" "apsp-gpu: $(head -c 300 "$T/v")"; return
	fi
	if cmp -s "$T/a.tsv" "$T/b.tsv" && cmp -s "$T/ec" "$T/eg"; then
		pass "betweenness $name: apsp-cpu's bytes"
	else
		fail "betweenness $name: apsp-cpu's bytes" "$(diff "$T/a.tsv" "$T/b.tsv" | head -n 3 | tr '\n' ' ')"
	fi
}

$g -n 1500 -d 4 -w 1:9 -s 32 -o "$T/i"
btw_gpu "int32, dense, 16-bit lanes" "$T/i"
expect_true "-v: the host route, betweenness asked" 'grep -q "betweenness asked" "$T/v"'
# without --edge-betweenness the sums are the GPU's
$c --stats --betweenness "$T/i" >"$T/a.tsv"
for b in 0 64 128; do
	APSP_BETWEENNESS_BATCH=$b $gpu -v --stats --betweenness "$T/i" >"$T/b.tsv" 2>"$T/v"
	expect_true "the GPU's sums (batch ${b:-whole}): apsp-cpu's bytes" 'cmp -s "$T/a.tsv" "$T/b.tsv" && grep -q "betweenness on 1 GPU:" "$T/v"'
done
expect_true "... in 24 batches of 64" 'APSP_BETWEENNESS_BATCH=64 $gpu -v --stats --betweenness "$T/i" 2>&1 >/dev/null | grep -q "24 batches of up to 64 sources"'
expect_true "the host's sums (APSP_BETWEENNESS_HOST=1): the same bytes" 'APSP_BETWEENNESS_HOST=1 $gpu -v --stats --betweenness "$T/i" 2>"$T/v" | cmp -s - "$T/a.tsv" && ! grep -q "betweenness on [0-9]* GPU" "$T/v"'
if command -v compute-sanitizer >/dev/null 2>&1; then
	$g -n 300 -d 5 -w 1:9 -s 37 -o "$T/small"
	APSP_BETWEENNESS_BATCH=128 sanitized "compute-sanitizer memcheck: the betweenness kernels" memcheck $gpu --stats --betweenness "$T/small"
else
	skip "compute-sanitizer memcheck: the betweenness kernels" "no compute-sanitizer"
fi
GPU_OPTS=--no-16bit btw_gpu "int32, dense, 32 bits" "$T/i"
$g -n 700 -d 5 -t float32 -w 0.5:4.5 -s 33 -o "$T/f"
btw_gpu "float32" "$T/f"
$g -n 500 -d 6 -t float64 -w 0.5:4.5 -s 31 -o "$T/f64"
btw_gpu "float64 (the float64 engine, searched on the host)" "$T/f64"
$g -n 600 -d 6 -w 1:5 --undirected -s 34 -o "$T/u"
btw_gpu "undirected, normalized" "$T/u" --normalized
$g --road 40x40 -w 1:20 -s 35 -F mtx -o "$T/road.mtx"
btw_gpu "road-like text, the sparse engine's rows" "$T/road.mtx"
expect_true "-v: the sparse engine" 'grep -q "sparse engine" "$T/v"'
$c --stats --betweenness "$T/road.mtx" >"$T/a.tsv"
expect_true "the sparse engine's rows, the GPU's sums: apsp-cpu's bytes" '$gpu -v --stats --betweenness "$T/road.mtx" 2>"$T/v" | cmp -s - "$T/a.tsv" && grep -q "betweenness on 1 GPU:" "$T/v"'
expect_true "... dealt to two devices in batches of 64: the same bytes" 'APSP_SPARSE_DEVICES=0,0 APSP_BETWEENNESS_BATCH=64 $gpu -v --stats --betweenness "$T/road.mtx" 2>"$T/v" | cmp -s - "$T/a.tsv" && grep -q "betweenness on 2 GPUs: 25 batches of up to 64 sources" "$T/v"'
$g -n 400 -d 5 -w 1:9 -s 36 -o "$T/z0"
$x --weights "$T/z0" | awk '/^%/ || !size++ { print; next } { if ($1 < $2 && ($1 + $2) % 4 == 0) $3 = 0; print }' >"$T/z.mtx"
btw_gpu "zero arcs (forward only: no zero cycle)" "$T/z.mtx" --engine dense
$c --stats --betweenness --engine dense "$T/z.mtx" >"$T/a.tsv"
expect_true "zero arcs, the GPU's sums: apsp-cpu's bytes" '$gpu --stats --betweenness --engine dense "$T/z.mtx" | cmp -s - "$T/a.tsv"'
# a zero cycle is found beside the engine (the graph made on a thread while it
# solves): refused as apsp-cpu refuses it, nothing on the output
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 0\n2 1 0\n2 3 5\n' >"$T/zc.mtx"
expect_stderr "a zero cycle refused, beside the engine" 2 'arc [0-9] -> [0-9] lies on a cycle of zero weight' '$gpu --stats --betweenness --engine dense "$T/zc.mtx"'
expect_true "... and nothing written" '! $gpu --stats --betweenness --engine dense "$T/zc.mtx" >"$T/zc.out" 2>/dev/null && [ ! -s "$T/zc.out" ]'
$g -n 300 -d 100 -w 1:1 -s 39 -o "$T/complete"
$c --stats --betweenness "$T/complete" >"$T/a.tsv"
expect_true "a complete graph of equal weights (a source's every arc tight): apsp-cpu's bytes" '$gpu --stats --betweenness "$T/complete" | cmp -s - "$T/a.tsv"'
$g --grid 30x30 -w 1:1 -s 38 -o "$T/unit"
$c --stats --betweenness "$T/unit" >"$T/a.tsv"
expect_true "a unit grid (counts past 2^53), the GPU's sums: apsp-cpu's bytes" '$gpu --stats --betweenness --engine dense "$T/unit" | cmp -s - "$T/a.tsv"'
if [ "$(gpu_count)" -ge 2 ]; then
	$c --stats --betweenness "$T/i" >"$T/a.tsv"
	for b in 0 64; do
		expect_true "--gpus 2 (batch ${b}): the batches dealt to both, apsp-cpu's bytes" 'APSP_BETWEENNESS_BATCH=$b $gpu -v --gpus 2 --stats --betweenness "$T/i" 2>"$T/v" | cmp -s - "$T/a.tsv" && grep -q "betweenness on 2 GPUs" "$T/v"'
	done
else
	skip "--gpus 2: the batches dealt to both" "one GPU"
fi
# Under mpirun: the dense engine's rounds shared by the processes, every
# panel to process 0's host, its GPU making the sums (two GPUs); a graph as
# text: the sparse engine's rows and sums made by process 0 alone (on one
# GPU both processes take device 0: APSP_SPARSE_DEVICES).
if has_mpi; then
	if [ "$(gpu_count)" -ge 2 ]; then
		$c --stats --betweenness --edge-betweenness "$T/ea" "$T/i" >"$T/a.tsv"
		for b in 0 64; do
			expect_true "mpirun -np 2 (batch ${b}): the rounds shared, process 0's GPU makes the sums, apsp-cpu's bytes" \
				'APSP_BETWEENNESS_BATCH=$b mpi $gpu -v --stats --betweenness "$T/i" 2>"$T/v" | cmp -s - "$T/a.tsv" &&
				 grep -q "2 processes x" "$T/v" && grep -q "betweenness on 1 GPU" "$T/v"'
		done
		expect_true "mpirun -np 2 --edge-betweenness: apsp-cpu's table and arcs" \
			'mpi $gpu --stats --betweenness --edge-betweenness "$T/eb" "$T/i" | cmp -s - "$T/a.tsv" && cmp -s "$T/ea" "$T/eb"'
		$c --stats --betweenness --edge-betweenness "$T/ea" "$T/f64" >"$T/a.tsv"
		expect_true "mpirun -np 2, float64 (searched on process 0's host): apsp-cpu's table and arcs" \
			'mpi $gpu --stats --betweenness --edge-betweenness "$T/eb" "$T/f64" | cmp -s - "$T/a.tsv" &&
			 cmp -s "$T/ea" "$T/eb"'
	else
		skip "mpirun -np 2, the dense and float64 engines' betweenness" "one GPU"
	fi
	$c --stats --betweenness "$T/road.mtx" >"$T/a.tsv"
	expect_true "mpirun -np 2, a road-like graph as text: the sparse engine's rows and sums by process 0 alone, apsp-cpu's bytes" \
		'mpi $gpu -v --stats --betweenness "$T/road.mtx" 2>"$T/v" | cmp -s - "$T/a.tsv" &&
		 grep -q "process 0 alone of 2" "$T/v" && grep -q "betweenness on 1 GPU" "$T/v"'
else
	skip "mpirun -np 2, betweenness" "no mpirun, or built without MPI"
fi
