/* betweenness.c - betweenness centrality by Brandes's accumulation (see
 * gs_betweenness_arcs in stats.h): the sources searched or given as rows
 * (betweenness_work.h), each thread a chunk of them.
 *
 * Path counts are a double and a binary exponent of their own, so they
 * never overflow (a grid's pass 2^1024 soon) and every ratio of two keeps
 * double's precision.  Sources are summed a chunk of BTW_CHUNK at a time,
 * each chunk on one thread and the chunks' sums added in order: the same
 * bits whatever the thread count. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "betweenness_work.h"
#include "common.h"
#include "elim.h"
#include "fw.h"
#include "stats.h"

#define BTW_CHUNK 64

/* ---- the sources ---- */

static void work_free(btw_work *k)
{
	free(k->dist), free(k->sig_m), free(k->delta), free(k->sig_e), free(k->done);
	free(k->order), free(k->head), free(k->link), free(k->heap);
	free(k->tfirst), free(k->tarc), free(k->tu), free(k->succ);
	free(k->succ_arc), free(k->sfirst), free(k->vx), free(k->indeg);
	free(k->rec), free(k->by_distance), free(k->bucket), free(k->sort_tmp);
}

static int work_alloc(btw_work *k, const btw_graph *g)
{
	const uint64_t n = g->n;
	memset(k, 0, sizeof *k);
	k->dist = malloc(n * 8 + 1);
	k->sig_m = calloc(n + 1, sizeof *k->sig_m);
	k->delta = calloc(n + 1, sizeof *k->delta);
	k->sig_e = malloc(n * sizeof *k->sig_e + 1);
	k->done = calloc(n + 1, 1);
	k->order = malloc(n * sizeof *k->order + 1);
	k->head = malloc(n * sizeof *k->head + 1);
	k->tfirst = malloc((n + 1) * sizeof *k->tfirst);
	k->link_cap = n + 16, k->heap_cap = n + 16, k->tarc_cap = n + 16;
	k->link = malloc(k->link_cap * 2 * sizeof *k->link);
	k->heap = malloc(k->heap_cap * 16);
	k->tarc = malloc(k->tarc_cap * sizeof *k->tarc);
	k->tu = malloc(k->tarc_cap * sizeof *k->tu);
	k->succ = malloc(k->tarc_cap * sizeof *k->succ);
	k->succ_arc = malloc(k->tarc_cap * sizeof *k->succ_arc);
	k->sfirst = malloc((n + 1) * sizeof *k->sfirst);
	k->vx = calloc(n + 1, sizeof *k->vx);
	k->indeg = calloc(n + 1, sizeof *k->indeg);
	k->rec = calloc(n + 1, sizeof *k->rec);
	k->by_distance = malloc(n * sizeof *k->by_distance + 1);
	k->bucket = malloc(btw_row_buckets(n) * sizeof *k->bucket);
	k->sort_tmp = malloc(n * sizeof *k->sort_tmp + 1);
	if (!k->dist || !k->sig_m || !k->delta || !k->sig_e || !k->done || !k->order || !k->head
	    || !k->link || !k->heap || !k->tfirst || !k->tarc || !k->tu || !k->succ
	    || !k->succ_arc || !k->sfirst || !k->vx || !k->indeg || !k->rec || !k->by_distance
	    || !k->bucket || !k->sort_tmp) {
		work_free(k);
		return -1;
	}
	for (uint64_t v = 0; v < n; v++) {
		if (g->exact)
			((int64_t *)k->dist)[v] = INT64_MAX;
		else
			((double *)k->dist)[v] = INFINITY;
	}
	return 0;
}

/* The accumulator: the graph, each thread's room, the chunks' sums. */
struct gs_bc {
	btw_graph g;
	gs_bc_opts o;
	int threads;
	uint64_t next;   /* the sources done, in order */
	uint64_t width;  /* a sum's values: n, and the arcs' where asked */
	double *total;   /* the chunks done, added in order */
	double *part;    /* threads + 1 sums: a wave's chunks, the open one last */
	btw_work *work;
};

/* Sources first .. first + count - 1, from their rows (stride entries
 * apart) or searched; chunk by chunk, a wave of a chunk a thread. */
