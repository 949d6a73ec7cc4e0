# The conventions every tool shares (toolkit/tool.c), tried on gengraph and
# bin2mtx: help, version, usage errors, safe -o, write errors, terminals, pipes.
. "$TOP/tests/lib.sh"
g=$BIN/gengraph
b=$BIN/bin2mtx
$g -n 20 -d 30 -o $T/s

for t in gengraph bin2mtx; do
	expect_true $t-help '$BIN/$t --help >$T/h && grep -q "^Usage: $t" $T/h && grep -q -- "--output" $T/h && [ ! -s $T/err ]'
	expect_true $t-help-short '$BIN/$t -h | cmp - $T/h'
	expect_output $t-version "$t (apsp) 0.1.0" '$BIN/$t -V'
	expect_output $t-version-long "$t (apsp) 0.1.0" '$BIN/$t --version'
	expect_stderr $t-bad-option 2 "Try '$t --help'" '$BIN/$t --no-such-option'
	expect_stderr $t-bad-short 2 "^$t: invalid option" '$BIN/$t -Y'
	expect_stderr $t-missing-arg 2 "requires an argument" '$BIN/$t -o'
	expect_stderr $t-empty-output 2 "^$t: -o: the file name is empty" '$BIN/$t -o "" $T/s'
	expect_stderr $t-help-full 2 "^$t: standard output: write error: No space left on device" '$BIN/$t --help >/dev/full'
	expect_true $t-help-options-true 'for o in $(grep -o -- "--[a-z][a-z-]*" $T/h | sort -u); do
		case $o in --help|--version) continue;; esac
		$BIN/$t $o 2>&1 </dev/null | grep -q "unrecognized option" && { echo "$o not accepted" >&2; exit 1; }; done; true'
	expect_true $t-man-options 'for o in $(grep -o -- "--[a-z][a-z-]*" $T/h | sort -u); do
		grep -q -- "$(printf "%s" "$o" | sed "s/-/\\\\\\\\-/g")" $TOP/man/$t.1 || { echo "$o not in man page" >&2; exit 1; }; done'
	if command -v groff >/dev/null 2>&1; then
		expect_output $t-man-clean '' 'groff -ww -man -Tutf8 $TOP/man/$t.1 2>&1 >/dev/null'
	else
		skip $t-man-clean "no groff"
	fi
done

# Write errors are failures, with the system's reason.
expect_stderr gengraph-dev-full 2 '^gengraph: .*write error: No space left on device$' '$g -n 300 -d 20 >/dev/full'
expect_stderr gengraph-dev-full-o 2 'No space left on device' '$g -n 300 -d 20 -o /dev/full'
expect_stderr bin2mtx-dev-full 2 '^bin2mtx: .*write error: No space left on device$' '$b $T/s >/dev/full'
expect_stderr bin2mtx-dev-full-npy 2 'write error: No space left on device' '$b --npy $T/s >/dev/full'
expect_stderr bin2mtx-dev-full-small 2 'write error: No space left on device' '$b --dense $TDATA/bin2mtx/float2.apm >/dev/full'
expect_stderr gengraph-closed-stdout 2 'write error' '$g -n 300 -d 20 >&-'

# -o: the file appears only when complete; a failure leaves an old file alone.
expect_true o-creates '$b --npy $T/s >$T/s.npy && $g -n 20 -d 30 -o $T/new && $b --npy $T/new | cmp - $T/s.npy'
echo precious >$T/keep
expect_status o-usage-error-keeps 2 '$g -n 0 -d 10 -o $T/keep'
expect_output o-kept precious 'cat $T/keep'
head -c 300 $T/s >$T/trunc
expect_status o-input-error 2 '$b -o $T/keep $T/trunc'
expect_output o-kept-after-input-error precious 'cat $T/keep'
expect_status o-no-file-on-failure 2 '$b -o $T/absent $T/trunc'
expect_true o-absent '[ ! -e $T/absent ]'
# Killed halfway, by TERM or by KILL: the target is untouched and nothing is
# left beside it (the temporary file is open in the directory, unnamed where
# the file system has O_TMPFILE, else removed by the next run).
for sig in TERM KILL; do
	expect_true o-killed-$sig 'rm -rf $T/k && mkdir $T/k && echo precious >$T/k/g &&
	{ $g -n 6000 -d 50 -z 9 -T 1 -o $T/k/g & p=$!; } &&
	i=0; while [ $i -lt 100 ] && ! ls -l /proc/$p/fd 2>/dev/null | grep -q "$T/k/"; do sleep 0.1; i=$((i + 1)); done;
	ls -l /proc/$p/fd | grep -q "$T/k/"; seen=$?; kill -$sig $p; wait $p;
	[ $seen -eq 0 ] && [ "$(cat $T/k/g)" = precious ] && [ "$(ls -A $T/k)" = g ]'
