/* order.h - vertex orders for sparse graphs (prefix ord_).
 *
 * Blocked Floyd-Warshall on a sparse, nearly planar graph (a road network, a
 * mesh) numbered by nested dissection fills its matrix late: the blocks of
 * two halves the last separator splits stay all INF until the separator's
 * rounds, and the engines skip a tile whose operands are all INF.  This
 * module finds that order (METIS's nested dissection of the graph with its
 * directions dropped); fw_opts.order (fw.h) solves in it.  Internal to the
 * toolkit for now (not installed).  Nothing here prints or exits.
 */
#ifndef APSP_ORDER_H
#define APSP_ORDER_H

#include <stdint.h>

#include "types.h"

/* 1 when the library was built with METIS (nested dissection available). */
int ord_available(void);

/* Finite off-diagonal entries of the n x n matrix w (stride n), counted
 * until more than limit are found (then some number above limit). */
uint64_t ord_count_edges(uint64_t n, uint32_t type, const void *w, uint64_t limit, int threads);

/* Nested-dissection order of the graph of w (n x n, stride n; an edge where
 * w[i][j] or w[j][i] is finite): perm[k] is the vertex placed at position
 * k.  The same graph gives the same order.  With block > 0, every half a
 * separator splits off starts and ends on a multiple of block (vertices
 * move into the separator to make it so), so that blocks of block vertices
 * never straddle two halves and the rounds of the two halves' blocks are
 * independent (ord_block_levels); 0 leaves the order to METIS alone.  0, or
 * -1 with a message (no METIS, too many edges for it, out of memory). */
int ord_nested_dissection(uint64_t n, uint32_t type, const void *w, int32_t *perm, int block,
                          int threads, st_error *err);

/* The same order for the graph of count arcs from[k] -> to[k] (loops and
 * repeats allowed, as an edge list has them), whose matrix need not exist:
 * for the same edges, the same perm as ord_nested_dissection(). */
int ord_nested_dissection_arcs(uint64_t n, uint64_t count, const uint32_t *from,
                               const uint32_t *to, int32_t *perm, int block, st_error *err);

/* The sparse engine's order of the same graph: peeled first, a vertex of
 * degree one or none, else one of two, as long as there is one (a tree's
 * leaves, a chain's inner vertices: no fill but a chain's ends joined), then
 * the core left by nested dissection whose top four levels of vertex separators are METIS's, the two halves of each
 * ordered at once (in processes, at most threads of them; <= 0: every
 * core), and the (at most sixteen) parts below them ordered by METIS's own
 * nested dissection, so that the order takes a fraction of the time of
 * METIS's alone on a large graph.  A part under 10,000 vertices is not
 * split.  The same graph gives the same order on any number of threads.
 * 0, or -1 as ord_nested_dissection(). */
int ord_split_dissection_arcs(uint64_t n, uint64_t count, const uint32_t *from,
                              const uint32_t *to, int32_t *perm, int threads, st_error *err);

/* Which rounds of blocked Floyd-Warshall may run together.  live (nb x nb,
 * row-major) marks the blocks that hold a finite entry before the first
 * round.  level[k] gets block k's level in the elimination tree of the
 * blocks' graph (directions dropped): no block is an ancestor of another
 * at its level, so the rounds of one level read nothing that the others
 * write but phase-3 blocks, where the order of two mins does not matter;
 * levels taken in increasing order give the distances of rounds taken one
 * by one.  Returns the number of levels, or -1 (out of memory). */
int ord_block_levels(const uint8_t *live, uint64_t nb, int32_t *level);

#endif