static int add_sources(gs_bc *b, uint64_t first, uint64_t count, const int32_t *rows,
                       uint64_t stride)
{
	const uint64_t n = b->g.n, end = first + count, width = b->width;
	double *open = b->part + (uint64_t)b->threads * width;
	int bad = 0;
	for (uint64_t s0 = first; s0 < end && !bad;) {
		/* a wave: up to a chunk a thread, the first one maybe begun before */
		uint64_t bounds[b->threads + 1], waves = 0;
		bounds[0] = s0;
		while (waves < (uint64_t)b->threads && bounds[waves] < end) {
			const uint64_t c1 = (bounds[waves] / BTW_CHUNK + 1) * BTW_CHUNK;
			bounds[waves + 1] = c1 < end ? c1 : end;
			waves++;
		}
#pragma omp parallel for schedule(dynamic, 1) num_threads(b->threads) reduction(|| : bad)
		for (uint64_t i = 0; i < waves; i++) {
			btw_work *k = &b->work[omp_get_thread_num()];
			double *p = b->part + i * width;
			if (i == 0 && bounds[0] % BTW_CHUNK)
				memcpy(p, open, width * sizeof *p);
			else
				memset(p, 0, width * sizeof *p);
			double *arc = b->o.edges ? p + n : NULL;
			const uint32_t s0 = (uint32_t)bounds[i], s1 = (uint32_t)bounds[i + 1];
			const int32_t *r = rows ? rows + (s0 - first) * stride : NULL;
			if (r && btw_sources_from_rows(&b->g, k, s0, s1, r, stride, p, arc) < 0)
				k->failed = 1;
			for (uint32_t s = s0; s < s1 && !rows && !k->failed; s++)
				if (btw_source_searched(&b->g, k, s, p, arc) < 0)
					k->failed = 1;
			bad = k->failed;
		}
		for (uint64_t i = 0; i < waves && !bad; i++) { /* the chunks' sums, in order */
			const double *p = b->part + i * width;
			if (bounds[i + 1] % BTW_CHUNK && bounds[i + 1] != n) { /* left open */
				memcpy(open, p, width * sizeof *p);
				break;
			}
#pragma omp parallel for schedule(static) num_threads(b->threads)
			for (uint64_t v = 0; v < width; v++)
				b->total[v] += p[v];
		}
		s0 = bounds[waves];
		if (b->o.progress)
			b->o.progress(b->o.ctx, s0, n);
	}
	b->next = end;
	return bad ? -1 : 0;
}

/* ---- the interface ---- */

static int bc_start(btw_graph *g, const gs_bc_opts *o, gs_bc **out, uint32_t bad[2],
                    st_error *err)
{
	*out = NULL;
	int rc = btw_graph_rank(g, bad, err);
	if (rc == 0 && g->exact)
		rc = btw_graph_by_length(g, o->threads, err);
	gs_bc *b = rc == 0 ? calloc(1, sizeof *b) : NULL;
	if (rc != 0 || !b) {
		btw_graph_free(g);
		return rc != 0 ? rc : lib_fail(err, "betweenness: out of memory");
	}
	b->g = *g, b->o = *o;
	const uint64_t n = g->n, chunks = (n + BTW_CHUNK - 1) / BTW_CHUNK;
	b->threads = lib_threads(o->threads);
	if ((uint64_t)b->threads > chunks)
		b->threads = chunks ? (int)chunks : 1;
	b->width = n + (o->edges ? g->m : 0);
	b->total = calloc(b->width + 1, sizeof *b->total);
	b->part = malloc(((uint64_t)b->threads + 1) * b->width * sizeof *b->part + 1);
	b->work = calloc((size_t)b->threads, sizeof *b->work);
	int failed = !b->total || !b->part || !b->work;
	for (int t = 0; !failed && t < b->threads; t++)
		if (work_alloc(&b->work[t], g) < 0) {
			failed = 1;
			b->threads = t;
		}
	if (failed) {
		gs_bc_free(b);
		return lib_fail(err, "betweenness: out of memory for the searches of %llu vertices",
		                (unsigned long long)n);
	}
	*out = b;
	return 0;
}

static int check_args(uint64_t n, uint32_t type, st_error *err)
{
	if (type != ST_INT32 && type != ST_FLOAT32 && type != ST_FLOAT64)
		return lib_fail(err, "betweenness: unknown element type %u", type);
	if (n > UINT32_MAX)
		return lib_fail(err, "betweenness: %llu vertices (at most 2^32 - 1)",
		                (unsigned long long)n);
	return 0;
}

