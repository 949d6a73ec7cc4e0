/* betweenness_graph.c - the graph of betweenness.c's searches (see
 * betweenness_graph.h). */
#include "betweenness_graph.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void btw_graph_free(btw_graph *g)
{
	free(g->first), free(g->to), free(g->from), free(g->w), free(g->rank), free(g->pos);
	free(g->packed), free(g->in), free(g->out), free(g->in_more), free(g->out_more);
	free(g->out_arc);
	memset(g, 0, sizeof *g);
}

/* Weight k of type as the lengths' type (int64_t or double) at dst[j]. */
static void put_length(void *dst, uint64_t j, uint32_t type, const void *w, uint64_t k)
{
	if (type == ST_INT32)
		((int64_t *)dst)[j] = ((const int32_t *)w)[k];
	else if (type == ST_FLOAT32)
		((double *)dst)[j] = ((const float *)w)[k];
	else
		((double *)dst)[j] = ((const double *)w)[k];
}

static double length_at(const btw_graph *g, uint64_t a)
{
	return g->exact ? (double)((const int64_t *)g->w)[a] : ((const double *)g->w)[a];
}

/* Room for m arcs of n vertices. */
static int graph_alloc(btw_graph *g, uint64_t n, uint64_t m, st_error *err)
{
	g->n = n, g->m = m;
	g->first = calloc(n + 1, sizeof *g->first);
	g->to = malloc(m * sizeof *g->to + 1);
	g->from = malloc(m * sizeof *g->from + 1);
	g->w = malloc(m * 8 + 1);
	g->rank = malloc(n * sizeof *g->rank + 1);
	g->pos = malloc(m * sizeof *g->pos + 1);
	if (!g->first || !g->to || !g->from || !g->w || !g->rank || !g->pos) {
		btw_graph_free(g);
		return lib_fail(err, "betweenness: out of memory for a graph of %llu arcs",
		                (unsigned long long)m);
	}
	return 0;
}

static int by_head(const void *a, const void *b, void *ctx)
{
	const uint64_t *x = a, *y = b;
	const uint32_t *to = ctx;
	return to[*x] < to[*y] ? -1 : to[*x] > to[*y] ? 1 : *x < *y ? -1 : *x > *y;
}

/* g from count arcs: each tail's arcs by head, repeats keeping the least. */
int btw_graph_of_arcs(btw_graph *g, uint64_t n, uint32_t type, uint64_t count,
                      const uint32_t *from, const uint32_t *to, const void *w, st_error *err)
{
	uint64_t *start = calloc(n + 1, sizeof *start), *idx = malloc(count * sizeof *idx + 1);
	if (!start || !idx) {
		free(start), free(idx);
		return lib_fail(err, "betweenness: out of memory for %llu arcs",
		                (unsigned long long)count);
	}
	for (uint64_t k = 0; k < count; k++)
		start[from[k] + 1]++;
	for (uint64_t v = 0; v < n; v++)
		start[v + 1] += start[v];
	for (uint64_t k = 0; k < count; k++)
		idx[start[from[k]]++] = k;
	for (uint64_t v = n; v > 0; v--)
		start[v] = start[v - 1];
	start[0] = 0;
	if (graph_alloc(g, n, count, err) < 0) {
		free(start), free(idx);
		return -1;
	}
	g->exact = type == ST_INT32;
	uint64_t m = 0;
	for (uint64_t v = 0; v < n; v++) {
		qsort_r(idx + start[v], start[v + 1] - start[v], sizeof *idx, by_head, (void *)to);
		for (uint64_t i = start[v]; i < start[v + 1]; i++) {
			const uint64_t k = idx[i];
			if (to[k] == v)
				continue;
			if (m > g->first[v] && g->to[m - 1] == to[k]) { /* a repeat: the least */
				void *prev = (char *)g->w + (m - 1) * 8;
				if (g->exact && ((const int32_t *)w)[k] < *(int64_t *)prev)
					put_length(g->w, m - 1, type, w, k);
				else if (!g->exact && (type == ST_FLOAT32 ? ((const float *)w)[k]
				                                          : ((const double *)w)[k])
				                          < *(double *)prev)
					put_length(g->w, m - 1, type, w, k);
				continue;
			}
			g->to[m] = to[k], g->from[m] = (uint32_t)v;
			put_length(g->w, m, type, w, k);
			m++;
		}
		g->first[v + 1] = m;
	}
	g->m = m;
	free(start), free(idx);
	return 0;
}

