/* statsout.h - the statistics table, summary and JSON that apsp-stats,
 * apsp-cpu --stats and apsp-gpu --stats print (lib/stats.h computes them). */
#ifndef APSP_STATSOUT_H
#define APSP_STATSOUT_H

#include <stdio.h>

#include "stats.h"

/* What --stats prints: the table, or with --summary the graph-wide lines;
 * with --json either as one JSON object. */
enum { STATS_TABLE = 0, STATS_SUMMARY = 1 };
struct stats_form {
	int what;  /* STATS_TABLE or STATS_SUMMARY */
	int json;
	uint64_t base; /* the first vertex's number (--base) */
	/* The engines' betweenness (run/betweenness.h): asked as a column
	 * (--betweenness), --normalized, the arcs' values to a file
	 * (--edge-betweenness); bc, where not NULL, the values (scaled). */
	int betweenness, normalized;
	const char *edge_path;
	const gs_betweenness *bc;
};

/* The options of the statistics output, for a tool's getopt_long table
 * (STATS_LONGOPTS) and its switch (stats_option: 1 if c was one). */
enum { STATS_OPT_SUMMARY = 0x3000, STATS_OPT_JSON, STATS_OPT_BASE };
#define STATS_LONGOPTS                                                      \
	{"summary", no_argument, 0, STATS_OPT_SUMMARY},                         \
	{"json", no_argument, 0, STATS_OPT_JSON},                               \
	{"base", required_argument, 0, STATS_OPT_BASE}
int stats_option(int c, const char *arg, struct stats_form *f);
/* Their help lines. */
void stats_help(FILE *f);

/* s in form f to out (the tool's output, already open); flags, the graph's
 * (its header's): where ST_DIRECTED is clear the summary is networkx's
 * undirected one (the Wiener index and the pairs over unordered pairs) and
 * says so.  Dies on a write error through the caller's commit. */
void stats_print(FILE *out, const gs_stats *s, const struct stats_form *f, uint32_t flags);

/* The arcs' betweenness to path, a line an arc ("from to value", the
 * vertices from base); where the graph is undirected (flags), a line an
 * edge u < v, its value the two arcs' sum, as networkx gives an undirected
 * graph's.  Written beside path and renamed over it once whole; dies on
 * error. */
void stats_write_edges(const char *path, const gs_betweenness *b, uint64_t base,
                       uint32_t flags);

#endif
