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

/* How fwm_solve() reads graph (bits of flags): */
enum {
	FWM_NULL_VALUES = 1, /* 0, NaN and infinities are no edge (scipy's dense arrays) */
	FWM_UNDIRECTED = 2,  /* each edge both ways, the smaller weight of the two */
	FWM_UNWEIGHTED = 4,  /* every edge weighs 1 */
	FWM_CHECKED = 8,     /* the caller has looked for negative cycles (sv_prepare) */
};

/* All pairs on devices device .. device + gpus - 1 (gpus <= 1: one; at most
 * one a block row of 64), each holding a band of rows, the pivot rows
 * copied between them every round: graph (n x n, stride n) holds the
 * weights of type, which must be ST_FLOAT64 (+inf: no edge; the diagonal
 * is ignored, taken as 0, as scipy does), read as flags say; dist (n x n,
 * which may be graph itself) receives the distances; pred, when not NULL,
 * the textbook predecessors (fw_opts.textbook_paths in lib/fw.h; -1:
 * none).  The weights are prepared on the device; where one is negative
 * they come back to look for a negative cycle (sv_prepare).  Returns 0; 1
 * when there is a negative cycle (*cycle_vertex is on it; dist then holds
 * the prepared weights); -1 on error (a NaN or -infinity weight, too large
 * for the device: the message names the largest n that fits, a CUDA
 * error; FWM_UNDIRECTED on more than one GPU).  The CUDA contexts are made
 * by the first call and kept for the next ones.  Calls from several threads
 * run one after the other. */
int fwm_solve(uint32_t type, uint64_t n, const void *graph, void *dist, int32_t *pred,
              int flags, int device, int gpus, int64_t *cycle_vertex, char *err, size_t errlen);

/* Checkpoints between rounds (apsp-gpu --checkpoint: run/checkpoint.h):
 * the state is the padded matrix, side x side distances (8 bytes each) and
 * with predecessors the largest intermediate vertex of each (4 bytes),
 * moved by a fwm_state_fn: bytes of the distances (pred 0) or of the
 * intermediates (1) from byte offset, out of the devices into buf (get) or
 * into them (put); 0, or -1 where it failed. */
typedef int fwm_state_fn(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes);
struct fwm_checkpoint {
	/* whether one is due, the state being bytes */
	int (*due)(void *ctx, uint64_t bytes);
	/* the state of stage after step of steps, through get */
	void (*save)(void *ctx, const char *stage, uint64_t step, uint64_t steps, uint64_t side,
	             int paths, fwm_state_fn *get, void *gctx);
	/* the state put in, where there is one: the step to go on from, 0
	 * where there is none, below 0 where it is of another stage */
	int64_t (*load)(void *ctx, const char *stage, uint64_t steps, uint64_t side, int paths,
	                fwm_state_fn *put, void *pctx);
	/* before the results come down over graph (which may be dist) */
	void (*ready)(void *ctx);
	void *ctx;
};

/* fwm_solve() with checkpoints between its rounds (ck NULL: none). */
int fwm_solve_resumable(uint32_t type, uint64_t n, const void *graph, void *dist, int32_t *pred,
                        int flags, int device, int gpus, const struct fwm_checkpoint *ck,
                        int64_t *cycle_vertex, char *err, size_t errlen);

/* The most GPUs fwm_solve() takes. */
#define FWM_MAX_GPUS 16

/* The last fwm_solve()'s times in milliseconds, on the host's clock with
 * the devices synchronized: the graph up and prepared, the rounds, the
 * results down with the predecessors made. */
void fwm_times(double *up_ms, double *kernel_ms, double *down_ms);

#ifdef __cplusplus
}
#endif

#endif
