#!/bin/sh
# Build the kernel harness with other tile-kernel knobs (FW_KC: k values per
# shared-memory chunk; FW_UNROLL: k-loop unrolling) and time each at n=20000.
#   sh bench/gpu-variants.sh "32:2 16:2 32:1 64:2"
set -u
variants=${1:-"32:2 16:2 32:1 64:2"}
mkdir -p build/variants
for v in $variants; do
	kc=${v%:*} un=${v#*:}
	( nvcc -O3 -lineinfo -gencode=arch=compute_90,code=sm_90 -std=c++17 -Ilib -Ikernels \
		-DFW_KC=$kc -DFW_UNROLL=$un -Xcompiler -fopenmp -o build/variants/bench-$kc-$un \
		kernels/fw_bench.cu kernels/fw_gpu.cu -lgomp ) &
done
wait
bin/fw-kernel-bench --header
for v in $variants; do
	kc=${v%:*} un=${v#*:}
	echo "-- FW_KC=$kc FW_UNROLL=$un"
	build/variants/bench-$kc-$un -n 20000 -B 128 -r 2
	build/variants/bench-$kc-$un -n 20000 -B 128 -r 2 -p
done
