# apsp-gpu in row order (APSP_SCHEDULE=rows: the block rows finished in bands
# from the top, each band handed to the output while the device computes the
# next) gives the same distances and predecessors, entry for entry, as round
# after round (APSP_SCHEDULE=rounds), in every kind of run: 16-bit lanes with
# and without derived predecessors, packed, tracked and plain paths, float32,
# negative and zero weights, every B, n not a multiple of B, one band and
# several; a 16-bit run rejected after its first band went out finishes on
# 32 bits with the same distances and valid paths; and -v says which order.
# Without paths the rounds start on the rows as they are read, and graphs
# that turn out otherwise (too heavy for 16 bits, sparse, negative, a
# negative cycle, input that fails) end as the rounds end them.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
g=$BIN/gengraph

need_gpu_build "apsp-gpu row order"
need_gpu "apsp-gpu row order"

# same NAME GRAPH [options]: the two orders give the same matrices byte for
# byte (the headers differ in nothing but the command line), -v says row
# order, and the chains are valid.  PREDS=valid: the predecessors need only
# be valid (a 16-bit run rejected part way).
same() {
	_name=$1 _graph=$2
	shift 2
	if ! APSP_SCHEDULE=rounds $gpu -v "$@" "$_graph" >"$T/in" 2>"$T/err"; then
		fail "$_name" "round after round failed: $(head -c 300 "$T/err")"; return
	fi
	if grep -q "row order" "$T/err"; then
		fail "$_name" "APSP_SCHEDULE=rounds ran in row order"; return
	fi
	if ! APSP_SCHEDULE=rows $gpu -v "$@" "$_graph" >"$T/out" 2>"$T/err"; then
		fail "$_name" "row order failed: $(head -c 300 "$T/err")"; return
	fi
	if ! grep -Eq "row order[^:]*: ${BANDS:-[0-9]+} bands" "$T/err"; then
		fail "$_name" "-v does not say row order${BANDS:+ with $BANDS bands}: $(head -c 300 "$T/err")"; return
	fi
	# without paths the rounds start on the rows as they are read
	case " $* " in
	*" --no-paths "*) _as_read=1 ;;
	*) _as_read=0 ;;
	esac
	if [ "$(grep -c "the first rounds on the rows read" "$T/err")" != "${AS_READ:-$_as_read}" ]; then
		fail "$_name" "-v on the rows taken as read (wanted ${AS_READ:-$_as_read}): $(head -c 300 "$T/err")"; return
	fi
	cp "$T/err" "$T/last.err"
	same_results "$_name" "$T/in" "$T/out" "$_graph" "row order" "$@" && pass "$_name"
}

# Bands are 16 block rows at least: n = 1500 at B = 32 is 47 block rows in
# 3 bands; n = 2100 at B = 64, 33 in 3; n = 1000 at B = 64, 16 in one.
i=0
for n in 1500 1499; do
	i=$((i + 1))
	$g -n $n -d 15 -s $i -o "$T/g"
	BANDS=3 same "int32 n=$n B=32 packed paths" "$T/g" -B 32 --no-16bit
	same "int32 n=$n B=32 --no-paths" "$T/g" -B 32 --no-16bit --no-paths
	same "int32 n=$n B=16 --no-paths" "$T/g" -B 16 --no-16bit --no-paths
	$g -n $n -d 15 -s $i -t float32 --negative -o "$T/g"
	same "float32 negative n=$n (tracked paths)" "$T/g" -B 32 --derive-paths never
	same "float32 n=$n --no-paths" "$T/g" -B 32 --no-paths
	$g -n $n -d 15 -s $i -t float32 -o "$T/g"
	same "float32 n=$n derived paths" "$T/g" -B 32 --derive-paths always
	$g -n $n -d 15 -s $i -w 0:3 -o "$T/g"
	same "int32 zero weights n=$n" "$T/g" -B 32 --no-16bit
	$g -n $n -d 15 -s $i --negative -o "$T/g"
	same "int32 negative weights n=$n" "$T/g" -B 32 --no-16bit
	$g -n $n -d 15 -s $i -w 1:100000 -o "$T/g"
	same "int32 weights too large to pack n=$n" "$T/g" -B 32 --no-16bit
done
for n in 2100 2047; do
	$g -n $n -d 10 -s 7 -o "$T/g"
	BANDS=$(( (n + 1023) / 1024 )) same "16-bit lanes n=$n B=64 --no-paths" "$T/g" -B 64 --16bit --no-paths
	same "16-bit lanes n=$n B=64, derived paths" "$T/g" -B 64 --16bit
	same "16-bit lanes n=$n B=128 --no-paths" "$T/g" -B 128 --16bit --no-paths
	$g -n $n -d 10 -s 8 -w 0:9 -o "$T/g"
	same "16-bit lanes n=$n, zero weights, derived paths" "$T/g" -B 64 --16bit
