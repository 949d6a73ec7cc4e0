# Reliability: damaged and truncated streams, hostile headers, faults (full
# disk, -o, closed pipes, resource limits), deterministic output whatever the
# thread count, and the man pages' EXIT STATUS sections against what the
# tools do.  RELIABILITY_N mutations per stream (default 60), RELIABILITY_SEED
# (default 1) picks them; a failure names the seed and the bytes changed.
. "$TOP/tests/lib.sh"
N=${RELIABILITY_N:-60}
SEED=${RELIABILITY_SEED:-1}
to=
to10=
command -v timeout >/dev/null 2>&1 && to="timeout 60" to10="timeout 10"

# ---- helpers ----

# le BYTES VALUE: VALUE as BYTES little-endian bytes.
le() {
	_n=$1 _v=$2 _s=
	while [ "$_n" -gt 0 ]; do
		_s="$_s\\$(printf %03o $((_v & 255)))"
		_v=$((_v >> 8)); _n=$((_n - 1))
	done
	printf "$_s"
}
# mkheader N NPAD TYPE MATRICES FLAGS BLOCK INF CYCLE [PLEN [PROVENANCE]]:
# a stream header (man/apspmat.5) with a correct CRC (gzip's trailer holds
# the CRC-32 of its input, the same CRC zlib computes).
mkheader() {
	_prov=${10:-}
	_plen=$(printf %s "$_prov" | wc -c)
	{
		printf '\211APM\r\n\032\n'; le 4 1; le 4 $((64 + _plen + 4))
		le 8 "$1"; le 8 "$2"; le 4 "$3"; le 4 "$4"; le 4 "$5"; le 4 "$6"; le 4 "$7"
		le 8 "$8"; le 4 "${9:-$_plen}"
		printf %s "$_prov"
	} >"$T/hdr.tmp"
	cat "$T/hdr.tmp"
	gzip -c <"$T/hdr.tmp" | tail -c 8 | head -c 4
}
# marker COUNT TAG: an end-of-matrix (ENDM) or end-of-stream (ENDS) marker.
marker() { le 4 0; le 4 0; le 4 "$1"; printf %s "$2"; }

# One clear message: exactly one line, "tool: ...", no sanitizer report.
clear_message() { # TOOL FILE
	[ "$(wc -l <"$2")" -eq 1 ] && grep -q "^$1: ." "$2" && ! grep -qi 'sanitizer\|runtime error' "$2"
}

# decode KIND FILE OUT: every matrix of FILE as .npy, concatenated, in OUT.
# Each bin2mtx run checks the blocks of its matrix; together they check all.
decode() {
	case $1 in
	graph) set -- "$2" "$3" weights ;;
	result) set -- "$2" "$3" dist pred ;;
	esac
	_f=$1 _o=$2; shift 2
	: >"$_o"
	for _m; do
		$to "$BIN/bin2mtx" -T 2 --npy --$_m "$_f" >>"$_o" 2>"$T/derr" || return $?
	done
}

