/* fw_sparse.h - the sparse engine on one GPU or several (prefix fws_): the factor that
 * lib/sparse/elim.h makes on the host, copied to the device; the distances
 * from a batch of sources at a time by its two sweeps (up through each
 * source's ancestors, down through every position), a lane a source, no
 * n x n matrix; each batch's rows folded into the statistics on the device
 * (in the order of a stream's rows, as apsp-stats folds them) or handed to
 * the caller in order.  Nothing here prints or exits. */
#ifndef APSP_FW_SPARSE_H
#define APSP_FW_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "elim.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows first .. first + count - 1 of the distances (the columns asked
 * each: n, or a table's targets; the factor's type, on the host, valid
 * during the call): 0, or non-zero to stop. */
typedef int fws_rows_fn(void *ctx, uint64_t first, uint64_t count, const void *rows);

struct fws_timing {
	char device_name[64];
	double upload_ms;    /* the factor onto the device */
	double kernel_ms;    /* the sweeps (CUDA events) */
	double up_ms;        /* ... of which the up sweeps */
	double fold_ms;      /* rows into the statistics, or out to the host */
	double fold_out_ms;  /* ... of which the sources' own figures */
	uint64_t batch;      /* sources a batch */
	uint64_t swept;      /* sources swept here (a process of several: its own) */
	uint64_t arcs;       /* finite arcs of the factor (both ways) */
	double device_bytes; /* device memory taken */
};

/* Several processes of one run (mpirun), each with its devices' share of
 * the batches: batch b on process b % ranks (one device each), the in
 * figures passed from process to process through the host by send and
 * recv (bytes to or from process to/from), the batch's size the least of
 * the processes' (least: *v made the least of every process's).  Process
 * 0 gathers the statistics; the others' stats are left as passed in.
 * Each returns 0, or non-zero with the run ended. */
struct fws_ranks {
	int rank, ranks;
	void *ctx;
	int (*send)(void *ctx, const void *buf, size_t len, int to);
	int (*recv)(void *ctx, void *buf, size_t len, int from);
	int (*least)(void *ctx, uint64_t *v);
};

/* The host's part of the devices' setup for f (the down sweep's plan and
 * lists), to be made beside the devices' start: NULL with err set (too
 * large; no memory).  fws_plan_free frees it (NULL: nothing). */
typedef struct fws_plan fws_plan;
fws_plan *fws_plan_make(const el_factor *f, char *err, size_t errlen);
void fws_plan_free(fws_plan *p);

/* All rows of f's graph (or, rows->src not NULL, the rows of its
 * sources, in the list's order: rows alone, no statistics; rows->dst not
 * NULL: only those columns leave the device) on the
 * devices devices[0 .. ndevices - 1] (a
 * device may come twice: tests), with f's plan (NULL: made here), batch b
 * on device b % ndevices, the
 * statistics' in figures passed from each batch's device to the next
 * batch's, so that every column's floating sum is made in the sources'
 * order whatever the number of devices: into stats (gs_init'ed for f's n
 * and type) where it is not NULL, else to take, in order; at most most
 * sources a batch
 * (0: as many as 16 GiB holds, or a twentieth of the n x n matrix where
 * that is more).  0, or -1 with err set (too large for the device: the
 * message says what it needs; a CUDA error; take stopped). */
int fws_solve(const int *devices, int ndevices, const el_factor *f, const fws_plan *plan,
              const el_rowset *rows, gs_stats *stats, fws_rows_fn *take,
              void *ctx, uint64_t most, struct fws_timing *t, char *err, size_t errlen);
/* The same as one process of several (ranks: statistics alone, one device
 * a process; NULL or one rank: fws_solve). */
int fws_solve_ranks(const int *devices, int ndevices, const el_factor *f, const fws_plan *plan,
                    gs_stats *stats, uint64_t most, const struct fws_ranks *ranks,
                    struct fws_timing *t, char *err, size_t errlen);
/* The device's context made (cudaSetDevice and a first call), so that
 * fws_solve finds it ready: for a thread of the caller's, beside the host's
 * work.  0, or -1 with err set. */
int fws_start(int device, char *err, size_t errlen);
/* The number of CUDA devices, or -1 with err set. */
int fws_device_count(char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
