/* direct.h - a graph stream read straight onto the GPUs (fwg_feed.take;
 * prefix direct_).  Its rows go from the reader's windows to the devices
 * that hold them while the next window is inflated, and their facts
 * (sv_facts, taken by the devices) say, once the graph is whole, whether
 * the run is the one begun: no weight below zero or out of range, dense, as
 * numbered.  Where
 * it is not, the engine hands the rows back into a host matrix, and the
 * tool goes on as if it had read them there; otherwise no n x n matrix is
 * ever on the host.  Tools die on errors. */
#ifndef APSP_DIRECT_H
#define APSP_DIRECT_H

#include <stdint.h>

#include "engine.h"
#include "dense/fw_gpu.h"
#include "solve.h"
#include "stream.h"

struct direct {
	/* asked */
	engine_in *in;          /* a stream of int32 or float32 weights, npad = n */
	const char *input;      /* its name for messages */
	const st_header *h;     /* its header */
	int order;              /* ORDER_* asked */
	void (*go)(void *gctx); /* on a verdict of 1, before any result: the output opened */
	void *gctx;
	/* found */
	int failed;             /* the input failed: err says why */
	st_error err;
	sv_facts facts;         /* of every row (the engine's) */
	char why[160];          /* the order kept, and why (for -v) */
	void *graph;            /* the rows handed back, or read here where the engine did not
	                           take them (n x n of lib_huge_alloc(n * n * 4 + 4)), or NULL */
	double t_read;          /* lib_now() once read */
	void *reading;          /* the reading begun (direct.c) */
};

/* Begin reading d->in on a thread of its own, before the devices are
 * ready: the windows read before the engine takes them are set aside in
 * host memory (a sixteenth of it, 16 GiB at most), and the reading waits
 * beyond that. */
void direct_begin(struct direct *d);
/* The feed (fwg_opts.feed) that puts the rows onto the devices. */
struct fwg_feed direct_feed(struct direct *d);
/* After the engine (its run done, or 1): where it did not take the rows,
 * every row read into d->graph (dies where the input failed); the
 * reading's memory freed. */
void direct_finish(struct direct *d);

#endif
