/* graphio.c - the graph readers' driver: detect the format, feed each reader
 * (graphio_mtx.c, graphio_edges.c, graphio_dimacs.c) chunks cut at line ends,
 * and finish the graph.  See graphio.h.
 *
 * The text arrives in chunks cut at line ends, with the last line given a
 * '\n' when the file lacks one, so every scanner may run until it meets a
 * '\n' without checking lengths.  Numbers are scanned by hand: the common
 * case (at most 19 significant digits, a small exponent) is exact in double
 * arithmetic; anything else goes to strtod on a copy of the token.
 *
 * Matrix Market entries go straight into the dense matrix, whose size the
 * size line gives.  Edge lists and DIMACS arcs are kept in a list first,
 * because the vertex count (edge lists) or the element type (both: int32
 * unless a weight is written as a real) is known only at the end. */
#include "graphio_internal.h"
#include "common.h"
#include "stream.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- driver ---- */

int gio_detect(const char *name, const void *head, size_t len)
{
	const char *p = head, *end = p + len;
	while (p < end && (is_blank(*p) || *p == '\n'))
		p++;
	size_t rest = (size_t)(end - p);
	if (rest >= 13 && p[0] == '%' &&
	    (strncasecmp(p + 1, "MatrixMarket", 12) == 0 ||
	     (rest >= 14 && p[1] == '%' && strncasecmp(p + 2, "MatrixMarket", 12) == 0)))
		return GIO_MTX;
	if (name) {
		static const char *const mtx[] = {".mtx", ".mtx.gz", ".mm", ".mm.gz"};
		static const char *const gr[] = {".gr", ".gr.gz", ".dimacs"};
		size_t nl = strlen(name);
		for (size_t k = 0; k < sizeof mtx / sizeof *mtx; k++)
			if (nl >= strlen(mtx[k]) && strcasecmp(name + nl - strlen(mtx[k]), mtx[k]) == 0)
				return GIO_MTX;
		for (size_t k = 0; k < sizeof gr / sizeof *gr; k++)
			if (nl >= strlen(gr[k]) && strcasecmp(name + nl - strlen(gr[k]), gr[k]) == 0)
				return GIO_DIMACS;
	}
	if (rest >= 2 && (p[0] == 'c' || p[0] == 'p') && (is_blank(p[1]) || p[1] == '\n'))
		return GIO_DIMACS;
	return GIO_EDGES;
}

const char *gio_format_name(int format)
{
	switch (format) {
	case GIO_MTX: return "mtx";
	case GIO_DIMACS: return "dimacs";
	case GIO_EDGES: return "edges";
	default: return "auto";
	}
}

int gio_format_parse(const char *s)
{
	if (!strcmp(s, "mtx") || !strcmp(s, "mm"))
		return GIO_MTX;
	if (!strcmp(s, "dimacs") || !strcmp(s, "gr"))
		return GIO_DIMACS;
	if (!strcmp(s, "edges"))
		return GIO_EDGES;
	if (!strcmp(s, "auto"))
		return GIO_AUTO;
	return -1;
}

void gio_opts_init(gio_opts *o)
{
	memset(o, 0, sizeof *o);
	o->pad = 1;
}

void gio_graph_free(gio_graph *g)
{
	free(g->w);
	free(g->edge);
	memset(g, 0, sizeof *g);
}

static int parse_chunk(parser *P, const char *p, const char *end)
{
	switch (P->format) {
	case GIO_MTX: return gp_mm_lines(P, p, end);
	case GIO_DIMACS: return gp_dimacs_lines(P, p, end);
	default: return gp_edge_lines(P, p, end);
	}
}

