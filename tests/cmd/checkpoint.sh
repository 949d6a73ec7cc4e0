# Checkpoints (apsp-cpu --checkpoint, --resume): a run killed at any moment
# and resumed writes the same result bytes as a run never stopped; another
# run's checkpoint, or a damaged one, is refused; the checkpoint goes once
# the result is written.  APSP_CHECKPOINT_KILL kills the process at a chosen
# moment (run/checkpoint.c), as kill -9 would.
. "$TOP/tests/lib.sh"
c=$BIN/apsp-cpu
g=$BIN/gengraph
$g -n 700 -d 10 -s 8 -o "$T/g"
$g -n 700 -d 10 -s 9 -o "$T/other"
$g -n 300 -d 10 -s 8 -t float32 --negative -o "$T/f"
# Every round a checkpoint (--checkpoint-every 0), B = 32: 22 rounds, and a
# 22nd after the last (the rounds' whole result).
ck="--checkpoint $T/ck --checkpoint-every 0 -B 32"

for opts in "" "--no-paths" "--derive-paths never" "--stats"; do
	# shellcheck disable=SC2086
	$c $opts -B 32 "$T/g" >"$T/full"
	for when in after:1 after:7 during:1 during:12 after:21 during:22 after:22; do
		rm -f "$T"/ck*
		# shellcheck disable=SC2086
		expect_true "${opts:-paths}: killed $when, resumed: the same bytes" \
			'! APSP_CHECKPOINT_KILL=$when $c $opts $ck "$T/g" >$T/part 2>/dev/null &&
			$c $opts $ck --resume "$T/ck" "$T/g" >$T/out && cmp $T/out $T/full &&
			! ls $T/ck* 2>/dev/null' # (the leftovers of a kill while writing too)
	done
done
# Killed once the state after the last round is in place (while the
# predecessors are derived or the result written): no round left to do.
rm -f "$T"/ck*
$c -v -B 32 "$T/g" >"$T/full" 2>/dev/null # (-v: the same command line)
expect_true "killed after the last round's state: resumed with every round done, the same bytes" \
	'! APSP_CHECKPOINT_KILL=after:22 $c $ck "$T/g" >$T/part 2>/dev/null &&
	$c -v $ck --resume "$T/ck" "$T/g" 2>$T/v >$T/out && cmp $T/out $T/full &&
	grep -q "round 22 of 22 (every round done)" $T/v'
# A run that ends while its last checkpoint is still being synced (every
# round one, distances alone: nothing to derive after the rounds) does not
# wait for it: no checkpoint and no temporary file left, the same bytes.
$c --no-paths -B 32 "$T/g" >"$T/full"
for k in 1 2 3; do
	rm -f "$T"/ck*
	expect_true "the last checkpoint dropped at the end, run $k: nothing left beside it" \
		'$c --no-paths $ck "$T/g" >$T/out && cmp $T/out $T/full && ! ls $T/ck* 2>/dev/null'
done
# during:1: no checkpoint was put in its place, but the temporary one was
# written whole (a kill leaves the page cache): the run goes on from it.
rm -f "$T"/ck*
$c -v -B 32 "$T/g" >"$T/full" 2>/dev/null
expect_true "killed while putting the first in place: resumed from it, the same bytes" \
	'! APSP_CHECKPOINT_KILL=during:1 $c $ck "$T/g" >$T/part 2>/dev/null && ! test -e $T/ck &&
	$c -v $ck --resume "$T/ck" "$T/g" 2>$T/v >$T/out && cmp $T/out $T/full &&
	grep -q "going on from round 1 of 22, written whole" $T/v && ! ls $T/ck* 2>/dev/null'
rm -f "$T"/ck*
expect_true "no checkpoint at all: from the start" \
	'$c -v $ck --resume "$T/ck" "$T/g" 2>$T/v >$T/out && cmp $T/out $T/full &&
	grep -q "no checkpoint yet" $T/v'
# Leftovers beside the named checkpoint (round 3): a newer whole one is
# taken; one cut short, or another run's, is passed over.
APSP_CHECKPOINT_KILL=after:5 $c --checkpoint "$T/ck5" --checkpoint-every 0 -B 32 "$T/g" \
	>/dev/null 2>&1
APSP_CHECKPOINT_KILL=after:3 $c --checkpoint "$T/ck5o" --checkpoint-every 0 -B 32 "$T/other" \
	>/dev/null 2>&1
