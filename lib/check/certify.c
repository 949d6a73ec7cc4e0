/* certify.c - the conditions of certify.h, a row at a time on the threads. */
#include "certify.h"
#include "common.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ce_graph {
	uint64_t n;
	uint64_t *first; /* n + 1: vertex u's arcs are first[u] .. first[u + 1] - 1 */
	uint32_t *head;
	double *w;
};

static ce_graph *graph_alloc(uint64_t n, uint64_t arcs)
{
	ce_graph *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->n = n;
	g->first = calloc(n + 1, sizeof *g->first);
	g->head = malloc((arcs ? arcs : 1) * sizeof *g->head);
	g->w = malloc((arcs ? arcs : 1) * sizeof *g->w);
	if (!g->first || !g->head || !g->w) {
		ce_graph_free(g);
		return NULL;
	}
	return g;
}

void ce_graph_free(ce_graph *g)
{
	if (!g)
		return;
	free(g->first), free(g->head), free(g->w);
	free(g);
}

uint64_t ce_graph_arcs(const ce_graph *g)
{
	return g->first[g->n];
}

struct arc {
	uint32_t head;
	double w;
};

static int by_head_then_weight(const void *a, const void *b)
{
	const struct arc *x = a, *y = b;
	if (x->head != y->head)
		return x->head < y->head ? -1 : 1;
	return (x->w > y->w) - (x->w < y->w);
}

/* Sort each vertex's arcs by head and keep each head once, at its least
 * weight; first[] closes up over what repeats left out. */
static void sort_lists(ce_graph *g)
{
	uint64_t to = 0, from = 0;
	struct arc *tmp = NULL;
	size_t room = 0;
	for (uint64_t u = 0; u < g->n; u++) {
		const uint64_t end = g->first[u + 1], len = end - from;
		if (len > room) {
			free(tmp);
			room = len * 2;
			if (!(tmp = malloc(room * sizeof *tmp)))
				room = 0;
		}
		g->first[u] = to;
		if (len > 1 && tmp) {
			for (uint64_t k = 0; k < len; k++)
				tmp[k].head = g->head[from + k], tmp[k].w = g->w[from + k];
			qsort(tmp, len, sizeof *tmp, by_head_then_weight);
			for (uint64_t k = 0; k < len; k++)
				if (k == 0 || tmp[k].head != tmp[k - 1].head)
					g->head[to] = tmp[k].head, g->w[to++] = tmp[k].w;
		} else {
			for (uint64_t k = from; k < end; k++)
				g->head[to] = g->head[k], g->w[to++] = g->w[k];
		}
		from = end;
	}
	g->first[g->n] = to;
	free(tmp);
}

ce_graph *ce_graph_new(uint64_t n, uint32_t type, uint64_t count, const uint32_t *tail,
                       const uint32_t *head, const void *w, st_error *err)
{
	for (uint64_t k = 0; k < count; k++) {
		if (tail[k] >= n || head[k] >= n) {
			lib_fail(err, "certify: arc %llu -> %llu names a vertex beyond n = %llu",
			         (unsigned long long)tail[k], (unsigned long long)head[k],
			         (unsigned long long)n);
			return NULL;
		}
		if (tail[k] == head[k] && lib_element(type, w, k) < 0) {
			lib_fail(err, "certify: vertex %llu has a loop of negative weight (a negative "
			         "cycle: no distance is shortest)", (unsigned long long)tail[k]);
			return NULL;
		}
	}
	ce_graph *g = graph_alloc(n, count);
	if (!g) {
		lib_fail(err, "certify: out of memory for the graph's %llu arcs",
		         (unsigned long long)count);
		return NULL;
	}
	for (uint64_t k = 0; k < count; k++)
		if (tail[k] != head[k] && lib_element(type, w, k) < INFINITY)
			g->first[tail[k] + 1]++;
	for (uint64_t u = 0; u < n; u++)
		g->first[u + 1] += g->first[u];
	uint64_t *at = malloc((n ? n : 1) * sizeof *at);
	if (!at) {
		ce_graph_free(g);
		lib_fail(err, "certify: out of memory for the graph's lists");
		return NULL;
	}
	memcpy(at, g->first, n * sizeof *at);
	for (uint64_t k = 0; k < count; k++) {
		const double x = lib_element(type, w, k);
		if (tail[k] != head[k] && x < INFINITY) {
			const uint64_t e = at[tail[k]]++;
			g->head[e] = head[k], g->w[e] = x;
		}
	}
	free(at);
	sort_lists(g);
	return g;
}

