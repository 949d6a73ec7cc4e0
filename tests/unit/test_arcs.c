/* test_arcs.c - a graph as a stream's list of arcs (ST_ARCS): written and
 * read back through the header of version 2, its rules checked
 * (st_arcs_check), refused where rows are asked, and taken to and from a
 * graph's edges (gio_arcs, gio_from_arcs) as the matrix would hold them. */
#include <string.h>

#include "graphio.h"
#include "stream_t.h"

/* A stream of h (matrices ST_ARCS) with the records arcs, in memory. */
static unsigned char *write_arcs(const st_header *h, const void *arcs, size_t *len, int *rc)
{
	int fd = memfd_create("arcs", 0);
	st_error err;
	*rc = st_write_all(fd, h, arcs, NULL, NULL, 1, 2, &err);
	unsigned char *b = fd_bytes(fd, len);
	close(fd);
	return b;
}

static void put_rec(unsigned char *p, uint32_t u, uint32_t v, int32_t w)
{
	memcpy(p, &u, 4);
	memcpy(p + 4, &v, 4);
	memcpy(p + 8, &w, 4);
}

static void test_round_trip(void)
{
	enum { N = 1000, M = 5000 };
	st_header h;
	st_header_init(&h, N, 1, ST_INT32);
	h.matrices = ST_ARCS;
	h.arcs = M;
	h.block = 4096; /* records across blocks */
	unsigned char *a = malloc(M * 12);
	for (uint32_t k = 0; k < M; k++)
		put_rec(a + k * 12, k / 5, (k / 5 + 1 + k % 5 * 7) % N, (int32_t)(t_rnd() % 2000) - 500);
	/* (rows of five heads, ascending where they do not wrap: sort them) */
	for (uint32_t r = 0; r < M / 5; r++)
		for (int x = 0; x < 5; x++)
			for (int y = x + 1; y < 5; y++) {
				unsigned char *p = a + (r * 5 + x) * 12, *q = a + (r * 5 + y) * 12, t[12];
				uint32_t pv, qv;
				memcpy(&pv, p + 4, 4);
				memcpy(&qv, q + 4, 4);
				if (qv < pv)
					memcpy(t, p, 12), memcpy(p, q, 12), memcpy(q, t, 12);
			}
	size_t len;
	int rc;
	unsigned char *b = write_arcs(&h, a, &len, &rc);
	T_CHECK("arcs: a list of 5000 arcs is written", rc == 0);
	uint32_t v, hlen, plen;
	memcpy(&v, b + 8, 4);
	memcpy(&hlen, b + 12, 4);
	memcpy(&plen, b + 60, 4);
	uint64_t count;
	memcpy(&count, b + 64, 8);
	T_CHECK("arcs: its header is version 2, 76 bytes and the provenance, the count at 64",
	        v == 2 && hlen == 76 + plen && count == M);
	st_matrices m;
	st_error err;
	int fd = mem_fd(b, len);
	rc = st_read_all(fd, "arcs.bin", 2, &m, &err);
	close(fd);
	T_CHECK("arcs: read back whole, checked", rc == 0 && m.arcs && !m.weights
	        && m.h.matrices == ST_ARCS && m.h.arcs == M && !memcmp(m.arcs, a, M * 12));
	if (rc == 0)
		st_matrices_free(&m);
	/* rows of a list: refused by name */
	st_header rh;
	fd = mem_fd(b, len);
	st_reader *r = st_reader_open(fd, "arcs.bin", &rh, 1, &err);
	uint64_t row = 0;
	int32_t dst[N];
	rc = r ? st_read_rows(r, &row, 1, dst, &err) : 0;
	T_CHECKF(rc < 0 && strstr(err.msg, "a graph as a list of arcs"), "arcs: rows refused (%s)",
	         err.msg);
	st_reader_free(r);
	st_header_free(&rh);
	close(fd);
	/* damage to the count: the header's CRC */
	b[64] ^= 1;
	fd = mem_fd(b, len);
	r = st_reader_open(fd, "arcs.bin", &rh, 1, &err);
	T_CHECKF(!r && strstr(err.msg, "CRC mismatch in the stream header"),
	         "arcs: a changed count is seen (%s)", err.msg);
	close(fd);
	free(b);
	free(a);
}

static void test_header_rules(void)
{
	st_header h;
	st_header_init(&h, 10, 1, ST_INT32);
	unsigned char a[12];
	put_rec(a, 0, 1, 5);
	size_t len;
	int rc;
	h.matrices = ST_ARCS | ST_DIST;
	h.arcs = 1;
	free(write_arcs(&h, a, &len, &rc));
	T_CHECK("arcs: a list of arcs beside a matrix is refused", rc < 0);
	h.matrices = ST_WEIGHTS;
	free(write_arcs(&h, a, &len, &rc));
	T_CHECK("arcs: an arc count without a list is refused", rc < 0);
	h.matrices = ST_ARCS;
	h.arcs = 101;
	free(write_arcs(&h, a, &len, &rc));
	T_CHECK("arcs: more arcs than pairs is refused", rc < 0);
	/* a version 1 header that announces arcs (bits changed, CRC made good) */
	h.arcs = 1;
	unsigned char *b = write_arcs(&h, a, &len, &rc);
	uint32_t one = 1, plen;
	memcpy(b + 8, &one, 4);
	memcpy(&plen, b + 60, 4);
	uint32_t hl = 68 + plen;
	memcpy(b + 12, &hl, 4);
	memmove(b + 64, b + 72, len - 72);
	uint32_t crc = st_crc32(b, 64 + plen);
	memcpy(b + 64 + plen, &crc, 4);
	st_header rh;
	st_error err;
	int fd = mem_fd(b, len - 8);
	st_reader *r = st_reader_open(fd, "v1.bin", &rh, 1, &err);
	T_CHECKF(!r && strstr(err.msg, "version 1 with a list of arcs"),
	         "arcs: version 1 announcing arcs is refused (%s)", err.msg);
	close(fd);
	free(b);
}

