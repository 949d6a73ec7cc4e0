# float64 through the tools: gengraph and mtx2bin write it, apsp-cpu solves
# it (every SIMD level, paths derived and tracked, negative arcs, nested
# dissection, checkpoints), apsp-path, apsp-diff, bin2mtx, apsp-info and
# apsp-stats read it, python/apspmat.py round-trips it; distances against
# scipy's floyd_warshall where python3 has it (bit for bit where weights are
# whole, 1e-12 relative otherwise).
. "$TOP/tests/lib.sh"
g=$BIN/gengraph
c=$BIN/apsp-cpu
$g -n 300 -d 6 -t float64 -w 0.001:10 -s 11 -o $T/g
# whole weights: int32 ones read back as float64
$g -n 300 -d 6 -w 1:9 -s 12 | $BIN/bin2mtx | $BIN/mtx2bin -t float64 -o $T/gw
$g -n 200 -d 8 -t float64 --negative -s 13 -o $T/gn
expect_output gengraph-type 'float64' '$BIN/apsp-info --json $T/g | grep -o "\"type\":\"[a-z0-9]*\"" | cut -d\" -f4'
expect_true gengraph-same-seed-same-weights '$g -n 300 -d 6 -t float64 -w 0.001:10 -s 11 -T 1 | $BIN/bin2mtx --dense >$T/a && $BIN/bin2mtx --dense $T/g | cmp -s - $T/a'
expect_true gengraph-weights-unrounded '$BIN/bin2mtx $T/g | awk "NR > 4 && \$3 != int(\$3) { if (length(\$3) > 12) n++ } END { exit !(n > 100) }"'
# every SIMD level, with and without paths, derived and tracked: the same distances
for simd in portable avx2 avx512; do
	if ! $c --simd $simd --no-paths -o $T/d-$simd $T/g 2>/dev/null; then
		skip float64-simd-$simd "this processor does not run $simd"
		continue
	fi
	$c --simd $simd -o $T/p-$simd $T/g
	$c --simd $simd --derive-paths never -o $T/t-$simd $T/g
	expect_true "float64-$simd-distances-equal-with-and-without-paths" \
		'$BIN/bin2mtx --dense --dist $T/d-$simd >$T/a && $BIN/bin2mtx --dense --dist $T/p-$simd >$T/b && cmp -s $T/a $T/b'
	expect_true "float64-$simd-chains-derived" '$BIN/apsp-diff --graph $T/g $T/p-$simd'
	expect_true "float64-$simd-chains-tracked" '$BIN/apsp-diff --graph $T/g $T/t-$simd'
done
expect_true float64-simd-levels-agree 'for s in avx2 avx512; do [ ! -f $T/d-$s ] || $BIN/apsp-diff $T/d-portable $T/d-$s || exit 1; done'
$c -o $T/dn $T/gn
expect_true float64-negative-arcs-chains '$BIN/apsp-diff --graph $T/gn $T/dn'
$c --order nd -o $T/dnd $T/g 2>/dev/null && expect_true float64-nested-dissection-same '$BIN/apsp-diff $T/p-portable $T/dnd && $BIN/apsp-diff --graph $T/g $T/dnd'
# a negative cycle: refused with exit 3 and the stream says so
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 0.5\n2 3 -0.25\n3 2 -0.5\n' >$T/cyc.mtx
expect_status float64-negative-cycle 3 '$BIN/mtx2bin -t float64 $T/cyc.mtx | $c -o $T/cyc.out'
# mtx2bin keeps every digit a double holds
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 0.1\n2 3 0.2\n1 3 0.30000000000000004\n' >$T/a.mtx
expect_output mtx2bin-float64-digits '0 0.10000000000000001 0.30000000000000004
inf 0 0.20000000000000001
inf inf 0' '$BIN/mtx2bin -t float64 $T/a.mtx | $BIN/bin2mtx --dense'
expect_output apsp-path-float64-digits '0 -> 1 -> 2  distance 0.30000000000000004' '$BIN/mtx2bin -t float64 $T/a.mtx | $c | $BIN/apsp-path 0 2'
expect_status mtx2bin-float64-infinite-refused 2 'printf "%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1e400\n" | $BIN/mtx2bin -t float64'
expect_output apsp-info-float64 '  type          float64' '$BIN/apsp-info $T/p-portable | grep "^  type"'
expect_true apsp-diff-float64-finds-a-change 'python3 -c 1 2>/dev/null; $BIN/apsp-diff $T/p-portable $T/dn; [ $? -eq 2 ]'
# checkpoints of a float64 run: the same bytes after a kill
expect_true float64-checkpoint-resume '! APSP_CHECKPOINT_KILL=after:2 $c -B 16 --checkpoint $T/ck --checkpoint-every 0 $T/g >$T/r1 2>/dev/null &&
	$c -B 16 --checkpoint $T/ck --resume $T/ck $T/g >$T/r1 && $c -B 16 $T/g >$T/r2 && cmp -s $T/r1 $T/r2'