# u32 FILE OFFSET COUNT: COUNT little-endian 32-bit numbers at OFFSET.
u32() { od -An -tu4 -j "$2" -N $((4 * $3)) "$1" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//'; }

# The byte offsets that carry structure: the fixed header, the header CRC,
# every block header and every marker (man/apspmat.5), one per line.
structure() {
	_size=$(wc -c <"$1")
	_pos=$(u32 "$1" 12 1)
	seq 0 63
	seq $((_pos - 4)) $((_pos - 1))
	while [ $((_pos + 16)) -le "$_size" ]; do
		seq "$_pos" $((_pos + 15))
		set -- "$1" $(u32 "$1" "$_pos" 4)
		if [ "$2" -eq 0 ] && [ "$3" -eq 0 ]; then
			_pos=$((_pos + 16))
			[ "$5" -eq 1396985413 ] && break # "ENDS"
		else
			_pos=$((_pos + 16 + $3))
		fi
	done
}

# mutations FILE COUNT SEED: COUNT lines "OFFSET VALUE ...", each a damage of
# one to three bytes: a flipped bit or a random new value, at a random place
# or (half the time) on a structural byte.
mutations() {
	_file=$1
	if [ "$(head -c 4 "$1" | od -An -tx1 | tr -d ' ')" = 89415044 ]; then
		structure "$1" >"$T/struct"
	else # not a stream: the first bytes (a gzip or tar header) are the structure
		seq 0 $(($(wc -c <"$1") < 64 ? $(wc -c <"$1") - 1 : 63)) >"$T/struct"
	fi
	awk -v count="$2" -v seed="$3" -v n="$(wc -c <"$1")" '
	{ s[ns++] = $1 }
	END {
		srand(seed)
		for (m = 0; m < count; m++) {
			k = rand() < 0.7 ? 1 : 2 + int(rand() * 2)
			line = ""
			for (j = 0; j < k; j++) {
				off = rand() < 0.5 ? s[int(rand() * ns)] : int(rand() * n)
				# a bit to flip (0..7), or a value to add (8 + 1..255)
				how = rand() < 0.5 ? int(rand() * 8) : 8 + 1 + int(rand() * 255)
				line = line " " off " " how
			}
			print substr(line, 2)
		}
	}' "$T/struct" | while read -r _l; do
		set -- $_l
		_o=
		while [ $# -ge 2 ]; do
			_old=$(od -An -tu1 -j "$1" -N 1 "$_file" | tr -d ' ')
			if [ "$2" -lt 8 ]; then _v=$((_old ^ (1 << $2))); else _v=$(((_old + $2 - 8) % 256)); fi
			_o="$_o $1 $_v"
			shift 2
		done
		echo "${_o# }"
	done
}

# apply ORIG OUT "OFFSET VALUE ...": OUT is ORIG with those bytes replaced.
apply() {
	cp "$1" "$2"
	set -- "$2" $3
	_f=$1; shift
	while [ $# -ge 2 ]; do
		printf "\\$(printf %03o "$2")" | dd of="$_f" bs=1 seek="$1" conv=notrunc 2>/dev/null
		shift 2
	done
}

# ---- streams to damage ----
# Several blocks per matrix (n = 520: 1.08 MB a matrix, 1 MiB blocks),
# deflated and stored, int32 and float32, graphs and results.
$BIN/gengraph -n 520 -d 8 -s 11 -o "$T/g-int" &&
$BIN/gengraph -n 520 -d 8 -s 12 -t float32 --negative -z 0 -o "$T/g-float0" &&
$BIN/gengraph -n 150 -d 10 -s 13 -o "$T/g150" &&
$BIN/apsp-cpu -T 2 "$T/g150" -o "$T/r-int" &&
$BIN/gengraph -n 520 -d 3 -s 14 -t float32 -o "$T/g-f520" &&
$BIN/apsp-cpu -T 2 -z 9 "$T/g-f520" -o "$T/r-float9" ||
	fail setup "could not make the streams to damage"

sweep() { # NAME KIND FILE SEED
	name=$1 kind=$2 src=$3
	decode "$kind" "$src" "$T/want" || { fail "$name" "the undamaged stream does not decode"; return; }
	mutations "$src" "$N" "$4" >"$T/muts"
	rejected=0 harmless=0 bad=
	while read -r m; do
		apply "$src" "$T/mut" "$m"
		decode "$kind" "$T/mut" "$T/got"; rc=$?
		if [ $rc -eq 0 ] && cmp -s "$T/got" "$T/want"; then
			harmless=$((harmless + 1))
		elif [ $rc -eq 2 ] && clear_message bin2mtx "$T/derr"; then
			rejected=$((rejected + 1))
		else
			[ $rc -eq 0 ] && why="a different matrix without an error" || why="exit $rc: $(head -c 200 "$T/derr")"
			bad="bytes (offset value) $m: $why"
			mkdir -p "$TOP/build" && cp "$T/mut" "$TOP/build/reliability-$name.apm"
			break
		fi
	done <"$T/muts"
	if [ -z "$bad" ]; then
		pass "$name: $N damaged streams: $rejected rejected with a message, $harmless decode to the same matrices"
	else
		fail "$name" "seed $4, $bad (kept in build/reliability-$name.apm)"
	fi
}
sweep "damage int32 graph, deflated" graph "$T/g-int" "$SEED"
sweep "damage float32 graph, stored" graph "$T/g-float0" $((SEED + 1))
sweep "damage int32 result" result "$T/r-int" $((SEED + 2))
sweep "damage float32 result, level 9" result "$T/r-float9" $((SEED + 3))

# Whole-stream readers (st_read_all) on damaged results: apsp-diff and
# apsp-path reject or agree, never crash.
mutations "$T/r-int" 25 $((SEED + 4)) >"$T/muts"
bad=
while read -r m; do
	apply "$T/r-int" "$T/mut" "$m"
	$to $BIN/apsp-diff -q "$T/r-int" "$T/mut" 2>"$T/err"; rc=$?
	if [ $rc -ne 0 ] && ! { [ $rc -eq 2 ] && clear_message apsp-diff "$T/err"; }; then
		bad="apsp-diff, bytes $m: exit $rc $(head -c 200 "$T/err")"; break
	fi
	$to $BIN/apsp-info --check "$T/mut" >/dev/null 2>"$T/err"; rc=$?
	if [ $rc -ne 0 ] && ! { [ $rc -eq 2 ] && clear_message apsp-info "$T/err"; }; then
		bad="apsp-info --check, bytes $m: exit $rc $(head -c 200 "$T/err")"; break
	fi
	$to $BIN/apsp-path -i "$T/mut" --tsv 3 140 140 3 >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 0 ] || [ $rc -eq 1 ]; then
		$BIN/apsp-path -i "$T/r-int" --tsv 3 140 140 3 2>/dev/null | cmp -s - "$T/out" ||
			{ bad="apsp-path, bytes $m: exit $rc with a different answer"; break; }
	elif [ $rc -ne 2 ] || ! clear_message apsp-path "$T/err"; then
		bad="apsp-path, bytes $m: exit $rc $(head -c 200 "$T/err")"; break
	fi
done <"$T/muts"
[ -z "$bad" ] && pass "damaged results through apsp-diff, apsp-info --check and apsp-path" || fail "damaged results through apsp-diff, apsp-info --check and apsp-path" "$bad"

# ---- truncation ----
# Cut anywhere, every reader says the stream is truncated (exit 2).
truncations() { # FILE COUNT SEED: fixed and random cut points
	_s=$(wc -c <"$1")
	_h=$(u32 "$1" 12 1)
	{
		printf '%s\n' 0 1 7 8 12 63 64 $((_h - 1)) $((_h + 3)) $((_h + 4)) $((_h + 20)) \
			$((_s - 17)) $((_s - 16)) $((_s - 15)) $((_s - 1))
		awk -v s="$_s" -v c="$2" -v seed="$3" 'BEGIN { srand(seed); for (i = 0; i < c; i++) print int(rand() * s) }'
	} | awk -v s="$_s" '$1 >= 0 && $1 < s'
}
for src in g-int r-float9; do
	bad=
	cnt=0
	for k in $(truncations "$T/$src" 15 "$SEED"); do
		head -c "$k" "$T/$src" >"$T/cut"
		for t in bin2mtx apsp-diff apsp-cpu apsp-info; do
			case $t in
			apsp-diff) [ $src = r-float9 ] || continue; set -- "$T/$src" "$T/cut" ;;
			apsp-cpu) [ $src = g-int ] || continue; set -- "$T/cut" ;;
			*) set -- "$T/cut" ;;
			esac
			$to $BIN/$t "$@" >/dev/null 2>"$T/err"; rc=$?
			if [ $rc -ne 2 ] || ! clear_message $t "$T/err" || ! grep -q 'truncated\|empty input' "$T/err"; then
				bad="$t, cut at byte $k: exit $rc, $(head -c 200 "$T/err")"; break 2
			fi
			cnt=$((cnt + 1))
		done
	done
	[ -z "$bad" ] && pass "truncated $src: $cnt cuts reported as truncation" || fail "truncated $src" "$bad"
