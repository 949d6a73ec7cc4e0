# The deflate engine does not change the format: a stream written through
# ISA-L is read by a zlib-only build and the other way round, for every kind
# of matrix, at several levels; the bytes do not depend on -T; and damage is
# reported the same way through either engine.  restream (tests/compat) is
# built twice, with this build's engine and with zlib's.
. "$TOP/tests/lib.sh"
rs=$TOP/build/tests/restream
rz=$TOP/build/tests/restream-zlib
g=$BIN/gengraph
if [ ! -x "$rs" ] || [ ! -x "$rz" ]; then
	skip "codec" "build/tests/restream not built (make check builds it)"
	exit 0
fi
expect_output "the zlib build deflates with zlib" zlib '$rz -e'
engine=$($rs -e)
[ "$engine" = ISA-L ] || skip "ISA-L against zlib" "this build has no ISA-L (engine: $engine)"

$g -n 700 -d 15 -s 1 -o "$T/g"
$g -n 300 -d 30 -s 2 -t float32 --negative -B 64 -o "$T/gf"
$BIN/apsp-cpu "$T/g" -o "$T/r"
$BIN/apsp-cpu "$T/gf" -o "$T/rf"
for f in g gf r rf; do
	$BIN/bin2mtx --dense "$T/$f" >"$T/$f.txt"
	[ -f "$T/r.txt" ] && $BIN/bin2mtx --pred --dense "$T/$f" >"$T/$f.pred.txt" 2>/dev/null
	for z in 0 1 3 9; do
		expect_true "$f: written by $engine -z $z, read by zlib" \
			'$rs $z <$T/$f >$T/a && $rz 1 <$T/a >$T/b && $BIN/bin2mtx --dense $T/b | cmp - $T/$f.txt'
		expect_true "$f: written by zlib -z $z, read by $engine" \
			'$rz $z <$T/$f >$T/a && $BIN/bin2mtx --dense $T/a | cmp - $T/$f.txt &&
			$rs 1 <$T/a | $BIN/bin2mtx --dense | cmp - $T/$f.txt'
	done
done
expect_true "predecessors survive both engines" \
	'$rz 1 <$T/r | $rs 1 | $BIN/bin2mtx --pred --dense | cmp - $T/r.pred.txt'
if [ "$engine" = ISA-L ]; then
	expect_true "the engines write different bytes (both are exercised)" \
		'$rs 1 <$T/r >$T/a && $rz 1 <$T/r >$T/b && ! cmp -s $T/a $T/b'
fi
# A zlib-written result solved and checked by the tools of this build.
expect_true "zlib-written graph through apsp-cpu and apsp-diff" \
	'$rz 1 <$T/g >$T/gz && $BIN/apsp-cpu $T/gz | $BIN/apsp-diff $T/r - && $BIN/apsp-diff --graph $T/gz $T/r'

# The bytes do not depend on the thread count, through this engine: a
# many-block graph and result, written on 1, 2 and 5 threads, several times
# (a codec that keeps state from block to block differs only now and then).
$g -n 1500 -d 15 -s 7 -o "$T/g1"
$BIN/apsp-cpu "$T/g1" -o "$T/r1"
for f in g1 r1; do
	$rs 1 1 <"$T/$f" >"$T/$f.t1"
	for th in 2 5; do
		expect_true "$f: same bytes on $th threads as on 1, 6 times" \
			'for k in 1 2 3 4 5 6; do $rs 1 $th <$T/$f | cmp - $T/$f.t1 || exit 1; done'
	done
done
expect_true "gengraph: same bytes on 1 and 3 threads (the @PG line aside)" \
	'$g -n 1500 -d 15 -s 7 -T 1 -o $T/a1 && $g -n 1500 -d 15 -s 7 -T 3 -o $T/a3 &&
	[ $(wc -c <$T/a1) -eq $(wc -c <$T/a3) ] && [ $(cmp -l $T/a1 $T/a3 | wc -l) -le 8 ]'

# Damage in a deflated block: the same message through either engine.
$g -n 600 -d 15 -s 9 -o "$T/d"
size=$(wc -c <"$T/d")
cp "$T/d" "$T/bad"
printf '\377\377\377\377\377\377\377\377' | dd of="$T/bad" bs=1 seek=$((size / 2)) conv=notrunc status=none
expect_stderr "$engine: damaged block refused" 2 'block [0-9]+ of the weight matrix' '$BIN/apsp-cpu $T/bad >/dev/null'
expect_stderr "zlib: damaged block refused" 2 'block [0-9]+ of the weight matrix' '$rz <$T/bad >/dev/null'
