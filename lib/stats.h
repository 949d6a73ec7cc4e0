/* stats.h - graph statistics from all-pairs distances, row by row.
 * Public: installed as <apsp/stats.h> with libapsp (make install; pkg-config apsp).
 *
 * For each vertex u, with d(u,v) the distance from u to v (n x n, INF or
 * +inf where v is unreachable):
 *   reach[GS_OUT][u]  the v != u with d(u,v) finite; reach[GS_IN][u] the v != u
 *                     with d(v,u) finite;
 *   sum[..][u]        the sum of those finite distances (int64_t, exact, for
 *                     int32 graphs; double for float32 and float64);
 *   ecc[..][u]        the largest of them and 0 (u itself): int32_t, float or
 *                     double;
 *   harmonic[u]       the sum of 1 / d(v,u) over v with d(v,u) finite, not 0.
 * closeness is networkx's closeness_centrality (Wasserman and Faust, on
 * incoming distances).  Rows may be added in any grouping; added in the
 * same order (as a stream is read) the floating sums are the same bits
 * whatever the thread count.  Nothing here prints or exits.
 */
#ifndef APSP_STATS_H
#define APSP_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

enum { GS_OUT = 0, GS_IN = 1 };

typedef struct gs_stats {
	uint64_t n;
	uint32_t type;       /* enum st_type: the distances' element type */
	uint64_t *reach[2];
	void *sum[2];        /* int64_t (ST_INT32) or double, n each */
	void *ecc[2];        /* int32_t, float or double (the distances' type), n each */
	double *harmonic;
} gs_stats;

/* The graph-wide figures: pairs, the sum of out_reach; diameter and radius,
 * the largest and smallest out-eccentricity; wiener, the sum of every finite
 * distance between distinct vertices; average, wiener / pairs (0 without
 * pairs).  For int32 graphs the integers are also exact in the _i fields
 * (wiener_i only where wiener_exact: it fits in 64 bits). */
typedef struct gs_summary {
	uint64_t n, pairs;
	double diameter, radius, wiener, average;
	int64_t diameter_i, radius_i, wiener_i;
	int wiener_exact;
} gs_summary;

/* The bytes gs_init takes for n vertices of type. */
double gs_bytes(uint64_t n, uint32_t type);
/* Zeroed accumulators for n vertices of type.  0 or -1 (out of memory). */
int gs_init(gs_stats *s, uint64_t n, uint32_t type, st_error *err);
void gs_free(gs_stats *s);

/* Rows first .. first + rows - 1 of the distances (row k at d + k * stride
 * entries, n entries each), on threads (<= 0: all cores). */
void gs_add_rows(gs_stats *s, uint64_t first, uint64_t rows, const void *d, uint64_t stride,
                 int threads);

/* The same rows in pieces, for a caller that runs them on threads of its
 * own (the stream's reader, beside the next rows' inflation):
 * gs_batch_begin() says how many pieces; gs_batch_piece(b, i) for each i
 * below that, in any order, on any threads, at once; then gs_batch_end(b)
 * once all have run, which frees what begin took.  d stays in place until
 * then.  The same figures, the same bits, as gs_add_rows(). */
typedef struct gs_batch {
	gs_stats *s;
	uint64_t first, rows, stride;
	const void *d;
	uint64_t row_pieces; /* the first pieces fold rows, the others columns */
	void *part;          /* int32: the rows' shares from each strip of columns */
} gs_batch;
uint64_t gs_batch_begin(gs_batch *b, gs_stats *s, uint64_t first, uint64_t rows, const void *d,
                        uint64_t stride);
void gs_batch_piece(gs_batch *b, uint64_t i);
void gs_batch_end(gs_batch *b);

/* Vertex u's closeness: (in_reach / in_sum) x (in_reach / (n - 1)) where
 * in_sum > 0 and n > 1, else 0. */
double gs_closeness(const gs_stats *s, uint64_t u);
/* The value of sum[dir][u] or ecc[dir][u] as a double. */
double gs_sum(const gs_stats *s, int dir, uint64_t u);
double gs_ecc(const gs_stats *s, int dir, uint64_t u);

/* The figures of the graph of count arcs from[k] -> to[k] of weight w[k]
 * (s's type; vertices 0 .. s->n - 1; repeats keep the least weight, a loop
 * of negative weight is a negative cycle, any other loop is ignored) added
 * to s, every row of its distances made by the sparse engine (elimination
 * in nested-dissection order where the library has METIS, as apsp-cpu runs
 * it) and added in order, on threads (<= 0: all cores): no n x n matrix.
 * Returns 0; 1 on a negative cycle (*cycle_vertex is on it; s untouched);
 * 2 where most > 0 and the elimination's fill would pass most entries (s
 * untouched: the dense engine does better); -1 with err set. */
int gs_add_arcs(gs_stats *s, uint64_t count, const uint32_t *from, const uint32_t *to,
                const void *w, uint64_t most, int threads, int64_t *cycle_vertex, st_error *err);

