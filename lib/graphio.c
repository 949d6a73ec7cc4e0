/* graphio.c - Matrix Market, DIMACS and edge-list readers.  See graphio.h.
 *
 * The text arrives in chunks cut at line ends, with the last line given a
 * '\n' when the file lacks one, so every scanner may run until it meets a
 * '\n' without checking lengths.  Numbers are scanned by hand: the common
 * case (at most 19 significant digits, a small exponent) is exact in double
 * arithmetic; anything else goes to strtod on a copy of the token.
 *
 * Matrix Market entries go straight into the dense matrix, whose size the
 * size line gives.  Edge lists and DIMACS arcs are kept in a list first,
 * because the vertex count (edge lists) or the element type (both: int32
 * unless a weight is written as a real) is known only at the end. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "graphio.h"

#define CHUNK ((size_t)1 << 22)      /* bytes read at a time */
#define MAX_LINE ((size_t)1 << 28)   /* longer lines are refused */

enum { F_REAL = 1, F_INTEGER, F_PATTERN };
enum { S_GENERAL = 0, S_SYMMETRIC, S_SKEW };
enum { ST_BANNER = 0, ST_SIZE, ST_DATA };

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
	int32_t *wi;
	float *wf;
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

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* ---- messages ---- */

static int fail(parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *P, const char *fmt, ...)
{
	char why[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	snprintf(P->err->msg, sizeof P->err->msg, "%s:%llu: %s", P->name,
	         (unsigned long long)P->line, why);
	return -1;
}

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

/* The token at p, shortened, for a message. */
static const char *token(parser *P, const char *p)
{
	size_t n = 0;
	while (!is_end(p[n]) && n < sizeof P->tok - 4)
		n++;
	for (size_t k = 0; k < n; k++) /* no control bytes in messages */
		P->tok[k] = (unsigned char)p[k] < 32 || (unsigned char)p[k] >= 127 ? '?' : p[k];
	strcpy(P->tok + n, is_end(p[n]) ? "" : "...");
	if (n == 0)
		strcpy(P->tok, p[0] == '\n' || p[0] == '\0' ? "end of line" : "?");
	return P->tok;
}

/* ---- numbers ---- */

/* A real number: [+-]digits[.digits][(e|E)[+-]digits], also ".5" and "5.".
 * Returns 0, -1 (not a number), -2 (out of double range). */
static int scan_real(const char **pp, double *out, int *integral)
{
	const char *p = *pp, *s = p;
	int neg = 0, any = 0, intg = 1, nd = 0;
	long ex = 0;
	uint64_t m = 0;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	while (*p == '0')
		p++, any = 1;
	for (; (unsigned)(*p - '0') < 10; p++, any = 1) {
		if (nd < 19)
			m = m * 10 + (unsigned)(*p - '0'), nd++;
		else
			ex++;
	}
	if (*p == '.') {
		intg = 0;
		p++;
		if (nd == 0)
			for (; *p == '0'; p++, any = 1)
				ex--;
		for (; (unsigned)(*p - '0') < 10; p++, any = 1)
			if (nd < 19)
				m = m * 10 + (unsigned)(*p - '0'), nd++, ex--;
	}
	if (!any)
		return -1;
	if (*p == 'e' || *p == 'E') {
		int eneg = 0;
		long e = 0;
		intg = 0;
		p++;
		if (*p == '+' || *p == '-')
			eneg = *p++ == '-';
		if ((unsigned)(*p - '0') >= 10)
			return -1;
		for (; (unsigned)(*p - '0') < 10; p++)
			if (e < 100000)
				e = e * 10 + (*p - '0');
		ex += eneg ? -e : e;
	}
	if (!is_end(*p))
		return -1;

	double v;
	if (m == 0) {
		v = 0;
	} else if (m <= ((uint64_t)1 << 53) && ex >= -22 && ex <= 22) {
		v = ex < 0 ? (double)m / pow10_exact[-ex] : (double)m * pow10_exact[ex];
	} else {
		char buf[128], *e;
		size_t len = (size_t)(p - s);
		if (len >= sizeof buf)
			return -1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		errno = 0;
		v = strtod(buf, &e);
		if (*e != '\0')
			return -1;
		if (errno == ERANGE && fabs(v) > 1)
			return -2;
		neg = 0; /* strtod saw the sign */
	}
	*out = neg ? -v : v;
	*integral = intg;
	*pp = p;
	return 0;
}

/* A signed integer that a double holds exactly.  0, -1, -2 as above. */
static int scan_int(const char **pp, double *out)
{
	const char *p = *pp;
	int neg = 0;
	uint64_t v = 0;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if ((unsigned)(*p - '0') >= 10)
		return -1;
	int big = 0;
	for (; (unsigned)(*p - '0') < 10; p++) {
		if (v > ((uint64_t)1 << 53))
			big = 1;
		else
			v = v * 10 + (unsigned)(*p - '0');
	}
	if (!is_end(*p))
		return -1;
	if (big || v > ((uint64_t)1 << 53))
		return -2;
	*out = neg ? -(double)v : (double)v;
	*pp = p;
	return 0;
}

/* An unsigned count or index.  0, -1 (not one), -2 (beyond 2^63). */
static int scan_uint(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int big = 0;
	if (*p == '+')
		p++;
	if ((unsigned)(*p - '0') >= 10)
		return -1;
	for (; (unsigned)(*p - '0') < 10; p++) {
		if (v >= ((uint64_t)1 << 59))
			big = 1;
		else
			v = v * 10 + (unsigned)(*p - '0');
	}
	if (!is_end(*p))
		return -1;
	*out = big ? UINT64_MAX : v;
	*pp = p;
	return 0;
}

int gio_parse_real(const char *s, double *v)
{
	int integral;
	const char *p = skip_blanks(s);
	if (scan_real(&p, v, &integral) != 0)
		return -1;
	return *skip_blanks(p) == '\0' ? 0 : -1;
}

static int is_inf_nan(const char *p)
{
	if (*p == '+' || *p == '-')
		p++;
	return strncasecmp(p, "inf", 3) == 0 || strncasecmp(p, "nan", 3) == 0;
}

/* Read a value field at *pp (already past blanks): real or integer syntax
 * as the field says.  On error, a message naming the token. */
static int read_value(parser *P, const char **pp, int field, double *v, int *integral)
{
	const char *p = *pp;
	int r;
	if (*p == '\n')
		return fail(P, "missing value");
	if (field == F_INTEGER) {
		*integral = 1;
		r = scan_int(pp, v);
		if (r == -1)
			return fail(P, "'%s' is not an integer", token(P, p));
	} else {
		r = scan_real(pp, v, integral);
		if (r == -1 && is_inf_nan(p))
			return fail(P, "'%s': infinite or NaN values are not edge weights", token(P, p));
		if (r == -1)
			return fail(P, "'%s' is not a number", token(P, p));
	}
	if (r == -2)
		return fail(P, "value '%s' is out of range", token(P, p));
	return 0;
}

/* A vertex index in 1..n (Matrix Market, DIMACS). */
static int read_index(parser *P, const char **pp, uint64_t n, const char *what, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v;
	if (*p == '\n')
		return fail(P, "missing %s index", what);
	if (*p == '-' && (unsigned)(p[1] - '0') < 10)
		return fail(P, "%s index %s is out of range 1..%llu", what, token(P, p),
		            (unsigned long long)n);
	if (scan_uint(pp, &v) != 0)
		return fail(P, "%s index '%s' is not a number", what, token(P, p));
	if (v == 0 || v > n)
		return fail(P, "%s index %s is out of range 1..%llu%s", what, token(P, p),
		            (unsigned long long)n, v == 0 ? " (indices are 1-based)" : "");
	*out = v - 1;
	return 0;
}

/* ---- the result ---- */

static int alloc_dense(parser *P, uint64_t n)
{
	gio_graph *g = P->g;
	uint64_t pad = P->o->pad ? P->o->pad : 1;
	if (n > ST_MAX_N)
		return fail(P, "%llu vertices: more than the %llu a stream can hold",
		            (unsigned long long)n, (unsigned long long)ST_MAX_N);
	if ((n + pad - 1) / pad * pad >= ST_MAX_N) /* the stream's own limit */
		return fail(P, "%llu vertices padded to a multiple of %llu: a stream holds fewer than %llu",
		            (unsigned long long)n, (unsigned long long)pad,
		            (unsigned long long)ST_MAX_N);
	g->n = n;
	g->npad = (n + pad - 1) / pad * pad;
	if (P->o->edges_only)
		return 0;
	uint64_t npad = g->npad;
	if (npad && npad > SIZE_MAX / 4 / npad)
		return fail(P, "a %llu x %llu matrix does not fit in memory",
		            (unsigned long long)npad, (unsigned long long)npad);
	/* Refuse before allocating what the machine cannot hold: a malloc that
	 * overcommit lets through would die later, in the fill. */
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	if (pages > 0 && psize > 0 && npad * npad * 4 > (uint64_t)pages * (uint64_t)psize)
		return fail(P, "a %llu x %llu matrix needs %.1f GiB, more than the %.1f GiB of "
		            "memory here", (unsigned long long)npad, (unsigned long long)npad,
		            (double)npad * npad * 4 / 1073741824.0,
		            (double)pages * psize / 1073741824.0);
	g->w = malloc(npad * npad * 4 + 4);
	if (!g->w)
		return fail(P, "a %llu x %llu matrix (%.1f MiB): out of memory",
		            (unsigned long long)npad, (unsigned long long)npad,
		            (double)npad * npad * 4 / 1048576);
	if (g->type == ST_INT32) {
		P->wi = g->w;
		for (uint64_t i = 0; i < npad; i++) {
			int32_t *row = P->wi + i * npad;
			for (uint64_t j = 0; j < npad; j++)
				row[j] = ST_INF_I32;
			row[i] = 0;
		}
	} else {
		P->wf = g->w;
		for (uint64_t i = 0; i < npad; i++) {
			float *row = P->wf + i * npad;
			for (uint64_t j = 0; j < npad; j++)
				row[j] = INFINITY;
			row[i] = 0;
		}
	}
	return 0;
}

/* Can the element type hold w exactly? */
static int check_value(parser *P, double w)
{
	if (P->g->type == ST_INT32) {
		if (!(fabs(w) < ST_INF_I32))
			return fail(P, "value %.15g is out of the int32 range (|v| < %d)", w,
			            ST_INF_I32);
		if ((double)(int32_t)w != w)
			return fail(P, "value %.15g is not an integer: int32 cannot hold it "
			            "(use -t float32)", w);
	} else {
		float f = (float)w;
		if (isinf(f))
			return fail(P, "value %.15g overflows float32", w);
		if (P->integer_data && (double)f != w)
			return fail(P, "integer %.15g cannot be stored exactly as float32", w);
	}
	return 0;
}

static int push_edge(parser *P, uint64_t i, uint64_t j, double w)
{
	gio_graph *g = P->g;
	if (g->nedge == P->capedge) {
		size_t cap = P->capedge ? P->capedge * 2 : 1024;
		gio_edge *e = realloc(g->edge, cap * sizeof *e);
		if (!e)
			return fail(P, "out of memory");
		g->edge = e;
		P->capedge = cap;
	}
	g->edge[g->nedge++] = (gio_edge){(uint32_t)i, (uint32_t)j, w};
	return 0;
}

static inline void store_min(parser *P, uint64_t i, uint64_t j, double w)
{
	uint64_t k = i * P->g->npad + j;
	if (P->wi) {
		int32_t x = (int32_t)w;
		if (x < P->wi[k])
			P->wi[k] = x;
	} else {
		float x = (float)w;
		if (x < P->wf[k])
			P->wf[k] = x;
	}
}

/* One entry a(i,j) = v (0-based), through every policy. */
static int put(parser *P, uint64_t i, uint64_t j, double v)
{
	gio_graph *g = P->g;
	g->entries += (i != j && P->file_mirrored) ? 2 : 1;
	if (v < 0)
		g->negative++;
	double w = v;
	if (P->pattern || P->o->weights == GIO_UNIT)
		w = 1;
	else if (P->o->weights == GIO_ABS)
		w = fabs(v);
	if (w == 0)
		w = 0; /* no -0 */
	if (check_value(P, w) != 0)
		return -1;
	if (i == j) {
		if (w >= 0)
			return 0;
		if (P->o->edges_only)
			return push_edge(P, i, i, w);
		store_min(P, i, i, w);
		return 0;
	}
	double mw = P->mirror_neg && P->o->weights == GIO_VALUE ? -w : w;
	if (mw == 0)
		mw = 0;
	if (P->o->edges_only) {
		if (push_edge(P, i, j, w) != 0)
			return -1;
		return P->mirror ? push_edge(P, j, i, mw) : 0;
	}
	store_min(P, i, j, w);
	if (P->mirror)
		store_min(P, j, i, mw);
	return 0;
}

/* Symmetry policy and element type, once the file's kind is known. */
static void decide(parser *P, int sym, int integer_data, int pattern)
{
	gio_graph *g = P->g;
	P->integer_data = integer_data;
	P->pattern = pattern;
	P->file_mirrored = sym != S_GENERAL;
	switch (P->o->symmetry) {
	case GIO_DIRECTED:
		P->mirror = 0;
		break;
	case GIO_UNDIRECTED:
		P->mirror = 1;
		break;
	default:
		P->mirror = sym != S_GENERAL;
		P->mirror_neg = sym == S_SKEW;
	}
	g->flags = P->mirror && !P->mirror_neg ? 0 : ST_DIRECTED;
	g->type = P->o->type ? P->o->type : integer_data || pattern ? ST_INT32 : ST_FLOAT32;
}

/* ---- Matrix Market ---- */

static int word_is(const char *p, size_t n, const char *w)
{
	return strlen(w) == n && strncasecmp(p, w, n) == 0;
}

/* Split the banner into words; returns how many (at most max). */
static int words(const char *p, const char **w, size_t *len, int max)
{
	int k = 0;
	for (;;) {
		p = skip_blanks(p);
		if (*p == '\n' || k == max)
			return k;
		w[k] = p;
		while (!is_end(*p))
			p++;
		len[k] = (size_t)(p - w[k]);
		k++;
	}
}

static int mm_banner(parser *P, const char *p)
{
	const char *w[6];
	size_t len[6];
	char kind[64];
	gio_graph *g = P->g;

	p = skip_blanks(p);
	/* "%%MatrixMarket"; a single '%' is read too, as permissive readers do. */
	const char *b = p + (p[0] == '%') + (p[0] == '%' && p[1] == '%');
	if (p[0] != '%' || strncasecmp(b, "MatrixMarket", 12) != 0 || !is_end(b[12]))
		return fail(P, "not a Matrix Market file: the first line is not a "
		            "'%%%%MatrixMarket matrix ...' banner");
	int k = words(b + 12, w, len, 5);
	if (k < 4)
		return fail(P, "banner too short: expected '%%%%MatrixMarket matrix "
		            "FORMAT FIELD SYMMETRY'");
	if (word_is(w[0], len[0], "vector"))
		return fail(P, "a vector is not a graph: only 'matrix' objects can be read");
	if (!word_is(w[0], len[0], "matrix"))
		return fail(P, "unknown object '%s' (expected 'matrix')", token(P, w[0]));

	if (word_is(w[1], len[1], "coordinate"))
		P->array = 0;
	else if (word_is(w[1], len[1], "array"))
		P->array = 1;
	else
		return fail(P, "unknown format '%s' (expected 'coordinate' or 'array')",
		            token(P, w[1]));

	if (word_is(w[2], len[2], "real") || word_is(w[2], len[2], "double"))
		P->field = F_REAL;
	else if (word_is(w[2], len[2], "integer") || word_is(w[2], len[2], "unsigned-integer"))
		P->field = F_INTEGER;
	else if (word_is(w[2], len[2], "pattern"))
		P->field = F_PATTERN;
	else if (word_is(w[2], len[2], "complex"))
		return fail(P, "complex matrices are not supported: a complex weight has "
		            "no order (convert the matrix to real first)");
	else
		return fail(P, "unknown field '%s' (expected real, integer or pattern)",
		            token(P, w[2]));

	if (word_is(w[3], len[3], "general"))
		P->sym = S_GENERAL;
	else if (word_is(w[3], len[3], "symmetric"))
		P->sym = S_SYMMETRIC;
	else if (word_is(w[3], len[3], "skew-symmetric"))
		P->sym = S_SKEW;
	else if (word_is(w[3], len[3], "hermitian"))
		return fail(P, "hermitian matrices are not supported (hermitian means "
		            "complex values; a real one is 'symmetric')");
	else
		return fail(P, "unknown symmetry '%s' (expected general, symmetric or "
		            "skew-symmetric)", token(P, w[3]));

	if (P->field == F_PATTERN && P->array)
		return fail(P, "'array pattern' is not a valid combination");
	if (P->field == F_PATTERN && P->sym == S_SKEW)
		return fail(P, "'pattern skew-symmetric' is not a valid combination");

	snprintf(kind, sizeof kind, "%s %s %s", P->array ? "array" : "coordinate",
	         P->field == F_REAL ? "real" : P->field == F_INTEGER ? "integer" : "pattern",
	         P->sym == S_GENERAL ? "general" : P->sym == S_SYMMETRIC ? "symmetric"
	                                                                 : "skew-symmetric");
	memcpy(g->kind, kind, sizeof kind);
	decide(P, P->sym, P->field != F_REAL, P->field == F_PATTERN);
	P->state = ST_SIZE;
	return 0;
}

static int mm_size(parser *P, const char *p)
{
	uint64_t v[3];
	int want = P->array ? 2 : 3, k = 0;
	for (;;) {
		const char *t;
		p = skip_blanks(p);
		if (*p == '\n')
			break;
		if (k == want)
			return fail(P, "size line: expected %s", P->array ? "'rows columns'"
			                                                  : "'rows columns entries'");
		if (*p == '-')
			return fail(P, "size line: negative size %s", token(P, p));
		t = p;
		if (scan_uint(&p, &v[k]) != 0)
			return fail(P, "size line: '%s' is not a size", token(P, t));
		if (v[k] == UINT64_MAX)
			return fail(P, "size line: %s is too large", token(P, t));
		k++;
	}
	if (k != want)
		return fail(P, "size line: expected %s", P->array ? "'rows columns'"
		                                                  : "'rows columns entries'");
	if (v[0] != v[1])
		return fail(P, "the matrix is %llu x %llu: only a square matrix is a graph",
		            (unsigned long long)v[0], (unsigned long long)v[1]);
	uint64_t n = v[0];
	if (n > ST_MAX_N)
		return fail(P, "%llu vertices: more than the %llu a stream can hold",
		            (unsigned long long)n, (unsigned long long)ST_MAX_N);
	if (P->array)
		P->want = P->sym == S_GENERAL ? n * n : P->sym == S_SYMMETRIC ? n * (n + 1) / 2
		                                                              : n * (n - (n > 0)) / 2;
	else
		P->want = v[2];
	P->ai = P->sym == S_SKEW ? 1 : 0;
	P->aj = 0;
	if (alloc_dense(P, n) != 0)
		return -1;
	P->state = ST_DATA;
	return 0;
}

/* The data lines of one chunk (the hot loop). */
static const char *mm_data(parser *P, const char *p, const char *end)
{
	uint64_t n = P->g->n, i, j;
	double v;
	int integral;
	while (p < end) {
		const char *s = skip_blanks(p);
		if (*s == '\n' || *s == '%') {
			p = memchr(s, '\n', (size_t)(end - s)) + 1;
			P->line++;
			continue;
		}
		if (P->got == P->want)
			return fail(P, "more entries than the %llu the size line declares",
			            (unsigned long long)P->want), NULL;
		if (P->array) {
			i = P->ai, j = P->aj;
			if (read_value(P, &s, P->field, &v, &integral) != 0)
				return NULL;
			/* column-major; symmetric: lower triangle, skew: strictly lower */
			if (++P->ai == n) {
				P->aj++;
				P->ai = P->sym == S_GENERAL ? 0 : P->aj + (P->sym == S_SKEW);
			}
		} else {
			if (read_index(P, &s, n, "row", &i) != 0)
				return NULL;
			s = skip_blanks(s);
			if (read_index(P, &s, n, "column", &j) != 0)
				return NULL;
			s = skip_blanks(s);
			if (P->field == F_PATTERN) {
				v = 1;
			} else if (read_value(P, &s, P->field, &v, &integral) != 0) {
				return NULL;
			}
			if (i == j && P->sym == S_SKEW)
				return fail(P, "diagonal entry (%llu,%llu) in a skew-symmetric matrix",
				            (unsigned long long)i + 1, (unsigned long long)j + 1), NULL;
		}
		s = skip_blanks(s);
		if (*s != '\n')
			return fail(P, "unexpected '%s' after the %s", token(P, s),
			            P->array ? "value" : "entry"), NULL;
		P->got++;
		if (put(P, i, j, v) != 0)
			return NULL;
		p = s + 1;
		P->line++;
	}
	return p;
}

static int mm_lines(parser *P, const char *p, const char *end)
{
	while (p < end && P->state != ST_DATA) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (P->state == ST_BANNER) {
			if (mm_banner(P, p) != 0)
				return -1;
		} else {
			const char *s = skip_blanks(p);
			if (*s != '\n' && *s != '%' && mm_size(P, s) != 0)
				return -1;
		}
		p = nl + 1;
		P->line++;
	}
	if (p < end && !mm_data(P, p, end))
		return -1;
	return 0;
}

