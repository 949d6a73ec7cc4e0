/* engine.c - see engine.h. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "betweenness.h"
#include "common.h"
#include "engine.h"
#include "sources.h"
#include "graphin.h"
#include "order.h"
#include "tool.h"

/* auto: nested dissection when the average out-degree is at most this and
 * n is at least ND_MIN_N (below, there are too few tiles to skip). */
#define ND_MIN_N 256

/* --type: the element type a graph as text is read in (0: the reader's
 * default, int32 for whole numbers, float32 for real ones). */
static uint32_t text_type;

void engine_parse_type(const char *arg)
{
	text_type = !strcmp(arg, "int32") ? ST_INT32 : !strcmp(arg, "float32") ? ST_FLOAT32
	          : !strcmp(arg, "float64") ? ST_FLOAT64 : 0;
	if (!text_type)
		tool_usage_error("--type: unknown type '%s' (int32, float32 or float64)", arg);
}

/* A graph as text: its edges, and the header its weights would have. */
static engine_in *open_text(int fd, const char *path, st_header *h)
{
	engine_in *in = calloc(1, sizeof *in);
	gio_opts o;
	char *label;
	if (!in)
		tool_die("out of memory");
	gio_opts_init(&o);
	o.edges_only = 1;
	o.type = text_type;
	graphin_read(fd, path, NULL, &o, &in->g, &label);
	free(label);
	if (fd > 2)
		close(fd);
	st_header_init(h, in->g.n, 1, in->g.type);
	h->matrices = ST_WEIGHTS;
	h->flags = in->g.flags;
	return in;
}

/* A stream's list of arcs (and the vertex order kept beside it): read,
 * checked and taken as a graph as text is (its edges, no reader left),
 * under the header its weights would have. */
static engine_in *open_arcs(st_reader *r, const char *name, st_header *h, engine_in *in)
{
	st_error err;
	const uint64_t bytes = st_matrix_bytes_of(h, ST_ARCS);
	void *arcs = malloc(bytes ? (size_t)bytes : 1);
	if (h->matrices & ST_ORDER)
		in->order = malloc(h->n * sizeof *in->order + 1);
	if (!arcs || ((h->matrices & ST_ORDER) && !in->order))
		tool_die("%s: out of memory for %llu arcs", name, (unsigned long long)h->arcs);
	int rc = st_read_matrix(r, arcs, &err);
	if (rc == 0 && in->order)
		rc = st_read_matrix(r, in->order, &err);
	if (rc < 0)
		st_reader_free(r);
	else
		rc = st_reader_close(r, &err);
	if (rc == 0 && st_arcs_check(name, h, arcs, &err) == 0
	    && (!in->order || st_order_check(name, h, in->order, &err) == 0))
		rc = gio_from_arcs(h, arcs, &in->g, &err);
	else
		rc = -1;
	free(arcs);
	if (rc < 0) {
		free(in->order);
		free(in);
		st_header_free(h);
		tool_die_st(NULL, &err);
	}
	h->matrices = ST_WEIGHTS;
	h->arcs = 0;
	return in;
}

engine_in *engine_open(const char *path, int threads, st_header *h)
{
	st_error err;
	const char *name = tool_input_name(path);
	int fd = tool_open_input(path);
	if (graphin_is_text(fd))
		return open_text(fd, path, h);
	st_reader *r = st_reader_open(fd, path, h, threads, &err);
	if (!r)
		tool_die_st(NULL, &err);
	if (text_type && text_type != h->type) {
		const uint32_t type = h->type;
		st_reader_free(r);
		st_header_free(h);
		tool_usage_error("--type: %s is a stream of %s; --type reads a graph as text "
		                 "(mtx2bin -t converts one)", name, st_type_name(type));
	}
	/* The reader is freed before these deaths: clean under LeakSanitizer. */
	if (st_header_is_checkpoint(h)) {
		st_reader_free(r);
		st_header_free(h);
		tool_die("%s: a checkpoint, not a graph: give it to --resume with the run's graph", name);
	}
	if (h->flags & ST_NEGCYCLE) {
		long long v = (long long)h->cycle_vertex;
		st_reader_free(r);
		st_header_free(h);
		tool_die_status(EXIT_NEGCYCLE, "%s: input records a negative cycle through vertex %lld",
		                name, v);
	}
	if (!(h->matrices & (ST_WEIGHTS | ST_ARCS))) {
		st_reader_free(r);
		st_header_free(h);
		tool_die("%s: the stream holds no edge weights (is it already a result?)", name);
	}
	engine_in *in = calloc(1, sizeof *in);
	if (!in)
		tool_die("out of memory");
	if (h->matrices & ST_ARCS)
		return open_arcs(r, name, h, in);
	in->r = r;
	return in;
}

