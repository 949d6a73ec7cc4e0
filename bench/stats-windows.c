/* stats-windows.c - how fast the stream's reader hands a matrix over a
 * window of rows at a time, with no work in the windows: the GPUs' way
 * (kept windows, in passes: three buffers, each kept until the next
 * window's end) or apsp-stats' way (the ring: two buffers, no passes).
 * Compare with `apsp-info --check FILE` (inflate and drop) on the same
 * file (bench/stats.md).
 *
 *   stats-windows FILE kept|ring [THREADS [ROWS]]
 *
 * THREADS: the reader's threads (default: the cores); ROWS: rows a window
 * at least (default 335, the GPUs' 256 MiB windows at n = 200000).
 * Prints the wall seconds of the reading. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stream.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The windows' buffers touched once, as the GPUs' registered ones are. */
static void *take_buffer(void *ctx, size_t bytes)
{
	(void)ctx;
	void *p = malloc(bytes);
	if (p)
		memset(p, 0, bytes);
	return p;
}

static void give_buffer(void *ctx, void *p, size_t bytes)
{
	(void)ctx, (void)bytes;
	free(p);
}

static uint64_t no_begin(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	(void)ctx, (void)first, (void)count, (void)data;
	return 0;
}

static void no_piece(void *ctx, uint64_t i)
{
	(void)ctx, (void)i;
}

static int no_end(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	(void)ctx, (void)first, (void)count, (void)data;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[2], "kept") && strcmp(argv[2], "ring"))) {
		fprintf(stderr, "usage: stats-windows FILE kept|ring [THREADS [ROWS]]\n");
		return 2;
	}
	const int keep = strcmp(argv[2], "kept") == 0;
	const int threads = argc > 3 ? atoi(argv[3]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	const uint64_t rows = argc > 4 ? strtoull(argv[4], NULL, 10) : 335;
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	st_header h;
	st_error err;
	st_reader *r = st_reader_open(fd, argv[1], &h, threads, &err);
	if (!r) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	const st_window_work w = {no_begin, no_piece, no_end, NULL, take_buffer, give_buffer, keep};
	const double t0 = now();
	const int rc = st_read_windows_beside(r, rows, &w, &err);
	const double t = now() - t0;
	if (rc < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 2;
	}
	printf("%s windows, %d threads, windows of %llu rows at least: %.3f s (%.1f GB/s raw)\n",
	       argv[2], threads, (unsigned long long)rows, t,
	       (double)h.npad * (double)h.npad * ST_TYPE_SIZE(h.type) / t * 1e-9);
	st_reader_free(r); /* (later matrices, if any, unread) */
	st_header_free(&h);
	close(fd);
	return 0;
}
