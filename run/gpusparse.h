/* gpusparse.h - apsp-gpu's sparse engine: the rows of run/sparse.c's factor
 * made on a GPU (kernels/fw_sparse.h), folded there into the statistics or
 * written in order. */
#ifndef APSP_GPUSPARSE_H
#define APSP_GPUSPARSE_H

#include <pthread.h>

#include "sparse.h"

/* The device, as the sparse engine's job takes it: its number, and the
 * thread that starts it while the host reads, orders and eliminates. */
struct gpusparse_dev {
	int device;
	int started; /* the thread runs (gpusparse_begin) */
	pthread_t thread;
	int rc;
	char err[256];
};

/* Start the device's context on a thread of its own (its first CUDA call
 * takes a few hundred milliseconds), beside the host's work. */
void gpusparse_begin(struct gpusparse_dev *d);
/* Wait for that thread (where the sparse engine declined the graph). */
void gpusparse_end(struct gpusparse_dev *d);

/* A sparse_job's device_rows: ctx points to a gpusparse_dev (begun or not). */
int gpusparse_rows(void *ctx, const el_factor *f, gs_stats *stats, el_rows_fn *take,
                   void *take_ctx, char *info, size_t len);

#endif
