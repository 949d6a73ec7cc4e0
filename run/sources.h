/* sources.h - which rows an engine's run writes (--rows A:B, --sources
 * FILE), and of them which columns (--targets FILE): the vertices asked,
 * checked against the graph, and a result of their rows alone (ST_SOURCES
 * in stream.h) or a table of their columns (ST_TARGETS). */
#ifndef APSP_RUN_SOURCES_H
#define APSP_RUN_SOURCES_H

#include <stdint.h>
#include <stdio.h>

#include "stream.h"

enum { SOURCES_OPT_ROWS = 0x3900, SOURCES_OPT_FILE, SOURCES_OPT_TARGETS, SOURCES_OPT_PATHS };
#define SOURCES_LONGOPTS                                      \
	{"rows", required_argument, 0, SOURCES_OPT_ROWS},      \
	{"sources", required_argument, 0, SOURCES_OPT_FILE},   \
	{"targets", required_argument, 0, SOURCES_OPT_TARGETS}, \
	{"paths", no_argument, 0, SOURCES_OPT_PATHS}

/* What was asked: at most one of rows and file; targets beside either. */
struct sources_opt {
	const char *rows;    /* "A:B" */
	const char *file;    /* vertices, one or more a line */
	const char *targets; /* a table's columns, listed as file's */
	int paths;           /* a table with its sources' predecessors (--paths) */
};

/* 1 if c was --rows or --sources (its value kept in so), else 0. */
int sources_option(int c, const char *arg, struct sources_opt *so);
/* Their help lines. */
void sources_help(FILE *f);
/* Usage errors: both given, either with --stats, --sources - with the
 * graph on stdin too; --targets without either, or with the graph or the
 * sources on stdin too; --paths without --targets, or with --no-paths
 * (paths: 0 where it was given). */
void sources_check(const struct sources_opt *so, int stats, const char *input, int paths);
/* The sources asked for a graph of n vertices (malloc'd, *count of them, in
 * the order asked), or NULL where neither option was given.  Dies naming
 * the file and line of a vertex out of range, given twice, or not a
 * number. */
uint32_t *sources_resolve(const struct sources_opt *so, uint64_t n, uint64_t *count);
/* The targets asked (--targets), as sources_resolve(); NULL where none. */
uint32_t *sources_targets(const struct sources_opt *so, uint64_t n, uint64_t *count);
/* A result header made for count rows (ST_SOURCES) and, where cols is not
 * 0, a table of their cols columns (ST_TARGETS; its predecessors, where res
 * has them, the sources' whole rows). */
void sources_header(st_header *res, uint64_t count, uint64_t cols);
/* The lists that begin such a result: the sources, then the targets
 * (where dst is not NULL). */
int sources_put_lists(st_writer *w, const uint32_t *src, const uint32_t *dst, st_error *err);
/* count rows of n entries of es bytes each to w: whole, or (dst not NULL)
 * the cols entries of dst alone, in dst's order. */
int sources_put_rows(st_writer *w, const void *rows, uint64_t count, uint64_t n, uint64_t es,
                     const uint32_t *dst, uint64_t cols, st_error *err);
/* The result of the sources' rows (of dst's columns alone, where dst is not
 * NULL) taken from whole n x n distances (and predecessors, where pred is
 * not NULL) to out as res says, committed. */
void sources_write(int out, const st_header *res, const uint32_t *src, const uint32_t *dst,
                   const void *dist, const int32_t *pred, int threads);

#endif
