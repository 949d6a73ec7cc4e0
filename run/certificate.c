/* certificate.c - a result's certificate as the tools give it (see certificate.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "certificate.h"
#include "common.h"
#include "graphin.h"
#include "tool.h"

double certify_tolerance(uint32_t type)
{
	return type == ST_FLOAT64 ? 1e-12 : 1e-5;
}

/* The certificate's memory, told from n and the arcs before any is taken:
 * the lists (first 8 bytes a vertex, 12 an arc) and each thread's room (5
 * bytes a vertex). */
static void check_memory(const char *name, uint64_t n, uint64_t arcs, int threads)
{
	const double need = (double)n * (8.0 + 5.0 * (threads > 0 ? threads : 1))
	                    + (double)arcs * 28.0;
	char why[200];
	if (tool_memory_refusal(why, sizeof why, n, need, 1))
		tool_die("%s: %s", name, why);
}

static ce_graph *from_edges(const gio_graph *g, const char *name)
{
	st_error err;
	check_memory(name, g->n, g->nedge, tool_threads());
	const size_t m = g->nedge;
	uint32_t *tail = malloc((m ? m : 1) * sizeof *tail), *head = malloc((m ? m : 1) * sizeof *head);
	double *w = malloc((m ? m : 1) * sizeof *w);
	if (!tail || !head || !w)
		tool_die("%s: out of memory for the graph's %zu arcs", name, m);
	for (size_t k = 0; k < m; k++)
		tail[k] = g->edge[k].u, head[k] = g->edge[k].v, w[k] = g->edge[k].w;
	ce_graph *c = ce_graph_new(g->n, ST_FLOAT64, m, tail, head, w, &err);
	free(tail), free(head), free(w);
	if (!c)
		tool_die("%s: %s", name, err.msg);
	return c;
}

ce_graph *certify_graph(const char *path, int threads, uint64_t *n)
{
	st_error err;
	ce_graph *c;
	tool_refuse_terminal_input(path);
	int fd = tool_open_input(path);
	const char *name = tool_input_name(path);
	if (graphin_is_text(fd)) {
		gio_opts o;
		gio_graph g;
		char *label;
		gio_opts_init(&o);
		o.edges_only = 1;
		graphin_read(fd, path, NULL, &o, &g, &label);
		free(label);
		*n = g.n;
		c = from_edges(&g, name);
		gio_graph_free(&g);
	} else {
		st_matrices m;
		if (st_read_all(fd, name, threads, &m, &err) < 0)
			tool_die_st(NULL, &err);
		*n = m.h.n;
		if (m.arcs) {
			gio_graph g;
			if (gio_from_arcs(&m.h, m.arcs, &g, &err) < 0)
				tool_die_st(NULL, &err);
			c = from_edges(&g, name);
			gio_graph_free(&g);
		} else if (m.weights) {
			check_memory(name, m.h.n, 0, threads);
			if (!(c = ce_graph_from_matrix(m.h.n, m.h.npad, m.h.type, m.weights, &err)))
				tool_die("%s: %s", name, err.msg);
		} else {
			tool_die("%s: the stream holds no edge weights", name);
		}
		st_matrices_free(&m);
	}
	if (fd != 0)
		close(fd);
	return c;
}

/* Say the first fault (rows from row_base on), count what fails. */
static void say_fault(const char *name, const ce_fault *f, FILE *report)
{
	if (tool_opts.verbose > 0)
		fprintf(report, "%s: not shortest: %s\n", name, f->what);
}

static void say_count(const char *name, uint64_t rows, uint64_t n, uint64_t bad, FILE *report)
{
	if (tool_opts.verbose > 0)
		fprintf(report, "%s: %llu row%s of %llu vertices certified against the graph, %llu "
		        "fail\n", name, (unsigned long long)rows, rows == 1 ? "" : "s",
		        (unsigned long long)n, (unsigned long long)bad);
}

/* A table is refused: the proof needs each source's distance to every
 * vertex. */
static void refuse_table(const char *name, const st_header *h)
{
	if (h->matrices & ST_TARGETS)
		tool_die("%s: " ST_TABLE_REFUSAL ": it cannot be certified (the proof needs each "
		         "source's distance to every vertex): certify its rows, --sources without "
		         "--targets", name);
}

