# apsp-gpu --stats: the statistics folded on the devices equal apsp-stats'
# on the result stream of the same kind of run (integer columns to the
# digit, floating ones within 1e-12 relative), in every mode: 16-bit lanes
# and 32 bits, float32 as bits and as floats, negative weights (reweighted),
# sparse runs in a nested-dissection order (positions put back at their
# vertices), several blocking factors, row order with the rounds begun on
# the rows as they are read, several GPUs, and under mpirun (the figures
# passed from process to process); out of core the panels are folded on
# the host instead; -v says which.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
g=$BIN/gengraph
s=$BIN/apsp-stats

need_gpu_build "apsp-gpu --stats"
expect_true "apsp-gpu --help names --stats" '$gpu --help | grep -q -- "--stats"'
expect_stderr "apsp-gpu --json alone" 2 'go with --stats' '$gpu --json </dev/null'
need_gpu "apsp-gpu --stats"

# stats_gpu NAME GRAPH [apsp-gpu options]
stats_gpu() {
	name=$1 graph=$2
	shift 2
	if $gpu "$@" "$graph" -o "$T/r.apm" 2>"$T/err" && $s "$T/r.apm" >"$T/a.tsv" 2>>"$T/err" \
	   && $gpu -v --stats "$@" "$graph" >"$T/b.tsv" 2>"$T/v"; then
		same_stats "--stats $name" "$T/a.tsv" "$T/b.tsv"
	else
		fail "--stats $name" "$(head -c 300 "$T/err" "$T/v")"
	fi
}

$g -n 2500 -d 3 -s 21 -o "$T/i"
stats_gpu "int32, 16-bit lanes" "$T/i"
expect_true "-v: folded on the device" 'grep -q "statistics folded on the device" "$T/v"'
# Each column's floating sums are made in the order of the stream's rows,
# as apsp-stats makes them: the same bytes.
expect_true "--stats: apsp-stats' bytes" 'cmp -s "$T/a.tsv" "$T/b.tsv"'
stats_gpu "int32, 32 bits" "$T/i" --no-16bit
APSP_SCHEDULE=rows stats_gpu "row order, rounds begun on the rows as read" "$T/i" --no-16bit
expect_true "-v: row order, begun as read" 'grep -q "row order, the first rounds on the rows read" "$T/v" && grep -q "folded on the device" "$T/v"'
APSP_SCHEDULE=rows stats_gpu "row order, 16-bit lanes" "$T/i"
stats_gpu "int32, B 32" "$T/i" -B 32 --no-16bit
$g -n 1500 -d 2 -t float32 -w 0.25:40 -s 22 -o "$T/f"
stats_gpu "float32 as bits" "$T/f"
expect_true "--stats float32: apsp-stats' bytes" 'cmp -s "$T/a.tsv" "$T/b.tsv"'
APSP_FLOAT_BITS=never stats_gpu "float32 as floats" "$T/f"
$g -n 900 -d 5 --negative -s 23 -o "$T/n"
stats_gpu "negative weights, reweighted" "$T/n"
$g -n 700 -d 5 --negative -t float32 -s 24 -o "$T/nf"
stats_gpu "float32, negative weights" "$T/nf"
$g --grid 40x50 -s 25 -o "$T/grid"
stats_gpu "grid, natural order" "$T/grid" --order natural
if $BIN/apsp-cpu --help >/dev/null && $gpu --order nd "$T/grid" >/dev/null 2>&1; then
	stats_gpu "grid, nested dissection" "$T/grid" --order nd
	expect_true "-v: nd and on the device" 'grep -q "nested-dissection" "$T/v" && grep -q "folded on the device" "$T/v"'
	# 32-bit distances (n = 1800: no 16-bit lanes) in a nested-dissection
	# order: the floating sums (harmonic; float32 sums) added in the
	# vertices' order, not the run's positions: apsp-stats' bytes
	$g --grid 45x40 -w 1:1000 -s 27 -o "$T/g45"
	$g --grid 45x40 -w 1:1000 -s 27 -t float32 -o "$T/g45f"
	for f in g45 g45f; do
		expect_true "--stats $f, nested dissection on 32 bits: apsp-stats' bytes" \
			'$gpu --no-paths --order nd "$T/$f" -o "$T/r45.apm" && $s "$T/r45.apm" >"$T/a.tsv" &&
			 $gpu -v --stats --order nd "$T/$f" >"$T/b.tsv" 2>"$T/v" && grep -q "nested-dissection" "$T/v" &&
			 cmp -s "$T/a.tsv" "$T/b.tsv"'
	done
else
	skip "--stats grid, nested dissection" "no METIS in this build"
fi
$g -n 3000 -d 4 -s 26 -o "$T/big"
APSP_DEVICE_MEMORY=30000000 stats_gpu "out of core: folded on the host" "$T/big"
expect_true "-v: out of core, not on the device" 'grep -q "out of core" "$T/v" && ! grep -q "folded on the device" "$T/v"'
if [ "$(gpu_count)" -ge 2 ]; then
	stats_gpu "two GPUs" "$T/big" --gpus 2
	expect_true "-v: two GPUs" 'grep -q "2 x " "$T/v"'
	if command -v mpirun >/dev/null 2>&1 && ldd "$gpu" | grep -q libmpi; then
		export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
		# mpi_stats NAME GRAPH: the figures passed from process to process
		# on the devices, apsp-stats' on the same graph's result
		mpi_stats() {
			if NCCL_NVLS_ENABLE=0 timeout 120 mpirun -np 2 --oversubscribe --bind-to none \
			   $gpu -v --stats "$2" >"$T/m.tsv" 2>"$T/mv"; then
				$gpu "$2" | $s >"$T/a.tsv"
				same_stats "$1" "$T/a.tsv" "$T/m.tsv"
				expect_true "$1: -v says on the devices" \
					'grep -q "2 processes" "$T/mv" && grep -q "folded on the device" "$T/mv"'
			else
				fail "$1" "$(head -c 300 "$T/mv")"
			fi
		}
		mpi_stats "--stats under mpirun -np 2" "$T/big"
		$g -n 1500 -d 12 -t float32 -w 0.25:40 -s 27 -o "$T/fd" # (dense: a sparse run takes one)
		mpi_stats "--stats under mpirun, float32" "$T/fd"
		expect_true "--stats under mpirun, float32: apsp-stats' bytes" 'cmp -s "$T/a.tsv" "$T/m.tsv"'
		mpi_stats "--stats under mpirun, reweighted" "$T/n"
	else
		skip "--stats under mpirun" "mpirun not found or built without MPI"
	fi
else
	skip "--stats on two GPUs" "one GPU on this machine"
fi
# A negative cycle: status 3, nothing printed.
printf '%%%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 -3\n2 3 1\n3 1 1\n' | $BIN/mtx2bin -o "$T/cyc"
expect_stderr "--stats: negative cycle" 3 'negative cycle' '$gpu --stats "$T/cyc"'
