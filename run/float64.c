/* float64.c - see float64.h. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "float64.h"
#include "betweenness.h"
#include "checkpoint.h"
#include "engine.h"
#include "fw.h"
#include "stats.h"
#include "statsout.h"
#include "tool.h"

void f64_read(struct f64_graph *g, engine_in *r, st_header *in, const char *input,
                int paths, int order, int threads)
{
	const uint64_t n = in->n;
	const int in_place = in->npad == n;
	const double mat = 8.0 * (double)n * (double)n;
	memset(g, 0, sizeof *g);
	g->input = input, g->n = n, g->flags = in->flags;
	engine_check_memory(input, in, mat + (in_place ? 0 : (double)st_matrix_bytes(in))
	                               + (paths ? mat / 2 : 0));
	g->dist = lib_huge_alloc(n * n * 8 + 8);
	void *weights = in_place ? g->dist : malloc(st_matrix_bytes(in) + 8);
	g->pred = paths ? lib_huge_alloc(n * n * 4 + 4) : NULL;
	if (!g->dist || !weights || (paths && !g->pred))
		tool_die("out of memory for %llu x %llu matrices", (unsigned long long)n,
		         (unsigned long long)n);
	tool_progress_stage("reading the graph");
	engine_read_weights(r, weights);
	g->t0 = lib_now();
	st_error err;
	g->rc = sv_prepare(in, weights, g->dist, NULL, threads, &g->plan, &err);
	if (!in_place)
		free(weights);
	if (g->rc < 0)
		tool_die_st(tool_input_name(input), &err);
	if (sv_result_header(in, paths, &g->h, &err) < 0)
		tool_die_st("result", &err);
	tool_add_provenance(&g->h);
	if (g->rc == 1)
		return;
	/* an order makes the run sparse: its halves on that run's blocks */
	int sparse = 0;
	g->perm = engine_order(order, n, ST_FLOAT64, g->dist, 64, threads, &sparse, g->why,
	                       sizeof g->why);
	g->skip = sparse || g->perm;
}

/* What the run took, for -v. */
static void report(const struct f64_graph *g, const struct fwg_opts *o,
                   const struct fwg_timing *t)
{
	const double relax = (double)g->n * (double)g->n * (double)g->n;
	char how[160] = "";
	if (t->bands)
		snprintf(how, sizeof how, ", out of core: %d bands of %d rows, %d of them held "
		         "on the device", t->bands, t->band_rows, t->resident);
	else if (o->skip)
		snprintf(how, sizeof how, ", %llu of %llu block updates skipped",
		         (unsigned long long)t->tiles_skipped, (unsigned long long)t->tiles);
	else if (t->row_bands)
		snprintf(how, sizeof how, ", in row order (%d bands)", t->row_bands);
	tool_info("n %llu, float64%s, %s, B = %d%s, %s%s: kernels %.1f ms (%.3g relaxations/s), "
	          "up %.1f ms, down %.1f ms; whole %.3f s%s",
	          (unsigned long long)g->n, o->paths ? ", paths (textbook predecessors)" : "",
	          t->device_name, t->block, t->float_bits ? ", minima on the bits" : "", g->why, how,
	          t->kernel_ms, t->kernel_ms > 0 ? relax / (t->kernel_ms / 1e3) : 0.0, t->upload_ms,
	          t->download_ms, lib_now() - g->t0,
	          t->stats_on_device ? "; statistics folded on the device" : "");
}

void f64_solve(struct f64_graph *g, int out, FILE *sout, const struct stats_form *form,
                 struct fwg_opts *o, struct ckpt *ck, int threads)
{
	const uint64_t n = g->n;
	st_error err;
	o->order = g->perm;
	o->skip = g->skip;
	o->paths = g->pred != NULL;
	if (o->checkpoint) {
		char layout[128];
		ckpt_gpu_layout(layout, sizeof layout, 64, o->paths, 0, 0, o->skip);
		ckpt_begin(ck, ST_FLOAT64, n, g->dist, g->perm, layout, 0); /* (the prepared weights) */
	}
	gs_stats st;
	if (sout && gs_init(&st, n, ST_FLOAT64, &err) < 0)
		tool_die_st(NULL, &err);
	/* (betweenness: searches on the host's cores, from the weights) */
	btw_run *bc = sout ? btw_begin(form, n, ST_FLOAT64, 0, NULL, NULL, g->dist, n, threads) : NULL;
	o->stats = sout ? &st : NULL;
	o->potential = NULL;
	tool_progress_stage("solving on the GPU");
	struct fwg_timing t;
	char msg[512];
	if (fwg_solve(o, n, g->dist, g->dist, g->pred, &t, msg, sizeof msg) < 0)
		tool_die("%s", msg);
	if (g->pred && fw_textbook_preds(ST_FLOAT64, n, g->dist, g->pred, threads))
		tool_die("out of memory for the predecessors");
	if (o->checkpoint)
		ckpt_gpu_report(t.checkpoints, t.resumed_from, t.checkpoint_direct);
	report(g, o, &t);
	if (sout) {
		tool_progress_stage("writing the statistics");
		if (!t.stats_on_device) /* (out of core: the distances came back) */
			gs_add_rows(&st, 0, n, g->dist, n, threads);
		btw_print(bc, sout, &st, form, g->flags);
		tool_output_commit();
		gs_free(&st);
	} else {
		tool_progress_stage("writing the result");
		engine_write_result(out, &g->h, &g->plan, g->dist, g->pred, NULL, NULL, threads);
	}
	st_header_free(&g->h);
	sv_plan_free(&g->plan);
	free(g->perm);
	free(g->dist);
	free(g->pred);
}
