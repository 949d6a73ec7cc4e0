# apsp-cpu --stats --betweenness, --normalized and --edge-betweenness against
# networkx and igraph (tests/oracle/betweenness.py) on random directed graphs
# with ties, grids, road-like one-way pieces, duplicates and self loops,
# undirected graphs, one and two vertices, float32 and float64 weights; zero
# arcs against a count of every simple path; path counts past 2^64 and 2^1024
# against their closed form; the dense and sparse engines and any thread
# count give the same bytes; negative weights and zero cycles are refused,
# and a failed --edge-betweenness leaves nothing behind.
. "$TOP/tests/lib.sh"
c=$BIN/apsp-cpu
g=$BIN/gengraph
m=$BIN/mtx2bin
x=$BIN/bin2mtx

expect_true "--help names --betweenness" '$c --help | grep -q -- "--betweenness"'
expect_stderr "--betweenness without --stats" 2 'go with --stats' '$c --betweenness </dev/null'
expect_stderr "--betweenness with --summary" 2 'not of --summary' '$c --stats --summary --betweenness </dev/null'
expect_stderr "--normalized alone" 2 'goes with --betweenness' '$c --stats --normalized </dev/null'

find_python networkx igraph

# btw_case NAME GRAPH [oracle options] [-- apsp-cpu options]: the column and
# the arcs' file against the oracles.
btw_case() {
	name=$1 graph=$2
	shift 2
	oopts= copts=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do oopts="$oopts $1"; shift; done
	[ "${1:-}" = -- ] && shift && copts="$*"
	case " $oopts " in *" --normalized "*) copts="$copts --normalized" ;; esac
	if ! $c --stats --betweenness --edge-betweenness "$T/e.tsv" $copts "$graph" >"$T/t.tsv" 2>"$T/err"; then
		fail "betweenness $name" "$(head -c 300 "$T/err")"
		return
	fi
	# (no arcs asked, the sums pulled take four arcs in vector lanes)
	expect_true "betweenness $name: the same bytes without --edge-betweenness" \
		'$c --stats --betweenness $copts "$graph" | cmp -s - "$T/t.tsv"'
	if [ -z "$py" ]; then
		skip "betweenness $name: oracles" "no python3 with networkx and igraph (Debian: python3-networkx, python3-igraph)"
		return
	fi
	$x --weights "$graph" >"$T/g.mtx"
	case " $oopts " in *" --exact "*) ;; *) oopts="$oopts --edges $T/e.tsv" ;; esac
	"$py" "$TOP/tests/oracle/betweenness.py" "$T/g.mtx" "$T/t.tsv" "betweenness $name" $oopts \
		2>"$T/err" || fail "betweenness $name: the oracle" "$(tail -c 300 "$T/err")"
}

$g -n 70 -d 8 -w 1:3 -s 21 -o "$T/ties"
btw_case "random directed, ties" "$T/ties"
btw_case "random directed, ties, normalized" "$T/ties" --normalized
btw_case "random directed, ties, dense engine" "$T/ties" -- --engine dense
# more than 128 arcs a vertex: the sums along the tight arcs' lists
$g -n 140 -d 95 -w 1:3 -s 31 -o "$T/thick"
btw_case "random directed, ties, 133 arcs a vertex" "$T/thick"
$g --grid 9x11 -s 22 -o "$T/grid"
btw_case "grid" "$T/grid"
$g --road 12x12 -w 1:9 -s 23 -o "$T/road"
btw_case "road-like, disconnected pieces" "$T/road"
# the farthest distance past 2n: the sort by distance in several passes
$g --road 12x12 -w 1:1000000 -s 30 -o "$T/long"
btw_case "road-like, long arcs" "$T/long"
# one-way streets: some of a road-like grid's streets kept one way only
$x --weights "$T/road" | awk '/^%/ { print; next } !size++ { n = $1; next }
	$1 < $2 || ($1 + $2) % 3 == 0 { l[++k] = $0 }
	END { print n, n, k; for (i = 1; i <= k; i++) print l[i] }' | $m -o "$T/oneway"
