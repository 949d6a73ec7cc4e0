/* elim.h - all pairs of a sparse graph by elimination over (min, +)
 * (prefix el_): the sparse engine.
 *
 * The vertices are eliminated in a fill-reducing order (nested dissection:
 * lib/prepare/order.h).  Eliminating vertex p joins every two of its
 * neighbours above it, a -> p -> b becoming the arc a -> b where that is
 * shorter; what is kept is the factor: for each position p, its upper
 * neighbours (they form a clique among themselves) and the weights of the
 * arcs between p and each of them, both ways.  Its size is the elimination's
 * fill, about n log n for a planar graph, not n x n.
 *
 * Every shortest path then has a twin in the factor that climbs in the order
 * and then descends, so the distances from a source are two sweeps: up
 * through its ancestors in the elimination tree, then down through every
 * position.  el_rows() runs them for a batch of sources at once, their
 * distances side by side, so that each arc of the factor relaxes a whole
 * batch.  Negative arcs are allowed; a negative cycle is found while
 * eliminating.  Internal to the toolkit (not installed; gs_add_arcs in
 * stats.h is its public face).  Nothing here prints or exits.
 */
#ifndef APSP_ELIM_H
#define APSP_ELIM_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"
#include "types.h"

/* Sources a batch of el_rows() holds side by side. */
#define EL_BATCH 16

typedef struct el_factor {
	uint64_t n;
	uint32_t type;      /* enum st_type: the weights' and distances' */
	int32_t *perm;      /* position -> vertex */
	int32_t *pos;       /* vertex -> position */
	uint64_t *first;    /* n + 1: position p's upper neighbours are upper[first[p] .. first[p + 1]) */
	int32_t *upper;     /* positions, ascending within each p */
	void *up, *down;    /* per entry k of p: w(p -> upper[k]) and w(upper[k] -> p), the type's */
	int32_t *parent;    /* the elimination tree: the least upper neighbour, or -1 */
	uint64_t widest;    /* the most upper neighbours of one position */
} el_factor;

/* The factor's structure for the graph of arcs from[k] -> to[k] (count of
 * them; vertices 0 .. n - 1; loops and repeats allowed), eliminated in
 * order perm (position -> vertex; NULL: as numbered): *f made, without
 * weights yet.  0, or -1 with err set (out of memory). */
int el_factor_plan(uint64_t n, uint64_t count, const uint32_t *from, const uint32_t *to,
                   const int32_t *perm, el_factor **f, st_error *err);
/* The elimination itself, the same arcs of weight w[k] (type's elements):
 * repeats keep the least weight; a loop of negative weight is a negative
 * cycle, any other loop is ignored.  Returns 0; 1 where there is a
 * negative cycle (*cycle_vertex is on it); -1 with err set (out of memory;
 * int32 weights whose paths could reach ST_INF_I32, as sv_prepare says). */
int el_factor_weigh(el_factor *f, uint32_t type, uint64_t count, const uint32_t *from,
                    const uint32_t *to, const void *w, int64_t *cycle_vertex, st_error *err);
void el_factor_free(el_factor *f);

/* Entries of the factor (arcs both ways count once), and its bytes. */
uint64_t el_factor_entries(const el_factor *f);
uint64_t el_factor_bytes(const el_factor *f);

/* Work space for el_rows() on one thread: n x EL_BATCH distances and a
 * mark a position.  NULL when out of memory. */
typedef struct el_space el_space;
el_space *el_space_new(const el_factor *f);
void el_space_free(el_space *s);

/* The distances from sources src[0 .. count - 1] (count <= EL_BATCH) to
 * every vertex, as numbered: row i at rows + i * stride (elements of the
 * type; INF or +inf where unreachable, 0 on the diagonal).  *relaxations
 * (when not NULL) grows by the relaxations made, a lane each. */
void el_rows(const el_factor *f, el_space *s, const uint32_t *src, int count, void *rows,
             uint64_t stride, uint64_t *relaxations);

/* ---- whole runs (batches.c) ---- */

/* Rows first .. first + count - 1 of the distances (n each, stride n, the
 * type's elements), valid during the call: 0, or non-zero to stop. */
