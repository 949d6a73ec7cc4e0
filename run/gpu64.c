/* gpu64.c - see gpu64.h. */
#include <stdlib.h>

#include "common.h"
#include "gpu64.h"
#include "checkpoint.h"
#include "engine.h"
#include "fw.h"
#include "gpustart.h"
#include "solve.h"
#include "stats.h"
#include "statsout.h"
#include "tool.h"

/* What the run took, for -v (why: the order's words). */
static void report(const struct fwg_opts *o, const struct fwg_timing *t, uint64_t n,
                   const char *why, double whole)
{
	const double relax = (double)n * (double)n * (double)n;
	char skipped[160] = "";
	if (t->bands)
		snprintf(skipped, sizeof skipped, ", out of core: %d bands of %d rows, %d of them held "
		         "on the device", t->bands, t->band_rows, t->resident);
	else if (o->skip)
		snprintf(skipped, sizeof skipped, ", %llu of %llu block updates skipped",
		         (unsigned long long)t->tiles_skipped, (unsigned long long)t->tiles);
	tool_info("n %llu, float64%s, %d GPU%s from %d, B = %d%s, %s%s: kernels %.1f ms "
	          "(%.3g relaxations/s), up %.1f ms, down %.1f ms; whole %.3f s%s",
	          (unsigned long long)n, o->paths ? ", paths (textbook predecessors)" : "",
	          t->gpus, t->gpus > 1 ? "s" : "", o->device, t->block,
	          t->float_bits ? ", minima on the bits" : "", why, skipped, t->kernel_ms,
	          t->kernel_ms > 0 ? relax / (t->kernel_ms / 1e3) : 0.0, t->upload_ms,
	          t->download_ms, whole, t->stats_on_device ? "; statistics folded on the device" : "");
}

void gpu64_solve(engine_in *r, st_header *in, const char *input, int out, FILE *sout,
                 const struct stats_form *form, struct fwg_opts *o, struct init_job *job,
                 int order, struct ckpt *ck, int threads)
{
	const uint64_t n = in->n;
	const int in_place = in->npad == n, paths = o->paths && !sout;
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
	const double t0 = lib_now();
	st_error err;
	sv_plan plan;
	const int rc = sv_prepare(in, weights, dist, NULL, threads, &plan, &err);
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
	/* an order makes the run sparse: its halves on that run's blocks; with
	 * paths the auto rule keeps the vertices' own order (its predecessors
	 * the textbook's, which are picked in it) */
	char why[160];
	int sparse = 0;
	int32_t *perm = engine_order(paths && order == ORDER_AUTO ? ORDER_NATURAL : order, n,
	                             ST_FLOAT64, dist, 64, threads, &sparse, why, sizeof why);
	o->order = perm;
	o->skip = sparse || perm;
	if (o->checkpoint) {
		char layout[128];
		ckpt_gpu_layout(layout, sizeof layout, 64, paths, 0, 0, o->skip);
		ckpt_begin(ck, ST_FLOAT64, n, dist, perm, layout, 0); /* (the prepared weights) */
	}
	gs_stats st;
	if (sout && gs_init(&st, n, ST_FLOAT64, &err) < 0)
		tool_die_st(NULL, &err);
	o->paths = paths;
	o->stats = sout ? &st : NULL;
	o->potential = NULL;
	gpustart_ready(job, o);
	tool_progress_stage("solving on the GPU");
	struct fwg_timing t;
	char msg[512];
	if (fwg_solve(o, n, dist, dist, pred, &t, msg, sizeof msg) < 0)
		tool_die("%s", msg);
	if (pred && fw_textbook_preds(ST_FLOAT64, n, dist, pred, threads))
		tool_die("out of memory for the predecessors");
	if (o->checkpoint)
		ckpt_gpu_report(t.checkpoints, t.resumed_from, t.checkpoint_direct);
	report(o, &t, n, why, lib_now() - t0);
	if (sout) {
		tool_progress_stage("writing the statistics");
		if (!t.stats_on_device) /* (out of core: the distances came back) */
			gs_add_rows(&st, 0, n, dist, n, threads);
		stats_print(sout, &st, form, in->flags);
		tool_output_commit();
		gs_free(&st);
	} else {
		tool_progress_stage("writing the result");
		engine_write_result(out, &h, &plan, dist, pred, NULL, threads);
	}
	st_header_free(&h);
	sv_plan_free(&plan);
	free(perm);
	free(dist);
	free(pred);
}
