/* graphio_internal.h - what the graph readers share, internal to the
 * library: the parser's state, its messages ("file:line: reason"), numbers
 * and tokens, and the policies every format applies to an entry (see
 * graphio.h).  Each format's reader is a file of its own: graphio_mtx.c
 * (Matrix Market), graphio_edges.c (edge lists), graphio_dimacs.c (DIMACS
 * .gr); graphio.c detects the format and drives them chunk by chunk.
 * Names carry gp_, which libapsp.so does not export. */
#ifndef APSP_GRAPHIO_INTERNAL_H
#define APSP_GRAPHIO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "graphio.h"

#define CHUNK ((size_t)1 << 22)      /* bytes read at a time */
#define MAX_LINE ((size_t)1 << 28)   /* longer lines are refused */

enum { F_REAL = 1, F_INTEGER, F_PATTERN };
enum { S_GENERAL = 0, S_SYMMETRIC, S_SKEW };
enum { MM_BANNER = 0, MM_SIZE, MM_DATA };

/* An entry as read, before the policies: kept for edge lists and DIMACS. */
typedef struct raw_edge {
	uint32_t u, v;
	int integral;    /* the weight was written as an integer */
	uint64_t line;
	double w;
} raw_edge;

typedef struct parser {
	const char *name;
	const gio_opts *o;
	gio_graph *g;
	st_error *err;
	uint64_t line;       /* number of the line being read */
	int format;
	int state;

	/* Matrix Market header. */
	int array, field, sym;
	uint64_t want, got;  /* entries (or array values) declared and read */
	uint64_t ai, aj;     /* array: next position, column-major */

	/* Policies, decided once the header is known. */
	int mirror;          /* store (j,i) too */
	int mirror_neg;      /* ... with the value negated (skew-symmetric) */
	int file_mirrored;   /* the file is symmetric or skew: entries count twice */
	int integer_data;    /* values are integers (float32 must hold them exactly) */
	int pattern;
	size_t capedge;      /* edges_only: room in g->edge */

	/* Edge lists and DIMACS. */
	raw_edge *raw;
	size_t nraw, capraw;
	uint64_t maxv;       /* largest 0-based vertex seen */
	int fields;          /* edge lists: 2 or 3 fields per line, 0 = not yet */
	int have_size;       /* a size line ("n m" or "p sp n m") was read */
	uint64_t size_n, size_m;
	int pending;         /* edge lists: a two-field first line, size or edge? */
	uint64_t pend_a, pend_b, pend_line;
	int all_integral;

	char tok[48];        /* a token quoted in a message */
} parser;

static inline int is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline int is_end(int c) /* what may follow a token */
{
	return is_blank(c) || c == '\n' || c == '\0';
}

static inline const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
		p++;
	return p;
}

/* graphio_parse.c: messages, numbers, tokens, the result */
/* Whether n vertices fit a stream and (dense) this machine's memory: 0, or
 * -1 with the message at the current line. */
int gp_check_size(parser *P, uint64_t n);
int gp_alloc_dense(parser *P, uint64_t n);
/* The npad x npad matrix w of type with no edge: INF (+inf) off the
 * diagonal, 0 on it, its rows on threads (0: the default). */
void gp_no_edges(uint32_t type, uint64_t npad, void *w, int threads);
/* Entry k of w lowered to x where x is less: of repeated entries, the least. */
void gp_store_min(uint32_t type, void *w, uint64_t k, double x);
void gp_decide(parser *P, int sym, int integer_data, int pattern);
int gp_fail(parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gp_list_finish(parser *P);
int gp_put(parser *P, uint64_t i, uint64_t j, double v);
int gp_raw_push(parser *P, uint64_t u, uint64_t v, double w, int integral, uint64_t line);
int gp_read_index(parser *P, const char **pp, uint64_t n, const char *what, uint64_t *out);
int gp_read_value(parser *P, const char **pp, int field, double *v, int *integral);
int gp_scan_uint(const char **pp, uint64_t *out);
const char *gp_token(parser *P, const char *p);
int gp_word_is(const char *p, size_t n, const char *w);
int gp_words(const char *p, const char **w, size_t *len, int max);

/* graphio_mtx.c */
int gp_mm_finish(parser *P);
int gp_mm_lines(parser *P, const char *p, const char *end);

/* graphio_edges.c */
int gp_edge_lines(parser *P, const char *p, const char *end);

/* graphio_dimacs.c */
int gp_dimacs_lines(parser *P, const char *p, const char *end);

#endif
