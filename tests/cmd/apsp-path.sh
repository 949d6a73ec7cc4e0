# apsp-path: readable and tab-separated paths, --from, pairs from a file,
# --base 1, unreachable pairs, errors, negative-cycle streams.
. "$TOP/tests/lib.sh"
p=$BIN/apsp-path
cat >"$T/g.txt" <<'EOT'
0 1 2
1 2 3
0 2 10
2 3 1
4 5 1
EOT
"$BIN/mtx2bin" -F edges "$T/g.txt" >"$T/g" && "$BIN/apsp-cpu" "$T/g" >"$T/r" ||
	fail "setup" "mtx2bin | apsp-cpu failed"

expect_output "one path" "0 -> 1 -> 2 -> 3  distance 6" '$p -i $T/r 0 3'
expect_output "from stdin" "0 -> 1 -> 2 -> 3  distance 6" '$p <$T/r 0 3'
expect_output "several pairs, in the order given" "$(printf '4 -> 5  distance 1\n0 -> 1 -> 2 -> 3  distance 6\n2 -> 3  distance 1')" '$p -i $T/r 4 5 0 3 2 3'
expect_output "a vertex to itself" "2  distance 0" '$p -i $T/r 2 2'
expect_output "--tsv" "$(printf '0\t3\t6\t0,1,2,3\n4\t5\t1\t4,5')" '$p -i $T/r --tsv 0 3 4 5'
expect_output "--base 1" "1 -> 2 -> 3 -> 4  distance 6" '$p -i $T/r --base 1 1 4'
expect_output "--base 1 --tsv" "$(printf '1\t4\t6\t1,2,3,4')" '$p -i $T/r --base 1 --tsv 1 4'
expect_status "unreachable: exit 1" 1 '$p -i $T/r 0 4'
expect_true "unreachable says so" '$p -i $T/r 0 4 0 3 >$T/o; [ $? -eq 1 ] && grep -qx "0 -> 4  unreachable" $T/o && grep -qx "0 -> 1 -> 2 -> 3  distance 6" $T/o'
expect_true "unreachable --tsv" '$p -i $T/r --tsv 3 0 >$T/o; [ $? -eq 1 ] && [ "$(cat $T/o)" = "$(printf "3\t0\tinf\t")" ]'
expect_true "--from lists every vertex" '$p -i $T/r --from 0 --tsv >$T/o; [ $? -eq 1 ] && [ $(wc -l <$T/o) -eq 6 ] && grep -q "^0	3	6	0,1,2,3$" $T/o'
expect_output "--from a sink-free source" "$(printf '4\t4\t0\t4\n4\t5\t1\t4,5')" '$p -i $T/r --from 4 --tsv | grep -v inf'
printf '# pairs\n0 3\n\n4 5  # comment\n' >"$T/pairs"
expect_output "-p FILE" "$(printf '0 -> 1 -> 2 -> 3  distance 6\n4 -> 5  distance 1')" '$p -i $T/r -p $T/pairs'
expect_output "-p - with -i" "0 -> 1  distance 2" 'echo "0 1" | $p -i $T/r -p -'
expect_output "-o FILE" "0 -> 1  distance 2" '$p -i $T/r -o $T/out 0 1 && cat $T/out'

# Errors.
expect_stderr "out of range: exit 2" 2 'vertex 6: no such vertex' '$p -i $T/r 0 6'
expect_stderr "--base 1 and vertex 0" 2 'no such vertex' '$p -i $T/r --base 1 0 1'
expect_stderr "--from out of range" 2 'no such vertex' '$p -i $T/r --from 9'
expect_stderr "odd argument count" 2 'no destination' '$p -i $T/r 0 1 2'
expect_stderr "no pairs" 2 'no SRC DST' '$p -i $T/r'
expect_stderr "not a number" 2 'SRC' '$p -i $T/r x 1'
expect_stderr "bad pairs file" 2 'pairs2:1: ' 'echo "0 x" >$T/pairs2 && $p -i $T/r -p $T/pairs2'
expect_stderr "no predecessors: exit 2" 2 'no predecessors' '"$BIN/apsp-cpu" --no-paths $T/g | $p 0 1'
expect_stderr "a graph, not a result" 2 'no distances' '$p -i $T/g 0 1'
expect_stderr "missing file" 2 '^apsp-path: ' '$p -i $T/nope 0 1'
expect_stderr "truncated stream" 2 '^apsp-path: ' 'head -c 100 $T/r | $p 0 1'
printf '0 1 -1\n1 0 0\n' >"$T/neg.txt"
expect_stderr "negative-cycle stream: exit 3" 3 'negative cycle through vertex [01]' '"$BIN/mtx2bin" -F edges $T/neg.txt | "$BIN/apsp-cpu" 2>/dev/null | $p 0 1'

# Larger results: every path printed agrees with the distances, and only the
# needed rows are read (the answer is the same with deflate level 0 or 9).
"$BIN/gengraph" -n 300 -d 4 -s 2 --negative -o "$T/g3"
"$BIN/apsp-cpu" -z 9 "$T/g3" >"$T/r3"
"$BIN/apsp-cpu" -z 0 "$T/g3" >"$T/r3z"
expect_true "same paths whatever the level" '$p -i $T/r3 --tsv --from 7 >$T/a; $p -i $T/r3z --tsv --from 7 >$T/b; cmp -s $T/a $T/b'
expect_true "--from distances equal the matrix row" '
	"$BIN/bin2mtx" --dense --dist $T/r3 | sed -n 8p | tr " " "\n" >$T/row
	cut -f3 $T/a | cmp -s - $T/row'
tool_docs apsp-path

# Every option accepted is listed (common ones too), and those that concern
# binary streams are refused: apsp-path writes text.
expect_true "--help lists -v and --progress" '$BIN/apsp-path --help | grep -q -- "--verbose" && $BIN/apsp-path --help | grep -q -- "--progress"'
expect_stderr "-z refused" 2 'writes text' '$BIN/apsp-path -z 1 0 1 </dev/null'
expect_stderr "-f refused" 2 'writes text' '$BIN/apsp-path -f 0 1 </dev/null'
