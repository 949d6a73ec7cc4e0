/* graphio_edges.c - the edge-list reader: "u v [w]" lines, an optional
 * size line first (see graphio.h). */
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

/* A vertex number of an edge list, base o->base; 0-based result. */
static int edge_vertex(parser *P, const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v, base = (uint64_t)P->o->base;
	if (*p == '-' && (unsigned)(p[1] - '0') < 10)
		return gp_fail(P, "negative vertex %s", gp_token(P, p));
	if (gp_scan_uint(pp, &v) != 0)
		return gp_fail(P, "'%s' is not a vertex number", gp_token(P, p));
	if (v < base)
		return gp_fail(P, "vertex %s is below the base %llu (see --base)", gp_token(P, p),
		            (unsigned long long)base);
	if (v - base >= ST_MAX_N)
		return gp_fail(P, "vertex %s is too large", gp_token(P, p));
	if (P->have_size && v - base >= P->size_n)
		return gp_fail(P, "vertex %s is out of range %llu..%llu (see --base)", gp_token(P, p),
		            (unsigned long long)base, (unsigned long long)(P->size_n + base - 1));
	*out = v - base;
	return 0;
}

int gp_edge_lines(parser *P, const char *p, const char *end)
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
			return gp_fail(P, "expected 'u v [weight]'");
		if (edge_vertex(P, &s, &v) != 0)
			return -1;
		s = skip_blanks(s);
		if (*s != '\n') {
			if (gp_read_value(P, &s, F_REAL, &w, &integral) != 0)
				return -1;
			k = 3;
			s = skip_blanks(s);
			if (*s != '\n')
				return gp_fail(P, "unexpected '%s': expected 'u v [weight]'", gp_token(P, s));
		}
		if (P->pending) {
			/* "n m" then weighted edges: the first line gave the size. */
			P->pending = 0;
			if (k == 3) {
				P->have_size = 1;
				P->size_n = P->pend_a + (uint64_t)P->o->base;
				P->size_m = P->pend_b + (uint64_t)P->o->base;
				if ((u >= P->size_n || v >= P->size_n) && P->size_n == 0)
					return gp_fail(P, "vertex %llu, but the size line says 0 vertices",
					            (unsigned long long)((u > v ? u : v) + (uint64_t)P->o->base));
				if (u >= P->size_n || v >= P->size_n) {
					uint64_t bad = u >= P->size_n ? u : v;
					return gp_fail(P, "vertex %llu is out of range %d..%llu (the size "
					            "line says %llu vertices)",
					            (unsigned long long)(bad + (uint64_t)P->o->base), P->o->base,
					            (unsigned long long)(P->size_n - 1 + (uint64_t)P->o->base),
					            (unsigned long long)P->size_n);
				}
			} else {
				P->fields = 2;
				if (gp_raw_push(P, P->pend_a, P->pend_b, 1, 1, P->pend_line) != 0)
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
			return gp_fail(P, "%d fields, but the lines before have %d", k, P->fields);
		if (gp_raw_push(P, u, v, w, integral, P->line) != 0)
			return -1;
next:
		p = memchr(s, '\n', (size_t)(end - s)) + 1;
		P->line++;
	}
	return 0;
}
