# apsp-gpu on several GPUs of one process (--gpus): the same distances and
# predecessors, entry for entry, as on one GPU, in every kind of run (16-bit
# lanes kept and rejected, derived, packed and tracked paths, float32,
# negative and zero weights, n not a multiple of B, fewer block rows than
# GPUs), and valid chains.  Without two GPUs (or NCCL) only the refusals are
# checked.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
g=$BIN/gengraph
d=$BIN/apsp-diff
x=$BIN/bin2mtx

need_gpu_build "apsp-gpu --gpus"
expect_true "apsp-gpu --help names --gpus" '$gpu --help | grep -q -- "--gpus N|all"'
expect_stderr "apsp-gpu --gpus 0" 2 "out of range" '$gpu --gpus 0 /dev/null'
expect_stderr "apsp-gpu --gpus 17" 2 "out of range" '$gpu --gpus 17 /dev/null'
expect_stderr "apsp-gpu --gpus x" 2 "not an integer" '$gpu --gpus x /dev/null'
need_gpu "apsp-gpu on several GPUs"
count=$(gpu_count)
$g -n 300 -d 10 -s 1 -o "$T/g"
if [ "$count" -lt 2 ]; then
	expect_stderr "--gpus 2 on one GPU: clear error" 2 "2 GPUs from device 0 asked for: 1 device found" \
		'$gpu --gpus 2 $T/g >/dev/null'
	skip "apsp-gpu on several GPUs" "one GPU on this machine"
	exit 0
fi
if $gpu --gpus 2 "$T/g" 2>&1 >/dev/null | grep -q "no NCCL"; then
	expect_stderr "--gpus 2 without NCCL: clear error" 2 "this build has no NCCL" \
		'$gpu --gpus 2 $T/g >/dev/null'
	skip "apsp-gpu on several GPUs" "built without NCCL"
	exit 0
fi

# says_gpus K ERR: -v in ERR says that K GPUs ran, or, where the graph has
# fewer block rows than K (n and B as -v gives them), one a block row and
# why; with ANY_GPUS=1, K GPUs or any number of K.  (One GPU's line names
# it without "1 x".)
says_gpus() {
	_line=$(grep -E '^apsp-gpu: .*: n [0-9]+, B [0-9]+,' "$2" | head -n 1)
	[ -n "$_line" ] || return 1
	if [ -n "${ANY_GPUS:-}" ]; then
		case $_line in "apsp-gpu: $1 x "* | *"GPU of $1"*) return 0 ;; esac
		return 1
	fi
	_rows=$(printf '%s\n' "$_line" | sed -n 's/.*: n \([0-9]*\), B \([0-9]*\),.*/\1 \2/p' |
		awk '{ print int(($1 + $2 - 1) / $2) }')
	[ -n "$_rows" ] || return 1
	if [ "$_rows" -ge "$1" ]; then
		case $_line in "apsp-gpu: $1 x "*) return 0 ;; esac
		return 1
	fi
	case $_line in *"($_rows GPU"*" of $1: fewer block rows than GPUs)"*) ;; *) return 1 ;; esac
	[ "$_rows" = 1 ] && return 0
	case $_line in "apsp-gpu: $_rows x "*) return 0 ;; esac
	return 1
}

# same NAME GRAPH [options]: --gpus 2 and --gpus $count give the one-GPU
# result's matrices byte for byte (the headers differ in their command
# lines), valid chains, and -v says that they all ran (any number with
# ANY_GPUS=1).  The graphs are dense (over 32 edges a vertex): sparse runs
# take one GPU.
same() {
	_name=$1 _graph=$2
	shift 2
	if ! $gpu --gpus 1 "$@" "$_graph" >"$T/one" 2>"$T/err"; then
		fail "$_name" "one GPU failed: $(head -c 300 "$T/err")"; return
	fi
	for _k in $(printf '2\n%s\n' $count | sort -u); do
		if ! $gpu --gpus $_k -v "$@" "$_graph" >"$T/many" 2>"$T/err"; then
			fail "$_name" "$_k GPUs failed: $(head -c 300 "$T/err")"; return
		fi
		for _m in dist pred; do
			$x --npy --$_m "$T/one" >"$T/one.$_m" 2>/dev/null
			$x --npy --$_m "$T/many" >"$T/many.$_m" 2>/dev/null
			if ! cmp -s "$T/one.$_m" "$T/many.$_m"; then
				fail "$_name" "$_k GPUs: the $_m matrix differs from one GPU's"; return
			fi
		done
		if ! says_gpus "$_k" "$T/err"; then
			fail "$_name" "-v does not say how many GPUs: $(head -c 300 "$T/err")"; return
		fi
	done
	case " $* " in
	*" --no-paths "*) ;;
	*) if ! $d -q --graph "$_graph" "$T/many" 2>/dev/null; then
		fail "$_name" "predecessors invalid on $count GPUs"; return
	fi ;;
	esac
	pass "$_name"
}

