// fw_cpasync.cuh - copies from global to shared memory that go on while the
// warp computes (sm_80 and later: cp.async), N bytes each (4, 8 or 16),
// made in groups: commit closes a group, wait<K> returns once at most K
// groups are still on their way.
#ifndef APSP_FW_CPASYNC_CUH
#define APSP_FW_CPASYNC_CUH

#include <cuda_runtime.h>

namespace {

template <int N> __device__ __forceinline__ void cp_async(void *smem, const void *gmem)
{
	static_assert(N == 4 || N == 8 || N == 16, "cp.async copies 4, 8 or 16 bytes");
	const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
	if (N == 16) // (through L2 alone)
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
	else
		asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(gmem), "n"(N));
}
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem)
{
	cp_async<16>(smem, gmem);
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait()
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

} // namespace

#endif
