/* test_batch.c - fw_batch(): many small graphs in one call, each against
 * the textbook order written out here, for every element type; padding,
 * negative cycles in some graphs, bad graphs refused before any is touched,
 * the same bytes on any thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fw.h"
#include "t.h"

/* The textbook order on one graph of doubles (+inf: no arc), with the
 * predecessors' start of fw_batch: the reference. */
static void textbook(int n, double *d, int32_t *p)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			p[i * n + j] = i != j && d[i * n + j] < INFINITY ? i : -1;
	for (int i = 0; i < n; i++)
		d[i * n + i] = d[i * n + i] > 0 ? 0 : d[i * n + i];
	for (int k = 0; k < n; k++)
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				double s = d[i * n + k] + d[k * n + j];
				if (i != k && d[i * n + k] < INFINITY && s < d[i * n + j])
					d[i * n + j] = s, p[i * n + j] = p[k * n + j];
			}
}

/* count graphs of n (padded) vertices, graph g of size[g] <= n: arcs at
 * 30%, weights 1..20 shifted by potentials (negative arcs, no negative
 * cycle) where neg is set, as doubles (+inf none). */
static double *graphs(int count, int n, const int *size, int neg)
{
	double *w = malloc(sizeof *w * count * n * n);
	for (int g = 0; g < count; g++) {
		double *x = w + (size_t)g * n * n;
		int h[64];
		for (int v = 0; v < n; v++)
			h[v] = neg ? (int)(t_rnd() % 15) : 0;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				x[i * n + j] = i < size[g] && j < size[g] && i != j && t_rnd() % 10 < 3
				               ? 1 + (int)(t_rnd() % 20) + h[j] - h[i] : i == j ? 0 : INFINITY;
	}
	return w;
}

/* The graphs as type's elements (INF for +inf). */
static void *as_type(uint32_t type, const double *w, size_t k)
{
	void *o = malloc(k * ST_TYPE_SIZE(type));
	for (size_t i = 0; i < k; i++)
		if (type == ST_INT32)
			((int32_t *)o)[i] = w[i] < INFINITY ? (int32_t)w[i] : ST_INF_I32;
		else if (type == ST_FLOAT32)
			((float *)o)[i] = (float)w[i];
		else
			((double *)o)[i] = w[i];
	return o;
}

static double at(uint32_t type, const void *d, size_t i)
{
	if (type == ST_INT32)
		return ((const int32_t *)d)[i] >= ST_INF_I32 ? INFINITY : ((const int32_t *)d)[i];
	return type == ST_FLOAT32 ? ((const float *)d)[i] : ((const double *)d)[i];
}

static const char *tname(uint32_t type)
{
	return type == ST_INT32 ? "int32" : type == ST_FLOAT32 ? "float32" : "float64";
}

/* Each graph against the textbook (weights are small integers: every type's
 * sums exact), on 1 and 2 threads alike. */
