/* apsp-row.c - an example of libapsp: read an all-pairs result stream, print
 * the distances from one vertex and the shortest path to another.
 *
 *   cc -o apsp-row apsp-row.c $(pkg-config --cflags --libs apsp)
 *   apsp-row r.apm 3 17          (or - for standard input)
 *
 * Only the two rows it needs are inflated (st_read_rows); every other block
 * is skipped, and the stream is still read to its end and checked. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <apsp/stream.h>

static int fail(const char *what, const char *msg)
{
	fprintf(stderr, "apsp-row: %s%s%s\n", what ? what : "", what ? ": " : "", msg);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return fail(NULL, "usage: apsp-row STREAM SRC DST");
	char *end;
	uint64_t src = strtoull(argv[2], &end, 10);
	if (*end || !*argv[2])
		return fail(argv[2], "not a vertex number");
	uint64_t dst = strtoull(argv[3], &end, 10);
	if (*end || !*argv[3])
		return fail(argv[3], "not a vertex number");
	int fd = strcmp(argv[1], "-") ? open(argv[1], O_RDONLY) : 0;
	if (fd < 0)
		return fail(argv[1], "cannot open");

	st_header h;
	st_error err;
	st_reader *r = st_reader_open(fd, argv[1], &h, 0, &err);
	if (!r)
		return fail(NULL, err.msg);
	if (st_header_is_checkpoint(&h)) {
		st_reader_free(r);
		st_header_free(&h);
		return fail(argv[1], ST_CHECKPOINT_REFUSAL);
	}
	if (!(h.matrices & ST_DIST) || !(h.matrices & ST_PRED) || src >= h.n || dst >= h.n) {
		st_reader_free(r);
		st_header_free(&h);
		return fail(argv[1], "no distances and predecessors, or a vertex out of range");
	}
	int32_t *drow = malloc(h.npad * 4), *prow = malloc(h.npad * 4);
	int rc = drow && prow ? 0 : -1;
	if (rc < 0)
		snprintf(err.msg, sizeof err.msg, "out of memory");
	for (uint32_t bit; rc == 0 && (bit = st_next_matrix(r)) != 0;)
		rc = bit == ST_DIST ? st_read_rows(r, &src, 1, drow, &err)
		   : bit == ST_PRED ? st_read_rows(r, &src, 1, prow, &err)
		   : st_skip_matrix(r, &err);
	if (rc == 0)
		rc = st_reader_close(r, &err); /* checks the end and frees r */
	else
		st_reader_free(r);
	if (rc < 0) {
		free(drow);
		free(prow);
		st_header_free(&h);
		return fail(NULL, err.msg);
	}

	int is_int = h.type == ST_INT32;
	const float *frow = (const float *)drow;
	printf("distances from %llu:", (unsigned long long)src);
	for (uint64_t v = 0; v < h.n; v++) {
		if (is_int ? drow[v] >= ST_INF_I32 : isinf(frow[v]))
			printf(" inf");
		else if (is_int)
			printf(" %d", drow[v]);
		else
			printf(" %.9g", frow[v]);
	}
	printf("\n");
	if (is_int ? drow[dst] >= ST_INF_I32 : isinf(frow[dst])) {
		printf("%llu -> %llu unreachable\n", (unsigned long long)src, (unsigned long long)dst);
	} else {
		/* The path backwards through the predecessors of row src. */
		uint64_t *path = malloc((h.n + 1) * sizeof *path), len = 0;
		for (uint64_t v = dst; path && len <= h.n; v = (uint64_t)prow[v]) {
			path[len++] = v;
			if (v == src || prow[v] < 0)
				break;
		}
		if (!path || path[len - 1] != src) {
			free(path), free(drow), free(prow);
			st_header_free(&h);
			return fail(argv[1], path ? "a predecessor chain does not reach the source"
			                          : "out of memory");
		}
		for (uint64_t k = len; k-- > 0;)
			printf("%llu%s", (unsigned long long)path[k], k ? " -> " : "");
		if (is_int)
			printf("  distance %d\n", drow[dst]);
		else
			printf("  distance %.9g\n", frow[dst]);
		free(path);
	}
	free(drow);
	free(prow);
	st_header_free(&h);
	return 0;
}
