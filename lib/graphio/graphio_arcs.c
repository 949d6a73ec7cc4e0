/* graphio_arcs.c - a graph's edges as a stream's list of arcs (ST_ARCS in
 * stream.h), and a list of arcs as a graph's edges: the binary form of a
 * sparse graph, which never makes the n x n matrix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "graphio.h"

static int by_pair_then_weight(const void *a, const void *b)
{
	const gio_edge *x = a, *y = b;
	if (x->u != y->u)
		return x->u < y->u ? -1 : 1;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->w < y->w ? -1 : x->w > y->w;
}

/* Record k of a list of type: tail, head, weight. */
static void put_arc(unsigned char *p, uint32_t type, uint32_t u, uint32_t v, double w)
{
	memcpy(p, &u, 4);
	memcpy(p + 4, &v, 4);
	if (type == ST_INT32) {
		const int32_t x = (int32_t)w;
		memcpy(p + 8, &x, 4);
	} else if (type == ST_FLOAT32) {
		const float x = (float)w;
		memcpy(p + 8, &x, 4);
	} else {
		memcpy(p + 8, &w, 8);
	}
}

void *gio_arcs(const gio_graph *g, uint64_t *count, st_error *err)
{
	gio_edge *e = malloc((g->nedge ? g->nedge : 1) * sizeof *e);
	const size_t rec = ST_ARC_BYTES(g->type);
	unsigned char *out = malloc((g->nedge ? g->nedge : 1) * rec);
	if (!e || !out) {
		free(e);
		free(out);
		lib_fail(err, "out of memory for %zu arcs", g->nedge);
		return NULL;
	}
	if (g->nedge) /* (no edges: g->edge may be NULL) */
		memcpy(e, g->edge, g->nedge * sizeof *e);
	qsort(e, g->nedge, sizeof *e, by_pair_then_weight);
	uint64_t m = 0;
	for (size_t k = 0; k < g->nedge; k++) {
		/* each pair once, at its least weight (the first after sorting) */
		if (k && e[k].u == e[k - 1].u && e[k].v == e[k - 1].v)
			continue;
		if (e[k].u == e[k].v && !(e[k].w < 0))
			continue;
		put_arc(out + m++ * rec, g->type, e[k].u, e[k].v, e[k].w);
	}
	free(e);
	*count = m;
	return out;
}

int gio_from_arcs(const st_header *h, const void *arcs, gio_graph *g, st_error *err)
{
	memset(g, 0, sizeof *g);
	g->edge = malloc((h->arcs ? h->arcs : 1) * sizeof *g->edge);
	if (!g->edge)
		return lib_fail(err, "out of memory for %llu arcs", (unsigned long long)h->arcs);
	g->n = h->n;
	g->npad = h->npad;
	g->type = h->type;
	g->flags = h->flags & (ST_DIRECTED | ST_NEGATIVE);
	g->format = GIO_AUTO;
	snprintf(g->kind, sizeof g->kind, "arcs");
	const unsigned char *p = arcs;
	const size_t rec = ST_ARC_BYTES(h->type);
	for (uint64_t k = 0; k < h->arcs; k++, p += rec) {
		gio_edge *e = &g->edge[k];
		memcpy(&e->u, p, 4);
		memcpy(&e->v, p + 4, 4);
		if (h->type == ST_INT32) {
			int32_t x;
			memcpy(&x, p + 8, 4);
			e->w = x;
		} else if (h->type == ST_FLOAT32) {
			float x;
			memcpy(&x, p + 8, 4);
			e->w = x;
		} else {
			memcpy(&e->w, p + 8, 8);
		}
		g->negative += e->w < 0;
		g->edges += e->u != e->v;
	}
	g->entries = h->arcs;
	g->nedge = (size_t)h->arcs;
	return 0;
}