# A ring whose vertices reach the next 40 with weights 6000..6999: dense,
# yet its distances pass 32767, so 16-bit lanes are tried and rejected.
awk 'BEGIN { for (i = 0; i < 300; i++) for (j = 1; j <= 40; j++)
	print i, (i + j) % 300, 6000 + (i * 7 + j * 13) % 1000 }' | $BIN/mtx2bin -F edges -o "$T/ring"

i=0
for n in 131 300 1000; do
	dens=20
	[ $n -lt 200 ] && dens=50
	Bs=64
	[ $n = 300 ] && Bs="16 32 64 128"
	for B in $Bs; do
		i=$((i + 1))
		$g -n $n -d $dens -s $i -o "$T/g"
		same "int32 n=$n B=$B" "$T/g" -B $B
		same "int32 n=$n B=$B --no-paths" "$T/g" -B $B --no-paths
		same "int32 n=$n B=$B, tracked paths" "$T/g" -B $B --16bit --derive-paths never
		$g -n $n -d $dens -s $i -t float32 --negative -o "$T/g"
		same "float32 negative n=$n B=$B" "$T/g" -B $B
		same "float32 n=$n B=$B --no-paths" "$T/g" -B $B --no-paths
	done
	$g -n $n -d $dens -s $n -o "$T/g"
	same "int32 16-bit lanes, derived paths n=$n" "$T/g" --16bit
	same "int32 16-bit lanes n=$n --no-paths" "$T/g" --16bit --no-paths
	$g -n $n -d $dens -s $n -t float32 -o "$T/g"
	same "float32 derived paths n=$n" "$T/g" --derive-paths always
	same "float32 as bits n=$n --no-paths" "$T/g" --no-paths
	$g -n $n -d $dens -s $n -w 0:3 -o "$T/g"
	same "int32 zero weights, 16-bit lanes n=$n" "$T/g" --16bit
	same "int32 zero weights, tracked n=$n" "$T/g" --no-16bit
	$g -n $n -d $dens -s $n --negative -o "$T/g"
	same "int32 negative weights n=$n" "$T/g"
	$g -n $n -d $dens -s $n -w 1:100000 -o "$T/g"
	same "int32 weights too large to pack n=$n" "$T/g" --no-16bit
done
expect_true "the ring: 16-bit lanes rejected on 2 GPUs too" \
	'$gpu --gpus 2 -v --16bit --no-paths -B 64 $T/ring 2>&1 >/dev/null | grep -q "16-bit lanes rejected"'
same "int32 16-bit lanes rejected" "$T/ring" --16bit -B 64
same "int32 16-bit lanes rejected --no-paths" "$T/ring" --16bit --no-paths -B 64
$g -n 3000 -d 15 -s 9 -o "$T/g"
same "int32 n=3000 (16-bit lanes, derived)" "$T/g"
same "int32 n=3000 --no-paths" "$T/g" --no-paths
$g -n 2500 -d 15 -s 9 -t float32 -o "$T/g"
same "float32 n=2500 (derived)" "$T/g"

