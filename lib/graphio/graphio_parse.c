/* graphio_parse.c - what every graph reader shares: messages naming the
 * file and line, numbers read exactly, tokens, and the policies that turn an
 * entry into the weight matrix or the edge list (see graphio.h). */
#include "graphio_internal.h"
#include "common.h"
#include "stream.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* ---- messages ---- */

int gp_fail(parser *P, const char *fmt, ...)
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

/* The token at p, shortened, for a message. */
const char *gp_token(parser *P, const char *p)
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
int gp_scan_uint(const char **pp, uint64_t *out)
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
int gp_read_value(parser *P, const char **pp, int field, double *v, int *integral)
{
	const char *p = *pp;
	int r;
	if (*p == '\n')
		return gp_fail(P, "missing value");
	if (field == F_INTEGER) {
		*integral = 1;
		r = scan_int(pp, v);
		if (r == -1)
			return gp_fail(P, "'%s' is not an integer", gp_token(P, p));
	} else {
		r = scan_real(pp, v, integral);
		if (r == -1 && is_inf_nan(p))
			return gp_fail(P, "'%s': infinite or NaN values are not edge weights", gp_token(P, p));
		if (r == -1)
			return gp_fail(P, "'%s' is not a number", gp_token(P, p));
	}
	if (r == -2)
		return gp_fail(P, "value '%s' is out of range", gp_token(P, p));
	return 0;
}

/* A vertex index in 1..n (Matrix Market, DIMACS). */
int gp_read_index(parser *P, const char **pp, uint64_t n, const char *what, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v;
	if (*p == '\n')
		return gp_fail(P, "missing %s index", what);
	if (*p == '-' && (unsigned)(p[1] - '0') < 10)
		return gp_fail(P, "%s index %s is out of range 1..%llu", what, gp_token(P, p),
		            (unsigned long long)n);
	if (gp_scan_uint(pp, &v) != 0)
		return gp_fail(P, "%s index '%s' is not a number", what, gp_token(P, p));
	if (v == 0 || v > n)
		return gp_fail(P, "%s index %s is out of range 1..%llu%s", what, gp_token(P, p),
		            (unsigned long long)n, v == 0 ? " (indices are 1-based)" : "");
	*out = v - 1;
	return 0;
}

/* ---- the result ---- */

int gp_check_size(parser *P, uint64_t n)
{
	uint64_t pad = P->o->pad ? P->o->pad : 1;
	if (n > ST_MAX_N)
		return gp_fail(P, "%llu vertices: more than the %llu a stream can hold",
		            (unsigned long long)n, (unsigned long long)ST_MAX_N);
	if ((n + pad - 1) / pad * pad >= ST_MAX_N) /* the stream's own limit */
		return gp_fail(P, "%llu vertices padded to a multiple of %llu: a stream holds fewer than %llu",
		            (unsigned long long)n, (unsigned long long)pad,
		            (unsigned long long)ST_MAX_N);
	if (P->o->edges_only)
		return 0;
	uint64_t npad = (n + pad - 1) / pad * pad;
	/* Refuse before allocating what the machine cannot hold: a malloc that
	 * overcommit lets through would die later, in the fill. */
	const double need = (double)npad * (double)npad * ST_TYPE_SIZE(P->o->type);
	const double have = (double)lib_physical_memory();
	char why[200];
	if ((npad && npad > SIZE_MAX / 8 / npad) || need > have)
		return gp_fail(P, "%s", lib_memory_refusal(why, sizeof why, npad, need, have, 2));
	return 0;
}

int gp_alloc_dense(parser *P, uint64_t n)
{
	gio_graph *g = P->g;
	uint64_t pad = P->o->pad ? P->o->pad : 1;
	if (gp_check_size(P, n) != 0)
		return -1;
	g->n = n;
	g->npad = (n + pad - 1) / pad * pad;
	if (P->o->edges_only)
		return 0;
	uint64_t npad = g->npad;
	const uint64_t es = ST_TYPE_SIZE(g->type);
	g->w = malloc(npad * npad * es + 8);
	if (!g->w)
		return gp_fail(P, "a %llu x %llu matrix (%.1f MiB): out of memory",
		            (unsigned long long)npad, (unsigned long long)npad,
		            (double)npad * npad * es / 1048576);
	gp_no_edges(g->type, npad, g->w, 0);
	return 0;
}

/* Can the element type hold w exactly? */
static int check_value(parser *P, double w)
{
	if (P->g->type == ST_INT32) {
		if (!(fabs(w) < ST_INF_I32))
			return gp_fail(P, "value %.15g is out of the int32 range (|v| < %d)", w,
			            ST_INF_I32);
		if ((double)(int32_t)w != w)
			return gp_fail(P, "value %.15g is not an integer: int32 cannot hold it "
			            "(use -t float32)", w);
	} else if (P->g->type == ST_FLOAT64) {
		if (!isfinite(w))
			return gp_fail(P, "value %.17g is not a finite weight", w);
	} else {
		float f = (float)w;
		if (isinf(f))
			return gp_fail(P, "value %.15g overflows float32", w);
		if (P->integer_data && (double)f != w)
			return gp_fail(P, "integer %.15g cannot be stored exactly as float32", w);
	}
	return 0;
}

