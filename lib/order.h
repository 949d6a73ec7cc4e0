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

#include "stream.h"

/* 1 when the library was built with METIS (nested dissection available). */
int ord_available(void);

/* Finite off-diagonal entries of the n x n matrix w (stride n), counted
 * until more than limit are found (then some number above limit). */
uint64_t ord_count_edges(uint64_t n, uint32_t type, const void *w, uint64_t limit, int threads);

/* Nested-dissection order of the graph of w (n x n, stride n; an edge where
 * w[i][j] or w[j][i] is finite): perm[k] is the vertex placed at position
 * k.  The same graph gives the same order.  0, or -1 with a message (no
 * METIS, too many edges for it, out of memory). */
int ord_nested_dissection(uint64_t n, uint32_t type, const void *w, int32_t *perm,
                          int threads, st_error *err);

#endif