done
$g -n 1000 -d 15 -s 9 -o "$T/g"
BANDS=1 same "one band (n=1000, B=64)" "$T/g" -B 64 --no-16bit

# 16-bit distances rejected in every band, and rejected after the first band
# went out.  Dense graphs (40 edges a vertex, so that they run dense): in
# "window", each vertex has edges of 4000 to the next 40, so distances reach
# 4000 x 27, past the 16-bit limit; in "late", vertices 0..1023 have edges
# of 1 among themselves and only the rest are such a window.
window 1100 0 1 >"$T/window.mtx"
$BIN/mtx2bin -o "$T/window" "$T/window.mtx"
same "16-bit lanes rejected in the first band --no-paths" "$T/window" -B 64 --16bit --no-paths
same "16-bit lanes rejected in the first band, paths" "$T/window" -B 64 --16bit
window 2100 1024 1 >"$T/late.mtx"
$BIN/mtx2bin -o "$T/chain" "$T/late.mtx"
same "16-bit lanes rejected after the first band --no-paths" "$T/chain" -B 64 --16bit --no-paths
expect_true "-v says the rest came from a 32-bit run" \
	'grep -q "the rest after a 32-bit run" $T/last.err && grep -q "16-bit lanes rejected" $T/last.err'
PREDS=valid same "16-bit lanes rejected after the first band, paths" "$T/chain" -B 64 --16bit

# Without paths the rounds start on the first bands while the rest are read
# (every --no-paths run above).  Here the graphs that turn out otherwise: a
# band whose weights do not fit 16-bit lanes after the first did, or in the
# first; a sparse graph, negative weights, a negative cycle; input that
# fails part way.  Each gives what the rounds give from the whole graph.
window 2100 1024 1 | sed 's/ 4000$/ 9000/' >"$T/heavy.mtx"
$BIN/mtx2bin -o "$T/heavy" "$T/heavy.mtx"
AS_READ=1 same "as read: the second band too heavy for 16-bit lanes" "$T/heavy" -B 64 --16bit --no-paths
expect_true "-v says 32 bits" 'grep -q "int32, plain" $T/last.err'
window 1100 0 1 | sed 's/ 4000$/ 9000/' >"$T/heavy1.mtx"
$BIN/mtx2bin -o "$T/heavy1" "$T/heavy1.mtx"
AS_READ=1 same "as read: the first band too heavy for 16-bit lanes" "$T/heavy1" -B 64 --16bit --no-paths
# others NAME GRAPH WANTED-V [options]: rows first, the same results as
# rounds, and -v matching WANTED-V but not saying the rows were taken as read
others() {
	_name=$1 _graph=$2 _v=$3
	shift 3
	APSP_SCHEDULE=rounds $gpu -v "$@" "$_graph" >"$T/in" 2>"$T/err"
	_rc1=$?
	APSP_SCHEDULE=rows $gpu -v "$@" "$_graph" >"$T/out" 2>"$T/err"
	_rc2=$?
	if [ $_rc1 != $_rc2 ]; then
		fail "$_name" "exit $_rc2, round after round $_rc1: $(head -c 300 "$T/err")"; return
	fi
	if ! grep -Eq "$_v" "$T/err" || grep -q "the first rounds on the rows read" "$T/err"; then
		fail "$_name" "-v: $(head -c 400 "$T/err")"; return
	fi
	if [ $_rc2 = 0 ]; then
		same_results "$_name" "$T/in" "$T/out" "$_graph" "rows first" "$@" && pass "$_name"
	elif cmp -s "$T/in" "$T/out"; then
		pass "$_name"
	else
		fail "$_name" "the outputs differ"
	fi
}
$g -n 2100 -d 0.5 -s 3 -o "$T/sparse"
others "as read: a sparse graph starts again, skipping blocks" "$T/sparse" 'block updates skipped' -B 64 --no-paths
$g -n 2100 -d 10 -s 3 --negative -o "$T/neg"
others "as read: negative weights start again, reweighted" "$T/neg" 'row order: [0-9]+ bands' -B 64 --no-paths
{ window 1100 0 1 | head -2 | awk 'NR == 2 { $3 += 1 } { print }'; window 1100 0 1 | tail -n +3
  echo "6 5 -5000"; } >"$T/cycle.mtx"
