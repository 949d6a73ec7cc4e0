/* sink.h - where apsp-gpu's results go as the engine hands them back, panel
 * by panel (fwg_sink; prefix sink_): written into the result stream, or
 * folded into the statistics.  Tools die on errors. */
#ifndef APSP_SINK_H
#define APSP_SINK_H

#include <stdint.h>
#include <stdio.h>

#include "dense/fw_gpu.h"
#include "solve.h"
#include "stats.h"
#include "betweenness.h"
#include "statsout.h"
#include "stream.h"

/* Each row panel of the result as it comes back from the device: its
 * predecessor chains checked against the graph (unless the engine knows
 * them sure), its distances freed of the reweighting and compressed into the
 * stream, its predecessors compressed into a spool that follows the
 * distances, all while the device copies the next panel. */
struct sink {
	uint64_t n;
	uint32_t type;
	uint32_t flags;      /* the graph's (--stats: directed or not) */
	int threads;
	const void *graph;
	sv_plan *plan;
	st_writer *w;
	st_spool *pred;         /* the predecessor matrix, compressed ahead */
	const struct fwg_timing *t; /* the engine's choices, set before the first panel */
	gs_stats *stats;        /* --stats: the panels folded here, not written */
	btw_run *bc;              /* --betweenness: the panels' rows given it (run/betweenness.h) */
	int64_t repaired;
	double write_s;         /* in st_write and st_spool_write */
	double sink_s;          /* in sink_take: the host's part of the panels */
	double spool_wait_s;    /* the predecessors' spool finishing after the distances */
	st_error err;
	int failed;             /* 1: out of memory; 2: write error in err */
};

/* The engine's sink (fwg_sink): ctx is a struct sink. */
int sink_take(void *ctx, uint64_t r0, uint64_t rows, void *dist, int32_t *pred);
/* fwg_solve_panels() failed: die saying why, the sink's own failure first. */
_Noreturn void sink_failed(const struct sink *res, const char *msg);
/* --stats: the figures to fill (o->stats), by the devices or by sink_take;
 * o->potential from plan (NULL: none). */
void sink_open_stats(struct sink *res, struct fwg_opts *o, const sv_plan *plan, uint64_t n,
                     uint32_t type);
/* The result stream's ends, or the statistics (and bc's betweenness) into
 * sout; then the output committed. */
void sink_finish(struct sink *res, const struct fwg_opts *o, FILE *sout,
                 const struct stats_form *form);

#endif