/* Room for one more of used elements of size bytes in *p (capacity *cap,
 * doubled, first elements at the start): 0, or -1 out of memory. */
static int grow(parser *P, void **p, size_t *cap, size_t used, size_t size, size_t first)
{
	if (used < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : first;
	void *q = realloc(*p, c * size);
	if (!q)
		return gp_fail(P, "out of memory");
	*p = q;
	*cap = c;
	return 0;
}

static int push_edge(parser *P, uint64_t i, uint64_t j, double w)
{
	gio_graph *g = P->g;
	void *e = g->edge;
	if (grow(P, &e, &P->capedge, g->nedge, sizeof *g->edge, 1024) < 0)
		return -1;
	g->edge = e;
	g->edge[g->nedge++] = (gio_edge){(uint32_t)i, (uint32_t)j, w};
	return 0;
}

void gp_no_edges(uint32_t type, uint64_t npad, void *w, int threads)
{
#define NO_EDGES(T, inf)                                                        \
	_Pragma("omp parallel for schedule(static) LIB_OMP_THREADS(threads)")    \
	for (uint64_t i = 0; i < npad; i++) {                                   \
		T *row = (T *)w + i * npad;                                     \
		for (uint64_t j = 0; j < npad; j++)                             \
			row[j] = (inf);                                         \
		row[i] = 0;                                                     \
	}
	if (type == ST_INT32)
		NO_EDGES(int32_t, ST_INF_I32)
	else if (type == ST_FLOAT32)
		NO_EDGES(float, INFINITY)
	else
		NO_EDGES(double, INFINITY)
#undef NO_EDGES
}

void gp_store_min(uint32_t type, void *w, uint64_t k, double x)
{
	if (type == ST_INT32) {
		if ((int32_t)x < ((int32_t *)w)[k])
			((int32_t *)w)[k] = (int32_t)x;
	} else if (type == ST_FLOAT32) {
		if ((float)x < ((float *)w)[k])
			((float *)w)[k] = (float)x;
	} else if (x < ((double *)w)[k]) {
		((double *)w)[k] = x;
	}
}

static inline void store_min(parser *P, uint64_t i, uint64_t j, double w)
{
	gp_store_min(P->g->type, P->g->w, i * P->g->npad + j, w);
}

/* One entry a(i,j) = v (0-based), through every policy. */
int gp_put(parser *P, uint64_t i, uint64_t j, double v)
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
void gp_decide(parser *P, int sym, int integer_data, int pattern)
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

/* ---- edge lists and DIMACS ---- */

int gp_raw_push(parser *P, uint64_t u, uint64_t v, double w, int integral, uint64_t line)
{
	void *r = P->raw;
	if (grow(P, &r, &P->capraw, P->nraw, sizeof *P->raw, 4096) < 0)
		return -1;
	P->raw = r;
	P->raw[P->nraw++] = (raw_edge){(uint32_t)u, (uint32_t)v, integral, line, w};
	if (u > P->maxv)
		P->maxv = u;
	if (v > P->maxv)
		P->maxv = v;
	if (!integral)
		P->all_integral = 0;
	return 0;
}

/* The list is complete: choose the type, size the matrix, apply policies. */
int gp_list_finish(parser *P)
{
	gio_graph *g = P->g;
	uint64_t lastline = P->line;
	if (P->format == GIO_DIMACS && !P->have_size)
		return gp_fail(P, "no 'p sp NODES ARCS' line");
	if (P->pending) { /* a lone two-field line: one unweighted edge */
		P->fields = 2;
		if (gp_raw_push(P, P->pend_a, P->pend_b, 1, 1, P->pend_line) != 0)
			return -1;
	}
	if (P->have_size && P->nraw != P->size_m)
		return gp_fail(P, "expected %llu %s, found %llu", (unsigned long long)P->size_m,
		            P->format == GIO_DIMACS ? "arcs" : "edges", (unsigned long long)P->nraw);
	uint64_t n = P->have_size ? P->size_n : P->nraw ? P->maxv + 1 : 0;
	gp_decide(P, S_GENERAL, P->all_integral, P->fields == 2);
	snprintf(g->kind, sizeof g->kind, "%s%s", P->format == GIO_DIMACS ? "dimacs" : "edges",
	         P->fields == 2 ? " unweighted" : "");
	if (gp_alloc_dense(P, n) != 0)
		return -1;
	for (size_t k = 0; k < P->nraw; k++) {
		raw_edge *r = &P->raw[k];
		P->line = r->line;
		if (gp_put(P, r->u, r->v, r->w) != 0)
			return -1;
	}
	P->line = lastline;
	return 0;
}

int gp_word_is(const char *p, size_t n, const char *w)
{
	return strlen(w) == n && strncasecmp(p, w, n) == 0;
}

/* Split the banner into words; returns how many (at most max). */
int gp_words(const char *p, const char **w, size_t *len, int max)
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
