# Checkpoints on the GPU (apsp-gpu --checkpoint, --resume): a run killed at
# a checkpoint, or while writing one, or at any instant (kill -9), and
# resumed writes the same bytes as a run never stopped, in every kind of
# run: int32 packed paths, 16-bit lanes (distances alone, and predecessors
# derived), float32 tracked, derived and as bits, lookahead and without,
# phase 1 apart, sparse levels, several GPUs, out of core, --stats, float64
# (its own engine, with the intermediates of its paths); a 16-bit run whose
# lanes are rejected resumes in its 32-bit stage.  Checkpoints of another
# run (another graph, other options, apsp-cpu's) or damaged ones are
# refused with exit 2, leaving no result and no checkpoint.  Without host memory for a copy of the state, each
# checkpoint is taken from the devices while they wait.  Out of core, a step is a super-round.  APSP_CHECKPOINT_KILL kills the process
# as a checkpoint is written (run/checkpoint.c).
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
g=$BIN/gengraph

need_gpu_build "apsp-gpu checkpoints"
need_gpu "apsp-gpu checkpoints"

# killed NAME GRAPH KILLS [options]: the run with options as it is, then
# killed with a checkpoint every step at each of KILLS (after:N, during:N)
# and resumed: the same bytes each time, -v says from which step (during:N
# too: that checkpoint is whole, though not yet in its place), and no
# checkpoint is left.
killed() {
	_name=$1 _graph=$2 _kills=$3
	shift 3
	if ! $gpu -v "$@" "$_graph" >"$T/full" 2>"$T/err"; then # (-v: the same command line)
		fail "$_name" "the run failed: $(head -c 300 "$T/err")"; return
	fi
	for _k in $_kills; do
		rm -f "$T"/ck*
		if APSP_CHECKPOINT_KILL=$_k $gpu --checkpoint "$T/ck" --checkpoint-every 0 "$@" \
			"$_graph" >"$T/part" 2>"$T/err"; then
			fail "$_name: killed $_k" "it was not killed"; continue
		fi
		if ! $gpu -v --checkpoint "$T/ck" --resume "$T/ck" "$@" "$_graph" >"$T/out" 2>"$T/err"; then
			fail "$_name: killed $_k, resumed" "$(head -c 300 "$T/err")"; continue
		fi
		if ! cmp -s "$T/out" "$T/full"; then
			fail "$_name: killed $_k, resumed" "not the same bytes"; continue
		fi
		if ls "$T"/ck* >/dev/null 2>&1; then
			fail "$_name: killed $_k, resumed" "checkpoints left: $(ls "$T"/ck*)"; continue
		fi
		# (during:N: the checkpoint not yet in its place, but whole beside it)
		_from="the rounds from step [1-9]"
		case $_k in during:*) _from="written whole by the run that stopped" ;; esac
		if ! grep -Eq "$_from" "$T/err"; then
			fail "$_name: killed $_k, resumed" "-v does not say '$_from': $(grep checkpoints "$T/err")"
			continue
		fi
		pass "$_name: killed $_k, resumed: the same bytes"
	done
}

# int32 with packed paths (n = 700, B = 32: 22 rounds), lookahead and not,
# phase 1 apart and in phase 3
$g -n 700 -d 10 -s 8 -o "$T/g"
killed "int32 paths" "$T/g" "after:1 after:7 during:1 during:12 after:21" -B 32 --no-16bit
export APSP_LOOKAHEAD=never
killed "int32 paths, no lookahead" "$T/g" "after:5 during:9" -B 32 --no-16bit
unset APSP_LOOKAHEAD
export APSP_PHASE1=apart
killed "int32 paths, phase 1 apart" "$T/g" "after:4" -B 32 --no-16bit
unset APSP_PHASE1
killed "int32 distances" "$T/g" "after:3 during:6" -B 32 --no-paths --no-16bit
# 16-bit lanes (n = 2500, B = 64: 40 rounds): distances; paths derived
$g -n 2500 -d 10 -s 3 -o "$T/g16"
killed "16-bit lanes" "$T/g16" "after:2 during:20" -B 64 --no-paths --16bit
killed "16-bit lanes, paths derived" "$T/g16" "after:11" -B 64 --16bit
killed "--stats" "$T/g16" "after:9" --stats -B 64
# float32: tracked with negative weights; derived (n >= 2000); as bits
$g -n 700 -d 10 -s 4 -t float32 --negative -o "$T/fneg"
killed "float32 negative, tracked" "$T/fneg" "after:6 during:3" -B 32
$g -n 2100 -d 10 -s 5 -t float32 -o "$T/f"
killed "float32 paths derived" "$T/f" "after:8" -B 64
killed "float32 as bits" "$T/f" "after:4 during:17" -B 64 --no-paths
# float64 (n = 700, B = 64: 11 rounds): paths, their intermediates tracked;
# distances alone; the state before the last round
$g -n 700 -d 10 -s 1 -t float64 -o "$T/f64"
killed "float64 paths" "$T/f64" "after:1 during:5 after:10"
killed "float64 distances" "$T/f64" "after:4" --no-paths
# a run too short for checkpoints still removes what a killed one left
: >"$T/ckf.tmp.abcdef"
expect_true "float64: a killed run's temporary checkpoint removed by a run that takes none" \
	'$gpu $T/f64 >$T/want && $gpu --checkpoint $T/ckf $T/f64 >$T/out && cmp $T/out $T/want &&
	! test -e $T/ckf.tmp.abcdef'
