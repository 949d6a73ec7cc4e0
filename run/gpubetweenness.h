/* gpubetweenness.h - apsp-gpu's GPUs lent to the betweenness sums
 * (run/betweenness.h's btw_device, kernels/betweenness/fw_betweenness.h's sums), beside
 * the engine that solves on them. */
#ifndef APSP_GPUBETWEENNESS_H
#define APSP_GPUBETWEENNESS_H

#include <stdint.h>

#include "betweenness.h"
#include "dense/fw_gpu.h"
#include "gpusparse.h"

/* The dense engine's devices (o's, one under mpirun), each less its band of
 * the engine's memory: the sums' devices from now on. */
void gpubtw_dense(const struct fwg_opts *o, uint64_t n, uint32_t type);
/* The sparse engine's devices, taken from d once its thread has found them
 * (half their free memory: the engine sizes its batches by what is left). */
void gpubtw_sparse(struct gpusparse_dev *d);

#endif
