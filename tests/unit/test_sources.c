/* test_sources.c - a result of some rows (ST_SOURCES): the list of
 * sources written first whatever its bit, counted by a version 2 header;
 * its rows read whole, as rows (numbered in the list's order) and as
 * windows; its rules checked (st_sources_check, the header's).  A table
 * (ST_TARGETS): both lists, the rows of its columns alone, a version 3
 * header. */
#include <string.h>

#include "stream_t.h"

enum { N = 700, R = 5 };

/* A stream of R rows of N int32 distances (and predecessors) for the
 * sources src, in memory; *rc the writer's. */
static unsigned char *write_rows(st_header *h, const uint32_t *src, const int32_t *dist,
                                 const int32_t *pred, size_t *len, int *rc)
{
	int fd = memfd_create("rows", 0);
	st_error err;
	st_writer *w = st_writer_open(fd, h, 1, 2, &err);
	*rc = !w || st_write_matrix(w, src, &err) < 0 || st_write_matrix(w, dist, &err) < 0
	      || (pred && st_write_matrix(w, pred, &err) < 0) || st_writer_close(w, &err) < 0 ? -1 : 0;
	unsigned char *b = fd_bytes(fd, len);
	close(fd);
	return b;
}

static void header_of(st_header *h, uint64_t rows, uint32_t mats)
{
	st_header_init(h, N, 1, ST_INT32);
	h->matrices = mats;
	h->rows = rows;
	h->block = 1024; /* rows across blocks */
}

static int32_t at(uint32_t v, uint32_t j, int pred)
{
	return pred ? (int32_t)((v * 7 + j) % N) : (int32_t)(v * 1000 + j);
}

static void test_round_trip(void)
{
	const uint32_t src[R] = {640, 3, 77, 5, 699};
	int32_t *dist = malloc(R * N * 4), *pred = malloc(R * N * 4);
	for (int i = 0; i < R; i++)
		for (uint32_t j = 0; j < N; j++)
			dist[i * N + j] = at(src[i], j, 0), pred[i * N + j] = at(src[i], j, 1);
	st_header h;
	header_of(&h, R, ST_SOURCES | ST_DIST | ST_PRED);
	size_t len;
	int rc;
	unsigned char *b = write_rows(&h, src, dist, pred, &len, &rc);
	T_CHECK("sources: five rows written, the list first", rc == 0);
	uint32_t v, hlen, plen;
	uint64_t count;
	memcpy(&v, b + 8, 4), memcpy(&hlen, b + 12, 4), memcpy(&plen, b + 60, 4);
	memcpy(&count, b + 64, 8);
	T_CHECK("sources: a version 2 header, the rows counted at 64", v == 2 && hlen == 76 + plen
	        && count == R);
	st_matrices m;
	st_error err;
	int fd = mem_fd(b, len);
	rc = st_read_all(fd, "rows.bin", 2, &m, &err);
	close(fd);
	T_CHECKF(rc == 0 && m.sources && m.h.rows == R && !memcmp(m.sources, src, sizeof src)
	         && !memcmp(m.dist, dist, R * N * 4) && !memcmp(m.pred, pred, R * N * 4),
	         "sources: read back whole (%s)", rc ? err.msg : "");
	if (rc == 0)
		st_matrices_free(&m);
	/* the rows by their place in the list, the list itself read whole */
	st_header rh;
	fd = mem_fd(b, len);
	st_reader *r = st_reader_open(fd, "rows.bin", &rh, 1, &err);
	uint32_t got[R];
	const uint64_t want[2] = {1, 4};
	int32_t rows[2 * N];
	uint64_t past = R;
	T_CHECK("sources: the list comes first", r && st_next_matrix(r) == ST_SOURCES);
	rc = r ? st_read_rows(r, want, 2, rows, &err) : 0;
	T_CHECKF(rc < 0 && strstr(err.msg, "read whole"), "sources: the list not read as rows (%s)",
	         err.msg);
	st_reader_free(r);
	st_header_free(&rh);
	close(fd);
	fd = mem_fd(b, len);
	r = st_reader_open(fd, "rows.bin", &rh, 1, &err);
	rc = r ? st_read_matrix(r, got, &err) : -1;
	rc = rc ? rc : st_read_rows(r, want, 2, rows, &err);
	T_CHECKF(rc == 0 && !memcmp(got, src, sizeof src) && rows[0] == at(3, 0, 0)
	         && rows[N + 5] == at(699, 5, 0), "sources: rows 1 and 4 of the list (%s)",
	         rc ? err.msg : "");
	rc = r ? st_read_rows(r, &past, 1, rows, &err) : 0;
	T_CHECKF(rc < 0 && strstr(err.msg, "out of range"), "sources: row 5 of five is out of range (%s)",
	         err.msg);
	st_reader_free(r);
	st_header_free(&rh);
	close(fd);
	free(b);
	free(dist);
	free(pred);
}

