# apsp-gpu against apsp-cpu (itself checked against an independent oracle in
# tests/cmd/apsp-cpu.sh) on the same kinds of graphs: negative and zero
# weights, zero-weight cycles, disconnected parts, n = 1, 2, primes, n not a
# multiple of B, every B, int32 and float32, with and without paths; every
# predecessor matrix must pass apsp-diff --graph.  Without a GPU these are
# counted as skipped (and the tool must say clearly that there is none).
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
c=$BIN/apsp-cpu
g=$BIN/gengraph

need_gpu_build "apsp-gpu"
expect_true "help" '$gpu --help | grep -q "^Usage: apsp-gpu"'
expect_stderr "bad -B" 2 'must be 16, 32, 64 or 128' '$gpu -B 48 </dev/null'
if ! has_gpu; then
	$g -n 5 -d 50 -o "$T/g"
	expect_stderr "no GPU: clear error, exit 2" 2 '^apsp-gpu: .*(CUDA|device|driver)' '$gpu $T/g >/dev/null'
	if ! ls /usr/lib/x86_64-linux-gnu/libcuda.so* /usr/lib64/libcuda.so* >/dev/null 2>&1; then
		expect_stderr "no driver: says so" 2 '^apsp-gpu: no NVIDIA driver was found' '$gpu $T/g >/dev/null'
	fi
	skip "apsp-gpu against apsp-cpu" "no GPU on this machine"
	skip "apsp-gpu negative cycles" "no GPU on this machine"
	skip "apsp-gpu compute-sanitizer" "no GPU on this machine"
	exit 0
fi

# check NAME GRAPH TOL [options]: apsp-cpu's distances, valid chains (tests/lib.sh).
check() { gpu_check "$@"; }

i=0
for n in 1 2 3 17 97 131 300; do
	for B in 16 32 64 128; do
		i=$((i + 1))
		$g -n $n -d 20 -s $i -o "$T/g"
		check "int32 n=$n B=$B" "$T/g" 0 -B $B
		check "int32 n=$n B=$B --no-paths" "$T/g" 0 -B $B --no-paths
		$g -n $n -d 20 -s $i --negative -o "$T/g"
		check "int32 negative n=$n B=$B" "$T/g" 0 -B $B
		$g -n $n -d 30 -s $i -t float32 --negative -o "$T/g"
		check "float32 negative n=$n B=$B" "$T/g" 1e-4 -B $B
		check "float32 negative n=$n B=$B --no-paths" "$T/g" 1e-4 -B $B --no-paths
	done
	$g -n $n -d 25 -s $n -w 0:3 -o "$T/g"
	check "int32 zero weights and zero cycles n=$n" "$T/g" 0
	$g -n $n -d 3 -s $n -o "$T/g"
	check "int32 sparse, disconnected n=$n" "$T/g" 0 -B 32
done
# Ties everywhere (zero-weight cycles, few distinct weights): the blocked
# order may pick predecessors that point at each other; the chains that
# come back must still all reach their sources.
for s in 1 2 3 4 5 6; do
	for B in 16 64; do
		$g -n 97 -d 30 -s $s -w 0:9 -o "$T/g"
		check "int32 ties, weights 0..9, seed $s, B=$B" "$T/g" 0 -B $B
	done
	$g -n 120 -d 30 -s $s -t float32 --negative -w 0:2 -o "$T/g"
	check "float32 ties, seed $s" "$T/g" 1e-4 -B 32
done
$g -n 200 -d 20 -s 5 -w 0:0 -o "$T/g"
check "int32 every weight 0" "$T/g" 0 -B 64
check "int32 every weight 0, predecessors derived" "$T/g" 0 --16bit

# Paths from 16-bit distances: predecessors derived from the distances and
# the edges into each vertex (--16bit forces it below n = 1500), then the
# chains re-attached where zero-weight cycles tie them in loops.
for s in 1 2 3; do
	$g -n 97 -d 30 -s $s -w 0:9 -o "$T/g"
	check "derived predecessors, ties, weights 0..9, seed $s" "$T/g" 0 --16bit -B 64
	$g -n 300 -d 15 -s $s --negative -o "$T/g"
	check "derived predecessors, negative edges, seed $s" "$T/g" 0 --16bit -B 128
	$g -n 131 -d 3 -s $s -w 0:3 -o "$T/g"
	check "derived predecessors, sparse, zero weights, seed $s" "$T/g" 0 --16bit
