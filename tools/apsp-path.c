/* apsp-path - print shortest paths and their lengths from a result stream.
 *
 * Only the distance and predecessor rows of the queried sources are
 * inflated; every other block of the stream is skipped, so a query on a
 * huge result costs reading it, not decompressing it. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream.h"
#include "common.h"
#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: %s [options] SRC DST [SRC DST ...]\n"
	        "       %s [options] --from SRC\n"
	        "       %s [options] -p PAIRS\n"
	        "Print the shortest path from SRC to DST and its length, read from a result\n"
	        "stream (apsp-cpu, apsp-gpu) on stdin or -i FILE.\n"
	        "\n"
	        "  -i, --input FILE    read the result stream from FILE (default stdin)\n"
	        "      --from SRC      paths from SRC to every vertex\n"
	        "  -p, --pairs FILE    read SRC DST pairs from FILE, one pair a line\n"
	        "                      ('#' starts a comment; '-' is stdin when -i is given)\n"
	        "      --tsv           tab-separated: SRC, DST, distance, vertices joined by ','\n"
	        "                      (unreachable: distance 'inf', no vertices)\n"
	        "      --base B        vertices are numbered from B, 0 or 1 (default 0)\n"
	        "\n",
	        tool_name(), tool_name(), tool_name());
	tool_common_help(f, 0);
	fputs("\nExit status: 0 every pair has a path, 1 some pair is unreachable,\n"
	      "2 trouble (usage, input, a vertex out of range, no predecessors),\n"
	      "3 the graph has a negative cycle.\n", f);
}

struct pair {
	uint64_t src, dst;
};

struct query {
	struct pair *pairs;
	size_t npairs, cap;
};

static void add_pair(struct query *q, uint64_t s, uint64_t d)
{
	if (q->npairs == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 64;
		q->pairs = realloc(q->pairs, q->cap * sizeof *q->pairs);
		if (!q->pairs)
			tool_die("pairs:");
	}
	q->pairs[q->npairs].src = s;
	q->pairs[q->npairs].dst = d;
	q->npairs++;
}

/* A vertex number as given (before --base is applied). */
static uint64_t parse_vertex(const char *what, const char *s)
{
	return (uint64_t)tool_parse_ll(what, s, 0, (long long)ST_MAX_N);
}

