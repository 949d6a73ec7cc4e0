/* fw.h - the CPU blocked Floyd-Warshall engine.
 * Public: installed as <apsp/fw.h> with libapsp (make install; pkg-config apsp).
 *
 * The n x n matrix is cut into B x B blocks (padded internally to a multiple
 * of B with isolated vertices).  Each of the npad / B rounds has three
 * phases: the pivot block, then the pivot row and column, then every other
 * block, each block relaxed through the round's pivot vertices.  OpenMP runs
 * the blocks of a phase in parallel; the innermost loops use AVX-512, AVX2 or
 * portable C, chosen at run time from what the processor supports.
 *
 * Input is what sv_prepare() leaves (see solve.h): int32 values in
 * [0, ST_INF_I32], or float32 or float64 without a negative cycle.  Nothing here prints
 * or exits.
 */
#ifndef APSP_FW_H
#define APSP_FW_H

#include <stdint.h>

#include "types.h"

enum fw_simd { FW_SIMD_AUTO = 0, FW_SIMD_PORTABLE, FW_SIMD_AVX2, FW_SIMD_AVX512 };

#define FW_BLOCK_DEFAULT 64

/* What a run did: tiles are B x B blocks updated in phases 2 and 3; a tile
 * is skipped when its operands are all INF (the update cannot change it). */
typedef struct fw_counts {
	uint64_t tiles;         /* phase 2 and 3 tile updates a dense run makes */
	uint64_t tiles_skipped; /* of those, skipped */
	int derived;            /* predecessors derived from the distances */
} fw_counts;

/* Checkpoints, one interface for both engines (fw_opts.checkpoint here,
 * fwg_opts.checkpoint of the GPU engine) and every element type: the state
 * between two steps of the rounds handed to the caller now and then, and
 * taken back to go on from.  The state is side x side distances, each of
 * the type's width in the engine's own layout and form, and, where
 * predecessors are tracked through the rounds (paths), as many 32-bit
 * predecessors (or largest intermediate vertices); stage names that form
 * (the CPU engine's: ""), steps counts the steps (rounds).  The state moves
 * through fw_state_fn(ctx, pred, offset, buf, bytes): bytes of the
 * distances (pred 0) or predecessors (1) from byte offset, out of the state
 * into buf (save) or into it from buf (load); it may be called from several
 * threads at once, and returns 0 or -1.  Callbacks, ctx as given:
 * due(ctx, bytes): between two steps, whether to save the state now;
 * save(ctx, stage, step, steps, side, paths, get, gctx): the state after
 *   step steps;
 * load(ctx, stage, steps, side, paths, put, pctx): once before the first
 *   step of a stage: the step to go on from (the state put), 0 to begin
 *   (nothing put), -1 to stop (an error), or FW_CHECKPOINT_OTHER where the
 *   checkpoint is of another stage of the run (an engine that has stages
 *   says what it then does). */
#define FW_CHECKPOINT_OTHER (-2)
typedef int fw_state_fn(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes);
typedef struct fw_checkpoint {
	int (*due)(void *ctx, uint64_t bytes);
	void (*save)(void *ctx, const char *stage, uint64_t step, uint64_t steps, uint64_t side,
	             int paths, fw_state_fn *get, void *gctx);
	int64_t (*load)(void *ctx, const char *stage, uint64_t steps, uint64_t side, int paths,
	                fw_state_fn *put, void *pctx);
	void *ctx;
} fw_checkpoint;

