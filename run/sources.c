/* sources.c - which rows an engine's run writes (see sources.h). */
#include "sources.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

int sources_option(int c, const char *arg, struct sources_opt *so)
{
	if (c == SOURCES_OPT_ROWS)
		so->rows = arg;
	else if (c == SOURCES_OPT_FILE)
		so->file = arg;
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
	      "                      their rows in the order listed\n",
	      f);
}

void sources_check(const struct sources_opt *so, int stats, const char *input)
{
	const char *opt = so->rows ? "--rows" : "--sources";
	if (so->rows && so->file)
		tool_usage_error("--rows and --sources: give one of them");
	if ((so->rows || so->file) && stats)
		tool_usage_error("%s and --stats: the statistics take every row", opt);
	if (so->file && !strcmp(so->file, "-") && !strcmp(input, "-"))
		tool_usage_error("--sources - and the graph cannot both be stdin: give the graph's file");
}

/* A vertex number at *p (digits only), below n (at most n where end is
 * set: one past the last): its value, *p past it. */
static uint64_t vertex_at(const char **p, uint64_t n, int end, const char *where,
                          unsigned long line)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;
	for (; isdigit((unsigned char)*s); s++, digits++)
		v = v > UINT64_MAX / 10 - 10 ? UINT64_MAX : v * 10 + (uint64_t)(*s - '0');
	if (!digits || (*s && !isspace((unsigned char)*s) && *s != '#' && *s != ':')) {
		const char *end = s;
		while (*end && !isspace((unsigned char)*end))
			end++;
		if (line)
			tool_die("%s:%lu: '%.*s' is not a vertex number", where, line, (int)(end - *p), *p);
		tool_usage_error("--rows %s: not A:B, two vertex numbers", where);
	}
	if (v >= n + (end != 0)) {
		if (line)
			tool_die("%s:%lu: vertex %llu: no such vertex (the graph has %llu, numbered from 0)",
			         where, line, (unsigned long long)v, (unsigned long long)n);
		tool_die("--rows %s: vertex %llu: no such vertex (the graph has %llu, numbered from 0)",
		         where, (unsigned long long)v, (unsigned long long)n);
	}
	*p = s;
	return v;
}

static uint32_t *rows_range(const char *arg, uint64_t n, uint64_t *count)
{
	const char *p = arg;
	const uint64_t a = vertex_at(&p, n, 0, arg, 0);
	if (*p != ':')
		tool_usage_error("--rows %s: not A:B, two vertex numbers", arg);
	p++;
	const uint64_t b = vertex_at(&p, n, 1, arg, 0); /* (one past the last) */
	if (*p)
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

/* The file's vertices in order: each below n, none twice. */
static uint32_t *rows_listed(const char *path, uint64_t n, uint64_t *count)
{
	FILE *f = !strcmp(path, "-") ? stdin : fopen(path, "r");
	if (!f)
		tool_die("%s:", path);
	const char *name = f == stdin ? "(stdin)" : path;
	uint8_t *seen = calloc(n ? n : 1, 1);
	uint64_t *line_of = NULL, cap = 0, k = 0;
	uint32_t *src = NULL;
	char *buf = NULL;
	size_t len = 0;
	unsigned long line = 0;
	if (!seen)
		tool_die("--sources: out of memory");
	while (getline(&buf, &len, f) >= 0) {
		line++;
		for (const char *p = buf;;) {
			while (isspace((unsigned char)*p))
				p++;
			if (!*p || *p == '#')
				break;
			const uint64_t v = vertex_at(&p, n, 0, name, line);
			if (seen[v])
				tool_die("%s:%lu: vertex %llu a second time (first on line %llu)", name, line,
				         (unsigned long long)v, (unsigned long long)line_of[v]);
			if (k == cap) {
				cap = cap ? 2 * cap : 1024;
				if (!(src = realloc(src, cap * sizeof *src)))
					tool_die("--sources: out of memory");
			}
			if (!line_of && !(line_of = malloc((n ? n : 1) * sizeof *line_of)))
				tool_die("--sources: out of memory");
			seen[v] = 1, line_of[v] = line, src[k++] = (uint32_t)v;
		}
	}
	if (ferror(f))
		tool_die("%s: read error:", name);
	if (f != stdin)
		fclose(f);
	free(buf), free(seen), free(line_of);
	if (!k)
		tool_die("%s: no vertices listed", name);
	*count = k;
	return src;
}

uint32_t *sources_resolve(const struct sources_opt *so, uint64_t n, uint64_t *count)
{
	*count = 0;
	return so->rows ? rows_range(so->rows, n, count)
	     : so->file ? rows_listed(so->file, n, count)
	                : NULL;
}

void sources_header(st_header *res, uint64_t count)
{
	res->matrices |= ST_SOURCES;
	res->rows = count;
}

void sources_write(int out, const st_header *res, const uint32_t *src, const void *dist,
                   const int32_t *pred, int threads)
{
	st_error err;
	const uint64_t n = res->n, es = ST_TYPE_SIZE(res->type);
	st_writer *w = st_writer_open(out, res, tool_opts.level, threads, &err);
	if (!w || st_write_matrix(w, src, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	for (int m = 0; m < 2; m++) {
		if (m && !pred)
			break;
		for (uint64_t i = 0; i < res->rows; i++)
			if (st_write(w, m ? (const void *)(pred + (uint64_t)src[i] * n)
			                  : (const char *)dist + (uint64_t)src[i] * n * es,
			             n * (m ? 4 : es), &err) < 0)
				tool_die_st(tool_output_name(), &err);
		if (st_write_end_matrix(w, &err) < 0)
			tool_die_st(tool_output_name(), &err);
	}
	if (st_writer_close(w, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	tool_output_commit();
}
