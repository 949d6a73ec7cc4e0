/* order.c - nested-dissection orders through METIS.  See order.h. */
#include "order.h"

#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_METIS
#include <metis.h>
#endif

#define OMP_THREADS(t) num_threads((t) > 0 ? (t) : omp_get_max_threads())

static int fail(st_error *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int ord_available(void)
{
#ifdef HAVE_METIS
	return 1;
#else
	return 0;
#endif
}

static inline int finite_at(uint32_t type, const void *w, uint64_t e)
{
	return type == ST_INT32 ? ((const int32_t *)w)[e] < ST_INF_I32
	                        : ((const float *)w)[e] < INFINITY;
}

/* Finite off-diagonal entries of row i. */
static uint64_t row_edges(uint64_t n, uint32_t type, const void *w, uint64_t i)
{
	uint64_t c = 0;
	for (uint64_t j = 0; j < n; j++)
		c += j != i && finite_at(type, w, i * n + j);
	return c;
}

uint64_t ord_count_edges(uint64_t n, uint32_t type, const void *w, uint64_t limit, int threads)
{
	/* Rows in a spread order, so a dense graph is known for one after a few. */
	uint64_t edges = 0;
	#pragma omp parallel for schedule(static, 1) OMP_THREADS(threads)
	for (uint64_t i = 0; i < n; i++) {
		if (__atomic_load_n(&edges, __ATOMIC_RELAXED) > limit)
			continue;
		__atomic_add_fetch(&edges, row_edges(n, type, w, i), __ATOMIC_RELAXED);
	}
	return edges;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

int ord_nested_dissection(uint64_t n, uint32_t type, const void *w, int32_t *perm,
                          int threads, st_error *err)
{
#ifndef HAVE_METIS
	(void)n, (void)type, (void)w, (void)perm, (void)threads;
	return fail(err, "nested dissection needs METIS, which this build lacks");
#else
	if (n > INT32_MAX)
		return fail(err, "n = %llu is too large for METIS", (unsigned long long)n);
	/* Each edge i -> j once in row i, then both directions, then the
	 * duplicates (i -> j and j -> i both present) dropped. */
	uint64_t *deg = calloc(n + 1, sizeof *deg);
	if (!deg)
		return fail(err, "out of memory for the graph's adjacency");
	#pragma omp parallel for schedule(static) OMP_THREADS(threads)
	for (uint64_t i = 0; i < n; i++)
		deg[i + 1] = row_edges(n, type, w, i);
	for (uint64_t i = 0; i < n; i++)
		deg[i + 1] += deg[i];
	uint64_t m = deg[n];
	if (2 * m > INT32_MAX) {
		free(deg);
		return fail(err, "%llu edges are too many for METIS's 32-bit indices",
		            (unsigned long long)m);
	}
	int32_t *out = malloc((m ? m : 1) * sizeof *out);
	idx_t *xadj = calloc(n + 1, sizeof *xadj), *adj = malloc((2 * m + 1) * sizeof *adj);
	idx_t *iperm = malloc(n * sizeof *iperm), *p = malloc(n * sizeof *p);
	if (!out || !xadj || !adj || !iperm || !p) {
		free(deg), free(out), free(xadj), free(adj), free(iperm), free(p);
		return fail(err, "out of memory for the graph's adjacency");
	}
	#pragma omp parallel for schedule(static) OMP_THREADS(threads)
	for (uint64_t i = 0; i < n; i++) {
		uint64_t c = deg[i];
		for (uint64_t j = 0; j < n; j++)
			if (j != i && finite_at(type, w, i * n + j))
				out[c++] = (int32_t)j;
	}
	/* undirected degrees (with duplicates), then both directions */
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t e = deg[i]; e < deg[i + 1]; e++) {
			xadj[i + 1]++;
			xadj[out[e] + 1]++;
		}
	for (uint64_t i = 0; i < n; i++)
		xadj[i + 1] += xadj[i];
	idx_t *fillp = malloc((n ? n : 1) * sizeof *fillp);
	if (!fillp) {
		free(deg), free(out), free(xadj), free(adj), free(iperm), free(p);
		return fail(err, "out of memory for the graph's adjacency");
	}
	memcpy(fillp, xadj, n * sizeof *fillp);
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t e = deg[i]; e < deg[i + 1]; e++) {
			adj[fillp[i]++] = out[e];
			adj[fillp[out[e]]++] = (idx_t)i;
		}
	/* sort each list and drop repeats, compacting in place */
	idx_t k = 0;
	for (uint64_t i = 0; i < n; i++) {
		idx_t b = xadj[i], e = xadj[i + 1];
		qsort(adj + b, (size_t)(e - b), sizeof *adj, cmp_i32);
		xadj[i] = k;
		for (idx_t q = b; q < e; q++)
			if (q == b || adj[q] != adj[q - 1])
				adj[k++] = adj[q];
	}
	xadj[n] = k;
	free(fillp);
	free(out);
	free(deg);

	idx_t nv = (idx_t)n, opts[METIS_NOPTIONS];
	METIS_SetDefaultOptions(opts);
	opts[METIS_OPTION_SEED] = 1; /* the same graph, the same order */
	opts[METIS_OPTION_NUMBERING] = 0;
	int rc = k == 0 ? METIS_OK : METIS_NodeND(&nv, xadj, adj, NULL, opts, p, iperm);
	if (k == 0) /* no edges: any order will do */
		for (uint64_t i = 0; i < n; i++)
			p[i] = (idx_t)i;
	free(xadj), free(adj), free(iperm);
	if (rc != METIS_OK) {
		free(p);
		return fail(err, "METIS_NodeND failed (%s)",
		            rc == METIS_ERROR_MEMORY ? "out of memory" : "error");
	}
	for (uint64_t i = 0; i < n; i++)
		perm[i] = (int32_t)p[i];
	free(p);
	return 0;
#endif
}
