# Command tests of bin2mtx: the three output forms, matrix choice, errors.
. "$TOP/tests/lib.sh"
D=$TDATA/bin2mtx
g=$BIN/gengraph
b=$BIN/bin2mtx
nl='
'
body() { grep -v '^%'; } # Matrix Market without its comment lines

# Matrix Market: header, 1-based, finite entries only, real n (not npad).
expect_output mtx-weights-padded "3 3 3${nl}1 2 5${nl}2 3 -2${nl}3 1 4" '$b $D/weights3.apm | body'
expect_output mtx-header '%%MatrixMarket matrix coordinate integer general' '$b $D/weights3.apm | head -n 1'
expect_true mtx-provenance '$b $D/result3.apm | grep -q "^% @PG	ID:handmade	VN:0	CL:handmade$"'
expect_output mtx-default-dist "3 3 9${nl}1 1 0${nl}1 2 5${nl}1 3 3${nl}2 1 2${nl}2 2 0${nl}2 3 -2${nl}3 1 4${nl}3 2 9${nl}3 3 0" '$b $D/result3.apm | body'
expect_output mtx-choose-weights "3 3 3" '$b --weights $D/result3.apm | body | head -n 1'
expect_output mtx-pred-1based "3 3 6${nl}1 2 1${nl}1 3 2${nl}2 1 3${nl}2 3 2${nl}3 1 3${nl}3 2 1" '$b --pred $D/result3.apm | body'
expect_output mtx-real "2 2 3${nl}1 1 0${nl}1 2 0.100000001${nl}2 2 0" '$b $D/float2.apm | body'
expect_true mtx-real-header '$b $D/float2.apm | head -n 1 | grep -q "coordinate real general"'
expect_output stdin-dash "3 3 3" '$b - <$D/weights3.apm | body | head -n 1'
expect_output stdin-none "3 3 3" '$b <$D/weights3.apm | body | head -n 1'

# Dense: inf for unreachable, predecessors 0-based with -1.
expect_output dense-weights "0 5 inf${nl}inf 0 -2${nl}4 inf 0" '$b --dense $D/weights3.apm'
expect_output dense-pred "-1 0 1${nl}2 -1 1${nl}2 0 -1" '$b --dense --pred $D/result3.apm'
expect_output dense-float "0 0.100000001${nl}inf 0" '$b --dense $D/float2.apm'
expect_true dense-matches-mtx '$g -n 40 -d 30 -B 8 -o $T/g && $b --dense $T/g >$T/d && $b $T/g | mtx_general | body | tail -n +2 >$T/m &&
	awk "{for (j = 1; j <= NF; j++) if (\$j != \"inf\") print NR, j, \$j}" $T/d | cmp - $T/m'
# %.9g reads back to the same float32: 0.1f is 0.100000001490116..., 9 digits keep it.
expect_true float-9-digits '$g -n 60 -d 40 -t float32 -w 0.001:1 | $b --dense | tr " " "\n" |
	awk "/[0-9]/ {s = \$1; sub(/^-/, \"\", s); sub(/e.*/, \"\", s); gsub(/[.]/, \"\", s); sub(/^0+/, \"\", s); if (length(s) > 9) exit 1}"'
# Floats are written exactly as printf's %.9g writes them, tiny and huge ones too.
expect_true float-like-printf '{ $g -n 100 -d 60 -t float32 -w 0.00001:0.0002 | $b --dense; $g -n 100 -d 60 -t float32 -w 1e9:3e10 | $b --dense;
	$g -n 100 -d 60 -t float32 -w 0.5:1000 | $b --dense; } | tr " " "\n" | grep -v inf >$T/fl &&
	awk "{printf \"%.9g\\n\", \$1}" $T/fl | cmp - $T/fl && grep -q "e-05" $T/fl && grep -q "e+10" $T/fl && grep -q "^0.000" $T/fl'
expect_true float-negative-like-printf '$g -n 120 -d 60 -t float32 -w 0.001:0.01 --negative=0.2 | $b --dense | tr " " "\n" | grep -v inf >$T/fl &&
	awk "{printf \"%.9g\\n\", \$1}" $T/fl | cmp - $T/fl && grep -q "^-0.0" $T/fl'

# Round trips through mtx2bin: the text holds every bit of the matrix.
if [ -x "$BIN/mtx2bin" ]; then
	expect_true float-round-trip '$g -n 50 -d 40 -t float32 -w 0.001:1 -o $T/f && $b --npy $T/f >$T/f.npy &&
		$b $T/f | $BIN/mtx2bin | $b --npy | cmp - $T/f.npy'
	expect_true int-round-trip '$g -n 50 -d 40 -w -1000000:1000000 -o $T/i && $b --npy $T/i >$T/i.npy &&
		$b $T/i | $BIN/mtx2bin | $b --npy | cmp - $T/i.npy'
else
	skip float-round-trip "no mtx2bin"
	skip int-round-trip "no mtx2bin"
fi