/* Whether entry j of row is a weight (not INF, not +inf). */
static int finite_at(uint32_t type, const void *row, uint64_t j)
{
	return type == ST_INT32   ? ((const int32_t *)row)[j] < ST_INF_I32
	     : type == ST_FLOAT32 ? isfinite(((const float *)row)[j])
	                          : isfinite(((const double *)row)[j]);
}

/* g from an n x n matrix of weights (row stride stride; unreachable: INF or
 * +inf), its finite entries off the diagonal. */
int btw_graph_of_matrix(btw_graph *g, uint64_t n, uint32_t type, const void *wm,
                        uint64_t stride, int threads, st_error *err)
{
	const size_t es = ST_TYPE_SIZE(type);
	uint64_t *count = calloc(n + 1, sizeof *count);
	if (!count)
		return lib_fail(err, "betweenness: out of memory");
	threads = lib_threads(threads);
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
	for (uint64_t i = 0; i < n; i++) {
		const char *row = (const char *)wm + i * stride * es;
		uint64_t c = 0;
		for (uint64_t j = 0; j < n; j++)
			c += j != i && finite_at(type, row, j);
		count[i + 1] = c;
	}
	for (uint64_t i = 0; i < n; i++)
		count[i + 1] += count[i];
	if (graph_alloc(g, n, count[n], err) < 0) {
		free(count);
		return -1;
	}
	memcpy(g->first, count, (n + 1) * sizeof *count);
	free(count);
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
	for (uint64_t i = 0; i < n; i++) {
		const char *row = (const char *)wm + i * stride * es;
		uint64_t m = g->first[i];
		for (uint64_t j = 0; j < n; j++)
			if (j != i && finite_at(type, row, j)) {
				g->to[m] = (uint32_t)j, g->from[m] = (uint32_t)i;
				put_length(g->w, m, type, row, j);
				m++;
			}
	}
	g->exact = type == ST_INT32;
	return 0;
}

/* The ranks: a topological order of the zero arcs.  0; 1 with a negative
 * arc in bad; 2 with an arc of a zero cycle in bad; -1 out of memory. */
int btw_graph_rank(btw_graph *g, uint32_t bad[2], st_error *err)
{
	const uint64_t n = g->n;
	uint64_t zeros = 0;
	for (uint64_t a = 0; a < g->m; a++) {
		const double x = length_at(g, a);
		if (x < 0 || isnan(x)) {
			bad[0] = g->from[a], bad[1] = g->to[a];
			return 1;
		}
		zeros += x == 0;
	}
	for (uint64_t v = 0; v < n; v++)
		g->rank[v] = (uint32_t)v;
	g->zeros = zeros > 0;
	if (!zeros)
		return 0;
	/* Kahn's order over the zero arcs; those left lie on or after a cycle. */
	uint32_t *indeg = calloc(n + 1, sizeof *indeg), *queue = malloc(n * sizeof *queue + 1);
	if (!indeg || !queue) {
		free(indeg), free(queue);
		return lib_fail(err, "betweenness: out of memory");
	}
	for (uint64_t a = 0; a < g->m; a++)
		if (length_at(g, a) == 0)
			indeg[g->to[a]]++;
	uint64_t head = 0, tail = 0;
	for (uint64_t v = 0; v < n; v++)
		if (!indeg[v])
			queue[tail++] = (uint32_t)v;
	while (head < tail) {
		const uint32_t v = queue[head];
		g->rank[v] = (uint32_t)head++;
		for (uint64_t a = g->first[v]; a < g->first[v + 1]; a++)
			if (length_at(g, a) == 0 && --indeg[g->to[a]] == 0)
				queue[tail++] = g->to[a];
	}
	int rc = 0;
	if (tail < n) { /* walk back along zero arcs among those left: a cycle */
		uint32_t v = 0;
		while (!indeg[v])
			v++;
		uint32_t *into = queue; /* (free now) a zero arc into each vertex left */
		for (uint64_t a = 0; a < g->m; a++)
			if (length_at(g, a) == 0 && indeg[g->from[a]] && indeg[g->to[a]])
				into[g->to[a]] = g->from[a];
		for (uint64_t i = 0; i < n; i++)
			v = into[v];
		bad[0] = into[v], bad[1] = v;
		rc = 2;
	}
	free(indeg), free(queue);
	return rc;
}

