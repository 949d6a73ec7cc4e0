/* gpusparse.h - apsp-gpu's sparse engine: the rows of run/sparse.c's factor
 * made on a GPU (kernels/sparse/fw_sparse.h), folded there into the statistics or
 * written in order. */
#ifndef APSP_GPUSPARSE_H
#define APSP_GPUSPARSE_H

#include <pthread.h>

#include "sparse.h"

/* The devices, as the sparse engine's job takes them: the first's number
 * and how many were asked for (--gpus: 0 by n, all of them from n = 32768
 * on; -1 all; else that many), and the thread that finds them and starts
 * them while the host reads, orders and eliminates. */
#define GPUSPARSE_MAX 16
struct gpusparse_dev {
	int device, gpus;
	uint64_t n;
	int devices[GPUSPARSE_MAX], ndevices; /* found (APSP_SPARSE_DEVICES: as listed) */
	int started; /* the thread runs (gpusparse_begin) */
	pthread_t thread;
	int rc;
	char err[256];
	/* Under mpirun, process 0: the others wait for its word (owed), or have
	 * left (alone: it ends the run by itself). */
	int owed, alone;
};

/* Process 0's word to the others of an MPI run on the sparse route: the
 * factor comes and they take their batches (GO), they leave (LEAVE: the
 * run's rows are written by process 0 alone, or it ended), or the engine
 * declined the graph and the route is planned again (DECLINED). */
enum { GPUSPARSE_GO = 1, GPUSPARSE_LEAVE, GPUSPARSE_DECLINED };
void gpusparse_word(struct gpusparse_dev *d, int what);
/* Processes other than 0 on the sparse route: the word, and on GO the
 * factor and their batches, their statistics passed to process 0 (dies
 * on error).  Returns the word. */
int gpusparse_follow(struct gpusparse_dev *d);

/* Find the devices and start their contexts on a thread of its own (a
 * first CUDA call takes a few hundred milliseconds), beside the host's
 * work. */
void gpusparse_begin(struct gpusparse_dev *d);
/* Wait for that thread (where the sparse engine declined the graph). */
void gpusparse_end(struct gpusparse_dev *d);

/* A sparse_job's device_rows: ctx points to a gpusparse_dev (begun). */
int gpusparse_rows(void *ctx, const el_factor *f, const el_rowset *rows, gs_stats *stats,
                   el_rows_fn *take, void *take_ctx, char *info, size_t len);

#endif