# sparse: blocks skipped level by level
$g -n 2100 -d 0.2 -s 3 -o "$T/sparse"
killed "sparse, levels" "$T/sparse" "after:1 after:2" -B 32 --order natural
killed "sparse, 16-bit levels" "$T/sparse" "after:1" -B 64 --order natural --no-paths --16bit
if $gpu --help | grep -q "nd (nested dissection)" && $BIN/apsp-cpu --order nd -B 32 "$T/sparse" \
	>/dev/null 2>&1; then
	killed "nested dissection" "$T/sparse" "after:1" -B 32 --order nd
fi

# Out of core (a device made small): a step is a super-round
export APSP_DEVICE_MEMORY=2000000
if $gpu -v -B 32 --no-16bit "$T/g" 2>&1 >/dev/null | grep -q "out of core"; then
	killed "out of core, paths" "$T/g" "after:1 after:3 during:2" -B 32 --no-16bit
	killed "out of core, distances" "$T/g" "after:2" -B 32 --no-16bit --no-paths
	killed "out of core, float32 tracked" "$T/fneg" "after:2" -B 32
else
	fail "out of core" "APSP_DEVICE_MEMORY=$APSP_DEVICE_MEMORY did not make the run out of core"
fi
unset APSP_DEVICE_MEMORY

# 16-bit lanes rejected (distances past their limit): the 32-bit stage's
# checkpoint, then on from it with the 16-bit stage left out
window 1100 0 1 >"$T/window.mtx"
$BIN/mtx2bin -o "$T/window" "$T/window.mtx"
$gpu -v -B 64 --16bit --no-paths "$T/window" >"$T/full" 2>"$T/err"
if grep -q "16-bit lanes rejected" "$T/err"; then
	rm -f "$T"/ck*
	# 18 rounds of 16 bits, then 32-bit ones: killed at the 32-bit run's 5th
	expect_true "16-bit lanes rejected: killed in the 32-bit run, resumed there: the same bytes" \
		'! APSP_CHECKPOINT_KILL=after:22 $gpu --checkpoint $T/ck --checkpoint-every 0 -B 64 --16bit --no-paths $T/window >$T/part 2>/dev/null &&
		$gpu -v --resume $T/ck -B 64 --16bit --no-paths $T/window >$T/out 2>$T/err &&
		cmp $T/out $T/full && grep -q "another stage of this run" $T/err &&
		grep -q "the rounds from step [1-9]" $T/err'
else
	fail "16-bit lanes rejected" "the window graph was not rejected: $(head -c 300 "$T/err")"
fi

# A real kill -9 at whatever moment (n = 6000: a second or more of rounds)
$g -n 6000 -d 10 -s 2 -o "$T/big"
$gpu "$T/big" >"$T/full"
for t in 1.2 1.8; do
	rm -f "$T"/ck*
	expect_true "kill -9 after $t s, resumed: the same bytes" \
		'timeout -s KILL $t $gpu --checkpoint $T/ck --checkpoint-every 0.05 $T/big >$T/part 2>/dev/null;
		$gpu --checkpoint $T/ck --resume $T/ck $T/big >$T/out && cmp $T/out $T/full'
done

# Several GPUs: killed on two, resumed on two and on one
if [ "$(gpu_count)" -ge 2 ]; then
	killed "--gpus 2" "$T/g" "after:6" -B 32 --no-16bit --gpus 2
	$gpu -B 32 --no-16bit --gpus 1 "$T/g" >"$T/full" # (--gpus 1: the same command line)
	rm -f "$T"/ck*
	expect_true "--gpus 2 killed, resumed on one: the same bytes" \
		'! APSP_CHECKPOINT_KILL=after:8 $gpu --checkpoint $T/ck --checkpoint-every 0 -B 32 --no-16bit --gpus 2 $T/g >$T/part 2>/dev/null &&
		$gpu --resume $T/ck -B 32 --no-16bit --gpus 1 $T/g >$T/out && cmp $T/out $T/full'
	killed "float64 --gpus 2" "$T/f64" "after:6" --gpus 2
	$gpu --gpus 1 "$T/f64" >"$T/full"
	rm -f "$T"/ck*
	expect_true "float64 --gpus 2 killed, resumed on one: the same bytes" \
		'! APSP_CHECKPOINT_KILL=after:7 $gpu --checkpoint $T/ck --checkpoint-every 0 --gpus 2 $T/f64 >$T/part 2>/dev/null &&
		$gpu --resume $T/ck --gpus 1 $T/f64 >$T/out && cmp $T/out $T/full'
else
	skip "--gpus 2 checkpoints" "one GPU here"
fi

