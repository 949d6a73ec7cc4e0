/* fw_matrix.h - all pairs of a float64 matrix the caller holds, on an
 * NVIDIA GPU, in one call (prefix fwm_): the GPU library libapsp-gpu.so
 * that the Python package loads (python/apsp), built apart from apsp-gpu's
 * engine (fw_gpu.h), which works on streams.  Nothing here prints or
 * exits. */
#ifndef APSP_FW_MATRIX_H
#define APSP_FW_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The number of CUDA devices, or -1 with a message. */
int fwm_device_count(char *err, size_t errlen);

/* fw_solve() (lib/fw.h) on device number device: dist (n x n, stride n) of
 * type, which must be ST_FLOAT64, holds the weights (+inf: no edge; a
 * negative diagonal entry is a negative cycle, any other is taken as 0) on
 * entry and the distances on return; pred, when not NULL, receives the
 * textbook predecessors (fw_opts.textbook_paths; -1: none).  Returns 0; 1
 * when there is a negative cycle (*cycle_vertex is on it); -1 on error
 * (NaN weight, too large for the device: the message names the largest n
 * that fits, a CUDA error).  The CUDA context is made by the first call and
 * kept for the next ones. */
int fwm_solve(uint32_t type, uint64_t n, void *dist, int32_t *pred, int device,
              int64_t *cycle_vertex, char *err, size_t errlen);

/* The last fwm_solve()'s rounds, all three phases, in milliseconds (CUDA
 * events). */
double fwm_kernel_ms(void);

#ifdef __cplusplus
}
#endif

#endif
