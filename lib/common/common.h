/* common.h - the shared machinery below every module, internal (not
 * installed): one error setter, one default thread count, the machine's
 * memory, one allocator for large buffers, one clock.  lib/, run/, tools/
 * and kernels/ all use these; names carry lib_, which libapsp.so does not
 * export. */
#ifndef APSP_COMMON_H
#define APSP_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Leave a formatted message in err (if not NULL); returns -1, so that a
 * failing path reads `return lib_fail(err, ...)`. */
int lib_fail(st_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* threads <= 0: the cores this process may use (lib_cores()), else threads. */
int lib_threads(int threads);
/* The cores this process may use, as nproc(1) counts them: the CPUs of its
 * affinity mask, fewer where a cgroup's CPU quota (cpu.max) allows less
 * (rounded up); at least 1.  Worked out once. */
int lib_cores(void);

/* An OpenMP clause: threads <= 0 takes every core (lib_threads), as
 * everything else in the library does. */
#define LIB_OMP_THREADS(t) num_threads(lib_threads(t))

/* Bytes of physical memory, or UINT64_MAX where the system does not say. */
uint64_t lib_physical_memory(void);

/* The one phrasing of a refusal for want of memory, into buf: "n = N needs
 * X GiB of memory, this machine has Y GiB: at most n = M fits", where what
 * is needed grows as n^power (1: rows of n, 2: n x n matrices) and M is the
 * largest n it allows.  Returns buf. */
char *lib_memory_refusal(char *buf, size_t len, uint64_t n, double need, double have, int power);

/* Memory of bytes (free() it): from 8 MiB on, on 2 MiB boundaries with
 * transparent huge pages asked for, so that its first touch faults 512
 * times less often (page faults are dear in a virtual machine); below, on
 * a page (so that a device may register it).  Its first writer should run
 * on every core: faulting gigabytes in on one takes seconds.  NULL when
 * out of memory. */
void *lib_huge_alloc(size_t bytes);

/* Seconds on the monotonic clock, for timings and progress. */
double lib_now(void);

/* Element k of an array of type's elements (a weight or a distance) as a
 * double: int32 at or past +-ST_INF_I32 is +-infinity, as the streams mean
 * it (no arc, unreachable). */
static inline double lib_element(uint32_t type, const void *p, uint64_t k)
{
	if (type == ST_INT32) {
		const int32_t x = ((const int32_t *)p)[k];
		return x >= ST_INF_I32 ? __builtin_inf() : x <= -ST_INF_I32 ? -__builtin_inf() : (double)x;
	}
	return type == ST_FLOAT32 ? ((const float *)p)[k] : ((const double *)p)[k];
}

#ifdef __cplusplus
}
#endif

#endif
