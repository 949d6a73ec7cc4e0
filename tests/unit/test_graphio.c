/* test_graphio.c - the graph readers: policies, number scanning against
 * strtod, reads cut at every byte, errors, random damage. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graphio.h"
#include "t.h"

static int32_t wi(const gio_graph *g, uint64_t i, uint64_t j)
{
	return ((const int32_t *)g->w)[i * g->npad + j];
}

static float wf(const gio_graph *g, uint64_t i, uint64_t j)
{
	return ((const float *)g->w)[i * g->npad + j];
}

static int rd(const char *text, const gio_opts *o, gio_graph *g, st_error *e)
{
	return gio_read_buffer("t.mtx", text, strlen(text), o, g, e);
}

static int same_graph(const gio_graph *a, const gio_graph *b)
{
	return a->n == b->n && a->npad == b->npad && a->type == b->type &&
	       a->flags == b->flags && a->entries == b->entries && a->edges == b->edges &&
	       memcmp(a->w, b->w, a->npad * a->npad * 4) == 0;
}

static void test_policies(void)
{
	gio_opts o;
	gio_graph g;
	st_error e;
	gio_opts_init(&o);
	o.pad = 4;
	const char *dup = "%%MatrixMarket matrix coordinate integer general\n"
	                  "3 3 5\n1 2 5\n1 2 3\n2 2 7\n3 3 -2\n3 1 0\n";
	T_CHECK("read integer general", rd(dup, &o, &g, &e) == 0);
	T_CHECK("n and npad", g.n == 3 && g.npad == 4);
	T_CHECK("int32 for integer data", g.type == ST_INT32);
	T_CHECK("duplicates keep the minimum", wi(&g, 0, 1) == 3);
	T_CHECK("non-negative self-loop ignored", wi(&g, 1, 1) == 0);
	T_CHECK("negative self-loop on the diagonal", wi(&g, 2, 2) == -2);
	T_CHECK("explicit zero is an edge", wi(&g, 2, 0) == 0);
	T_CHECK("no edge is INF", wi(&g, 1, 0) == ST_INF_I32 && wi(&g, 0, 2) == ST_INF_I32);
	T_CHECK("padding isolated", wi(&g, 3, 3) == 0 && wi(&g, 3, 0) == ST_INF_I32 &&
	                            wi(&g, 0, 3) == ST_INF_I32);
	T_CHECK("flags directed negative", g.flags == (ST_DIRECTED | ST_NEGATIVE));
	T_CHECK("entries and edges", g.entries == 5 && g.edges == 2);
	gio_graph_free(&g);

	o.pad = 1;
	const char *skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n"
	                   "3 3 2\n2 1 1.5\n3 2 -0.25\n";
	T_CHECK("read real skew", rd(skew, &o, &g, &e) == 0);
	T_CHECK("float32 for real data", g.type == ST_FLOAT32);
	T_CHECK("skew mirrored negated", wf(&g, 1, 0) == 1.5f && wf(&g, 0, 1) == -1.5f &&
	                                 wf(&g, 2, 1) == -0.25f && wf(&g, 1, 2) == 0.25f);
	T_CHECK("float no edge is +inf", isinf(wf(&g, 0, 2)) && wf(&g, 0, 2) > 0);
	T_CHECK("skew entries count twice", g.entries == 4 && g.edges == 4);
	gio_graph_free(&g);

	o.weights = GIO_ABS;
	T_CHECK("skew abs", rd(skew, &o, &g, &e) == 0 && wf(&g, 0, 1) == 1.5f &&
	                    wf(&g, 1, 2) == 0.25f && !(g.flags & ST_NEGATIVE));
	gio_graph_free(&g);
	o.weights = GIO_UNIT;
	T_CHECK("unit", rd(skew, &o, &g, &e) == 0 && wf(&g, 0, 1) == 1 && wf(&g, 2, 1) == 1);
	gio_graph_free(&g);
	o.weights = GIO_VALUE;

	const char *sym = "%%MatrixMarket matrix coordinate pattern symmetric\n"
	                  "3 3 3\n2 1\n3 3\n1 3\n";
	T_CHECK("pattern symmetric", rd(sym, &o, &g, &e) == 0 && g.type == ST_INT32 &&
	                             wi(&g, 0, 1) == 1 && wi(&g, 1, 0) == 1 &&
	                             wi(&g, 0, 2) == 1 && wi(&g, 2, 0) == 1 && g.flags == 0);
	T_CHECK("symmetric entry count", g.entries == 5);
	gio_graph_free(&g);
	o.symmetry = GIO_DIRECTED;
	T_CHECK("--directed", rd(sym, &o, &g, &e) == 0 && wi(&g, 1, 0) == 1 &&
	                      wi(&g, 0, 1) == ST_INF_I32 && g.flags == ST_DIRECTED);
	gio_graph_free(&g);
	o.symmetry = GIO_UNDIRECTED;
	T_CHECK("--undirected", rd(dup, &o, &g, &e) == 0 && wi(&g, 1, 0) == 3 &&
	                        wi(&g, 0, 2) == 0 && !(g.flags & ST_DIRECTED));
	gio_graph_free(&g);
	o.symmetry = GIO_FROM_FILE;

	const char *arr = "%%MatrixMarket matrix array integer general\n2 2\n0\n3\n4\n9\n";
	T_CHECK("array column-major", rd(arr, &o, &g, &e) == 0 && wi(&g, 1, 0) == 3 &&
	                              wi(&g, 0, 1) == 4 && wi(&g, 0, 0) == 0 && wi(&g, 1, 1) == 0);
	gio_graph_free(&g);
	const char *arrs = "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n";
	T_CHECK("array skew", rd(arrs, &o, &g, &e) == 0 && wi(&g, 1, 0) == 1 &&
	                      wi(&g, 2, 0) == 2 && wi(&g, 2, 1) == 3 && wi(&g, 1, 2) == -3);
	gio_graph_free(&g);

	o.type = ST_FLOAT32;
	T_CHECK("-t float32 on integers", rd(dup, &o, &g, &e) == 0 && g.type == ST_FLOAT32 &&
	                                  wf(&g, 0, 1) == 3.0f);
	gio_graph_free(&g);
	o.type = ST_INT32;
	T_CHECK("-t int32 on a non-integral real fails", rd(skew, &o, &g, &e) == -1 &&
	        strstr(e.msg, "t.mtx:3: value 1.5 is not an integer") == e.msg);
	o.type = 0;

	o.edges_only = 1;
	T_CHECK("edge list mode", rd(dup, &o, &g, &e) == 0 && g.w == NULL && g.nedge == 4 &&
	                          g.edge[0].u == 0 && g.edge[0].v == 1 && g.edge[0].w == 5);
	gio_graph_free(&g);
}

static void test_other_formats(void)
{
	gio_opts o;
	gio_graph g;
	st_error e;
	gio_opts_init(&o);
	const char *gr = "c x\np sp 3 3\na 1 2 4\na 2 3 -1\na 1 2 2\n";
	T_CHECK("dimacs", gio_read_buffer("x.gr", gr, strlen(gr), &o, &g, &e) == 0 &&
	                  g.n == 3 && wi(&g, 0, 1) == 2 && wi(&g, 1, 2) == -1);
	gio_graph_free(&g);
	const char *st = "3 2\n1 2 7\n3 1 -4\n";
	o.format = GIO_EDGES;
	o.base = 1;
	T_CHECK("stanford size line", rd(st, &o, &g, &e) == 0 && g.n == 3 &&
	                              wi(&g, 0, 1) == 7 && wi(&g, 2, 0) == -4);
	gio_graph_free(&g);
	const char *el = "# c\n0 4\n4 1\n";
	o.base = 0;
	T_CHECK("edge list without size", rd(el, &o, &g, &e) == 0 && g.n == 5 &&
	                                  wi(&g, 0, 4) == 1 && wi(&g, 4, 1) == 1);
	gio_graph_free(&g);
	const char *elr = "0 1 0.5\n1 0 2\n";
	T_CHECK("edge list real weights", rd(elr, &o, &g, &e) == 0 && g.type == ST_FLOAT32 &&
	                                  wf(&g, 0, 1) == 0.5f);
	gio_graph_free(&g);
	const char *mixed = "0 1 3\n1 2\n";
	T_CHECK("mixed field counts fail", rd(mixed, &o, &g, &e) == -1 &&
	        strstr(e.msg, "t.mtx:2: ") == e.msg);

	T_CHECK("detect mtx", gio_detect(NULL, "  %%matrixmarket x", 18) == GIO_MTX);
	T_CHECK("detect by name", gio_detect("a/b.MTX.gz", "1 2", 3) == GIO_MTX);
	T_CHECK("detect dimacs", gio_detect(NULL, "c hi\np sp 1 0\n", 13) == GIO_DIMACS);
	T_CHECK("detect gr name", gio_detect("x.gr", "1 2", 3) == GIO_DIMACS);
	T_CHECK("detect edges", gio_detect(NULL, "0 1\n", 4) == GIO_EDGES);
}

static void test_numbers(void)
{
	double v;
	T_CHECK("real .5", gio_parse_real(".5", &v) == 0 && v == 0.5);
	T_CHECK("real 5.", gio_parse_real("5.", &v) == 0 && v == 5);
	T_CHECK("real -2.8E2", gio_parse_real("-2.8E2", &v) == 0 && v == -280);
	T_CHECK("real 1.5e-2", gio_parse_real("1.5e-2", &v) == 0 && v == strtod("1.5e-2", NULL));
	T_CHECK("real +7", gio_parse_real("+7", &v) == 0 && v == 7);
	T_CHECK("real -0", gio_parse_real("-0", &v) == 0 && v == 0);
	T_CHECK("Fortran D refused", gio_parse_real("1.0D+00", &v) == -1);
	T_CHECK("inf refused", gio_parse_real("inf", &v) == -1);
	T_CHECK("nan refused", gio_parse_real("nan", &v) == -1);
	T_CHECK("hex refused", gio_parse_real("0x10", &v) == -1);
	T_CHECK("lone dot refused", gio_parse_real(".", &v) == -1);
	T_CHECK("lone sign refused", gio_parse_real("-", &v) == -1);
	T_CHECK("bare exponent refused", gio_parse_real("1e", &v) == -1);
	T_CHECK("1e310 refused", gio_parse_real("1e310", &v) == -1);
	T_CHECK("long mantissa", gio_parse_real("3.14159265358979323846264338", &v) == 0 &&
	                         v == strtod("3.14159265358979323846264338", NULL));
	T_CHECK("tiny", gio_parse_real("2.91038304567e-11", &v) == 0 &&
	                v == strtod("2.91038304567e-11", NULL));

	/* The hand-written scanner agrees with strtod to the last bit. */
	unsigned long long x = 88172645463325252ull;
	int bad = 0;
	char s[64];
	for (int k = 0; k < 200000 && !bad; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int form = (int)(x % 4);
		unsigned long long m = (x >> 8) % (form == 3 ? 100000000000000000ull : 100000000ull);
		int ex = (int)((x >> 40) % 61) - 30;
		switch (form) {
		case 0: snprintf(s, sizeof s, "%llu", m); break;
		case 1: snprintf(s, sizeof s, "%s%llu.%03llu", x & 1 ? "-" : "", m, (x >> 20) % 1000); break;
		case 2: snprintf(s, sizeof s, "%llue%d", m, ex); break;
		default: snprintf(s, sizeof s, "-.%llue%d", m, ex); break;
		}
		double want = strtod(s, NULL);
		if (gio_parse_real(s, &v) != 0 || v != want) {
			bad = 1;
			printf("# %s: got %.17g want %.17g\n", s, v, want);
		}
	}
	T_CHECK("200000 numbers exactly as strtod", !bad);
}

