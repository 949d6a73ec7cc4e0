# The fuzz targets (tests/fuzz/fuzz_*.c), built without libFuzzer, replay
# their seed corpora (tests/fuzz/corpus/TARGET) and every input a fuzzer ever
# crashed on (tests/data/fuzz-regress/TARGET): each must run to its end, with
# no sanitizer report under SANITIZE=1.
. "$TOP/tests/lib.sh"
for src in "$TOP"/tests/fuzz/fuzz_*.c; do
	t=$(basename "$src" .c); t=${t#fuzz_}
	bin=$TOP/build/fuzz-replay/$t
	if [ ! -x "$bin" ]; then
		fail "fuzz replay $t" "build/fuzz-replay/$t not built (make check builds it)"
		continue
	fi
	for dir in "$TOP/tests/fuzz/corpus/$t" "$TOP/tests/data/fuzz-regress/$t"; do
		[ -d "$dir" ] || continue
		name="fuzz replay $t: ${dir#$TOP/}"
		timeout 120 "$bin" "$dir" >"$T/out" 2>"$T/err"; rc=$?
		if [ $rc -eq 0 ] && ! grep -qi 'sanitizer\|runtime error' "$T/err"; then
			pass "$name ($(sed -n 's/.*: \([0-9]*\) inputs$/\1/p' "$T/out") inputs)"
		else
			fail "$name" "exit $rc: $(grep -m 3 -ai 'error\|assertion\|control byte\|reads:' "$T/err" | tr '\n' ' ' | head -c 400)"
		fi
	done
done
