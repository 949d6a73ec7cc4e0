# apsp-gpu reading a graph stream straight onto its GPUs (run/direct.c):
# a run on several GPUs without paths takes the rows from the reader's
# windows to the devices that hold them, with no n x n matrix on the host.
# Its results are those of the run that reads the graph first
# (APSP_DIRECT=0), across windows and bands; a graph that cannot be solved
# as read (weights below zero, a negative cycle, sparse, padded, too heavy
# for int32) is handed back and solved as before; a damaged or truncated
# stream ends with exit 2 and nothing written.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
g=$BIN/gengraph
x=$BIN/bin2mtx
m2b=$BIN/mtx2bin

need_gpu_build "apsp-gpu, read straight onto the GPUs"
need_gpu "apsp-gpu, read straight onto the GPUs"
if [ "$(gpu_count)" -lt 2 ]; then
	skip "apsp-gpu, read straight onto the GPUs" "one GPU on this machine"
	exit 0
fi
$g -n 300 -d 10 -s 1 -o "$T/small"
if $gpu --gpus 2 "$T/small" 2>&1 >/dev/null | grep -q "no NCCL"; then
	skip "apsp-gpu, read straight onto the GPUs" "built without NCCL"
	exit 0
fi

# direct NAME GRAPH [options]: on 2 GPUs, the distances (or the statistics)
# of APSP_DIRECT=0's run, byte for byte, and -v says that the graph was
# read straight onto the GPUs (with HANDED=1: that it was not).
direct() {
	_name=$1 _graph=$2
	shift 2
	if ! APSP_DIRECT=0 $gpu --gpus 2 "$@" "$_graph" >"$T/want" 2>"$T/err"; then
		fail "$_name" "read first: $(head -c 300 "$T/err")"; return
	fi
	if ! $gpu --gpus 2 -v "$@" "$_graph" >"$T/got" 2>"$T/v"; then
		fail "$_name" "$(head -c 300 "$T/v")"; return
	fi
	case " $* " in
	*" --stats "*) cmp -s "$T/want" "$T/got" || { fail "$_name" "the statistics differ"; return; } ;;
	*) $x --npy --dist "$T/want" >"$T/want.d" 2>/dev/null
	   $x --npy --dist "$T/got" >"$T/got.d" 2>/dev/null
	   if [ ! -s "$T/want.d" ] || ! cmp -s "$T/want.d" "$T/got.d"; then
		fail "$_name" "the distances differ"; return
	   fi ;;
	esac
	if grep -q "read straight onto the GPUs" "$T/v"; then
		[ "${HANDED:-0}" = 1 ] && { fail "$_name" "-v says read straight: $(head -c 300 "$T/v")"; return; }
	else
		[ "${HANDED:-0}" = 1 ] || { fail "$_name" "-v does not say read straight: $(head -c 300 "$T/v")"; return; }
	fi
	pass "$_name"
}

$g -n 4000 -d 5 -s 1 -o "$T/big"
direct "int32, 16-bit lanes" "$T/big" --no-paths
# Windows of 24 blocks on 2 threads: three of them, the bands' boundary
# (row 2048 at B = 128, 2000 at B = 64) inside the second.
APSP_WINDOW_BYTES=1 direct "int32, three windows" "$T/big" --no-paths -T 2
APSP_WINDOW_BYTES=1 direct "int32 on 32 bits, three windows, B 64" "$T/big" --no-paths -T 2 --no-16bit -B 64
# The reading begins beside the devices' start (some 0.3 s and more): the
# three windows of this 64 MB graph are read and set aside before the
# devices are ready, then put.
expect_true "windows set aside while the devices start" \
	'grep -Eq "read straight: 3 windows of [0-9]+ rows, [1-3] of them set aside" "$T/v"'
# A device too small for its band: the engine goes out of core on one GPU
# and does not take the rows; the reading puts them into a host matrix.
APSP_DEVICE_MEMORY=20000000 HANDED=1 direct "out of core on the devices: the rows read to the host" \
	"$T/big" --no-paths
expect_true "out of core on the devices: -v says so" 'grep -q "out of core" "$T/v"'
direct "int32 --stats" "$T/big" --stats
direct "int32 --stats --summary" "$T/big" --stats --summary
expect_true "--stats: the statistics folded on the devices" \
	'grep -q "statistics folded on the device" "$T/v"'
$g -n 3000 -d 5 -t float32 -w 0.5:70 -s 2 -o "$T/f"
APSP_WINDOW_BYTES=1 direct "float32" "$T/f" --no-paths -T 2
direct "float32 --stats" "$T/f" --stats
cat "$T/big" | $gpu --gpus 2 -v --no-paths >"$T/p" 2>"$T/v"
$x --npy --dist "$T/p" >"$T/p.d" 2>/dev/null
expect_true "from a pipe: the same distances, read straight" \
	'APSP_DIRECT=0 $gpu --gpus 2 --no-paths "$T/big" | $x --npy --dist | cmp -s - "$T/p.d" && grep -q "read straight onto the GPUs" "$T/v"'
# A diagonal of positive weights in the stream: 0, as sv_prepare() makes
# it; one negative entry there: a negative cycle.
if find_python numpy; then
	$g -n 1000 -d 10 -s 9 -o "$T/d0"
	$py -c "
