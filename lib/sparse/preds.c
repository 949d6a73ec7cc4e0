/* preds.c - the sparse engine's predecessors (see elim.h): each row's
 * shortest-path tree among the graph's tight arcs, from its distances. */
#include "common.h"
#include "elim.h"
#include "heap.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* The graph's arcs both ways as lists: out of each vertex (the trees grow
 * along them) and into it (a vertex that rounding left with no exact arc
 * takes its closest), repeats kept (the closest of them wins), loops
 * left out. */
struct el_arcs {
	uint64_t n;
	uint32_t type;
	uint64_t *out_first, *in_first; /* n + 1 each */
	uint32_t *out_to, *in_from;
	double *out_w, *in_w;
};

/* Lists by one end (key: from or to), the other end and weight beside. */
static int lists(uint64_t n, uint64_t count, const uint32_t *key, const uint32_t *other,
                 const uint32_t *from, const uint32_t *to, uint32_t type, const void *w,
                 uint64_t **first, uint32_t **end, double **weight)
{
	*first = calloc(n + 1, sizeof **first);
	uint64_t m = 0;
	for (uint64_t k = 0; k < count; k++)
		m += from[k] != to[k];
	*end = malloc((m ? m : 1) * sizeof **end);
	*weight = malloc((m ? m : 1) * sizeof **weight);
	uint64_t *at = malloc((n ? n : 1) * sizeof *at);
	if (!*first || !*end || !*weight || !at) {
		free(at);
		return -1;
	}
	for (uint64_t k = 0; k < count; k++)
		if (from[k] != to[k])
			(*first)[key[k] + 1]++;
	for (uint64_t v = 0; v < n; v++)
		(*first)[v + 1] += (*first)[v];
	memcpy(at, *first, n * sizeof *at);
	for (uint64_t k = 0; k < count; k++)
		if (from[k] != to[k]) {
			const uint64_t e = at[key[k]]++;
			(*end)[e] = other[k], (*weight)[e] = lib_element(type, w, k);
		}
	free(at);
	return 0;
}

el_arcs *el_arcs_new(uint64_t n, uint32_t type, uint64_t count, const uint32_t *from,
                     const uint32_t *to, const void *w)
{
	el_arcs *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->n = n, a->type = type;
	if (lists(n, count, from, to, from, to, type, w, &a->out_first, &a->out_to, &a->out_w) < 0
	    || lists(n, count, to, from, from, to, type, w, &a->in_first, &a->in_from, &a->in_w)
	               < 0) {
		el_arcs_free(a);
		return NULL;
	}
	return a;
}

void el_arcs_free(el_arcs *a)
{
	if (!a)
		return;
	free(a->out_first), free(a->in_first), free(a->out_to), free(a->in_from);
	free(a->out_w), free(a->in_w);
	free(a);
}

/* The tail of v's in-arc whose d(u) + w(u, v) comes closest to d(v), the
 * first of the closest; with tree set, among tails already in the tree
 * (pred set) alone.  -1: none. */
static int32_t closest_in(const el_arcs *a, const void *row, uint64_t v, const int32_t *tree)
{
	const double dv = lib_element(a->type, row, v);
	double best = INFINITY;
	int32_t at = -1;
	for (uint64_t e = a->in_first[v]; e < a->in_first[v + 1]; e++) {
		const uint32_t u = a->in_from[e];
		const double off = fabs(lib_element(a->type, row, u) + a->in_w[e] - dv);
		if ((!tree || tree[u] >= 0) && off < best)
			best = off, at = (int32_t)u;
	}
	return at;
}

/* Whether v's chain of pred reaches s (mark: 1 yes, 2 no, 3 on the way;
 * 0 not yet known), every vertex on it marked the same. */
static uint8_t chain_ends(const int32_t *pred, uint64_t s, uint64_t v, uint8_t *mark,
                          uint32_t *stack)
{
	uint64_t depth = 0;
	uint8_t end;
	for (;;) {
		if (v == s || mark[v] == 1) {
			end = 1;
			break;
		}
		if (mark[v] == 2 || mark[v] == 3 || pred[v] < 0) {
			end = 2;
			break;
		}
		mark[v] = 3, stack[depth++] = (uint32_t)v;
		v = (uint64_t)pred[v];
	}
	while (depth > 0)
		mark[stack[--depth]] = end;
	return end;
}