static int mm_finish(parser *P)
{
	if (P->state == ST_BANNER)
		return fail(P, "empty file: no '%%%%MatrixMarket' banner");
	if (P->state == ST_SIZE)
		return fail(P, "no size line");
	if (P->got != P->want)
		return fail(P, "expected %llu %s, found %llu (truncated file?)",
		            (unsigned long long)P->want, P->array ? "values" : "entries",
		            (unsigned long long)P->got);
	return 0;
}

/* ---- edge lists and DIMACS ---- */

static int raw_push(parser *P, uint64_t u, uint64_t v, double w, int integral, uint64_t line)
{
	if (P->nraw == P->capraw) {
		size_t cap = P->capraw ? P->capraw * 2 : 4096;
		raw_edge *r = realloc(P->raw, cap * sizeof *r);
		if (!r)
			return fail(P, "out of memory");
		P->raw = r;
		P->capraw = cap;
	}
	P->raw[P->nraw++] = (raw_edge){(uint32_t)u, (uint32_t)v, integral, line, w};
	if (u > P->maxv)
		P->maxv = u;
	if (v > P->maxv)
		P->maxv = v;
	if (!integral)
		P->all_integral = 0;
	return 0;
}

/* A vertex number of an edge list, base o->base; 0-based result. */
static int edge_vertex(parser *P, const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v, base = (uint64_t)P->o->base;
	if (*p == '-' && (unsigned)(p[1] - '0') < 10)
		return fail(P, "negative vertex %s", token(P, p));
	if (scan_uint(pp, &v) != 0)
		return fail(P, "'%s' is not a vertex number", token(P, p));
	if (v < base)
		return fail(P, "vertex %s is below the base %llu (see --base)", token(P, p),
		            (unsigned long long)base);
	if (v - base >= ST_MAX_N)
		return fail(P, "vertex %s is too large", token(P, p));
	if (P->have_size && v - base >= P->size_n)
		return fail(P, "vertex %s is out of range %llu..%llu (see --base)", token(P, p),
		            (unsigned long long)base, (unsigned long long)(P->size_n + base - 1));
	*out = v - base;
	return 0;
}