# Fewer block rows than GPUs, and sparse runs: one GPU, said so by -v.
$g -n 40 -d 95 -s 3 -o "$T/g"
ANY_GPUS=1 same "n=40 (one block row)" "$T/g" -B 64
expect_true "n=40 on 2 GPUs: -v says one was used" \
	'$gpu --gpus 2 -v -B 64 $T/g 2>&1 >/dev/null | grep -q "1 GPU of 2: fewer block rows than GPUs"'
$g --grid 20x20 -s 3 -o "$T/grid"
expect_true "a sparse run on 2 GPUs: -v says one was used" \
	'$gpu --gpus 2 -v --order natural $T/grid 2>&1 >/dev/null | grep -q "1 GPU of 2: sparse runs use one"'
ANY_GPUS=1 same "a sparse graph" "$T/grid"

if command -v compute-sanitizer >/dev/null 2>&1; then
	$g -n 300 -d 15 -s 4 -o "$T/g"
	# NCCL itself asks the runtime for kernels it has no image of for this
	# device and carries on: memcheck is told not to count those calls.
	for tool in memcheck racecheck; do
		api=
		[ $tool = memcheck ] && api="--report-api-errors no"
		sanitized "compute-sanitizer $tool, 2 GPUs, tracked paths" "$tool $api" $gpu --gpus 2 -B 64 --16bit --derive-paths never $T/g
		sanitized "compute-sanitizer $tool, 2 GPUs, 16-bit lanes, derived paths" "$tool $api" $gpu --gpus 2 --16bit $T/g
	done
else
	skip "compute-sanitizer on 2 GPUs" "compute-sanitizer not found"
fi

# Several processes (mpirun, one GPU each): the same matrices as one GPU;
# process 0 reads from a pipe and writes to one; a sparse run, a run too
# small to share and a negative cycle end well in every process.
if ! has_mpi; then
	skip "mpirun apsp-gpu" "no mpirun, or apsp-gpu built without MPI"
	exit 0
fi
$g -n 1000 -d 20 -s 11 -o "$T/g"
# matrices_equal A B: the same distances and predecessors (if any).
matrices_equal() {
	for _m in dist pred; do
		$x --npy --$_m "$1" >"$T/a.$_m" 2>/dev/null
		$x --npy --$_m "$2" >"$T/b.$_m" 2>/dev/null
		cmp -s "$T/a.$_m" "$T/b.$_m" || return 1
	done
}
for mode in "" "--no-paths" "--16bit --derive-paths never" "--no-16bit"; do
	$gpu --gpus 1 $mode "$T/g" >"$T/one" 2>/dev/null
	mpi $gpu -v $mode "$T/g" >"$T/many" 2>"$T/err"
	$x --npy --dist "$T/many" >"$T/d.many" 2>/dev/null
	$x --npy --dist "$T/one" >"$T/d.one" 2>/dev/null
	ok=1
	cmp -s "$T/d.one" "$T/d.many" || ok=0
	case "$mode" in
	*--no-paths*) ;;
	*) $x --npy --pred "$T/many" >"$T/p.many" 2>/dev/null
	   $x --npy --pred "$T/one" >"$T/p.one" 2>/dev/null
	   cmp -s "$T/p.one" "$T/p.many" || ok=0 ;;
	esac
	grep -q "2 processes x" "$T/err" || ok=0
	if [ $ok = 1 ]; then pass "mpirun -np 2 apsp-gpu $mode: one GPU's matrices"
	else fail "mpirun -np 2 apsp-gpu $mode: one GPU's matrices" "$(head -c 300 "$T/err")"; fi
done
# Each process its own rows: read from the file (or passed on by process 0
# from a pipe), compressed where they are, written in order by process 0:
# the result's bytes after the header are one GPU's.
body() { tail -c +$(($(od -An -tu4 -j12 -N4 "$1") + 1)) "$1"; }
same_body() { body "$1" >"$T/body.a"; body "$2" >"$T/body.b"; cmp -s "$T/body.a" "$T/body.b"; }
$g -n 1000 -d 20 -s 11 -o "$T/g"
for mode in "" "--no-paths" "--no-16bit" "-B 64 --no-paths"; do
	$gpu --gpus 1 $mode "$T/g" >"$T/one" 2>/dev/null
	expect_true "mpirun -np 2 $mode, each process its own rows: one GPU's bytes" \
		'mpi $gpu -v $mode $T/g 2>$T/err >$T/many && grep -q "each process its own rows" $T/err && same_body $T/one $T/many'