done
head -c 4000 "$T/r-int" >"$T/cut"
expect_stderr "truncated result through apsp-path" 2 '^apsp-path: .*truncated' '$BIN/apsp-path <$T/cut 0 1'
expect_stderr "truncated stdin names stdin" 2 '^bin2mtx: standard input: truncated' '$BIN/bin2mtx <$T/cut'

# ---- hostile headers ----
# Sizes that would need absurd memory are refused before anything is
# allocated, with a message naming the size; malformed fields are named too.
# Each header has a correct CRC, so only its values can be refused.
mem_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo 2>/dev/null)
hostile() { # NAME REGEX HEADER-ARGS...: every reader refuses it with a matching message
	_name=$1 _re=$2; shift 2
	mkheader "$@" >"$T/hostile"
	marker 0 ENDM >>"$T/hostile"
	_bad=
	for _t in bin2mtx apsp-cpu apsp-diff apsp-path; do
		case $_t in
		apsp-diff) set -- "$T/hostile" "$T/hostile" ;;
		apsp-path) set -- -i "$T/hostile" 0 1 ;;
		*) set -- "$T/hostile" ;;
		esac
		# A refused header is refused at once: 10 s is plenty (124: a hang).
		$to10 $BIN/$_t "$@" >/dev/null 2>"$T/err"; _rc=$?
		# apsp-path reads rows, not matrices: any clear refusal will do.
		[ $_t = apsp-path ] && _r=. || _r=$_re
		if [ $_rc -ne 2 ] || ! clear_message $_t "$T/err" || ! grep -Eq "$_r" "$T/err"; then
			_bad="$_bad; $_t: exit $_rc, $(head -c 200 "$T/err")"
		fi
	done
	[ -z "$_bad" ] && pass "hostile header: $_name" || fail "hostile header: $_name" "wanted /$_re/${_bad}"
}
INF=1073741823
# NAME|what the message says|the header's fields (mkheader's arguments)
while IFS='|' read -r name re fields; do
	# shellcheck disable=SC2086
	hostile "$name" "$re" $fields
