/* betweenness_graph.h - the graph betweenness.c searches (internal to
 * lib/stats): the arcs as lists by tail, repeats merged and loops dropped,
 * the zero arcs ranked, each tail's arcs by length where rows are given. */
#ifndef APSP_BETWEENNESS_GRAPH_H
#define APSP_BETWEENNESS_GRAPH_H

#include <stdint.h>

#include "common.h"

/* The graph as lists of out-arcs (first[v] .. first[v + 1] - 1), repeats
 * merged, loops dropped; w the lengths' type (int64_t or double). */
typedef struct btw_graph {
	uint64_t n, m;
	uint64_t *first;
	uint32_t *to, *from; /* from: each arc's tail */
	void *w;
	uint32_t *rank;      /* a topological order of the zero arcs */
	uint64_t *pos;       /* each arc's place by tail then head (the arcs are by tail, then length) */
	int exact;           /* int64_t lengths */
	int zeros;           /* some arc is of length 0 */
	struct btw_arc { uint32_t to; int32_t w; } *packed; /* exact: head and weight together */
	/* btw_graph_groups: each vertex's in-arcs (tail and length, by length)
	 * and out-arcs (as packed) in groups of BTW_GROUP, v's first group at
	 * v x BTW_GROUP, the others from in_more[v] (out_more[v]) to
	 * in_more[v + 1], the last filled out with arcs that are never tight
	 * (the vertex itself, INT32_MAX long); each out slot's arc in out_arc
	 * (UINT64_MAX for the filling). */
	struct btw_arc *in, *out;
	uint64_t *in_more, *out_more, *out_arc;
} btw_graph;

#define BTW_GROUP 4

/* g from count arcs (from, to, w of type): each tail's arcs by head,
 * repeats keeping the least.  0, or -1 with err (out of memory). */
int btw_graph_of_arcs(btw_graph *g, uint64_t n, uint32_t type, uint64_t count,
                      const uint32_t *from, const uint32_t *to, const void *w, st_error *err);
/* g from an n x n matrix of weights of type (row stride stride), its
 * finite entries off the diagonal.  0, or -1 with err. */
int btw_graph_of_matrix(btw_graph *g, uint64_t n, uint32_t type, const void *wm,
                        uint64_t stride, int threads, st_error *err);
/* The ranks: a topological order of the zero arcs.  0; 1 with a negative
 * arc in bad; 2 with an arc of a zero cycle in bad; -1 out of memory. */
int btw_graph_rank(btw_graph *g, uint32_t bad[2], st_error *err);
/* Each tail's arcs by length (then head), packed with their heads (exact
 * lengths), pos keeping their order by head.  0, or -1 with err. */
int btw_graph_by_length(btw_graph *g, int threads, st_error *err);
/* The in-arcs and out-arcs in groups (above), from the arcs by length.
 * 0, or -1 with err (out of memory). */
int btw_graph_groups(btw_graph *g, st_error *err);
void btw_graph_free(btw_graph *g);

#endif