done
$gpu --gpus 1 "$T/g" >"$T/one" 2>/dev/null
expect_true "mpirun -np 2 from a pipe, rows passed on by process 0: one GPU's bytes" \
	'cat $T/g | mpi $gpu -v 2>$T/err >$T/many && grep -q "each process its own rows" $T/err && same_body $T/one $T/many'
$gpu --gpus 1 -o "$T/one" "$T/g" 2>/dev/null
expect_true "mpirun -np 2 -o FILE, each process its own rows: one GPU's bytes" \
	'mpi $gpu -o $T/many $T/g && same_body $T/one $T/many'
$g -n 1500 -d 30 -s 14 -o "$T/g4"
$gpu --gpus 1 "$T/g4" >"$T/one" 2>/dev/null
expect_true "mpirun -np $count (every GPU), n not a multiple of B: one GPU's bytes" \
	'timeout 120 mpirun -np $count --oversubscribe --bind-to none $gpu -v $T/g4 2>$T/err >$T/many && grep -q "each process its own rows" $T/err && same_body $T/one $T/many'
# Two processes given every core (--bind-to none) share them: half each;
# -T still sets the count.
half=$(( $(nproc) / 2 )); [ "$half" -ge 1 ] || half=1
expect_true "mpirun -np 2 --bind-to none: the cores shared, $half threads a process" \
	'mpi $gpu -v -o /dev/null $T/g4 2>$T/err && grep -q "; $half threads a process" $T/err'
expect_true "mpirun -np 2 -T 3: 3 threads a process" \
	'mpi $gpu -v -T 3 -o /dev/null $T/g4 2>$T/err && grep -q "; 3 threads a process" $T/err'
$gpu --gpus 1 --stats "$T/g4" >"$T/one" 2>/dev/null
expect_true "mpirun -np 2 --stats, each process its own rows: one GPU's table" \
	'mpi $gpu -v --stats $T/g4 2>$T/err >$T/many && grep -q "each process its own rows" $T/err && cmp -s $T/one $T/many'
# Host memory capped at 60% of one matrix (APSP_HOST_MEMORY, every process):
# one process is refused, two without paths hold half each and finish.
cap=$((1500 * 1500 * 4 * 6 / 10))
$gpu --gpus 1 --no-paths "$T/g4" >"$T/one" 2>/dev/null
expect_stderr "one process, host memory capped at 60% of a matrix: refused" 2 "needs" \
	'APSP_HOST_MEMORY=$cap $gpu --gpus 1 --no-paths $T/g4 >/dev/null'
expect_true "mpirun -np 2 --no-paths, each capped at 60% of a matrix: one GPU's bytes" \
	'APSP_HOST_MEMORY=$cap mpi $gpu --no-paths $T/g4 >$T/many && same_body $T/one $T/many'
expect_stderr "mpirun -np 2 with paths, capped at 60%: each process's need said" 2 "its [0-9]+ rows: n = 1500 needs" \
	'APSP_HOST_MEMORY=$cap mpi $gpu $T/g4 >/dev/null'
# Checkpoints shared by the processes: each compresses its rows of the
# state, process 0 writes the file; killed at a checkpoint or while
# writing one and resumed under mpirun, or by one process: one GPU's bytes.
$gpu --gpus 1 -B 64 "$T/g4" >"$T/one" 2>/dev/null
for k in after:3 during:5; do
	rm -f "$T"/ck*
	expect_true "mpirun -np 2 --checkpoint killed $k, resumed under mpirun: one GPU's bytes" \
		'! APSP_CHECKPOINT_KILL=$k mpi $gpu -B 64 --checkpoint $T/ck --checkpoint-every 0 $T/g4 >/dev/null 2>&1 &&
		 mpi $gpu -v -B 64 --checkpoint $T/ck --resume $T/ck $T/g4 >$T/many 2>$T/err &&
		 grep -Eq "the rounds from step [1-9]" $T/err && same_body $T/one $T/many && ! ls $T/ck* 2>/dev/null'