static int edge_lines(parser *P, const char *p, const char *end)
{
	while (p < end) {
		const char *s = skip_blanks(p);
		uint64_t u, v;
		double w = 1;
		int integral = 1, k = 2;
		if (*s == '\n' || *s == '#' || *s == '%')
			goto next;
		if (edge_vertex(P, &s, &u) != 0)
			return -1;
		s = skip_blanks(s);
		if (*s == '\n')
			return fail(P, "expected 'u v [weight]'");
		if (edge_vertex(P, &s, &v) != 0)
			return -1;
		s = skip_blanks(s);
		if (*s != '\n') {
			if (read_value(P, &s, F_REAL, &w, &integral) != 0)
				return -1;
			k = 3;
			s = skip_blanks(s);
			if (*s != '\n')
				return fail(P, "unexpected '%s': expected 'u v [weight]'", token(P, s));
		}
		if (P->pending) {
			/* "n m" then weighted edges: the first line gave the size. */
			P->pending = 0;
			if (k == 3) {
				P->have_size = 1;
				P->size_n = P->pend_a + (uint64_t)P->o->base;
				P->size_m = P->pend_b + (uint64_t)P->o->base;
				if (u >= P->size_n || v >= P->size_n) {
					uint64_t bad = u >= P->size_n ? u : v;
					return fail(P, "vertex %llu is out of range %d..%llu (the size "
					            "line says %llu vertices)",
					            (unsigned long long)(bad + (uint64_t)P->o->base), P->o->base,
					            (unsigned long long)(P->size_n - 1 + (uint64_t)P->o->base),
					            (unsigned long long)P->size_n);
				}
			} else {
				P->fields = 2;
				if (raw_push(P, P->pend_a, P->pend_b, 1, 1, P->pend_line) != 0)
					return -1;
			}
		} else if (P->fields == 0 && P->nraw == 0 && k == 2 && !P->have_size) {
			P->pending = 1;
			P->pend_a = u, P->pend_b = v, P->pend_line = P->line;
			goto next;
		}
		if (P->fields == 0)
			P->fields = k;
		else if (P->fields != k)
			return fail(P, "%d fields, but the lines before have %d", k, P->fields);
		if (raw_push(P, u, v, w, integral, P->line) != 0)
			return -1;
next:
		p = memchr(s, '\n', (size_t)(end - s)) + 1;
		P->line++;
	}
	return 0;
}

