/* sparse.c - apsp-cpu's sparse engine run (see sparse.h). */
#include "common.h"
#include "sparse.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "betweenness.h"
#include "elim.h"
#include "order.h"
#include "sources.h"
#include "stats.h"
#include "tool.h"

int sparse_parse_engine(const char *arg)
{
	if (!strcmp(arg, "auto"))
		return ENGINE_AUTO;
	if (!strcmp(arg, "dense"))
		return ENGINE_DENSE;
	if (!strcmp(arg, "sparse"))
		return ENGINE_SPARSE;
	tool_usage_error("--engine: '%s' is not auto, dense or sparse", arg);
}

/* ---- the arcs ---- */

struct arcs {
	uint64_t n, npad, count, cap;
	uint32_t type;
	uint32_t *from, *to;
	void *w;
	uint64_t limit;   /* ENGINE_AUTO: past this many the graph is dense */
	void *matrix;     /* then its weights instead, npad x npad */
	uint64_t *row_count; /* a window's arcs a row */
	int threads;
	const char *name;    /* the input's path, and its header */
	const st_header *h;
};

static void arcs_free(struct arcs *a)
{
	free(a->from), free(a->to), free(a->w), free(a->row_count);
	a->from = a->to = NULL, a->w = NULL, a->row_count = NULL;
}

static void arcs_room(struct arcs *a, uint64_t more)
{
	if (a->count + more <= a->cap)
		return;
	uint64_t cap = a->cap ? a->cap : 1024;
	while (cap < a->count + more)
		cap *= 2;
	const size_t es = ST_TYPE_SIZE(a->type);
	uint32_t *from = realloc(a->from, cap * 4), *to = realloc(a->to, cap * 4);
	void *w = realloc(a->w, cap * es);
	if (from)
		a->from = from;
	if (to)
		a->to = to;
	if (w)
		a->w = w;
	if (!from || !to || !w)
		tool_die("sparse engine: out of memory for %llu arcs (%.1f MiB)",
		         (unsigned long long)cap, (double)cap * (8 + es) / 1048576.0);
	a->cap = cap;
}

/* Entry j of a row of the type's elements: an arc (finite, off the
 * diagonal, or a negative loop). */
static int is_arc(uint32_t type, const void *row, uint64_t j, uint64_t i)
{
	double x = type == ST_INT32   ? (((const int32_t *)row)[j] >= ST_INF_I32 ? INFINITY
	                                   : ((const int32_t *)row)[j])
	         : type == ST_FLOAT32 ? ((const float *)row)[j]
	                              : ((const double *)row)[j];
	return x < INFINITY && (i != j || x < 0);
}

/* The dense matrix after all: what was gathered so far into it (INF
 * elsewhere, 0 on the diagonal), the arcs dropped. */
static void to_matrix(struct arcs *a)
{
	const size_t es = ST_TYPE_SIZE(a->type);
	const uint64_t np = a->npad;
	engine_check_memory(a->name, a->h, (double)np * (double)np * (double)es);
	a->matrix = lib_huge_alloc(np * np * es + 1);
	if (!a->matrix)
		tool_die("out of memory for the %llu x %llu weight matrix", (unsigned long long)np,
		         (unsigned long long)np);
	#pragma omp parallel for schedule(static) num_threads(a->threads)
	for (uint64_t i = 0; i < np; i++)
		for (uint64_t j = 0; j < np; j++) {
			char *e = (char *)a->matrix + (i * np + j) * es;
			if (a->type == ST_INT32)
				*(int32_t *)e = i == j ? 0 : ST_INF_I32;
			else if (a->type == ST_FLOAT32)
				*(float *)e = i == j ? 0.0f : INFINITY;
			else
				*(double *)e = i == j ? 0.0 : INFINITY;
		}
	for (uint64_t k = 0; k < a->count; k++)
		memcpy((char *)a->matrix + ((uint64_t)a->from[k] * np + a->to[k]) * es,
		       (const char *)a->w + k * es, es);
	arcs_free(a);
	a->count = 0;
}

/* A window of a stream's rows: their arcs in order (counted, then copied,
 * a row a thread), or the rows themselves once the graph is dense. */