typedef struct fw_opts {
	int block;    /* blocking factor B: 8..512, a multiple of 16; 0 = default */
	int threads;  /* <= 0: all cores */
	int simd;     /* enum fw_simd; AUTO = the best this processor runs */
	/* Called by one thread at the start of each round (may be NULL). */
	void (*progress)(void *ctx, uint64_t round, uint64_t rounds);
	void *ctx;
	fw_counts *counts; /* filled in when not NULL */
	/* Solve with vertex order[k] at position k (a permutation of 0..n-1,
	 * e.g. ord_nested_dissection's); NULL: as numbered.  The matrices are
	 * read and written in their own numbering either way. */
	const int32_t *order;
	/* With pred: 0 derives the predecessors from the final distances and
	 * the edges into each vertex (the rounds then run on distances alone),
	 * except where a weight is negative; 1 tracks them through the rounds. */
	int track_paths;
	/* Called by one thread as each step around the rounds begins: "tiling",
	 * "repairing the predecessors", "deriving the predecessors",
	 * "untiling" (may be NULL; ctx as for progress). */
	void (*stage)(void *ctx, const char *what);
	/* Checkpoints (NULL: none; fw_checkpoint above).  The state is the
	 * tiled matrices, side = npad (n padded to a multiple of B); its layout
	 * depends on n, the type, B, the order and whether predecessors are
	 * tracked or derived, which the caller must keep (stage ""; steps: the
	 * rounds).  due is asked before each round from 1 on and after the
	 * last (a run stopped while its result is written goes on with no
	 * round left: load may return the number of rounds); save runs on the
	 * calling thread while the rounds wait; load is called once before the
	 * rounds (fw_cpu returns -1 with "checkpoint not loaded" where it
	 * returns below 0). */
	const fw_checkpoint *checkpoint;
	/* With pred: 1 gives the predecessors the textbook order (one pivot at
	 * a time, in vertex order, replaced on strict improvements only, as
	 * scipy's floyd_warshall) picks among paths of equal length: the path
	 * whose largest intermediate vertex is smallest.  The rounds carry
	 * that vertex beside each distance (tracked, not derived; no order). */
	int textbook_paths;
} fw_opts;

/* The best SIMD level this processor supports. */
enum fw_simd fw_simd_detect(void);
/* "avx512", "avx2", "portable". */
const char *fw_simd_name(enum fw_simd s);

/* All-pairs shortest paths in place: dist (and pred, when not NULL) are
 * n x n, row-major, stride n.  type is an enum st_type.  Returns 0, or -1
 * (bad block size, SIMD level the processor lacks, out of memory) with a
 * message in err. */
int fw_cpu(const fw_opts *o, uint32_t type, uint64_t n, void *dist,
           int32_t *pred, st_error *err);

/* All pairs in place in one call: sv_prepare(), fw_cpu() and sv_finish().
 * dist (n x n, stride n) holds the weights of type on entry (ST_INF_I32 or
 * +inf where there is no edge; a negative diagonal entry is a negative
 * cycle, any other is taken as 0) and the distances on return; pred, when
 * not NULL, receives the predecessors (-1: none), as textbook_paths gives
 * them (scipy's among equal paths).  block and threads as in
 * fw_opts (0: default).  Returns 0; 1 when there is a negative cycle
 * (*cycle_vertex is a vertex on it; dist and pred are then undefined); -1
 * on error (a NaN weight, int32 sums that could overflow, out of memory),
 * with the message in err. */
int fw_solve(uint32_t type, uint64_t n, void *dist, int32_t *pred, int block, int threads,
             int64_t *cycle_vertex, st_error *err);

/* The algebra of a run.  FW_MINPLUS: shortest paths, (min, +), what every
 * engine runs.  FW_WIDEST: widest (bottleneck) paths, (max, min): a path's
 * width is its narrowest arc's weight, and the answer between two vertices
 * is the widest path's width (-infinity where there is no path, +infinity
 * from a vertex to itself).  FW_REACH: reachability, (or, and). */
enum fw_semiring { FW_MINPLUS = 0, FW_WIDEST = 1, FW_REACH = 2 };

/* Many small graphs in one call, each solved as fw_solve() solves one,
 * in the textbook order (scipy's floyd_warshall's distances and
 * predecessors, bit for bit), a graph a thread: count graphs in rooms of
 * n x n (graph g's weights at dist + g * n * n elements of type, stride
 * n), each of n vertices, or (sizes not NULL) of sizes[g] <= n, the
 * top-left corner of its room (the rest is left as it is: a smaller graph
 * costs its own size's work), in place; pred NULL, or count * n * n
 * predecessors (-1: none).  cycle (count entries): cycle[g] is -1, or a
 * vertex on a negative cycle of graph g, whose distances and predecessors
 * are then undefined; the other graphs are answered.  threads <= 0: every
 * core.  Meant for graphs of up to a few hundred vertices (a matrix in a
 * core's cache); fw_solve() is the engine for large ones.  Returns the
 * number of graphs with a negative cycle, or -1 with err naming the first
 * graph that cannot be solved (a NaN or -inf weight; int32 path lengths
 * that could reach ST_INF_I32), every matrix then as it was. */
int64_t fw_batch(uint32_t semiring, uint32_t type, uint64_t count, uint64_t n,
                 const uint32_t *sizes, void *dist, int32_t *pred, int threads, int64_t *cycle,
                 st_error *err);
