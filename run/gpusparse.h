/* gpusparse.h - apsp-gpu's sparse engine: the rows of run/sparse.c's factor
 * made on a GPU (kernels/fw_sparse.h), folded there into the statistics or
 * written in order. */
#ifndef APSP_GPUSPARSE_H
#define APSP_GPUSPARSE_H

#include "sparse.h"

/* A sparse_job's device_rows: ctx points to the device's number. */
int gpusparse_rows(void *ctx, const el_factor *f, gs_stats *stats, el_rows_fn *take,
                   void *take_ctx, char *info, size_t len);

#endif