# Refusals: exit 2, the reason, no output
rm -f "$T"/ck*
APSP_CHECKPOINT_KILL=after:3 $gpu --checkpoint "$T/ck" --checkpoint-every 0 -B 32 --no-16bit \
	"$T/g" >/dev/null 2>&1
$g -n 700 -d 10 -s 9 -o "$T/other"
expect_stderr "another graph's checkpoint: refused" 2 "checkpoint of another run" \
	'$gpu -o $T/o1 --resume $T/ck -B 32 --no-16bit $T/other'
expect_stderr "other options (--no-paths): refused" 2 "checkpoint of another run" \
	'$gpu -o $T/o1 --resume $T/ck -B 32 --no-16bit --no-paths $T/g'
expect_true "nothing written on a refusal" '! test -e $T/o1'
head -c 3000 "$T/ck" >"$T/damaged"
expect_stderr "a damaged checkpoint: refused" 2 "" '$gpu --resume $T/damaged -B 32 --no-16bit $T/g'
$BIN/apsp-cpu -B 32 "$T/g" >/dev/null 2>&1
APSP_CHECKPOINT_KILL=after:3 $BIN/apsp-cpu --checkpoint "$T/cpu" --checkpoint-every 0 -B 32 \
	"$T/g" >/dev/null 2>&1
expect_stderr "apsp-cpu's checkpoint: refused" 2 "checkpoint of another run" \
	'$gpu --resume $T/cpu -B 32 --no-16bit $T/g'
rm -f "$T"/ck*
APSP_CHECKPOINT_KILL=after:3 $gpu --checkpoint "$T/ck" --checkpoint-every 0 "$T/f64" >/dev/null 2>&1
expect_stderr "float64, other options (--no-paths): refused" 2 "checkpoint of another run" \
	'$gpu -o $T/o2 --checkpoint $T/ck2 --checkpoint-every 0 --resume $T/ck --no-paths $T/f64'
expect_true "a refused run leaves no result and no checkpoint" '! test -e $T/o2 && ! test -e $T/ck2'

# In core without host memory for a copy of the state: each checkpoint
# taken from the devices while they wait, and put back there (16-bit lanes
# widened and narrowed on the host; with two GPUs, ranges across bands).
export APSP_HOST_MEMORY=6000000
killed "no host memory for a copy of the state" "$T/g" "after:3 during:5" -B 32 --no-16bit
expect_true "no host memory for a copy: -v says the checkpoints came from the devices" \
	'$gpu -v --checkpoint $T/ck5 --checkpoint-every 0 -B 32 --no-16bit $T/g >/dev/null 2>$T/err &&
	grep -q "written from the devices while they waited" $T/err && ! test -e $T/ck5'
# (n = 2500: room for the matrices, 50 MB, not for a copy of the state too)
APSP_HOST_MEMORY=60000000
killed "no host memory for a copy, 16-bit lanes, paths derived" "$T/g16" "after:11" -B 64 --16bit
APSP_HOST_MEMORY=6000000
if [ "$(gpu_count)" -ge 2 ]; then
	killed "no host memory for a copy, --gpus 2" "$T/g" "after:6" -B 32 --no-16bit --gpus 2
fi
unset APSP_HOST_MEMORY

# A run sure to end before its first checkpoint takes none, and keeps row
# order (forced here at n = 2500: APSP_SCHEDULE=rows); -v says so.  A run
# that takes them goes round after round.
expect_true "a run that ends before its first checkpoint takes none, in row order" \
	'APSP_SCHEDULE=rows $gpu -v --no-paths --checkpoint $T/ck4 --checkpoint-every 1000 $T/g16 \
	>/dev/null 2>$T/err && grep -q "no checkpoints: the run ends before the first would be due" $T/err &&
	grep -q "row order" $T/err && ! test -e $T/ck4'
expect_true "a run that takes checkpoints goes round after round" \
	'APSP_SCHEDULE=rows $gpu -v --no-paths --checkpoint $T/ck4 --checkpoint-every 0 $T/g16 \
	>/dev/null 2>$T/err && ! grep -q "row order" $T/err &&
	grep -q "checkpoints: [1-9][0-9]* written" $T/err && ! test -e $T/ck4'

# compute-sanitizer on a run that saves and one that resumes
if command -v compute-sanitizer >/dev/null 2>&1; then
	rm -f "$T"/ck*
	APSP_CHECKPOINT_KILL=after:4 $gpu --checkpoint "$T/ck" --checkpoint-every 0 -B 64 --16bit \
		"$T/g16" >/dev/null 2>&1
	expect_true "memcheck: resumed from 16-bit lanes" \
		'compute-sanitizer --error-exitcode 9 --tool memcheck $gpu --resume $T/ck -B 64 --16bit $T/g16 >$T/out 2>$T/san'
	expect_true "memcheck: checkpoints of tracked paths" \
		'compute-sanitizer --error-exitcode 9 --tool memcheck $gpu --checkpoint $T/ck3 --checkpoint-every 0 -B 32 --no-16bit $T/g >$T/out 2>$T/san'
else
	skip "memcheck" "no compute-sanitizer"
fi
