/* graphio.h - read graphs from text: Matrix Market, DIMACS .gr, edge lists.
 * Public: installed as <apsp/graphio.h> with libapsp (make install; pkg-config apsp).
 *
 * The parsers read plain text, from a buffer or from a reader callback (the
 * caller unwraps gzip and archives), and fill either a dense npad x npad
 * weight matrix ready for a stream (ST_INF_I32 or +inf for no edge, 0 on the
 * diagonal) or a list of edges.  Policies, the same for every format:
 *   - indices are 1-based (edge lists: opts.base);
 *   - an explicit zero is a zero-weight edge;
 *   - duplicate entries keep the minimum weight;
 *   - a non-negative self-loop is ignored, a negative one is a negative
 *     cycle: it is stored on the diagonal and ST_NEGATIVE is set;
 *   - symmetric files are mirrored, skew-symmetric ones mirrored negated;
 *   - a value that the element type cannot hold exactly (a non-integral value
 *     to int32, |v| >= ST_INF_I32, a float32 overflow) is an error.
 * Errors read "file:line: reason".  Nothing here prints or exits.
 */
#ifndef APSP_GRAPHIO_H
#define APSP_GRAPHIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stream.h"
#include "types.h"

enum gio_format { GIO_AUTO = 0, GIO_MTX, GIO_DIMACS, GIO_EDGES };
enum gio_weights { GIO_VALUE = 0, GIO_ABS, GIO_UNIT };
enum gio_symmetry { GIO_FROM_FILE = 0, GIO_DIRECTED, GIO_UNDIRECTED };

typedef struct gio_opts {
	int format;     /* enum gio_format; GIO_AUTO: gio_detect() */
	int weights;    /* enum gio_weights (pattern data is always unit) */
	uint32_t type;  /* enum st_type; 0: int32 for integer and pattern
	                   data, float32 for real data */
	int symmetry;   /* enum gio_symmetry: override what the file implies */
	int base;       /* edge lists: the number of the first vertex, 0 or 1 */
	uint64_t pad;   /* pad the matrix to a multiple of this (>= 1) */
	int edges_only; /* fill gio_graph.edges instead of the dense matrix */
} gio_opts;

void gio_opts_init(gio_opts *o);

/* One edge u -> v (0-based) of weight w, after the policies above. */
typedef struct gio_edge {
	uint32_t u, v;
	double w;
} gio_edge;

typedef struct gio_graph {
	uint64_t n, npad;    /* vertices, stored size */
	uint32_t type;       /* enum st_type */
	uint32_t flags;      /* ST_DIRECTED, ST_NEGATIVE */
	int format;          /* enum gio_format that was read */
	/* What the file said, for messages: "coordinate real symmetric",
	 * "dimacs", "edges".  */
	char kind[64];
	uint64_t entries;    /* stored entries after symmetric expansion,
	                        diagonal included, as the SuiteSparse collection
	                        counts them (duplicates counted) */
	uint64_t edges;      /* finite off-diagonal weights in the result */
	uint64_t negative;   /* stored values < 0 in the file (before --weights) */
	void *w;             /* npad * npad weights (int32_t or float), malloc'd */
	gio_edge *edge;      /* with opts.edges_only: the edges, malloc'd */
	size_t nedge;
} gio_graph;

void gio_graph_free(gio_graph *g);

/* Reader callback: copy up to len bytes to buf; return the count, 0 at the
 * end, -1 on error (with a message in err). */
typedef ssize_t (*gio_read_fn)(void *ctx, void *buf, size_t len, st_error *err);

/* Guess the format from a file name (may be NULL) and the first bytes. */
int gio_detect(const char *name, const void *head, size_t len);
const char *gio_format_name(int format);
/* "mtx", "dimacs", "edges" -> enum gio_format; -1 if unknown. */
int gio_format_parse(const char *s);

/* Parse a whole graph.  name appears in error messages.  Returns 0 or -1. */
int gio_read(const char *name, gio_read_fn read, void *ctx, const gio_opts *o,
             gio_graph *g, st_error *err);
int gio_read_buffer(const char *name, const void *buf, size_t len,
                    const gio_opts *o, gio_graph *g, st_error *err);

/* The dense npad x npad weight matrix of g's edges (read with
 * opts.edges_only) into w (g->type's elements): what gio_read() fills
 * without edges_only, repeated edges at their least weight.  threads: 0
 * for the library's default. */
void gio_fill_matrix(const gio_graph *g, void *w, int threads);

/* A graph as a stream's list of arcs (ST_ARCS in stream.h) and back.
 * gio_arcs: the records of g's edges (read with opts.edges_only) as the
 * matrix would hold them: sorted, each pair once at its least weight,
 * non-negative loops left out; *count gets their number.  malloc'd, or
 * NULL (out of memory) with err set.  gio_from_arcs: g from the list of
 * arcs of a stream with header h (checked: st_arcs_check), as
 * opts.edges_only fills it.  0, or -1 with err set. */
void *gio_arcs(const gio_graph *g, uint64_t *count, st_error *err);
int gio_from_arcs(const st_header *h, const void *arcs, gio_graph *g, st_error *err);

/* Parse one number the way the readers do (whole string).  0 or -1. */
int gio_parse_real(const char *s, double *v);

#endif