static int dimacs_lines(parser *P, const char *p, const char *end)
{
	while (p < end) {
		const char *s = skip_blanks(p);
		if (*s == '\n' || (*s == 'c' && is_end(s[1])))
			goto next;
		if (*s == 'p' && is_end(s[1])) {
			const char *w[4];
			size_t len[4];
			uint64_t nm[2];
			if (P->have_size)
				return fail(P, "a second 'p' line");
			if (words(s + 1, w, len, 4) != 3 || !word_is(w[0], len[0], "sp"))
				return fail(P, "expected 'p sp NODES ARCS'");
			for (int k = 0; k < 2; k++) {
				const char *q = w[k + 1];
				if (scan_uint(&q, &nm[k]) != 0 || nm[k] == UINT64_MAX)
					return fail(P, "'%s' is not a count", token(P, w[k + 1]));
			}
			if (nm[0] > ST_MAX_N)
				return fail(P, "%llu vertices: more than the %llu a stream can hold",
				            (unsigned long long)nm[0], (unsigned long long)ST_MAX_N);
			P->have_size = 1;
			P->size_n = nm[0], P->size_m = nm[1];
			goto next;
		}
		if (*s == 'a' && is_end(s[1])) {
			uint64_t u, v;
			double w;
			int integral;
			if (!P->have_size)
				return fail(P, "an arc before the 'p sp NODES ARCS' line");
			s = skip_blanks(s + 1);
			if (read_index(P, &s, P->size_n, "tail", &u) != 0)
				return -1;
			s = skip_blanks(s);
			if (read_index(P, &s, P->size_n, "head", &v) != 0)
				return -1;
			s = skip_blanks(s);
			if (read_value(P, &s, F_REAL, &w, &integral) != 0)
				return -1;
			s = skip_blanks(s);
			if (*s != '\n')
				return fail(P, "unexpected '%s': expected 'a TAIL HEAD WEIGHT'", token(P, s));
			if (raw_push(P, u, v, w, integral, P->line) != 0)
				return -1;
			goto next;
		}
		return fail(P, "unknown line '%s' (expected 'c', 'p' or 'a' lines)", token(P, s));
next:
		p = memchr(s, '\n', (size_t)(end - s)) + 1;
		P->line++;
	}
	return 0;
}