static void test_rules(void)
{
	const uint32_t src[R] = {1, 2, 3, 4, 5}, twice[R] = {1, 2, 3, 2, 5}, far[R] = {1, 2, N, 4, 5};
	int32_t *dist = calloc(R * N, 4);
	st_header h;
	size_t len;
	int rc;
	st_error err;
	header_of(&h, R, ST_SOURCES | ST_WEIGHTS);
	free(write_rows(&h, src, dist, NULL, &len, &rc));
	T_CHECK("sources: a list beside weights is refused", rc < 0);
	header_of(&h, R, ST_SOURCES | ST_PRED);
	free(write_rows(&h, src, dist, NULL, &len, &rc));
	T_CHECK("sources: a list without distances is refused", rc < 0);
	header_of(&h, R, ST_DIST);
	free(write_rows(&h, src, dist, NULL, &len, &rc));
	T_CHECK("sources: a row count without a list is refused", rc < 0);
	header_of(&h, N + 1, ST_SOURCES | ST_DIST);
	st_writer *w = st_writer_open(-1, &h, 1, 1, &err);
	T_CHECKF(!w && strstr(err.msg, "more than the 700 vertices"), "sources: more rows than "
	         "vertices is refused (%s)", err.msg);
	header_of(&h, R, ST_SOURCES | ST_DIST);
	T_CHECK("sources: a list of distinct vertices passes", st_sources_check("x", &h, src, &err) == 0);
	T_CHECKF(st_sources_check("x", &h, twice, &err) < 0
	         && !strcmp(err.msg, "x: list of sources, row 3: vertex 2 a second time"),
	         "sources: a vertex twice is named (%s)", err.msg);
	T_CHECKF(st_sources_check("x", &h, far, &err) < 0
	         && !strcmp(err.msg, "x: list of sources, row 2: vertex 700 out of range"),
	         "sources: a vertex out of range is named (%s)", err.msg);
	/* a list of a vertex twice read whole: refused by st_read_all */
	unsigned char *b = write_rows(&h, twice, dist, NULL, &len, &rc);
	st_matrices m;
	int fd = mem_fd(b, len);
	rc = st_read_all(fd, "twice.bin", 1, &m, &err);
	close(fd);
	T_CHECKF(rc < 0 && strstr(err.msg, "vertex 2 a second time"), "sources: st_read_all checks "
	         "the list (%s)", err.msg);
	free(b);
	free(dist);
}

