#!/bin/sh
# apsp-demo.sh - the README's first pipeline: a random graph of 5000 vertices,
# solved on the GPU when one is present (else on the CPU), then one path.
#   sh tools/apsp-demo.sh   (run by "make demo"; BIN= picks the tools' folder)
set -e
bin=${BIN:-$(dirname "$0")/../bin}
if [ -x "$bin/apsp-gpu" ] && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
	engine=apsp-gpu
else
	engine=apsp-cpu
fi
echo "gengraph -n 5000 -d 15 | $engine | apsp-path 3 17" >&2
"$bin/gengraph" -n 5000 -d 15 | "$bin/$engine" | "$bin/apsp-path" 3 17