done
$g -n 400 -d 1 -s 12 -w 4000:8000 -o "$T/g"
check "derived predecessors rejected with the 16-bit distances" "$T/g" 0 -B 64 --16bit
$g -n 2100 -d 10 -s 14 -w 1:100 -o "$T/g"
expect_stderr "n = 2100 with paths: predecessors derived" 0 'n 2100, B 64, int32, paths, 16-bit lanes, predecessors derived' \
	'$gpu -v $T/g >/dev/null'
check "int32 n = 2100 with paths, derived" "$T/g" 0
expect_stderr "--derive-paths never: predecessors tracked" 0 'n 2100, B 64, int32, paths, packed, natural' \
	'$gpu -v --derive-paths never $T/g >/dev/null'
check "int32 n = 2100, --derive-paths never" "$T/g" 0 --derive-paths never
expect_stderr "--derive-paths bad" 2 "is not auto, always or never" '$gpu --derive-paths maybe $T/g'
# Where 16-bit lanes start with paths: n = 1500 derives, 1499 tracks them.
$g -n 1500 -d 10 -s 16 -w 0:20 -o "$T/g"
expect_stderr "n = 1500 with paths: predecessors derived" 0 'n 1500, B 64, int32, paths, 16-bit lanes, predecessors derived' \
	'$gpu -v $T/g >/dev/null'
check "int32 n = 1500 with paths, derived, zero weights" "$T/g" 0
$g -n 1499 -d 10 -s 16 -o "$T/g"
expect_stderr "n = 1499 with paths: packed on 32 bits" 0 'n 1499, B 32, int32, paths, packed' \
	'$gpu -v $T/g >/dev/null'
# Lists longer than one CTA sorts in shared memory (4096 edges into a
# vertex): the general segmented sort, the same predecessors' rules.
$g -n 4200 -d 100 -s 17 -w 1:9 -o "$T/g"
check "derived predecessors, 4199 edges into each vertex" "$T/g" 0
# float32: distances on the plain kernel, predecessors derived (the closest
# edge where rounding leaves none exact); not with negative weights.
for s in 1 2 3; do
	$g -n 150 -d 20 -s $s -t float32 -o "$T/g"
	check "float32 derived predecessors, seed $s" "$T/g" 1e-4 --derive-paths always -B 64
	$g -n 120 -d 30 -s $s -t float32 -w 0:2 -o "$T/g"
	check "float32 derived predecessors, ties and zeros, seed $s" "$T/g" 1e-4 --derive-paths always -B 32
done
$g -n 150 -d 20 -s 4 -t float32 -o "$T/g"
expect_stderr "float32 --derive-paths always said" 0 'float32, paths, as bits, predecessors derived' \
	'$gpu -v --derive-paths always $T/g >/dev/null'
$g -n 150 -d 20 -s 4 -t float32 --negative -o "$T/g"
expect_stderr "float32 with negative weights: predecessors tracked" 0 'float32, paths, plain, natural' \
	'$gpu -v --derive-paths always $T/g >/dev/null'
check "float32 negative weights, --derive-paths always (tracked)" "$T/g" 1e-4 --derive-paths always
$g -n 2100 -d 10 -s 15 -t float32 -o "$T/g"
expect_stderr "float32 n = 2100 with paths: predecessors derived" 0 'float32, paths, as bits, predecessors derived' \
	'$gpu -v $T/g >/dev/null'
check "float32 n = 2100 with paths, derived" "$T/g" 1e-4
# float32 where no entry has its sign bit set: relaxed as the bits of the
# values (an integer min of float sums), the same bytes as relaxed as floats.
for n in 97 300; do
	for B in 16 32 64 128; do
		$g -n $n -d 30 -s $((n + B)) -t float32 -o "$T/g"
		check "float32 as bits n=$n B=$B --no-paths" "$T/g" 1e-4 -B $B --no-paths
		check "float32 as bits n=$n B=$B, paths derived" "$T/g" 1e-4 -B $B --derive-paths always
		expect_true "float32 as bits or as floats, the same bytes: n=$n B=$B" \
			'$gpu -B $B --no-paths -o $T/fb $T/g && mv $T/fb $T/fb1 &&
			APSP_FLOAT_BITS=never $gpu -B $B --no-paths -o $T/fb $T/g && cmp $T/fb $T/fb1'
	done