done <<EOT
n = 2^31 - 1|2147483647|2147483647 2147483647 1 7 1 1048576 $INF -1
n = 2^31 (over the format's limit)|2147483648|2147483648 2147483648 1 1 1 1048576 $INF -1
n = 2^63 - 1|9223372036854775807|9223372036854775807 9223372036854775807 1 1 1 1048576 $INF -1
n = 1000000 (4 TB a matrix)|1000000|1000000 1000000 1 1 1 1048576 $INF -1
padded size below n|padded size 10 .*n = 20|20 10 1 1 1 1048576 $INF -1
n = 0 with padding|n is 0|0 16 1 1 1 1048576 $INF -1
block size 0|block size 0|20 20 1 1 1 0 $INF -1
block size 6|block size 6|20 20 1 1 1 6 $INF -1
block size 4 GiB - 4|block size 4294967292|20 20 1 1 1 4294967292 $INF -1
element type 7|element type 7|20 20 7 1 1 1048576 $INF -1
unknown matrix bits|matrix bits 0x81|20 20 1 129 1 1048576 $INF -1
unknown flags|flag bits 0x81|20 20 1 1 129 1048576 $INF -1
another INF convention|INF convention|20 20 1 1 1 1048576 2147483647 -1
cycle vertex out of range|negative-cycle vertex 20|20 20 1 1 5 1048576 $INF 20
provenance length 4 GiB - 1|provenance of 4294967295 bytes|20 20 1 1 1 1048576 $INF -1 4294967295
provenance length past the header|header length|20 20 1 1 1 1048576 $INF -1 1000
EOT
# A graph bigger than this machine's memory but within the format: refused
# with the size, before any matrix is allocated (ulimit -v would catch an
# attempt, but sanitizers need their address space, so the check is on the
# message).
if [ -n "$mem_kb" ]; then
	# 4 n^2 bytes = 1.5 x the memory: one matrix does not fit.
	nbig=$(awk -v k="$mem_kb" 'BEGIN { printf "%d", sqrt(k * 1024 * 1.5 / 4) }')
	hostile "one matrix beyond memory (n = $nbig)" "$nbig|memory" $nbig $nbig 1 1 1 1048576 $INF -1
	mkheader $nbig $nbig 1 1 1 1048576 $INF -1 >"$T/hostile"
	expect_stderr "apsp-cpu: beyond memory, says what n fits" 2 \
		"^apsp-cpu: .*n = $nbig needs .* GiB of memory, .*: at most n = [0-9]+ fits" \
		'$BIN/apsp-cpu $T/hostile >/dev/null'
	# Every reader of results says it in the same words: what is needed,
	# what there is, the largest n (a result of distances, n far beyond).
	nhuge=2000000000 # (apsp-stats holds windows of rows: n far beyond)
	mkheader $nhuge $nhuge 1 2 1 1048576 $INF -1 >"$T/hres"
	for t in "bin2mtx" "apsp-stats" "apsp-diff \$T/hres"; do
		expect_stderr "${t%% *}: a result beyond memory, in the one phrasing" 2 \
			"^${t%% *}: .*hres: n = $nhuge needs [0-9.]+ GiB of memory, this machine has [0-9.]+ GiB: at most n = [0-9]+ fits$" \
			"\$to \$BIN/$t \$T/hres >/dev/null"
	done
	# 4 n^2 bytes = 0.4 x the memory: the graph fits, its three result
	# matrices (weights, distances, predecessors) do not.
	nmid=$(awk -v k="$mem_kb" 'BEGIN { printf "%d", sqrt(k * 1024 * 0.4 / 4) }')
	mkheader $nmid $nmid 1 1 1 1048576 $INF -1 >"$T/hostile"
	expect_stderr "apsp-cpu: graph fits, result does not (n = $nmid)" 2 "^apsp-cpu: .*($nmid|memory)" '$to $BIN/apsp-cpu $T/hostile >/dev/null'
else
	skip "memory-sized hostile headers" "no /proc/meminfo"
fi
# A version from the future and a bad header CRC.
{ mkheader 20 20 1 1 1 1048576 $INF -1 | head -c 8; le 4 4; } >"$T/v4"
expect_stderr "stream version 4" 2 '^bin2mtx: .*version 4' '$BIN/bin2mtx $T/v4'
mkheader 20 20 1 1 1 1048576 $INF -1 >"$T/crc"
printf '\025' | dd of="$T/crc" bs=1 seek=16 conv=notrunc 2>/dev/null
expect_stderr "header CRC" 2 '^bin2mtx: .*CRC mismatch in the stream header' '$BIN/bin2mtx $T/crc'
# Block headers that announce absurd sizes: refused, not allocated or waited for.
{ mkheader 20 20 1 1 1 1048576 $INF -1; le 4 1600; le 4 4294967295; le 4 0; le 4 1; } >"$T/blk"
expect_stderr "block stored size 4 GiB" 2 '^bin2mtx: .*bad header of block 0' '$to $BIN/bin2mtx $T/blk'
{ mkheader 20 20 1 1 1 1048576 $INF -1; le 4 4294967295; le 4 100; le 4 0; le 4 1; } >"$T/blk"
expect_stderr "block raw size 4 GiB" 2 '^bin2mtx: .*bad header of block 0' '$to $BIN/bin2mtx $T/blk'
{ mkheader 20 20 1 1 1 1048576 $INF -1; le 4 1600; le 4 100; le 4 0; le 4 77; } >"$T/blk"
expect_stderr "block method 77" 2 '^bin2mtx: .*bad header of block 0' '$to $BIN/bin2mtx $T/blk'

# ---- faults ----
# Small inputs for every tool.
$BIN/gengraph -n 60 -d 20 -s 5 -o "$T/g60" && $BIN/apsp-cpu "$T/g60" -o "$T/r60" &&
$BIN/bin2mtx --weights "$T/g60" >"$T/g60.mtx" || fail setup "small streams"

# Damage in a matrix the tool does not use is damage all the same: one
# byte of the predecessors (stored blocks, so a CRC mismatch for certain)
# fails bin2mtx's distances and apsp-stats, exit 2, nothing written.
$BIN/apsp-cpu -z 0 "$T/g60" -o "$T/r60s" && cp "$T/r60s" "$T/r60p" &&
	printf 'Z' | dd of="$T/r60p" bs=1 seek=$(($(wc -c <"$T/r60s") - 132)) conv=notrunc 2>/dev/null
for cmd in "bin2mtx -o \$T/x" "bin2mtx --npy -o \$T/x" "apsp-stats -o \$T/x" \
	"apsp-stats --summary -o \$T/x"; do
	rm -f "$T/x"
	expect_stderr "damaged predecessors: ${cmd% -o*} fails" 2 \
		"^${cmd%% *}: .*r60p: CRC mismatch in block 0 of the predecessor matrix" \
		"\$BIN/$cmd \$T/r60p; rc=\$?; ! test -e \$T/x || rc=9; exit \$rc"
done

# Compressed text input (mtx2bin through zlib and libarchive): damaged
# anywhere, rejected with a message or read as the same graph.
# (Fixed times and names, so that a seed names the same damage on every run.)
gzip -nc "$T/g60.mtx" >"$T/g60.mtx.gz"
mkdir -p "$T/tar/g60" && cp "$T/g60.mtx" "$T/tar/g60/" && touch -t 202001010000 "$T/tar/g60/g60.mtx" "$T/tar/g60" &&
	(cd "$T/tar" && tar cf - g60 | gzip -n >../g60.tar.gz)
archived=g60.tar.gz
has_archives || { archived=; skip "damaged g60.tar.gz" "mtx2bin built without libarchive"; }
for src in g60.mtx.gz $archived; do
	$BIN/mtx2bin "$T/$src" | $BIN/bin2mtx --npy >"$T/want" || fail "mtx2bin $src" "does not import"
	mutations "$T/$src" 30 "$SEED" >"$T/muts"
	bad= rejected=0 same=0
	while read -r m; do
		apply "$T/$src" "$T/mut.${src#g60.}" "$m"
		$to $BIN/mtx2bin -o "$T/mut.apm" "$T/mut.${src#g60.}" 2>"$T/err"; rc=$?
		if [ $rc -eq 0 ] && $BIN/bin2mtx --npy "$T/mut.apm" | cmp -s - "$T/want"; then
			same=$((same + 1))
		elif [ $rc -eq 2 ] && clear_message mtx2bin "$T/err"; then
			rejected=$((rejected + 1))
		else
			bad="bytes $m: exit $rc $(head -c 200 "$T/err")"; break
		fi
	done <"$T/muts"
	[ -z "$bad" ] && pass "damaged $src: $rejected rejected, $same read as the same graph" ||
		fail "damaged $src" "seed $SEED, $bad"
	s=$(wc -c <"$T/$src")
	expect_stderr "truncated $src" 2 '^mtx2bin: .*(truncated|unexpected end|bad gzip)' 'head -c $((s / 2)) $T/$src >$T/cut.${src#g60.} && $BIN/mtx2bin $T/cut.${src#g60.}'
done
expect_stderr "gzip with trailing garbage" 2 '^mtx2bin: .*gzip' '{ cat $T/g60.mtx.gz; echo junk; } >$T/junk.mtx.gz && $BIN/mtx2bin $T/junk.mtx.gz'

# Every tool that writes, with its arguments (stdout is the output).
writers() {
	cat <<EOT
gengraph -n 300 -d 20
mtx2bin $T/g60.mtx
mtx2bin --check $T/g60.mtx
apsp-cpu $T/g60
bin2mtx $T/r60
bin2mtx --npy $T/r60
apsp-path -i $T/r60 0 1
apsp-path -i $T/r60 --from 0
apsp-diff $T/r60 $T/r60
apsp-diff --graph $T/g60 $T/r60
EOT
}
# full_disk NAME [-o]: every writer, writing to /dev/full (on standard
# output, or with -o through the option: a device, not replaced, written
# directly), exits 2 with one clear message giving the system's reason.
full_disk() {
	_name=$1 _via=${2:-}
	bad=
	while read -r t args; do
		if [ -n "$_via" ]; then
			case "$t $args" in apsp-diff* | *--check*) continue ;; esac
			$to $BIN/$t -o /dev/full $args >/dev/null 2>"$T/err"; rc=$?
		else
			$to $BIN/$t $args >/dev/full 2>"$T/err"; rc=$?
		fi
		if [ $rc -ne 2 ] || ! clear_message $t "$T/err" || ! grep -q 'No space left on device' "$T/err"; then
			bad="$bad; $t ${_via:+-o /dev/full }$args: exit $rc, $(head -c 200 "$T/err")"
		fi
	done <<EOT
$(writers)
EOT
	[ -z "$bad" ] && pass "$_name" || fail "$_name" "${bad#; }"
}
full_disk "/dev/full: every tool exits 2 with 'No space left on device'"
full_disk "-o /dev/full: exit 2 with 'No space left on device'" -o