done
rm -f "$T"/ck*
expect_true "mpirun -np 2 checkpoint resumed by one process: one GPU's bytes" \
	'! APSP_CHECKPOINT_KILL=after:4 mpi $gpu -B 64 --checkpoint $T/ck --checkpoint-every 0 $T/g4 >/dev/null 2>&1 &&
	 $gpu -v --gpus 1 -B 64 --resume $T/ck $T/g4 >$T/many 2>$T/err &&
	 grep -q "the rounds from step 4" $T/err && same_body $T/one $T/many'
$gpu --gpus 1 -B 64 --no-paths "$T/g4" >"$T/one" 2>/dev/null
rm -f "$T"/ck*
expect_true "one process's checkpoint resumed under mpirun -np 2 --no-paths: one GPU's bytes" \
	'! APSP_CHECKPOINT_KILL=after:6 $gpu --gpus 1 -B 64 --no-paths --checkpoint $T/ck --checkpoint-every 0 $T/g4 >/dev/null 2>&1 &&
	 mpi $gpu -v -B 64 --no-paths --resume $T/ck $T/g4 >$T/many 2>$T/err &&
	 grep -q "the rounds from step 6" $T/err && same_body $T/one $T/many'
rm -f "$T"/ck*
$g -n 1500 -d 30 -s 15 -o "$T/g5"
APSP_CHECKPOINT_KILL=after:2 mpi $gpu -B 64 --checkpoint "$T/ck" --checkpoint-every 0 "$T/g4" >/dev/null 2>&1
expect_stderr "mpirun -np 2 --resume, the checkpoint of another graph: refused" 2 "checkpoint of another run" \
	'mpi $gpu -B 64 --resume $T/ck $T/g5 >/dev/null'
rm -f "$T"/ck*
$g -n 1000 -d 20 -s 12 -t float32 -o "$T/gf1"
expect_stderr "mpirun -np 2 --checkpoint where the rows cannot stay: refused" 2 "need each process's rows to stay" \
	'mpi $gpu --checkpoint $T/ck --checkpoint-every 0 $T/gf1 >/dev/null'
# Where the rows cannot stay (float32 paths, weights of 0 or below 0), they
# are gathered on process 0, which says why.
for kind in zero below padded; do
	case $kind in
	zero) opt="-w 0:5" ;;
	below) opt="--negative" ;;
	padded) opt="-B 128" ;;
	esac
	$g -n 1000 -d 20 -s 15 $opt -o "$T/gw"
	$gpu --gpus 1 "$T/gw" >"$T/one" 2>/dev/null
	if [ $kind = padded ]; then
		expect_true "mpirun -np 2, a stream padded to 128: each process its own rows, one GPU's bytes" \
			'mpi $gpu -v $T/gw 2>$T/err >$T/many && grep -q "each process its own rows" $T/err && same_body $T/one $T/many'
		expect_true "mpirun -np 2, a stream padded to 128 from a pipe: one GPU's bytes" \
			'cat $T/gw | mpi $gpu -v 2>$T/err >$T/many && grep -q "each process its own rows" $T/err && same_body $T/one $T/many'
	else
		expect_true "mpirun -np 2, weights of 0 or below 0 ($opt) with paths: gathered on process 0, one GPU's matrices" \
			'mpi $gpu -v $T/gw 2>$T/err >$T/many && grep -q "gathered on process 0" $T/err && matrices_equal $T/one $T/many'
	fi
done
$g -n 1000 -d 20 -s 11 -o "$T/g"
$g -n 2500 -d 15 -s 12 -t float32 -o "$T/gf"
$gpu --gpus 1 "$T/gf" >"$T/one"
expect_true "mpirun -np 2, float32 with paths: gathered on process 0, one GPU's matrices" \
	'mpi $gpu -v "$T/gf" 2>$T/err >"$T/many" && matrices_equal $T/one $T/many && grep -q "gathered on process 0: float32" $T/err'
