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