static int take_rows(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct arcs *a = ctx;
	const size_t es = ST_TYPE_SIZE(a->type), row = a->npad * es;
	if (a->matrix) {
		memcpy((char *)a->matrix + first * row, data, count * row);
		return 0;
	}
	uint64_t *c = realloc(a->row_count, (count + 1) * sizeof *c);
	if (!c)
		tool_die("sparse engine: out of memory");
	a->row_count = c;
	const uint64_t n = a->n;
	#pragma omp parallel for schedule(dynamic, 16) num_threads(a->threads)
	for (uint64_t i = 0; i < count; i++) {
		uint64_t k = 0;
		const char *r = (const char *)data + i * row;
		for (uint64_t j = 0; first + i < n && j < n; j++)
			k += is_arc(a->type, r, j, first + i);
		c[i + 1] = k;
	}
	c[0] = 0;
	for (uint64_t i = 0; i < count; i++)
		c[i + 1] += c[i];
	if (a->limit && a->count + c[count] > a->limit) {
		to_matrix(a);
		return take_rows(ctx, first, count, data);
	}
	arcs_room(a, c[count]);
	#pragma omp parallel for schedule(dynamic, 16) num_threads(a->threads)
	for (uint64_t i = 0; i < count; i++) {
		uint64_t k = a->count + c[i];
		const char *r = (const char *)data + i * row;
		for (uint64_t j = 0; first + i < n && j < n; j++)
			if (is_arc(a->type, r, j, first + i)) {
				a->from[k] = (uint32_t)(first + i), a->to[k] = (uint32_t)j;
				memcpy((char *)a->w + k * es, r + j * es, es);
				k++;
			}
	}
	a->count += c[count];
	return 0;
}

/* A graph as text: its edges as arcs, the weights in the type. */
static void take_text(struct arcs *a, const gio_graph *g)
{
	arcs_room(a, g->nedge);
	for (size_t k = 0; k < g->nedge; k++) {
		const gio_edge *e = &g->edge[k];
		a->from[k] = e->u, a->to[k] = e->v;
		if (a->type == ST_INT32)
			((int32_t *)a->w)[k] = (int32_t)e->w;
		else if (a->type == ST_FLOAT32)
			((float *)a->w)[k] = (float)e->w;
		else
			((double *)a->w)[k] = e->w;
	}
	a->count = g->nedge;
}

/* ---- the rows ---- */

/* Rows of distances, in order, into the statistics or the result stream;
 * or, the second time over with tree set, their predecessors. */
struct rows_out {
	gs_stats *stats;     /* folded into these (and bc's betweenness), or */
	btw_run *bc;
	st_writer *w;        /* written here */
	uint64_t n, es, row_bytes; /* (es: an entry's bytes) */
	int threads;
	uint64_t relaxations;
	const uint32_t *src; /* the rows' sources (NULL: every vertex in order) */
	uint64_t rows;       /* ... how many */
	const uint32_t *dst; /* a table's columns (NULL: whole rows) */
	uint64_t cols;       /* ... how many */
	int gathered;        /* the rows come with the table's columns alone (a device's) */
	void *kept;          /* some rows: their distances kept for their predecessors */
	const el_arcs *tree; /* the predecessors' pass: the graph's arcs */
	int32_t *pred;       /* ... its rows, room for pred_rows */
	uint64_t pred_rows;
};

static int take_out(void *ctx, uint64_t first, uint64_t count, const void *rows)
{
	struct rows_out *o = ctx;
	st_error err;
	if (o->tree) {
		if (count > o->pred_rows) {
			free(o->pred);
			if (!(o->pred = malloc(count * o->n * sizeof *o->pred)))
				tool_die("sparse engine: out of memory for %llu rows of predecessors",
				         (unsigned long long)count);
			o->pred_rows = count;
		}
		if (el_derive_preds(o->tree, o->src, first, count, rows, o->pred, o->threads, &err) < 0
		    || st_write(o->w, o->pred, count * o->n * sizeof *o->pred, &err) < 0)
			tool_die_st(tool_output_name(), &err);
	} else if (o->stats) {
		gs_add_rows(o->stats, first, count, rows, o->n, o->threads);
		btw_rows(o->bc, first, count, rows, o->n);
	} else if (o->gathered ? sources_put_rows(o->w, rows, count, o->cols, o->es, NULL, 0, &err) < 0
	                       : sources_put_rows(o->w, rows, count, o->n, o->es, o->dst, o->cols, &err)
	                                 < 0) {
		tool_die_st(tool_output_name(), &err);
	} else if (o->kept) {
		memcpy((char *)o->kept + first * o->row_bytes, rows, count * o->row_bytes);
	}
	tool_progress(o->tree ? "predecessors" : "rows", first + count, o->rows);
	return 0;
}

