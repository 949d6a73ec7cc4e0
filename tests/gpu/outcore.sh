# apsp-gpu out of core: a graph whose matrices do not fit in the device
# (made small with APSP_DEVICE_MEMORY) runs in bands streamed through it and
# gives the same distances and predecessors, entry for entry, as the run that
# fits, in every kind of run (packed, tracked and plain paths, float32,
# negative and zero weights, every B, n not a multiple of B, no band held on
# the device); what fits neither on the device nor, out of core, in host
# memory (APSP_HOST_MEMORY) is refused before any work with the n that fits.
. "$TOP/tests/lib.sh"
gpu=$BIN/apsp-gpu
g=$BIN/gengraph
d=$BIN/apsp-diff

need_gpu_build "apsp-gpu out of core"
need_gpu "apsp-gpu out of core"

# same NAME CAP GRAPH [options]: under APSP_DEVICE_MEMORY=CAP the run goes
# out of core (-v says so) and gives the matrices of the run that fits byte
# for byte (the headers differ in their command lines), with valid chains.
# RESIDENT=k: -v must say that k bands were held on the device.
same() {
	_name=$1 _cap=$2 _graph=$3
	shift 3
	if ! $gpu "$@" "$_graph" >"$T/in" 2>"$T/err"; then
		fail "$_name" "the run that fits failed: $(head -c 300 "$T/err")"; return
	fi
	if ! APSP_DEVICE_MEMORY=$_cap $gpu -v "$@" "$_graph" >"$T/out" 2>"$T/err"; then
		fail "$_name" "out of core failed: $(head -c 300 "$T/err")"; return
	fi
	if ! grep -Eq "out of core: [0-9]+ bands of [0-9]+ rows, ${RESIDENT:-[0-9]+} of them" "$T/err"; then
		fail "$_name" "-v does not say out of core${RESIDENT:+ with $RESIDENT resident}: $(head -c 300 "$T/err")"; return
	fi
	same_results "$_name" "$T/in" "$T/out" "$_graph" "out of core" "$@" && pass "$_name"
}

# n = 1000 at B = 32 with paths: a row of 1024 entries is 8 KiB; 5 MB hold
# about 570 rows, bands of 96, three of them on the device; 1.1 MB hold
# about 100, bands of 32, none on the device.
i=0
for n in 1000 999; do
	i=$((i + 1))
	$g -n $n -d 20 -s $i -o "$T/g"
	same "int32 n=$n B=32 (packed paths)" 5000000 "$T/g" -B 32 --no-16bit
	RESIDENT=0 same "int32 n=$n B=32, no band on the device" 1100000 "$T/g" -B 32 --no-16bit
	same "int32 n=$n --no-paths" 2500000 "$T/g" -B 32 --no-16bit --no-paths
	for B in 16 64 128; do
		same "int32 n=$n B=$B" 6000000 "$T/g" -B $B --no-16bit
	done
	$g -n $n -d 20 -s $i -t float32 --negative -o "$T/g"
	same "float32 negative n=$n (tracked paths)" 5000000 "$T/g" -B 64 --derive-paths never
	same "float32 n=$n --no-paths" 2500000 "$T/g" -B 64 --no-paths
	$g -n $n -d 20 -s $i -w 0:3 -o "$T/g"
	same "int32 zero weights n=$n" 5000000 "$T/g" -B 32 --no-16bit
	$g -n $n -d 20 -s $i --negative -o "$T/g"
	same "int32 negative weights n=$n" 5000000 "$T/g" -B 32 --no-16bit
	$g -n $n -d 20 -s $i -w 1:100000 -o "$T/g"
	same "int32 weights too large to pack n=$n" 5000000 "$T/g" -B 64 --no-16bit
done
# Several GPUs too small together: out of core on the first.
if [ "$(gpu_count)" -lt 2 ]; then
	skip "--gpus 2 out of core" "one GPU on this machine"
elif $gpu --gpus 2 "$T/g" 2>&1 >/dev/null | grep -q "no NCCL"; then
	skip "--gpus 2 out of core" "built without NCCL"
else
	same "--gpus 2, too small for n=999: out of core on one GPU" 3000000 "$T/g" -B 32 --no-16bit --gpus 2