int gs_bc_new(gs_bc **b, uint64_t n, uint32_t type, uint64_t count, const uint32_t *from,
              const uint32_t *to, const void *w, const gs_bc_opts *o, uint32_t bad[2],
              st_error *err)
{
	btw_graph g = {0};
	*b = NULL;
	if (check_args(n, type, err) < 0)
		return -1;
	for (uint64_t k = 0; k < count; k++)
		if (from[k] >= n || to[k] >= n)
			return lib_fail(err, "betweenness: arc %llu (%u -> %u) past vertex %llu",
			                (unsigned long long)k, from[k], to[k], (unsigned long long)n - 1);
	if (btw_graph_of_arcs(&g, n, type, count, from, to, w, err) < 0)
		return -1;
	return bc_start(&g, o, b, bad, err);
}

int gs_bc_new_matrix(gs_bc **b, uint64_t n, uint32_t type, const void *w, uint64_t stride,
                     const gs_bc_opts *o, uint32_t bad[2], st_error *err)
{
	btw_graph g = {0};
	*b = NULL;
	if (check_args(n, type, err) < 0
	    || btw_graph_of_matrix(&g, n, type, w, stride, o->threads, err) < 0)
		return -1;
	return bc_start(&g, o, b, bad, err);
}

int gs_bc_add_rows(gs_bc *b, uint64_t first, uint64_t count, const int32_t *rows,
                   uint64_t stride, st_error *err)
{
	if (!b->g.exact) /* (searched at the end, in doubles) */
		return 0;
	if (first != b->next || first + count > b->g.n)
		return lib_fail(err, "betweenness: rows %llu to %llu given after row %llu (of %llu)",
		                (unsigned long long)first, (unsigned long long)(first + count),
		                (unsigned long long)b->next, (unsigned long long)b->g.n);
	if (!b->g.zeros && b->g.m <= BTW_PULL_DEGREE * b->g.n && !b->g.in
	    && btw_graph_groups(&b->g, err) < 0)
		return -1;
	if (count && add_sources(b, first, count, rows, stride) < 0)
		return lib_fail(err, "betweenness: out of memory for the tight arcs");
	return 0;
}

const uint64_t *gs_bc_graph(const gs_bc *b, const uint32_t **arcs, uint64_t *m)
{
	if (!b->g.exact)
		return NULL;
	*arcs = (const uint32_t *)b->g.packed, *m = b->g.m;
	return b->g.first;
}

int gs_bc_add_partials(gs_bc *b, uint64_t first, uint64_t count, const double *partials,
                       st_error *err)
{
	const uint64_t n = b->g.n;
	if (first != b->next || first % BTW_CHUNK || first + count > n
	    || (count % BTW_CHUNK && first + count != n) || b->o.edges)
		return lib_fail(err, "betweenness: the sums of sources %llu to %llu given after source "
		                "%llu (of %llu; chunks of %d%s)", (unsigned long long)first,
		                (unsigned long long)(first + count), (unsigned long long)b->next,
		                (unsigned long long)n, BTW_CHUNK, b->o.edges ? ", no arcs asked" : "");
	for (uint64_t c = 0; c * BTW_CHUNK < count; c++) {
		const double *p = partials + c * n;
#pragma omp parallel for schedule(static) num_threads(b->threads)
		for (uint64_t v = 0; v < n; v++)
			b->total[v] += p[v];
	}
	b->next = first + count;
	return 0;
}

int gs_bc_finish(gs_bc *b, gs_betweenness *out, st_error *err)
{
	memset(out, 0, sizeof *out);
	if (b->next < b->g.n && add_sources(b, b->next, b->g.n - b->next, NULL, 0) < 0)
		return lib_fail(err, "betweenness: out of memory for the searches");
	const btw_graph *g = &b->g;
	out->n = g->n, out->arcs = g->m;
	out->vertex = malloc(g->n * sizeof *out->vertex + 1);
	if (b->o.edges) {
		out->from = malloc(g->m * sizeof *out->from + 1);
		out->to = malloc(g->m * sizeof *out->to + 1);
		out->arc = malloc(g->m * sizeof *out->arc + 1);
	}
	if (!out->vertex || (b->o.edges && (!out->from || !out->to || !out->arc))) {
		gs_betweenness_free(out);
		return lib_fail(err, "betweenness: out of memory for the values");
	}
	memcpy(out->vertex, b->total, g->n * sizeof *out->vertex);
	for (uint64_t a = 0; b->o.edges && a < g->m; a++) { /* by tail, then head */
		const uint64_t p = g->exact ? g->pos[a] : a;
		out->from[p] = g->from[a], out->to[p] = g->to[a];
		out->arc[p] = b->total[g->n + a];
	}
	return 0;
}

