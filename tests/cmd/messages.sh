# One message style in every tool: standard input is "standard input", a
# write error names the file written (or "standard output"), sizes are in
# GiB, and two inputs cannot both be standard input.
. "$TOP/tests/lib.sh"
B=$BIN
$B/gengraph -n 40 -d 20 -s 3 >"$T/g"
$B/apsp-cpu "$T/g" >"$T/r"
head -c 40 "$T/r" >"$T/cut"

# A truncated stream on standard input, named the same way by every reader.
for t in apsp-cpu apsp-stats apsp-info bin2mtx apsp-diff; do
	args=
	[ $t = apsp-diff ] && args="- $T/r"
	expect_stderr "$t names a truncated standard input" 2 "^$t: standard input: truncated" \
		"\$B/$t $args <\$T/cut"
done
expect_stderr "apsp-path names a truncated standard input" 2 "^apsp-path: standard input: truncated" \
	'$B/apsp-path 1 2 <$T/cut'
expect_stderr "apsp-gpu names a truncated standard input" 2 \
	"^apsp-gpu: (standard input: truncated|no NVIDIA driver|.*no CUDA)" '$B/apsp-gpu <$T/cut'
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 x\n' >"$T/bad.mtx"
expect_stderr "mtx2bin names standard input with its line" 2 "^mtx2bin: standard input:3: " \
	'$B/mtx2bin <$T/bad.mtx'
printf 'p sp 3 1\na 1 2 x\n' >"$T/bad.gr"
expect_stderr "mtx2bin names standard input with its line (DIMACS)" 2 "^mtx2bin: standard input:2: " \
	'$B/mtx2bin --format dimacs <$T/bad.gr'

# Write errors name what was written.
if [ -w /dev/full ]; then
	for t in apsp-cpu gengraph bin2mtx apsp-stats apsp-info mtx2bin apsp-diff apsp-path; do
		case $t in
		apsp-cpu) in='$T/g' ;;
		gengraph) in='-n 40 -d 20' ;;
		mtx2bin) in='$T/m' ;;
		apsp-diff) in='$T/r $T/r' ;;
		apsp-path) in='-i $T/r 1 2' ;;
		*) in='$T/r' ;;
		esac
		[ $t = mtx2bin ] && $B/bin2mtx "$T/g" >"$T/m"
		force=
		case $t in apsp-cpu | gengraph | mtx2bin) force=-f ;; esac
		expect_stderr "$t: a write error on -o names the file" 2 "^$t: /dev/full: write error" \
			"\$B/$t $in -o /dev/full"
		expect_stderr "$t: a write error on stdout names standard output" 2 \
			"^$t: standard output: write error" "\$B/$t $in $force >/dev/full"
	done
else
	skip "write errors name the file" "no /dev/full"
fi

# Sizes in GiB everywhere: a header announcing n = 2^20 (4 TiB a matrix).
if find_python zlib; then
	$py - "$T/huge" <<'EOF'
import struct, sys, zlib
fixed = b"\x89APM\r\n\x1a\n" + struct.pack("<IIQQIIIIiqI", 1, 68, 1 << 20, 1 << 20, 1, 2, 1, 1 << 20,
                                   0x3fffffff, -1, 0)
open(sys.argv[1], "wb").write(fixed + struct.pack("<I", zlib.crc32(fixed)))
EOF
	for t in apsp-diff bin2mtx; do
		args=$T/huge
		[ $t = apsp-diff ] && args="$T/huge $T/huge"
		expect_stderr "$t gives a matrix's size in GiB" 2 "[0-9] GiB" "\$B/$t $args"
		expect_true "$t gives no size in GB" "! grep -q ' GB' \$T/err"
	done
else
	skip "sizes in GiB" "no python3"
fi

expect_stderr "apsp-diff - - is refused as two standard inputs" 2 \
	"^apsp-diff: standard input .* only one of the inputs" '$B/apsp-diff - - <$T/r'