$BIN/mtx2bin -o "$T/cycle" "$T/cycle.mtx"
others "as read: a negative cycle, exit 3 and the same output" "$T/cycle" 'negative cycle' -B 64 --no-paths
expect_true "the negative cycle's exit status is 3" \
	'APSP_SCHEDULE=rows $gpu -B 64 --no-paths $T/cycle >/dev/null 2>&1; [ $? = 3 ]'
$g -n 2100 -d 10 -s 3 -z 1 -o "$T/g21"
size=$(wc -c <"$T/g21")
head -c $((size * 3 / 4)) "$T/g21" >"$T/cut"
APSP_SCHEDULE=rounds $gpu --no-paths -o "$T/r1" "$T/cut" 2>"$T/want.err"
expect_true "as read: a truncated input, the rounds' message, exit 2, nothing written" \
	'APSP_SCHEDULE=rows $gpu -B 64 --no-paths "$T/cut" >$T/o 2>$T/e; [ $? = 2 ] && [ ! -s $T/o ] && grep -q truncated $T/e && cmp $T/e $T/want.err'
cp "$T/g21" "$T/bad"
printf '\377\377\377\377' | dd of="$T/bad" bs=1 seek=$((size * 2 / 3)) conv=notrunc 2>/dev/null
APSP_SCHEDULE=rounds $gpu --no-paths -o "$T/r1" "$T/bad" 2>"$T/want.err"
expect_true "as read: a damaged block, the rounds' message, exit 2, nothing written" \
	'APSP_SCHEDULE=rows $gpu -B 64 --no-paths "$T/bad" >$T/o 2>$T/e; [ $? = 2 ] && [ ! -s $T/o ] && grep -Eq "CRC|corrupt|bad header" $T/e && cmp $T/e $T/want.err'
expect_true "as read, in a pipe: the same as round after round" \
	'$g -n 2100 -d 10 -s 6 | APSP_SCHEDULE=rows $gpu -v -B 64 --no-paths 2>$T/v | $BIN/bin2mtx --npy --dist >$T/p1 &&
	$g -n 2100 -d 10 -s 6 | APSP_SCHEDULE=rounds $gpu -B 64 --no-paths | $BIN/bin2mtx --npy --dist >$T/p2 && cmp $T/p1 $T/p2 && grep -q "the first rounds on the rows read" $T/v'

expect_true "in a pipe: gengraph | apsp-gpu in row order | apsp-path" \
	'$g -n 1500 -d 10 -s 5 | APSP_SCHEDULE=rows $gpu -B 32 | $BIN/apsp-path --from 3 >$T/p1 &&
	$g -n 1500 -d 10 -s 5 | APSP_SCHEDULE=rounds $gpu -B 32 | $BIN/apsp-path --from 3 >$T/p2 && cmp $T/p1 $T/p2 && [ -s $T/p1 ]'
$g -n 33000 -d 1 -s 3 -w 1:10 -o "$T/g33k"
expect_stderr "n = 33000: row order chosen, the rows taken as read" 0 'row order, the first rounds on the rows read while the rest came: [0-9]+ bands' '$gpu -v --gpus 1 --no-paths -o $T/r33k $T/g33k'
rm -f "$T/g33k" "$T/r33k"
$g -n 1500 -d 10 -s 5 -o "$T/g15"
expect_true "n = 1500: round after round chosen" \
	'$gpu -v --no-paths $T/g15 2>$T/v >/dev/null && grep -q "n 1500, B" $T/v && ! grep -q "row order" $T/v'

if command -v compute-sanitizer >/dev/null 2>&1; then
	$g -n 1100 -d 15 -s 4 -o "$T/g"
	for tool in memcheck racecheck synccheck; do
		sanitized "compute-sanitizer $tool in row order, packed paths" $tool APSP_SCHEDULE=rows $gpu -B 32 --no-16bit $T/g
	done
	sanitized "compute-sanitizer memcheck in row order, 16-bit lanes, derived paths" memcheck APSP_SCHEDULE=rows $gpu -B 64 --16bit $T/g
	for tool in memcheck racecheck; do
		sanitized "compute-sanitizer $tool, rows taken as read, 16-bit lanes" $tool APSP_SCHEDULE=rows $gpu -B 64 --16bit --no-paths $T/g
	done
	sanitized "compute-sanitizer memcheck, rows taken as read, a band too heavy for 16 bits" memcheck APSP_SCHEDULE=rows $gpu -B 64 --16bit --no-paths $T/heavy
	sanitized "compute-sanitizer memcheck in row order, 16-bit rejected after the first band" memcheck APSP_SCHEDULE=rows $gpu -B 64 --16bit $T/chain
else
	skip "apsp-gpu row order under compute-sanitizer" "no compute-sanitizer"
fi
