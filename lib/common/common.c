/* common.c - the library's shared machinery (see common.h). */
#include "common.h"

#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
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
	return threads > 0 ? threads : lib_cores();
}

/* The CPUs a cgroup v2 quota allows ("QUOTA PERIOD" in cpu.max, rounded
 * up), or 0 where there is none. */
static int cgroup_cpus(void)
{
	char line[512], path[600] = "/sys/fs/cgroup/cpu.max";
	FILE *f = fopen("/proc/self/cgroup", "r");
	if (f) { /* "0::/PATH" under cgroup v2 */
		while (fgets(line, sizeof line, f))
			if (!strncmp(line, "0::", 3)) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max",
				         strcmp(line + 3, "/") ? line + 3 : "");
			}
		fclose(f);
	}
	if (!(f = fopen(path, "r")) && !(f = fopen("/sys/fs/cgroup/cpu.max", "r")))
		return 0;
	long long quota = 0, period = 0;
	char word[32];
	int got = fscanf(f, "%31s %lld", word, &period);
	fclose(f);
	if (got != 2 || !strcmp(word, "max") || period <= 0)
		return 0;
	quota = atoll(word);
	return quota > 0 ? (int)((quota + period - 1) / period) : 0;
}

int lib_cores(void)
{
	static int cores;
	if (__atomic_load_n(&cores, __ATOMIC_RELAXED))
		return cores;
	int n = 0;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
	if (n <= 0)
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	int quota = cgroup_cpus();
	if (quota > 0 && quota < n)
		n = quota;
	n = n > 0 ? n : 1;
	__atomic_store_n(&cores, n, __ATOMIC_RELAXED);
	return n;
}

char *lib_memory_refusal(char *buf, size_t len, uint64_t n, double need, double have, int power)
{
	const double scale = need > 0 ? (power == 1 ? have / need : sqrt(have / need)) : 1;
	snprintf(buf, len, "n = %llu needs %.1f GiB of memory, this machine has %.1f GiB: "
	         "at most n = %llu fits", (unsigned long long)n, need / 1073741824.0,
	         have / 1073741824.0, (unsigned long long)((double)n * scale * 0.999));
	return buf;
}

double lib_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t lib_physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

void *lib_huge_alloc(size_t bytes)
{
	if (bytes < (8u << 20))
		return aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
	const size_t huge = 2u << 20;
	void *m = aligned_alloc(huge, (bytes + huge - 1) / huge * huge);
#ifdef MADV_HUGEPAGE
	if (m)
		madvise(m, bytes, MADV_HUGEPAGE);
#endif
	return m;
}