expect_stderr "apsp-diff --graph - with - is refused" 2 \
	"^apsp-diff: standard input .* only one of the inputs" '$B/apsp-diff --graph - - <$T/r'

# A new user's round two: one style everywhere.
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 1\nx 2 3\n' | gzip >"$T/bad.mtx.gz"
expect_stderr "a gzip'd file is named as it is, not without .gz" 2 "^mtx2bin: .*/bad\.mtx\.gz:3: row index 'x'" \
	'$BIN/mtx2bin -o $T/x $T/bad.mtx.gz'
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 -1\n3 2 2\n' >"$T/negund.mtx"
expect_stderr "mtx2bin's warning names the file, not the matrix" 0 "^mtx2bin: .*/negund\.mtx: warning: an undirected graph" \
	'$BIN/mtx2bin -o $T/x $T/negund.mtx'
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 0.5\n2 3 -0.25\n3 2 -0.5\n' | $BIN/mtx2bin -o "$T/cyc.apm"
expect_stderr "apsp-cpu's negative cycle names the file" 3 "^apsp-cpu: .*/cyc\.apm: the graph has a negative cycle through vertex" \
	'$BIN/apsp-cpu -o $T/x $T/cyc.apm'
expect_stderr "apsp-cpu --stats's negative cycle names the file" 3 "^apsp-cpu: .*/cyc\.apm: the graph has a negative cycle" \
	'$BIN/apsp-cpu --stats $T/cyc.apm'
$BIN/gengraph -n 5 -d 50 | $BIN/apsp-cpu -o "$T/r5.apm"
expect_stderr "apsp-path a b: SRC is the one said wrong" 2 "SRC" '$BIN/apsp-path -i $T/r5.apm a b'
# Refusals for want of memory: one phrasing, what is needed, what there is, the largest n.
phrase="n = [0-9]+ needs [0-9.]+ GiB of memory, this machine has [0-9.]+ GiB: at most n = [0-9]+ fits"
printf '%%%%MatrixMarket matrix coordinate real general\n1000000 1000000 1\n1 2 3\n' >"$T/big.mtx"
expect_stderr "memory refusal: mtx2bin" 2 "^mtx2bin: .*big\.mtx:2: $phrase$" '$BIN/mtx2bin -L matrix -o $T/x $T/big.mtx'
expect_stderr "memory refusal: apsp-cpu on text" 2 "$phrase" '$BIN/apsp-cpu -o $T/x $T/big.mtx'

# Messages the certificate issue named: a truncated stream named once under
# --stats; an edge list whose size line says 0 vertices; the int32 overflow
# refusal offers float64; apsp-path's refusal for want of memory names the
# sources; the man pages' sort commands take a real tab.
"$BIN/gengraph" -n 50 -d 10 -s 3 -o "$T/m50"
expect_true "--stats on a truncated stream: its name once" \
	'head -c 300 "$T/m50" | "$BIN/apsp-cpu" --stats 2>"$T/e" >/dev/null; grep -q "truncated" "$T/e" && ! grep -q "standard input: standard input" "$T/e"'
expect_stderr "an edge list whose size line says 0 vertices" 2 'vertex 2, but the size line says 0 vertices' \
	'printf "0 1\n1 2 3\n" | "$BIN/mtx2bin" -o "$T/x"'
expect_stderr "int32 overflow: float64 offered" 2 'could overflow .*float64' \
	'printf "%%%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 1000000000\n2 3 1000000000\n" | "$BIN/apsp-cpu"'
for page in apsp-cpu apsp-stats; do
	expect_true "man $page: its sort command runs" \
		'! grep -q "sort \\\\-t \\\\(aq\\\\et\\\\(aq" "$TOP/man/$page.1" && printf "a\tb\n" | sort -t "$(printf "\t")" -k2,2 >/dev/null'
done
