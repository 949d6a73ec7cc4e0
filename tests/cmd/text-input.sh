# The engines take a graph as text (Matrix Market, DIMACS .gr, an edge list;
# plain, gzip or in an archive) where a matrix stream would go, read as
# mtx2bin reads it: the same result as mtx2bin's stream through the engine,
# from a file, a pipe or a redirection; its errors at their file and line,
# nothing written.
. "$TOP/tests/lib.sh"
c=$BIN/apsp-cpu
m=$BIN/mtx2bin
D=$TOP/datasets
G=$TOP/tests/data/mtx2bin

# same_as_stream NAME FILE [apsp-cpu options]: apsp-cpu FILE gives the
# matrices of mtx2bin FILE | apsp-cpu, and the same statistics.
same_as_stream() {
	name=$1 f=$2
	shift 2
	if ! $m "$f" -o "$T/g.apm" 2>"$T/err"; then
		fail "$name" "mtx2bin failed: $(head -c 200 "$T/err")"; return
	fi
	if ! $c "$@" "$T/g.apm" -o "$T/want.apm" 2>"$T/err" || ! $c "$@" "$f" -o "$T/got.apm" 2>"$T/err"; then
		fail "$name" "apsp-cpu failed: $(head -c 200 "$T/err")"; return
	fi
	same_results "$name" "$T/want.apm" "$T/got.apm" "$T/g.apm" "apsp-cpu on the text" "$@" || return
	$c --stats "$@" "$T/g.apm" >"$T/want.tsv" 2>/dev/null
	$c --stats "$@" "$f" >"$T/got.tsv" 2>/dev/null
	if [ -s "$T/want.tsv" ] && cmp -s "$T/want.tsv" "$T/got.tsv"; then
		pass "$name"
	else
		fail "$name" "--stats differs from the stream's"
	fi
}

same_as_stream "dimacs, negative arc and a repeat" "$G/small.gr"
same_as_stream "matrix market, symmetric" "$D/USAir97.mtx"
same_as_stream "matrix market, no paths" "$D/USAir97.mtx" --no-paths
same_as_stream "matrix market, pattern (nested dissection where built)" "$D/jagmesh7.mtx"
same_as_stream "matrix market, integer, directed" "$D/football.mtx"
same_as_stream "edge list" "$G/ring.txt"
same_as_stream "edge list, real weights" "$G/real.txt"
gzip -c "$D/USAir97.mtx" >"$T/USAir97.mtx.gz"
same_as_stream "gzip" "$T/USAir97.mtx.gz"
if has_archives; then
	mkdir -p "$T/karate" && cp "$D/karate.mtx" "$T/karate/" && tar czf "$T/karate.tar.gz" -C "$T" karate
	same_as_stream "SuiteSparse archive" "$T/karate.tar.gz"
else
	skip "SuiteSparse archive" "mtx2bin built without libarchive"
fi

# From a pipe and from a redirection: the first byte looked at, not taken.
$c --stats "$G/small.gr" >"$T/file.tsv" 2>/dev/null
expect_true "text through a pipe" 'cat "$G/small.gr" | $c --stats | cmp -s - "$T/file.tsv"'
expect_true "gzip through a pipe" 'gzip -c "$G/small.gr" | $c --stats | cmp -s - "$T/file.tsv"'
expect_true "text from a redirection" '$c --stats <"$G/small.gr" | cmp -s - "$T/file.tsv"'
expect_true "a stream through a pipe still" \
	'$m "$G/small.gr" | $c --stats | cmp -s - "$T/file.tsv"'
expect_true "a stream from a redirection still" \
	'$m "$G/small.gr" -o "$T/s.apm" && $c --stats <"$T/s.apm" | cmp -s - "$T/file.tsv"'

# apsp-diff --graph takes the text too, and still finds a bad chain.
$c "$G/small.gr" -o "$T/small.apm"
expect_output "apsp-diff --graph on text" "standard input: 4 rows of 4 vertices certified against the graph, 0 fail" \
	'$BIN/apsp-diff --graph "$G/small.gr" - <"$T/small.apm"'
expect_true "apsp-diff --graph text from a pipe" \
	'cat "$G/small.gr" | $BIN/apsp-diff -q --graph - "$T/small.apm"'
printf 'p sp 4 4\na 1 2 7\na 2 3 -2\na 3 4 1\na 1 4 1\n' >"$T/other.gr"
expect_status "apsp-diff --graph on another text graph" 1 '$BIN/apsp-diff -q --graph "$T/other.gr" "$T/small.apm"'

expect_true "--help says text is taken" '$c --help | grep -q "Matrix Market"'

# Errors: where, why, exit 2, no output file.
printf 'p sp 3 2\na 1 2 5\na 2 x 1\n' >"$T/bad.gr"
expect_stderr "a bad line names file and line" 2 'bad\.gr:3:' '$c "$T/bad.gr" -o "$T/none.apm"'
expect_true "nothing written for a bad graph" '[ ! -e "$T/none.apm" ]'
expect_stderr "a bad line on standard input" 2 'standard input:3:' 'cat "$T/bad.gr" | $c --stats'
printf 'p sp 3 3\na 1 2 1\na 2 1 -2\na 2 3 1\n' >"$T/cycle.gr"
expect_stderr "a negative cycle in text" 3 'negative cycle' '$c --stats "$T/cycle.gr"'
expect_stderr "a stream mangled in transfer is still a stream" 2 'not an apsp matrix stream' \
	'printf "\211APM\n\n\032\n........" | $c'

# -t, --type: a graph as text read as the type asked (float64 keeps every
# digit); a stream of another type is refused by name.
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0.1\n' >"$T/tenth.mtx"
expect_true "-t float64: text read as float64, every digit kept" \
	'$BIN/apsp-cpu -t float64 "$T/tenth.mtx" | $BIN/bin2mtx | grep -q "^1 2 0.10000000000000001$" &&
	 $BIN/apsp-cpu "$T/tenth.mtx" | $BIN/bin2mtx | grep -q "^1 2 0.100000001$"'
expect_true "--type float64 with --stats too" \
	'$BIN/apsp-cpu --type float64 --stats --summary "$T/tenth.mtx" | grep -q "^diameter	0.10000000000000001$"'
expect_stderr "-t of another type than a stream's: refused" 2 'a stream of int32; --type reads a graph as text' \
	'$BIN/gengraph -n 5 -d 30 | $BIN/apsp-cpu -t float64'
expect_stderr "-t with an unknown type" 2 "unknown type 'int64'" '$BIN/apsp-cpu -t int64 "$T/tenth.mtx"'
