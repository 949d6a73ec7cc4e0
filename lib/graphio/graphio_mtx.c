/* graphio_mtx.c - the Matrix Market reader: banner, size line, and
 * coordinate or array entries (see graphio.h for the policies). */
#include "graphio_internal.h"
#include "common.h"
#include "stream.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* ---- Matrix Market ---- */

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
		return gp_fail(P, "not a Matrix Market file: the first line is not a "
		            "'%%%%MatrixMarket matrix ...' banner");
	int k = gp_words(b + 12, w, len, 5);
	if (k < 4)
		return gp_fail(P, "banner too short: expected '%%%%MatrixMarket matrix "
		            "FORMAT FIELD SYMMETRY'");
	if (gp_word_is(w[0], len[0], "vector"))
		return gp_fail(P, "a vector is not a graph: only 'matrix' objects can be read");
	if (!gp_word_is(w[0], len[0], "matrix"))
		return gp_fail(P, "unknown object '%s' (expected 'matrix')", gp_token(P, w[0]));

	if (gp_word_is(w[1], len[1], "coordinate"))
		P->array = 0;
	else if (gp_word_is(w[1], len[1], "array"))
		P->array = 1;
	else
		return gp_fail(P, "unknown format '%s' (expected 'coordinate' or 'array')",
		            gp_token(P, w[1]));

	if (gp_word_is(w[2], len[2], "real") || gp_word_is(w[2], len[2], "double"))
		P->field = F_REAL;
	else if (gp_word_is(w[2], len[2], "integer") || gp_word_is(w[2], len[2], "unsigned-integer"))
		P->field = F_INTEGER;
	else if (gp_word_is(w[2], len[2], "pattern"))
		P->field = F_PATTERN;
	else if (gp_word_is(w[2], len[2], "complex"))
		return gp_fail(P, "complex matrices are not supported: a complex weight has "
		            "no order (convert the matrix to real first)");
	else
		return gp_fail(P, "unknown field '%s' (expected real, integer or pattern)",
		            gp_token(P, w[2]));

	if (gp_word_is(w[3], len[3], "general"))
		P->sym = S_GENERAL;
	else if (gp_word_is(w[3], len[3], "symmetric"))
		P->sym = S_SYMMETRIC;
	else if (gp_word_is(w[3], len[3], "skew-symmetric"))
		P->sym = S_SKEW;
	else if (gp_word_is(w[3], len[3], "hermitian"))
		return gp_fail(P, "hermitian matrices are not supported (hermitian means "
		            "complex values; a real one is 'symmetric')");
	else
		return gp_fail(P, "unknown symmetry '%s' (expected general, symmetric or "
		            "skew-symmetric)", gp_token(P, w[3]));

	if (P->field == F_PATTERN && P->array)
		return gp_fail(P, "'array pattern' is not a valid combination");
	if (P->field == F_PATTERN && P->sym == S_SKEW)
		return gp_fail(P, "'pattern skew-symmetric' is not a valid combination");

	snprintf(kind, sizeof kind, "%s %s %s", P->array ? "array" : "coordinate",
	         P->field == F_REAL ? "real" : P->field == F_INTEGER ? "integer" : "pattern",
	         P->sym == S_GENERAL ? "general" : P->sym == S_SYMMETRIC ? "symmetric"
	                                                                 : "skew-symmetric");
	memcpy(g->kind, kind, sizeof kind);
	gp_decide(P, P->sym, P->field != F_REAL, P->field == F_PATTERN);
	P->state = MM_SIZE;
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
			return gp_fail(P, "size line: expected %s", P->array ? "'rows columns'"
			                                                  : "'rows columns entries'");
		if (*p == '-')
			return gp_fail(P, "size line: negative size %s", gp_token(P, p));
		t = p;
		if (gp_scan_uint(&p, &v[k]) != 0)
			return gp_fail(P, "size line: '%s' is not a size", gp_token(P, t));
		if (v[k] == UINT64_MAX)
			return gp_fail(P, "size line: %s is too large", gp_token(P, t));
		k++;
	}
	if (k != want)
		return gp_fail(P, "size line: expected %s", P->array ? "'rows columns'"
		                                                  : "'rows columns entries'");
	if (v[0] != v[1])
		return gp_fail(P, "the matrix is %llu x %llu: only a square matrix is a graph",
		            (unsigned long long)v[0], (unsigned long long)v[1]);
	uint64_t n = v[0];
	if (n > ST_MAX_N)
		return gp_fail(P, "%llu vertices: more than the %llu a stream can hold",
		            (unsigned long long)n, (unsigned long long)ST_MAX_N);
	if (P->array)
		P->want = P->sym == S_GENERAL ? n * n : P->sym == S_SYMMETRIC ? n * (n + 1) / 2
		                                                              : n * (n - (n > 0)) / 2;
	else
		P->want = v[2];
	P->ai = P->sym == S_SKEW ? 1 : 0;
	P->aj = 0;
	if (gp_alloc_dense(P, n) != 0)
		return -1;
	P->state = MM_DATA;
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
			return gp_fail(P, "more entries than the %llu the size line declares",
			            (unsigned long long)P->want), NULL;
		if (P->array) {
			i = P->ai, j = P->aj;
			if (gp_read_value(P, &s, P->field, &v, &integral) != 0)
				return NULL;
			/* column-major; symmetric: lower triangle, skew: strictly lower */
			if (++P->ai == n) {
				P->aj++;
				P->ai = P->sym == S_GENERAL ? 0 : P->aj + (P->sym == S_SKEW);
			}
		} else {
			if (gp_read_index(P, &s, n, "row", &i) != 0)
				return NULL;
			s = skip_blanks(s);
			if (gp_read_index(P, &s, n, "column", &j) != 0)
				return NULL;
			s = skip_blanks(s);
			if (P->field == F_PATTERN) {
				v = 1;
			} else if (gp_read_value(P, &s, P->field, &v, &integral) != 0) {
				return NULL;
			}
			if (i == j && P->sym == S_SKEW)
				return gp_fail(P, "diagonal entry (%llu,%llu) in a skew-symmetric matrix",
				            (unsigned long long)i + 1, (unsigned long long)j + 1), NULL;
		}
		s = skip_blanks(s);
		if (*s != '\n')
			return gp_fail(P, "unexpected '%s' after the %s", gp_token(P, s),
			            P->array ? "value" : "entry"), NULL;
		P->got++;
		if (gp_put(P, i, j, v) != 0)
			return NULL;
		p = s + 1;
		P->line++;
	}
	return p;
}

int gp_mm_lines(parser *P, const char *p, const char *end)
{
	while (p < end && P->state != MM_DATA) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (P->state == MM_BANNER) {
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

int gp_mm_finish(parser *P)
{
	if (P->state == MM_BANNER)
		return gp_fail(P, "empty file: no '%%%%MatrixMarket' banner");
	if (P->state == MM_SIZE)
		return gp_fail(P, "no size line");
	if (P->got != P->want)
		return gp_fail(P, "expected %llu %s, found %llu (truncated file?)",
		            (unsigned long long)P->want, P->array ? "values" : "entries",
		            (unsigned long long)P->got);
	return 0;
}
