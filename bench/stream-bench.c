/* stream-bench.c - throughput and size of the binary matrix stream.
 *
 * Writes an n x n int32 matrix (default a synthetic 10000 x 10000 distance
 * matrix, see bench/stream.md) as a stream to /dev/null and to memory, reads
 * it back from memory, at each thread count and level, and prints MB/s of raw
 * data (per wall second and per CPU second of all threads) and the
 * compressed size.  -c instead times the codec choices alone (byte shuffle
 * or not, level, strategy) on one thread, in CPU time.
 *
 *   stream-bench [-n N] [-r MAXDIST] [-m dist,weights,pred] [-T 1,2,4]
 *                [-z 0,1,3] [-b BLOCK] [-i STREAM] [-c]
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include "stream.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds of the whole process, all threads: rates per CPU second are
 * what one core does, and hold on a machine shared with other work. */
static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "stream-bench: %s: %s\n", what, why);
	exit(2);
}

/* A counter-based hash: the same value for (seed, i, j) on any thread. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Distances of a dense random graph: d[i][j] = a[i] + b[j] + noise, scaled
 * so most values lie near the middle of 1..maxd, 0 on the diagonal.  With
 * maxd around 12 the value histogram matches what apsp-cpu gives for
 * gengraph -n 2000 -d 15 (values 0..11, most 5..7). */
static void gen_dist(int32_t *d, uint64_t n, int maxd)
{
	double s = maxd / 12.0;
#pragma omp parallel for schedule(static)
	for (uint64_t i = 0; i < n; i++) {
		int ai = (int)(mix(i) % 3);
		for (uint64_t j = 0; j < n; j++) {
			uint64_t r = mix(i * n + j + 1);
			int bj = (int)(mix(j + 7777777) % 3);
			/* noise ~ binomial(6, 1/2): bell-shaped 0..6 */
			int noise = __builtin_popcountll(r & 0x3f);
			int v = (int)lround((1 + ai + bj + noise) * s);
			d[i * n + j] = i == j ? 0 : v < 1 ? 1 : v;
		}
	}
}

/* Weights of gengraph -d 15 -w 1:100: INF where there is no edge. */
static void gen_weights(int32_t *w, uint64_t n)
{
#pragma omp parallel for schedule(static)
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++) {
			uint64_t r = mix(i * n + j + 12345);
			w[i * n + j] = i == j ? 0 : r % 100 < 15 ? (int32_t)(1 + (r >> 32) % 100) : ST_INF_I32;
		}
}

/* Predecessors of a dense graph: the vertex before j is close to arbitrary. */
static void gen_pred(int32_t *p, uint64_t n)
{
#pragma omp parallel for schedule(static)
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++)
			p[i * n + j] = i == j ? -1 : (int32_t)(mix(i * n + j + 999) % n);
}

static int parse_list(const char *s, int *v, int max)
{
	int k = 0;
	while (*s && k < max) {
		char *e;
		v[k++] = (int)strtol(s, &e, 10);
		s = *e == ',' ? e + 1 : e;
		if (e == s && *s)
			break;
	}
	return k;
}

/* Write matrix m (kind bit) with level and threads; time it to /dev/null and
 * to a memfd, then read it back from the memfd. */