/* With semiring FW_WIDEST instead (float32 or float64): the weights are
 * capacities, -infinity where there is no arc (+infinity: an arc without
 * bound); the widths replace them, the predecessors those of a widest path
 * (replaced on strict improvements, in the textbook order); no cycle is
 * negative (cycle[g] is -1).  FW_REACH is fw_batch_reach's. */
/* fw_batch()'s checks alone, before any graph is solved (the GPU's batch
 * makes them too): the type, the semiring, the sizes, and every graph's
 * weights; 0, or -1 with err naming the first graph that cannot be solved. */
int fw_batch_check(uint32_t semiring, uint32_t type, uint64_t count, uint64_t n,
                   const uint32_t *sizes, const void *dist, int threads, st_error *err);

/* Reachability of count graphs in one call: m holds each graph's room of
 * n x n bytes (non-zero: an arc; sizes as for fw_batch), in place the closure: 1 where
 * the row's vertex reaches the column's (itself too), else 0; rows of bits
 * (Warshall's order), a graph a thread.  0, or -1 with err set. */
int fw_batch_reach(uint64_t count, uint64_t n, const uint32_t *sizes, uint8_t *m, int threads,
                   st_error *err);

/* Textbook predecessors from the largest intermediate vertex of each
 * path (-1: the edge itself), as the textbook_paths rounds leave them
 * (the CPU engine, or a GPU's): in place, pred[s][t] = pred[m][t] for
 * m = mid[s][t], s where m is -1, -1 where t is s or unreachable in dist
 * (n x n, stride n, of type), and -1 where the mids loop (paths of equal
 * length met in a blocked order: fw_repair_paths() mends those).  0, or -1 when out of memory (mid then
 * partly converted). */
int fw_textbook_preds(uint32_t type, uint64_t n, const void *dist, int32_t *mid, int threads);

/* Make every predecessor chain reach its source.  Blocked orders (this
 * engine's, a GPU's) relax a block through all of a round's pivots at once;
 * among paths of equal length (zero-weight cycles, or float32 rounding) the
 * predecessors they pick can then point at each other.  Distances are exact,
 * so the bad chains are re-attached over edges u -> t on shortest paths
 * (d[s][u] + w(u, t) = d[s][t], within float32 rounding), from vertices
 * whose chains are good, shortest chain sum first (Dijkstra's order); each
 * bad vertex's column of weights is read once.  dist and
 * pred are n x n (stride n); weights is the graph (stride wstride), either
 * the stream's weights with true distances or the reweighted matrix with
 * reweighted distances.  fw_cpu() calls it itself.  Returns the number of
 * vertices re-attached, or -1 when out of memory. */
int64_t fw_repair_paths(uint32_t type, uint64_t n, const void *weights, uint64_t wstride,
                        const void *dist, int32_t *pred, int threads);
/* The same for rows first .. first + rows - 1 alone: dist and pred point at
 * row first (stride n), weights is the whole graph; weights NULL: the
 * chains only checked, their bad vertices counted and left as they are. */
int64_t fw_repair_rows(uint32_t type, uint64_t n, const void *weights, uint64_t wstride,
                       uint64_t first, uint64_t rows, const void *dist, int32_t *pred,
                       int threads);

/* The distances from sources src[0 .. sources - 1] of the graph of count
 * arcs from[k] -> to[k] of weight w[k] (type's elements; loops ignored but
 * for a negative one, the least of repeated arcs) by the sparse engine:
 * the vertices eliminated in nested-dissection order over (min, +), no
 * n x n matrix (apsp-cpu(1), "The sparse engine"); or, for at most 64
 * sources and no negative weight, a search a source (Dijkstra's
 * algorithm), with no order made (float sums then in the search's order,
 * which may differ from the elimination's in the last bit).  Row i, n entries, at
 * rows + i * n (INF or +inf where unreachable).  Returns 0; 1 on a
 * negative cycle (*cycle_vertex on it); 2 where most > 0 and the
 * elimination's fill would pass most entries (nothing made: the dense
 * engine does better); -1 with err set (a source out of range, int32
 * paths that could reach ST_INF_I32, out of memory). */
int fw_sparse_rows(uint64_t n, uint32_t type, uint64_t count, const uint32_t *from,
                   const uint32_t *to, const void *w, const uint32_t *src, uint64_t sources,
                   void *rows, uint64_t most, int threads, int64_t *cycle_vertex, st_error *err);

#endif
