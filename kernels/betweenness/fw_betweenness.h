/* fw_betweenness.h - betweenness on the GPU (prefix fwb_): the sources of a
 * batch of rows of int32 distances, a warp a source, each through the
 * steps of lib/stats/betweenness.c's search from a row (its tight arcs up
 * to its farthest vertex, Kahn's order with the path counts, the
 * dependencies backwards) in the same order, so the same values; each
 * chunk of 64 sources summed in order, as gs_bc_add_rows sums them, and
 * handed back for gs_bc_add_partials.  Nothing here prints or exits. */
#ifndef APSP_FW_BETWEENNESS_H
#define APSP_FW_BETWEENNESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fwb fwb;

/* The graph (gs_bc_graph: first[0 .. n], arcs as (head, weight) pairs) on
 * device, with room for batches of up to batch sources (a multiple of 64).
 * 0, or -1 with msg (nothing left allocated, no error left pending). */
int fwb_new(fwb **b, int device, uint64_t n, const uint64_t *first, const uint32_t *arcs,
            uint64_t m, uint64_t batch, char *msg, size_t len);
/* A batch's sources, in three steps, so that the host fills the next
 * batch while the device works on the last:
 * - fwb_room: where the rows go (count x n int32, pinned host memory),
 *   once the last batch's have left it (NULL with msg on an error);
 * - fwb_put: sources first .. first + count - 1 (count <= batch) from
 *   those rows, begun on the device, nothing waited for;
 * - fwb_take: waits for them: one n-vector of partial sums a chunk of 64
 *   (valid until the next fwb_put), *kernel_ms grown by the kernels' time
 *   (CUDA events); NULL with msg on an error.  One batch put at a time. */
int32_t *fwb_room(fwb *b, char *msg, size_t len);
int fwb_put(fwb *b, uint64_t first, uint64_t count, char *msg, size_t len);
const double *fwb_take(fwb *b, double *kernel_ms, char *msg, size_t len);
void fwb_free(fwb *b);
/* The device's free memory in bytes now (0 where it cannot tell). */
double fwb_free_memory(int device);
/* What a batch of batch sources of n vertices takes on the device, in bytes. */
double fwb_batch_bytes(uint64_t n, uint64_t batch);

#ifdef __cplusplus
}
#endif

#endif