done
expect_true o-replaces 'echo old >$T/r && $g -n 20 -d 30 -o $T/r && $b $T/r >/dev/null'
expect_true o-keeps-mode 'echo old >$T/m && chmod 640 $T/m && $g -n 5 -d 30 -o $T/m && [ "$(stat -c %a $T/m)" = 640 ]'
expect_true o-through-symlink 'mkdir $T/l && echo old >$T/l/real && ln -s real $T/l/link && $g -n 5 -d 30 -o $T/l/link &&
	[ -L $T/l/link ] && $b $T/l/real >/dev/null && [ "$(ls -A $T/l | tr "\n" " ")" = "link real " ]'
expect_true o-no-temp-left '[ -z "$(ls -A $T | grep "^\.")" ]'
expect_stderr o-directory 2 'Is a directory' '$g -n 5 -d 30 -o $T'
expect_stderr o-no-dir 2 'No such file or directory' '$g -n 5 -d 30 -o $T/none/x'
expect_true o-dash-stdout '$g -n 5 -d 30 -o - | $b >/dev/null'

# A closed downstream pipe ends the tool quietly.
expect_output gengraph-closed-pipe '' '$g -n 3000 -d 50 2>&1 | head -c 10 >/dev/null'
expect_output bin2mtx-closed-pipe '' '$g -n 1000 -d 50 -o $T/p && $b $T/p 2>&1 | head -n 1 >/dev/null'
expect_output bin2mtx-npy-closed-pipe '' '$b --npy $T/p 2>&1 | head -c 1 >/dev/null'

# Binary data is not written to a terminal unless forced.
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
	expect_true terminal-refused 'script -qec "$g -n 3 -d 10" /dev/null >$T/tty; grep -q "refusing to write binary data to a terminal; use -f to force" $T/tty'
	expect_true terminal-refused-status '! script -qec "$g -n 3 -d 10" /dev/null >/dev/null'
	expect_true terminal-forced 'script -qec "$g -f -n 3 -d 10" /dev/null >$T/tty; ! grep -q refusing $T/tty'
	expect_true terminal-npy-refused 'script -qec "$b --npy $T/s" /dev/null >$T/tty; grep -q "refusing" $T/tty'
	expect_true terminal-input-refused 'script -qec "$b" /dev/null >$T/tty; grep -q "refusing to read binary data from a terminal" $T/tty'
	for t in apsp-stats "apsp-stats --summary" "apsp-path 0 1" "apsp-diff - $T/s"; do
		expect_true "$t: a terminal on stdin refused, not waited on" \
			'timeout 20 script -qec "$BIN/$t" /dev/null >$T/tty; grep -q "refusing to read binary data from a terminal" $T/tty'
	done
	expect_true terminal-text-ok 'script -qec "$b --dense $TDATA/bin2mtx/float2.apm" /dev/null >$T/tty; grep -q "0.100000001" $T/tty'
	expect_true progress-on-terminal 'script -qec "$g -n 6000 -d 20 -z 6 -T 1 -o $T/pg" /dev/null >$T/tty; grep -q "rows" $T/tty'
else
	skip terminal "no working script(1)"
fi
expect_output progress-off-by-default '' '$g -n 2000 -d 20 -o $T/pg 2>&1'
expect_true progress-forced '$g -n 6000 -d 20 -z 6 -T 1 --progress -o $T/pg 2>$T/pe; grep -q "gengraph: rows" $T/pe'
expect_output progress-forced-off '' '$g -n 6000 -d 20 -z 6 -T 1 --no-progress -o $T/pg 2>&1'
# Progress says, as pv does, how long the step has taken and how long is left
# (once the step has run half a second: a graph big enough on a fast machine).
expect_true "--progress: elapsed time and the time left" \
	'$g -n 10000 -d 20 -z 6 -T 1 --progress -o $T/pg 2>&1 | tr "\r" "\n" |
	grep -Eq "^gengraph: rows [0-9]+% \([0-9]+/10000\), [0-9]+ s, about [0-9]+ s left"'
# APSP_TIMELINE: a tool's marks from its start to its exit, nothing without it.
expect_true "APSP_TIMELINE: marks from start to exit" \
	'APSP_TIMELINE=1 $g -n 10 -d 20 -o $T/tl 2>$T/err && head -n 1 $T/err | grep -Eq "^gengraph: at [0-9]+\.[0-9]{6} start$" &&
	tail -n 1 $T/err | grep -Eq "^gengraph: at [0-9]+\.[0-9]{6} exit$"'
expect_output timeline-unset '' '$g -n 10 -d 20 -o $T/tl 2>&1'