/* u's arcs into the vertices left out (mark 2, no pred yet) as candidates. */
static int offer_arcs(const el_arcs *a, const void *row, uint64_t u, const int32_t *pred,
                      const uint8_t *mark, el_heap *h)
{
	const double du = lib_element(a->type, row, u);
	for (uint64_t e = a->out_first[u]; e < a->out_first[u + 1]; e++) {
		const uint32_t v = a->out_to[e];
		if (mark[v] == 2 && pred[v] < 0
		    && el_heap_push(h, (el_heap_entry){fabs(du + a->out_w[e] - lib_element(a->type, row, v)),
		                                       v, (uint32_t)u}) < 0)
			return -1;
	}
	return 0;
}

/* Row s's tree.  Each reachable v takes the in-arc (u, v) whose
 * d(u) + w(u, v) comes closest to d(v) (exactly, where no rounding
 * intervenes), the first of the closest; where those choices close a loop
 * (zero or negative arcs tied), the vertices whose chains do not reach s
 * join the tree afresh, one at a time, each by the arc from the tree that
 * comes closest to its distance of all such arcs (exactly tight ones
 * first), as Prim's algorithm grows a tree: so a vertex whose best arc
 * comes from another left out waits for that one, and no chain takes an
 * arc far from tight while a tight path exists. */
static int row_tree(const el_arcs *a, uint64_t s, const void *row, int32_t *pred,
                    uint32_t *stack, uint8_t *mark, el_heap *h)
{
	const uint64_t n = a->n;
	for (uint64_t v = 0; v < n; v++) {
		mark[v] = 0;
		pred[v] = v != s && lib_element(a->type, row, v) < INFINITY ? closest_in(a, row, v, NULL) : -1;
	}
	uint64_t left = 0;
	for (uint64_t v = 0; v < n; v++)
		if (v != s && pred[v] >= 0)
			chain_ends(pred, s, v, mark, stack);
	for (uint64_t v = 0; v < n; v++)
		if (mark[v] == 2)
			pred[v] = -1, left++;
	if (left == 0)
		return 0;
	h->size = 0;
	for (uint64_t u = 0; u < n; u++)
		if ((u == s || mark[u] == 1) && offer_arcs(a, row, u, pred, mark, h) < 0)
			return -1;
	while (left > 0 && h->size > 0) {
		const el_heap_entry c = el_heap_pop(h);
		if (pred[c.v] >= 0)
			continue;
		pred[c.v] = (int32_t)c.u, left--;
		if (offer_arcs(a, row, c.v, pred, mark, h) < 0)
			return -1;
	}
	return 0;
}

int el_derive_preds(const el_arcs *a, const uint32_t *src, uint64_t first, uint64_t count,
                    const void *rows, int32_t *pred, int threads, st_error *err)
{
	threads = lib_threads(threads);
	if ((uint64_t)threads > count) /* (each thread's room is O(n + m)) */
		threads = count ? (int)count : 1;
	const uint64_t n = a->n, row_bytes = n * ST_TYPE_SIZE(a->type);
	int failed = 0;
	#pragma omp parallel num_threads(threads)
	{
		el_heap h = {0};
		uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
		uint8_t *mark = malloc(n ? n : 1);
		if (!stack || !mark) {
			#pragma omp atomic write
			failed = 1;
		}
		#pragma omp for schedule(dynamic, 4)
		for (uint64_t i = 0; i < count; i++)
			if (stack && mark
			    && row_tree(a, src ? src[first + i] : first + i,
			                (const char *)rows + i * row_bytes, pred + i * n, stack, mark,
			                &h) < 0) {
				#pragma omp atomic write
				failed = 1;
			}
		free(h.at), free(stack), free(mark);
	}
	return failed ? lib_fail(err, "sparse engine: out of memory for the predecessors") : 0;
}
