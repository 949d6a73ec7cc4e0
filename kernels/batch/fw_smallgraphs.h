/* fw_smallgraphs.h - many small graphs in one call on an NVIDIA GPU (prefix
 * fwsg_): lib/fw.h's fw_batch() on the device, the same contract and the
 * same bytes.  A graph of up to FWSG_SHARED_MAX vertices is held by its
 * own group of threads, its rows in their registers and each step's pivot
 * row and column in shared memory; a larger one is solved by a thread
 * block in device memory.  Each step is the textbook order's (the rows of
 * a step in parallel, as row k and column k do not change at step k), so
 * the distances and predecessors are scipy's floyd_warshall's bit for bit.
 * Nothing here prints or exits. */
#ifndef APSP_FW_SMALLGRAPHS_H
#define APSP_FW_SMALLGRAPHS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Graphs of up to this many vertices are held in registers and shared
 * memory; larger ones are solved in device memory, a block a graph. */
#define FWSG_SHARED_MAX 128

/* fw_batch() (lib/fw.h) on device `device`: count graphs in rooms of n x n
 * elements of type (ST_INT32, ST_FLOAT32, ST_FLOAT64) at dist, graph g of
 * sizes[g] (NULL: n) vertices in its room's top-left corner, in place;
 * semiring FW_MINPLUS or FW_WIDEST (float types); pred NULL or count * n *
 * n predecessors (-1: none); cycle[g] -1 or a vertex on a negative cycle
 * of graph g (whose results are then undefined).  Every graph is checked
 * on the host first (fw_batch_check), so a bad one leaves every room as it
 * was.  The rooms travel in chunks through pinned buffers that the process
 * keeps for the next call.  Returns the number of graphs with a negative
 * cycle, or -1 with err (a graph that cannot be solved, named; a CUDA
 * error).  Calls from several threads run one after the other. */
int64_t fwsg_solve(uint32_t semiring, uint32_t type, uint64_t count, uint64_t n,
                   const uint32_t *sizes, void *dist, int32_t *pred, int device, int64_t *cycle,
                   char *err, size_t errlen);

/* Rooms of at most this many vertices (a block's loops count in int). */
#define FWSG_DENSE_MAX_N 46340

/* fwsg_solve_dense()'s input types beyond lib/types.h's (ST_INT32,
 * ST_FLOAT32, ST_FLOAT64), and its flags. */
enum { FWSG_INT64 = 4 };
enum { FWSG_UNDIRECTED = 2, FWSG_UNWEIGHTED = 4 };

/* Many graphs as scipy's dense arrays hold them, straight from the
 * caller's memory (Python's (B, N, N) arrays): count graphs of n x n
 * entries of in_type, each of n vertices, read on the device by scipy's
 * rules (an entry is an edge where 1e-8 < |w| < infinity, NaN and the
 * infinities none; the diagonal 0; FWSG_UNDIRECTED each edge both ways at
 * the smaller weight; FWSG_UNWEIGHTED every edge 1), solved in float64
 * over the semiring (FW_MINPLUS, or FW_WIDEST: no edge -infinity) into
 * dist (count x n x n float64, unreachable where there is no path) and,
 * where not NULL, pred (no_pred where there is none).  The textbook order's
 * results, scipy's floyd_warshall's bytes.  Nothing to refuse by those
 * rules; cycle and the return as fwsg_solve()'s. */
int64_t fwsg_solve_dense(uint32_t semiring, uint32_t in_type, uint64_t count, uint64_t n,
                         const void *graphs, uint32_t flags, double unreachable,
                         int32_t no_pred, double *dist, int32_t *pred, int device,
                         int64_t *cycle, char *err, size_t errlen);

/* Many graphs as lists of arcs (PyG's and DGL's batches), solved as
 * fwsg_solve_dense() solves arrays, without ever being dense on the host:
 * graph g of sizes[g] (NULL: n) vertices has arcs first_arc[g] ..
 * first_arc[g + 1] - 1 (first_arc[0] = 0), each a pair (u, v) of its own
 * vertices in arcs (2 entries an arc) and a finite weight in weights (0 and
 * negative too; no loops; the least of repeated arcs).  Shortest paths in
 * float64 into dist and pred (count rooms of n x n, each whole: unreachable
 * and no_pred beyond a graph's paths and vertices).  A bad arc is refused
 * by graph and arc before anything is written; cycle and the return as
 * fwsg_solve()'s. */
int64_t fwsg_solve_arcs(uint64_t count, uint64_t n, const uint32_t *sizes,
                        const uint64_t *first_arc, const uint16_t *arcs, const double *weights,
                        double unreachable, int32_t no_pred, double *dist, int32_t *pred,
                        int device, int64_t *cycle, char *err, size_t errlen);

/* The last call's times in milliseconds: its kernels (CUDA events) and the
 * whole call. */
void fwsg_times(double *kernel_ms, double *total_ms);

#ifdef __cplusplus
}
#endif

#endif
