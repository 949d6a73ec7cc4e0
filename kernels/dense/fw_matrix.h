/* fw_matrix.h - all pairs of a float64 matrix the caller holds, on an
 * NVIDIA GPU, in one call (prefix fwm_): the entry point of the GPU library
 * libapsp-gpu.so that the Python package loads (python/apsp), over the
 * engine apsp-gpu runs (fw_gpu.h).  Nothing here prints or exits. */
#ifndef APSP_FW_MATRIX_H
#define APSP_FW_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The number of CUDA devices, or -1 with a message. */
int fwm_device_count(char *err, size_t errlen);

/* How fwm_solve() reads graph (bits of flags): */
enum {
	FWM_NULL_VALUES = 1, /* 0, NaN and infinities are no edge (scipy's dense arrays) */
	FWM_UNDIRECTED = 2,  /* each edge both ways, the smaller weight of the two */
	FWM_UNWEIGHTED = 4,  /* every edge weighs 1 */
	FWM_CHECKED = 8,     /* the caller has looked for negative cycles (sv_prepare) */
};

/* All pairs on devices device .. device + gpus - 1 (gpus <= 1: one; at most
 * one a block row of 64), each holding a band of rows: graph (n x n,
 * stride n) holds the weights of type, which must be ST_FLOAT64 (+inf: no
 * edge; the diagonal is ignored, taken as 0, as scipy does), read as flags
 * say on the host into dist (n x n, which may be graph itself), which then
 * receives the distances; pred, when not NULL, the textbook predecessors
 * (fw_opts.textbook_paths in lib/fw.h; -1: none).  Where a weight is
 * negative a negative cycle is looked for first (sv_prepare).  Returns 0;
 * 1 when there is a negative cycle (*cycle_vertex is on it; dist then holds
 * the weights as read); -1 on error (a NaN or -infinity weight, too large
 * for the device: the message names the largest n that fits, a CUDA
 * error).  The CUDA contexts are made by the first call and kept for the
 * next ones.  Calls from several threads run one after the other. */
int fwm_solve(uint32_t type, uint64_t n, const void *graph, void *dist, int32_t *pred,
              int flags, int device, int gpus, int64_t *cycle_vertex, char *err, size_t errlen);

/* The most GPUs fwm_solve() takes. */
#define FWM_MAX_GPUS 16

/* The last fwm_solve()'s times in milliseconds, as the engine took them
 * (fwg_timing): the graph up, the rounds, the results down. */
void fwm_times(double *up_ms, double *kernel_ms, double *down_ms);

#ifdef __cplusplus
}
#endif

#endif