done
$g -n 120 -d 30 -s 3 -t float32 -w 0:2 -o "$T/g"
check "float32 as bits, zero weights and ties" "$T/g" 1e-4 -B 64 --no-paths
expect_stderr "-v: float32 distances as bits" 0 'float32, as bits' '$gpu -v --no-paths $T/g >/dev/null'
expect_stderr "-v: float32 as floats where asked" 0 'float32, plain' \
	'APSP_FLOAT_BITS=never $gpu -v --no-paths $T/g >/dev/null'
$g -n 120 -d 30 -s 3 -t float32 --negative -o "$T/g"
expect_stderr "-v: float32 with a negative weight, as floats" 0 'float32, plain' \
	'$gpu -v --no-paths $T/g >/dev/null'
# A weight of -0 (the library takes one; the tools' readers make it +0):
# its bits would order first, so the engine relaxes as floats.
expect_true "float32 with -0 weights: as floats, right" \
	'$BIN/fw-kernel-bench -n 300 -t float32 -r 0 -B 64 --check --negative-zeros >$T/kb &&
	grep -q " plain " $T/kb && grep -q "^check: 0 wrong distances, 0 bad" $T/kb &&
	$BIN/fw-kernel-bench -n 300 -t float32 -r 0 -B 64 --check >$T/kb &&
	grep -q " bits " $T/kb && grep -q "^check: 0 wrong distances, 0 bad" $T/kb'
# The warm-up before a run with paths (the run's kernels once on a small
# graph while the input is read): reported by -v, and the result is the
# same bytes as without it (the same command line: the provenance is argv), in 16-bit lanes (derived), on 32 bits (tracked)
# and in float32.
for opts in "" "--derive-paths never" "-t float32"; do
	case $opts in -t*) gopts=$opts run= ;; *) gopts= run=$opts ;; esac
	# shellcheck disable=SC2086
	$g -n 2100 -d 10 -s 4 $gopts -o "$T/g"
	expect_true "warm-up with paths ${opts:-(16-bit lanes)}: reported, same bytes as without" \
		'$gpu -v $run $T/g >$T/w1 2>$T/v1 && APSP_WARM=0 $gpu -v $run $T/g >$T/w0 2>$T/v0 &&
		cmp $T/w1 $T/w0 && grep -q "(warm-up 0\.[0-9]*[1-9][0-9]* s)" $T/v1 &&
		grep -q "(warm-up 0\.000 s)" $T/v0'
done
expect_stderr "no warm-up without paths" 0 '\(warm-up 0\.000 s\)' '$gpu -v --no-paths -o $T/w0 $T/g'
expect_true "fw-kernel-bench --warm: a first run like the others, right" \
	'$BIN/fw-kernel-bench -n 300 -p -r 1 --warm --check >$T/kb &&
	grep -q "first run" $T/kb && grep -q "^check: 0 wrong distances, 0 bad" $T/kb'
$g -n 70 -d 10 -s 9 -B 32 -o "$T/g"
check "int32 padded input stream (npad > n)" "$T/g" 0
# Weights too large for the packed (distance, k) form: the plain path.
$g -n 200 -d 20 -s 7 -w 100000:1000000 -o "$T/g"
check "int32 large weights (unpacked paths)" "$T/g" 0 -B 128
$g -n 1500 -d 5 -s 8 --negative -o "$T/g"
check "int32 negative n=1500 (many rounds)" "$T/g" 0

