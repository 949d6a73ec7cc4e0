/* certificate.h - the tools' certificate of a result (lib/certify.h): its graph
 * read as the engines read it, its rows held to the conditions, the first
 * fault said.  apsp-diff --graph and apsp-info --graph share it. */
#ifndef APSP_RUN_CERTIFY_H
#define APSP_RUN_CERTIFY_H

#include <stdio.h>

#include "certify.h"
#include "stream.h"

/* The graph at path (a stream of weights or of arcs, or text as the
 * engines read it) as lists of arcs; *n gets its vertices.  Dies on error. */
ce_graph *certify_graph(const char *path, int threads, uint64_t *n);

/* The rows of result m (read whole) against g; says the first fault and,
 * with -v, the count on report.  Returns the number of rows that fail. */
uint64_t certify_rows(const ce_graph *g, const char *name, const st_matrices *m, double tol,
                      int threads, FILE *report);

/* The same for the result on fd, read a window of rows at a time (the
 * distances held whole only where predecessors follow them, which need
 * them); tol < 0: the type's default.  Dies on a stream that holds no
 * distances, another n than the graph's (n), or a negative cycle. */
uint64_t certify_stream(const ce_graph *g, uint64_t n, int fd, const char *name, double tol,
                        int threads, FILE *report);

/* The default tolerance of floats: 1e-12 for float64, else 1e-5. */
double certify_tolerance(uint32_t type);

#endif