static void make_rows(const el_factor *f, struct rows_out *o, int threads)
{
	st_error err;
	o->n = f->n, o->es = ST_TYPE_SIZE(f->type), o->row_bytes = f->n * o->es, o->threads = threads;
	if (el_all_rows(f, o->src, o->rows, threads, take_out, o, &o->relaxations, &err) < 0)
		tool_die_st(NULL, &err);
}

/* ---- the run ---- */

static const char no_order[] = "no nested dissection in this build (METIS)";

/* Why the dense engine runs whatever the graph (NULL: the sparse one may). */
static const char *dense_anyway(const struct sparse_job *job)
{
	if (job->mode == ENGINE_DENSE)
		return "--engine dense";
	if (job->paths && job->mode == ENGINE_AUTO && !job->src)
		return "predecessors asked (the dense engine's; --engine sparse derives them from "
		       "the distances)";
	if (job->checkpoint)
		return "checkpoints asked (the sparse engine keeps none)";
	if (job->mode == ENGINE_AUTO && job->order == ORDER_NATURAL)
		return "--order natural";
	if (job->mode == ENGINE_AUTO && !ord_available())
		return no_order;
	return NULL;
}

/* Why ENGINE_AUTO keeps the dense engine for r's graph before reading it. */
static const char *dense_unread(const struct sparse_job *job, const engine_in *r)
{
	if (job->mode == ENGINE_AUTO && r->r && !job->streams)
		return "a stream's matrix (the sparse engine takes text by itself; --engine sparse)";
	return NULL;
}

/* Bytes a vertex and an arc of the sparse engine take at least, whatever
 * the fill: the order and the factor's plan, a batch of rows on each
 * thread, the statistics' columns or a row's predecessors and the arcs'
 * lists; the arcs as gathered and in the factor.  A graph that declares
 * more vertices than these fit is refused before anything is allocated. */
enum { SPARSE_VERTEX_BYTES = 160, SPARSE_ARC_BYTES = 48 };

static void check_memory(const struct sparse_job *job, const engine_in *r, const st_header *h)
{
	const double arcs = !r->r ? (double)r->g.nedge : (double)h->arcs;
	const double rows = job->src ? (double)job->sources : 0;
	const double need = (double)h->n * (SPARSE_VERTEX_BYTES + rows * ST_TYPE_SIZE(h->type))
	                    + arcs * SPARSE_ARC_BYTES;
	engine_check_memory_as(job->input, h, need, 1);
}

/* The arcs of r's graph into a; 0 where ENGINE_AUTO finds it dense (a->matrix
 * then holds a stream's weights; text is left as it was, its arcs copied). */
static int gather(const struct sparse_job *job, engine_in *r, struct arcs *a)
{
	if (!r->r) {
		if (a->limit && !engine_sparse_edges(&r->g))
			return 0;
		take_text(a, &r->g);
		return 1;
	}
	st_error err;
	if (engine_read_weights_rows(r, 64, take_rows, a, &err) < 0)
		tool_die_st(NULL, &err); /* (the stream's messages name it) */
	return !a->matrix;
}

/* The factor's plan in the order kept with the graph (kept, where not
 * NULL), or one made here (*order_s its time); said gets which order and
 * where it came from, for -v. */
static el_factor *plan(const struct sparse_job *job, const struct arcs *a, const int32_t *kept,
                       double *order_s, char *said, size_t len)
{
	st_error err;
	int32_t *perm = NULL;
	const double t = lib_now();
	*order_s = 0;
	if (kept && job->order != ORDER_NATURAL) {
		el_factor *f;
		snprintf(said, len, "order kept in the stream (none made)");
		if (el_factor_plan(a->n, a->count, a->from, a->to, kept, &f, &err) < 0)
			tool_die_st(NULL, &err);
		return f;
	}
	if (job->order == ORDER_NATURAL)
		snprintf(said, len, "natural order (--order natural)");
	else if (!ord_available())
		snprintf(said, len, "natural order (no METIS in this build)");
	if (job->order != ORDER_NATURAL && ord_available()) {
		if (!(perm = malloc(a->n * sizeof *perm + 1)))
			tool_die("sparse engine: out of memory for the order");
		if (ord_split_dissection_arcs(a->n, a->count, a->from, a->to, perm, job->threads, &err)
		    < 0)
			tool_die_st(tool_input_name(job->input), &err);
		*order_s = lib_now() - t;
		snprintf(said, len, "order %.3f s (nested dissection by METIS, made here on %d cores)",
		         *order_s, lib_threads(job->threads));
	}
	el_factor *f;
	if (el_factor_plan(a->n, a->count, a->from, a->to, perm, &f, &err) < 0)
		tool_die_st(NULL, &err);
	free(perm);
	return f;
}