for case in newer cut other; do
	rm -f "$T"/ck "$T"/ck.tmp.*
	APSP_CHECKPOINT_KILL=after:3 $c $ck "$T/g" >/dev/null 2>&1
	case $case in
	newer) cp "$T/ck5" "$T/ck.tmp.AAAAAA"; said="ck.tmp.AAAAAA: going on from round 5 of 22" ;;
	cut) head -c 30000 "$T/ck5" >"$T/ck.tmp.AAAAAA"; said="ck.tmp.AAAAAA: truncated.*: passed over" ;;
	other) cp "$T/ck5o" "$T/ck.tmp.AAAAAA"; said="ck: going on from round 3 of 22" ;;
	esac
	expect_true "a leftover beside the checkpoint ($case): \"$said\", the same bytes" \
		'$c -v $ck --resume "$T/ck" "$T/g" 2>$T/v >$T/out && cmp $T/out $T/full &&
		grep -q "$said" $T/v && ! ls $T/ck.* 2>/dev/null'
done
# The named checkpoint refused (another run's): so is the run, though a
# whole checkpoint of it lies beside.
rm -f "$T"/ck "$T"/ck.tmp.*
APSP_CHECKPOINT_KILL=after:3 $c $ck "$T/g" >/dev/null 2>&1
cp "$T/ck5o" "$T/ck.tmp.AAAAAA"
expect_stderr "another run's checkpoint, one of this run beside it: refused" 2 \
	"checkpoint of another run" '$c $ck --resume $T/ck $T/other'
rm -f "$T"/ck*
$c -B 32 "$T/f" >"$T/full"
expect_true "float32 with a negative weight (tracked): killed, resumed, the same bytes" \
	'! APSP_CHECKPOINT_KILL=after:5 $c $ck "$T/f" >$T/part 2>/dev/null &&
	$c $ck --resume "$T/ck" "$T/f" >$T/out && cmp $T/out $T/full'
$c --order nd -B 32 "$T/g" >"$T/full" 2>/dev/null &&
	expect_true "nested dissection: killed, resumed, the same bytes" \
		'! APSP_CHECKPOINT_KILL=after:3 $c --order nd $ck "$T/g" >$T/part 2>/dev/null &&
		$c --order nd $ck --resume "$T/ck" "$T/g" >$T/out && cmp $T/out $T/full'

# A real kill -9 at whatever moment: the same bytes in the end.
if command -v timeout >/dev/null 2>&1; then
	$g -n 1500 -d 10 -s 4 -o "$T/big"
	$c "$T/big" >"$T/full"
	for t in 0.2 0.5 0.9; do
		rm -f "$T"/ck*
		expect_true "kill -9 after $t s, resumed: the same bytes" \
			'timeout -s KILL $t $c --checkpoint $T/ck --checkpoint-every 0 "$T/big" >$T/part 2>/dev/null;
			$c --checkpoint $T/ck --resume $T/ck "$T/big" >$T/out && cmp $T/out $T/full'
	done
fi

# Refusals, exit 2, and the checkpoint kept.
rm -f "$T"/ck*
APSP_CHECKPOINT_KILL=after:3 $c $ck "$T/g" >/dev/null 2>&1
cp "$T/ck" "$T/keep"
expect_stderr "another graph's checkpoint: refused" 2 "checkpoint of another run" \
	'$c $ck --resume $T/ck $T/other'
expect_stderr "other options (B): refused" 2 "checkpoint of another run" \
	'$c --checkpoint-every 0 -B 64 --resume $T/ck $T/g'
expect_stderr "other options (no paths): refused" 2 "checkpoint of another run" \
	'$c $ck --no-paths --resume $T/ck $T/g'
expect_true "a refused checkpoint is kept" 'cmp $T/ck $T/keep'
head -c 20000 "$T/keep" >"$T/cut"
expect_stderr "a truncated checkpoint: refused, naming it" 2 "cut: truncated" \
	'$c $ck --resume $T/cut $T/g'
expect_stderr "a result stream is not a checkpoint" 2 "not a checkpoint" \
	'$c -B 32 $T/g >$T/res; $c $ck --resume $T/res $T/g'
expect_true "--keep-checkpoint keeps it" \
	'$c $ck --keep-checkpoint --resume $T/ck $T/g >$T/out && test -s $T/ck'
expect_stderr "an empty name: refused" 2 "need a file name" '$c --checkpoint "" $T/g'
expect_stderr "a bad interval: refused" 2 "checkpoint-every" '$c --checkpoint-every -1 $T/g'
expect_true "the provenance leaves the checkpoint options out" \
	'$c -B 32 --checkpoint $T/ck2 --checkpoint-every=5 --keep-checkpoint $T/g | $BIN/apsp-info -v - 2>&1 |
	grep "CL:apsp-cpu -B 32 .*/g$"'