ce_graph *ce_graph_from_matrix(uint64_t n, uint64_t npad, uint32_t type, const void *w,
                               st_error *err)
{
	uint64_t count = 0;
	for (uint64_t u = 0; u < n; u++) {
		if (lib_element(type, w, u * npad + u) < 0) {
			lib_fail(err, "certify: vertex %llu has a loop of negative weight (a negative "
			         "cycle: no distance is shortest)", (unsigned long long)u);
			return NULL;
		}
		for (uint64_t v = 0; v < n; v++)
			count += v != u && lib_element(type, w, u * npad + v) < INFINITY;
	}
	ce_graph *g = graph_alloc(n, count);
	if (!g) {
		lib_fail(err, "certify: out of memory for the graph's %llu arcs",
		         (unsigned long long)count);
		return NULL;
	}
	uint64_t e = 0;
	for (uint64_t u = 0; u < n; u++) {
		for (uint64_t v = 0; v < n; v++) {
			const double x = lib_element(type, w, u * npad + v);
			if (v != u && x < INFINITY)
				g->head[e] = (uint32_t)v, g->w[e++] = x;
		}
		g->first[u + 1] = e;
	}
	return g;
}

/* How one row is held to the conditions. */
struct row_check {
	const ce_graph *g;
	uint32_t type;
	double tol;
	uint64_t s;
	const void *dist;
	const int32_t *pred;
	uint32_t *queue; /* n: the search's queue, or a chain's vertices */
	uint8_t *mark;   /* n */
	ce_fault *f;
};

static double d_of(const struct row_check *c, uint64_t v)
{
	return lib_element(c->type, c->dist, v);
}

/* x is more than y beyond the rounding allowed at this scale. */
static int above(const struct row_check *c, double x, double y, double scale)
{
	if (c->type == ST_INT32 || isinf(x) || isinf(y))
		return x > y;
	return x - y > c->tol * scale;
}

static double scale_of(double dv, double du, double w)
{
	double s = fmax(1.0, fabs(du) + fabs(w));
	return isinf(dv) ? s : fmax(s, fabs(dv));
}

static void say(char *buf, size_t len, uint32_t type, double x)
{
	if (isinf(x))
		snprintf(buf, len, "%s", x > 0 ? "inf" : "-inf");
	else
		snprintf(buf, len, "%.*g", type == ST_FLOAT32 ? 9 : 17, x);
}

/* Fill the fault: kind, vertex v, the arc's tail (or -1) and weight, and
 * the sentence from fmt, in which %D is d(s, v), %Y the arc's d(s, u) + w,
 * %W its weight, %U its tail, %P pred(s, v), %S s and %V v. */
static int fault(const struct row_check *c, int kind, uint64_t v, int64_t u, double w,
                 const char *fmt)
{
	ce_fault *f = c->f;
	char num[64];
	f->kind = kind, f->source = c->s, f->vertex = v, f->tail = u, f->weight = w;
	f->dist = d_of(c, v);
	f->via = u >= 0 && !isnan(w) ? d_of(c, (uint64_t)u) + w : NAN;
	size_t at = 0;
	for (const char *p = fmt; *p && at + 1 < sizeof f->what; p++) {
		if (*p != '%') {
			f->what[at++] = *p;
			continue;
		}
		switch (*++p) {
		case 'D': say(num, sizeof num, c->type, f->dist); break;
		case 'Y': say(num, sizeof num, c->type, f->via); break;
		case 'W': say(num, sizeof num, c->type, w); break;
		case 'U': snprintf(num, sizeof num, "%lld", (long long)u); break;
		case 'P': snprintf(num, sizeof num, "%d", c->pred ? c->pred[v] : -1); break;
		case 'S': snprintf(num, sizeof num, "%llu", (unsigned long long)c->s); break;
		case 'V': snprintf(num, sizeof num, "%llu", (unsigned long long)v); break;
		default: num[0] = 0; p--;
		}
		at += (size_t)snprintf(f->what + at, sizeof f->what - at, "%s", num);
		if (at >= sizeof f->what)
			at = sizeof f->what - 1;
	}
	f->what[at] = 0;
	return 1;
}

