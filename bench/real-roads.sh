#!/bin/sh
# Real road networks end to end: `apsp-gpu -v --stats --summary GRAPH` (the
# graph as text, int32 where its weights are whole) on every graph of
# ../shared/datasets/roads that is there, twice each; one line a run: the
# sparse engine's -v stages (read, order and where it came from, eliminate,
# rows), the device's sweeps and fold, and the process's wall.  The PACE
# topologies (NY .. NE, no weights) run twice over: with unit weights and with
# seeded weights 1..1000 (a hash of the edge's ends, the same on every
# machine), made into Matrix Market text in a scratch folder; the TNTP city
# networks with their link lengths (float32).  Not a test.
#   sh bench/real-roads.sh [OTHER_TOP]
# OTHER_TOP: a second built checkout whose apsp-gpu runs beside this one's,
# the two taken in turn, their summaries compared byte for byte.
# GRAPHS: names to run (default: every one; a name is its file's, without
# folder and suffix, "-unit" or "-seeded" after a PACE name).  ROADS: the
# folder (default ../shared/datasets/roads beside the checkout).  TOOL:
# apsp-cpu to run the CPU engine instead.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
roads=${ROADS:-$top/../shared/datasets/roads}
tool=${TOOL:-apsp-gpu}
other=${1:-}
if [ ! -d "$roads" ]; then
	echo "no road networks at $roads (../shared/datasets/roads beside the checkout): skipped"
	exit 0
fi
if [ "$tool" = apsp-gpu ] && ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no GPU here (TOOL=apsp-cpu runs the CPU engine): skipped"
	exit 0
fi
dir=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1), $(nproc) cores, $tool"

wanted() { [ -z "${GRAPHS:-}" ] || case " $GRAPHS " in *" $1 "*) return 0 ;; esac; return 1; }
unpack() { # FILE: its text on stdout
	case $1 in
	*.xz) xz -dc "$1" 2>/dev/null || python3 -c 'import lzma, sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}
# A PACE topology ("p tw n m", then "u v") as Matrix Market text: unit
# weights (pattern), or seeded ones 1..1000 from a hash of u and v.
pace() { # FILE unit|seeded
	unpack "$1" | awk -v kind="$2" '
		$1 == "c" { next }
		$1 == "p" { print "%%MatrixMarket matrix coordinate " (kind == "unit" ? "pattern" : "integer") " symmetric"
		            print $3, $3, $4; next }
		{ u = $1 > $2 ? $1 : $2; v = $1 > $2 ? $2 : $1
		  if (kind == "unit") { print u, v; next }
		  h = (u * 1000003 + v) % 2147483647; h = (h * 48271) % 2147483647
		  print u, v, 1 + h % 1000 }'
}
# A TNTP network as Matrix Market text, its links' lengths as weights.
tntp() { # FILE
	unpack "$1" | awk '
		/<NUMBER OF NODES>/ { n = $4 } /<NUMBER OF LINKS>/ { m = $4 }
		/<END OF METADATA>/ { body = 1; print "%%MatrixMarket matrix coordinate real general"; print n, n, m; next }
		body && $1 ~ /^[0-9]+$/ { print $1, $2, $4 }'
}
run() { # LABEL TOP GRAPH
	s=$(date +%s.%N)
	/usr/bin/time -f "peak %M KB" "$2/bin/$tool" -v --stats --summary "$3" >"$dir/sum" 2>"$dir/err"
	rc=$?
	wall=$(echo "$(date +%s.%N) $s" | awk '{ printf "%.2f", $1 - $2 }')
	stages=$(sed -n 's/.*sparse engine: n .*; \(read .*\)/\1/p' "$dir/err" | head -n 1)
	device=$(sed -n 's/.*sparse engine: [a-z0-9]*: \(sweeps [0-9.]* ms\).*\(statistics folded [0-9.]* ms\).*/\1, \2/p' "$dir/err" | head -n 1)
	[ -n "$stages" ] || stages="(not the sparse engine: $(grep -o 'dense engine[^;]*' "$dir/err" | head -n 1))"
	echo "$1: ${stages}${device:+ | $device} | wall $wall s, $(grep -o 'peak [0-9]* KB' "$dir/err"), exit $rc"
	[ $rc = 0 ] || tail -n 3 "$dir/err" | sed 's/^/    /'
}
graph() { # NAME FILE
	wanted "$1" || return 0
	for pass in 1 2; do
		run "$1${other:+ (this)}" "$top" "$2"
		cp "$dir/sum" "$dir/this"
		if [ -n "$other" ]; then
			run "$1 (other)" "$other" "$2"
			cmp -s "$dir/sum" "$dir/this" || echo "$1: the summaries differ"
		fi
	done
}
for f in "$roads"/dimacs9/*.gr "$roads"/dimacs10/*.gr.gz "$roads"/suitesparse/*.mtx* \
         "$roads"/osm-derived/*.gr* "$roads"/networkit-street/*.gr*; do
	[ -f "$f" ] || continue
	name=$(basename "$f"); name=${name%.gz}; name=${name%.gr}; name=${name%.mtx}
	graph "$name" "$f"
done
for f in "$roads"/tntp/*_[nN]et*.tntp*; do
	[ -f "$f" ] || continue
	name=$(basename "$f"); name=${name%%_*}
	wanted "$name" || continue
	tntp "$f" >"$dir/g.mtx" && graph "$name" "$dir/g.mtx"
done
for f in "$roads"/pace16-dimacs9-topology/*.gr.xz; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .gr.xz)
	for kind in unit seeded; do
		wanted "$name-$kind" || continue
		pace "$f" $kind >"$dir/g.mtx" && graph "$name-$kind" "$dir/g.mtx"
	done
done