static void test_types(void)
{
	const int count = 200, n = 21; /* (rows of 8 and a tail of 5) */
	int size[200];
	for (int g = 0; g < count; g++)
		size[g] = 1 + (int)(t_rnd() % n);
	for (int neg = 0; neg < 2; neg++) {
		double *w = graphs(count, n, size, neg);
		for (uint32_t type = ST_INT32; type <= ST_FLOAT64; type++) {
			const size_t k = (size_t)count * n * n;
			void *d = as_type(type, w, k), *d2 = as_type(type, w, k);
			int32_t *p = malloc(k * 4), *p2 = malloc(k * 4);
			int64_t cyc[200], cyc2[200];
			st_error err;
			int64_t rc = fw_batch(FW_MINPLUS, type, count, n, NULL, d, p, 1, cyc, &err);
			int64_t rc2 = fw_batch(FW_MINPLUS, type, count, n, NULL, d2, p2, 2, cyc2, &err);
			int bad = rc != 0 || rc2 != 0, diff = 0;
			for (int g = 0; g < count && !bad; g++) {
				double ref[24 * 24];
				int32_t rp[24 * 24];
				memcpy(ref, w + (size_t)g * n * n, sizeof *ref * n * n);
				textbook(n, ref, rp);
				for (int e = 0; e < n * n; e++) {
					const size_t i = (size_t)g * n * n + e;
					bad |= at(type, d, i) != ref[e] || p[i] != rp[e] || cyc[g] != -1;
				}
			}
			diff = memcmp(d, d2, k * ST_TYPE_SIZE(type)) || memcmp(p, p2, k * 4);
			T_CHECKF(!bad, "fw_batch %s%s: 200 graphs of 1..21 vertices as the textbook order",
			         tname(type), neg ? ", negative arcs" : "");
			T_CHECKF(!diff, "fw_batch %s%s: 1 and 2 threads, the same bytes", tname(type),
			         neg ? ", negative arcs" : "");
			/* distances alone: the same distances */
			void *d3 = as_type(type, w, k);
			fw_batch(FW_MINPLUS, type, count, n, NULL, d3, NULL, 0, cyc2, &err);
			T_CHECKF(!memcmp(d, d3, k * ST_TYPE_SIZE(type)),
			         "fw_batch %s%s: without predecessors, the same distances", tname(type),
			         neg ? ", negative arcs" : "");
			free(d), free(d2), free(d3), free(p), free(p2);
		}
		free(w);
	}
}

/* A negative cycle in graphs 1 and 3 of 5: named there, the others answered. */
static void test_cycles(void)
{
	const int n = 4;
	double w[5 * 16];
	for (int g = 0; g < 5; g++)
		for (int e = 0; e < 16; e++)
			w[g * 16 + e] = e % 5 == 0 ? 0 : e % 3 == 1 ? 2 : INFINITY;
	w[1 * 16 + 0 * 4 + 1] = -3, w[1 * 16 + 1 * 4 + 0] = 1;  /* 0 <-> 1: -2 */
	w[3 * 16 + 2 * 4 + 2] = -1;                             /* a negative loop */
	for (uint32_t type = ST_INT32; type <= ST_FLOAT64; type++) {
		void *d = as_type(type, w, 80);
		int32_t p[80];
		int64_t cyc[5];
		st_error err;
		int64_t rc = fw_batch(FW_MINPLUS, type, 5, n, NULL, d, p, 0, cyc, &err);
		double ref[16];
		int32_t rp[16];
		memcpy(ref, w, sizeof ref);
		textbook(n, ref, rp);
		int others = 1;
		for (int g = 0; g < 5; g += 2)
			for (int e = 0; e < 16; e++)
				others &= at(type, d, g * 16 + e) == ref[e] && p[g * 16 + e] == rp[e];
		T_CHECKF(rc == 2 && cyc[0] == -1 && (cyc[1] == 0 || cyc[1] == 1) && cyc[2] == -1
		         && cyc[3] == 2 && cyc[4] == -1 && others,
		         "fw_batch %s: negative cycles in graphs 1 and 3 named (%lld: %lld %lld), the "
		         "others answered", tname(type), (long long)rc, (long long)cyc[1],
		         (long long)cyc[3]);
		free(d);
	}
}