static void test_reads_cut_anywhere(void)
{
	gio_opts o;
	gio_graph a, b;
	st_error e;
	gio_opts_init(&o);
	const char *text = "%%MatrixMarket matrix coordinate real general\r\n% c\r\n\r\n"
	                   "4 4 5\r\n1 2 .5\r\n\t2 3   -1e1\r\n% mid\r\n3 4 7\r\n4 1 2.25\r\n1 1 -3";
	size_t len = strlen(text);
	T_CHECK("whole", gio_read_buffer("t", text, len, &o, &a, &e) == 0);
	int ok = 1;
	for (size_t step = 1; step < 16; step++) {
		struct t_dribble d = {text, len, step};
		if (gio_read("t", t_dribble_read, &d, &o, &b, &e) != 0 || !same_graph(&a, &b))
			ok = 0;
		gio_graph_free(&b);
	}
	T_CHECK("reads of 1..15 bytes give the same graph", ok);
	gio_graph_free(&a);

	/* Past the 4 MiB read buffer: lines cut between reads. */
	size_t n = 300, m = 400000, cap = m * 32 + 100, off;
	char *big = malloc(cap);
	off = (size_t)sprintf(big, "%%%%MatrixMarket matrix coordinate integer general\n%zu %zu %zu\n",
	                      n, n, m);
	unsigned x = 12345;
	for (size_t k = 0; k < m; k++) {
		x = x * 1103515245u + 12345u;
		off += (size_t)sprintf(big + off, "%u %u %d\n", (x >> 8) % 300 + 1, (x >> 17) % 300 + 1,
		                       (int)((x >> 4) % 2001) - 1000);
	}
	T_CHECK("big whole", gio_read_buffer("big", big, off, &o, &a, &e) == 0 && a.entries == m);
	struct t_dribble d = {big, off, 65537};
	T_CHECK("big dribbled", gio_read("big", t_dribble_read, &d, &o, &b, &e) == 0 &&
	                        same_graph(&a, &b));
	gio_graph_free(&a);
	gio_graph_free(&b);
	free(big);
}