/* Count the result's edges and negative weights. */
static void summarize(gio_graph *g)
{
	uint64_t edges = 0, npad = g->npad;
	int neg = 0;
	if (!g->w) { /* edges_only: the list, possibly empty */
		for (size_t k = 0; k < g->nedge; k++) {
			edges += g->edge[k].u != g->edge[k].v;
			neg |= g->edge[k].w < 0;
		}
	} else if (g->type == ST_INT32) {
		const int32_t *w = g->w;
		for (uint64_t k = 0; k < npad * npad; k++) {
			edges += w[k] != ST_INF_I32;
			neg |= w[k] < 0;
		}
		edges -= npad;
	} else if (g->type == ST_FLOAT32) {
		const float *w = g->w;
		for (uint64_t k = 0; k < npad * npad; k++) {
			edges += w[k] != INFINITY;
			neg |= w[k] < 0;
		}
		edges -= npad;
	} else {
		const double *w = g->w;
		for (uint64_t k = 0; k < npad * npad; k++) {
			edges += w[k] != INFINITY;
			neg |= w[k] < 0;
		}
		edges -= npad;
	}
	g->edges = edges;
	if (neg)
		g->flags |= ST_NEGATIVE;
}

int gio_read(const char *name, gio_read_fn rd, void *ctx, const gio_opts *o,
             gio_graph *g, st_error *err)
{
	parser P = {.name = name && strcmp(name, "-") ? name : "standard input", .o = o, .g = g, .err = err, .line = 1,
	            .format = o->format, .all_integral = 1};
	size_t cap = CHUNK, have = 0;
	int eof = 0, rc = -1, empty = 1;
	char *buf = malloc(cap + 1);

	memset(g, 0, sizeof *g);
	if (!buf) {
		snprintf(err->msg, sizeof err->msg, "%s: out of memory", P.name);
		return -1;
	}
	while (!eof) {
		ssize_t r = rd(ctx, buf + have, cap - have, err);
		if (r < 0)
			goto out;
		if (r == 0)
			eof = 1;
		else
			empty = 0;
		have += (size_t)r;
		if (P.format == GIO_AUTO) {
			if (have < 4096 && !eof)
				continue;
			P.format = gio_detect(name, buf, have);
		}
		char *last = have ? memrchr(buf, '\n', have) : NULL;
		if (eof && have && buf[have - 1] != '\n') {
			buf[have++] = '\n'; /* a missing final newline */
			last = buf + have - 1;
		}
		if (!last) {
			if (have == cap) {
				if (cap >= MAX_LINE) {
					gp_fail(&P, "line longer than %zu bytes", MAX_LINE);
					goto out;
				}
				char *nb = realloc(buf, cap * 2 + 1);
				if (!nb) {
					gp_fail(&P, "out of memory");
					goto out;
				}
				buf = nb, cap *= 2;
			}
			continue;
		}
		size_t used = (size_t)(last + 1 - buf);
		if (parse_chunk(&P, buf, last + 1) != 0)
			goto out;
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	if (empty) {
		snprintf(err->msg, sizeof err->msg, "%s: empty input", P.name);
		goto out;
	}
	if (P.line > 1)
		P.line--; /* messages at the end name the last line */
	g->format = P.format;
	if (P.format == GIO_MTX ? gp_mm_finish(&P) : gp_list_finish(&P))
		goto out;
	summarize(g);
	rc = 0;
out:
	free(buf);
	free(P.raw);
	if (rc != 0)
		gio_graph_free(g);
	return rc;
}

struct membuf {
	const char *p;
	size_t left;
};

static ssize_t read_mem(void *ctx, void *buf, size_t len, st_error *err)
{
	struct membuf *m = ctx;
	size_t n = len < m->left ? len : m->left;
	memcpy(buf, m->p, n);
	m->p += n, m->left -= n;
	return (ssize_t)n;
}

int gio_read_buffer(const char *name, const void *buf, size_t len, const gio_opts *o,
                    gio_graph *g, st_error *err)
{
	struct membuf m = {buf, len};
	return gio_read(name, read_mem, &m, o, g, err);
}

void gio_fill_matrix(const gio_graph *g, void *w, int threads)
{
	gp_no_edges(g->type, g->npad, w, threads);
	for (size_t e = 0; e < g->nedge; e++)
		gp_store_min(g->type, w, g->edge[e].u * g->npad + g->edge[e].v, g->edge[e].w);
}
