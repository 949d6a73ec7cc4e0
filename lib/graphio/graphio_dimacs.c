/* graphio_dimacs.c - the DIMACS shortest-path reader (.gr): the "p sp n m"
 * line, then "a u v w" arcs (see graphio.h). */
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

int gp_dimacs_lines(parser *P, const char *p, const char *end)
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
				return gp_fail(P, "a second 'p' line");
			if (gp_words(s + 1, w, len, 4) != 3 || !gp_word_is(w[0], len[0], "sp"))
				return gp_fail(P, "expected 'p sp NODES ARCS'");
			for (int k = 0; k < 2; k++) {
				const char *q = w[k + 1];
				if (gp_scan_uint(&q, &nm[k]) != 0 || nm[k] == UINT64_MAX)
					return gp_fail(P, "'%s' is not a count", gp_token(P, w[k + 1]));
			}
			if (gp_check_size(P, nm[0]) != 0) /* at this line, not at the end */
				return -1;
			P->have_size = 1;
			P->size_n = nm[0], P->size_m = nm[1];
			goto next;
		}
		if (*s == 'a' && is_end(s[1])) {
			uint64_t u, v;
			double w;
			int integral;
			if (!P->have_size)
				return gp_fail(P, "an arc before the 'p sp NODES ARCS' line");
			s = skip_blanks(s + 1);
			if (gp_read_index(P, &s, P->size_n, "tail", &u) != 0)
				return -1;
			s = skip_blanks(s);
			if (gp_read_index(P, &s, P->size_n, "head", &v) != 0)
				return -1;
			s = skip_blanks(s);
			if (gp_read_value(P, &s, F_REAL, &w, &integral) != 0)
				return -1;
			s = skip_blanks(s);
			if (*s != '\n')
				return gp_fail(P, "unexpected '%s': expected 'a TAIL HEAD WEIGHT'", gp_token(P, s));
			if (gp_raw_push(P, u, v, w, integral, P->line) != 0)
				return -1;
			goto next;
		}
		return gp_fail(P, "unknown line '%s' (expected 'c', 'p' or 'a' lines)", gp_token(P, s));
next:
		p = memchr(s, '\n', (size_t)(end - s)) + 1;
		P->line++;
	}
	return 0;
}
