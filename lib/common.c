/* common.c - the library's shared machinery (see common.h). */
#include "common.h"

#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int lib_fail(st_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

int lib_threads(int threads)
{
	if (threads > 0)
		return threads;
	threads = omp_get_num_procs();
	return threads > 0 ? threads : 1;
}

uint64_t lib_physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

void *lib_huge_alloc(size_t bytes)
{
	if (bytes < (8u << 20))
		return aligned_alloc(64, (bytes + 63) / 64 * 64);
	const size_t huge = 2u << 20;
	void *m = aligned_alloc(huge, (bytes + huge - 1) / huge * huge);
#ifdef MADV_HUGEPAGE
	if (m)
		madvise(m, bytes, MADV_HUGEPAGE);
#endif
	return m;
}