static void read_pairs(struct query *q, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char line[512];
	unsigned long lineno = 0;

	if (!f)
		tool_die("%s:", path);
	while (fgets(line, sizeof line, f)) {
		char *p = line, *end;
		unsigned long long v[2];
		int k = 0;
		lineno++;
		for (; k < 2; k++) {
			while (isspace((unsigned char)*p))
				p++;
			if (*p == '#' || *p == '\0')
				break;
			errno = 0;
			v[k] = strtoull(p, &end, 10);
			if (end == p || errno || !(isspace((unsigned char)*end) || *end == '\0' || *end == '#') ||
			    *p == '-' || v[k] > ST_MAX_N)
				tool_die("%s:%lu: not a vertex number", path, lineno);
			p = end;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (k == 0)
			continue;
		if (k == 1 || (*p != '\0' && *p != '#'))
			tool_die("%s:%lu: expected two vertex numbers, SRC DST", path, lineno);
		add_pair(q, v[0], v[1]);
	}
	if (ferror(f))
		tool_die("%s:", path);
	if (f != stdin)
		fclose(f);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Index of v in the sorted array rows[0..n). */
static size_t row_index(const uint64_t *rows, size_t n, uint64_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rows[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void put_distance(FILE *out, const st_header *h, const void *drow, uint64_t v)
{
	if (h->type == ST_INT32) {
		fprintf(out, "%ld", (long)((const int32_t *)drow)[v]);
		return;
	}
	/* whole numbers as such; others with the digits that read back the
	 * same value (9 for float32, 17 for float64) */
	double x = h->type == ST_FLOAT32 ? ((const float *)drow)[v] : ((const double *)drow)[v];
	if (x == trunc(x) && fabs(x) < 1e15)
		fprintf(out, "%.0f", x);
	else
		fprintf(out, h->type == ST_FLOAT32 ? "%.9g" : "%.17g", x);
}

static int reachable(const st_header *h, const void *drow, uint64_t v)
{
	if (h->type == ST_INT32)
		return ((const int32_t *)drow)[v] < ST_INF_I32;
	if (h->type == ST_FLOAT32)
		return ((const float *)drow)[v] < INFINITY;
	return ((const double *)drow)[v] < INFINITY;
}

/* The path from s to t (numbered from 0; printed from base) out of the
 * rows of s: its vertices by prow (s's predecessors; path: room for n + 1)
 * and its distance, drow's entry tcol (t, or a table's column of t): 0, or
 * 1 where t is unreachable.  A chain longer than n, or one that stops short
 * of s, is a damaged result: it dies naming it. */
static int print_pair(FILE *out, const st_header *h, const void *drow, const int32_t *prow,
                      uint64_t s, uint64_t t, uint64_t tcol, uint64_t base, int tsv,
                      uint64_t *path, const char *name)
{
	const uint64_t n = h->n;
	if (!reachable(h, drow, tcol)) {
		if (tsv)
			fprintf(out, "%llu\t%llu\tinf\t\n", (unsigned long long)(s + base),
			        (unsigned long long)(t + base));
		else
			fprintf(out, "%llu -> %llu  unreachable\n", (unsigned long long)(s + base),
			        (unsigned long long)(t + base));
		return 1;
	}
	uint64_t len = 0, v = t;
	path[len++] = v;
	while (v != s) {
		int32_t u = prow[v];
		if (u < 0 || (uint64_t)u >= n || len > n)
			tool_die("%s: broken predecessor chain from %llu to %llu", name,
			         (unsigned long long)(s + base), (unsigned long long)(t + base));
		v = (uint64_t)u;
		path[len++] = v;
	}
	if (tsv) {
		fprintf(out, "%llu\t%llu\t", (unsigned long long)(s + base),
		        (unsigned long long)(t + base));
		put_distance(out, h, drow, tcol);
		fputc('\t', out);
		for (uint64_t k = len; k-- > 0;)
			fprintf(out, "%llu%s", (unsigned long long)(path[k] + base), k ? "," : "");
		fputc('\n', out);
	} else {
		for (uint64_t k = len; k-- > 0;)
			fprintf(out, "%llu%s", (unsigned long long)(path[k] + base), k ? " -> " : "");
		fputs("  distance ", out);
		put_distance(out, h, drow, tcol);
		fputc('\n', out);
	}
	return 0;
}

/* The rows to inflate: each source of q once, ascending (*nrows of them). */
static uint64_t *source_rows(const struct query *q, size_t *nrows)
{
	uint64_t *rows = malloc((q->npairs ? q->npairs : 1) * sizeof *rows);
	if (!rows)
		tool_die("rows:");
	for (size_t i = 0; i < q->npairs; i++)
		rows[i] = q->pairs[i].src;
	qsort(rows, q->npairs, sizeof *rows, cmp_u64);
	*nrows = 0;
	for (size_t i = 0; i < q->npairs; i++)
		if (*nrows == 0 || rows[*nrows - 1] != rows[i])
			rows[(*nrows)++] = rows[i];
	return rows;
}

struct listed {
	uint64_t key, at; /* a vertex (or a row of the list) and where it is */
};

static int cmp_listed(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* A result of some rows: its list of sources read, and the rows of the
 * sources asked (rows, ascending) found in it.  Returns the rows of the
 * list to read (ascending); at[k] is where rows[k] lands among them. */
static uint64_t *listed_rows(st_reader *r, const st_header *h, const uint64_t *rows,
                             size_t nrows, uint64_t base, const char *name, size_t *at)
{
	st_error err;
	uint32_t *src = malloc(h->rows * sizeof *src + 1);
	struct listed *by = malloc(h->rows * sizeof *by + 1), *want = malloc(nrows * sizeof *want + 1);
	uint64_t *read = malloc(nrows * sizeof *read + 1);
	if (!src || !by || !want || !read)
		tool_die("%s: %llu sources:", name, (unsigned long long)h->rows);
	if (st_read_matrix(r, src, &err) < 0 || st_sources_check(name, h, src, &err) < 0)
		tool_die_st(NULL, &err);
	for (uint64_t i = 0; i < h->rows; i++)
		by[i] = (struct listed){src[i], i};
	qsort(by, h->rows, sizeof *by, cmp_listed);
	for (size_t k = 0; k < nrows; k++) {
		const struct listed *f = bsearch(&(struct listed){rows[k], 0}, by, h->rows, sizeof *by,
		                                 cmp_listed);
		if (!f)
			tool_die("%s: vertex %llu is not a source of this result (it holds the rows of "
			         "%llu sources: --rows, --sources)", name,
			         (unsigned long long)(rows[k] + base), (unsigned long long)h->rows);
		want[k] = (struct listed){f->at, k};
	}
	qsort(want, nrows, sizeof *want, cmp_listed);
	for (size_t i = 0; i < nrows; i++)
		read[i] = want[i].key, at[want[i].at] = i;
	free(src), free(by), free(want);
	return read;
}

/* A table's list of targets read: vertex -> its column, or -1.  With
 * --from (from set), q's one pair becomes a pair to each target; any pair
 * to a vertex that is not a target dies naming it. */
static int64_t *target_columns(st_reader *r, const st_header *h, const char *name,
                               struct query *q, int from, uint64_t base)
{
	st_error err;
	uint32_t *dst = malloc(h->cols * sizeof *dst + 1);
	int64_t *col = malloc(h->n * sizeof *col + 1);
	if (!dst || !col)
		tool_die("%s: %llu targets:", name, (unsigned long long)h->cols);
	if (st_read_matrix(r, dst, &err) < 0 || st_targets_check(name, h, dst, &err) < 0)
		tool_die_st(NULL, &err);
	for (uint64_t v = 0; v < h->n; v++)
		col[v] = -1;
	for (uint64_t j = 0; j < h->cols; j++)
		col[dst[j]] = (int64_t)j;
	free(dst);
	if (from) { /* every target, in the vertices' order */
		const uint64_t s = q->pairs[0].src;
		q->npairs = 0;
		for (uint64_t v = 0; v < h->n; v++)
			if (col[v] >= 0)
				add_pair(q, s, v);
	}
	for (size_t i = 0; i < q->npairs; i++)
		if (col[q->pairs[i].dst] < 0)
			tool_die("%s: vertex %llu is not a target of this table (it holds the columns of "
			         "%llu targets: --targets)", name, (unsigned long long)(q->pairs[i].dst + base),
			         (unsigned long long)h->cols);
	return col;
}

int main(int argc, char **argv)
{
	enum { OPT_FROM = 0x2000, OPT_TSV, OPT_BASE };
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{"input", required_argument, 0, 'i'},
		{"from", required_argument, 0, OPT_FROM},
		{"pairs", required_argument, 0, 'p'},
		{"tsv", no_argument, 0, OPT_TSV},
		{"base", required_argument, 0, OPT_BASE},
		{0, 0, 0, 0},
	};
	const char *input = "-", *pairs_file = NULL, *from = NULL;
	int tsv = 0, c;
	uint64_t base = 0;
	struct query q = {0};

	tool_init("apsp-path", argc, argv);
	tool_text_output();
	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS "i:p:", longopts, NULL)) != -1) {
		if (tool_common_option(c, optarg, usage))
			continue;
		switch (c) {
		case 'i': input = optarg; break;
		case 'p': pairs_file = optarg; break;
		case OPT_FROM: from = optarg; break;
		case OPT_TSV: tsv = 1; break;
		case OPT_BASE: base = (uint64_t)tool_parse_ll("--base", optarg, 0, 1); break;
		default: tool_usage_error("unexpected option");
		}
	}
	int nargs = argc - optind;
	if (from && (nargs || pairs_file))
		tool_usage_error("--from takes no other pairs");
	if (pairs_file && nargs)
		tool_usage_error("-p takes no pairs on the command line");
	if (!from && !pairs_file && nargs == 0)
		tool_usage_error("no SRC DST pair given");
	if (nargs % 2)
		tool_usage_error("'%s' has no destination: give SRC DST pairs", argv[argc - 1]);
	if (pairs_file && strcmp(pairs_file, "-") == 0 && strcmp(input, "-") == 0)
		tool_usage_error("-p - and the stream cannot both be stdin: give -i FILE");

	for (int i = optind; i < argc; i += 2) { /* SRC read, and said wrong, first */
		const uint64_t src = parse_vertex("SRC", argv[i]);
		add_pair(&q, src, parse_vertex("DST", argv[i + 1]));
	}
	if (pairs_file)
		read_pairs(&q, pairs_file);

	const char *name = tool_input_name(input);
	int threads = tool_threads();
	st_header h;
	st_error err;
	int fd;
	st_reader *r = tool_open_result(input, &h, base, 1, threads, &fd);

	uint64_t n = h.n;
	const int table = (h.matrices & ST_TARGETS) != 0;
	if (from) { /* (a table: to its targets, once they are read) */
		uint64_t s = parse_vertex("--from", from);
		if (s < base || s - base >= n)
			tool_die("--from %s: no such vertex (the graph has %llu, numbered from %llu)",
			         from, (unsigned long long)n, (unsigned long long)base);
		for (uint64_t d = 0; d < (table ? 1 : n); d++)
			add_pair(&q, s, table ? s : d + base);
	}
	for (size_t i = 0; i < q.npairs; i++) {
		struct pair *p = &q.pairs[i];
		for (int k = 0; k < 2; k++) {
			uint64_t v = k ? p->dst : p->src;
			if (v < base || v - base >= n)
				tool_die("vertex %llu: no such vertex (the graph has %llu, numbered from %llu)",
				         (unsigned long long)v, (unsigned long long)n,
				         (unsigned long long)base);
		}
		p->src -= base, p->dst -= base;
	}

	size_t nrows;
	uint64_t *rows = source_rows(&q, &nrows);

	/* Two rows (distances, predecessors) per source, and the path. */
	double need = (4.0 + ST_TYPE_SIZE(h.type)) * (double)h.npad * (double)nrows + 8.0 * (double)n;
	char why[200];
	if (tool_memory_refusal(why, sizeof why, h.npad, need, 1)) {
		st_reader_free(r);
		st_header_free(&h);
		free(rows), free(q.pairs);
		tool_die("%s: the rows of %zu source%s: %s", name, nrows, nrows == 1 ? "" : "s", why);
	}
	size_t rowbytes = h.npad * ST_TYPE_SIZE(h.type), prowbytes = h.npad * 4;
	char *dist = malloc(nrows * rowbytes + 1), *pred = malloc(nrows * prowbytes + 1);
	size_t *at = malloc(nrows * sizeof *at + 1); /* rows[k]'s place among those read */
	if (!dist || !pred || !at)
		tool_die("%zu rows of %llu:", nrows, (unsigned long long)h.npad);
	for (size_t k = 0; k < nrows; k++)
		at[k] = k;
	uint64_t *read = rows; /* the stream's rows to read: the sources', or in its list */
	if (st_next_matrix(r) == ST_SOURCES)
		read = listed_rows(r, &h, rows, nrows, base, name, at);
	int64_t *col = NULL; /* a table: each vertex's column, or -1 */
	if (table && st_next_matrix(r) == ST_TARGETS)
		col = target_columns(r, &h, name, &q, from != NULL, base);
	for (uint32_t next; (next = st_next_matrix(r));) {
		int rc = next == ST_DIST ? st_read_rows(r, read, nrows, dist, &err)
		       : next == ST_PRED ? st_read_rows(r, read, nrows, pred, &err)
		       : st_skip_matrix(r, &err);
		if (rc < 0)
			tool_die_st(NULL, &err);
		tool_mark(next == ST_DIST ? "distances read" : next == ST_PRED ? "predecessors read"
		          : "matrix skipped");
	}
	if (st_reader_close(r, &err) < 0)
		tool_die_st(NULL, &err);
	if (fd != 0)
		close(fd);

	FILE *out = tool_output_fopen(0);
	uint64_t *path = malloc((n + 1) * sizeof *path);
	int status = EXIT_OK;
	if (!path)
		tool_die("path:");
	for (size_t i = 0; i < q.npairs; i++) {
		uint64_t s = q.pairs[i].src, t = q.pairs[i].dst;
		size_t ri = at[row_index(rows, nrows, s)];
		if (print_pair(out, &h, dist + ri * (col ? h.cols * ST_TYPE_SIZE(h.type) : rowbytes),
		               (const int32_t *)(pred + ri * prowbytes), s, t, col ? (uint64_t)col[t] : t,
		               base, tsv, path, name))
			status = EXIT_DIFFERENT;
	}
	tool_output_commit();
	if (read != rows)
		free(read);
	free(path), free(rows), free(dist), free(pred), free(q.pairs), free(at), free(col);
	st_header_free(&h);
	return status;
}
