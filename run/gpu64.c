/* gpu64.c - see gpu64.h. */
#include <stdlib.h>

#include "common.h"
#include "gpu64.h"
#include "checkpoint.h"
#include "engine.h"
#include "fw_matrix.h"
#include "solve.h"
#include "tool.h"

/* The checkpoints' callbacks of the float64 engine (fw_matrix.h): ctx is a
 * struct resumed, which notes the step a checkpoint took the run on from. */
struct resumed {
	struct ckpt *ck;
	int64_t from;
};

static int64_t load_noted(void *ctx, const char *stage, uint64_t steps, uint64_t side, int paths,
                          fwm_state_fn *put, void *pctx)
{
	struct resumed *rs = ctx;
	rs->from = ckpt_staged_load(rs->ck, stage, steps, side, paths, put, pctx);
	return rs->from;
}

static int due_noted(void *ctx, uint64_t bytes)
{
	return ckpt_due(((struct resumed *)ctx)->ck, bytes);
}

static void save_noted(void *ctx, const char *stage, uint64_t step, uint64_t steps,
                       uint64_t side, int paths, fwm_state_fn *get, void *gctx)
{
	ckpt_staged_save(((struct resumed *)ctx)->ck, stage, step, steps, side, paths, get, gctx);
}

static void digest_ready(void *ctx)
{
	ckpt_ready(((struct resumed *)ctx)->ck);
}

void gpu64_solve(engine_in *r, st_header *in, const char *input, int out, FILE *sout,
                 const struct stats_form *form, int paths, int device, int gpus,
                 struct ckpt *ck, int threads)
{
	const uint64_t n = in->n;
	const int in_place = in->npad == n;
	const double mat = 8.0 * (double)n * (double)n;
	engine_check_memory(input, in, mat + (in_place ? 0 : (double)st_matrix_bytes(in))
	                               + (paths ? mat / 2 : 0));
	void *dist = lib_huge_alloc(n * n * 8 + 8);
	void *weights = in_place ? dist : malloc(st_matrix_bytes(in) + 8);
	int32_t *pred = paths ? lib_huge_alloc(n * n * 4 + 4) : NULL;
	if (!dist || !weights || (paths && !pred))
		tool_die("out of memory for %llu x %llu matrices", (unsigned long long)n,
		         (unsigned long long)n);
	tool_progress_stage("reading the graph");
	engine_read_weights(r, weights);
	double t0 = lib_now();
	st_error err;
	sv_plan plan;
	int rc = sv_prepare(in, weights, dist, NULL, threads, &plan, &err);
	if (!in_place)
		free(weights);
	if (rc < 0)
		tool_die_st(tool_input_name(input), &err);
	st_header h;
	if (sv_result_header(in, paths, &h, &err) < 0)
		tool_die_st("result", &err);
	tool_add_provenance(&h);
	if (rc == 1)
		engine_negative_cycle(input, sout ? -1 : out, &h, plan.cycle_vertex, threads);
	tool_progress_stage("solving on the GPU");
	char msg[256];
	int64_t cycle;
	struct resumed rs = {ck, 0};
	const struct fwm_checkpoint fc = {due_noted, save_noted, load_noted, digest_ready, &rs};
	if (ck) {
		char layout[128];
		ckpt_gpu_layout(layout, sizeof layout, 64, paths, 0, 0, 0);
		ckpt_begin(ck, ST_FLOAT64, n, dist, NULL, layout, 0); /* (the prepared weights) */
	}
	if (fwm_solve_resumable(ST_FLOAT64, n, dist, dist, pred, FWM_CHECKED, device, gpus,
	                        ck ? &fc : NULL, &cycle, msg, sizeof msg))
		tool_die("%s", msg);
	if (ck)
		ckpt_gpu_report(ck->written, (int)rs.from, 0);
	double up, ker, down, relax = (double)n * n * n;
	fwm_times(&up, &ker, &down);
	tool_info("n %llu, float64%s, %d GPU%s from %d (the float64 engine, textbook predecessors): "
	          "kernels %.1f ms (%.3g relaxations/s), up %.1f ms, down %.1f ms; whole %.3f s",
	          (unsigned long long)n, paths ? ", paths" : "", gpus, gpus > 1 ? "s" : "", device, ker,
	          ker > 0 ? relax / (ker / 1e3) : 0.0, up, down, lib_now() - t0);
	tool_progress_stage(sout ? "folding the statistics" : "writing the result");
	if (sout)
		engine_write_stats(sout, form, &plan, dist, n, ST_FLOAT64, in->flags, threads);
	else
		engine_write_result(out, &h, &plan, dist, pred, NULL, threads);
	st_header_free(&h);
	free(dist);
	if (pred)
		free(pred);
}