# NumPy: magic, version 1.0, dict, 64-byte aligned data, C order, little-endian.
expect_output npy-magic '934e554d505901007600' '$b --npy $D/weights3.apm | head -c 10 | od -An -tx1 | tr -d " \n"'
expect_true npy-dict '$b --npy $D/weights3.apm | head -c 128 | grep -aq "{.descr.: .<i4., .fortran_order.: False, .shape.: (3, 3), }"'
expect_output npy-size "$((128 + 9 * 4))" '$b --npy $D/weights3.apm | wc -c | tr -d " "'
expect_output npy-int32-inf '0 5 1073741823 1073741823 0 -2 4 1073741823 0' '$b --npy $D/weights3.apm | tail -c 36 | od -An -v -td4 | tr -s " \n" " " | sed "s/^ //; s/ $//"'
expect_output npy-pred '-1 0 1 2 -1 1 2 0 -1' '$b --npy --pred $D/result3.apm | tail -c 36 | od -An -v -td4 | tr -s " \n" " " | sed "s/^ //; s/ $//"'
expect_true npy-float '$b --npy $D/float2.apm | head -c 128 | grep -aq "<f4" &&
	[ "$($b --npy $D/float2.apm | tail -c 16 | od -An -v -tx4 | tr -s " \n" " ")" = " 00000000 3dcccccd 7f800000 00000000 " ]'
expect_output npy-big-shape 1 '$g -n 1000 -d 1 | $b --npy | head -c 128 | grep -ac "(1000, 1000)"'
if find_python numpy; then
	expect_output npy-numpy-load '(3, 3) int32 -2' '$b --npy -o $T/w.npy $D/weights3.apm && "$py" -c "import numpy; a = numpy.load(\"$T/w.npy\"); print(a.shape, a.dtype, a[1, 2])"'
else
	skip npy-numpy-load "no numpy"
fi

# Errors.
expect_stderr negcycle 3 'negative cycle through vertex 2' '$b $D/negcycle.apm'
expect_stderr negcycle-dense 3 'negative cycle' '$b --dense $D/negcycle.apm'
expect_stderr no-dist 2 'holds no distances' '$b --dist $D/weights3.apm'
expect_stderr no-pred 2 'holds no predecessors' '$b --pred $D/float2.apm'
expect_stderr missing-file 2 'nonexistent: No such file or directory' '$b $T/nonexistent'
expect_stderr directory 2 'Is a directory' '$b $T'
expect_stderr two-files 2 'one input' '$b $D/weights3.apm $D/weights3.apm'
expect_status not-a-stream 2 'echo hello | $b'
expect_status empty 2 '$b </dev/null'
expect_true truncated-no-output '$g -n 200 -d 20 -o $T/full && head -c 2000 $T/full >$T/trunc &&
	! $b $T/trunc >$T/out 2>$T/msg && [ ! -s $T/out ] && [ -s $T/msg ]'
expect_true truncated-no-o-file '! $b -o $T/never $T/trunc 2>/dev/null && [ ! -e $T/never ] && [ -z "$(ls -A $T | grep never)" ]'

# A bigger round trip through all three forms, and -o.
expect_true big-forms '$g -n 700 -d 10 -o $T/big && $b -o $T/big.mtx $T/big && $b --dense -o $T/big.txt $T/big &&
	$b --npy -o $T/big.npy $T/big && [ $(wc -l <$T/big.txt) -eq 700 ] &&
	[ $(wc -c <$T/big.npy) -eq $((128 + 700 * 700 * 4)) ] &&
	[ $(grep -v "^%" $T/big.mtx | wc -l) -eq $(( $(grep -v "^%" $T/big.mtx | head -n 1 | cut -d" " -f3) + 1 )) ]'
expect_true threads-same '$b -T 1 --dense $T/big >$T/t1 && $b -T 2 --dense $T/big | cmp - $T/t1 && $b -T 5 $T/big >$T/m5 && $b -T 1 $T/big | cmp - $T/m5'

# Two formats, or two matrices, are a usage error, not the last one taken.
expect_stderr "--dense --npy: refused" 2 "^bin2mtx: --dense, --npy and --json are three formats" '$BIN/bin2mtx --dense --npy /dev/null'
expect_stderr "--json --npy: refused" 2 "^bin2mtx: --dense, --npy and --json are three formats" '$BIN/bin2mtx --json --npy /dev/null'
expect_stderr "--npy --dense: refused" 2 "^bin2mtx: --dense, --npy and --json are three formats" '$BIN/bin2mtx --npy --dense /dev/null'
expect_stderr "--dist --pred: refused" 2 "^bin2mtx: --weights, --dist and --pred choose one" '$BIN/bin2mtx --dist --pred /dev/null'

# The weights as Matrix Market keep what a graph is: an undirected graph's
# file is symmetric (a round trip through mtx2bin keeps it undirected: the
# same statistics), and no diagonal 0 is written (it is no loop).
"$BIN/gengraph" -n 60 -d 10 --undirected -s 8 -o "$T/und"
expect_true "--weights of an undirected graph: symmetric, its lower triangle" \
	'$BIN/bin2mtx --weights "$T/und" >$T/und.mtx && head -n 1 $T/und.mtx | grep -q "coordinate integer symmetric" &&
	 grep -v "^%" $T/und.mtx | awk "NR > 1 && \$2 > \$1 { exit 1 }"'
expect_true "... a round trip keeps the graph undirected: the same statistics" \
	'$BIN/apsp-cpu --stats --summary "$T/und" >$T/s1 && $BIN/mtx2bin "$T/und.mtx" | $BIN/apsp-cpu --stats --summary >$T/s2 && cmp -s $T/s1 $T/s2'
expect_true "--weights writes no diagonal 0" \
	'$BIN/gengraph -n 20 -d 20 -s 2 | $BIN/bin2mtx --weights | grep -v "^%" | awk "NR > 1 && \$1 == \$2 { exit 1 }"'