/* keys[0 .. len - 1] in increasing order (least significant byte first,
 * as many bytes as the largest key has), tmp as long. */
static void sort_keys(uint64_t *keys, uint64_t *tmp, uint64_t len)
{
	uint64_t most = 0;
	for (uint64_t i = 0; i < len; i++)
		most = keys[i] > most ? keys[i] : most;
	for (int shift = 0; shift < 64 && most >> shift; shift += 8) {
		uint64_t at[257] = {0};
		for (uint64_t i = 0; i < len; i++)
			at[(keys[i] >> shift & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			at[d + 1] += at[d];
		for (uint64_t i = 0; i < len; i++)
			tmp[at[keys[i] >> shift & 0xff]++] = keys[i];
		memcpy(keys, tmp, len * sizeof *keys);
	}
}

/* Each tail's arcs by length (then head), for the searches from rows to
 * stop at the row's farthest vertex; pos keeps their order by head.  (The
 * lengths are exact and not negative, below 2^31: a key is the length
 * above the arc's place among its tail's, which are by head.) */
int btw_graph_by_length(btw_graph *g, int threads, st_error *err)
{
	uint64_t widest = 0;
	for (uint64_t v = 0; v < g->n; v++)
		if (g->first[v + 1] - g->first[v] > widest)
			widest = g->first[v + 1] - g->first[v];
	int place = 0; /* the bits of a place */
	while (place < 63 && widest > (uint64_t)1 << place)
		place++;
	g->packed = malloc(g->m * sizeof *g->packed + 1);
	int bad = !g->packed;
#pragma omp parallel num_threads(lib_threads(threads)) reduction(|| : bad)
	{
		uint64_t *k = bad ? NULL : malloc(2 * widest * sizeof *k + 1);
		uint32_t *to = bad ? NULL : malloc(widest * sizeof *to + 1);
		bad = !k || !to;
#pragma omp for schedule(dynamic, 64)
		for (uint64_t v = 0; v < g->n; v++) {
			if (!k || !to)
				continue;
			const uint64_t a0 = g->first[v], len = g->first[v + 1] - a0;
			int64_t *wi = g->w;
			for (uint64_t i = 0; i < len; i++)
				k[i] = (uint64_t)wi[a0 + i] << place | i;
			memcpy(to, g->to + a0, len * sizeof *to);
			sort_keys(k, k + widest, len);
			for (uint64_t i = 0; i < len; i++) {
				const uint64_t was = k[i] & (((uint64_t)1 << place) - 1);
				const int64_t w = (int64_t)(k[i] >> place);
				g->to[a0 + i] = to[was], g->pos[a0 + i] = a0 + was;
				wi[a0 + i] = w;
				g->packed[a0 + i] = (struct btw_arc){to[was], (int32_t)w};
			}
		}
		free(k), free(to);
	}
	return bad ? lib_fail(err, "betweenness: out of memory") : 0;
}

static int by_length(const void *a, const void *b)
{
	const struct btw_arc *x = a, *y = b;
	return x->w < y->w ? -1 : x->w > y->w ? 1 : x->to < y->to ? -1 : x->to > y->to;
}

/* Where each vertex's groups past its first begin, for len(v) arcs each. */
static void more_starts(uint64_t *more, const uint64_t *len, uint64_t n)
{
	more[0] = n * BTW_GROUP;
	for (uint64_t v = 0; v < n; v++) {
		const uint64_t groups = (len[v] + BTW_GROUP - 1) / BTW_GROUP;
		more[v + 1] = more[v] + (groups > 1 ? groups - 1 : 0) * BTW_GROUP;
	}
}

/* The slot of v's arc i (groups from its first, then from more[v]). */
static uint64_t slot(const uint64_t *more, uint64_t v, uint64_t i)
{
	return i < BTW_GROUP ? v * BTW_GROUP + i : more[v] + i - BTW_GROUP;
}

/* v's slots from its arc i on filled out: its own, never tight. */
static void fill_out(struct btw_arc *x, uint64_t *arc, const uint64_t *more, uint64_t v,
                     uint64_t i)
{
	for (; i < BTW_GROUP || (i - BTW_GROUP) % BTW_GROUP; i++) {
		const uint64_t j = slot(more, v, i);
		x[j] = (struct btw_arc){(uint32_t)v, INT32_MAX};
		if (arc)
			arc[j] = UINT64_MAX;
	}
}

int btw_graph_groups(btw_graph *g, st_error *err)
{
	const uint64_t n = g->n;
	uint64_t *len = calloc(n + 1, sizeof *len), *at = calloc(n + 1, sizeof *at);
	struct btw_arc *tmp = malloc(g->m * sizeof *tmp + 1);
	g->in_more = malloc((n + 1) * sizeof *g->in_more);
	g->out_more = malloc((n + 1) * sizeof *g->out_more);
	if (!len || !at || !tmp || !g->in_more || !g->out_more)
		goto fail;
	for (uint64_t v = 0; v < n; v++)
		len[v] = g->first[v + 1] - g->first[v];
	more_starts(g->out_more, len, n);
	memset(len, 0, n * sizeof *len);
	for (uint64_t a = 0; a < g->m; a++)
		len[g->packed[a].to]++;
	more_starts(g->in_more, len, n);
	g->in = malloc(g->in_more[n] * sizeof *g->in + 1);
	g->out = malloc(g->out_more[n] * sizeof *g->out + 1);
	g->out_arc = malloc(g->out_more[n] * sizeof *g->out_arc + 1);
	if (!g->in || !g->out || !g->out_arc)
		goto fail;
	for (uint64_t v = 0; v < n; v++) {
		uint64_t i = 0;
		for (uint64_t a = g->first[v]; a < g->first[v + 1]; a++, i++) {
			const uint64_t j = slot(g->out_more, v, i);
			g->out[j] = g->packed[a], g->out_arc[j] = a;
		}
		fill_out(g->out, g->out_arc, g->out_more, v, i);
	}
	/* the in-arcs by head (tmp, from at[v]), each head's by length */
	for (uint64_t v = 0; v < n; v++)
		at[v + 1] = at[v] + len[v];
	for (uint64_t v = 0; v < n; v++)
		for (uint64_t a = g->first[v]; a < g->first[v + 1]; a++)
			tmp[at[g->packed[a].to]++] = (struct btw_arc){(uint32_t)v, g->packed[a].w};
	for (uint64_t v = 0, a0 = 0; v < n; a0 = at[v++]) {
		qsort(tmp + a0, at[v] - a0, sizeof *tmp, by_length);
		for (uint64_t i = 0; i < at[v] - a0; i++)
			g->in[slot(g->in_more, v, i)] = tmp[a0 + i];
		fill_out(g->in, NULL, g->in_more, v, at[v] - a0);
	}
	free(len), free(at), free(tmp);
	return 0;
fail:
	free(len), free(at), free(tmp);
	free(g->in), free(g->out), free(g->out_arc), free(g->in_more), free(g->out_more);
	g->in = g->out = NULL, g->out_arc = g->in_more = g->out_more = NULL;
	return lib_fail(err, "betweenness: out of memory for the arcs in groups");
}