/* The list is complete: choose the type, size the matrix, apply policies. */
static int list_finish(parser *P)
{
	gio_graph *g = P->g;
	uint64_t lastline = P->line;
	if (P->format == GIO_DIMACS && !P->have_size)
		return fail(P, "no 'p sp NODES ARCS' line");
	if (P->pending) { /* a lone two-field line: one unweighted edge */
		P->fields = 2;
		if (raw_push(P, P->pend_a, P->pend_b, 1, 1, P->pend_line) != 0)
			return -1;
	}
	if (P->have_size && P->nraw != P->size_m)
		return fail(P, "expected %llu %s, found %llu", (unsigned long long)P->size_m,
		            P->format == GIO_DIMACS ? "arcs" : "edges", (unsigned long long)P->nraw);
	uint64_t n = P->have_size ? P->size_n : P->nraw ? P->maxv + 1 : 0;
	decide(P, S_GENERAL, P->all_integral, P->fields == 2);
	snprintf(g->kind, sizeof g->kind, "%s%s", P->format == GIO_DIMACS ? "dimacs" : "edges",
	         P->fields == 2 ? " unweighted" : "");
	if (alloc_dense(P, n) != 0)
		return -1;
	for (size_t k = 0; k < P->nraw; k++) {
		raw_edge *r = &P->raw[k];
		P->line = r->line;
		if (put(P, r->u, r->v, r->w) != 0)
			return -1;
	}
	P->line = lastline;
	return 0;
}

