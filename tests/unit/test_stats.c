/* test_stats - the graph statistics' folds (lib/stats.h) against a plain
 * loop over the matrix: whole, in windows of rows, and in pieces run in
 * another order; int32 (one pass for rows and columns) and float32. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stream.h"
#include "t.h"

/* d(u,v): INF for about one pair in five, vertex 3 reaching nothing. */
static void *make_dist(uint64_t n, uint32_t type)
{
	void *d = malloc(n * n * 4);
	for (uint64_t u = 0; u < n; u++)
		for (uint64_t v = 0; v < n; v++) {
			const uint32_t x = t_rnd();
			const int inf = (u != v && x % 5 == 0) || (u == 3 && v != 3);
			const uint32_t w = u == v ? 0 : 1 + (x >> 8) % 1000;
			if (type == ST_INT32)
				((int32_t *)d)[u * n + v] = inf ? ST_INF_I32 : (int32_t)w;
			else
				((float *)d)[u * n + v] = inf ? INFINITY : (float)w * 0.37f;
		}
	return d;
}

/* The figures by the definitions, one vertex at a time. */
static int plain_equal(const gs_stats *s, const void *d, uint64_t n, uint32_t type)
{
	for (uint64_t u = 0; u < n; u++) {
		for (int dir = 0; dir < 2; dir++) {
			uint64_t reach = 0;
			double sum = 0, ecc = 0;
			for (uint64_t v = 0; v < n; v++) {
				const uint64_t at = dir == GS_OUT ? u * n + v : v * n + u;
				const double x = type == ST_INT32 ? (double)((const int32_t *)d)[at]
				                                  : (double)((const float *)d)[at];
				const int fin = type == ST_INT32 ? x < ST_INF_I32 : x < INFINITY;
				if (v == u || !fin)
					continue;
				reach++, sum += x;
				ecc = x > ecc ? x : ecc;
			}
			if (s->reach[dir][u] != reach || gs_ecc(s, dir, u) != ecc
			    || fabs(gs_sum(s, dir, u) - sum) > 1e-9 * sum)
				return 0;
		}
		double h = 0;
		for (uint64_t v = 0; v < n; v++) {
			const double x = type == ST_INT32 ? (double)((const int32_t *)d)[v * n + u]
			                                  : (double)((const float *)d)[v * n + u];
			if (v != u && (type == ST_INT32 ? x < ST_INF_I32 : x < INFINITY))
				h += 1 / x;
		}
		if (fabs(s->harmonic[u] - h) > 1e-12 * h)
			return 0;
	}
	return 1;
}

static int same_stats(const gs_stats *a, const gs_stats *b)
{
	const size_t n = a->n, e = ST_TYPE_SIZE(a->type);
	int same = !memcmp(a->harmonic, b->harmonic, n * 8);
	for (int dir = 0; dir < 2; dir++)
		same &= !memcmp(a->reach[dir], b->reach[dir], n * 8)
		        && !memcmp(a->sum[dir], b->sum[dir], n * 8)
		        && !memcmp(a->ecc[dir], b->ecc[dir], n * e);
	return same;
}

static void test_folds(uint64_t n, uint32_t type)
{
	const char *tn = type == ST_INT32 ? "int32" : "float32";
	void *d = make_dist(n, type);
	gs_stats whole, win, pieces;
	st_error err;
	gs_init(&whole, n, type, &err);
	gs_init(&win, n, type, &err);
	gs_init(&pieces, n, type, &err);
	gs_add_rows(&whole, 0, n, d, n, 2);
	T_CHECKF(plain_equal(&whole, d, n, type), "%s n = %llu: the figures by their definitions", tn,
	         (unsigned long long)n);
	for (uint64_t r0 = 0; r0 < n; r0 += 5) /* windows of 5 rows, 1 thread */
		gs_add_rows(&win, r0, r0 + 5 < n ? 5 : n - r0, (const char *)d + r0 * n * 4, n, 1);
	T_CHECKF(same_stats(&whole, &win), "%s n = %llu: windows of 5 rows, the same bits", tn,
	         (unsigned long long)n);
	for (uint64_t r0 = 0; r0 < n; r0 += 9) { /* pieces in reverse order */
		gs_batch b;
		const uint64_t k = gs_batch_begin(&b, &pieces, r0, r0 + 9 < n ? 9 : n - r0,
		                                  (const char *)d + r0 * n * 4, n);
		for (uint64_t i = k; i-- > 0;)
			gs_batch_piece(&b, i);
		gs_batch_end(&b);
	}
	T_CHECKF(same_stats(&whole, &pieces), "%s n = %llu: pieces in reverse order, the same bits",
	         tn, (unsigned long long)n);
	gs_free(&whole);
	gs_free(&win);
	gs_free(&pieces);
	free(d);
}

int main(void)
{
	test_folds(1, ST_INT32);
	test_folds(37, ST_INT32);
	test_folds(700, ST_INT32); /* two strips of columns */
	test_folds(37, ST_FLOAT32);
	test_folds(700, ST_FLOAT32);
	return T_DONE();
}
