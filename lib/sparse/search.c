/* search.c - a few sources' rows by Dijkstra's algorithm (el_search_rows,
 * elim.h): where few rows are asked of a graph without negative arcs, a
 * search a source costs O(m log m) and no order or factor is made. */
#include "common.h"
#include "elim.h"
#include "heap.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* The arcs out of each vertex, loops left out (repeats kept: the search
 * takes the least). */
struct lists {
	uint64_t *first; /* n + 1 */
	uint32_t *head;
	double *w;
};

static void lists_free(struct lists *l)
{
	free(l->first), free(l->head), free(l->w);
}

static int lists_make(struct lists *l, uint64_t n, uint32_t type, uint64_t count,
                      const uint32_t *from, const uint32_t *to, const void *w)
{
	l->first = calloc(n + 1, sizeof *l->first);
	l->head = malloc((count ? count : 1) * sizeof *l->head);
	l->w = malloc((count ? count : 1) * sizeof *l->w);
	uint64_t *at = malloc((n ? n : 1) * sizeof *at);
	if (!l->first || !l->head || !l->w || !at) {
		free(at);
		return -1;
	}
	for (uint64_t k = 0; k < count; k++)
		l->first[from[k] + 1] += from[k] != to[k];
	for (uint64_t u = 0; u < n; u++)
		l->first[u + 1] += l->first[u];
	memcpy(at, l->first, n * sizeof *at);
	for (uint64_t k = 0; k < count; k++)
		if (from[k] != to[k]) {
			const uint64_t e = at[from[k]]++;
			l->head[e] = to[k], l->w[e] = lib_element(type, w, k);
		}
	free(at);
	return 0;
}

int el_no_negative_arc(uint32_t type, uint64_t count, const void *w)
{
	for (uint64_t k = 0; k < count; k++)
		if (lib_element(type, w, k) < 0)
			return 0;
	return 1;
}

/* d + w as the type adds, and stored; 0, or -1 where an int32 sum would
 * reach ST_INF_I32. */
static int store(uint32_t type, void *row, uint64_t v, double d, double w, double *out)
{
	if (type == ST_INT32) {
		const double x = d + w;
		if (x >= ST_INF_I32)
			return -1;
		((int32_t *)row)[v] = (int32_t)x, *out = x;
	} else if (type == ST_FLOAT32) {
		const float x = (float)d + (float)w;
		((float *)row)[v] = x, *out = x;
	} else {
		((double *)row)[v] = d + w, *out = d + w;
	}
	return 0;
}

/* One source's row. 0; -1 out of memory; -2 int32 overflow. */
static int search(const struct lists *l, uint64_t n, uint32_t type, uint32_t s, void *row,
                  el_heap *h, uint64_t *relax)
{
	const size_t es = ST_TYPE_SIZE(type);
	if (type == ST_INT32)
		for (uint64_t v = 0; v < n; v++)
			((int32_t *)row)[v] = ST_INF_I32;
	else
		for (uint64_t v = 0; v < n; v++)
			type == ST_FLOAT32 ? (((float *)row)[v] = INFINITY) : (((double *)row)[v] = INFINITY);
	memset((char *)row + (uint64_t)s * es, 0, es);
	h->size = 0;
	if (el_heap_push(h, (el_heap_entry){0, s, 0}) < 0)
		return -1;
	while (h->size) {
		const el_heap_entry e = el_heap_pop(h);
		if (e.key > lib_element(type, row, e.v)) /* (a stale entry) */
			continue;
		for (uint64_t k = l->first[e.v]; k < l->first[e.v + 1]; k++) {
			const uint32_t v = l->head[k];
			double x;
			(*relax)++;
			if (!(e.key + l->w[k] < lib_element(type, row, v)))
				continue;
			const double before = lib_element(type, row, v);
			if (store(type, row, v, e.key, l->w[k], &x) < 0)
				return -2;
			if (!(x < before)) /* (rounded up to where it was) */
				continue;
			if (el_heap_push(h, (el_heap_entry){x, v, 0}) < 0)
				return -1;
		}
	}
	return 0;
}

int el_search_rows(uint64_t n, uint32_t type, uint64_t count, const uint32_t *from,
                   const uint32_t *to, const void *w, const uint32_t *src, uint64_t sources,
                   void *rows, int threads, uint64_t *relaxations, st_error *err)
{
	struct lists l = {0};
	if (lists_make(&l, n, type, count, from, to, w) < 0) {
		lists_free(&l);
		return lib_fail(err, "search: out of memory for the lists of %llu arcs",
		                (unsigned long long)count);
	}
	const uint64_t row_bytes = n * ST_TYPE_SIZE(type);
	int rc = 0;
	uint64_t relax = 0;
	#pragma omp parallel num_threads(lib_threads(threads)) reduction(+ : relax) \
		reduction(min : rc)
	{
		el_heap h = {0};
		#pragma omp for schedule(dynamic, 1)
		for (uint64_t i = 0; i < sources; i++) {
			const int r = rc < 0 ? 0 : search(&l, n, type, src[i], (char *)rows + i * row_bytes,
			                                  &h, &relax);
			if (r < rc)
				rc = r;
		}
		free(h.at);
	}
	lists_free(&l);
	if (relaxations)
		*relaxations += relax;
	if (rc == -2)
		return lib_fail(err, "int32 distances would reach %d (the unreachable mark): use "
		                "float64 (mtx2bin -t float64)", ST_INF_I32);
	if (rc < 0)
		return lib_fail(err, "search: out of memory for a heap");
	return 0;
}
