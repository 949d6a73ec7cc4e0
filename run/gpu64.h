/* gpu64.h - apsp-gpu on float64 streams: the graph read whole and checked
 * on the host (sv_prepare), solved in core by the GPU engine (fw_gpu.h) on
 * the GPUs made ready for it, the largest intermediate vertex of each path
 * turned into the textbook predecessors (fw_textbook_preds), the result
 * written; or, with --stats, the statistics folded on the GPUs. */
#ifndef APSP_GPU64_H
#define APSP_GPU64_H

#include <stdio.h>

#include "engine.h"
#include "fw_gpu.h"

struct ckpt;
struct init_job;

/* r is open on the input, in its header; out the result's descriptor, or
 * sout the statistics' stream with form (--stats); o the engine's options
 * (paths, checkpoints as decided, blocking factor), its GPUs from job; order
 * the order asked for (engine_order: nested dissection makes the run
 * sparse, one GPU, blocks skipped; with paths, auto keeps the vertices'
 * order, in which the textbook picks its predecessors); ck the checkpoints' record (where
 * o->checkpoint; the caller ends them once the result is committed).  Dies
 * on any failure. */
void gpu64_solve(engine_in *r, st_header *in, const char *input, int out, FILE *sout,
                 const struct stats_form *form, struct fwg_opts *o, struct init_job *job,
                 int order, struct ckpt *ck, int threads);

#endif
