/* cpuroute.c - apsp-cpu's run: opened, planned, run, closed (cpuroute.h). */
#include "cpuroute.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "betweenness.h"
#include "common.h"
#include "solve.h"
#include "sparse.h"
#include "tool.h"

void cpu_open(struct cpu_run *c, const struct cpu_args *a)
{
	memset(c, 0, sizeof *c);
	c->a = a;
	c->o = a->o;
	c->o.counts = &c->counts;
	c->ck = a->ck;
	c->paths = a->paths;
	c->threads = tool_threads();
	c->o.threads = c->threads;
	c->t0 = lib_now();
	c->out = a->as_stats ? -1 : tool_output_open(1);
	c->sout = a->as_stats ? tool_output_fopen(0) : NULL;
	c->r = engine_open(a->path, c->threads, &c->in);
	c->src = sources_resolve(&a->rows, c->in.n, &c->sources);
	c->dst = sources_targets(&a->rows, c->in.n, &c->targets);
	if (c->dst && !a->rows.paths) /* (a table holds distances alone unless --paths) */
		c->paths = 0, c->o.track_paths = 0;
}

/* What the sparse engine is asked for c. */
static struct sparse_job job_of(const struct cpu_run *c)
{
	const struct cpu_args *a = c->a;
	return (struct sparse_job){.mode = a->engine, .order = a->order, .paths = c->paths,
	                           .checkpoint = a->ck.path || a->ck.resume, .input = a->path,
	                           .src = c->src, .sources = c->sources, .dst = c->dst,
	                           .targets = c->targets, .form = a->as_stats ? &a->form : NULL,
	                           .threads = c->threads, .streams = 1};
}

void cpu_plan_route(struct cpu_plan *p, const struct cpu_run *c)
{
	const struct sparse_job job = job_of(c);
	const char *no = sparse_declines(&job, c->r);
	p->route = no ? CPU_DENSE : CPU_SPARSE_ELSE_DENSE;
	if (no)
		snprintf(p->why, sizeof p->why, "dense engine: %s", no);
	else
		snprintf(p->why, sizeof p->why, "the sparse engine, else the dense one");
}

static void progress(void *ctx, uint64_t round, uint64_t rounds)
{
	(void)ctx;
	tool_progress("rounds", round, rounds);
}

static void stage(void *ctx, const char *what)
{
	(void)ctx;
	tool_progress_stage(what);
}

/* The graph read so far, in MiB of its matrix (ctx: the matrix's bytes). */
static void read_progress(void *ctx, uint64_t bytes)
{
	tool_progress("MiB of the graph read", bytes >> 20, *(const uint64_t *)ctx >> 20);
}

/* The dense engine on c's graph: its weights read (or read already, by the
 * sparse engine that declined it), solved, written. */