# A file-size limit (ulimit -f, a disk quota alike): exit 2, the old file
# stays as it was, no temporary file is left beside it.
mkdir "$T/lim"
bad=
for cmd in "gengraph -n 2000 -d 50" "apsp-cpu -z 0 $T/g-f520" "bin2mtx --npy $T/g-int" "mtx2bin -z 0 $T/big.mtx"; do
	[ -f "$T/big.mtx" ] || $BIN/bin2mtx --weights "$T/g-int" >"$T/big.mtx"
	echo precious >"$T/lim/out"
	( ulimit -f 64; exec $BIN/$cmd -o "$T/lim/out" 2>"$T/err" ) 2>/dev/null; rc=$?
	t=${cmd%% *}
	if [ $rc -ne 2 ] || ! clear_message $t "$T/err" || [ "$(cat "$T/lim/out")" != precious ] || [ "$(ls -A "$T/lim")" != out ]; then
		bad="$bad; $cmd: exit $rc, $(head -c 200 "$T/err"), left: $(ls -A "$T/lim" | tr '\n' ' ')"
		rm -f "$T/lim"/.out*
	fi
done
[ -z "$bad" ] && pass "ulimit -f: exit 2, the old file kept, no temporary file" || fail "ulimit -f" "${bad#; }"

# -o FILE: a failure part-way (damaged input found after the output was
# opened) leaves an existing FILE alone and creates none.
head -c 30000 "$T/g-int" >"$T/cut-g"
head -c 2000 "$T/r60" >"$T/cut-r"
head -n 150 "$T/big.mtx" >"$T/cut.mtx" && echo "1 1 x" >>"$T/cut.mtx"
mkdir "$T/o"
bad=
while read -r t args; do
	echo precious >"$T/o/keep"
	$to $BIN/$t $args -o "$T/o/keep" >/dev/null 2>"$T/err"; rc=$?
	$to $BIN/$t $args -o "$T/o/new" >/dev/null 2>>"$T/err"; rc2=$?
	if [ $rc -ne 2 ] || [ $rc2 -ne 2 ] || [ "$(cat "$T/o/keep")" != precious ] || [ "$(ls -A "$T/o")" != keep ]; then
		bad="$bad; $t $args: exit $rc/$rc2, left: $(ls -A "$T/o" | tr '\n' ' ') $(head -c 200 "$T/err")"
		rm -f "$T/o/new" "$T/o"/.*keep* "$T/o"/.*new* 2>/dev/null
	fi