/* Every row handed to o's taker in order, by the device or the cores. */
static void all_rows(const struct sparse_job *job, const el_factor *f, struct rows_out *o)
{
	if (job->device_rows) {
		char info[1024]; /* (the -v line on several GPUs runs past 400) */
		o->n = f->n, o->es = ST_TYPE_SIZE(f->type), o->row_bytes = f->n * o->es;
		o->threads = job->threads;
		/* A table's columns alone leave the device, but where predecessors
		 * are asked (derived here from whole rows) */
		o->gathered = o->dst && !job->paths;
		const el_rowset rows = {o->src, o->src ? o->rows : 0, o->gathered ? o->dst : NULL,
		                        o->cols};
		/* (betweenness: the rows come here, the statistics folded beside) */
		if (job->device_rows(job->device_ctx, f, &rows, o->bc ? NULL : o->stats, take_out, o,
		                     info, sizeof info) < 0)
			tool_die("%s", info);
		tool_info("%s", info);
	} else {
		make_rows(f, o, job->threads);
	}
}

/* The rows made, into the statistics or the result stream, then (tree set)
 * made again for their predecessors; the output committed.  Returns the
 * relaxations made. */
static uint64_t rows_out(const struct sparse_job *job, const el_factor *f, const st_header *h,
                         st_header *res, int out, FILE *sout, const el_arcs *tree, btw_run *bc)
{
	st_error err;
	gs_stats st;
	struct rows_out o = {.src = job->src, .rows = job->src ? job->sources : f->n, .bc = bc,
	                     .dst = job->dst, .cols = job->targets};
	if (job->form) {
		if (gs_init(&st, f->n, f->type, &err) < 0)
			tool_die_st(NULL, &err);
		o.stats = &st;
	} else if (!(o.w = st_writer_open(out, res, tool_opts.level, job->threads, &err))
	           || (job->src && sources_put_lists(o.w, job->src, job->dst, &err) < 0)) {
		tool_die_st(tool_output_name(), &err);
	}
	/* Some rows with their predecessors: made once where a quarter of the
	 * memory holds their distances. */
	const double kept = (double)o.rows * (double)f->n * (double)ST_TYPE_SIZE(f->type);
	if (tree && job->src && kept <= (double)lib_physical_memory() / 4)
		o.kept = malloc((size_t)kept + 1);
	all_rows(job, f, &o);
	if (job->form) {
		btw_print(bc, sout, &st, job->form, h->flags);
		gs_free(&st);
	} else if (st_write_end_matrix(o.w, &err) < 0) {
		tool_die_st(tool_output_name(), &err);
	}
	if (tree) { /* the rows kept, or made again, for their predecessors */
		tool_progress_stage("the predecessors");
		o.tree = tree;
		for (uint64_t first = 0; o.kept && first < o.rows; first += 1024)
			take_out(&o, first, o.rows - first < 1024 ? o.rows - first : 1024,
			         (const char *)o.kept + first * o.row_bytes);
		if (!o.kept)
			all_rows(job, f, &o);
		free(o.pred);
		free(o.kept);
		if (st_write_end_matrix(o.w, &err) < 0)
			tool_die_st(tool_output_name(), &err);
	}
	if (!job->form && st_writer_close(o.w, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	tool_output_commit();
	return o.relaxations;
}

/* Few rows of an int32 graph of few arcs a vertex (a road network's, a
 * mesh's; denser ones keep the engines, whose rows are the whole
 * result's) and none negative: a search a source.  Its sums are exact, so
 * its rows are the elimination's bytes on every device; float sums in
 * another order could differ in the last bit, so floats are eliminated. */
static int searched(const struct sparse_job *job, const struct arcs *a)
{
	const char *most = getenv("APSP_SEARCH_MOST"); /* (tests: 0 never searches) */
	const uint64_t at_most = most && *most ? strtoull(most, NULL, 10) : EL_SEARCH_MOST;
	return job->src && job->sources <= at_most && !job->form && !job->device_rows
	       && a->type == ST_INT32 && a->count <= 6 * a->n
	       && el_no_negative_arc(a->type, a->count, a->w);
}

/* The rows (and predecessors) of job's sources, searched, as a result
 * stream. */
static void search_out(const struct sparse_job *job, const struct arcs *a, const st_header *h,
                       int out, double read_s)
{
	st_error err;
	st_header res;
	const uint64_t n = h->n, rows = job->sources, bytes = rows * n * ST_TYPE_SIZE(h->type);
	void *dist = malloc(bytes ? bytes : 1);
	int32_t *pred = job->paths ? malloc(rows * n * sizeof *pred + 1) : NULL;
	if (!dist || (job->paths && !pred))
		tool_die("sparse engine: out of memory for %llu rows of n = %llu",
		         (unsigned long long)rows, (unsigned long long)n);
	uint64_t relax = 0;
	const double t = lib_now();
	tool_progress_stage("searching from the sources");
	if (el_search_rows(n, h->type, a->count, a->from, a->to, a->w, job->src, rows, dist,
	                   job->threads, &relax, &err) < 0)
		tool_die_st(tool_input_name(job->input), &err);
	/* The predecessors by the rule of every other result's (el_derive_preds),
	 * so that the rows are the whole result's, predecessors too. */
	el_arcs *tree = pred ? el_arcs_new(n, h->type, a->count, a->from, a->to, a->w) : NULL;
	if (pred && (!tree || el_derive_preds(tree, job->src, 0, rows, dist, pred, job->threads,
	                                      &err) < 0))
		tool_die("sparse engine: out of memory for the predecessors of %llu rows",
		         (unsigned long long)rows);
	el_arcs_free(tree);
	const double search_s = lib_now() - t;
	if (sv_result_header(h, pred != NULL, &res, &err) < 0)
		tool_die_st("result", &err);
	sources_header(&res, rows, job->targets);
	tool_add_provenance(&res);
	st_writer *w = st_writer_open(out, &res, tool_opts.level, job->threads, &err);
	if (!w || sources_put_lists(w, job->src, job->dst, &err) < 0
	    || sources_put_rows(w, dist, rows, n, ST_TYPE_SIZE(h->type), job->dst, job->targets, &err) < 0
	    || st_write_end_matrix(w, &err) < 0
	    || (pred && (st_write(w, pred, rows * n * sizeof *pred, &err) < 0
	                 || st_write_end_matrix(w, &err) < 0))
	    || st_writer_close(w, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	tool_output_commit();
	tool_info("sparse engine: n %llu, %s, %d threads: %llu sources searched (Dijkstra's "
	          "algorithm, no negative arc), read %.3f s, search %.3f s (%.3g relaxations/s)",
	          (unsigned long long)n, st_type_name(h->type), job->threads,
	          (unsigned long long)rows, read_s, search_s,
	          search_s > 0 ? (double)relax / search_s : 0.0);
	st_header_free(&res);
	free(dist), free(pred);
}

const char *sparse_declines(const struct sparse_job *job, const engine_in *r)
{
	const char *no = dense_anyway(job);
	/* Without an order a few sources may still be searched (no order is
	 * needed): the graph is read to see, and goes back to the dense engine
	 * where it is not. */
	if (no == no_order && job->src && job->sources <= EL_SEARCH_MOST)
		no = NULL;
	if (!no)
		no = dense_unread(job, r);
	if (no && job->mode == ENGINE_SPARSE)
		tool_usage_error("--engine sparse: %s", no);
	return no;
}

int sparse_run(const struct sparse_job *job, engine_in *r, const st_header *h, int out,
               FILE *sout, void **weights, char *why, size_t len)
{
	*weights = NULL;
	const char *no = sparse_declines(job, r);
	if (no) {
		snprintf(why, len, "dense engine: %s", no);
		return 0;
	}
	/* (a few sources searched without an order, else the dense engine) */
	const char *unordered = dense_anyway(job) == no_order ? no_order : NULL;
	const uint64_t n = h->n;
	const int automatic = job->mode == ENGINE_AUTO;
	check_memory(job, r, h);
	struct arcs a = {.n = n, .npad = h->npad, .type = h->type, .threads = job->threads,
	                 .limit = automatic ? (uint64_t)ND_MAX_DEGREE * n : 0, .name = job->input,
	                 .h = h};
	const double t0 = lib_now();
	const int text = !r->r; /* (a stream's r is freed once read) */
	tool_progress_stage("reading the graph's arcs");
	if (!gather(job, r, &a)) {
		*weights = a.matrix;
		snprintf(why, len, "dense engine: over %d arcs a vertex", ND_MAX_DEGREE);
		return 0;
	}
	const double t1 = lib_now();
	tool_mark("sparse: the arcs read");
	if (searched(job, &a)) {
		if (text)
			engine_in_free(r);
		search_out(job, &a, h, out, t1 - t0);
		arcs_free(&a);
		snprintf(why, len, "sparse engine (a search a source)");
		return 1;
	}
	if (unordered) {
		snprintf(why, len, "dense engine: %s", unordered);
		if (text)
			arcs_free(&a);
		else
			to_matrix(&a);
		*weights = a.matrix;
		return 0;
	}
	double order_s;
	char order_said[128];
	const int kept = text && r->order && job->order != ORDER_NATURAL;
	tool_progress_stage(kept ? "the factor's plan, in the order kept" : "ordering the vertices");
	el_factor *f = plan(job, &a, text ? r->order : NULL, &order_s, order_said, sizeof order_said);
	const uint64_t entries = el_factor_entries(f);
	tool_mark("sparse: the factor planned");
	if (automatic && entries > n * n / 16) { /* (the dense engine's tiles do better) */
		snprintf(why, len, "dense engine: the elimination's fill would be %llu entries, over "
		         "n^2/16", (unsigned long long)entries);
		el_factor_free(f);
		if (text)
			arcs_free(&a);
		else
			to_matrix(&a);
		*weights = a.matrix;
		return 0;
	}
	if (text)
		engine_in_free(r);
	st_error err;
	int64_t cycle = -1;
	const double t2 = lib_now();
	tool_progress_stage("eliminating");
	const int rc = el_factor_weigh(f, h->type, a.count, a.from, a.to, a.w, &cycle, &err);
	el_arcs *tree = NULL;
	btw_run *bc = rc == 0 ? btw_begin(job->form, n, h->type, a.count, a.from, a.to, a.w, 0,
	                                job->threads)
	                    : NULL;
	if (rc == 0 && job->paths && !job->form
	    && !(tree = el_arcs_new(n, h->type, a.count, a.from, a.to, a.w)))
		tool_die("sparse engine: out of memory for the arcs' lists");
	arcs_free(&a);
	if (rc < 0)
		tool_die_st(tool_input_name(job->input), &err);
	st_header res;
	if (sv_result_header(h, tree != NULL, &res, &err) < 0)
		tool_die_st("result", &err);
	if (job->src)
		sources_header(&res, job->sources, job->targets);
	tool_add_provenance(&res);
	if (rc == 1)
		engine_negative_cycle(job->input, out, &res, cycle, job->threads);
	const double t3 = lib_now();
	tool_mark("sparse: eliminated");
	tool_progress_stage(job->form ? "rows into the statistics" : "writing the rows");
	const uint64_t relax = rows_out(job, f, h, &res, out, sout, tree, bc);
	el_arcs_free(tree);
	const double t4 = lib_now();
	char rate[80] = "";
	if (relax) /* (on this machine's cores; a device says its own) */
		snprintf(rate, sizeof rate, " (%.3g relaxations/s, a source each)",
		         t4 > t3 ? (double)relax / (t4 - t3) : 0.0);
	tool_info("sparse engine: n %llu, %s, %d threads: factor %llu entries (%.1f MiB, the "
	          "widest %llu); read %.3f s, %s, eliminate %.3f s, rows %.3f s%s",
	          (unsigned long long)n, st_type_name(h->type), job->threads,
	          (unsigned long long)entries, el_factor_bytes(f) / 1048576.0,
	          (unsigned long long)f->widest, t1 - t0, order_said,
	          t3 - t2 + (t2 - t1 - order_s), t4 - t3, rate);
	snprintf(why, len, "sparse engine");
	st_header_free(&res);
	el_factor_free(f);
	return 1;
}