/* A table of R sources by C targets: written, read whole and as rows. */
static void test_table(void)
{
	enum { C = 3 };
	const uint32_t src[R] = {640, 3, 77, 5, 699}, dst[C] = {9, 0, 698}, twice[C] = {9, 0, 9};
	int32_t dist[R * C];
	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			dist[i * C + j] = at(src[i], dst[j], 0);
	st_header h;
	header_of(&h, R, ST_SOURCES | ST_TARGETS | ST_DIST);
	h.cols = C;
	st_error err;
	int fd = memfd_create("table", 0);
	st_writer *w = st_writer_open(fd, &h, 1, 2, &err);
	int rc = !w || st_write_matrix(w, src, &err) < 0 || st_write_matrix(w, dst, &err) < 0
	         || st_write_matrix(w, dist, &err) < 0 || st_writer_close(w, &err) < 0 ? -1 : 0;
	size_t len;
	unsigned char *b = fd_bytes(fd, &len);
	close(fd);
	uint32_t v, hlen, plen;
	uint64_t rows, cols;
	memcpy(&v, b + 8, 4), memcpy(&hlen, b + 12, 4), memcpy(&plen, b + 60, 4);
	memcpy(&rows, b + 64, 8), memcpy(&cols, b + 72, 8);
	T_CHECKF(rc == 0 && v == 3 && hlen == 84 + plen && rows == R && cols == C,
	         "table: a version 3 header, rows at 64 and columns at 72 (%s)", rc ? err.msg : "");
	st_matrices m;
	fd = mem_fd(b, len);
	rc = st_read_all(fd, "table.bin", 2, &m, &err);
	close(fd);
	T_CHECKF(rc == 0 && m.h.rows == R && m.h.cols == C && !memcmp(m.sources, src, sizeof src)
	         && !memcmp(m.targets, dst, sizeof dst) && !memcmp(m.dist, dist, sizeof dist)
	         && !m.pred, "table: read back whole (%s)", rc ? err.msg : "");
	if (rc == 0)
		st_matrices_free(&m);
	st_header rh;
	fd = mem_fd(b, len);
	st_reader *r = st_reader_open(fd, "table.bin", &rh, 1, &err);
	uint32_t got[R], gotd[C];
	const uint64_t want[2] = {1, 4};
	int32_t two[2 * C];
	rc = r ? st_read_matrix(r, got, &err) : -1;
	rc = rc ? rc : st_next_matrix(r) == ST_TARGETS ? st_read_matrix(r, gotd, &err) : -1;
	rc = rc ? rc : st_read_rows(r, want, 2, two, &err);
	T_CHECKF(rc == 0 && two[0] == at(3, 9, 0) && two[C + 2] == at(699, 698, 0),
	         "table: rows 1 and 4, C entries each (%s)", rc ? err.msg : "");
	st_reader_free(r);
	st_header_free(&rh);
	close(fd);
	free(b);
	T_CHECKF(st_targets_check("x", &h, twice, &err) < 0
	         && !strcmp(err.msg, "x: list of targets, column 2: vertex 9 a second time"),
	         "table: a target twice is named (%s)", err.msg);
	/* with the sources' predecessors: whole rows after the table */
	int32_t *pred = malloc(R * N * 4);
	for (int i = 0; i < R; i++)
		for (uint32_t j = 0; j < N; j++)
			pred[i * N + j] = at(src[i], j, 1);
	h.matrices |= ST_PRED;
	fd = memfd_create("table", 0);
	w = st_writer_open(fd, &h, 1, 2, &err);
	rc = !w || st_write_matrix(w, src, &err) < 0 || st_write_matrix(w, dst, &err) < 0 ? -1 : 0;
	/* a row at a time, as the engines write them: the writer stages the
	 * table's few bytes, then whole rows of predecessors many times larger
	 * (its stage grown for them: under the sanitizers, no write past it) */
	for (int i = 0; i < R && rc == 0; i++)
		rc = st_write(w, dist + i * C, C * 4, &err);
	rc = rc ? rc : st_write_end_matrix(w, &err);
	for (int i = 0; i < R && rc == 0; i++)
		rc = st_write(w, pred + i * N, N * 4, &err);
	rc = rc ? rc : st_write_end_matrix(w, &err) < 0 || st_writer_close(w, &err) < 0 ? -1 : 0;
	b = fd_bytes(fd, &len);
	close(fd);
	fd = mem_fd(b, len);
	rc = rc ? rc : st_read_all(fd, "table.bin", 2, &m, &err);
	close(fd);
	T_CHECKF(rc == 0 && !memcmp(m.dist, dist, sizeof dist) && m.pred
	         && !memcmp(m.pred, pred, R * N * 4), "table: its predecessors, whole rows, read back "
	         "(%s)", rc ? err.msg : "");
	if (rc == 0)
		st_matrices_free(&m);
	fd = mem_fd(b, len);
	r = st_reader_open(fd, "table.bin", &rh, 1, &err);
	int32_t prow[2 * N];
	rc = r ? st_read_matrix(r, got, &err) : -1;
	rc = rc ? rc : st_read_matrix(r, gotd, &err);
	rc = rc ? rc : st_read_rows(r, want, 2, two, &err);
	rc = rc ? rc : st_read_rows(r, want, 2, prow, &err);
	T_CHECKF(rc == 0 && prow[0] == at(3, 0, 1) && prow[N + 699] == at(699, 699, 1),
	         "table: predecessor rows 1 and 4, N entries each (%s)", rc ? err.msg : "");
	st_reader_free(r);
	st_header_free(&rh);
	close(fd);
	free(b), free(pred);
	h.matrices |= ST_WEIGHTS;
	T_CHECKF(!st_writer_open(-1, &h, 1, 1, &err) && strstr(err.msg, "with weights"),
	         "table: weights beside it are refused (%s)", err.msg);
	header_of(&h, R, ST_SOURCES | ST_DIST);
	h.cols = C;
	T_CHECKF(!st_writer_open(-1, &h, 1, 1, &err) && strstr(err.msg, "column count of 3 without"),
	         "table: a column count without a list is refused (%s)", err.msg);
}

int main(void)
{
	test_round_trip();
	test_rules();
	test_table();
	return T_DONE();
}