btw_case "one-way streets" "$T/oneway"
printf '%%%%MatrixMarket matrix coordinate integer general\n4 4 7\n1 2 5\n1 2 3\n2 3 4\n3 3 9\n3 1 2\n4 4 0\n2 1 8\n' | $m -o "$T/dup"
btw_case "duplicates and self loops" "$T/dup"
$g -n 40 -d 12 -w 1:4 --undirected -s 24 -o "$T/und"
btw_case "undirected" "$T/und" --undirected
btw_case "undirected, normalized" "$T/und" --undirected --normalized
$g -n 1 -d 0 -o "$T/one"
btw_case "one vertex" "$T/one"
printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 4\n' | $m -o "$T/two"
btw_case "two vertices" "$T/two" --normalized
$g -n 50 -d 10 -t float32 -w 0.5:4.5 -s 25 -o "$T/f32"
btw_case "float32" "$T/f32"
$g -n 50 -d 10 -t float64 -w 0.25:3 -s 26 -o "$T/f64"
btw_case "float64" "$T/f64"

# Zero arcs, no zero cycle (forward arcs 0..2, backward 1..3): every simple
# path counted.
awk 'BEGIN { srand(27); n = 8; k = 0
	for (u = 1; u <= n; u++) for (v = 1; v <= n; v++)
		if (u != v && rand() < 0.45) l[++k] = u " " v " " (u < v ? int(rand() * 3) : 1 + int(rand() * 3))
	print "%%MatrixMarket matrix coordinate integer general"; print n, n, k
	for (i = 1; i <= k; i++) print l[i] }' | $m -o "$T/zero"
btw_case "zero arcs" "$T/zero" --exact
btw_case "zero arcs, dense engine" "$T/zero" --exact -- --engine dense
printf '%%%%MatrixMarket matrix coordinate integer general\n4 4 4\n1 2 1\n2 3 0\n3 2 0\n3 4 1\n' | $m -o "$T/zcycle"
expect_stderr "a zero cycle refused" 2 'arc [12] -> [12] lies on a cycle of zero weight' '$c --stats --betweenness "$T/zcycle"'
$g -n 30 -d 20 --negative -s 28 -o "$T/neg"
expect_stderr "a negative weight refused" 2 'has a negative weight' '$c --stats --betweenness "$T/neg"'

# A chain of K diamonds c(i-1) -> a(i), b(i) -> c(i), every weight 1: 2^K
# shortest paths end to end.  c(i) carries every pair across it, 9 i (K - i);
# a(i) half of those across it, (3i - 2)(3(K - i) + 1) / 2.
diamonds() { # K TYPE: c(i) = 3i, a(i) = 3i - 2, b(i) = 3i - 1 (0-based)
	awk -v K=$1 -v t=$2 'BEGIN { print "%%MatrixMarket matrix coordinate " t " general"; print 3*K+1, 3*K+1, 4*K
		for (i = 1; i <= K; i++) { c0 = 3*(i-1) + 1; a = 3*i - 1; b = 3*i; c1 = 3*i + 1
			print c0, a, 1; print c0, b, 1; print a, c1, 1; print b, c1, 1 } }'
}
diamond_check() { # NAME K TABLE
	if awk -F'\t' -v K=$2 'NR == 1 { next } { v = $1; i = int(v / 3); r = v % 3
		want = r == 0 ? 9 * i * (K - i) : (3 * (i + 1) - 2) * (3 * (K - i - 1) + 1) / 2
		d = $10 - want; if (d < 0) d = -d; if (d > 1e-9 * (want > 1 ? want : 1)) { print v, $10, want; bad = 1; exit } }
		END { exit bad }' "$3" >"$T/why"; then pass "$1"; else fail "$1" "vertex, got, wanted: $(cat "$T/why")"; fi
}
diamonds 70 integer | $m -o "$T/d70"
$c --stats --betweenness "$T/d70" >"$T/d70.tsv" 2>"$T/err"
diamond_check "2^70 paths: the closed form" 70 "$T/d70.tsv"
diamonds 1100 integer | $m -o "$T/d1100"
$c --stats --betweenness "$T/d1100" >"$T/d1100.tsv" 2>"$T/err"
diamond_check "2^1100 paths (past double's range): the closed form" 1100 "$T/d1100.tsv"
diamonds 1100 real | $m -o "$T/d1100f"
$c --stats --betweenness "$T/d1100f" >"$T/d1100f.tsv" 2>"$T/err"
diamond_check "2^1100 paths, float32 (searched): the closed form" 1100 "$T/d1100f.tsv"
$c --stats --betweenness --engine dense "$T/d70" >"$T/d70d.tsv" 2>"$T/err"
diamond_check "2^70 paths, dense engine" 70 "$T/d70d.tsv"