# Distances only: 16-bit lanes when the distances are small, and a rerun on
# 32 bits when a distance comes too close to the 16-bit limit.
$g -n 500 -d 10 -s 11 -o "$T/g"
check "int32 --no-paths, 16-bit lanes" "$T/g" 0 --no-paths -B 128 --16bit
expect_stderr "small distances use 16-bit lanes (--16bit)" 0 '16-bit lanes' '$gpu -v --16bit --no-paths $T/g >/dev/null'
expect_stderr "n = 500: 32 bits and B = 64 chosen" 0 'n 500, B 64, int32, plain' '$gpu -v --no-paths $T/g >/dev/null'
expect_stderr "n = 500 with paths: B = 32 chosen" 0 'n 500, B 32, int32, paths, packed' '$gpu -v $T/g >/dev/null'
expect_stderr "-B overrides the choice" 0 'n 500, B 128, int32, paths' '$gpu -v -B 128 $T/g >/dev/null'
$g -n 2100 -d 10 -s 14 -o "$T/g2100"
expect_stderr "n = 2100: 16-bit lanes and B = 64 chosen" 0 'n 2100, B 64, int32, 16-bit lanes' '$gpu -v --no-paths $T/g2100 >/dev/null'
$g -n 2000 -d 10 -s 15 -o "$T/g2000"
expect_stderr "n = 2000: 16-bit lanes for distances alone" 0 'n 2000, B 64, int32, 16-bit lanes' '$gpu -v --no-paths $T/g2000 >/dev/null'
expect_stderr "n = 2000 with paths: 16-bit lanes, predecessors derived, B = 64" 0 'n 2000, B 64, int32, paths, 16-bit lanes, predecessors derived' '$gpu -v $T/g2000 >/dev/null'
expect_stderr "n = 2000 with paths, --no-16bit: packed on 32 bits, B = 32" 0 'n 2000, B 32, int32, paths, packed' '$gpu -v --no-16bit $T/g2000 >/dev/null'
$g -n 1999 -d 10 -s 15 -o "$T/g1999"
expect_stderr "n = 1999: 32 bits" 0 'n 1999, B 64, int32, plain' '$gpu -v --no-paths $T/g1999 >/dev/null'
check "int32 n = 2100 --no-paths, chosen lanes and blocking factor" "$T/g2100" 0 --no-paths
check "int32 --no-paths --no-16bit" "$T/g" 0 --no-paths --no-16bit -B 64
$g -n 400 -d 1 -s 12 -w 4000:8000 -o "$T/g"
check "int32 --no-paths, distances past the 16-bit limit" "$T/g" 0 --no-paths -B 64 --16bit
expect_stderr "past the 16-bit limit: 16-bit result rejected" 0 'rejected' '$gpu -v -B 64 --16bit --no-paths $T/g >/dev/null'
$g -n 300 -d 15 -s 13 --negative -o "$T/g"
check "int32 negative --no-paths (16-bit lanes after reweighting)" "$T/g" 0 --no-paths --16bit
# The lanes are unsigned: a ring of weight 100 has distances to 29900, past
# 16383 and below 32767 less the weight, and stays in them.
awk 'BEGIN { for (i = 0; i < 300; i++) print i, (i + 1) % 300, 100 }' |
	$BIN/mtx2bin -F edges -o "$T/ring100"
check "int32 --no-paths, distances to 29900 in 16-bit lanes" "$T/ring100" 0 --no-paths --16bit -B 64
check "int32 paths derived, distances to 29900" "$T/ring100" 0 --16bit -B 64
expect_stderr "distances to 29900: the 16-bit lanes stand" 0 'int32, 16-bit lanes' \
	'$gpu -v --16bit --no-paths -B 64 $T/ring100 >/dev/null'

printf '0 1 2\n1 2 -3\n2 0 0\n2 3 1\n' >"$T/neg.txt"
"$BIN/mtx2bin" -F edges "$T/neg.txt" >"$T/neg"
expect_stderr "negative cycle: exit 3" 3 '^apsp-gpu: .*/neg: the graph has a negative cycle through vertex [0-2]$' '$gpu $T/neg >/dev/null'
expect_stderr "device that does not exist" 2 'device 99 does not exist' '$gpu -d 99 $T/g >/dev/null'
# A device too small for the graph: tests/gpu/outcore.sh.
# The process the shell waits for ends when the result is committed; the
# device's teardown goes on in a child that nobody waits for.
expect_true "detached: the result is whole when the command returns" \
	'$gpu -o $T/det $T/g && "$BIN/apsp-diff" -q --graph $T/g $T/det && cp $T/det $T/det1 &&
	$gpu $T/g >$T/det2 && "$BIN/apsp-diff" -q $T/det1 $T/det2'
