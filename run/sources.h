/* sources.h - which rows an engine's run writes (--rows A:B, --sources
 * FILE): the sources asked, checked against the graph, and a result of
 * their rows alone (ST_SOURCES in stream.h). */
#ifndef APSP_RUN_SOURCES_H
#define APSP_RUN_SOURCES_H

#include <stdint.h>
#include <stdio.h>

#include "stream.h"

enum { SOURCES_OPT_ROWS = 0x3900, SOURCES_OPT_FILE };
#define SOURCES_LONGOPTS                                      \
	{"rows", required_argument, 0, SOURCES_OPT_ROWS},      \
	{"sources", required_argument, 0, SOURCES_OPT_FILE}

/* What was asked: at most one of them. */
struct sources_opt {
	const char *rows; /* "A:B" */
	const char *file; /* vertices, one or more a line */
};

/* 1 if c was --rows or --sources (its value kept in so), else 0. */
int sources_option(int c, const char *arg, struct sources_opt *so);
/* Their help lines. */
void sources_help(FILE *f);
/* Usage errors: both given, either with --stats, --sources - with the
 * graph on stdin too. */
void sources_check(const struct sources_opt *so, int stats, const char *input);
/* The sources asked for a graph of n vertices (malloc'd, *count of them, in
 * the order asked), or NULL where neither option was given.  Dies naming
 * the file and line of a vertex out of range, given twice, or not a
 * number. */
uint32_t *sources_resolve(const struct sources_opt *so, uint64_t n, uint64_t *count);
/* A result header made for count rows (ST_SOURCES). */
void sources_header(st_header *res, uint64_t count);
/* The result of the sources' rows taken from whole n x n distances (and
 * predecessors, where pred is not NULL) to out as res says, committed. */
void sources_write(int out, const st_header *res, const uint32_t *src, const void *dist,
                   const int32_t *pred, int threads);

#endif