# statistics: apsp-stats on the result, apsp-cpu --stats, the same table
expect_true float64-stats-same '$BIN/apsp-stats $T/p-portable >$T/s1 && $c --stats $T/g >$T/s2 && cmp -s $T/s1 $T/s2'
if ! find_python numpy; then
	skip float64-python "no python3 with numpy"
	exit 0
fi
expect_true bin2mtx-npy-float64 '$BIN/bin2mtx --npy --dist -o $T/d.npy $T/p-portable && "$py" -c "
import sys, numpy as np; sys.path.insert(0, \"$TOP/python\"); import apspmat
a = np.load(\"$T/d.npy\"); s = apspmat.load(\"$T/p-portable\")
sys.exit(not (a.dtype == np.float64 and np.array_equal(a, s.dist)))"'
expect_true apspmat-float64-round-trip '"$py" -c "
import sys; sys.path.insert(0, \"$TOP/python\"); import apspmat, numpy as np
s = apspmat.load(\"$T/p-portable\"); apspmat.save(\"$T/rt\", s)
t = apspmat.load(\"$T/rt\"); sys.exit(not (t.type == \"float64\" and np.array_equal(t.dist, s.dist) and np.array_equal(t.pred, s.pred)))" &&
	$BIN/apsp-diff $T/p-portable $T/rt'
$BIN/apsp-stats --summary $T/p-portable >$T/sum
sanitizer_preload # (python3 loads the library: a sanitized build's runtimes first)
expect_true python-stats-same-bits-as-apsp-stats '"$py" -c "
import sys; sys.path.insert(0, \"$TOP/python\"); import apspmat, apsp, numpy as np
g = apspmat.load(\"$T/g\"); w = np.where(np.isinf(g.weights), 0, g.weights)
t = apsp.stats(w, device=\"cpu\")
want = dict(l.split(\"\\t\") for l in open(\"$T/sum\").read().split(\"\\n\") if l)
cols = np.loadtxt(\"$T/s1\", skiprows=1)
ok = all(float(want[k]) == float(t[\"summary\"][k]) for k in (\"pairs\", \"diameter\", \"radius\", \"average\", \"wiener\"))
ok = ok and np.array_equal(cols[:, 7], t[\"closeness\"]) and np.array_equal(cols[:, 3], t[\"out_sum\"]) and np.array_equal(cols[:, 8], t[\"harmonic\"])
sys.exit(not ok)"'
if ! find_python numpy scipy; then
	skip float64-scipy "no python3 with scipy"
	exit 0
fi
for f in g gw gn; do
	$c -o $T/r-$f $T/$f
	expect_true "float64-scipy-distances-$f" '"$py" -c "
import sys; sys.path.insert(0, \"$TOP/python\"); import apspmat, numpy as np
from scipy.sparse.csgraph import floyd_warshall
g = apspmat.load(\"$T/$f\"); r = apspmat.load(\"$T/r-$f\")
w = np.where(np.isinf(g.weights), 0, g.weights); np.fill_diagonal(w, 0)
ref = floyd_warshall(np.where(w == 0, np.inf, w) if False else w)
fin = np.isfinite(ref)
ok = np.array_equal(np.isfinite(r.dist), fin)
whole = \"$f\" == \"gw\"
ok = ok and (np.array_equal(r.dist[fin], ref[fin]) if whole else np.all(np.abs(r.dist[fin] - ref[fin]) <= 1e-12 * (1 + np.abs(ref[fin]))))
sys.exit(not ok)"'
done
