/* sources.c - which rows an engine's run writes (see sources.h). */
#include "sources.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "tool.h"

int sources_option(int c, const char *arg, struct sources_opt *so)
{
	if (c == SOURCES_OPT_ROWS)
		so->rows = arg;
	else if (c == SOURCES_OPT_FILE)
		so->file = arg;
	else if (c == SOURCES_OPT_TARGETS)
		so->targets = arg;
	else if (c == SOURCES_OPT_PATHS)
		so->paths = 1;
	else
		return 0;
	return 1;
}

void sources_help(FILE *f)
{
	fputs("      --rows A:B      write the rows of sources A to B - 1 alone (numbered\n"
	      "                      from 0, as in the stream): a result of some rows\n"
	      "      --sources FILE  the same for the vertices listed in FILE (numbered from\n"
	      "                      0, whitespace apart, '#' to the end of a line a comment),\n"
	      "                      their rows in the order listed\n"
	      "      --targets FILE  beside --rows or --sources: a table of distances from\n"
	      "                      those sources to the vertices listed in FILE alone (as\n"
	      "                      --sources lists them), their columns in that order;\n"
	      "                      no predecessors unless --paths\n"
	      "      --paths         beside --targets: the sources' predecessors too (their\n"
	      "                      whole rows), so that apsp-path prints the table's paths\n",
	      f);
}

void sources_check(const struct sources_opt *so, int stats, const char *input, int paths)
{
	const char *opt = so->rows ? "--rows" : "--sources";
	if (so->rows && so->file)
		tool_usage_error("--rows and --sources: give one of them");
	if ((so->rows || so->file) && stats)
		tool_usage_error("%s and --stats: the statistics take every row", opt);
	if (so->file && !strcmp(so->file, "-") && !strcmp(input, "-"))
		tool_usage_error("--sources - and the graph cannot both be stdin: give the graph's file");
	if (so->targets && !so->rows && !so->file)
		tool_usage_error("--targets: give the table's rows too (--sources FILE or --rows A:B)");
	if (so->targets && !strcmp(so->targets, "-")
	    && (!strcmp(input, "-") || (so->file && !strcmp(so->file, "-"))))
		tool_usage_error("--targets - and the %s cannot both be stdin: give a file",
		                 !strcmp(input, "-") ? "graph" : "sources");
	if (so->paths && !so->targets)
		tool_usage_error("--paths goes with --targets (a table's predecessors; every other "
		                 "result holds them unless --no-paths)");
	if (so->paths && !paths)
		tool_usage_error("--paths and --no-paths: give one of them");
}

/* A vertex number at *p (digits only), below n (at most n where past is
 * set: one past the last): 0 with *v, *p moved past it; -1 where it is not
 * a number, -2 where it is out of range, with why. */
static int vertex_at(const char **p, uint64_t n, int past, uint64_t *v, char *why, size_t len)
{
	const char *s = *p;
	uint64_t x = 0;
	int digits = 0;
	for (; isdigit((unsigned char)*s); s++, digits++)
		x = x > UINT64_MAX / 10 - 10 ? UINT64_MAX : x * 10 + (uint64_t)(*s - '0');
	if (!digits || (*s && !isspace((unsigned char)*s) && *s != '#' && *s != ':')) {
		const char *e = s;
		while (*e && !isspace((unsigned char)*e))
			e++;
		snprintf(why, len, "'%.*s' is not a vertex number", (int)(e - *p), *p);
		return -1;
	}
	if (x >= n + (past != 0)) {
		snprintf(why, len, "vertex %llu: no such vertex (the graph has %llu, numbered from 0)",
		         (unsigned long long)x, (unsigned long long)n);
		return -2;
	}
	*p = s, *v = x;
	return 0;
}

static uint32_t *rows_range(const char *arg, uint64_t n, uint64_t *count)
{
	char why[200];
	const char *p = arg;
	uint64_t a, b;
	int rc = vertex_at(&p, n, 0, &a, why, sizeof why);
	if (rc == 0 && *p != ':')
		rc = -1;
	if (rc == 0)
		p++, rc = vertex_at(&p, n, 1, &b, why, sizeof why); /* (one past the last) */
	if (rc == 0 && *p)
		rc = -1;
	if (rc == -2)
		tool_die("--rows %s: %s", arg, why);
	if (rc < 0)
		tool_usage_error("--rows %s: not A:B, two vertex numbers", arg);
	if (b <= a)
		tool_usage_error("--rows %s: no rows (B must be above A; A:B is A to B - 1)", arg);
	uint32_t *src = malloc((b - a) * sizeof *src);
	if (!src)
		tool_die("--rows %s: out of memory", arg);
	for (uint64_t v = a; v < b; v++)
		src[v - a] = (uint32_t)v;
	*count = b - a;
	return src;
}

/* Room for twice as many sources (at least 1024): 0, or -1 (*src kept). */
static int grow(uint32_t **src, uint64_t *cap)
{
	const uint64_t more = *cap ? 2 * *cap : 1024;
	uint32_t *p = realloc(*src, more * sizeof *p);
	if (!p)
		return -1;
	*src = p, *cap = more;
	return 0;
}

/* The vertices listed in f (named name) in order, each below n, none
 * twice, into *src (malloc'd, *k of them): 0, or -1 with the file and line
 * of the first that is not in msg. */