/* Graphs that cannot be solved: refused, the first named, nothing changed. */
static void test_refused(void)
{
	double w[6 * 9];
	for (int e = 0; e < 54; e++)
		w[e] = e % 4 == 0 ? 0 : 3;
	double nan_w[54], keep[54];
	memcpy(nan_w, w, sizeof w);
	nan_w[4 * 9 + 5] = NAN;
	nan_w[5 * 9 + 1] = -INFINITY;
	memcpy(keep, nan_w, sizeof keep);
	int64_t cyc[6];
	st_error err;
	int64_t rc = fw_batch(FW_MINPLUS, ST_FLOAT64, 6, 3, NULL, nan_w, NULL, 0, cyc, &err);
	T_CHECKF(rc == -1 && strstr(err.msg, "graph 4: a weight is NaN")
	         && !memcmp(nan_w, keep, sizeof keep),
	         "fw_batch: a NaN in graph 4 (and -inf in 5) refused as graph 4's, nothing changed "
	         "(%s)", rc < 0 ? err.msg : "accepted");
	int32_t big[2 * 9];
	for (int e = 0; e < 18; e++)
		big[e] = e % 4 == 0 ? 0 : 5;
	big[9 + 1] = big[9 + 5] = big[9 + 6] = 0x20000000;
	int32_t keepi[18];
	memcpy(keepi, big, sizeof big);
	rc = fw_batch(FW_MINPLUS, ST_INT32, 2, 3, NULL, big, NULL, 0, cyc, &err);
	T_CHECKF(rc == -1 && strstr(err.msg, "graph 1: int32 path lengths could reach")
	         && !memcmp(big, keepi, sizeof big),
	         "fw_batch: int32 lengths that could reach INF refused, nothing changed (%s)",
	         rc < 0 ? err.msg : "accepted");
	rc = fw_batch(FW_MINPLUS, 7, 1, 3, NULL, w, NULL, 0, cyc, &err);
	T_CHECKF(rc == -1 && strstr(err.msg, "element type"), "fw_batch: element type 7 refused");
	rc = fw_batch(FW_MINPLUS, ST_FLOAT64, 0, 3, NULL, w, NULL, 0, cyc, &err);
	T_CHECKF(rc == 0, "fw_batch: no graphs, nothing to do");
}

/* Widest paths of one graph from source s by the widest-first search (a
 * Dijkstra of max and min), the oracle: width[t] of every vertex. */
static void widest_from(int n, const double *w, int s, double *width)
{
	char done[64] = {0};
	for (int v = 0; v < n; v++)
		width[v] = -INFINITY;
	width[s] = INFINITY;
	for (int round = 0; round < n; round++) {
		int u = -1;
		for (int v = 0; v < n; v++)
			if (!done[v] && width[v] > -INFINITY && (u < 0 || width[v] > width[u]))
				u = v;
		if (u < 0)
			break;
		done[u] = 1;
		for (int v = 0; v < n; v++) {
			double x = w[u * n + v] < width[u] ? w[u * n + v] : width[u];
			if (u != v && !done[v] && x > width[v])
				width[v] = x;
		}
	}
}

/* Widest paths of graphs with many ties (weights 1..4, no arc -inf): the
 * widths the oracle's, and every predecessor chain a path back to its
 * source whose narrowest arc is the width. */
static void test_widest(void)
{
	const int count = 150, n = 19;
	const size_t k = (size_t)count * n * n;
	double *w = malloc(k * sizeof *w), *d = malloc(k * sizeof *d);
	int32_t *p = malloc(k * 4);
	int64_t cyc[150];
	for (size_t e = 0; e < k; e++)
		w[e] = t_rnd() % 10 < 2 ? 1 + t_rnd() % 4 : -INFINITY;
	memcpy(d, w, k * sizeof *d);
	st_error err;
	int64_t rc = fw_batch(FW_WIDEST, ST_FLOAT64, count, n, NULL, d, p, 0, cyc, &err);
	int widths = rc == 0, chains = rc == 0;
	for (int g = 0; g < count && widths && chains; g++) {
		const double *wg = w + (size_t)g * n * n, *dg = d + (size_t)g * n * n;
		const int32_t *pg = p + (size_t)g * n * n;
		for (int s = 0; s < n; s++) {
			double want[64];
			widest_from(n, wg, s, want);
			for (int t = 0; t < n; t++) {
				widths &= dg[s * n + t] == want[t] && cyc[g] == -1;
				if (t == s || want[t] == -INFINITY) {
					chains &= pg[s * n + t] == -1;
					continue;
				}
				double narrowest = INFINITY;
				int v = t, steps = 0;
				while (v != s && steps++ <= n) {
					int u = pg[s * n + v];
					if (u < 0 || u == v || wg[u * n + v] == -INFINITY)
						break;
					narrowest = wg[u * n + v] < narrowest ? wg[u * n + v] : narrowest;
					v = u;
				}
				chains &= v == s && narrowest == want[t];
			}
		}
	}
	T_CHECKF(widths, "fw_batch FW_WIDEST: 150 graphs of 19 vertices, weights 1..4: the widths of "
	         "a widest-first search from every vertex");
	T_CHECKF(chains, "fw_batch FW_WIDEST: every predecessor chain a path to its source as wide "
	         "as the width");
	float wf[9] = {0, 2, -INFINITY, -INFINITY, 0, 5, -INFINITY, -INFINITY, 0};
	rc = fw_batch(FW_WIDEST, ST_FLOAT32, 1, 3, NULL, wf, NULL, 0, cyc, &err);
	T_CHECKF(rc == 0 && wf[0 * 3 + 2] == 2 && wf[2 * 3 + 1] == -INFINITY
	         && wf[1 * 3 + 0] == -INFINITY && wf[4] == INFINITY, "fw_batch FW_WIDEST float32: 0 -> 1 -> 2 of width 2, the "
	         "diagonal +inf, no path -inf");
	int32_t wi[4] = {0, 1, 1, 0};
	rc = fw_batch(FW_WIDEST, ST_INT32, 1, 2, NULL, wi, NULL, 0, cyc, &err);
	T_CHECKF(rc == -1 && strstr(err.msg, "float32 or float64"),
	         "fw_batch FW_WIDEST int32: refused (%s)", rc < 0 ? err.msg : "accepted");
	free(w), free(d), free(p);
}