void gs_summarize(const gs_stats *s, gs_summary *out);
/* The summary of an undirected graph as networkx gives it: pairs and the
 * Wiener index over unordered pairs (d(u,v) = d(v,u): exactly half the
 * ordered sums), the average as it was. */
void gs_summary_undirected(gs_summary *m);

/* Betweenness centrality (Brandes): for each vertex v, the sum over ordered
 * pairs (s, t) of distinct vertices other than v of the share of the
 * shortest s-t paths through v; for each arc with edges asked, the share of
 * the pairs' shortest paths along it (s or t its ends too).  Paths are
 * counted exactly, zero arcs included, in a form that never overflows; a
 * tie is two equal sums (int32 weights in 64-bit integers; float32 and
 * float64 in doubles, added along the path from the source as networkx
 * adds them).  The same bits whatever the thread count. */
typedef struct gs_betweenness {
	uint64_t n, arcs;    /* vertices; arcs once repeats are merged (the least kept), loops dropped */
	double *vertex;      /* n values, unscaled (gs_betweenness_scale) */
	uint32_t *from, *to; /* with edges asked: the arcs, by tail then head */
	double *arc;         /* ... and their values; else NULL */
} gs_betweenness;

typedef struct gs_bc_opts {
	int edges;   /* the arcs' values too */
	int threads; /* <= 0: all cores */
	/* Where not NULL: told of the sources done, now and then. */
	void (*progress)(void *ctx, uint64_t done, uint64_t sources);
	void *ctx;
} gs_bc_opts;

/* b for the graph of count arcs from[k] -> to[k] of weight w[k] (type) on n
 * vertices: int32 from the sparse engine's rows where its fill is small
 * (gs_add_arcs' engine), else each source searched (Dijkstra's search).  Returns 0; 1
 * where an arc's weight is negative (or NaN), 2 where a cycle of zero
 * weight makes the paths' count infinite: that arc's ends in bad, b empty;
 * -1 with err set. */
int gs_betweenness_arcs(gs_betweenness *b, uint64_t n, uint32_t type, uint64_t count,
                        const uint32_t *from, const uint32_t *to, const void *w,
                        const gs_bc_opts *o, uint32_t bad[2], st_error *err);
/* The same for the graph of an n x n weight matrix (row k at w + k * stride
 * entries; unreachable INF or +inf; the diagonal ignored). */
int gs_betweenness_matrix(gs_betweenness *b, uint64_t n, uint32_t type, const void *w,
                          uint64_t stride, const gs_bc_opts *o, uint32_t bad[2],
                          st_error *err);

/* The same in steps, for an engine that makes the distances: where the
 * graph is int32, its rows of distances given in order (any grouping; row
 * k of the rows at rows + k * stride) spare each source its search: its
 * tight arcs are read off the row, up to its farthest vertex.  The sources
 * not given a row are searched by gs_bc_finish.  Returns as above. */
typedef struct gs_bc gs_bc;
int gs_bc_new(gs_bc **b, uint64_t n, uint32_t type, uint64_t count, const uint32_t *from,
              const uint32_t *to, const void *w, const gs_bc_opts *o, uint32_t bad[2],
              st_error *err);
int gs_bc_new_matrix(gs_bc **b, uint64_t n, uint32_t type, const void *w, uint64_t stride,
                     const gs_bc_opts *o, uint32_t bad[2], st_error *err);
/* Rows first .. first + count - 1 (first: the rows given so far); ignored
 * where the graph is not int32. */
int gs_bc_add_rows(gs_bc *b, uint64_t first, uint64_t count, const int32_t *rows,
                   uint64_t stride, st_error *err);
/* For a caller that makes the dependencies itself (apsp-gpu's kernels), the
 * same steps in the same order: the graph as the searches hold it (int32
 * graphs; NULL for others): first[0 .. n] and *m arcs, each a pair of
 * 32-bit words (head, weight), a vertex's by weight then head; and sums
 * made from it of sources first .. first + count - 1 (first the sources
 * given so far, first and count multiples of 64 but at the last source; no
 * arcs' values asked), one n-vector a chunk of 64 sources, each the
 * chunk's dependencies added in the sources' order. */
const uint64_t *gs_bc_graph(const gs_bc *b, const uint32_t **arcs, uint64_t *m);
int gs_bc_add_partials(gs_bc *b, uint64_t first, uint64_t count, const double *partials,
                       st_error *err);
int gs_bc_finish(gs_bc *b, gs_betweenness *out, st_error *err);
void gs_bc_free(gs_bc *b);
/* networkx's scaling: normalized, the vertices' values over (n-1)(n-2) and
 * the arcs' over n(n-1); else halved where the graph is undirected (each
 * unordered pair counted once). */
void gs_betweenness_scale(gs_betweenness *b, int normalized, int directed);
void gs_betweenness_free(gs_betweenness *b);

#endif
