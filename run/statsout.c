/* statsout.c - the statistics table, summary and JSON (see statsout.h).
 * Integers are printed exactly; floating values with as many digits as
 * read back to the same double (%.17g) or float (%.9g). */
#include "statsout.h"

#include <inttypes.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "stream.h"
#include "tool.h"

int stats_option(int c, const char *arg, struct stats_form *f)
{
	switch (c) {
	case STATS_OPT_SUMMARY: f->what = STATS_SUMMARY; return 1;
	case STATS_OPT_JSON: f->json = 1; return 1;
	case STATS_OPT_BASE: f->base = (uint64_t)tool_parse_ll("--base", arg, 0, 1); return 1;
	}
	return 0;
}

void stats_help(FILE *f)
{
	fputs("      --summary       graph-wide lines (n, pairs, diameter, radius, average,\n"
	      "                      wiener) instead of a line a vertex\n"
	      "      --json          the same as one JSON object\n"
	      "      --base B        vertices are numbered from B, 0 or 1 (default 0)\n", f);
}

static const char *const columns[] = {
	"vertex", "out_reach", "in_reach", "out_sum", "in_sum", "out_eccentricity",
	"in_eccentricity", "closeness", "harmonic", "betweenness",
};
#define NCOL (sizeof columns / sizeof *columns)
/* The columns printed: the last only where the betweenness was made. */
#define COLS(f) ((f)->bc ? NCOL : NCOL - 1)

/* Column c of vertex u, as text. */
static void cell(char *b, size_t len, const gs_stats *s, const struct stats_form *f, uint64_t u,
                 size_t c)
{
	const uint64_t base = f->base;
	const int i32 = s->type == ST_INT32;
	switch (c) {
	case 0: snprintf(b, len, "%" PRIu64, u + base); break;
	case 1: case 2: snprintf(b, len, "%" PRIu64, s->reach[c - 1][u]); break;
	case 3: case 4:
		if (i32)
			snprintf(b, len, "%" PRId64, ((const int64_t *)s->sum[c - 3])[u]);
		else
			snprintf(b, len, "%.17g", ((const double *)s->sum[c - 3])[u]);
		break;
	case 5: case 6:
		if (i32)
			snprintf(b, len, "%" PRId32, ((const int32_t *)s->ecc[c - 5])[u]);
		else if (s->type == ST_FLOAT32)
			snprintf(b, len, "%.9g", (double)((const float *)s->ecc[c - 5])[u]);
		else
			snprintf(b, len, "%.17g", ((const double *)s->ecc[c - 5])[u]);
		break;
	case 7: snprintf(b, len, "%.17g", gs_closeness(s, u)); break;
	case 8: snprintf(b, len, "%.17g", s->harmonic[u]); break;
	default: snprintf(b, len, "%.17g", f->bc->vertex[u]); break;
	}
}

/* Vertices a piece of the table holds, and room for a line: pieces are
 * formatted on every core (printf's digits of doubles are most of the
 * table's time), then written in order. */
#define TABLE_PIECE 512
#define CELL_ROOM 32 /* a cell's text, its tab or newline (cell() writes at most 24) */
#define LINE_ROOM (NCOL * CELL_ROOM)

/* Vertex u0's piece of the table into b; its length. */
static size_t table_piece(char *b, const gs_stats *s, const struct stats_form *f, uint64_t u0)
{
	const uint64_t u1 = u0 + TABLE_PIECE < s->n ? u0 + TABLE_PIECE : s->n;
	const size_t cols = COLS(f);
	size_t at = 0;
	for (uint64_t u = u0; u < u1; u++)
		for (size_t c = 0; c < cols; c++) {
			cell(b + at, CELL_ROOM - 1, s, f, u, c);
			at += strlen(b + at);
			b[at++] = c + 1 < cols ? '\t' : '\n';
		}
	return at;
}

