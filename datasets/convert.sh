#!/bin/sh
# Convert every .mtx, .mtx.gz, .tar.gz (and .tgz) graph in DIR into DIR/NAME.apm,
# a binary matrix stream of edge weights (see mtx2bin(1)).
#
#   sh datasets/convert.sh DIR [MTX2BIN OPTION]...
#
# Options after DIR go to mtx2bin; without any, the weights are the absolute
# values (--weights abs), because most of the collection's matrices have
# negative entries, and on an undirected graph every negative edge is a
# negative cycle.  MTX2BIN names the program (default: bin/mtx2bin beside this
# script's folder, else mtx2bin on PATH).
set -u
if [ $# -ge 1 ] && { [ "$1" = -h ] || [ "$1" = --help ]; }; then
	sed -n '2,12s/^# \{0,1\}//p' "$0"
	exit 0
fi
if [ $# -lt 1 ]; then
	echo "usage: sh datasets/convert.sh DIR [MTX2BIN OPTION]..." >&2
	exit 2
fi
dir=$1; shift
[ $# -eq 0 ] && set -- --weights abs
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${MTX2BIN:-}" ]; then
	MTX2BIN=mtx2bin
	[ -x "$top/bin/mtx2bin" ] && MTX2BIN=$top/bin/mtx2bin
fi
[ -d "$dir" ] || { echo "convert.sh: $dir: not a directory" >&2; exit 2; }
status=0 count=0
for f in "$dir"/*.mtx "$dir"/*.mtx.gz "$dir"/*.tar.gz "$dir"/*.tgz; do
	[ -f "$f" ] || continue
	name=$(basename "$f")
	for ext in .tar.gz .tgz .mtx.gz .mtx; do name=${name%"$ext"}; done
	if "$MTX2BIN" -v "$@" -o "$dir/$name.apm" "$f"; then
		count=$((count + 1))
	else
		echo "convert.sh: $f: not converted" >&2
		status=2
	fi
done
echo "convert.sh: $count streams written in $dir" >&2
exit $status