done <<EOT
mtx2bin $T/cut.mtx
apsp-cpu $T/cut-g
bin2mtx $T/cut-r
bin2mtx --npy $T/cut-r
apsp-path -i $T/cut-r 0 1
apsp-path -i $T/r60 0 1 0 999
EOT
[ -z "$bad" ] && pass "-o FILE: a failure keeps the old file and creates none" || fail "-o FILE on failure" "${bad#; }"
# Killed part-way: the same.
echo precious >"$T/o/keep"
$BIN/gengraph -n 3000 -d 40 -s 3 -o "$T/g1500"
$BIN/apsp-cpu -T 1 "$T/g1500" -o "$T/o/keep" 2>/dev/null & pid=$!
sleep 0.3; kill -TERM $pid 2>/dev/null; wait $pid 2>/dev/null; rc=$?
expect_true "apsp-cpu killed: the old file kept, no temporary file (status $rc)" '[ "$(cat $T/o/keep)" = precious ] && [ "$(ls -A $T/o)" = keep ]'

# A downstream tool that stops reading ends the upstream ones quietly: no
# message; killed by SIGPIPE or exit 0, never exit 2.
quiet_pipe() { # NAME 'upstream' 'downstream'
	( eval "$2" 2>"$T/up.err"; echo $? >"$T/up.rc" ) | ( eval "$3" ) >/dev/null 2>"$T/down.err"
	rc=$(cat "$T/up.rc")
	if [ -s "$T/up.err" ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 141 ]; }; then
		fail "$1" "upstream exit $rc, said '$(head -c 200 "$T/up.err")'"
	else
		pass "$1"
	fi
}
quiet_pipe "apsp-cpu | apsp-path: quiet when apsp-path has its rows" '$BIN/apsp-cpu -z 0 $T/g1500' '$BIN/apsp-path 0 1'
quiet_pipe "gengraph | apsp-cpu | apsp-path: quiet" '$BIN/gengraph -n 1200 -d 30 | $BIN/apsp-cpu -z 0 2>$T/mid.err; [ ! -s $T/mid.err ] || { cat $T/mid.err >&2; exit 2; }' '$BIN/apsp-path 3 17'
quiet_pipe "mtx2bin | head -c: quiet" '$BIN/mtx2bin -z 0 $T/big.mtx' 'head -c 100'
quiet_pipe "apsp-cpu | head -c: quiet" '$BIN/apsp-cpu -z 0 $T/g-int' 'head -c 100'
quiet_pipe "bin2mtx --dense | head -n 1: quiet" '$BIN/bin2mtx --dense $T/g1500' 'head -n 1'
quiet_pipe "apsp-path --from | head -n 1: quiet" '$BIN/apsp-cpu $T/g1500 -o $T/r1500 && $BIN/apsp-path -i $T/r1500 --from 0 && $BIN/apsp-path -i $T/r1500 --from 1' 'head -n 1'
quiet_pipe "apsp-diff | head -c 1: quiet" '$BIN/apsp-diff -n 100000 $T/r1500 $T/r-float9 2>/dev/null; true' 'head -c 1'