fi
expect_true "out of core: -v says the paths are packed" \
	'APSP_DEVICE_MEMORY=5000000 $gpu -v -B 32 --no-16bit $T/g 2>&1 >/dev/null | grep -q "plain" &&
	$g -n 1000 -d 20 -s 1 -o $T/g1 && APSP_DEVICE_MEMORY=5000000 $gpu -v -B 32 --no-16bit $T/g1 2>&1 >/dev/null | grep -q "packed"'
# A sparse graph (which would take a nested-dissection order and skip
# blocks): out of core it runs dense, as numbered, with the same distances.
$g --grid 30x30 -s 3 -o "$T/grid"
expect_true "a sparse graph out of core: dense, as numbered, same distances" \
	'APSP_DEVICE_MEMORY=3000000 $gpu -v -B 32 $T/grid 2>$T/v >$T/ooc && grep -q "out of core, dense, as numbered" $T/v &&
	$gpu $T/grid >$T/in && $d -q $T/in $T/ooc && $d -q --graph $T/grid $T/ooc'
expect_true "in a pipe: gengraph | apsp-gpu out of core | apsp-path" \
	'$g -n 700 -d 10 -s 5 | APSP_DEVICE_MEMORY=3000000 $gpu --no-16bit | $BIN/apsp-path --from 3 >$T/p1 &&
	$g -n 700 -d 10 -s 5 | $gpu --no-16bit | $BIN/apsp-path --from 3 >$T/p2 && cmp $T/p1 $T/p2 && [ -s $T/p1 ]'

# Too small even out of core: refused before any work, with the n that fits,
# which then runs under the same cap where one more vertex is refused.
$g -n 1000 -d 10 -s 4 -o "$T/big"
expect_stderr "device too small even out of core: says what n fits" 2 \
	'^apsp-gpu: n = 1000 needs .* MiB of device memory .*, at least .* MiB out of core; .* are free: at most n = [0-9]+ fits, out of core \([0-9]+ without paths\)$' \
	'APSP_DEVICE_MEMORY=600000 $gpu -B 32 $T/big >/dev/null'
fit=$(sed -n 's/.*at most n = \([0-9]*\) fits.*/\1/p' "$T/err")
expect_true "the n it names runs out of core (n = $fit), one more does not" \
	'[ -n "$fit" ] && [ "$fit" -lt 1000 ] && $g -n $fit -d 10 -s 4 -o $T/fit &&
	APSP_DEVICE_MEMORY=600000 $gpu -B 32 $T/fit >/dev/null && $g -n $((fit + 1)) -d 10 -s 4 -o $T/fit1 &&
	! APSP_DEVICE_MEMORY=600000 $gpu -B 32 $T/fit1 >/dev/null 2>&1'
# Host memory short for the bands the device cannot hold: refused, with an n
# that fits under the same limits.
expect_stderr "host too small out of core: says what n fits" 2 \
	'^apsp-gpu: n = 1000 does not fit in device memory .* out of core needs .* MiB of host memory beside the graph; .* MiB are available: at most n = [0-9]+ fits$' \
	'APSP_HOST_MEMORY=10000000 APSP_DEVICE_MEMORY=5000000 $gpu -B 32 $T/big >/dev/null'
fit=$(sed -n 's/.*at most n = \([0-9]*\) fits.*/\1/p' "$T/err")
expect_true "the n it names runs (n = $fit)" \
	'[ -n "$fit" ] && [ "$fit" -lt 1000 ] && $g -n $fit -d 10 -s 4 -o $T/fit &&
	APSP_HOST_MEMORY=10000000 APSP_DEVICE_MEMORY=5000000 $gpu -B 32 $T/fit >/dev/null'
expect_true "refused: nothing written" \
	'! APSP_HOST_MEMORY=10000000 APSP_DEVICE_MEMORY=5000000 $gpu -B 32 -o $T/none $T/big 2>/dev/null && [ ! -e $T/none ]'

if command -v compute-sanitizer >/dev/null 2>&1; then
	$g -n 500 -d 15 -s 4 -o "$T/g"
	for tool in memcheck racecheck synccheck; do
		sanitized "compute-sanitizer $tool out of core, packed paths" $tool APSP_DEVICE_MEMORY=1500000 $gpu -B 32 --no-16bit $T/g
	done
	$g -n 500 -d 15 -s 4 -t float32 -o "$T/g"
	sanitized "compute-sanitizer memcheck out of core, float32 tracked paths" memcheck APSP_DEVICE_MEMORY=1500000 $gpu -B 64 --derive-paths never $T/g
else
	skip "apsp-gpu out of core under compute-sanitizer" "no compute-sanitizer"
fi
