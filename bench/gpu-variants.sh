#!/bin/sh
# Build the kernel harness with other tile-kernel knobs (k values per
# shared-memory chunk: FW_KC64 at B = 64, FW_KC at the other B, both set to
# KC here; FW_UNROLL: k-loop unrolling, where the kernel does not fix it) and
# time each at n = 20000, 32-bit distances at B = 64 and 128, float32 at 64,
# int32 packed paths (B = 128).  EXTRA: more flags for every build, such as
# the add-min columns of the 8 x 8 tile (-DFW_ALU_Q64=5 -DFW_ALU_Q128=3).
# Needs build/libapsp.a (make) and the libraries the Makefile links.
#   sh bench/gpu-variants.sh "32:2 16:2 32:4 16:4"
#   EXTRA=-DFW_ALU_Q64=5 sh bench/gpu-variants.sh 16:2
set -u
variants=${1:-"32:2 16:2 32:4 16:4"}
mkdir -p build/variants
for v in $variants; do
	kc=${v%:*} un=${v#*:}
	( nvcc -O3 -lineinfo -gencode=arch=compute_90,code=sm_90 -std=c++17 -Ilib $(for r in lib/*/; do printf -- "-I%s " "${r%/}"; done) -Ikernels \
		-DFW_KC=$kc -DFW_KC64=$kc -DFW_UNROLL=$un ${EXTRA:-} -Xcompiler -fopenmp,-pthread \
		-o build/variants/bench-$kc-$un bench/fw_bench.cu kernels/dense/fw_gpu.cu build/libapsp.a \
		-lz -lm -lgomp -lisal -lmetis ) &
done
wait
bin/fw-kernel-bench --header
for v in $variants; do
	kc=${v%:*} un=${v#*:}
	echo "-- KC=$kc FW_UNROLL=$un"
	build/variants/bench-$kc-$un -n 20000 -B 64 --no-16bit -r 2 | tail -n 1
	build/variants/bench-$kc-$un -n 20000 -B 128 --no-16bit -r 2 | tail -n 1
	build/variants/bench-$kc-$un -n 20000 -B 64 -t float32 -r 2 | tail -n 1
	build/variants/bench-$kc-$un -n 20000 -p --no-16bit -r 2 | tail -n 1
done
