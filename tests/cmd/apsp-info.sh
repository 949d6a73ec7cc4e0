# apsp-info: what a stream holds, from its headers; --check; --json.
. "$TOP/tests/lib.sh"
g=$BIN/gengraph
i=$BIN/apsp-info
$g -n 150 -d 10 -s 2 -B 32 -o $T/g
$BIN/apsp-cpu -o $T/r $T/g
$g -n 600 -d 10 -s 4 -o $T/big

expect_true help '$i --help | grep -q "^Usage: apsp-info" && $i --help | grep -q -- "--json"'
expect_true man-options 'for o in $($i --help | grep -o -- "--[a-z][a-z-]*" | sort -u); do
	grep -q -- "$(printf "%s" "$o" | sed "s/-/\\\\\\\\-/g")" $TOP/man/apsp-info.1 || { echo "$o not in man page" >&2; exit 1; }; done'
if command -v groff >/dev/null 2>&1; then
	expect_output man-clean '' 'groff -ww -man -Tutf8 $TOP/man/apsp-info.1 2>&1 >/dev/null'
else
	skip man-clean "no groff"
fi
expect_true graph 'o=$($i $T/g) && echo "$o" | grep -q "vertices      150 (stored padded to 160)" &&
	echo "$o" | grep -q "type          int32" && echo "$o" | grep -q "weights       1 blocks, 102400 bytes raw" &&
	echo "$o" | grep -q "ID:gengraph"'
expect_true stream-size-is-file-size 'size=$(stat -c %s $T/r) && $i $T/r | grep -q "stream        $size bytes"'
expect_true result-matrices '$i $T/r | grep -q "^  distances " && $i $T/r | grep -q "^  predecessors " &&
	[ "$($i $T/r | grep -c "^  provenance")" = 2 ]'
expect_true stdin 'cat $T/r | $i | grep -q "^standard input:"'
expect_true json 'size=$(stat -c %s $T/r) && $i --json $T/r >$T/j && [ $(wc -l <$T/j) = 1 ] &&
	grep -q "\"n\":150,\"npad\":150,\"type\":\"int32\"" $T/j && grep -q "\"stream_bytes\":$size," $T/j &&
	grep -q "\"checked\":false" $T/j && grep -q "\"predecessors\":{\"blocks\":1," $T/j'
expect_true json-two-files '$i --json $T/g $T/r | wc -l | grep -qx 2'
expect_true check-good '$i -c $T/r | grep -q "every block.s CRC matches" && $i --json --check $T/r | grep -q "\"checked\":true"'
# A flipped byte inside a block's stored bytes: only --check inflates it.
hl=$(od -An -tu4 -j12 -N4 $T/r | tr -d " ")
off=$((hl + 16 + 100))
cp $T/r $T/bad && printf '\377' | dd of=$T/bad bs=1 seek=$off conv=notrunc 2>/dev/null
expect_status damaged-without-check 0 '$i $T/bad'
expect_stderr damaged-with-check 2 '^apsp-info: .*bad: (CRC mismatch|corrupt compressed data) in block 0 of the distance' '$i --check $T/bad'
head -c 500 $T/r >$T/trunc
expect_stderr truncated 2 'truncated in block 0' '$i $T/trunc'
expect_stderr not-a-stream 2 'apsp-info: .*' 'echo hello | $i'
expect_true one-bad-of-two '$i $T/trunc $T/g >$T/o 2>$T/e; [ $? = 2 ] && grep -q "^$T/g:" $T/o && grep -q truncated $T/e'
expect_stderr missing-file 2 'No such file or directory' '$i $T/none'
# A negative cycle: the stream apsp-cpu leaves records its vertex.
printf '0 1 2\n1 2 -3\n2 0 0\n' >$T/neg.txt
$BIN/mtx2bin -F edges $T/neg.txt >$T/neg
$BIN/apsp-cpu -o $T/negr $T/neg 2>/dev/null
expect_true negative-cycle '$i $T/negr | grep -q "negative cycle" && $i $T/negr | grep -q "cycle vertex  [0-2]" &&
	$i --json $T/negr | grep -q "\"negative_cycle\":true,\"cycle_vertex\":[0-2],"'
expect_true two-blocks '$i --check $T/big | grep -q "weights       2 blocks, 1440000 bytes raw"'
expect_true output-file '$i -o $T/info.txt $T/g && grep -q "^$T/g:" $T/info.txt'

# --graph G: each result certified against G, a window of rows at a time.
"$BIN/gengraph" -n 60 -d 10 -s 5 -o "$T/cg"
"$BIN/apsp-cpu" -o "$T/cr" "$T/cg"
"$BIN/apsp-cpu" --no-paths -o "$T/cn" "$T/cg"
"$BIN/gengraph" -n 60 -d 10 -s 6 -o "$T/cg2"
expect_true "--graph: results certified, one line each" \
	'$BIN/apsp-info --graph $T/cg $T/cr $T/cn >$T/o && [ $(grep -c "60 rows of 60 vertices certified against the graph, 0 fail" $T/o) -eq 2 ]'
expect_status "--graph, another graph: exit 1" 1 '$BIN/apsp-info --graph $T/cg2 $T/cr'
expect_true "--graph names the first fault" '! $BIN/apsp-info --graph $T/cg2 $T/cn >$T/o && grep -q "not shortest: d(" $T/o'
expect_true "--graph: a result of some rows from standard input" \
	'$BIN/apsp-cpu --rows 7:20 $T/cg | $BIN/apsp-info --graph $T/cg >$T/o && grep -q "13 rows of 60" $T/o'
expect_stderr "--graph: sizes that differ" 2 'vertices' '$BIN/gengraph -n 30 -d 10 -o $T/c30 && $BIN/apsp-info --graph $T/c30 $T/cr'