/* Condition 2 over every arc out of a reached vertex. */
static int no_shorter_arc(const struct row_check *c)
{
	const ce_graph *g = c->g;
	for (uint64_t u = 0; u < g->n; u++) {
		const double du = d_of(c, u);
		if (!(du < INFINITY))
			continue;
		for (uint64_t e = g->first[u]; e < g->first[u + 1]; e++) {
			const uint64_t v = g->head[e];
			const double via = du + g->w[e], dv = d_of(c, v);
			if (above(c, dv, via, scale_of(dv, du, g->w[e])))
				return fault(c, CE_SHORTER, v, (int64_t)u, g->w[e],
				             isinf(dv) ? "d(%S, %V) = inf, but the arc %U -> %V of weight %W "
				                         "reaches it at %Y"
				                       : "d(%S, %V) = %D, but the arc %U -> %V of weight %W "
				                         "gives %Y");
		}
	}
	return 0;
}

/* The weight of arc u -> v, or +inf where the graph has none. */
static double arc_weight(const ce_graph *g, uint64_t u, uint64_t v)
{
	uint64_t lo = g->first[u], hi = g->first[u + 1];
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo) / 2;
		if (g->head[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->first[u + 1] && g->head[lo] == v ? g->w[lo] : INFINITY;
}

static int tight(const struct row_check *c, double du, double w, double dv)
{
	const double via = du + w, scale = scale_of(dv, du, w);
	return !above(c, via, dv, scale) && !above(c, dv, via, scale);
}

/* Condition 3 with predecessors: each one a tight arc, each chain to s. */
static int chains_reach_source(const struct row_check *c)
{
	const uint64_t n = c->g->n, s = c->s;
	const int32_t *pred = c->pred;
	for (uint64_t v = 0; v < n; v++) {
		const double dv = d_of(c, v);
		const int32_t p = pred[v];
		if (v == s || !(dv < INFINITY)) {
			if (p != -1)
				return fault(c, v == s ? CE_DIAGONAL : CE_PRED_NONE, v, -1, NAN,
				             v == s ? "pred(%S, %S) = %P, not -1"
				                    : "d(%S, %V) = inf, but pred(%S, %V) = %P");
			continue;
		}
		if (p == -1)
			return fault(c, CE_PRED_NONE, v, -1, NAN, "d(%S, %V) = %D, but pred(%S, %V) = -1");
		if (p < 0 || (uint64_t)p >= n)
			return fault(c, CE_PRED_RANGE, v, -1, NAN, "pred(%S, %V) = %P is no vertex");
		const double w = arc_weight(c->g, (uint64_t)p, v);
		if (isinf(w))
			return fault(c, CE_PRED_NOT_ARC, v, p, NAN,
			             "pred(%S, %V) = %P, but the graph has no arc %P -> %V");
		if (!tight(c, d_of(c, (uint64_t)p), w, dv))
			return fault(c, CE_PRED_NOT_TIGHT, v, p, w,
			             "pred(%S, %V) = %P, but d(%S, %P) + w(%P, %V) = %Y, not d(%S, %V) = %D");
	}
	/* Every predecessor is a tight arc from a reached vertex: walk the
	 * chains (mark 1: reaches s, 2: on the walk now). */
	memset(c->mark, 0, n);
	c->mark[s] = 1;
	for (uint64_t v = 0; v < n; v++) {
		if (c->mark[v] || !(d_of(c, v) < INFINITY))
			continue;
		uint64_t depth = 0, x = v;
		while (!c->mark[x]) {
			c->mark[x] = 2, c->queue[depth++] = (uint32_t)x;
			x = (uint64_t)pred[x];
		}
		if (c->mark[x] == 2)
			return fault(c, CE_PRED_LOOP, v, -1, NAN,
			             "the chain of predecessors from %V loops without reaching %S");
		while (depth > 0)
			c->mark[c->queue[--depth]] = 1;
	}
	return 0;
}

/* Condition 3 without predecessors: a search from s along tight arcs. */
static int tight_search_reaches(const struct row_check *c)
{
	const ce_graph *g = c->g;
	const uint64_t n = g->n;
	uint64_t head = 0, tail = 0;
	memset(c->mark, 0, n);
	c->mark[c->s] = 1, c->queue[tail++] = (uint32_t)c->s;
	while (head < tail) {
		const uint64_t u = c->queue[head++];
		const double du = d_of(c, u);
		for (uint64_t e = g->first[u]; e < g->first[u + 1]; e++) {
			const uint64_t v = g->head[e];
			if (!c->mark[v] && tight(c, du, g->w[e], d_of(c, v)))
				c->mark[v] = 1, c->queue[tail++] = (uint32_t)v;
		}
	}
	for (uint64_t v = 0; v < n; v++)
		if (!c->mark[v] && d_of(c, v) < INFINITY)
			return fault(c, CE_UNREACHED, v, -1, NAN,
			             "d(%S, %V) = %D, but no path from %S weighs that (no chain of arcs "
			             "u -> v with d(%S, u) + w = d(%S, v) reaches %V)");
	return 0;
}

static int check_row(struct row_check *c)
{
	if (d_of(c, c->s) != 0)
		return fault(c, CE_DIAGONAL, c->s, -1, NAN, "d(%S, %S) = %D, not 0");
	if (no_shorter_arc(c))
		return 1;
	return c->pred ? chains_reach_source(c) : tight_search_reaches(c);
}

int64_t ce_check_rows(const ce_graph *g, uint32_t type, const uint32_t *src, uint64_t first,
                      uint64_t count, const void *dist, const int32_t *pred, uint64_t stride,
                      double tol, int threads, ce_fault *fault_out, st_error *err)
{
	const uint64_t n = g->n, row_bytes = stride * ST_TYPE_SIZE(type);
	int64_t bad = 0;
	uint64_t lowest = UINT64_MAX;
	int failed = 0;
	if (fault_out)
		memset(fault_out, 0, sizeof *fault_out), fault_out->tail = -1;
	#pragma omp parallel LIB_OMP_THREADS(lib_threads(threads)) reduction(+ : bad)
	{
		struct row_check c = {g, type, tol, 0, NULL, NULL, NULL, NULL, NULL};
		ce_fault f;
		c.queue = malloc((n ? n : 1) * sizeof *c.queue);
		c.mark = malloc(n ? n : 1);
		c.f = &f;
		if (!c.queue || !c.mark) {
			#pragma omp atomic write
			failed = 1;
		}
		#pragma omp for schedule(dynamic, 4)
		for (uint64_t i = 0; i < count; i++) {
			if (!c.queue || !c.mark)
				continue;
			c.s = src ? src[i] : first + i;
			c.dist = (const char *)dist + i * row_bytes;
			c.pred = pred ? pred + i * stride : NULL;
			if (!check_row(&c))
				continue;
			bad++;
			f.row = i;
			#pragma omp critical(ce_lowest)
			if (i < lowest) {
				lowest = i;
				if (fault_out)
					*fault_out = f;
			}
		}
		free(c.queue), free(c.mark);
	}
	if (failed)
		return lib_fail(err, "certify: out of memory for a row's search (n = %llu)",
		                (unsigned long long)n);
	return bad;
}
