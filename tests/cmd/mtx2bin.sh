#!/bin/sh
# mtx2bin: datasets against the collection's figures, round trips through
# bin2mtx, every policy, every input format and container, errors.
. "$TOP/tests/lib.sh"
M="$BIN/mtx2bin"
B2M="$BIN/bin2mtx"
D="$TOP/datasets"
DT="$TDATA/mtx2bin"
mm() { printf '%%%%MatrixMarket matrix %s\n' "$1"; shift; printf '%s\n' "$@"; }
# entries of a stream as "i j w" lines, no header
entries() { "$B2M" | mtx_general | grep -v '^%' | tail -n +2; }
# Built with libarchive?  Without it, tarballs are unpacked here (tar) and
# their primary member piped in, so the figures are checked all the same.
ARCH=0
"$M" --help | grep -qi "archives (libarchive): yes" && ARCH=1
# imp FILE [OPTION]...: mtx2bin on a dataset file
imp() {
	f=$1; shift
	case "$f" in
	*.tar.gz) if [ $ARCH = 0 ]; then n=$(basename "$f" .tar.gz)
		tar -xzOf "$f" "$n/$n.mtx" | "$M" "$@" | sed "s/^-:/$n:/"; return; fi ;;
	esac
	"$M" "$@" "$f"
}

# ---- the collection's figures ----
expect_output "nos4 size" "nos4: 100 vertices, 594 entries, 494 edges" \
	'imp "$D/nos4.tar.gz" --check | cut -d, -f1-3'
expect_output "bcsstk08 size" "bcsstk08: 1074 vertices, 12960 entries, 11886 edges" \
	'imp "$D/bcsstk08.tar.gz" --check | cut -d, -f1-3'
expect_output "spaceStation_10 size" "spaceStation_10: 1272 vertices, 17478 entries, 16764 edges" \
	'imp "$D/spaceStation_10.tar.gz" --check | cut -d, -f1-3'
expect_stderr "verbose summary" 0 "^mtx2bin: karate: 34 vertices, 156 entries, 156 edges" \
	'"$M" -v "$D/karate.mtx" >/dev/null'
expect_output "bcsstk08 through bin2mtx" "1074 1074 12960" \
	'imp "$D/bcsstk08.tar.gz" --weights abs | "$B2M" | mtx_general | grep -v "^%" | head -1'
expect_stderr "negative undirected warning" 0 "negative edge is a negative cycle" \
	'imp "$D/nos4.tar.gz" >/dev/null'

# ---- round trips: mtx2bin x | bin2mtx holds exactly the graph the policies
# give, computed here independently (awk), for every dataset and policy ----
# expect POLICY < mtx  ->  "i j w" lines, diagonal zeros included
expect_awk() {
	awk -v pol="$1" -v OFMT=%.17g '
	function put(i, j, v) {
		if (i == j) { if (v < 0 && (!((i, i) in w) || v < w[i, i])) w[i, i] = v; return }
		if (!((i, j) in w) || v < w[i, j]) w[i, j] = v
	}
	function wt(v) { return pol == "abs" ? (v < 0 ? -v : v) : pol == "unit" || pat ? 1 : v }
	NR == 1 { sym = tolower($5); pat = tolower($4) == "pattern"; next }
	/^%/ || NF == 0 { next }
	!n { n = $1; next }
	{
		v = pat ? 1 : $3 + 0
		put($1, $2, wt(v))
		if ($1 != $2 && sym == "symmetric") put($2, $1, wt(v))
		if ($1 != $2 && sym == "skew-symmetric") put($2, $1, wt(-v))
	}
	END {
		for (i = 1; i <= n; i++) if (!((i, i) in w)) w[i, i] = 0
		for (k in w) { split(k, ij, SUBSEP); print ij[1], ij[2], w[k] }
	}'
}
# same GOT EXPECTED: same keys, values equal to float32 precision
same() {
	awk 'NR == FNR { e[$1 " " $2] = $3; ne++; next }
	{ k = $1 " " $2; if (!(k in e)) { print "extra " k; bad = 1; exit }
	  d = $3 - e[k]; if (d < 0) d = -d; a = e[k] < 0 ? -e[k] : e[k]
	  if (d > 1e-6 * (a > 1 ? a : 1)) { print "differs " k ": " $3 " vs " e[k]; bad = 1; exit }
	  ng++ }
	END { if (!bad && ng != ne) { print "count " ng " vs " ne; bad = 1 } exit bad }' "$2" "$1"
}
text() { # the primary .mtx text of a dataset
	case "$1" in
	*.tar.gz) n=$(basename "$1" .tar.gz); tar -xzOf "$1" "$n/$n.mtx" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}
