/* common.h - the library's shared machinery, internal (not installed): one
 * error setter, the default thread counts, the machine's memory, large
 * allocations.  Names carry lib_, which libapsp.so does not export. */
#ifndef APSP_COMMON_H
#define APSP_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

/* Leave a formatted message in err (if not NULL); returns -1, so that a
 * failing path reads `return lib_fail(err, ...)`. */
int lib_fail(st_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* threads <= 0: every core the process may use (OpenMP's count of
 * processors), else threads. */
int lib_threads(int threads);

/* An OpenMP clause: threads <= 0 takes OpenMP's default team size. */
#define LIB_OMP_THREADS(t) num_threads((t) > 0 ? (t) : omp_get_max_threads())

/* Bytes of physical memory, or UINT64_MAX where the system does not say. */
uint64_t lib_physical_memory(void);

/* Memory of bytes (free() it): from 8 MiB on, on 2 MiB boundaries with
 * transparent huge pages asked for, so that its first touch faults 512
 * times less often (page faults are dear in a virtual machine); below, on
 * a cache line.  NULL when out of memory. */
void *lib_huge_alloc(size_t bytes);

#endif