/* ---- driver ---- */

int gio_detect(const char *name, const void *head, size_t len)
{
	const char *p = head, *end = p + len;
	while (p < end && (is_blank(*p) || *p == '\n'))
		p++;
	size_t rest = (size_t)(end - p);
	if (rest >= 13 && p[0] == '%' &&
	    (strncasecmp(p + 1, "MatrixMarket", 12) == 0 ||
	     (rest >= 14 && p[1] == '%' && strncasecmp(p + 2, "MatrixMarket", 12) == 0)))
		return GIO_MTX;
	if (name) {
		static const char *const mtx[] = {".mtx", ".mtx.gz", ".mm", ".mm.gz"};
		static const char *const gr[] = {".gr", ".gr.gz", ".dimacs"};
		size_t nl = strlen(name);
		for (size_t k = 0; k < sizeof mtx / sizeof *mtx; k++)
			if (nl >= strlen(mtx[k]) && strcasecmp(name + nl - strlen(mtx[k]), mtx[k]) == 0)
				return GIO_MTX;
		for (size_t k = 0; k < sizeof gr / sizeof *gr; k++)
			if (nl >= strlen(gr[k]) && strcasecmp(name + nl - strlen(gr[k]), gr[k]) == 0)
				return GIO_DIMACS;
	}
	if (rest >= 2 && (p[0] == 'c' || p[0] == 'p') && (is_blank(p[1]) || p[1] == '\n'))
		return GIO_DIMACS;
	return GIO_EDGES;
}