for f in "$D"/*.mtx "$D"/*.mtx.gz "$D"/*.tar.gz; do
	name=$(basename "$f")
	for pol in value abs unit; do
		text "$f" | expect_awk $pol >"$T/want"
		if imp "$f" -q -w $pol | entries >"$T/got" && msg=$(same "$T/got" "$T/want"); then
			pass "round trip $name -w $pol"
		else
			fail "round trip $name -w $pol" "$msg"
		fi
	done
	# re-importing the export gives the same matrix
	imp "$f" -q | "$B2M" >"$T/a.mtx"
	if "$M" -q "$T/a.mtx" | "$B2M" | grep -v '^%' >"$T/b" && grep -v '^%' "$T/a.mtx" | cmp -s - "$T/b"; then
		pass "re-import $name"
	else
		fail "re-import $name"
	fi
done

# ---- policies ----
dup=$(mm "coordinate integer general" "3 3 4" "1 2 5" "1 2 3" "2 1 -1" "3 1 0")
expect_output "duplicates keep the minimum, explicit zero is an edge" "$(printf '1 1 0\n1 2 3\n2 1 -1\n2 2 0\n3 1 0\n3 3 0')" \
	'echo "$dup" | "$M" | entries'
loop=$(mm "coordinate real general" "2 2 3" "1 1 5" "2 2 -2.5" "1 2 1")
expect_output "self-loops: non-negative ignored, negative kept" "$(printf '1 1 0\n1 2 1\n2 2 -2.5')" \
	'echo "$loop" | "$M" | entries'
expect_output "negative self-loop sets the negative flag" "directed, negative weights" \
	'echo "$loop" | "$M" --check | cut -d, -f6- | sed "s/^ //"'
skew=$(mm "coordinate integer skew-symmetric" "3 3 2" "2 1 4" "3 1 -2")
expect_output "skew-symmetric mirrored negated" "$(printf '1 1 0\n1 2 -4\n1 3 2\n2 1 4\n2 2 0\n3 1 -2\n3 3 0')" \
	'echo "$skew" | "$M" | entries'
expect_output "skew-symmetric --weights abs" "$(printf '1 1 0\n1 2 4\n1 3 2\n2 1 4\n2 2 0\n3 1 2\n3 3 0')" \
	'echo "$skew" | "$M" -w abs | entries'
sym=$(mm "coordinate pattern symmetric" "3 3 2" "2 1" "3 2")
expect_output "symmetric mirrored, undirected" "3 vertices, 4 entries, 4 edges, coordinate pattern symmetric, int32, undirected" \
	'echo "$sym" | "$M" --check | sed "s/^standard input: //"'
expect_output "--directed keeps the stored entries" "2 edges directed" \
	'echo "$sym" | "$M" --check --directed | awk -F", " "{print \$3, \$6}"'
expect_output "--undirected mirrors a general file" "$(printf '1 1 0\n1 2 3\n1 3 0\n2 1 3\n2 2 0\n3 1 0\n3 3 0')" \
	'echo "$(mm "coordinate integer general" "3 3 2" "1 2 3" "3 1 0")" | "$M" --undirected | entries'
arr=$(mm "array integer symmetric" "2 2" "1" "-7" "2")
expect_output "array symmetric" "$(printf '1 1 0\n1 2 -7\n2 1 -7\n2 2 0')" \
	'echo "$arr" | "$M" | entries'
real=$(mm "coordinate real general" "2 2 1" "1 2 2.5")
expect_output "real data is float32" "float32" '"$M" --check </dev/null 2>/dev/null; echo "$real" | "$M" --check | cut -d, -f5 | tr -d " "'
expect_stderr "non-integral to int32 is an error" 2 "^mtx2bin: standard input:3: value 2.5 is not an integer" \
	'echo "$real" | "$M" -t int32 >/dev/null'
expect_output "integral real to int32" "1 2 2" \
	'echo "$(mm "coordinate real general" "2 2 1" "1 2 2.0")" | "$M" -t int32 | entries | sed -n 2p'
expect_stderr "int32 range" 2 ":3: value 1073741823 is out of the int32 range" \
	'echo "$(mm "coordinate integer general" "2 2 1" "1 2 1073741823")" | "$M" >/dev/null'
expect_output "int32 range edge" "1 2 -1073741822" \
	'echo "$(mm "coordinate integer general" "2 2 1" "1 2 -1073741822")" | "$M" | entries | sed -n 2p'
expect_stderr "float32 overflow" 2 ":3: value 1e\\+39 overflows float32" \
	'echo "$(mm "coordinate real general" "2 2 1" "1 2 1e39")" | "$M" >/dev/null'
expect_stderr "integer not exact in float32" 2 ":3: integer 16777217 cannot be stored exactly" \
	'echo "$(mm "coordinate integer general" "2 2 1" "1 2 16777217")" | "$M" -t float32 >/dev/null'
expect_output "-B pads, bin2mtx shows the real n" "$(echo "$dup" | "$M" | "$B2M" --dense)" \
	'echo "$dup" | "$M" -B 8 | "$B2M" --dense'
expect_true "-B changes the stored size" \
	'[ "$(echo "$dup" | "$M" -z 0 -B 64 | wc -c)" -gt 16384 ] && [ "$(echo "$dup" | "$M" -z 0 | wc -c)" -lt 4096 ]'

# ---- formats ----
expect_output "DIMACS detected, arcs, duplicate min" "$(printf '1 1 0\n1 2 4\n1 4 9\n2 2 0\n2 3 -2\n3 3 0\n3 4 1\n4 4 0')" \
	'"$M" "$DT/small.gr" | entries'
expect_output "DIMACS from stdin (content detection)" "small: 4 vertices" \
	'"$M" --check <"$DT/small.gr" | sed "s/^standard input:/small:/" | cut -d, -f1'
expect_output "stanford n m + weighted edges, --base 1" "$(printf '1 1 -1\n1 2 4\n2 2 0\n2 3 -2\n3 3 0\n3 4 1\n4 4 0')" \
	'"$M" -F edges --base 1 "$DT/stanford.txt" | entries'
expect_output "edge list 0-based unweighted" "$(printf '1 1 0\n1 2 1\n2 2 0\n2 3 1\n3 1 1\n3 3 0')" \
	'"$M" "$DT/ring.txt" | entries'
expect_output "edge list real weights: float32" "float32" \
	'"$M" --check "$DT/real.txt" | cut -d, -f5 | tr -d " "'
expect_stderr "edge list size mismatch" 2 "stanford.txt:7: expected 5 edges, found 6" \
	'sed "1s/4 6/4 5/" "$DT/stanford.txt" >"$T/stanford.txt" && "$M" -F edges --base 1 "$T/stanford.txt"'
expect_stderr "edge list base" 2 ":2: vertex 0 is below the base 1" \
	'"$M" --base 1 "$DT/ring.txt"'
if [ -d "$TDATA/stanford" ]; then
	f=$(ls "$TDATA"/stanford/input_*.txt 2>/dev/null | head -1)
	[ -n "$f" ] && expect_true "stanford set imports" '"$M" -F edges --base 1 --check "$f" >/dev/null'
fi

# ---- containers ----
text "$D/nos4.tar.gz" >"$T/nos4.mtx"
gzip -c "$T/nos4.mtx" >"$T/nos4.mtx.gz"
want=$("$M" -q "$T/nos4.mtx" | "$B2M" | grep -v '^%')
expect_output "gzip file" "$want" '"$M" -q "$T/nos4.mtx.gz" | "$B2M" | grep -v "^%"'
expect_output "gzip from stdin" "$want" '"$M" -q <"$T/nos4.mtx.gz" | "$B2M" | grep -v "^%"'
expect_output "concatenated gzip members" "2 2 3" \
	'{ printf "%%%%MatrixMarket matrix coordinate integer general\n2 2 1\n" | gzip; printf "1 2 7\n" | gzip; } | "$M" -q | "$B2M" | mtx_general | grep -v "^%" | head -1'
if [ $ARCH = 1 ]; then
	expect_output "tarball from stdin" "$want" '"$M" -q <"$D/nos4.tar.gz" | "$B2M" | grep -v "^%"'
	mkdir -p "$T/x/x" && cp "$T/nos4.mtx" "$T/x/x/x.mtx" && cp "$T/nos4.mtx" "$T/x/x/x_b.mtx"
	(cd "$T/x" && tar -cf ../x.tar x)
	expect_output "plain tar, _b member skipped" "$want" '"$M" -q "$T/x.tar" | "$B2M" | grep -v "^%"'
	expect_output "--member" "$want" '"$M" -q --member x/x_b.mtx "$T/x.tar" | "$B2M" | grep -v "^%"'
	expect_stderr "--member missing" 2 "no member 'y.mtx'" '"$M" --member y.mtx "$T/x.tar"'
	if command -v python3 >/dev/null; then
		(cd "$T/x" && python3 -c 'import zipfile; z = zipfile.ZipFile("../g.zip", "w"); z.write("x/x_b.mtx"); z.write("x/x.mtx")')
		expect_output "zip" "$want" '"$M" -q "$T/g.zip" | "$B2M" | grep -v "^%"'
	fi
	expect_stderr "spaceStation_10: aux members skipped" 0 "spaceStation_10: 1272 vertices" \
		'"$M" -v "$D/spaceStation_10.tar.gz" >/dev/null'
	(cd "$T/x" && cp x/x.mtx x/y.mtx && cp x/x.mtx x/z.mtx && tar -cf ../two.tar x/x_b.mtx x/y.mtx x/z.mtx)
	expect_stderr "ambiguous archive" 2 "cannot choose among the members.*--member" '"$M" "$T/two.tar"'
else
	expect_stderr "archives unsupported without libarchive" 2 "archives are unsupported" \
		'"$M" "$D/nos4.tar.gz"'
fi

# ---- errors and usage ----
expect_stderr "error names file and line" 2 "^mtx2bin: $TDATA/mm/synthetic/truncated.mtx:5: expected 3 entries, found 2" \
	'"$M" "$TDATA/mm/synthetic/truncated.mtx"'
expect_stderr "missing file" 2 "^mtx2bin: .*nonexistent" '"$M" "$T/nonexistent.mtx"'
expect_stderr "bad --weights" 2 "unknown weight policy" '"$M" -w half'
expect_stderr "bad -F" 2 "unknown format" '"$M" -F csv'
expect_stderr "bad --base" 2 "base" '"$M" --base 2'
expect_stderr "two inputs" 2 "one input" '"$M" a b'
expect_status "help" 0 '"$M" --help | grep -q -- --weights'
expect_stderr "failed import leaves no output file" 2 "truncated" \
	'"$M" -o "$T/o.apm" "$TDATA/mm/synthetic/truncated.mtx"; [ ! -e "$T/o.apm" ] && exit 2'
expect_true "empty input is an error, not a crash" '! "$M" </dev/null >/dev/null 2>&1'
expect_stderr "binary garbage" 2 "^mtx2bin: " 'head -c 3000 "$M" | "$M" -F mtx'

# ---- datasets/convert.sh ----
mkdir -p "$T/ds" && cp "$D/karate.mtx" "$D/zenios.mtx.gz" "$T/ds/"
[ $ARCH = 1 ] && cp "$D/nos4.tar.gz" "$T/ds/"
expect_true "convert.sh writes NAME.apm for each graph" \
	'MTX2BIN="$M" sh "$D/convert.sh" "$T/ds" 2>/dev/null && "$B2M" "$T/ds/karate.apm" | mtx_general | grep -q "^34 34 190$" &&
	 "$B2M" "$T/ds/zenios.apm" | grep -q "^2873 2873 " && { [ $ARCH = 0 ] || "$B2M" "$T/ds/nos4.apm" | mtx_general | grep -q "^100 100 594$"; }'
expect_status "convert.sh without DIR" 2 'sh "$D/convert.sh"'
expect_stderr "absurd size refused before allocating (as a matrix; --check only counts)" 2 \
	":2: n = 1000000 needs 3725.3 GiB of memory, this machine has [0-9.]+ GiB: at most n = [0-9]+ fits$" \
	'printf "%%%%MatrixMarket matrix coordinate real general\n1000000 1000000 1\n1 2 3\n" | "$M" -L matrix -o $T/absurd.apm'
expect_true "... and nothing written" '! test -e $T/absurd.apm'
expect_true "the same graph by default: a list of its one arc" \
	'printf "%%%%MatrixMarket matrix coordinate real general\n1000000 1000000 1\n1 2 3\n" | "$M" -o $T/absurd.apm &&
	 $BIN/apsp-info --json $T/absurd.apm | grep -q "\"n\":1000000,.*\"arcs\":1,"'

# A DIMACS 'p' line that declares more vertices than memory or a stream
# holds is reported at that line, not at a later arc or at the end.
expect_stderr "DIMACS p line too large for memory: at its line" 2 '^mtx2bin: standard input:2: n = 100000000 needs [0-9.]+ GiB of memory, this machine has [0-9.]+ GiB: at most n = [0-9]+ fits$' \
	'printf "c big\np sp 100000000 2\na 1 2 3\na 2 1 4\n" | $M -L matrix -F dimacs'
expect_stderr "DIMACS p line beyond a stream: at its line" 2 '^mtx2bin: standard input:2: 3000000000 vertices' \
	'printf "c big\np sp 3000000000 2\na 1 2 3\n" | $M -F dimacs'

# An archive member that is a symbolic link is named as one, not reported
# missing.
if has_archives && command -v tar >/dev/null 2>&1; then
	mkdir -p "$T/lnk"
	printf '%%%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 3\n' >"$T/lnk/g.mtx"
	ln -s g.mtx "$T/lnk/link.mtx"
	(cd "$T/lnk" && tar czf ../lnk.tar.gz g.mtx link.mtx)
	expect_stderr "archive member that is a symlink: said so" 2 "member 'link.mtx' is a symbolic link" \
		'$M --member link.mtx "$T/lnk.tar.gz" -o "$T/lnk.apm"'
else
	skip "archive member that is a symlink" "no libarchive or tar"
fi

# --progress shows an archive's member being parsed, as it shows gzip input.
if has_archives && command -v tar >/dev/null 2>&1; then
	mkdir -p "$T/prog"
	$BIN/gengraph -n 4000 -d 20 -s 3 | $B2M --weights >"$T/prog/big.mtx" # (parsing takes over 0.2 s)
	(cd "$T/prog" && tar czf ../prog.tar.gz big.mtx)
	expect_true "--progress on a .tar.gz: the member's progress" \
		'$M --progress "$T/prog.tar.gz" -o "$T/prog.apm" 2>&1 >/dev/null | tr "\r" "\n" | grep -q "MB of the member parsed"'
fi

# --check only counts: a header of 2,000,000,000 rows is no matrix to hold,
# and the figures are those of the import (repeated entries one edge, loops
# none, symmetric ones both ways).
printf '%%%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 3\n1 2 1.5\n2 3 2\n1 2 1.0\n' >"$T/huge.mtx"
expect_output "--check: 2e9 rows counted, not refused for memory" \
	"huge: 2000000000 vertices, 3 entries, 2 edges, coordinate real general, float32, directed" \
	'$BIN/mtx2bin --check $T/huge.mtx'
printf '%%%%MatrixMarket matrix coordinate integer symmetric\n6 6 6\n2 1 -3\n3 1 4\n3 1 5\n4 4 9\n5 2 1\n6 5 2\n' >"$T/dup.mtx"
expect_true "--check: the same figures as the import says" \
	'[ "$($BIN/mtx2bin --check $T/dup.mtx)" = "$($BIN/mtx2bin -v $T/dup.mtx 2>&1 >/dev/null | grep "vertices" | sed "s/^mtx2bin: //")" ]'