static void bench_one(const char *label, const st_header *h0, uint32_t bit, const void *m,
                      int level, int threads, int reps)
{
	st_header h = *h0;
	st_error err;
	uint64_t bytes = st_matrix_bytes(&h);
	double tw = 1e30, tr = 1e30, cw = 1e30, cr = 1e30;
	long size = 0;

	h.matrices = bit;
	h.provenance = NULL;
	void *back = malloc(bytes);
	if (!back)
		die("malloc", "out of memory");
	for (int r = 0; r < reps; r++) {
		int null = open("/dev/null", O_WRONLY);
		double t0 = now(), c0 = cpu_now();
		if (st_write_all(null, &h, m, m, m, level, threads, &err) < 0)
			die("write", err.msg);
		double t = now() - t0, c = cpu_now() - c0;
		tw = t < tw ? t : tw;
		cw = c < cw ? c : cw;
		close(null);
	}
	int fd = memfd_create("stream", 0);
	if (st_write_all(fd, &h, m, m, m, level, threads, &err) < 0)
		die("write", err.msg);
	size = (long)lseek(fd, 0, SEEK_CUR);
	for (int r = 0; r < reps; r++) {
		lseek(fd, 0, SEEK_SET);
		st_header g;
		double t0 = now(), c0 = cpu_now();
		st_reader *rd = st_reader_open(fd, "memfd", &g, threads, &err);
		if (!rd || st_read_matrix(rd, back, &err) < 0 || st_reader_close(rd, &err) < 0)
			die("read", err.msg);
		double t = now() - t0, c = cpu_now() - c0;
		tr = t < tr ? t : tr;
		cr = c < cr ? c : cr;
		st_header_free(&g);
	}
	if (memcmp(back, m, bytes))
		die("read", "the matrix read back differs");
	close(fd);
	free(back);
	printf("%-8s %5llu %5u %5d %7d %9.0f %9.0f %9.0f %9.0f %7.2f%%\n", label,
	       (unsigned long long)h.npad, h.block >> 10, level, threads, bytes / tw / 1e6,
	       bytes / tr / 1e6, bytes / cw / 1e6, bytes / cr / 1e6, 100.0 * size / bytes);
	fflush(stdout);
}

/* -c: one thread, zlib alone, block by block: shuffle or not, levels, strategies. */
static void codec_table(const char *label, const unsigned char *m, uint64_t bytes, uint32_t block)
{
	static const struct { int shuffle, level, strategy; const char *name; } c[] = {
		{0, 1, Z_DEFAULT_STRATEGY, "plain"}, {1, 1, Z_DEFAULT_STRATEGY, "shuffle"},
		{0, 3, Z_DEFAULT_STRATEGY, "plain"}, {1, 3, Z_DEFAULT_STRATEGY, "shuffle"},
		{1, 6, Z_DEFAULT_STRATEGY, "shuffle"}, {1, 1, Z_RLE, "shuffle+rle"}, {0, 1, Z_RLE, "plain+rle"},
		{1, 1, Z_FILTERED, "shuffle+filtered"}, {1, 1, Z_HUFFMAN_ONLY, "shuffle+huffman"}};
	uint64_t nb = bytes < 64ull << 20 ? bytes : 64ull << 20; /* a sample of 64 MiB */
	unsigned char *sh = malloc(block), *out = malloc(block + 1024), *back = malloc(block);

	for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
		z_stream z = {0}, u = {0};
		deflateInit2(&z, c[k].level, Z_DEFLATED, -15, 8, c[k].strategy);
		inflateInit2(&u, -15);
		double tc = 0, ti = 0;
		uint64_t stored = 0;
		for (uint64_t off = 0; off < nb; off += block) {
			uint32_t raw = nb - off < block ? (uint32_t)(nb - off) : block;
			double t0 = cpu_now();
			const unsigned char *src = m + off;
			if (c[k].shuffle) {
				for (uint32_t i = 0; i < raw / 4; i++)
					for (int b = 0; b < 4; b++)
						sh[b * (raw / 4) + i] = src[4 * i + b];
				src = sh;
			}
			z.next_in = (unsigned char *)src;
			z.avail_in = raw;
			z.next_out = out;
			z.avail_out = block + 1024;
			deflate(&z, Z_FINISH);
			uint32_t clen = (uint32_t)z.total_out;
			deflateReset(&z);
			double t1 = cpu_now();
			u.next_in = out;
			u.avail_in = clen;
			u.next_out = back;
			u.avail_out = raw;
			inflate(&u, Z_FINISH);
			inflateReset(&u);
			double t2 = cpu_now();
			tc += t1 - t0;
			ti += t2 - t1;
			stored += clen;
		}
		deflateEnd(&z);
		inflateEnd(&u);
		printf("%-8s %5u %-17s %5d %9.0f %9.0f %7.2f%%\n", label, block >> 10, c[k].name,
		       c[k].level, nb / tc / 1e6, nb / ti / 1e6, 100.0 * stored / nb);
		fflush(stdout);
	}
	free(sh);
	free(out);
	free(back);
}

