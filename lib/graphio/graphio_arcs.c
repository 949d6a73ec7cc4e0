/* graphio_arcs.c - a graph's edges as a stream's list of arcs (ST_ARCS in
 * stream.h), and a list of arcs as a graph's edges: the binary form of a
 * sparse graph, which never makes the n x n matrix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "graphio.h"

/* The edges sorted by (u, v), stably, by a radix sort of the key
 * u * 2^B + v (B the bits of n - 1) in 16-bit digits, least first: as many
 * passes as the key's bits need, each O(edges).  0, or -1 (out of memory). */
static int sort_by_pair(gio_edge *e, size_t count, uint64_t n)
{
	unsigned bits = 1;
	while (bits < 32 && (n - 1) >> bits)
		bits++;
	const unsigned key_bits = 2 * bits, passes = (key_bits + 15) / 16;
	gio_edge *tmp = malloc((count ? count : 1) * sizeof *tmp);
	uint64_t *at = malloc(65536 * sizeof *at);
	if (!tmp || !at) {
		free(tmp), free(at);
		return -1;
	}
	gio_edge *from = e, *to = tmp;
	for (unsigned p = 0; p < passes; p++) {
		const unsigned shift = 16 * p;
		memset(at, 0, 65536 * sizeof *at);
		for (size_t k = 0; k < count; k++)
			at[((((uint64_t)from[k].u << bits) | from[k].v) >> shift) & 0xffff]++;
		uint64_t sum = 0;
		for (unsigned d = 0; d < 65536; d++) {
			const uint64_t c = at[d];
			at[d] = sum, sum += c;
		}
		for (size_t k = 0; k < count; k++)
			to[at[((((uint64_t)from[k].u << bits) | from[k].v) >> shift) & 0xffff]++] = from[k];
		gio_edge *t = from;
		from = to, to = t;
	}
	if (from != e)
		memcpy(e, from, count * sizeof *e);
	free(tmp), free(at);
	return 0;
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
	if (sort_by_pair(e, g->nedge, g->n ? g->n : 1) < 0) {
		free(e), free(out);
		lib_fail(err, "out of memory to sort %zu arcs", g->nedge);
		return NULL;
	}
	uint64_t m = 0;
	for (size_t k = 0; k < g->nedge;) {
		/* each pair once, at its least weight */
		size_t j = k + 1;
		double w = e[k].w;
		for (; j < g->nedge && e[j].u == e[k].u && e[j].v == e[k].v; j++)
			if (e[j].w < w)
				w = e[j].w;
		if (e[k].u != e[k].v || w < 0)
			put_arc(out + m++ * rec, g->type, e[k].u, e[k].v, w);
		k = j;
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