# ---- deterministic output ----
# The same input and options give the same bytes for any thread count; only
# the provenance line (which records -T) may differ.  body FILE: the bytes
# after the provenance, and the header's fixed fields.
body() {
	_h=$(od -An -tu4 -j 12 -N 4 "$1" | tr -d ' ')
	head -c 60 "$1" | tail -c 44
	tail -c +$((_h + 1)) "$1"
}
same_bytes() { # NAME 'command writing to $OUT' KIND: KIND bytes or stream
	_bad=
	for _t in 1 2 4; do
		OUT=$T/det.$_t
		( TH=$_t; eval "$2" ) 2>"$T/err" || { _bad="-T $_t failed: $(head -c 200 "$T/err")"; break; }
	done
	if [ -z "$_bad" ]; then
		for _t in 2 4; do
			if [ "$3" = stream ]; then
				body "$T/det.1" >"$T/det.a"; body "$T/det.$_t" >"$T/det.b"
			else
				cp "$T/det.1" "$T/det.a"; cp "$T/det.$_t" "$T/det.b"
			fi
			cmp -s "$T/det.a" "$T/det.b" || { _bad="-T 1 and -T $_t differ"; break; }
		done
	fi
	[ -z "$_bad" ] && pass "same output for -T 1, 2, 4: $1" || fail "same output for -T 1, 2, 4: $1" "$_bad"
}
same_bytes "gengraph int32, several blocks" '$BIN/gengraph -T $TH -n 700 -d 20 -s 9 -o $OUT' stream
same_bytes "gengraph float32 --negative" '$BIN/gengraph -T $TH -n 700 -d 20 -s 9 -t float32 --negative -o $OUT' stream
same_bytes "gengraph --undirected" '$BIN/gengraph -T $TH -n 700 -d 20 -s 9 --undirected -o $OUT' stream
same_bytes "mtx2bin" '$BIN/mtx2bin -T $TH $T/big.mtx -o $OUT' stream
# Ties everywhere (weights 0..2) test that predecessors do not depend on
# which thread relaxes first; float32 sums must not depend on the order.
$BIN/gengraph -n 700 -d 15 -w 0:2 -s 21 -o "$T/ties"
$BIN/gengraph -n 700 -d 15 -t float32 --negative -s 22 -o "$T/fneg"
same_bytes "apsp-cpu int32 with ties" '$BIN/apsp-cpu -T $TH $T/ties -o $OUT' stream
same_bytes "apsp-cpu float32 negative, -B 32" '$BIN/apsp-cpu -T $TH -B 32 $T/fneg -o $OUT' stream
same_bytes "apsp-cpu -z 0 --no-paths" '$BIN/apsp-cpu -T $TH -z 0 --no-paths $T/ties -o $OUT' stream
$BIN/apsp-cpu "$T/fneg" -o "$T/rfneg" 2>/dev/null
same_bytes "bin2mtx --dense" '$BIN/bin2mtx -T $TH --dense $T/rfneg >$OUT' bytes
same_bytes "bin2mtx --npy --pred" '$BIN/bin2mtx -T $TH --npy --pred $T/rfneg >$OUT' bytes
same_bytes "bin2mtx Matrix Market" '$BIN/bin2mtx -T $TH --weights $T/fneg | grep -v "^%" >$OUT' bytes
same_bytes "apsp-path --from" '$BIN/apsp-path -T $TH -i $T/rfneg --tsv --from 5 >$OUT; [ $? -le 1 ]' bytes
same_bytes "apsp-diff report" '$BIN/apsp-diff -T $TH -n 5 $T/rfneg $T/rfneg >$OUT' bytes
# And the deflate level changes the bytes but never the matrices.
expect_true "apsp-cpu -z 0, 1, 9: the same matrices" '
	for z in 0 1 9; do $BIN/apsp-cpu -z $z $T/ties -o $T/z$z || exit 1
		$BIN/bin2mtx --npy --dist $T/z$z >$T/z$z.d; $BIN/bin2mtx --npy --pred $T/z$z >$T/z$z.p; done
	cmp $T/z0.d $T/z1.d && cmp $T/z0.d $T/z9.d && cmp $T/z0.p $T/z1.p && cmp $T/z0.p $T/z9.p'

# The unit tests print text only: a stray byte once hid a PASS line from
# tests/run.sh's count.
if [ -x "$TOP/build/tests/test_stream" ]; then
	expect_true "test_stream prints text only" '"$TOP/build/tests/test_stream" >"$T/ts.out"; ! LC_ALL=C grep -q "[^[:print:][:space:]]" "$T/ts.out"'
fi
# An empty -o name is refused before any work (apsp-cpu would solve first).
expect_stderr "apsp-cpu -o empty" 2 'file name is empty' '$BIN/apsp-cpu "$T/neg" -o ""'

