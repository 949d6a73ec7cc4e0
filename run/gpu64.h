/* gpu64.h - apsp-gpu on float64 streams: the graph read whole and checked
 * on the host (sv_prepare), solved on gpus GPUs (bands of rows), in core, by the float64
 * engine of the GPU library (kernels/fw_matrix.h; predecessors as the
 * textbook order picks them), the result or the statistics written. */
#ifndef APSP_GPU64_H
#define APSP_GPU64_H

#include <stdio.h>

#include "engine.h"

struct ckpt;

/* r is open on the input, in its header; out the result's descriptor, or
 * sout the statistics' stream with form (--stats); ck the checkpoints to
 * take (NULL: none; the caller ends them once the result is committed).
 * Dies on any failure. */
void gpu64_solve(engine_in *r, st_header *in, const char *input, int out, FILE *sout,
                 const struct stats_form *form, int paths, int device, int gpus,
                 struct ckpt *ck, int threads);

#endif
