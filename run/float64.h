/* float64.h - apsp-gpu on float64 streams: the graph read whole and checked
 * on the host (sv_prepare) and ordered, then solved by the GPU engine
 * (fw_gpu.h), in core or out of core, on one GPU, several, or (the caller
 * deciding) the processes of an MPI run; the largest intermediate vertex of
 * each path turned into the textbook predecessors (fw_textbook_preds), the
 * result written; or, with --stats, the statistics folded on the GPUs. */
#ifndef APSP_FLOAT64_H
#define APSP_FLOAT64_H

#include <stdio.h>

#include "engine.h"
#include "dense/fw_gpu.h"
#include "solve.h"

struct ckpt;

/* The graph as read: its matrix (the prepared weights, then the
 * distances), the predecessors' room, sv_prepare()'s word and plan, the
 * result's header, the order and whether the run skips blocks. */
struct f64_graph {
	const char *input;
	uint64_t n;
	uint32_t flags;    /* the input's header's */
	void *dist;
	int32_t *pred;     /* with paths */
	int rc;            /* 1: a negative cycle (plan.cycle_vertex on it) */
	sv_plan plan;
	st_header h;       /* the result's */
	int32_t *perm;     /* the order (NULL: the vertices' own) */
	int skip;          /* blocks skipped (an order, or a sparse graph) */
	char why[160];     /* the order's words, for -v */
	double t0;         /* when the graph was read */
};

/* Read the graph of r (open on input, in its header; freed here) into g:
 * paths whether predecessors are asked; order the order asked for
 * (engine_order: auto keeps the vertices' own order for float64, in which
 * the textbook picks its predecessors).  Dies on any failure. */
void f64_read(struct f64_graph *g, engine_in *r, st_header *in, const char *input,
                int paths, int order, int threads);

/* Solve g (not a negative cycle) with o (its devices ready, checkpoints as
 * decided: ck's record, ended by the caller once the result is committed;
 * o->ranks: process 0 of an MPI run sharing the rounds), then write the
 * result to out, or the statistics to sout in form.  Frees g.  Dies on any
 * failure. */
void f64_solve(struct f64_graph *g, int out, FILE *sout, const struct stats_form *form,
                 struct fwg_opts *o, struct ckpt *ck, int threads);

#endif