static void print_table(FILE *out, const gs_stats *s, const struct stats_form *f)
{
	const size_t cols = COLS(f);
	for (size_t c = 0; c < cols; c++)
		fprintf(out, "%s%c", columns[c], c + 1 < cols ? '\t' : '\n');
	const int threads = tool_threads();
	const uint64_t pieces = (s->n + TABLE_PIECE - 1) / TABLE_PIECE;
	const uint64_t batch = (uint64_t)threads * 4 < pieces ? (uint64_t)threads * 4 : pieces;
	char *buf = malloc(batch * TABLE_PIECE * LINE_ROOM + 1);
	size_t *len = malloc(batch * sizeof *len + 1);
	if (!buf || !len)
		tool_die("out of memory for the table");
	for (uint64_t p0 = 0; p0 < pieces; p0 += batch) {
		const uint64_t k = pieces - p0 < batch ? pieces - p0 : batch;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
		for (uint64_t i = 0; i < k; i++)
			len[i] = table_piece(buf + i * TABLE_PIECE * LINE_ROOM, s, f, (p0 + i) * TABLE_PIECE);
		for (uint64_t i = 0; i < k; i++)
			fwrite(buf + i * TABLE_PIECE * LINE_ROOM, 1, len[i], out);
	}
	free(buf);
	free(len);
}

static void print_table_json(FILE *out, const gs_stats *s, const struct stats_form *f)
{
	char b[64];
	fprintf(out, "{\"n\": %" PRIu64, s->n);
	for (size_t c = 0; c < COLS(f); c++) {
		fprintf(out, ", \"%s\": [", columns[c]);
		for (uint64_t u = 0; u < s->n; u++) {
			cell(b, sizeof b, s, f, u, c);
			fprintf(out, "%s%s", u ? ", " : "", b);
		}
		fputc(']', out);
	}
	fputs("}\n", out);
}

static void print_summary(FILE *out, const gs_stats *s, int json, int undirected)
{
	gs_summary m;
	char v[4][48];
	gs_summarize(s, &m);
	if (undirected)
		gs_summary_undirected(&m);
	if (s->type == ST_INT32) {
		snprintf(v[0], sizeof v[0], "%" PRId64, m.diameter_i);
		snprintf(v[1], sizeof v[1], "%" PRId64, m.radius_i);
		if (m.wiener_exact)
			snprintf(v[3], sizeof v[3], "%" PRId64, m.wiener_i);
		else
			snprintf(v[3], sizeof v[3], "%.17g", m.wiener);
	} else {
		const char *g = s->type == ST_FLOAT32 ? "%.9g" : "%.17g";
		snprintf(v[0], sizeof v[0], g, m.diameter);
		snprintf(v[1], sizeof v[1], g, m.radius);
		snprintf(v[3], sizeof v[3], "%.17g", m.wiener);
	}
	snprintf(v[2], sizeof v[2], "%.17g", m.average);
	if (json)
		fprintf(out, "{\"n\": %" PRIu64 ", \"pairs\": %" PRIu64 ", \"diameter\": %s, "
		        "\"radius\": %s, \"average\": %s, \"wiener\": %s%s}\n",
		        m.n, m.pairs, v[0], v[1], v[2], v[3], undirected ? ", \"undirected\": true" : "");
	else
		fprintf(out, "n\t%" PRIu64 "\npairs\t%" PRIu64 "\ndiameter\t%s\nradius\t%s\n"
		        "average\t%s\nwiener\t%s\n%s", m.n, m.pairs, v[0], v[1], v[2], v[3],
		        undirected ? "undirected\tpairs and wiener over unordered pairs\n" : "");
}

void stats_print(FILE *out, const gs_stats *s, const struct stats_form *f, uint32_t flags)
{
	if (f->what == STATS_SUMMARY)
		print_summary(out, s, f->json, !(flags & ST_DIRECTED));
	else if (f->json)
		print_table_json(out, s, f);
	else
		print_table(out, s, f);
}

void stats_write_edges(const char *path, const gs_betweenness *b, uint64_t base, uint32_t flags)
{
	const int directed = (flags & ST_DIRECTED) != 0;
	FILE *f = tool_side_fopen(path);
	for (uint64_t a = 0; a < b->arcs; a++) {
		const uint32_t u = b->from[a], v = b->to[a];
		double x = b->arc[a];
		if (!directed) { /* u < v, with v -> u's share (the arcs are sorted) */
			if (u > v)
				continue;
			uint64_t lo = 0, hi = b->arcs; /* v -> u, if there is one */
			while (lo < hi) {
				const uint64_t mid = lo + (hi - lo) / 2;
				if (b->from[mid] < v || (b->from[mid] == v && b->to[mid] < u))
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < b->arcs && b->from[lo] == v && b->to[lo] == u)
				x += b->arc[lo];
		}
		fprintf(f, "%" PRIu64 "\t%" PRIu64 "\t%.17g\n", u + base, v + base, x);
	}
	tool_side_commit();
}
