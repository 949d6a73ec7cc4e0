/* certify.h - a proof that a result's distances are the shortest of its graph.
 * Public: installed as <apsp/certify.h> with libapsp (make install; pkg-config apsp).
 *
 * On a graph without negative cycles, the distances d(s, .) of a source s
 * are exactly the shortest when
 *   1. d(s, s) = 0;
 *   2. every arc u -> v of weight w whose d(s, u) is finite has
 *      d(s, v) <= d(s, u) + w (no arc leads anywhere more cheaply than the
 *      distances say; an arc into an unreachable vertex from a reached one
 *      fails), so that no path is shorter than d;
 *   3. every finite d(s, v) is the weight of a path from s: with
 *      predecessors, pred(s, s) = -1, pred(s, v) = -1 exactly where d(s, v)
 *      is infinite, and else pred(s, v) = u names an arc u -> v with
 *      d(s, u) + w = d(s, v) whose chain of predecessors reaches s without
 *      a loop; without them, v is reached from s along such arcs ("tight"
 *      ones), which a breadth-first search from s finds.
 * Conditions 1 and 2 make d a lower bound of every path's weight, 3 an
 * upper one.  int32 is checked exactly; float32 and float64 within tol:
 * x = y when |x - y| <= tol * max(1, |d(s, v)|, |d(s, u)| + |w|), since
 * the engines add in other orders (about 1e-5 for float32, 1e-12 for
 * float64).  O(m) a row, O(n) memory a thread beside the graph's arcs.
 * Nothing here prints or exits. */
#ifndef APSP_CERTIFY_H
#define APSP_CERTIFY_H

#include <stdint.h>

#include "types.h"

/* A graph's arcs out of each vertex, sorted by head, each pair once at
 * its least weight, non-negative loops left out (they never matter). */
typedef struct ce_graph ce_graph;

/* From count arcs tail[k] -> head[k] of weights w (type's elements; int32
 * ST_INF_I32 or beyond and float infinities are no arc), every vertex
 * below n.  NULL with err set (out of memory, a vertex out of range, a
 * negative loop: a negative cycle, which has no shortest distances). */
ce_graph *ce_graph_new(uint64_t n, uint32_t type, uint64_t count, const uint32_t *tail,
                       const uint32_t *head, const void *w, st_error *err);
/* From an n x n weight matrix of row stride npad (a stream's ST_WEIGHTS). */
ce_graph *ce_graph_from_matrix(uint64_t n, uint64_t npad, uint32_t type, const void *w,
                               st_error *err);
uint64_t ce_graph_arcs(const ce_graph *g);
void ce_graph_free(ce_graph *g);

/* Which condition a row broke. */
enum ce_fault_kind {
	CE_DIAGONAL = 1,   /* d(s, s) != 0, or pred(s, s) != -1 */
	CE_SHORTER,        /* arc u -> v with d(s, u) + w < d(s, v): d is not shortest */
	CE_PRED_NONE,      /* pred(s, v) = -1 where d(s, v) is finite, or set where infinite */
	CE_PRED_RANGE,     /* pred(s, v) is no vertex */
	CE_PRED_NOT_ARC,   /* pred(s, v) = u but the graph has no arc u -> v */
	CE_PRED_NOT_TIGHT, /* d(s, u) + w(u, v) != d(s, v) */
	CE_PRED_LOOP,      /* the chain from v loops without reaching s */
	CE_UNREACHED,      /* finite d(s, v) that no path of its weight reaches */
};

/* The first fault found: row index and source, the vertex v and, where an
 * arc is concerned, its tail u and weight; d(s, v), and d(s, u) + w (or
 * NAN); what, a sentence that says it all ("d(3, 39) = 90, but the arc
 * 12 -> 39 of weight 4 gives 22"). */
typedef struct ce_fault {
	int kind; /* enum ce_fault_kind; 0: none */
	uint64_t row, source, vertex;
	int64_t tail; /* -1: no arc concerned */
	double weight, dist, via;
	char what[200];
} ce_fault;

/* Check count rows of distances (type's elements, stride entries apart;
 * row i is source src[i], or first + i where src is NULL) and, where pred
 * is not NULL, their predecessors (same stride).  Returns how many rows
 * fail (fault: the lowest such row's first fault), or -1 with err set (out
 * of memory).  threads <= 0: every core. */
int64_t ce_check_rows(const ce_graph *g, uint32_t type, const uint32_t *src, uint64_t first,
                      uint64_t count, const void *dist, const int32_t *pred, uint64_t stride,
                      double tol, int threads, ce_fault *fault, st_error *err);

#endif