/* Reachability against a search from every vertex, on graphs of 1..130
 * vertices (rows of one to three words). */
static void test_reach(void)
{
	int ok = 1;
	for (int n = 1; n <= 1100 && ok; n += n < 130 ? 43 : 970) {
		const int count = n > 1024 ? 1 : 20; /* (one large graph: a team's rows) */
		uint8_t *m = malloc((size_t)count * n * n), *a = malloc((size_t)count * n * n);
		for (size_t e = 0; e < (size_t)count * n * n; e++)
			a[e] = m[e] = t_rnd() % (unsigned)(2 * n) == 0 ? (uint8_t)(1 + t_rnd() % 200) : 0;
		st_error err;
		ok &= fw_batch_reach(count, n, NULL, m, 0, &err) == 0;
		int *stack = malloc(sizeof *stack * n);
		char *seen = malloc(n);
		for (int g = 0; g < count && ok; g++)
			for (int s = 0; s < n; s += n > 1024 ? 37 : 1) { /* (30 of the large one's) */
				const uint8_t *ag = a + (size_t)g * n * n;
				memset(seen, 0, n);
				int top = 0;
				stack[top++] = s, seen[s] = 1;
				while (top) {
					int u = stack[--top];
					for (int v = 0; v < n; v++)
						if (ag[u * n + v] && !seen[v])
							seen[v] = 1, stack[top++] = v;
				}
				for (int t = 0; t < n; t++)
					ok &= m[(size_t)g * n * n + s * n + t] == seen[t];
			}
		free(m), free(a), free(stack), free(seen);
	}
	T_CHECKF(ok, "fw_batch_reach: 20 graphs each of 1, 44, 87 and 130 vertices, one of 1100: a "
	         "search's closure, 0 and 1");
}

/* One graph of 1030 vertices has each step's rows shared by the threads:
 * the same bytes as the same graph solved on one thread (in a batch of
 * two), shortest and widest paths. */