expect_true "APSP_DETACH=0: the same bytes from one process" 'APSP_DETACH=0 $gpu -o $T/det $T/g && cmp $T/det $T/det1'
# Into a pipe the spooled predecessors go by reference (vmsplice): read after
# apsp-gpu has ended, and read as they come, they are the bytes of a file.
# (The same command line each time: it is in the stream's provenance.)
expect_true "through a pipe read after apsp-gpu has ended: the bytes of a file" \
	'$gpu $T/g | { sleep 1; cat; } >$T/det3 && cmp $T/det3 $T/det2'
expect_true "n = 2100 with paths through a pipe: the bytes of a file" \
	'$gpu $T/g2100 >$T/p2100a && $gpu $T/g2100 | cat >$T/p2100b && cmp $T/p2100a $T/p2100b &&
	"$BIN/apsp-path" 5 17 <$T/p2100b >$T/path1 && "$BIN/apsp-path" -i $T/p2100a 5 17 >$T/path2 && cmp $T/path1 $T/path2'
expect_true "killed part-way: no output file, no temporary file, no process left" \
	'mkdir $T/kill && $g -n 6000 -d 10 -s 3 -o $T/kill/big && { $gpu -T 1 -z 9 $T/kill/big -o $T/kill/r & p=$!; } &&
	sleep 0.5; kill -TERM $p; wait $p; rc=$?; sleep 0.3; [ $rc -ne 0 ] && [ "$(ls -A $T/kill)" = big ] &&
	! pgrep -f "apsp-gpu -T 1 -z 9 $T/kill/big" >/dev/null'
expect_true "provenance appended" '$gpu $T/g | "$BIN/bin2mtx" | grep -q "ID:apsp-gpu"'

# Phase 1 after round 0 runs where phase 3 closes the next pivot block (in
# its registers or its shared memory) or in a launch of its own: the same
# results every way.
$g -n 700 -d 20 -s 5 --negative -o "$T/p1g"
$g -n 700 -d 20 -s 6 -o "$T/p1h"
$g -n 700 -d 30 -s 5 -t float32 --negative -o "$T/p1f"
for w in apart registers shared; do
	export APSP_PHASE1=$w
	check "phase 1 $w: int32, 32 bits" "$T/p1g" 0 -B 64 --no-16bit
	check "phase 1 $w: int32, 32 bits, B = 128" "$T/p1g" 0 -B 128 --no-16bit --no-paths
	check "phase 1 $w: int32, 16-bit lanes" "$T/p1h" 0 -B 64 --16bit --no-paths
	check "phase 1 $w: int32 paths, B = 32" "$T/p1g" 0 -B 32
	check "phase 1 $w: float32" "$T/p1f" 1e-4 -B 64
	unset APSP_PHASE1
done
expect_true "-v says where phase 1 ran" \
	'APSP_PHASE1=shared $gpu -v -B 64 --no-16bit --no-paths $T/p1g 2>&1 >/dev/null | grep -q "phase 1 in phase 3.s shared memory" &&
	APSP_PHASE1=apart $gpu -v -B 64 --no-16bit --no-paths $T/p1g 2>&1 >/dev/null | grep -q "phase 1 apart" &&
	$gpu -v -B 64 --no-16bit --no-paths $T/p1g 2>&1 >/dev/null | grep -q "phase 1 in phase 3.s registers"'

# Lookahead (one GPU, more than two block rows): each round's phase 3 in two
# parts, the next round's phases 1 and 2 beside the second.  The same
# updates in the same order within each block: the same bytes without it.
for m in "-B 64 --no-16bit" "-B 128 --no-16bit --no-paths" "-B 64 --16bit --no-paths" "-B 32" "-B 16 --no-paths" "-B 64 --16bit"; do
	expect_true "lookahead or not, the same bytes: int32 $m" \
		'$gpu $m -o $T/la $T/p1g && mv $T/la $T/la1 && APSP_LOOKAHEAD=never $gpu $m -o $T/la $T/p1g && cmp $T/la $T/la1'