int main(int argc, char **argv)
{
	uint64_t n = 10000;
	int maxd = 12, codec = 0, reps = 2;
	uint32_t block = ST_BLOCK_DEFAULT;
	const char *input = NULL, *mats = "dist";
	int threads[64], nthreads = 0, levels[16], nlevels = 0;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:m:T:z:b:i:ck:h")) != -1) {
		switch (opt) {
		case 'n': n = strtoull(optarg, NULL, 10); break;
		case 'r': maxd = atoi(optarg); break;
		case 'm': mats = optarg; break;
		case 'T': nthreads = parse_list(optarg, threads, 64); break;
		case 'z': nlevels = parse_list(optarg, levels, 16); break;
		case 'b': block = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'i': input = optarg; break;
		case 'c': codec = 1; break;
		case 'k': reps = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: stream-bench [-n N] [-r MAXDIST] [-m dist,weights,pred] "
			                "[-T 1,2,4] [-z 0,1,3] [-b BLOCK] [-k REPEATS] [-i STREAM] [-c]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!nthreads) {
		int all = omp_get_num_procs();
		for (int t = 1; t < all && nthreads < 62; t *= 2)
			threads[nthreads++] = t;
		threads[nthreads++] = all;
	}
	if (!nlevels) {
		levels[0] = 0, levels[1] = 1, levels[2] = 3;
		nlevels = 3;
	}

	st_header h;
	void *m[3] = {0};
	const char *label[3] = {"weights", "dist", "pred"};
	st_error err;
	if (input) {
		int fd = strcmp(input, "-") ? open(input, O_RDONLY) : 0;
		st_matrices sm;
		if (fd < 0)
			die(input, "cannot open");
		if (st_read_all(fd, input, 0, &sm, &err) < 0)
			die("read", err.msg);
		h = sm.h;
		m[0] = sm.weights, m[1] = sm.dist, m[2] = sm.pred;
	} else {
		st_header_init(&h, n, 1, ST_INT32);
		uint64_t bytes = st_matrix_bytes(&h);
		for (int k = 0; k < 3; k++) {
			if (!strstr(mats, label[k]))
				continue;
			if (!(m[k] = malloc(bytes)))
				die("malloc", "out of memory");
			if (k == 0) gen_weights(m[k], n);
			if (k == 1) gen_dist(m[k], n, maxd);
			if (k == 2) gen_pred(m[k], n);
		}
	}
	h.block = block;
	printf("# %s %llu x %llu int32, %d cores\n", input ? input : "synthetic",
	       (unsigned long long)h.npad, (unsigned long long)h.npad, omp_get_num_procs());
	if (codec)
		printf("%-8s %5s %-17s %5s %9s %9s %8s\n", "matrix", "KiB", "codec", "level",
		       "deflMB/s", "inflMB/s", "size");
	else
		printf("%-8s %5s %5s %5s %7s %9s %9s %9s %9s %8s\n", "matrix", "n", "KiB", "level",
		       "threads", "writeMB/s", "readMB/s", "wrMB/cpus", "rdMB/cpus", "size");
	for (int k = 0; k < 3; k++) {
		if (!m[k])
			continue;
		if (codec) {
			codec_table(label[k], m[k], st_matrix_bytes(&h), block);
			continue;
		}
		for (int l = 0; l < nlevels; l++)
			for (int t = 0; t < nthreads; t++)
				bench_one(label[k], &h, 1u << k, m[k], levels[l], threads[t], reps);
	}
	for (int k = 0; k < 3; k++)
		free(m[k]);
	return 0;
}