import sys; sys.path.insert(0, \"$TOP/python\"); import apspmat, numpy as np
s = apspmat.load(\"$T/d0\"); np.fill_diagonal(s.weights, 7); apspmat.save(\"$T/diag\", s)
s.weights[500, 500] = -1; apspmat.save(\"$T/negdiag\", s)"
	direct "a diagonal of positive weights" "$T/diag" --no-paths
	expect_stderr "a negative diagonal entry: exit 3" 3 "negative cycle through vertex 500" \
		'$gpu --gpus 2 --no-paths "$T/negdiag" >/dev/null'
else
	skip "a diagonal of positive weights, read straight" "no python3 with numpy"
fi
# A machine whose memory holds no n x n matrix: read straight, the run
# still goes; read first, it is refused.
APSP_DIRECT=0 $gpu --gpus 2 --no-paths "$T/big" | $x --npy --dist >"$T/big.d"
expect_true "host memory below one matrix: read straight, it runs" \
	'APSP_HOST_MEMORY=40000000 $gpu --gpus 2 -v --no-paths "$T/big" 2>"$T/v" | $x --npy --dist | cmp -s - "$T/big.d" && grep -q "read straight onto the GPUs" "$T/v"'
expect_true "host memory below one matrix: no window set aside" \
	'grep -q "0 of them set aside" "$T/v"'
expect_stderr "host memory below one matrix: read first, refused" 2 "needs .* of memory" \
	'APSP_HOST_MEMORY=40000000 APSP_DIRECT=0 $gpu --gpus 2 --no-paths "$T/big" >/dev/null'

# Handed back and solved as before.
$g -n 2000 -d 5 --negative -s 3 -o "$T/neg"
HANDED=1 direct "int32, weights below zero (reweighted)" "$T/neg" --no-paths
HANDED=1 direct "int32, weights below zero, --stats" "$T/neg" --stats
$g -n 2000 -d 5 --negative -t float32 -s 4 -o "$T/negf"
HANDED=1 direct "float32, weights below zero" "$T/negf" --no-paths
$g --grid 30x40 -s 5 -o "$T/grid"
HANDED=1 direct "a sparse graph" "$T/grid" --no-paths --order natural
expect_true "a sparse graph: -v says one GPU" 'grep -q "sparse runs use one" "$T/v"'
$g -n 2000 -d 5 -B 128 -s 6 -o "$T/pad"
HANDED=1 direct "a padded stream (read first)" "$T/pad" --no-paths
direct "--order natural, dense" "$T/big" --no-paths --order natural
expect_stderr "int32 weights too heavy: refused as when read first" 2 "could overflow" \
	'$g -n 600 -d 50 -w 1:100000000 -s 7 | $gpu --gpus 2 --no-paths >/dev/null'
awk 'BEGIN { print 300, 300, 300 * 20 + 1; for (i = 0; i < 300; i++) for (j = 1; j <= 20; j++)
	print i + 1, (i + j) % 300 + 1, 1 + (i + j) % 50; print 2, 1, -500 }' |
	sed '1s/^/%%MatrixMarket matrix coordinate integer general\n/' | $m2b -o "$T/cycle" 2>/dev/null
expect_stderr "a negative cycle: exit 3" 3 "negative cycle" \
	'$gpu --gpus 2 --no-paths -B 64 "$T/cycle" -o "$T/cycle.out"'
expect_true "a negative cycle: its record written" '$BIN/apsp-info "$T/cycle.out" | grep -qi "negative cycle"'
expect_stderr "a negative cycle, --stats: exit 3" 3 "negative cycle" \
	'$gpu --gpus 2 --stats -B 64 "$T/cycle"'

# A damaged or truncated stream: exit 2 naming the block, nothing written.
size=$(wc -c <"$T/big")
head -c $((size * 2 / 3)) "$T/big" >"$T/cut"
for form in "--no-paths" "--stats"; do
	rm -f "$T/res"
	expect_stderr "truncated, $form: exit 2" 2 "truncated|block" \
		'cat "$T/cut" | $gpu --gpus 2 $form -o "$T/res"'
	expect_true "truncated, $form: no output" '[ ! -e "$T/res" ] && ! ls "$T"/.res.* >/dev/null 2>&1'
done
cp "$T/big" "$T/bad"
printf 'XXXXXXXXXXXXXXXX' | dd of="$T/bad" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
rm -f "$T/res"
expect_stderr "damaged: exit 2 naming the block" 2 "block [0-9]+" \
	'$gpu --gpus 2 --no-paths "$T/bad" -o "$T/res"'
expect_true "damaged: no output" '[ ! -e "$T/res" ] && ! ls "$T"/.res.* >/dev/null 2>&1'

if command -v compute-sanitizer >/dev/null 2>&1; then
	$g -n 700 -d 10 -s 8 -o "$T/g"
	sanitized "compute-sanitizer memcheck, read straight onto 2 GPUs" "memcheck --report-api-errors no" \
		APSP_WINDOW_BYTES=1 $gpu --gpus 2 --no-paths -T 2 "$T/g"
else
	skip "compute-sanitizer, read straight" "compute-sanitizer not found"
fi