# ---- EXIT STATUS ----
# Each tool's man page lists its statuses; each one is produced here, and no
# status is produced that the page does not list.
printf '0 1 -1\n1 0 0\n' >"$T/neg.txt"
$BIN/mtx2bin -F edges "$T/neg.txt" -o "$T/neg" &&
{ $BIN/apsp-cpu "$T/neg" -o "$T/negr" 2>/dev/null; [ $? -eq 3 ]; } || fail setup "negative-cycle stream"
printf '0 1 2\n2 3 1\n' >"$T/two.txt"
$BIN/mtx2bin -F edges "$T/two.txt" | $BIN/apsp-cpu -o "$T/rtwo"
$BIN/gengraph -n 60 -d 20 -s 6 | $BIN/apsp-cpu -o "$T/r60b"
exits() {
	cat <<EOT
gengraph 0 \$BIN/gengraph -n 5 -d 10
gengraph 2 \$BIN/gengraph -n 0 -d 10
mtx2bin 0 \$BIN/mtx2bin \$T/g60.mtx
mtx2bin 2 \$BIN/mtx2bin \$T/cut.mtx
apsp-cpu 0 \$BIN/apsp-cpu \$T/g60
apsp-cpu 2 \$BIN/apsp-cpu \$T/cut-g
apsp-cpu 3 \$BIN/apsp-cpu \$T/neg
apsp-path 0 \$BIN/apsp-path -i \$T/r60 0 1
apsp-path 1 \$BIN/apsp-path -i \$T/rtwo 0 3
apsp-path 2 \$BIN/apsp-path -i \$T/r60 0 60
apsp-path 3 \$BIN/apsp-path -i \$T/negr 0 1
apsp-diff 0 \$BIN/apsp-diff \$T/r60 \$T/r60
apsp-diff 1 \$BIN/apsp-diff \$T/r60 \$T/r60b
apsp-diff 2 \$BIN/apsp-diff \$T/r60 \$T/cut-r
apsp-diff 3 \$BIN/apsp-diff \$T/negr \$T/negr
bin2mtx 0 \$BIN/bin2mtx \$T/r60
bin2mtx 2 \$BIN/bin2mtx \$T/cut-r
bin2mtx 3 \$BIN/bin2mtx \$T/negr
apsp-info 0 \$BIN/apsp-info \$T/r60 \$T/negr
apsp-info 1 \$BIN/apsp-info --graph \$T/g60 \$T/r60b
apsp-info 2 \$BIN/apsp-info \$T/cut-r
apsp-info 3 \$BIN/apsp-info --graph \$T/g60 \$T/negr
apsp-stats 0 \$BIN/apsp-stats \$T/r60
apsp-stats 2 \$BIN/apsp-stats \$T/cut-r
apsp-stats 3 \$BIN/apsp-stats \$T/negr
apsp-gpu 0 \$BIN/apsp-gpu \$T/g60
apsp-gpu 2 \$BIN/apsp-gpu \$T/cut-g
apsp-gpu 3 \$BIN/apsp-gpu \$T/neg
EOT
}
exits >"$T/exits"
for man in "$TOP"/man/*.1; do
	t=$(basename "$man" .1)
	doc=$(awk '/^\.SH "?EXIT STATUS/ { p = 1; next } /^\.SH/ { p = 0 } p && prev == ".TP" && /^[0-9]+$/ { print } { prev = $0 }' "$man" | sort -n | tr '\n' ' ')
	tested=$(awk -v t="$t" '$1 == t { print $2 }' "$T/exits" | sort -n | tr '\n' ' ')
	if [ -z "$doc" ]; then
		fail "$t: EXIT STATUS" "man/$t.1 has no EXIT STATUS section listing statuses"
		continue
	fi
	[ "$doc" = "$tested" ] && pass "$t: man page statuses ($doc) are the tested ones" ||
		fail "$t: EXIT STATUS" "man page lists '$doc', tests check '$tested'"
	if [ ! -x "$BIN/$t" ]; then
		skip "$t: exit statuses" "not built"
		continue
	fi
	awk -v t="$t" '$1 == t { $1 = ""; print }' "$T/exits" | while read -r want cmd; do
		if [ $t = apsp-gpu ] && [ "$want" != 2 ] && ! has_gpu; then
			skip "$t: exit $want" "no GPU"
			continue
		fi
		( eval "$to $cmd" ) >/dev/null 2>"$T/err"; rc=$?
		[ $rc -eq "$want" ] && pass "$t: exit $want ($cmd)" ||
			fail "$t: exit $want" "$cmd: exit $rc, $(head -c 200 "$T/err")"
	done
	# The summary in --help agrees with the page.
	h=$($BIN/$t --help 2>/dev/null | tr '\n' ' ' | sed -n 's/.*[Ee]xit status:\([^.]*\)\..*/\1/p' |
		grep -o '\b[0-9]\b' | sort -nu | tr '\n' ' ')
	[ -z "$h" ] || [ "$h" = "$doc" ] && pass "$t: --help exit statuses agree with the man page" ||
		fail "$t: --help exit statuses" "--help lists '$h', the man page '$doc'"
done