static void test_check(void)
{
	st_header h;
	st_header_init(&h, 4, 1, ST_INT32);
	h.matrices = ST_ARCS;
	h.arcs = 2;
	const struct {
		uint32_t u0, v0;
		int32_t w0;
		uint32_t u1, v1;
		int32_t w1;
		const char *why;
	} c[] = {
		{0, 1, 3, 1, 2, 4, NULL},
		{0, 1, 3, 0, 1, 4, "out of order"},
		{1, 0, 3, 0, 1, 4, "out of order"},
		{0, 1, 3, 0, 4, 4, "out of range"},
		{0, 1, ST_INF_I32, 1, 2, 4, "not finite"},
		{0, 1, -ST_INF_I32, 1, 2, 4, "not finite"},
		{0, 1, 3, 2, 2, 0, "loop whose weight is not negative"},
		{0, 1, 3, 2, 2, -1, NULL},
	};
	for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
		unsigned char a[24];
		put_rec(a, c[k].u0, c[k].v0, c[k].w0);
		put_rec(a + 12, c[k].u1, c[k].v1, c[k].w1);
		st_error err = {{0}};
		int rc = st_arcs_check("g.bin", &h, a, &err);
		T_CHECKF(c[k].why ? rc < 0 && strstr(err.msg, c[k].why) && strstr(err.msg, "g.bin: arc ")
		                  : rc == 0,
		         "arcs: case %zu %s (%s)", k, c[k].why ? c[k].why : "accepted", err.msg);
	}
	st_header_init(&h, 4, 1, ST_FLOAT32);
	h.matrices = ST_ARCS;
	h.arcs = 1;
	unsigned char a[12];
	const float nan = NAN;
	put_rec(a, 0, 1, 0);
	memcpy(a + 8, &nan, 4);
	st_error err;
	T_CHECK("arcs: a float32 NaN weight is refused", st_arcs_check("g", &h, a, &err) < 0);
	/* a kept order: a permutation of the n vertices */
	const int32_t good[4] = {2, 0, 3, 1}, twice[4] = {2, 0, 2, 1}, out[4] = {2, 0, 4, 1};
	h.n = 4;
	T_CHECK("order: a permutation is taken", st_order_check("g", &h, good, &err) == 0);
	T_CHECKF(st_order_check("g", &h, twice, &err) < 0 && strstr(err.msg, "position 2: vertex 2 a second time"),
	         "order: a vertex twice is named (%s)", err.msg);
	T_CHECKF(st_order_check("g", &h, out, &err) < 0 && strstr(err.msg, "vertex 4 out of range"),
	         "order: a vertex out of range is named (%s)", err.msg);
}

/* gio_arcs takes the matrix's view: each pair once at its least weight,
 * loops only where negative; gio_from_arcs gives the same matrix back. */
static void test_graph(void)
{
	gio_edge e[] = {{2, 1, 7}, {0, 1, 5}, {2, 1, 3}, {1, 1, 4}, {0, 0, -2}, {1, 0, 9}};
	gio_graph g = {.n = 3, .npad = 3, .type = ST_INT32, .flags = ST_DIRECTED,
	               .edge = e, .nedge = 6};
	st_error err;
	uint64_t count;
	unsigned char *a = gio_arcs(&g, &count, &err);
	int32_t want[][3] = {{0, 0, -2}, {0, 1, 5}, {1, 0, 9}, {2, 1, 3}};
	int same = a && count == 4;
	for (int k = 0; same && k < 4; k++) {
		int32_t got[3];
		memcpy(got, a + k * 12, 12);
		same = !memcmp(got, want[k], 12);
	}
	T_CHECK("arcs: gio_arcs sorts, keeps the least of a pair, drops a loop not negative", same);
	st_header h;
	st_header_init(&h, 3, 1, ST_INT32);
	h.matrices = ST_ARCS;
	h.arcs = count;
	h.flags = ST_DIRECTED;
	gio_graph back;
	int32_t m1[9], m2[9];
	int rc = st_arcs_check("a", &h, a, &err) == 0 && gio_from_arcs(&h, a, &back, &err) == 0;
	if (rc) {
		gio_fill_matrix(&g, m1, 1);
		gio_fill_matrix(&back, m2, 1);
		gio_graph_free(&back);
	}
	T_CHECK("arcs: the list is valid and makes the graph's matrix", rc && !memcmp(m1, m2, 36));
	free(a);
}

int main(void)
{
	test_round_trip();
	test_header_rules();
	test_check();
	test_graph();
	return T_DONE();
}
