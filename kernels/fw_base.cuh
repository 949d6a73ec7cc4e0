// fw_base.cuh - the bottom of the GPU engine, which every kernel file may
// include: the error record a run's host code fills (Err, fail), the check
// of every CUDA call (CUDA_TRY), and the one clock (lib_now, common.h).
#ifndef APSP_FW_BASE_CUH
#define APSP_FW_BASE_CUH

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>

#include "common.h"

namespace {

struct Err {
	char *buf;
	size_t len;
};

// The message into e (where it has room); returns -1.
__attribute__((format(printf, 2, 3))) int fail(Err e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (e.buf && e.len)
		vsnprintf(e.buf, e.len, fmt, ap);
	va_end(ap);
	return -1;
}

// In a function with an Err e that returns int: a failing call returns -1
// with its name, CUDA's reason and where it was.
#define CUDA_TRY(call)                                                        \
	do {                                                                      \
		cudaError_t rc_ = (call);                                             \
		if (rc_ != cudaSuccess)                                               \
			return fail(e, "%s: %s (%s:%d)", #call, cudaGetErrorString(rc_), \
			            __FILE__, __LINE__);                                  \
	} while (0)

} // namespace

#endif