[ -x "$BIN/apsp-gpu" ] &&
	expect_stderr "apsp-gpu: a checkpoint where none can be written: refused before the device" 2 \
		"cannot write a checkpoint there" '$BIN/apsp-gpu --checkpoint $T/nodir/ck $T/g'
expect_stderr "a checkpoint where none can be written: refused before the rounds" 2 \
	"cannot write a checkpoint there" '$c --checkpoint $T/no/such/dir/ck $T/g'
mkdir -p "$T/adir"
expect_stderr "--checkpoint naming a directory: refused before the rounds" 2 \
	"^apsp-cpu: --checkpoint .*/adir: a directory, not a file" '$c --checkpoint $T/adir $T/g'
[ -x "$BIN/apsp-gpu" ] &&
	expect_stderr "apsp-gpu: --checkpoint naming a directory: refused before the device" 2 \
		"a directory, not a file" '$BIN/apsp-gpu --checkpoint $T/adir $T/g'

# A checkpoint is no result: every reader of results refuses it by name,
# exit 2, nothing written; apsp-info says what it is.
rm -f "$T"/ck*
APSP_CHECKPOINT_KILL=after:3 $c $ck "$T/g" >/dev/null 2>&1
refusal="^[a-z0-9-]*: .*/ck: a checkpoint, not a result: go on with --resume$"
for cmd in "$BIN/apsp-stats -o \$T/x \$T/ck" "$BIN/apsp-stats --summary -o \$T/x \$T/ck" \
	"$BIN/bin2mtx --dense -o \$T/x \$T/ck" "$BIN/bin2mtx --npy --pred -o \$T/x \$T/ck" \
	"$BIN/apsp-path -o \$T/x -i \$T/ck 0 1" "$BIN/apsp-diff -o \$T/x \$T/ck \$T/full" \
	"$BIN/apsp-diff -o \$T/x \$T/full \$T/ck" "$BIN/apsp-stats -o \$T/x < \$T/ck"; do
	rm -f "$T/x"
	tool=$(basename "${cmd%% *}")
	case $cmd in *"< "*) refusal="^$tool: standard input: a checkpoint, not a result" ;;
	*) refusal="^$tool: .*/ck: a checkpoint, not a result: go on with --resume$" ;; esac
	expect_stderr "a checkpoint read as a result: refused ($tool ${cmd#* })" 2 "$refusal" \
		"$cmd; rc=\$?; ! test -e \$T/x || rc=9; exit \$rc"
done
expect_stderr "an engine given a checkpoint as its graph: refused" 2 \
	"ck: a checkpoint, not a graph: give it to --resume" '$c $T/ck >$T/x'
expect_true "apsp-info: a checkpoint described as one" \
	'$BIN/apsp-info $T/ck | grep -q "^  checkpoint    .*not a result" &&
	$BIN/apsp-info --json $T/ck | grep -q "\"checkpoint\":true" &&
	$BIN/apsp-info --json $T/full | grep -q "\"checkpoint\":false" &&
	! $BIN/apsp-info $T/full | grep -q "^  checkpoint"'
if find_python numpy; then
	expect_stderr "apspmat.py: a checkpoint refused by name" 1 "ck: a checkpoint, not a result" \
		'$py -c "import sys; sys.path.insert(0, \"$TOP/python\"); import apspmat; apspmat.load(sys.argv[1])" $T/ck'
else
	skip "apspmat.py: a checkpoint refused by name" "no numpy"
fi

# kill -9 leaves nothing beside -o's file (an unnamed temporary file where
# the file system has them), and a named one that a dead process left
# (.NAME.PID.XXXXXX) is removed by the next run that writes NAME.
rm -f "$T"/ck*
expect_true "killed with -o: no hidden file left beside the output" \
	'! APSP_CHECKPOINT_KILL=after:7 $c $ck -o $T/out7.apm $T/g 2>/dev/null &&
	test -z "$(ls -A $T | grep "out7")" &&
	$c $ck --resume $T/ck -o $T/out7.apm $T/g && test -z "$(ls -A $T | grep "^\.out7")"'
dead=$(sh -c 'echo $$')
: >"$T/.swept.apm.$dead.abcdef"
: >"$T/.swept.apm.$$.ghijkl"
expect_true "a dead run's temporary output swept, a live one's kept" \
	'$BIN/gengraph -n 10 -d 50 -o $T/swept.apm && ! test -e $T/.swept.apm.$dead.abcdef &&
	test -e $T/.swept.apm.$$.ghijkl && test -s $T/swept.apm'