uint64_t certify_rows(const ce_graph *g, const char *name, const st_matrices *m, double tol,
                      int threads, FILE *report)
{
	st_error err;
	ce_fault f;
	const st_header *h = &m->h;
	refuse_table(name, h);
	const uint64_t rows = m->sources ? h->rows : h->n;
	int64_t bad = ce_check_rows(g, h->type, m->sources, 0, rows, m->dist, m->pred, h->npad,
	                            tol, threads, &f, &err);
	if (bad < 0)
		tool_die("%s: %s", name, err.msg);
	if (bad)
		say_fault(name, &f, report);
	say_count(name, rows, h->n, (uint64_t)bad, report);
	return (uint64_t)bad;
}

/* A window of rows against the graph: with predecessors, the rows of the
 * distances held whole beside them. */
struct windows {
	const ce_graph *g;
	const st_header *h;
	const uint32_t *sources;
	const void *dist; /* with predecessors: every row */
	int pred;
	double tol;
	int threads;
	uint64_t bad;
	ce_fault first;
	st_error err;
};

static int check_window(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct windows *w = ctx;
	const st_header *h = w->h;
	const uint64_t row_bytes = h->npad * ST_TYPE_SIZE(h->type);
	const void *dist = w->pred ? (const char *)w->dist + first * row_bytes : data;
	ce_fault f;
	const uint64_t rows = w->sources ? h->rows : h->n;
	if (first >= rows)
		return 0;
	if (first + count > rows)
		count = rows - first;
	int64_t bad = ce_check_rows(w->g, h->type, w->sources ? w->sources + first : NULL, first,
	                            count, dist, w->pred ? data : NULL, h->npad, w->tol,
	                            w->threads, &f, &w->err);
	if (bad < 0)
		return -1;
	if (bad && !w->bad)
		f.row += first, w->first = f;
	w->bad += (uint64_t)bad;
	return 0;
}

uint64_t certify_stream(const ce_graph *g, uint64_t n, int fd, const char *name, double tol,
                        int threads, FILE *report)
{
	st_error err;
	st_header h;
	st_reader *r = st_reader_open(fd, name, &h, threads, &err);
	if (!r)
		tool_die_st(NULL, &err);
	tool_refuse_checkpoint(name, r, &h);
	if (h.flags & ST_NEGCYCLE)
		tool_die_status(EXIT_NEGCYCLE, "%s: the graph has a negative cycle through vertex %lld",
		                name, (long long)h.cycle_vertex);
	if (!(h.matrices & ST_DIST))
		tool_die("%s: the stream holds no distances", name);
	refuse_table(name, &h);
	if (h.n != n)
		tool_die("%s has %llu vertices, the graph %llu", name, (unsigned long long)h.n,
		         (unsigned long long)n);
	if (tol < 0)
		tol = certify_tolerance(h.type);
	struct windows w = {g, &h, NULL, NULL, !!(h.matrices & ST_PRED), tol, threads, 0, {0}, {{0}}};
	uint32_t *sources = NULL;
	void *dist = NULL;
	for (uint32_t next; (next = st_next_matrix(r)) != 0;) {
		int rc = 0;
		if (next == ST_SOURCES) {
			if (!(sources = malloc((h.rows ? h.rows : 1) * sizeof *sources)))
				tool_die("%s: out of memory for its sources", name);
			rc = st_read_matrix(r, sources, &err);
			w.sources = sources;
		} else if (next == ST_DIST && w.pred) {
			const uint64_t bytes = st_matrix_bytes_of(&h, ST_DIST);
			if (!(dist = malloc(bytes ? bytes : 1)))
				tool_die("%s: out of memory for its distances (%llu bytes), which its "
				         "predecessors are checked against", name, (unsigned long long)bytes);
			rc = st_read_matrix(r, dist, &err);
			w.dist = dist;
		} else if (next == ST_DIST || next == ST_PRED) {
			rc = st_read_windows(r, 64, check_window, &w, &err);
			if (rc < 0 && w.err.msg[0])
				tool_die("%s: %s", name, w.err.msg);
		} else {
			rc = st_skip_matrix(r, &err);
		}
		if (rc < 0)
			tool_die_st(NULL, &err);
	}
	if (st_reader_close(r, &err) < 0)
		tool_die_st(NULL, &err);
	if (w.bad)
		say_fault(name, &w.first, report);
	say_count(name, sources ? h.rows : h.n, h.n, w.bad, report);
	free(sources), free(dist);
	st_header_free(&h);
	return w.bad;
}
