#!/bin/sh
# make fuzz: build each libFuzzer target (tests/fuzz/fuzz_*.c) with clang,
# AddressSanitizer and UBSan, and run it for FUZZ_SECONDS (default 10) on a
# copy of its seed corpus (tests/fuzz/corpus/TARGET) plus the regression
# inputs (tests/data/fuzz-regress/TARGET).  Prints PASS/FAIL/SKIP lines like
# the other tests and the executions of each target.
#   FUZZ_SECONDS=60 make fuzz       longer runs
#   FUZZ_TARGETS="stream mtx"       only these targets
#   FUZZ_JOBS=2                     libFuzzer workers per target (default 1)
#   FUZZ_MERGE=1                    merge what the runs found into the seed corpora
#   FUZZ_SEED=1 FUZZ_RUNS=20000     a fixed seed and at most that many inputs: the same
#                                   inputs on every run (CI: a failure is the change's own)
#   CLANG=clang-14                  the compiler (default: clang)
# A crash leaves its input in build/fuzz/artifacts/TARGET/; copy it to
# tests/data/fuzz-regress/TARGET/ with the fix, so make check replays it.
# Without a clang that has libFuzzer, says so and skips (exit 0).
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
secs=${FUZZ_SECONDS:-10}
jobs=${FUZZ_JOBS:-1}
cc=${CLANG:-clang}
out=build/fuzz
mkdir -p "$out"

targets=${FUZZ_TARGETS:-$(ls tests/fuzz/fuzz_*.c | sed 's|.*/fuzz_||; s|\.c$||')}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "SKIP fuzz: $cc not found (install clang and libclang-rt-dev for libFuzzer)"
	exit 0
fi
printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }\n' >"$out/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$out/probe.c" -o "$out/probe" 2>"$out/probe.err"; then
	echo "SKIP fuzz: $cc cannot link -fsanitize=fuzzer (install libclang-rt-dev): $(head -n 1 "$out/probe.err")"
	exit 0
fi
# OpenMP: clang's needs libomp; without it the library builds against a
# one-thread stand-in (the readers' results do not depend on threads).
printf '#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n' >"$out/omp.c"
if "$cc" -fopenmp "$out/omp.c" -o "$out/omp" 2>/dev/null; then
	omp=-fopenmp
else
	omp="-Itests/fuzz/omp-stub -Wno-unknown-pragmas"
fi

# The block codec through ISA-L where it links, as the tools use it.
printf '#include <isa-l/igzip_lib.h>\nint main(void) { return 0; }\n' >"$out/isal.c"
codec=
if "$cc" "$out/isal.c" -lisal -o "$out/isal" 2>/dev/null; then
	codec="-DHAVE_ISAL -lisal"
fi

flags="-g -O1 -std=gnu11 -D_GNU_SOURCE -Ilib -Ilib/common -Ilib/stream -Ilib/graphio -Itests/fuzz -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $omp
	-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup"
failed=0
for t in $targets; do
	src=tests/fuzz/fuzz_$t.c
	bin=$out/fuzz_$t
	if [ ! -f "$src" ]; then
		echo "FAIL fuzz $t: no $src"
		failed=1
		continue
	fi
	# shellcheck disable=SC2086
	if ! "$cc" $flags -o "$bin" "$src" lib/stream/stream_format.c lib/stream/stream_write.c lib/stream/stream_read.c lib/stream/stream_windows.c lib/common/pool.c lib/common/fdio.c lib/common/common.c lib/stream/blockcodec.c lib/stream/litblock.c lib/graphio/graphio.c lib/graphio/graphio_parse.c lib/graphio/graphio_mtx.c lib/graphio/graphio_edges.c lib/graphio/graphio_dimacs.c $codec -lz -lm 2>"$out/$t.build"; then
		echo "FAIL fuzz $t: build failed: $(grep -m1 error "$out/$t.build")"
		failed=1
		continue
	fi
	work=$out/corpus-$t
	art=$out/artifacts/$t
	rm -rf "$art"
	mkdir -p "$work" "$art"
	[ -d tests/fuzz/corpus/$t ] && cp tests/fuzz/corpus/$t/* "$work"/ 2>/dev/null
	[ -d tests/data/fuzz-regress/$t ] && cp tests/data/fuzz-regress/$t/* "$work"/ 2>/dev/null
	dict=
	[ -f tests/fuzz/$t.dict ] && dict=-dict=tests/fuzz/$t.dict
	log=$out/$t.log
	if [ "$jobs" -gt 1 ]; then
		par="-jobs=$jobs -workers=$jobs"
	else
		par=
	fi
	fixed=
	[ -n "${FUZZ_SEED:-}" ] && fixed="-seed=$FUZZ_SEED"
	[ -n "${FUZZ_RUNS:-}" ] && fixed="$fixed -runs=$FUZZ_RUNS"
	# shellcheck disable=SC2086
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
	"$bin" -max_total_time="$secs" $fixed -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$art/" $dict $par "$work" >"$log" 2>&1
	rc=$?
	[ -n "$par" ] && cat fuzz-*.log >>"$log" 2>/dev/null && rm -f fuzz-*.log
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{ s += $1 } END { print s + 0 }')
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	crash=$(ls "$art" 2>/dev/null | head -n 1)
	if [ $rc -eq 0 ] && [ -z "$crash" ]; then
		echo "PASS fuzz $t: $execs executions in ${secs} s, $cov, corpus $(ls "$work" | wc -l) inputs"
	else
		echo "FAIL fuzz $t: exit $rc after $execs executions; input in $art/$crash; log $log:"
		grep -m 3 -E 'ERROR|SUMMARY|assertion|runtime error|deadly signal|failed' "$log" | sed 's/^/    /'
		failed=1
	fi
	if [ "${FUZZ_MERGE:-0}" = 1 ]; then
		mkdir -p tests/fuzz/corpus/$t
		"$bin" -merge=1 tests/fuzz/corpus/$t "$work" >"$out/$t.merge.log" 2>&1 &&
			echo "merged into tests/fuzz/corpus/$t: $(ls tests/fuzz/corpus/$t | wc -l) inputs"
	fi
done
exit $failed
