/* stats-first-touch.c - what memory costs the first time a process writes it.
 *
 * Maps GB gigabytes of anonymous memory (huge pages asked for, or not) and
 * writes every byte of it with memset on THREADS threads, PASSES times,
 * printing the seconds and GB/s of each pass.  The first pass pays for the
 * pages (and, on a virtual machine, for the host backing them); later passes
 * show the memory's own speed.  Run it twice on a fresh machine to see what
 * a first large process pays (bench/stats.md).
 *
 *   stats-first-touch GB [THREADS [HUGE [PASSES]]]     (defaults 8, 1, 2)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

struct part {
	char *p;
	size_t bytes;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *fill(void *arg)
{
	const struct part *q = arg;
	memset(q->p, 1, q->bytes);
	return NULL;
}

static long number(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "stats-first-touch: %s: '%s' is not a whole number in [%ld, %ld]\n", what, s,
		        lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 5) {
		fprintf(stderr, "usage: stats-first-touch GB [THREADS [HUGE [PASSES]]]\n");
		return 2;
	}
	const size_t bytes = (size_t)number(argv[1], 1, 1 << 20, "GB") << 30;
	const int threads = argc > 2 ? (int)number(argv[2], 1, 1024, "THREADS") : 8;
	const int huge = argc > 3 ? (int)number(argv[3], 0, 1, "HUGE") : 1;
	const int passes = argc > 4 ? (int)number(argv[4], 1, 100, "PASSES") : 2;
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("stats-first-touch: mmap");
		return 2;
	}
#ifdef MADV_HUGEPAGE
	madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
	pthread_t *tid = calloc((size_t)threads, sizeof *tid);
	struct part *part = calloc((size_t)threads, sizeof *part);
	if (!tid || !part) {
		fprintf(stderr, "stats-first-touch: out of memory\n");
		return 2;
	}
	for (int t = 0; t < threads; t++) {
		const size_t a = bytes / (size_t)threads * (size_t)t;
		const size_t b = t + 1 == threads ? bytes : bytes / (size_t)threads * (size_t)(t + 1);
		part[t] = (struct part){p + a, b - a};
	}
	for (int pass = 0; pass < passes; pass++) {
		const double t0 = now();
		for (int t = 0; t < threads; t++)
			if (pthread_create(&tid[t], NULL, fill, &part[t]) != 0) {
				fprintf(stderr, "stats-first-touch: cannot start a thread\n");
				return 2;
			}
		for (int t = 0; t < threads; t++)
			pthread_join(tid[t], NULL);
		const double s = now() - t0;
		printf("%s GiB, %d threads, %s pages, pass %d: %.2f s, %.1f GB/s\n", argv[1], threads,
		       huge ? "huge" : "4 KiB", pass + 1, s, (double)bytes / 1e9 / s);
		fflush(stdout);
	}
	munmap(p, bytes);
	free(tid);
	free(part);
	return 0;
}