typedef int el_rows_fn(void *ctx, uint64_t first, uint64_t count, const void *rows);
/* Which rows a run makes and which of their entries it hands on: the rows
 * of sources src[0 .. sources - 1] in the list's order (src NULL: every
 * vertex's, in order), each with its entries of columns dst[0 .. cols - 1]
 * in the list's order (dst NULL: all n; a table's targets). */
typedef struct el_rowset {
	const uint32_t *src;
	uint64_t sources;
	const uint32_t *dst;
	uint64_t cols;
} el_rowset;
/* Every row, in order (src NULL), or the rows of sources src[0 .. sources -
 * 1] in the list's order (row i: source src[i]), a group of batches at a
 * time made on threads (<= 0: all cores) and handed to fn; *relaxations
 * (when not NULL) grows as in el_rows().  0, or -1 with err set (out of
 * memory; fn stopped). */
int el_all_rows(const el_factor *f, const uint32_t *src, uint64_t sources, int threads,
                el_rows_fn *fn, void *ctx, uint64_t *relaxations, st_error *err);
/* Every row folded into s (gs_init'ed for f's n and type), in order: the
 * figures apsp-stats gives for the same distances. */
int el_fold_stats(const el_factor *f, gs_stats *s, int threads, st_error *err);
/* The factor in one call (el_factor_plan, el_factor_weigh), its order
 * nested dissection where nd is set and the library has it (else as
 * numbered; ord_split_dissection_arcs on threads).  Returns 0 with *f made; 1 on a negative cycle
 * (*cycle_vertex); 2 where most > 0 and the fill would exceed most entries
 * (*f NULL: the dense engine does better); -1 with err set. */
int el_factor_make(uint64_t n, uint32_t type, uint64_t count, const uint32_t *from,
                   const uint32_t *to, const void *w, int nd, int threads, uint64_t most,
                   el_factor **f, int64_t *cycle_vertex, st_error *err);

/* ---- predecessors (preds.c) ---- */

/* The graph's arcs as lists out of and into each vertex. */
typedef struct el_arcs el_arcs;
el_arcs *el_arcs_new(uint64_t n, uint32_t type, uint64_t count, const uint32_t *from,
                     const uint32_t *to, const void *w);
void el_arcs_free(el_arcs *a);
/* The predecessors of rows first .. first + count - 1 (n each, stride n;
 * their sources first + i, or src[first + i] where src is not NULL) from
 * their distances: each vertex takes its in-arc whose d(u) + w(u, v)
 * comes closest to d(v); where those close loops (zero and negative arcs
 * tied, float rounding), the vertices left out join the tree one at a
 * time by the closest arc from it of all (Prim's order), so every chain
 * ends at the source along arcs as tight as the distances allow.  -1 for
 * the source and where unreachable.
 * 0, or -1 with err set (out of memory). */
int el_derive_preds(const el_arcs *a, const uint32_t *src, uint64_t first, uint64_t count,
                    const void *rows, int32_t *pred, int threads, st_error *err);

/* Few rows of a graph without negative arcs, searched rather than
 * eliminated: at most this many sources. */
#define EL_SEARCH_MOST 64
/* 1 where none of the count weights w (type's elements) is below 0. */
int el_no_negative_arc(uint32_t type, uint64_t count, const void *w);
/* The rows of sources src[0 .. sources - 1] (each below n) of the graph of
 * count arcs from[k] -> to[k] of weight w[k] (none negative; loops
 * ignored, the least of repeats) by Dijkstra's algorithm, a source a
 * thread at a time: row i (n entries of type, ST_INF_I32 or +inf where
 * unreachable) at rows + i * n; their predecessors are derived as every
 * row's are (el_derive_preds).  *relaxations (where not NULL) grows by the
 * arcs relaxed.  0, or -1 with err set (out of memory; int32 distances
 * that would reach ST_INF_I32). */
int el_search_rows(uint64_t n, uint32_t type, uint64_t count, const uint32_t *from,
                   const uint32_t *to, const void *w, const uint32_t *src, uint64_t sources,
                   void *rows, int threads, uint64_t *relaxations, st_error *err);

#endif