const char *gio_format_name(int format)
{
	switch (format) {
	case GIO_MTX: return "mtx";
	case GIO_DIMACS: return "dimacs";
	case GIO_EDGES: return "edges";
	default: return "auto";
	}
}

int gio_format_parse(const char *s)
{
	if (!strcmp(s, "mtx") || !strcmp(s, "mm"))
		return GIO_MTX;
	if (!strcmp(s, "dimacs") || !strcmp(s, "gr"))
		return GIO_DIMACS;
	if (!strcmp(s, "edges"))
		return GIO_EDGES;
	if (!strcmp(s, "auto"))
		return GIO_AUTO;
	return -1;
}

void gio_opts_init(gio_opts *o)
{
	memset(o, 0, sizeof *o);
	o->pad = 1;
}

void gio_graph_free(gio_graph *g)
{
	free(g->w);
	free(g->edge);
	memset(g, 0, sizeof *g);
}

static int parse_chunk(parser *P, const char *p, const char *end)
{
	switch (P->format) {
	case GIO_MTX: return mm_lines(P, p, end);
	case GIO_DIMACS: return dimacs_lines(P, p, end);
	default: return edge_lines(P, p, end);
	}
}

/* Count the result's edges and negative weights. */
static void summarize(gio_graph *g)
{
	uint64_t edges = 0, npad = g->npad;
	int neg = 0;
	if (!g->w) { /* edges_only: the list, possibly empty */
		for (size_t k = 0; k < g->nedge; k++) {
			edges += g->edge[k].u != g->edge[k].v;
			neg |= g->edge[k].w < 0;
		}
	} else if (g->type == ST_INT32) {
		const int32_t *w = g->w;
		for (uint64_t k = 0; k < npad * npad; k++) {
			edges += w[k] != ST_INF_I32;
			neg |= w[k] < 0;
		}
		edges -= npad;
	} else {
		const float *w = g->w;
		for (uint64_t k = 0; k < npad * npad; k++) {
			edges += w[k] != INFINITY;
			neg |= w[k] < 0;
		}
		edges -= npad;
	}
	g->edges = edges;
	if (neg)
		g->flags |= ST_NEGATIVE;
}