$gpu --gpus 1 --no-paths "$T/gf" >"$T/one"
expect_true "mpirun -np 2, float32 without paths: each process its own rows, one GPU's bytes" \
	'mpi $gpu -v --no-paths "$T/gf" 2>$T/err >"$T/many" && grep -q "each process its own rows" $T/err && same_body $T/one $T/many'
expect_true "mpirun -np 2 in a pipe" \
	'$g -n 700 -d 20 -s 13 | mpi $gpu | $BIN/apsp-path 3 17 | grep -q "^3"'
$g --grid 20x20 -s 3 -o "$T/grid"
expect_true "mpirun -np 2, a sparse graph: process 0 alone, said by -v" \
	'mpi $gpu -v $T/grid 2>&1 >$T/many | grep -q "process 0 alone of 2: sparse runs use one" && $d -q --graph $T/grid $T/many'
# float64: the processes share the rounds (process 0 holds the graph and
# makes the textbook predecessors), the same bytes as one process, with
# and without paths, the statistics folded process by process; a sparse
# one and one with checkpoints solved by process 0 alone, checkpoints as
# one process's, resumed under mpirun or alone.
$g -n 700 -d 8 -t float64 -w 0.01:5 -s 21 -o "$T/g64"
$gpu --gpus 1 -o "$T/one" "$T/g64" 2>/dev/null
expect_true "mpirun -np 2, float64: the rounds shared, one process's bytes" \
	'mpi $gpu -v -o $T/many $T/g64 2>$T/err && grep -q "float64, paths.*2 processes x" $T/err && ! grep -q "alone" $T/err && same_body $T/one $T/many'
$gpu --gpus 1 --no-paths -o "$T/one" "$T/g64" 2>/dev/null
expect_true "mpirun -np 2 --no-paths, float64: the rounds shared, one process's bytes" \
	'mpi $gpu -v --no-paths -o $T/many $T/g64 2>$T/err && grep -q "2 processes x" $T/err && same_body $T/one $T/many'
$gpu --gpus 1 --stats "$T/g64" >"$T/one.tsv" 2>/dev/null
expect_true "mpirun -np 2 --stats, float64: one process's table, folded on the devices" \
	'mpi $gpu -v --stats $T/g64 2>$T/err >$T/many.tsv && grep -q "2 processes x.*folded on the device" $T/err && cmp -s $T/one.tsv $T/many.tsv'
$g --grid 20x20 -t float64 -w 0.5:3 -s 3 -o "$T/grid64"
expect_true "mpirun -np 2, a sparse float64 graph: process 0 alone, said by -v" \
	'mpi $gpu -v $T/grid64 2>&1 >$T/many | grep -q "float64: process 0 alone of 2, on one GPU (sparse runs use one)" && $d -q --graph $T/grid64 $T/many'
rm -f "$T"/ck*
$gpu --gpus 1 -o "$T/one" "$T/g64" 2>/dev/null
expect_true "mpirun -np 2 --checkpoint, float64 killed after a step, resumed under mpirun: one process's bytes" \
	'! APSP_CHECKPOINT_KILL=after:3 mpi $gpu --checkpoint $T/ck --checkpoint-every 0 $T/g64 >/dev/null 2>&1 &&
	 mpi $gpu -v --resume $T/ck -o $T/many $T/g64 2>$T/err &&
	 grep -q "going on from round [1-9]" $T/err && same_body $T/one $T/many'
rm -f "$T"/ck*
$g -n 40 -d 95 -s 3 -o "$T/g"
expect_true "mpirun -np 2, one block row: process 0 alone" \
	'mpi $gpu -v -B 64 $T/g 2>&1 >/dev/null | grep -q "process 0 alone of 2: fewer block rows"'
printf '0 1 -5\n1 0 2\n1 2 1\n' | $BIN/mtx2bin -F edges -o "$T/neg"
expect_status "mpirun -np 2, a negative cycle: exit 3" 3 'mpi $gpu $T/neg >/dev/null 2>&1'
expect_status "mpirun -np 2 --gpus 2: usage error" 2 'mpi $gpu --gpus 2 $T/g >/dev/null 2>&1'