static void test_team(void)
{
	const int n = 1030;
	const size_t nn = (size_t)n * n;
	double *w = malloc(nn * sizeof *w), *one = malloc(nn * sizeof *one),
	       *two = malloc(2 * nn * sizeof *two);
	int32_t *p1 = malloc(nn * 4), *p2 = malloc(2 * nn * 4);
	for (uint32_t semiring = FW_MINPLUS; semiring <= FW_WIDEST; semiring++) {
		for (size_t e = 0; e < nn; e++)
			w[e] = t_rnd() % 1000 < 1 ? 1 + t_rnd() % 9 : semiring == FW_WIDEST ? -INFINITY
			                                                                 : INFINITY;
		memcpy(one, w, nn * sizeof *w);
		memcpy(two, w, nn * sizeof *w);
		memcpy(two + nn, w, nn * sizeof *w);
		int64_t c1[1], c2[2];
		st_error err;
		int64_t r1 = fw_batch(semiring, ST_FLOAT64, 1, n, NULL, one, p1, 2, c1, &err);
		int64_t r2 = fw_batch(semiring, ST_FLOAT64, 2, n, NULL, two, p2, 2, c2, &err);
		T_CHECKF(r1 == 0 && r2 == 0 && !memcmp(one, two, nn * sizeof *one)
		         && !memcmp(one, two + nn, nn * sizeof *one) && !memcmp(p1, p2, nn * 4)
		         && !memcmp(p1, p2 + nn, nn * 4),
		         "fw_batch %s: one graph of 1030 vertices on a team of threads, the bytes of "
		         "one thread's", semiring == FW_WIDEST ? "FW_WIDEST" : "FW_MINPLUS");
	}
	free(w), free(one), free(two), free(p1), free(p2);
}

/* Graphs of their own sizes in rooms of 21 x 21 whose rest holds NaN: each
 * answered as alone (its own n), the rest left as it was; a size above the
 * room refused. */
static void test_sizes(void)
{
	enum { R = 21, B = 40 };
	uint32_t sizes[B];
	double *w = malloc(sizeof *w * B * R * R), *d = malloc(sizeof *d * B * R * R);
	int32_t *p = malloc(4 * B * R * R);
	for (int g = 0; g < B; g++) {
		sizes[g] = g % 7 == 0 ? R : (uint32_t)(t_rnd() % R);
		for (int i = 0; i < R; i++)
			for (int j = 0; j < R; j++)
				w[(g * R + i) * R + j] = (uint32_t)i >= sizes[g] || (uint32_t)j >= sizes[g] ? NAN
				                         : i != j && t_rnd() % 4 == 0 ? 1 + t_rnd() % 9
				                                                      : INFINITY;
	}
	int ok = 1;
	for (uint32_t semiring = FW_MINPLUS; semiring <= FW_WIDEST; semiring++) {
		memcpy(d, w, sizeof *d * B * R * R);
		for (int e = 0; e < B * R * R; e++)
			if (semiring == FW_WIDEST && d[e] == INFINITY)
				d[e] = -INFINITY;
		int64_t cyc[B];
		st_error err;
		ok &= fw_batch(semiring, ST_FLOAT64, B, R, sizes, d, p, 0, cyc, &err) == 0;
		for (int g = 0; g < B && ok; g++) {
			const int k = (int)sizes[g];
			double alone[R * R];
			int32_t pa[R * R];
			for (int i = 0; i < k; i++)
				for (int j = 0; j < k; j++) {
					double x = w[(g * R + i) * R + j];
					alone[i * k + j] = semiring == FW_WIDEST && x == INFINITY ? -INFINITY : x;
				}
			int64_t c1;
			ok &= fw_batch(semiring, ST_FLOAT64, 1, k, NULL, alone, pa, 0, &c1, &err) == 0;
			for (int i = 0; i < R; i++)
				for (int j = 0; j < R; j++) {
					const size_t e = (size_t)(g * R + i) * R + j;
					if (i < k && j < k)
						ok &= d[e] == alone[i * k + j] && p[e] == pa[i * k + j];
					else
						ok &= isnan(d[e]);
				}
		}
	}
	T_CHECKF(ok, "fw_batch with sizes: 40 graphs of 0..21 vertices in rooms of 21 (NaN around "
	         "them): each as alone, the rest untouched, shortest and widest paths");
	uint32_t big[1] = {R + 1};
	int64_t c;
	st_error err;
	T_CHECKF(fw_batch(FW_MINPLUS, ST_FLOAT64, 1, R, big, d, NULL, 0, &c, &err) == -1
	         && strstr(err.msg, "graph 0: 22 vertices, more than its room's 21"),
	         "fw_batch: a size above the room refused (%s)", err.msg);
	free(w), free(d), free(p);
}

int main(void)
{
	test_sizes();
	test_team();
	test_widest();
	test_reach();
	test_types();
	test_cycles();
	test_refused();
	return T_DONE();
}