int gio_read(const char *name, gio_read_fn rd, void *ctx, const gio_opts *o,
             gio_graph *g, st_error *err)
{
	parser P = {.name = name ? name : "-", .o = o, .g = g, .err = err, .line = 1,
	            .format = o->format, .all_integral = 1};
	size_t cap = CHUNK, have = 0;
	int eof = 0, rc = -1, empty = 1;
	char *buf = malloc(cap + 1);

	memset(g, 0, sizeof *g);
	if (!buf) {
		snprintf(err->msg, sizeof err->msg, "%s: out of memory", P.name);
		return -1;
	}
	while (!eof) {
		ssize_t r = rd(ctx, buf + have, cap - have, err);
		if (r < 0)
			goto out;
		if (r == 0)
			eof = 1;
		else
			empty = 0;
		have += (size_t)r;
		if (P.format == GIO_AUTO) {
			if (have < 4096 && !eof)
				continue;
			P.format = gio_detect(name, buf, have);
		}
		char *last = have ? memrchr(buf, '\n', have) : NULL;
		if (eof && have && buf[have - 1] != '\n') {
			buf[have++] = '\n'; /* a missing final newline */
			last = buf + have - 1;
		}
		if (!last) {
			if (have == cap) {
				if (cap >= MAX_LINE) {
					fail(&P, "line longer than %zu bytes", MAX_LINE);
					goto out;
				}
				char *nb = realloc(buf, cap * 2 + 1);
				if (!nb) {
					fail(&P, "out of memory");
					goto out;
				}
				buf = nb, cap *= 2;
			}
			continue;
		}
		size_t used = (size_t)(last + 1 - buf);
		if (parse_chunk(&P, buf, last + 1) != 0)
			goto out;
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	if (empty) {
		snprintf(err->msg, sizeof err->msg, "%s: empty input", P.name);
		goto out;
	}
	if (P.line > 1)
		P.line--; /* messages at the end name the last line */
	g->format = P.format;
	if (P.format == GIO_MTX ? mm_finish(&P) : list_finish(&P))
		goto out;
	summarize(g);
	rc = 0;
out:
	free(buf);
	free(P.raw);
	if (rc != 0)
		gio_graph_free(g);
	return rc;
}

struct membuf {
	const char *p;
	size_t left;
};

static ssize_t read_mem(void *ctx, void *buf, size_t len, st_error *err)
{
	struct membuf *m = ctx;
	size_t n = len < m->left ? len : m->left;
	memcpy(buf, m->p, n);
	m->p += n, m->left -= n;
	return (ssize_t)n;
}

int gio_read_buffer(const char *name, const void *buf, size_t len, const gio_opts *o,
                    gio_graph *g, st_error *err)
{
	struct membuf m = {buf, len};
	return gio_read(name, read_mem, &m, o, g, err);
}