void engine_in_free(engine_in *in)
{
	if (!in)
		return;
	if (in->r)
		st_reader_free(in->r);
	gio_graph_free(&in->g);
	free(in->order);
	free(in);
}

double engine_physical_memory(void)
{
	const char *cap = getenv("APSP_MEMORY");
	if (!cap || !*cap)
		cap = getenv("APSP_HOST_MEMORY");
	if (cap && *cap)
		return strtod(cap, NULL);
	return tool_physical_memory();
}

void engine_check_memory(const char *path, const st_header *h, double bytes)
{
	engine_check_memory_as(path, h, bytes, 2);
}

void engine_check_memory_as(const char *path, const st_header *h, double bytes, int power)
{
	const char *name = tool_input_name(path);
	double have = engine_physical_memory();
	char why[200];
	if (have > 0 && bytes > have)
		tool_die("%s: %s", name, lib_memory_refusal(why, sizeof why, h->n, bytes, have, power));
}

/* r's weights into dst, or a window of rows at a time to w; the rest
 * skipped, the end checked; r freed. */
static int read_stream(st_reader *r, const st_window_work *w, uint64_t rows, void *dst,
                       st_error *err)
{
	for (uint32_t next; (next = st_next_matrix(r));) {
		const int rc = next != ST_WEIGHTS ? st_scan_matrix(r, 1, NULL, err)
		             : w                  ? st_read_windows_beside(r, rows, w, err)
		                                  : st_read_matrix(r, dst, err);
		if (rc < 0) {
			st_reader_free(r);
			return -1;
		}
	}
	return st_reader_close(r, err);
}

int engine_read_weights_as(engine_in *in, void *dst, st_progress_fn *fn, void *ctx,
                           st_error *err)
{
	st_reader *r = in->r;
	if (!r) { /* a graph as text */
		gio_fill_matrix(&in->g, dst, tool_threads());
		if (fn)
			fn(ctx, in->g.npad * in->g.npad * ST_TYPE_SIZE(in->g.type));
		engine_in_free(in);
		return 0;
	}
	free(in);
	st_reader_progress(r, fn, ctx);
	return read_stream(r, NULL, 0, dst, err);
}

int engine_read_weights_rows(engine_in *in, uint64_t rows, st_rows_fn *fn, void *ctx,
                             st_error *err)
{
	st_reader *r = in->r;
	free(in);
	for (uint32_t next; (next = st_next_matrix(r));) {
		const int rc = next != ST_WEIGHTS ? st_scan_matrix(r, 1, NULL, err)
		                                  : st_read_windows(r, rows, fn, ctx, err);
		if (rc < 0) {
			st_reader_free(r);
			return -1;
		}
	}
	return st_reader_close(r, err);
}

int engine_read_weights_windows(engine_in *in, uint64_t rows, const st_window_work *w,
                                st_error *err)
{
	st_reader *r = in->r;
	free(in);
	return read_stream(r, w, rows, NULL, err);
}

void engine_read_weights(engine_in *in, void *dst)
{
	st_error err;
	if (engine_read_weights_as(in, dst, NULL, NULL, &err) < 0)
		tool_die_st(NULL, &err);
}