static int read_listed(FILE *f, const char *name, uint64_t n, uint32_t **src, uint64_t *k,
                       char *msg, size_t len, const char *opt)
{
	uint8_t *seen = calloc(n ? n : 1, 1);
	uint64_t *line_of = malloc((n ? n : 1) * sizeof *line_of), cap = 0;
	char *buf = NULL, why[200];
	size_t blen = 0;
	unsigned long line = 0;
	int rc = seen && line_of ? 0 : -1;
	if (rc < 0)
		snprintf(msg, len, "%s: out of memory", opt);
	while (rc == 0 && getline(&buf, &blen, f) >= 0) {
		line++;
		for (const char *p = buf; rc == 0;) {
			while (isspace((unsigned char)*p))
				p++;
			uint64_t v;
			if (!*p || *p == '#')
				break;
			if ((rc = vertex_at(&p, n, 0, &v, why, sizeof why)) < 0)
				snprintf(msg, len, "%s:%lu: %s", name, line, why);
			else if (seen[v])
				rc = -1, snprintf(msg, len, "%s:%lu: vertex %llu a second time (first on line "
				                  "%llu)", name, line, (unsigned long long)v,
				                  (unsigned long long)line_of[v]);
			else if (*k == cap && grow(src, &cap) < 0)
				rc = -1, snprintf(msg, len, "%s: out of memory", opt);
			else
				seen[v] = 1, line_of[v] = line, (*src)[(*k)++] = (uint32_t)v;
		}
	}
	if (rc == 0 && ferror(f))
		rc = -1, snprintf(msg, len, "%s: read error: %s", name, strerror(errno));
	if (rc == 0 && !*k)
		rc = -1, snprintf(msg, len, "%s: no vertices listed", name);
	free(buf), free(seen), free(line_of);
	return rc;
}

/* The file's vertices in order: each below n, none twice. */
static uint32_t *rows_listed(const char *path, uint64_t n, uint64_t *count, const char *opt)
{
	FILE *f = !strcmp(path, "-") ? stdin : fopen(path, "r");
	if (!f)
		tool_die("%s:", path);
	uint32_t *src = NULL;
	char msg[400];
	*count = 0;
	const int rc = read_listed(f, f == stdin ? "(stdin)" : path, n, &src, count, msg, sizeof msg,
	                           opt);
	if (f != stdin)
		fclose(f);
	if (rc < 0) { /* (freed first: clean under LeakSanitizer) */
		free(src);
		tool_die("%s", msg);
	}
	return src;
}

uint32_t *sources_resolve(const struct sources_opt *so, uint64_t n, uint64_t *count)
{
	*count = 0;
	return so->rows ? rows_range(so->rows, n, count)
	     : so->file ? rows_listed(so->file, n, count, "--sources")
	                : NULL;
}

uint32_t *sources_targets(const struct sources_opt *so, uint64_t n, uint64_t *count)
{
	*count = 0;
	return so->targets ? rows_listed(so->targets, n, count, "--targets") : NULL;
}

void sources_header(st_header *res, uint64_t count, uint64_t cols)
{
	res->matrices |= ST_SOURCES;
	res->rows = count;
	if (cols) {
		res->matrices |= ST_TARGETS;
		res->cols = cols;
	}
}

int sources_put_lists(st_writer *w, const uint32_t *src, const uint32_t *dst, st_error *err)
{
	return st_write_matrix(w, src, err) < 0 || (dst && st_write_matrix(w, dst, err) < 0) ? -1 : 0;
}

int sources_put_rows(st_writer *w, const void *rows, uint64_t count, uint64_t n, uint64_t es,
                     const uint32_t *dst, uint64_t cols, st_error *err)
{
	if (!dst)
		return st_write(w, rows, count * n * es, err);
	unsigned char *row = malloc(cols * es + 1);
	if (!row)
		return lib_fail(err, "out of memory for a row of the table (%llu columns)",
		                (unsigned long long)cols);
	int rc = 0;
	for (uint64_t i = 0; i < count && rc == 0; i++) {
		const unsigned char *whole = (const unsigned char *)rows + i * n * es;
		for (uint64_t j = 0; j < cols; j++)
			memcpy(row + j * es, whole + dst[j] * es, es);
		rc = st_write(w, row, cols * es, err);
	}
	free(row);
	return rc;
}

void sources_write(int out, const st_header *res, const uint32_t *src, const uint32_t *dst,
                   const void *dist, const int32_t *pred, int threads)
{
	st_error err;
	const uint64_t n = res->n, es = ST_TYPE_SIZE(res->type);
	st_writer *w = st_writer_open(out, res, tool_opts.level, threads, &err);
	if (!w || sources_put_lists(w, src, dst, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	for (int m = 0; m < 2; m++) {
		if (m && !pred)
			break;
		for (uint64_t i = 0; i < res->rows; i++)
			if (m ? st_write(w, pred + (uint64_t)src[i] * n, n * 4, &err) < 0
			      : sources_put_rows(w, (const char *)dist + (uint64_t)src[i] * n * es, 1, n, es,
			                         dst, res->cols, &err) < 0)
				tool_die_st(tool_output_name(), &err);
		if (st_write_end_matrix(w, &err) < 0)
			tool_die_st(tool_output_name(), &err);
	}
	if (st_writer_close(w, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	tool_output_commit();
}