# The same bytes whatever the engine and the thread count.
$g --road 20x20 -s 29 -o "$T/r20"
$c -T 2 --stats --betweenness --edge-betweenness "$T/ea" "$T/r20" >"$T/a.tsv"
expect_true "same bytes on 1 and 3 threads" '$c -T 1 --stats --betweenness "$T/r20" | cmp -s - "$T/a.tsv" && $c -T 3 --stats --betweenness --edge-betweenness "$T/eb" "$T/r20" | cmp -s - "$T/a.tsv" && cmp -s "$T/ea" "$T/eb"'
expect_true "same bytes from the dense engine" '$c --engine dense --stats --betweenness --edge-betweenness "$T/ec" "$T/r20" | cmp -s - "$T/a.tsv" && cmp -s "$T/ea" "$T/ec"'
expect_true "same bytes from text" '$x --weights "$T/r20" >"$T/r20.mtx" && $c --stats --betweenness "$T/r20.mtx" | cmp -s - "$T/a.tsv"'
cut -f1-9 "$T/a.tsv" >"$T/a9.tsv"
expect_true "the other columns as without it" '$c --stats "$T/r20" | cmp -s - "$T/a9.tsv"'
expect_true "--json has the column" '$c --stats --json --betweenness "$T/two" | grep -q "\"betweenness\": \[0, 0\]"'
expect_true "--base 1 numbers the arcs' file from 1" '$c --stats --base 1 --edge-betweenness "$T/e1" "$T/two" >/dev/null && grep -qx "1	2	1" "$T/e1"'

# A file that cannot be written: exit 2, no table presented, nothing beside it.
mkdir "$T/ro" && chmod 555 "$T/ro"
if [ "$(id -u)" = 0 ]; then
	skip "--edge-betweenness into a read-only folder" "running as root"
else
	expect_stderr "--edge-betweenness into a read-only folder" 2 'ro/e' '$c --stats --edge-betweenness "$T/ro/e" "$T/two"'
fi
expect_stderr "--edge-betweenness into a missing folder" 2 'nowhere/e' '$c --stats --edge-betweenness "$T/nowhere/e" "$T/two" >"$T/o.tsv"'
expect_true "... no table written" '! [ -s "$T/o.tsv" ]'

# --edge-betweenness FILE is written as -o writes: a device stays a device
# (and its write error is one), a FIFO is written to, a symbolic link
# written through, a new file made as the umask says, standard output "-".
expect_stderr "--edge-betweenness /dev/full: a write error" 2 '/dev/full: write error' \
	'$c --stats --betweenness --edge-betweenness /dev/full "$T/two" >/dev/null'
expect_true "... /dev/full is still a device" '[ -c /dev/full ]'
expect_true "--edge-betweenness through a symbolic link: the link stays, its file written" \
	'$c --stats --edge-betweenness "$T/ea" "$T/two" >/dev/null && : >"$T/eb.target" && ln -sf eb.target "$T/eb.link" && $c --stats --edge-betweenness "$T/eb.link" "$T/two" >/dev/null && [ -L "$T/eb.link" ] && cmp -s "$T/ea" "$T/eb.target"'
if mkfifo "$T/eb.fifo" 2>/dev/null; then
	expect_true "--edge-betweenness into a FIFO: written to, not replaced" \
		'( cat "$T/eb.fifo" >"$T/eb.read" & ) && $c --stats --edge-betweenness "$T/eb.fifo" "$T/two" >/dev/null && sleep 0.2 && [ -p "$T/eb.fifo" ] && cmp -s "$T/ea" "$T/eb.read"'
else
	skip "--edge-betweenness into a FIFO" "no mkfifo"
fi
expect_true "--edge-betweenness: a new file's mode from the umask" \
	'( umask 027 && $c --stats --edge-betweenness "$T/eb.mode" "$T/two" >/dev/null ) && [ "$(stat -c %a "$T/eb.mode")" = 640 ]'
expect_true "--edge-betweenness -: the lines on standard output" \
	'$c --stats --summary --edge-betweenness - "$T/two" >"$T/eb.out" && grep -qF "$(head -n 1 "$T/ea")" "$T/eb.out"'