static int run_dense(struct cpu_run *c, void *read)
{
	const struct cpu_args *a = c->a;
	fw_opts o = c->o;
	o.progress = progress, o.stage = stage;
	const uint64_t n = c->in.n;
	const int paths = c->paths, threads = c->threads;
	const char *name = tool_input_name(a->path);
	st_error err;
	/* Refuse what cannot fit before allocating anything: the weights,
	 * then distances and predecessors beside their tiled copies. */
	const uint64_t es = ST_TYPE_SIZE(c->in.type);
	double mat = (double)n * (double)n, npadb = (double)((n + o.block - 1) / o.block * o.block);
	engine_check_memory(name, &c->in, mat * (es + 4.0 * paths)
	                               + fmax((double)es * (double)c->in.npad * (double)c->in.npad,
	                                      npadb * npadb * (es + 4.0 * paths)));
	void *dist = lib_huge_alloc(n * n * es + 1);
	int32_t *pred = paths ? lib_huge_alloc(n * n * 4 + 1) : NULL;
	if (!dist || (paths && !pred))
		tool_die("out of memory for %llu x %llu matrices (%.1f MiB each)",
		         (unsigned long long)n, (unsigned long long)n, (double)n * n * es / 1048576.0);
	/* Without padding the weights are read straight into the distance
	 * matrix, which sv_prepare() fills in place: one matrix less to fault
	 * in and copy. */
	const int in_place = c->in.npad == n && !read;
	void *weights = read ? read : in_place ? dist : malloc(st_matrix_bytes(&c->in) + 1);
	if (!weights)
		tool_die("%s: n = %llu: out of memory for the weights", name, (unsigned long long)n);
	tool_progress_stage("reading the graph");
	uint64_t wbytes = st_matrix_bytes(&c->in);
	if (!read && engine_read_weights_as(c->r, weights, read_progress, &wbytes, &err) < 0)
		tool_die_st(NULL, &err);
	/* The betweenness' graph, before the weights become distances. */
	btw_run *bc = a->as_stats ? btw_begin(&a->form, n, c->in.type, 0, NULL, NULL, weights,
	                                     c->in.npad, threads)
	                          : NULL;
	tool_progress_stage("preparing the graph");
	sv_plan plan;
	int rc = sv_prepare(&c->in, weights, dist, pred, threads, &plan, &err);
	if (!in_place)
		free(weights);
	if (rc < 0)
		tool_die_st(name, &err);

	st_header h;
	if (sv_result_header(&c->in, paths, &h, &err) < 0)
		tool_die_st("result", &err);
	if (c->src)
		sources_header(&h, c->sources, c->targets);
	tool_add_provenance(&h);
	if (rc == 1)
		engine_negative_cycle(a->path, c->out, &h, plan.cycle_vertex, threads);

	double t1 = lib_now();
	char why[160];
	tool_progress_stage("ordering the vertices");
	int32_t *perm = engine_order(a->order, n, c->in.type, dist, 0, threads, NULL, why, sizeof why);
	o.order = perm; /* the engine reads and writes through it */
	const fw_checkpoint cb = CKPT_CALLBACKS(&c->ck);
	if (c->ck.path || c->ck.resume) {
		char layout[96];
		snprintf(layout, sizeof layout, "B:%d,paths:%s,engine:cpu", o.block,
		         !paths ? "none" : o.track_paths ? "tracked" : "auto");
		ckpt_begin(&c->ck, c->in.type, n, dist, perm, layout, (n + o.block - 1) / o.block);
		ckpt_ready(&c->ck); /* (the engine writes its result into dist) */
		o.checkpoint = &cb;
	}
	if (fw_cpu(&o, c->in.type, n, dist, pred, &err) < 0)
		tool_die_st(NULL, &err);
	free(perm);
	double t2 = lib_now();
	tool_progress_stage(a->as_stats ? "folding the statistics" : "writing the result");
	if (a->as_stats)
		engine_write_stats(c->sout, &a->form, &plan, dist, n, c->in.type, c->in.flags, threads,
		                   bc);
	else
		engine_write_result(c->out, &h, &plan, dist, pred, c->src, c->dst, threads);
	ckpt_end(&c->ck); /* the result committed: no more need of it */
	double t3 = lib_now();
	double relax = (double)n * n * n;
	const fw_counts *k = &c->counts;
	tool_info("n %llu, B %d, %s%s%s, %s, %d threads, %s, %llu of %llu tiles skipped (%.1f%%): "
	          "solve %.3f s (%.3g dense relaxations/s); read+prepare %.3f s, write %.3f s",
	          (unsigned long long)n, o.block, st_type_name(c->in.type),
	          paths ? ", paths" : "",
	          paths ? (k->derived ? " derived from the distances" : " tracked") : "",
	          fw_simd_name(o.simd ? (enum fw_simd)o.simd : fw_simd_detect()), threads, why,
	          (unsigned long long)k->tiles_skipped, (unsigned long long)k->tiles,
	          k->tiles ? 100.0 * (double)k->tiles_skipped / (double)k->tiles : 0.0,
	          t2 - t1, t2 > t1 ? relax / (t2 - t1) : 0.0, t1 - c->t0, t3 - t2);
	st_header_free(&h);
	free(dist);
	free(pred);
	return EXIT_OK;
}

int cpu_run_route(const struct cpu_plan *p, struct cpu_run *c)
{
	void *read = NULL; /* the weights, where the sparse engine's reading found the graph dense */
	char why[200];
	snprintf(why, sizeof why, "%s", p->why);
	if (p->route == CPU_SPARSE_ELSE_DENSE) {
		const struct sparse_job job = job_of(c);
		if (sparse_run(&job, c->r, &c->in, c->out, c->sout, &read, why, sizeof why))
			return EXIT_OK;
	}
	tool_info("%s", why);
	return run_dense(c, read);
}

void cpu_close(struct cpu_run *c)
{
	st_header_free(&c->in);
	free(c->src), free(c->dst);
}
