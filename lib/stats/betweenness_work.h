/* betweenness_work.h - a thread's room for the sources of betweenness.c
 * (internal to lib/stats), and the two ways a source is summed in it:
 * searched (betweenness_search.c) or from its row of distances
 * (betweenness_rows.c), its dependencies added to vertex[] (and to arc[],
 * by the arcs' places in the graph, where not NULL). */
#ifndef APSP_BETWEENNESS_WORK_H
#define APSP_BETWEENNESS_WORK_H

#include <stdint.h>

#include "betweenness_graph.h"

/* Rows given, the sums are pulled (betweenness_rows.c) where no arc is of
 * length 0 and the mean out-degree is at most this: in denser graphs the
 * tight arcs' lists test fewer arcs (random graphs of n = 2000 on 2 cores:
 * pulled, 14% less time at 10 arcs a vertex, 7% at 160, 3% more at 300,
 * 40% more at 800). */
#define BTW_PULL_DEGREE 128

/* A thread's room for a source. */
typedef struct btw_work {
	void *dist;
	double *sig_m, *delta;
	int32_t *sig_e;     /* path counts: sig_m x 2^sig_e */
	uint8_t *done;
	uint32_t *order;
	int64_t *head;      /* each vertex's first tight in-arc in link, or -1 */
	uint64_t *link;     /* pairs: the arc, the next one's index */
	uint64_t links, link_cap;
	void *heap;
	uint64_t heap_len, heap_cap;
	int failed;
	uint64_t *tfirst;   /* rows given: each vertex's tight out-arcs, tarc and their heads tu */
	uint64_t *tarc;
	uint32_t *tu;
	uint32_t *succ;     /* the tight arcs' heads again, in the vertices' order, */
	uint64_t *succ_arc; /* ... their arcs, */
	uint64_t *sfirst;   /* ... where each place in the order begins */
	uint64_t tarc_cap;
	struct btw_vx {     /* rows given: each vertex's count (sig x 2^e), */
		double sig;     /* ... the count's coefficient in its place once summed back */
		int32_t e;
	} *vx;
	uint32_t *indeg;    /* ... and its tight in-arcs not yet passed */
	struct btw_rec {    /* rows given, no zero arcs: each vertex's count, */
		double x;       /* ... its coefficient once summed back, */
		int32_t d, pad; /* ... and its distance beside them; */
	} *rec;
	uint32_t *by_distance; /* ... the vertices reached, in order of distance */
	uint32_t *bucket, *sort_tmp; /* ... (the sort's room) */
} btw_work;

/* Source s searched (Dijkstra's algorithm, in g's type of lengths).  0, or
 * -1 out of memory. */
int btw_source_searched(const btw_graph *g, btw_work *k, uint32_t s, double *vertex, double *arc);
/* Sources s0 .. s1 - 1 from their rows of int32 distances (stride entries
 * apart), pulled where g has its arcs in groups, else along their tight
 * arcs.  0, or -1 out of memory. */
int btw_sources_from_rows(const btw_graph *g, btw_work *k, uint32_t s0, uint32_t s1,
                          const int32_t *rows, uint64_t stride, double *vertex, double *arc);
/* The entries of k->bucket for n vertices. */
uint64_t btw_row_buckets(uint64_t n);

#endif
