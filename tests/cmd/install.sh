# make install, as staged by make check under build/stage (DESTDIR, PREFIX
# /usr): the tools, manual pages and the library, and examples/ built
# against that installed copy through pkg-config, shared and static.
. "$TOP/tests/lib.sh"
S=$TOP/build/stage
U=$S/usr
if [ ! -d "$S" ]; then
	skip install "no build/stage (make stage, or make check, makes it)"
	exit 0
fi
expect_true tools-and-man '[ -x $U/bin/apsp-info ] && [ -x $U/bin/gengraph ] && [ -f $U/share/man/man1/apsp-info.1 ] &&
	[ -f $U/share/man/man5/apspmat.5 ] && [ -f $U/share/man/man3/libapsp.3 ]'
# Every installed tool has its manual page, and --help says success.
expect_true every-tool-its-man-page 'for b in $U/bin/*; do t=$(basename $b)
	[ -f $U/share/man/man1/$t.1 ] || { echo "$t: no manual page" >&2; exit 1; }
	$b --help >/dev/null || { echo "$t --help: exit $?" >&2; exit 1; }; done'
expect_true no-kernel-bench-installed '[ ! -e $U/bin/fw-kernel-bench ]'
if [ -x "$BIN/fw-kernel-bench" ]; then
	expect_true "fw-kernel-bench --help: usage, exit 0" '$BIN/fw-kernel-bench --help | grep -q "^usage: fw-kernel-bench"'
fi
expect_true library-files '[ -f $U/lib/libapsp.a ] && [ -f $U/lib/libapsp.so.0.1.0 ] &&
	[ "$(readlink $U/lib/libapsp.so.0)" = libapsp.so.0.1.0 ] && [ "$(readlink $U/lib/libapsp.so)" = libapsp.so.0 ]'
expect_true public-headers '[ -f $U/include/apsp/stream.h ] && [ -f $U/include/apsp/graphio.h ] &&
	[ -f $U/include/apsp/solve.h ] && [ -f $U/include/apsp/fw.h ] && [ ! -e $U/include/apsp/blockcodec.h ]'
if command -v groff >/dev/null 2>&1; then
	expect_output libapsp-man-clean '' 'groff -ww -man -Tutf8 $TOP/man/libapsp.3 2>&1 >/dev/null'
fi
expect_true man-names-the-stream-calls 'readelf -W --dyn-syms $U/lib/libapsp.so.0.1.0 | awk "\$7 != \"UND\" && \$5 == \"GLOBAL\" {print \$8}" |
	sed "s/@.*//" | grep -E "^st_(read|writ|scan|skip|spool)" >$T/calls && [ -s $T/calls ] &&
	while read -r f; do grep -q -- "$f" $TOP/man/libapsp.3 || { echo "$f not in libapsp.3" >&2; exit 1; }; done <$T/calls'
expect_true headers-say-public 'for h in $U/include/apsp/*.h; do grep -q "Public: installed as <apsp/$(basename $h)>" $h || exit 1; done'
expect_true pc-prefix 'grep -qx "prefix=/usr" $U/lib/pkgconfig/apsp.pc && grep -q "^Libs: -L\${libdir} -lapsp" $U/lib/pkgconfig/apsp.pc'
if command -v readelf >/dev/null 2>&1; then
	expect_true soname 'readelf -d $U/lib/libapsp.so.0.1.0 | grep -q "SONAME.*\[libapsp.so.0\]"'
	expect_true exports-public-only 'readelf -W --dyn-syms $U/lib/libapsp.so.0.1.0 | awk "\$7 != \"UND\" && \$5 == \"GLOBAL\" {print \$8}" >$T/syms &&
		grep -q "^st_reader_open" $T/syms && grep -q "^gio_" $T/syms && grep -q "^gs_add_rows" $T/syms && ! grep -q "^bc_" $T/syms &&
		! grep -Ev "^(st|gio|sv|fw|gs|ce)_" $T/syms | grep -v "^APSP_0" | grep -q .'
else
	skip soname "no readelf"
fi

# The example, built against the staged copy.
pc="env PKG_CONFIG_PATH=$U/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$S pkg-config"
if ! command -v pkg-config >/dev/null 2>&1; then
	skip example "no pkg-config (Debian: pkgconf)"
	exit 0
fi
cc=${CC:-cc}
san=
nm "$U/lib/libapsp.a" 2>/dev/null | grep -q __asan_ && san="-fsanitize=address,undefined"
expect_true pkg-config-flags '$pc --cflags apsp | grep -q -- "-I$U/include" && $pc --libs apsp | grep -q -- "-L$U/lib -lapsp"'
expect_true example-builds-shared '$cc $san -o $T/row $TOP/examples/apsp-row.c $($pc --cflags --libs apsp)'
$BIN/gengraph -n 200 -d 8 -s 21 -o $T/g
$BIN/apsp-cpu -o $T/r $T/g
want=$($BIN/apsp-path -i $T/r 3 17)
expect_true example-runs-shared 'out=$(LD_LIBRARY_PATH=$U/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $T/row $T/r 3 17) &&
	[ "$(printf "%s\n" "$out" | tail -n 1)" = "$want" ] &&
	LD_LIBRARY_PATH=$U/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd $T/row | grep -q "libapsp.so.0 => $U/lib/libapsp.so.0"'
expect_true example-row-has-n-distances 'LD_LIBRARY_PATH=$U/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $T/row $T/r 3 17 | head -n 1 | awk "{print NF}" | grep -qx 203'
expect_true example-builds-static '$cc $san -o $T/rows $TOP/examples/apsp-row.c $($pc --cflags apsp) $U/lib/libapsp.a $($pc --static --libs apsp | sed "s/-lapsp//") &&
	! ldd $T/rows | grep -q libapsp && [ "$($T/rows $T/r 3 17 | tail -n 1)" = "$want" ]'
expect_true example-stdin 'cat $T/r | LD_LIBRARY_PATH=$U/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $T/row - 0 5 | tail -n 1 | grep -q "^0 "'
expect_stderr example-damaged 2 'apsp-row: .*truncated' 'head -c 400 $T/r | LD_LIBRARY_PATH=$U/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $T/row - 0 5'
# The Python package, from its installed place alone (the library by the
# loader's path, as the stage is not at its prefix).
if find_python numpy; then
	sanitizer_preload
	expect_true python-package-installed '[ -f $U/lib/python3/dist-packages/apsp/__init__.py ] && [ -f $U/lib/python3/dist-packages/apspmat.py ] &&
		grep -q "_INSTALLED_LIBDIR = \"/usr/lib\"" $U/lib/python3/dist-packages/apsp/_lib.py'
	expect_output python-package-runs-installed '[[0. 2.]
 [1. 0.]]' 'cd $T && PYTHONPATH=$U/lib/python3/dist-packages LD_LIBRARY_PATH=$U/lib "$py" -c "import apsp, numpy as np; print(apsp.floyd_warshall(np.array([[0, 2.0], [1, 0]]), device=\"cpu\"))"'
fi
unset LD_PRELOAD
# The GPU library where nvcc built it, beside libapsp (found there through
# its $ORIGIN run path).
if [ -f "$TOP/build/libapsp-gpu.so.0.1.0" ]; then
	expect_true gpu-library-installed '[ -f $U/lib/libapsp-gpu.so.0.1.0 ] && [ "$(readlink $U/lib/libapsp-gpu.so.0)" = libapsp-gpu.so.0.1.0 ] &&
		readelf -d $U/lib/libapsp-gpu.so.0.1.0 | grep -q "RUNPATH.*\$ORIGIN"'
fi
