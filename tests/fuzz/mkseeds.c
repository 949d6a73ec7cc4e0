/* mkseeds.c - writes the seed corpus of fuzz_stream (tests/fuzz/corpus/stream):
 * small streams with small blocks, so that the fuzzer starts from every
 * structure the format has: several blocks a matrix, stored, deflated and
 * shuffled blocks, one to three matrices, padding, float32, a header-only
 * negative-cycle result, provenance lines, a list of arcs across blocks.
 * Run by hand:
 *   cc -Ilib tests/fuzz/mkseeds.c build/libapsp.a -lz -fopenmp -o build/mkseeds &&
 *   build/mkseeds tests/fuzz/corpus/stream */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream.h"

/* The seed file dir/name, created (path: its name, for messages). */
static int open_seed(const char *dir, const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

static void seed(const char *dir, const char *name, uint64_t n, uint64_t pad, enum st_type type,
                 uint32_t matrices, uint32_t block, int level, uint32_t flags)
{
	char path[512];
	st_header h;
	st_error err;
	int fd = open_seed(dir, name, path, sizeof path);
	st_header_init(&h, n, pad, type);
	h.matrices = matrices;
	h.flags = flags;
	h.block = block;
	if (flags & ST_NEGCYCLE)
		h.cycle_vertex = (int64_t)n - 1;
	char *argv[] = {"mkseeds", (char *)name};
	st_header_add_pg(&h, "mkseeds", "1", 2, argv, &err);
	uint64_t bytes = st_matrix_bytes(&h);
	int32_t *w = malloc(bytes + 4), *d = malloc(bytes + 4), *p = malloc(bytes + 4);
	for (uint64_t i = 0; i < h.npad; i++) {
		for (uint64_t j = 0; j < h.npad; j++) {
			uint64_t k = i * h.npad + j;
			int finite = i == j || (i < n && j < n && (i * 7 + j * 3) % 5 < 2);
			int32_t v = i == j ? 0 : (int32_t)((i * 13 + j * 5) % 17 + 1);
			if (type == ST_INT32) {
				w[k] = finite ? v : ST_INF_I32;
				d[k] = i < n && j < n ? v : (i == j ? 0 : ST_INF_I32);
			} else {
				float f = finite ? (float)v / 4 : 1.0f / 0.0f;
				memcpy(&w[k], &f, 4);
				memcpy(&d[k], &f, 4);
			}
			p[k] = finite && i != j ? (int32_t)i : -1;
		}
	}
	if (st_write_all(fd, &h, w, d, p, level, 1, &err) < 0) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		exit(1);
	}
	close(fd);
	st_header_free(&h);
	free(w), free(d), free(p);
}

/* The seed dir/name of header h (freed) and its matrices m[0], m[1], ...
 * in the order they are stored, at level 1 on one thread. */
static void seed_of(const char *dir, const char *name, st_header *h, const void *const *m)
{
	char path[512];
	st_error err;
	int fd = open_seed(dir, name, path, sizeof path);
	st_writer *w = st_writer_open(fd, h, 1, 1, &err);
	for (int k = 0; w && k < st_matrix_count(h); k++)
		if (st_write_matrix(w, m[k], &err) < 0)
			w = NULL; /* (freed there) */
	if (!w || st_writer_close(w, &err) < 0) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		exit(1);
	}
	close(fd);
	st_header_free(h);
}

/* A graph as a list of arcs (a version 2 header), 12-byte records across
 * 40-byte blocks: vertex i to i + 1 and i + 3, and a negative loop. */
static void seed_arcs(const char *dir, const char *name)
{
	st_header h;
	st_header_init(&h, 6, 1, ST_INT32);
	h.matrices = ST_ARCS;
	h.block = 40;
	unsigned char rec[32 * 12];
	uint32_t m = 0;
	for (uint32_t i = 0; i < 6; i++) {
		const uint32_t heads[3] = {i, i + 1, i + 3};
		for (int k = i == 2 ? 0 : 1; k < 3; k++) {
			if (heads[k] >= 6)
				continue;
			const int32_t w = k == 0 ? -1 : (int32_t)(i * 3 + (uint32_t)k);
			memcpy(rec + m * 12, &i, 4);
			memcpy(rec + m * 12 + 4, &heads[k], 4);
			memcpy(rec + m * 12 + 8, &w, 4);
			m++;
		}
	}
	h.arcs = m;
	seed_of(dir, name, &h, (const void *const[]){rec});
}

/* A result of some rows (a version 2 header): sources 4, 0, 2 of 5
 * vertices first, then their rows of distances and predecessors across
 * 24-byte blocks. */
static void seed_rows(const char *dir, const char *name)
{
	st_header h;
	st_header_init(&h, 5, 1, ST_INT32);
	h.matrices = ST_SOURCES | ST_DIST | ST_PRED;
	h.rows = 3;
	h.block = 24;
	const uint32_t src[3] = {4, 0, 2};
	int32_t d[15], p[15];
	for (int i = 0; i < 15; i++)
		d[i] = (int32_t)src[i / 5] == i % 5 ? 0 : i * 2 + 1, p[i] = i % 5 ? (i % 5) - 1 : -1;
	seed_of(dir, name, &h, (const void *const[]){src, d, p});
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	seed(dir, "weights-int-1block", 4, 1, ST_INT32, ST_WEIGHTS, 1 << 20, 1, ST_DIRECTED);
	seed(dir, "weights-int-blocks-stored", 5, 1, ST_INT32, ST_WEIGHTS, 16, 0, ST_DIRECTED);
	seed(dir, "weights-int-blocks-deflated", 6, 1, ST_INT32, ST_WEIGHTS, 40, 6, ST_DIRECTED);
	seed(dir, "weights-float-pad8", 5, 8, ST_FLOAT32, ST_WEIGHTS, 64, 1, ST_DIRECTED | ST_NEGATIVE);
	seed(dir, "result-int", 5, 1, ST_INT32, ST_DIST | ST_PRED, 24, 1, ST_DIRECTED);
	seed(dir, "result-float-3", 4, 4, ST_FLOAT32, ST_WEIGHTS | ST_DIST | ST_PRED, 32, 9, 0);
	seed(dir, "result-dist-only", 3, 1, ST_INT32, ST_DIST, 1 << 20, 0, ST_DIRECTED);
	seed(dir, "negative-cycle", 3, 1, ST_INT32, 0, 1 << 20, 1, ST_DIRECTED | ST_NEGATIVE | ST_NEGCYCLE);
	seed(dir, "one-vertex", 1, 1, ST_INT32, ST_WEIGHTS, 4, 1, ST_DIRECTED);
	seed(dir, "empty-graph", 0, 1, ST_INT32, ST_WEIGHTS, 1 << 20, 1, ST_DIRECTED);
	seed_arcs(dir, "arcs-int-blocks");
	seed_rows(dir, "rows-int-sources");
	return 0;
}