_Noreturn void engine_negative_cycle(const char *input, int out, st_header *result, int64_t v,
                                     int threads)
{
	st_error err;
	const char *name = tool_input_name(input);
	if (out < 0) /* statistics: no stream to write */
		tool_die_status(EXIT_NEGCYCLE, "%s: the graph has a negative cycle through vertex %lld: "
		                "no statistics", name, (long long)v);
	result->matrices = 0;
	result->rows = 0;
	result->cols = 0;
	result->flags |= ST_NEGCYCLE;
	result->cycle_vertex = v;
	if (st_write_all(out, result, NULL, NULL, NULL, tool_opts.level, threads, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	tool_output_commit();
	tool_die_status(EXIT_NEGCYCLE, "%s: the graph has a negative cycle through vertex %lld", name,
	                (long long)v);
}

void engine_write_result(int out, const st_header *result, sv_plan *plan, void *dist,
                         const int32_t *pred, const uint32_t *src, const uint32_t *dst,
                         int threads)
{
	st_error err;
	sv_finish(plan, dist, threads);
	sv_plan_free(plan);
	if (src) {
		sources_write(out, result, src, dst, dist, pred, threads);
		return;
	}
	if (st_write_all(out, result, NULL, dist, pred, tool_opts.level, threads, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	tool_output_commit();
}

int engine_parse_order(const char *arg)
{
	if (strcmp(arg, "auto") == 0)
		return ORDER_AUTO;
	if (strcmp(arg, "natural") == 0)
		return ORDER_NATURAL;
	if (strcmp(arg, "nd") == 0) {
		if (!ord_available())
			tool_usage_error("--order nd: this build has no METIS (nested dissection); "
			                 "install libmetis-dev and rebuild");
		return ORDER_ND;
	}
	tool_usage_error("--order: '%s' is not nd, natural or auto", arg);
}

int engine_sparse_count(uint64_t n, uint64_t edges)
{
	return edges <= (uint64_t)ND_MAX_DEGREE * n;
}

/* Whether the graph is sparse by the auto rule (counting stops once past
 * it). */
static int graph_sparse(uint64_t n, uint32_t type, const void *w, int threads, double *degree)
{
	const uint64_t limit = (uint64_t)ND_MAX_DEGREE * n;
	uint64_t edges = ord_count_edges(n, type, w, limit, threads);
	*degree = n ? (double)edges / (double)n : 0.0;
	return engine_sparse_count(n, edges);
}

int engine_sparse(uint64_t n, uint32_t type, const void *w, int threads)
{
	double degree;
	return graph_sparse(n, type, w, threads, &degree);
}

int engine_parse_derive(const char *arg)
{
	if (strcmp(arg, "auto") == 0)
		return DERIVE_AUTO;
	if (strcmp(arg, "always") == 0)
		return DERIVE_ALWAYS;
	if (strcmp(arg, "never") == 0)
		return DERIVE_NEVER;
	tool_usage_error("--derive-paths: '%s' is not auto, always or never", arg);
}

/* The auto rule and the caller's choice: 1 for nested dissection, else 0
 * with why the natural order was kept.  is_sparse: -1 where not counted. */
static int wants_nd(int mode, uint64_t n, uint32_t type, int is_sparse, char *why, size_t len)
{
	if (mode == ORDER_NATURAL) {
		snprintf(why, len, "natural order (--order natural)");
		return 0;
	}
	if (mode == ORDER_ND)
		return 1;
	if (!ord_available()) {
		snprintf(why, len, "natural order (built without METIS)");
		return 0;
	}
	if (type != ST_INT32) {
		/* float32 rounding leaves many more predecessor chains to
		 * re-attach in that order.  Since the repair reads only the bad
		 * vertices' edges in, apsp-cpu is faster in it (cryg2500: 0.21
		 * against 0.32 s); apsp-gpu's repair reads columns and is not
		 * measured yet, so the rule stays. */
		snprintf(why, len, "natural order (%s: --order nd to force)", st_type_name(type));
		return 0;
	}
	if (n < ND_MIN_N) {
		snprintf(why, len, "natural order (n < %d)", ND_MIN_N);
		return 0;
	}
	if (is_sparse == 0) {
		snprintf(why, len, "natural order (dense: over %d edges a vertex)", ND_MAX_DEGREE);
		return 0;
	}
	return 1;
}

/* What -v says of an order made in took seconds. */
static void said_nd(int mode, int block, double took, char *why, size_t len)
{
	char aligned[48] = "";
	if (block > 0)
		snprintf(aligned, sizeof aligned, ", halves on blocks of %d", block);
	snprintf(why, len, "nested-dissection order (%s%s, METIS %.3f s)",
	         mode == ORDER_ND ? "--order nd" : "sparse", aligned, took);
}

static int32_t *perm_alloc(uint64_t n)
{
	int32_t *perm = malloc((n ? n : 1) * sizeof *perm);
	if (!perm)
		tool_die("out of memory for the vertex order");
	return perm;
}

int32_t *engine_order(int mode, uint64_t n, uint32_t type, const void *w, int block,
                      int threads, int *sparse, char *why, size_t len)
{
	const double began = lib_now();
	double degree = 0;
	/* Counted once, for the auto rule and the caller's question. */
	int is_sparse = -1;
	if (sparse || (mode == ORDER_AUTO && ord_available() && type == ST_INT32 && n >= ND_MIN_N))
		is_sparse = graph_sparse(n, type, w, threads, &degree);
	if (sparse)
		*sparse = is_sparse;
	if (!wants_nd(mode, n, type, is_sparse, why, len))
		return NULL;
	int32_t *perm = perm_alloc(n);
	st_error err;
	if (ord_nested_dissection(n, type, w, perm, block, threads, &err) < 0) {
		free(perm);
		tool_die("nested dissection: %s", err.msg);
	}
	said_nd(mode, block, lib_now() - began, why, len);
	return perm;
}

int engine_stays_dense(int mode, uint64_t n, uint32_t type, uint64_t edges, char *why,
                       size_t len)
{
	return !engine_sparse_count(n, edges) && !wants_nd(mode, n, type, 0, why, len);
}

int engine_sparse_edges(const gio_graph *g)
{
	return engine_sparse_count(g->n, g->edges);
}

int32_t *engine_order_edges(int mode, const gio_graph *g, int block, int *sparse, char *why,
                            size_t len)
{
	const double began = lib_now();
	const uint64_t n = g->n;
	const int is_sparse = engine_sparse_edges(g);
	if (sparse)
		*sparse = is_sparse;
	if (!wants_nd(mode, n, g->type, is_sparse, why, len))
		return NULL;
	uint32_t *from = malloc((g->nedge ? g->nedge : 1) * sizeof *from);
	uint32_t *to = malloc((g->nedge ? g->nedge : 1) * sizeof *to);
	if (!from || !to)
		tool_die("out of memory for the vertex order");
	for (size_t k = 0; k < g->nedge; k++)
		from[k] = g->edge[k].u, to[k] = g->edge[k].v;
	int32_t *perm = perm_alloc(n);
	st_error err;
	int rc = ord_nested_dissection_arcs(n, g->nedge, from, to, perm, block, &err);
	free(from);
	free(to);
	if (rc < 0) {
		free(perm);
		tool_die("nested dissection: %s", err.msg);
	}
	said_nd(mode, block, lib_now() - began, why, len);
	return perm;
}

void engine_write_stats(FILE *out, const struct stats_form *form, sv_plan *plan, void *dist,
                        uint64_t n, uint32_t type, uint32_t flags, int threads, btw_run *bc)
{
	gs_stats s;
	st_error err;
	sv_finish(plan, dist, threads);
	sv_plan_free(plan);
	if (gs_init(&s, n, type, &err) < 0)
		tool_die_st(NULL, &err);
	gs_add_rows(&s, 0, n, dist, n, threads);
	btw_rows(bc, 0, n, dist, n);
	btw_print(bc, out, &s, form, flags);
	tool_output_commit();
	gs_free(&s);
}

int engine_stats_option(int c, const char *arg, struct stats_form *form, int *stats)
{
	switch (c) {
	case ENGINE_OPT_STATS: *stats = 1; return 1;
	case ENGINE_OPT_BETWEENNESS: form->betweenness = 1; return 1;
	case ENGINE_OPT_NORMALIZED: form->normalized = 1; return 1;
	case ENGINE_OPT_EDGE_BETWEENNESS: form->edge_path = arg; return 1;
	}
	return stats_option(c, arg, form);
}

void engine_stats_help(FILE *f)
{
	fputs("  with --stats:\n", f);
	stats_help(f);
	fputs("      --betweenness   a betweenness column: networkx's betweenness_centrality\n"
	      "                      with weights and normalized=False (raw pair counts);\n"
	      "                      a search a source, weights of 0 or more\n"
	      "      --normalized    over (n-1)(n-2), the arcs' over n(n-1): networkx's\n"
	      "                      default, normalized=True\n"
	      "      --edge-betweenness FILE  each arc's betweenness to FILE, a line an arc\n"
	      "                      (an edge where the graph is undirected)\n", f);
	fputc('\n', f);
}

void engine_check_stats(const struct stats_form *form, int stats)
{
	if (!stats && (form->what != STATS_TABLE || form->json || form->base || form->betweenness
	               || form->normalized || form->edge_path))
		tool_usage_error("--summary, --json, --base, --betweenness, --normalized and "
		                 "--edge-betweenness go with --stats");
	if (form->normalized && !form->betweenness && !form->edge_path)
		tool_usage_error("--normalized goes with --betweenness or --edge-betweenness");
	if (form->betweenness && form->what == STATS_SUMMARY)
		tool_usage_error("--betweenness is a column of the table, not of --summary");
}
