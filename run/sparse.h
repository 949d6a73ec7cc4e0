/* sparse.h - apsp-cpu's sparse engine run (lib/sparse/elim.h): the graph's
 * arcs gathered (from text, or from a stream a window of rows at a time),
 * ordered by nested dissection, eliminated; then the rows of the distances
 * made a batch of sources at a time and folded into the statistics or
 * written as a result stream, in order.  Nothing n x n is ever held. */
#ifndef APSP_RUN_SPARSE_H
#define APSP_RUN_SPARSE_H

#include <stdio.h>

#include "elim.h"
#include "engine.h"
#include "stats.h"
#include "statsout.h"
#include "stream.h"

/* --engine */
enum { ENGINE_AUTO, ENGINE_DENSE, ENGINE_SPARSE };
int sparse_parse_engine(const char *arg); /* dies with a usage error */

/* What the run asks of the engine. */
struct sparse_job {
	int mode;                        /* enum above */
	int order;                       /* ORDER_ (engine.h) */
	int paths;                       /* predecessors asked */
	int checkpoint;                  /* --checkpoint or --resume given */
	const char *input;               /* the graph's path ("-": stdin) */
	const uint32_t *src;             /* the rows asked (--rows, --sources), or NULL: all */
	uint64_t sources;                /* ... how many */
	const uint32_t *dst;             /* a table's columns (--targets), or NULL: whole rows */
	uint64_t targets;                /* ... how many */
	const struct stats_form *form;   /* --stats: its form; NULL: a result stream */
	int threads;
	int streams;                     /* ENGINE_AUTO reads a stream for it (else: dense) */
	/* Where the rows are made on a device (apsp-gpu): into stats, else
	 * handed to take in order (those of rows, with its columns: rows NULL,
	 * every one whole); a line for -v into info.  0, or -1 with info the
	 * message.  NULL: on this machine's cores. */
	int (*device_rows)(void *ctx, const el_factor *f, const el_rowset *rows, gs_stats *stats,
	                   el_rows_fn *take, void *take_ctx, char *info, size_t len);
	void *device_ctx;
};

/* Runs the sparse engine where it is asked for or chosen (ENGINE_AUTO: a
 * sparse graph whose factor is small), writing the result to out or the
 * statistics to sout and committing the output: returns 1.  Where the dense
 * engine runs instead returns 0 with why saying so, *weights either NULL
 * (r untouched: read it as usual; always so for text) or the graph's weight
 * matrix (npad x npad as h says, malloc'd; r consumed).  Dies on error;
 * exit 3 on a negative cycle. */
int sparse_run(const struct sparse_job *job, engine_in *r, const st_header *h, int out,
               FILE *sout, void **weights, char *why, size_t len);
/* Why the dense engine runs before r's graph is read (sparse_run then
 * returns 0 at once, saying so), or NULL where the sparse engine may take
 * it; --engine sparse that cannot run: a usage error. */
const char *sparse_declines(const struct sparse_job *job, const engine_in *r);

#endif
