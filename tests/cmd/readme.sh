# The README's set-up command works as root on a machine without sudo (a
# fresh container) and through sudo where there is one: apt-get and make
# stand in for the real ones, and record how they were called.
. "$TOP/tests/lib.sh"
cmd=$(awk '/^## Set-up/ { s = 1 } s && /^    / { sub(/^    /, ""); print; exit }' "$TOP/README.md")
if [ -z "$cmd" ]; then
	fail "README set-up command" "not found under '## Set-up'"
	exit 0
fi
mkdir -p "$T/stub"
for p in apt-get make; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\n' "$p" "$T" >"$T/stub/$p"
	chmod +x "$T/stub/$p"
done
expect_true "README set-up: as root without sudo" '(PATH="$T/stub"; eval "$cmd") &&
	grep -q "^apt-get update" "$T/calls" && grep -q "^apt-get install -y .*python3-igraph" "$T/calls" &&
	grep -q "^make demo" "$T/calls"'
rm -f "$T/calls"
printf '#!/bin/sh\necho "sudo $*" >>"%s/calls"\n"$@"\n' "$T" >"$T/stub/sudo"
chmod +x "$T/stub/sudo"
expect_true "README set-up: through sudo where there is one" '(PATH="$T/stub"; eval "$cmd") &&
	grep -q "^sudo apt-get update" "$T/calls" && grep -q "^sudo apt-get install" "$T/calls" &&
	grep -q "^make demo" "$T/calls"'

# The README's Layout names every source file of the library, the programs,
# the run machinery and the kernels, and the header list every public header
# make install copies.
layout=$(awk '/^## Layout/ { s = 1; next } s && /^## / { exit } s' "$TOP/README.md")
missing=
for f in "$TOP"/lib/*/*.c "$TOP"/tools/*.c "$TOP"/run/*.c "$TOP"/kernels/*.cu "$TOP"/kernels/*.cuh; do
	b=$(basename "$f")
	case $b in apsp-*.c | bin2mtx.c | gengraph.c | mtx2bin.c) continue ;; esac # "one file each"
	printf '%s\n' "$layout" | grep -q "\`$b\`" || missing="$missing $b"
done
[ -z "$missing" ] && pass "README Layout names every source file" ||
	fail "README Layout names every source file" "missing:$missing"
hdrs=$(sed -n 's/^PUBLIC_H *:= *//p' "$TOP/Makefile")
missing=
for h in $hdrs; do
	grep -q "under \`include/apsp/\` (.*\`$(basename "$h")\`" "$TOP/README.md" || missing="$missing $h"
done
[ -n "$hdrs" ] && [ -z "$missing" ] && pass "README names every installed public header" ||
	fail "README names every installed public header" "missing:$missing"

# bench/README.md links every page and script of bench/, and tests/README.md
# is there.
missing=
for f in "$TOP"/bench/*.md "$TOP"/bench/*.sh "$TOP"/bench/*.c "$TOP"/bench/*.py "$TOP"/bench/plot; do
	b=$(basename "$f")
	[ "$b" = README.md ] && continue
	grep -q "]($b)" "$TOP/bench/README.md" || missing="$missing $b"
done
[ -z "$missing" ] && pass "bench/README.md links every page and script" ||
	fail "bench/README.md links every page and script" "missing:$missing"
expect_true "tests/README.md names every suite folder" 'for d in $TOP/tests/*/; do
	grep -q "\`$(basename $d)/\`" $TOP/tests/README.md || { echo "$(basename $d)" >&2; exit 1; }; done'