done
for m in "-B 64" "-B 32 --no-paths"; do
	expect_true "lookahead or not, the same bytes: float32 $m" \
		'$gpu $m -o $T/la $T/p1f && mv $T/la $T/la1 && APSP_LOOKAHEAD=never $gpu $m -o $T/la $T/p1f && cmp $T/la $T/la1'
done
expect_true "lookahead or not, the same bytes: phase 1 apart" \
	'APSP_PHASE1=apart $gpu -B 64 --no-16bit -o $T/la $T/p1g && mv $T/la $T/la1 &&
	APSP_PHASE1=apart APSP_LOOKAHEAD=never $gpu -B 64 --no-16bit -o $T/la $T/p1g && cmp $T/la $T/la1'
$g -n 128 -d 20 -s 4 -o "$T/two"
# n = 700 at B = 64: 121 blocks in phase 3, under three waves on any GPU
# of 41 SMs or more, so phase 2 runs in the kernels of twice the registers.
expect_true "-v says when the rounds ran with lookahead" \
	'$gpu -v -B 64 --no-16bit --no-paths $T/p1g 2>&1 >/dev/null | grep -q "phase 1 in phase 3.s registers; lookahead, phase 2 and the next round.s row and column with twice the registers$" &&
	APSP_LOOKAHEAD=never $gpu -v -B 64 --no-16bit --no-paths $T/p1g 2>&1 >/dev/null | grep -q "phase 1 in phase 3.s registers; phase 2 with twice the registers$" &&
	! $gpu -v -B 64 --no-16bit --no-paths $T/two 2>&1 >/dev/null | grep -q "lookahead"'
# n = 4000 at B = 64: 3969 blocks, more than three waves of the resident
# thread blocks on an H100 or H200 (132 SMs); 16-bit lanes take none.
$g -n 4000 -d 2 -s 6 -o "$T/g4k"
expect_true "-v says where phase 2 took twice the registers, and where not" \
	'! $gpu -v -B 64 --no-16bit --no-paths $T/g4k 2>&1 >/dev/null | grep -q "twice the registers" &&
	! $gpu -v -B 64 --16bit --no-paths $T/p1h 2>&1 >/dev/null | grep -q "twice the registers" &&
	$gpu -v -B 64 --no-16bit $T/p1g 2>&1 >/dev/null | grep -q "twice the registers$"'
check "two block rows: no lookahead" "$T/two" 0 -B 64

if command -v compute-sanitizer >/dev/null 2>&1; then
	$g -n 150 -d 20 -s 3 --negative -o "$T/g"
	for w in registers shared; do
		expect_true "compute-sanitizer memcheck and racecheck clean, phase 1 in $w" \
			'for t in memcheck racecheck; do APSP_PHASE1=$w APSP_DETACH=0 compute-sanitizer --error-exitcode 9 --tool $t $gpu -B 64 --no-16bit --no-paths $T/g >/dev/null || exit 1; done'
	done
	$g -n 300 -d 20 -s 7 -o "$T/g16"
	expect_true "compute-sanitizer racecheck clean, 16-bit lanes" \
		'APSP_DETACH=0 compute-sanitizer --error-exitcode 9 --tool racecheck $gpu -B 64 --16bit --no-paths $T/g16 >/dev/null' 
	for m in "" --no-paths; do
		expect_true "compute-sanitizer memcheck clean ${m:-paths}" \
			'APSP_DETACH=0 compute-sanitizer --error-exitcode 9 --tool memcheck $gpu -B 64 $m $T/g >/dev/null'
	done
	expect_true "compute-sanitizer memcheck clean, predecessors derived" \
		'APSP_DETACH=0 compute-sanitizer --error-exitcode 9 --tool memcheck $gpu --16bit $T/g >/dev/null'
	expect_true "compute-sanitizer racecheck clean" \
		'APSP_DETACH=0 compute-sanitizer --error-exitcode 9 --tool racecheck $gpu -B 32 $T/g >/dev/null'
else
	skip "compute-sanitizer" "not installed"
fi