static void test_errors(void)
{
	gio_opts o;
	gio_graph g;
	st_error e;
	gio_opts_init(&o);
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n", "t.mtx:3: expected 2 entries, found 1"},
		{"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n", "t.mtx:3: column index 3 is out of range 1..2"},
		{"%%MatrixMarket matrix coordinate real general\n2 3 0\n", "t.mtx:2: the matrix is 2 x 3"},
		{"%%MatrixMarket matrix coordinate complex general\n", "t.mtx:1: complex matrices are not supported"},
		{"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 x\n", "t.mtx:3: 'x' is not a number"},
		{"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1 9\n", "t.mtx:3: unexpected '9'"},
		{"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n", "t.mtx:3: '1.5' is not an integer"},
		{"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", "t.mtx:3: diagonal entry"},
		{"", "t.mtx: empty input"},
	};
	int ok = 1;
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		o.format = GIO_MTX;
		if (rd(cases[k].text, &o, &g, &e) != -1 || strncmp(e.msg, cases[k].msg, strlen(cases[k].msg))) {
			printf("# case %zu: '%s'\n", k, e.msg);
			ok = 0;
		}
	}
	T_CHECK("errors name file, line and reason", ok);

	/* Random damage: no crash, an answer either way, a message on failure. */
	const char *good = "%%MatrixMarket matrix coordinate real symmetric\n% x\n5 5 4\n"
	                   "2 1 1.5\n3 2 -2\n5 4 .25e1\n5 5 1\n";
	size_t len = strlen(good);
	char *buf = malloc(len + 8);
	unsigned x = 7;
	int crashfree = 1;
	for (int k = 0; k < 20000; k++) {
		memcpy(buf, good, len);
		for (int f = 0; f < 3; f++) {
			x = x * 1103515245u + 12345u;
			buf[(x >> 8) % len] = (char)(x >> 20);
		}
		o.format = (int)(k % 4);
		int r = gio_read_buffer("f", buf, (x >> 3) % (len + 1), &o, &g, &e);
		if (r == 0)
			gio_graph_free(&g);
		else if (strncmp(e.msg, "f", 1) != 0)
			crashfree = 0;
	}
	T_CHECK("20000 damaged files: answer or message", crashfree);
	free(buf);
}

int main(void)
{
	test_policies();
	test_other_formats();
	test_numbers();
	test_reads_cut_anywhere();
	test_errors();
	return T_DONE();
}