void gs_bc_free(gs_bc *b)
{
	if (!b)
		return;
	for (int t = 0; b->work && t < b->threads; t++)
		work_free(&b->work[t]);
	free(b->work), free(b->part), free(b->total);
	btw_graph_free(&b->g);
	free(b);
}

/* Every source searched here. */
static int all_searched(gs_bc *b, int rc, gs_betweenness *out, st_error *err)
{
	memset(out, 0, sizeof *out);
	if (rc != 0)
		return rc;
	rc = gs_bc_finish(b, out, err);
	gs_bc_free(b);
	return rc;
}

/* A dense graph's rows by the CPU engine's rounds, where its matrix takes
 * at most a quarter of the memory (else each source is searched). */
static int rows_by_rounds(gs_bc *b, int threads, st_error *err)
{
	const btw_graph *g = &b->g;
	const uint64_t n = g->n;
	if ((double)n * (double)n * 4.0 > (double)lib_physical_memory() / 4)
		return 0;
	int32_t *d = lib_huge_alloc(n * n * 4 + 1);
	if (!d)
		return 0;
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++)
			d[i * n + j] = i == j ? 0 : ST_INF_I32;
	for (uint64_t a = 0; a < g->m; a++)
		d[(uint64_t)g->from[a] * n + g->packed[a].to] = g->packed[a].w;
	const fw_opts fo = {.threads = threads};
	int rc = fw_cpu(&fo, ST_INT32, n, d, NULL, err);
	if (rc == 0)
		rc = gs_bc_add_rows(b, 0, n, d, n, err);
	free(d);
	return rc;
}

static int take_rows(void *ctx, uint64_t first, uint64_t count, const void *rows)
{
	gs_bc *b = ctx;
	st_error err;
	return gs_bc_add_rows(b, first, count, rows, b->g.n, &err);
}

int gs_betweenness_arcs(gs_betweenness *out, uint64_t n, uint32_t type, uint64_t count,
                        const uint32_t *from, const uint32_t *to, const void *w,
                        const gs_bc_opts *o, uint32_t bad[2], st_error *err)
{
	gs_bc *b;
	int rc = gs_bc_new(&b, n, type, count, from, to, w, o, bad, err);
	if (rc == 0 && type == ST_INT32 && n > 1) { /* the sparse engine's rows, where its fill is small */
		el_factor *f;
		int64_t cycle;
		const int made = el_factor_make(n, type, count, from, to, w, 1, o->threads, n * n / 16,
		                                &f, &cycle, err);
		if (made < 0 || (made == 0 && el_all_rows(f, NULL, n, o->threads, take_rows, b, NULL,
		                                          err) < 0))
			rc = -1;
		if (made == 0)
			el_factor_free(f);
		if (made == 2 && rc == 0)
			rc = rows_by_rounds(b, o->threads, err);
	}
	if (rc < 0)
		gs_bc_free(b);
	return all_searched(b, rc, out, err);
}

int gs_betweenness_matrix(gs_betweenness *out, uint64_t n, uint32_t type, const void *w,
                          uint64_t stride, const gs_bc_opts *o, uint32_t bad[2], st_error *err)
{
	gs_bc *b;
	const int rc = gs_bc_new_matrix(&b, n, type, w, stride, o, bad, err);
	return all_searched(b, rc, out, err);
}

void gs_betweenness_scale(gs_betweenness *b, int normalized, int directed)
{
	const double n = (double)b->n;
	const double sv = normalized ? (b->n > 2 ? 1.0 / ((n - 1) * (n - 2)) : 1.0)
	                             : directed ? 1.0 : 0.5;
	const double se = normalized ? (b->n > 1 ? 1.0 / (n * (n - 1)) : 1.0)
	                             : directed ? 1.0 : 0.5;
	for (uint64_t v = 0; v < b->n; v++)
		b->vertex[v] *= sv;
	for (uint64_t a = 0; b->arc && a < b->arcs; a++)
		b->arc[a] *= se;
}

void gs_betweenness_free(gs_betweenness *b)
{
	free(b->vertex), free(b->from), free(b->to), free(b->arc);
	memset(b, 0, sizeof *b);
}
