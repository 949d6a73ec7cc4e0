/* betweenness.h - the engines' betweenness (--betweenness, --normalized,
 * --edge-betweenness; lib/stats.h's gs_bc): the graph taken before the
 * solve, the rows of int32 distances handed over as the engine makes them,
 * the values made, scaled and put where --stats prints them. */
#ifndef APSP_RUN_BETWEENNESS_H
#define APSP_RUN_BETWEENNESS_H

#include "stats.h"
#include "statsout.h"

/* The accumulator (lib/stats.h's gs_bc) and the rows held for it: a call
 * on a few rows would keep few cores busy (a chunk of 64 sources a core). */
typedef struct btw_run btw_run;

/* Devices that make the sources' sums from their rows (apsp-gpu's GPUs,
 * kernels/betweenness/fw_betweenness.h), for int32 graphs without --edge-betweenness,
 * the batches dealt to them in turn: open gets device which's context,
 * the graph (gs_bc_graph) and the batch (sources, a multiple of 64); room
 * is where a batch's rows go once the last's have left; put begins a
 * batch, take waits for it and gives its chunks' partial sums; close frees
 * it (0, or -1 or NULL with msg).  Where an open fails, or memory leaves no
 * room for 64 sources, the host's cores make them, -v saying why.  Set
 * before btw_begin (which calls ready, where the devices are found while
 * the graph is read); NULL: the host's cores. */
struct btw_device {
	void (*ready)(struct btw_device *d); /* where not NULL, first: sets devices, memory */
	int devices;
	int (*open)(void **ctx, int which, uint64_t n, const uint64_t *first,
	            const uint32_t *arcs, uint64_t m, uint64_t batch, char *msg, size_t len);
	int32_t *(*room)(void *ctx, char *msg, size_t len);
	int (*put)(void *ctx, uint64_t first, uint64_t count, char *msg, size_t len);
	const double *(*take)(void *ctx, double *kernel_ms, char *msg, size_t len);
	void (*close)(void *ctx);
	double (*batch_bytes)(uint64_t n, uint64_t batch); /* what a batch takes on one */
	double memory; /* bytes each may take */
};
void btw_use_device(struct btw_device *d);

/* Where form asks for betweenness, the accumulator of the graph of count
 * arcs (from, to, w of type; stride 0) or of an n x n weight matrix (w,
 * stride entries a row, stride > 0; from, to unused); NULL where it is not asked.  Dies (exit 2)
 * where a weight is negative or a cycle has zero weight, naming the arc. */
btw_run *btw_begin(const struct stats_form *form, uint64_t n, uint32_t type, uint64_t count,
                 const uint32_t *from, const uint32_t *to, const void *w, uint64_t stride,
                 int threads);
/* btw_begin of an n x n weight matrix, made on a thread of its own while
 * the caller goes on (an engine solving: w must stay unchanged); the first
 * btw_rows or btw_print waits for it.  Dies as btw_begin does. */
btw_run *btw_begin_beside(const struct stats_form *form, uint64_t n, uint32_t type,
                          const void *w, uint64_t stride, int threads);
/* Rows first .. first + count - 1 of the distances, in order (int32 only;
 * others are searched at the end).  Nothing where b is NULL. */
void btw_rows(btw_run *b, uint64_t first, uint64_t count, const void *rows, uint64_t stride);
/* The statistics st printed to out as form asks (stats_print; flags: the
 * graph's, ST_DIRECTED clear: undirected), with b's values where b is not
 * NULL: made (b freed), scaled as form asks, the arcs' written to
 * form->edge_path. */
void btw_print(btw_run *b, FILE *out, const gs_stats *st, const struct stats_form *form,
               uint32_t flags);

#endif
