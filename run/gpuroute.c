/* gpuroute.c - apsp-gpu's run (gpuroute.h): the run begun, its route
 * planned in one place (gpu_plan_route), and each route's steps: the graph
 * read or made where the route says, the engine run, the result written. */
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "betweenness.h"
#include "common.h"
#include "direct.h"
#include "float64.h"
#include "gpubetweenness.h"
#include "gpusparse.h"
#include "gpuroute.h"
#include "ranks.h"
#include "sink.h"
#include "solve.h"
#include "stats.h"
#include "stream.h"
#include "tool.h"

/* An error in one process of an MPI run ends them all. */
/* Process 0 of an MPI run that solves alone (go = 0 sent): the others have
 * left, so its exit status, not an abort, ends the job. */
static int alone_now;

/* The sparse route's device, started beside the host's work (joined
 * before an exit: a process must not end while a thread makes its CUDA
 * context). */
static struct gpusparse_dev *sparse_dev;

static void before_death(void)
{
	if (sparse_dev) { /* (the others told to leave, where they wait for the sparse route's word) */
		gpusparse_word(sparse_dev, GPUSPARSE_LEAVE);
		alone_now |= sparse_dev->alone;
	}
	if (ranks_count() > 1 && !alone_now)
		ranks_abort(EXIT_TROUBLE);
	gpustart_join();
	if (sparse_dev)
		gpusparse_end(sparse_dev);
}

/* Whether betweenness is asked (its column or the arcs' file). */
static int asks_betweenness(const struct gpu_args *a)
{
	return a->form.betweenness || a->form.edge_path;
}

/* Whether the statistics are folded where the distances are (--stats
 * without betweenness, whose rows all come to process 0's host). */
static int stats_on_devices(const struct gpu_args *a)
{
	return a->stats && !asks_betweenness(a);
}

/* Processes other than 0 of an MPI run: their band of the rows, with
 * process 0 and each other; nothing read or written.  go: process 0's word
 * that the run spans the processes (not a negative cycle, not a sparse run
 * or one too small to share). */
static int solve_elsewhere(struct fwg_opts *o, uint64_t n, struct init_job *job, int stats)
{
	int go = 0;
	ranks_bcast(&go, sizeof go);
	gpustart_join();
	if (job->rc < 0)
		tool_die("%s", job->err);
	if (go) {
		struct fwg_timing t;
		gs_stats st; /* (--stats: passed on, filled by process 0 alone) */
		st_error err;
		char msg[512];
		o->device = job->device;
		o->rank = job->rank;
		o->ranks = job->ranks;
		if (stats && gs_init(&st, n, (uint32_t)o->type, &err) < 0)
			tool_die_st(NULL, &err);
		o->stats = stats ? &st : NULL;
		if (fwg_solve_panels(o, n, NULL, NULL, NULL, &t, msg, sizeof msg) < 0)
			tool_die("process %d: %s", job->rank, msg);
		if (stats)
			gs_free(&st);
	}
	return EXIT_OK;
}

/* A graph read while the device starts on it (fwg_opts.feed): a thread
 * reads the weights into the matrix in place, checks them (sv_prepare) and
 * decides whether the run is the one the engine started, dense and as
 * numbered (not reweighted); the engine's calls wait on it. */
struct reading {
	engine_in *r;
	const st_header *in;
	const char *input;
	void *graph;
	int threads;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t rows;       /* rows in place */
	int failed, checked; /* the read failed (err); the graph is checked */
	int rc, sparse;      /* sv_prepare()'s result; the auto rule's word */
	sv_plan plan;
	st_error err;
	double t_read, t_prep;
	/* the verdict's part: the result stream opened once the run is sure */
	int order, out;
	const st_header *h;
	struct sink *res;
	char *why;
	size_t why_len;
};

static void rows_in(void *ctx, uint64_t bytes)
{
	struct reading *rd = ctx;
	pthread_mutex_lock(&rd->mu);
	rd->rows = bytes / (rd->in->npad * 4);
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
}

static void *read_ahead(void *arg)
{
	struct reading *rd = arg;
	int failed = engine_read_weights_as(rd->r, rd->graph, rows_in, rd, &rd->err) < 0;
	rd->t_read = lib_now();
	if (!failed) {
		tool_mark("weights read");
		rd->rc = sv_prepare(rd->in, rd->graph, rd->graph, NULL, rd->threads, &rd->plan,
		                    &rd->err);
		rd->sparse = rd->rc == 0 && engine_sparse(rd->in->n, rd->in->type, rd->graph,
		                                          rd->threads);
		rd->t_prep = lib_now();
		tool_mark("prepared");
	}
	pthread_mutex_lock(&rd->mu);
	rd->failed = failed;
	rd->checked = !failed;
	pthread_cond_broadcast(&rd->cv);
	pthread_mutex_unlock(&rd->mu);
	return NULL;
}

static uint64_t feed_rows(void *ctx, uint64_t want)
{
	struct reading *rd = ctx;
	pthread_mutex_lock(&rd->mu);
	while (rd->rows < want && !rd->failed)
		pthread_cond_wait(&rd->cv, &rd->mu);
	uint64_t rows = rd->rows;
	pthread_mutex_unlock(&rd->mu);
	return rows;
}

/* The result's output opened once the run is sure: the stream (a run
 * with statistics began with its figures open, not reweighted).  0 with
 * err where it cannot be. */
static int open_result(struct reading *rd, st_error *err)
{
	struct sink *res = rd->res;
	return res->stats
	       || (res->w = st_writer_open(rd->out, rd->h, tool_opts.level, rd->threads, err));
}

static int feed_verdict(void *ctx)
{
	struct reading *rd = ctx;
	pthread_mutex_lock(&rd->mu);
	while (!rd->checked && !rd->failed)
		pthread_cond_wait(&rd->cv, &rd->mu);
	pthread_mutex_unlock(&rd->mu);
	if (rd->failed || rd->rc != 0 || rd->plan.potential || rd->sparse)
		return 0;
	/* dense: the auto rule keeps the natural order, and says so */
	if (engine_order(rd->order, rd->in->n, rd->in->type, rd->graph, 0, rd->threads, NULL,
	                 rd->why, rd->why_len))
		return 0; /* (not reached: an order is only made for sparse graphs) */
	st_error err; /* (on failure opened again, and said, as the graph read first) */
	return open_result(rd, &err);
}

/* When each step of a run ended (lib_now()), for -v. */
struct times {
	double start, read, prep, ready, solved, written;
	double warm; /* of the device's making ready (init_job.warm_s) */
};

/* -v: what the run chose and where its time went, in one line. */
static void report(const struct fwg_opts *o, const struct fwg_timing *tp,
                   const struct sink *res, uint64_t n, const char *why, const char *alone,
                   int nproc, const struct times *tm)
{
	const struct fwg_timing t = *tp;
	const double t0 = tm->start, t_read = tm->read, t_prep = tm->prep, t1 = tm->ready,
	             t2 = tm->solved, t3 = tm->written;
	double relax = (double)n * n * n;
	char skipped[160] = "every block updated";
	if (o->skip) {
		int k = snprintf(skipped, sizeof skipped, "%llu of %llu block updates skipped (%.1f%%)",
		                 (unsigned long long)t.tiles_skipped, (unsigned long long)t.tiles,
		                 t.tiles ? 100.0 * (double)t.tiles_skipped / (double)t.tiles : 0.0);
		if (t.levels > 0)
			snprintf(skipped + k, sizeof skipped - k, ", %llu rounds in %d levels",
			         (unsigned long long)((n + t.block - 1) / t.block), t.levels);
	}
	char chains[64] = "no paths";
	if (o->paths && t.chains_sure)
		snprintf(chains, sizeof chains, "chains end at their sources, not checked");
	else if (o->paths)
		snprintf(chains, sizeof chains, "%lld predecessor chains re-attached", (long long)res->repaired);
	char on[160] = "";
	if (t.bands)
		snprintf(on, sizeof on, " (out of core%s: %d bands of %d rows, %d of them held on the "
		         "device)", o->skip ? ", dense, as numbered" : "", t.bands, t.band_rows, t.resident);
	else if (alone)
		snprintf(on, sizeof on, " (process 0 alone of %d: %s)", nproc, alone);
	else if (t.row_bands)
		snprintf(on, sizeof on, " (row order%s: %d bands of results handed over as they were "
		         "final%s)", t.streamed ? ", the first rounds on the rows read while the rest came"
		         : "", t.row_bands, t.lanes16 == -1 ? ", the rest after a 32-bit run" : "");
	else if (t.gpus < o->gpus)
		snprintf(on, sizeof on, " (%d GPU%s of %d: %s)", t.gpus, t.gpus > 1 ? "s" : "", o->gpus,
		         o->skip ? "sparse runs use one" : "fewer block rows than GPUs");
	const char *p1where = t.phase1 == FWG_PHASE1_REGISTERS ? "in phase 3's registers"
	                 : t.phase1 == FWG_PHASE1_SHARED  ? "in phase 3's shared memory"
	                                                  : "apart";
	tool_info("%s%s: n %llu, B %d, %s%s, %s%s, %s, %s, deflate %s: kernels %.1f ms "
	          "(%.3g dense relaxations/s), "
	          "upload %.1f ms, download and distances out %.1f ms; read %.3f s, prepare %.3f s, "
	          "device wait %.3f s (warm-up %.3f s), solve %.3f s (%s), "
	          "panels: %.3f s on the host (%.3f s compressing, %.3f s of it the predecessors "
	          "after the distances), %.3f s waiting for the device; rest written %.3f s; "
	          "phase 1 %s%s%s%s",
	          t.device_name, on, (unsigned long long)n, t.block,
	          o->type == ST_INT32 ? "int32" : "float32", o->paths ? ", paths" : "",
	          t.lanes16 == 1 ? (t.lanes16_in_place ? "16-bit lanes in the matrix's own memory"
	                                               : "16-bit lanes")
	          : t.lanes16 == -1 ? (t.lanes16_in_place ? "32-bit (16-bit lanes rejected, the "
	                                                    "matrix made again from the arcs)"
	                                                  : "32-bit (16-bit lanes rejected)")
	          : t.packed ? "packed" : t.float_bits ? "as bits" : "plain", t.derived ? ", predecessors derived" : "", why,
	          skipped, st_engine(), t.kernel_ms,
	          t.kernel_ms > 0 ? relax / (t.kernel_ms * 1e-3) : 0.0, t.upload_ms,
	          t.download_ms, t_read - t0, t_prep - t_read, t1 - t_prep, tm->warm, t2 - t1,
	          chains, res->sink_s, res->write_s, res->spool_wait_s,
	          t.download_ms * 1e-3 - res->sink_s, t3 - t2, p1where,
	          t.lookahead ? "; lookahead" : "",
	          !t.small ? "" : t.lookahead ? ", phase 2 and the next round's row and column with "
	                                        "twice the registers"
	                                      : "; phase 2 with twice the registers",
	          t.stats_on_device ? "; statistics folded on the device" : "");
	if (o->checkpoint)
		ckpt_gpu_report(t.checkpoints, t.resumed_from, t.checkpoint_direct);
}

/* Whether the device makes the weight matrix of a graph as text from its
 * arcs: NULL where it does, else why not.  It takes one sparse by the auto
 * rule, no weight below zero (nothing to reweight or check on the host), no
 * paths (no chains to check against a host matrix), one process. */
static const char *not_by_arcs(const engine_in *r, const struct fwg_opts *o, int nproc)
{
	const gio_graph *g = &r->g;
	return r->r ? "a stream" : o->paths ? "paths asked" : nproc > 1 ? "several processes"
	       : o->checkpoint ? "checkpoints" : g->type == ST_FLOAT64 ? "float64"
	       : (g->flags & ST_NEGATIVE) ? "negative weights" : g->n <= 1 ? "one vertex"
	       : !engine_sparse_edges(g) ? "not sparse" : NULL;
}

/* Solve such a graph: its arcs go to the device, which makes the weight
 * matrix itself; no n x n matrix is ever on the host (distances leave panel
 * by panel, or are folded into the statistics on the device). */
static void solve_arcs(engine_in *r, const st_header *in, struct fwg_opts *o,
                       struct init_job *job, int order, int out, FILE *sout,
                       const struct stats_form *form, int threads, double t0)
{
	const gio_graph *g = &r->g;
	const uint64_t n = g->n, m = g->nedge;
	char why[160], msg[512];
	const double t_read = lib_now();
	const int Bs = o->block ? o->block : fwg_choose_block(n, o->type, 0, o->lanes16, 1);
	int32_t *perm = engine_order_edges(order, g, Bs, NULL, why, sizeof why);
	uint32_t *arc = malloc((m ? m : 1) * 3 * sizeof *arc);
	if (!arc)
		tool_die("out of memory for %llu arcs", (unsigned long long)m);
	for (uint64_t k = 0; k < m; k++) {
		const float f = (float)g->edge[k].w;
		arc[k] = g->edge[k].u;
		arc[m + k] = g->edge[k].v;
		if (g->type == ST_INT32)
			arc[2 * m + k] = (uint32_t)(int32_t)g->edge[k].w;
		else
			memcpy(&arc[2 * m + k], &f, 4);
	}
	const struct fwg_arcs arcs = {arc, arc + m, arc + 2 * m, m};
	o->arcs = &arcs;
	o->order = perm;
	o->skip = 1;
	const double t_prep = lib_now();
	const double t1 = gpustart_ready(job, o);
	struct fwg_timing t;
	sv_plan plan = {n, g->type, NULL, -1};
	struct sink res = {.n = n, .type = g->type, .flags = in->flags, .threads = threads,
	                   .plan = &plan, .t = &t};
	st_header h;
	st_error err;
	if (sv_result_header(in, 0, &h, &err) < 0)
		tool_die_st("result", &err);
	tool_add_provenance(&h);
	if (sout)
		sink_open_stats(&res, o, NULL, n, g->type);
	else if (!(res.w = st_writer_open(out, &h, tool_opts.level, threads, &err)))
		tool_die_st(tool_output_name(), &err);
	if (fwg_solve_panels(o, n, NULL, sink_take, &res, &t, msg, sizeof msg) < 0)
		sink_failed(&res, msg);
	const double t2 = lib_now();
	sink_finish(&res, o, sout, form);
	const struct times tm = {t0, t_read, t_prep, t1, t2, lib_now(), job->warm_s};
	snprintf(why + strlen(why), sizeof why - strlen(why), ", the matrix made on the device");
	report(o, &t, &res, n, why, NULL, 1, &tm);
	free(arc);
	free(perm);
	engine_in_free(r);
	st_header_free(&h);
}

/* Tests: environment variables that choose among ways to the same results,
 * and a device's memory capped. */

/* Whether checkpoints can matter to a run of n of type (ckpt_wanted): a
 * run sure to end before the first would be due, its rounds reckoned at
 * 3e12 relaxations a second (below every kernel's rate on an H100 but
 * float64's with paths, 2.9e12), takes none, and keeps row order and the
 * rounds begun on the rows being read (bench/checkpoint.md: 1.2 to 1.4 s
 * of 5.1 to 5.3 s at n = 40000). */
static int checkpoints_pay(const struct ckpt *k, uint64_t n, int type, int paths)
{
	const double nn = (double)n * (double)n;
	return ckpt_wanted(k, (uint64_t)(nn * (ST_TYPE_SIZE(type) + (paths ? 4 : 0))),
	                   nn * (double)n / 3e12);
}

/* Whether a one-process run of n whose weights are read in place starts
 * on the first rows while the rest are read (fwg_opts.feed): large dense
 * runs without paths on one GPU.  Where the graph turns out otherwise (an
 * error, a negative cycle, reweighting, sparse), nothing has been written
 * and the run goes on as if the graph had been read first.  Several GPUs
 * wait for the whole graph, so it is read first, with no thread beside (at
 * n = 200000 the reads ranged from 6.7 to 46 s, most of it the virtual
 * machine's first touch of 160 GB; bench/stats.md).  Whether the run takes
 * one GPU is known once they are counted (asked last: where the rest rules
 * it out, never). */
static int reads_ahead(const struct fwg_opts *o, int order, uint64_t n, struct init_job *job)
{
	const char *ra = getenv("APSP_READ_AHEAD"); /* benchmarks: 0, the graph read first */
	return !(ra && !strcmp(ra, "0")) && !o->paths && order != ORDER_ND && n > 1
	       && o->schedule != FWG_SCHEDULE_ROUNDS
	       && (o->schedule == FWG_SCHEDULE_ROWS || n >= FWG_ROW_ORDER_FROM)
	       && gpustart_gpus(job) == 1;
}

/* The run begun on the rows as rd's thread reads them into rd->graph (the
 * device made ready meanwhile: when, into *t1): 1 where it solved the
 * graph, 0 where the graph turned out otherwise (rd says how; nothing
 * written). */
static int solve_as_read(struct reading *rd, struct fwg_opts *o, struct init_job *job,
                         struct fwg_timing *t, int stats, double *t1)
{
	struct sink *res = rd->res;
	const uint64_t n = rd->in->n;
	char msg[512];
	pthread_mutex_init(&rd->mu, NULL);
	pthread_cond_init(&rd->cv, NULL);
	pthread_t reader;
	if (pthread_create(&reader, NULL, read_ahead, rd) != 0)
		tool_die("cannot start a thread:");
	*t1 = gpustart_ready(job, o);
	const struct fwg_feed feed = {.rows = feed_rows, .verdict = feed_verdict, .ctx = rd};
	o->feed = &feed;
	if (stats) /* a reweighted graph is not the run begun: no potentials */
		sink_open_stats(res, o, NULL, n, rd->in->type);
	res->plan = &rd->plan; /* (the sink runs after the verdict) */
	const int rc = fwg_solve_panels(o, n, rd->graph, sink_take, res, t, msg, sizeof msg);
	o->feed = NULL;
	if (rc < 0)
		sink_failed(res, msg);
	pthread_join(reader, NULL);
	if (rd->failed)
		tool_die_st(NULL, &rd->err);
	return rc == 0;
}

/* Whether the graph goes straight onto the GPUs (direct.h): NULL where it
 * does, else why not.  It takes a stream without padding onto several GPUs
 * of one process, no paths (no chains to check against the graph), no
 * checkpoints (no digest of it), no nested dissection asked.  (APSP_DIRECT=0,
 * for benchmarks: never.) */
static const char *not_direct(const struct fwg_opts *o, const st_header *in, const engine_in *r,
                              int order, int nproc, struct init_job *job)
{
	const char *env = getenv("APSP_DIRECT");
	return env && !strcmp(env, "0") ? "APSP_DIRECT=0" : !r->r ? "text"
	       : in->npad != in->n ? "a padded stream" : nproc > 1 ? "several processes"
	       : o->paths ? "paths asked" : o->checkpoint ? "checkpoints"
	       : order == ORDER_ND ? "nested dissection asked" : in->n <= 1 ? "one vertex"
	       : in->type != ST_INT32 && in->type != ST_FLOAT32 ? "float64"
	       : gpustart_gpus(job) <= 1 ? "one GPU" : NULL;
}

/* The verdict's part of such a run: its output opened. */
static void direct_go(void *ctx)
{
	st_error err;
	if (!open_result(ctx, &err))
		tool_die_st(tool_output_name(), &err);
}

/* The run on the graph read straight onto the devices: 1 where it was
 * solved so; 0 where not, its rows then handed back or read into *given
 * (the engine would not take them so). */
static int solve_direct(struct reading *rd, struct fwg_opts *o, struct init_job *job,
                        struct fwg_timing *t, int stats, struct times *tm, void **given)
{
	const uint64_t n = rd->in->n;
	char msg[512];
	static struct direct d;
	d = (struct direct){.in = rd->r, .input = rd->input, .h = rd->in, .order = rd->order,
	                    .go = direct_go, .gctx = rd};
	direct_begin(&d); /* (beside the devices' start) */
	rd->r = NULL;
	tm->ready = gpustart_ready(job, o);
	const struct fwg_feed feed = direct_feed(&d);
	o->feed = &feed;
	if (stats)
		sink_open_stats(rd->res, o, NULL, n, rd->in->type);
	const int rc = fwg_solve_panels(o, n, NULL, sink_take, rd->res, t, msg, sizeof msg);
	o->feed = NULL;
	if (rc < 0)
		sink_failed(rd->res, msg);
	if (d.failed)
		tool_die_st(NULL, &d.err);
	direct_finish(&d);
	*given = d.graph;
	tm->read = tm->prep = d.t_read;
	if (rc == 0)
		snprintf(rd->why, rd->why_len, "%s, read straight onto the GPUs", d.why);
	return rc == 0;
}

/* The graph on the host: read (or gathered, or handed back: given, stride
 * n) and checked by sv_prepare() into rd (rc, plan, err); where one GPU
 * reads ahead, the run begun on its rows as read (1: solved so). */
static int host_graph(struct reading *rd, struct fwg_opts *o, struct init_job *job,
                      struct fwg_timing *t, int stats, int read_ahead, void *given,
                      struct times *tm)
{
	/* Without padding the weights are read straight into the matrix that
	 * sv_prepare() fills in place.  The graph stays on the host for the
	 * repair of predecessor chains.  Distances go out panel by panel; the
	 * predecessors are compressed as their panels come and held until the
	 * distances are written (at most the raw matrix's size, counted here). */
	const st_header *in = rd->in;
	const uint64_t n = in->n;
	const int in_place = in->npad == n;
	const size_t mat = (size_t)(4.0 * (double)n * (double)n);
	const size_t wbytes = in_place ? mat : (size_t)st_matrix_bytes(in);
	const double held = (double)st_matrix_bytes(in) * !in_place + (double)mat * (1 + o->paths);
	engine_check_memory(rd->input, in, held);
	/* Out of core, what the device cannot hold lives beside these (in core,
	 * the checkpoints' state). */
	const double spare = engine_physical_memory() - (double)mat * (1 + o->paths);
	o->host_memory = spare >= 1 ? (uint64_t)spare : 1;
	void *graph = given ? given : lib_huge_alloc(mat + 4);
	void *weights = in_place || given ? graph : lib_huge_alloc(wbytes + 4);
	if (!graph || !weights)
		tool_die("out of memory for %llu x %llu matrices (%.1f MiB each)",
		         (unsigned long long)n, (unsigned long long)n, mat / 1048576.0);
	rd->graph = graph;
	int solved = 0;
	if (!given && read_ahead) {
		solved = solve_as_read(rd, o, job, t, stats, &tm->ready);
		tm->read = rd->t_read, tm->prep = rd->t_prep;
	} else {
		st_header as_read = *in; /* (given: stride n) */
		if (given)
			as_read.npad = n;
		else
			engine_read_weights(rd->r, weights);
		rd->r = NULL;
		tm->read = lib_now();
		tool_mark("weights read");
		rd->rc = sv_prepare(&as_read, weights, graph, NULL, rd->threads, &rd->plan, &rd->err);
	}
	if (weights != graph)
		free(weights);
	if (rd->rc < 0)
		tool_die_st(rd->input, &rd->err);
	return solved;
}

/* Whether the run of n takes checkpoints (o->checkpoint kept or dropped):
 * not where it would end before the first; under mpirun only where each
 * process can read its own rows (how).  Where it does, the rounds go round
 * after round. */
static void decide_checkpoints(struct fwg_opts *o, const struct ckpt *ck, int stats, uint64_t n,
                               int how, const char *input, int nproc, int rank)
{
	if (!o->checkpoint)
		return;
	if (!checkpoints_pay(ck, n, o->type, o->paths && !stats)) {
		tool_info("%s: no checkpoints: the run ends before the first would be due",
		          ck->path ? ck->path : ck->resume);
		o->checkpoint = NULL;
		return;
	}
	if (nproc > 1 && how == BANDS_NONE) {
		if (rank == 0)
			tool_die("%s: checkpoints under mpirun need a stream of int32 or float32 weights "
			         "(mtx2bin makes one of text)", tool_input_name(input));
		ranks_bcast(&how, sizeof how); /* (process 0's death ends this one) */
	}
	o->schedule = FWG_SCHEDULE_ROUNDS; /* (the state between rounds) */
}

/* While the device is still starting: the order (returned) and whether to
 * skip blocks into o, the checkpoints' identity, and under mpirun whether
 * the run spans the processes (*go, sent to them; where not, why into
 * *alone); why the order, into why. */
static int32_t *plan_order(struct fwg_opts *o, int order, struct ckpt *ck, const st_header *in,
                           void *graph, int threads, int nproc, int *go, const char **alone,
                           char *why, size_t len)
{
	const uint64_t n = in->n;
	int sparse = 0;
	/* an order makes the run sparse: its halves on that run's blocks */
	const int Bs = o->block ? o->block : fwg_choose_block(n, o->type, o->paths, o->lanes16, 1);
	int32_t *perm = engine_order(order, n, in->type, graph, Bs, threads, &sparse, why, len);
	o->order = perm;
	o->skip = sparse || perm;
	if (o->checkpoint) {
		char layout[96];
		ckpt_gpu_layout(layout, sizeof layout, o->block, o->paths, o->lanes16, o->derive,
		                o->skip);
		ckpt_begin(ck, in->type, n, graph, perm, layout, 0);
	}
	if (nproc > 1) {
		const int B = o->block ? o->block : fwg_choose_block(n, o->type, o->paths, o->lanes16, 0);
		*alone = o->skip ? "sparse runs use one" : (n + B - 1) / B < (uint64_t)nproc
		       ? "fewer block rows than processes" : NULL;
		*go = !*alone;
		ranks_bcast(go, sizeof *go);
		alone_now = !*go;
	}
	return perm;
}

/* A float64 graph: read whole on process 0's host, then solved by the GPU
 * engine on one GPU or the --gpus asked for (as for the other types, all of
 * them from GPUS_FROM on); under mpirun the processes share the rounds, each
 * holding a band of rows, unless the run is sparse, takes checkpoints or has
 * fewer block rows than processes (then process 0 solves alone, on its
 * GPU, and the others leave). */
static int solve_f64(struct gpu_run *g)
{
	const struct gpu_args *a = g->a;
	const uint64_t n = g->head.n;
	const int nproc = g->nproc;
	if (g->rank == 0)
		decide_checkpoints(&g->o, &g->ck, a->stats, n, g->head.how, a->input, 1, 0);
	g->job.gpus_from = GPUS_FROM;
	gpustart_begin(&g->job, &g->o, n, a->gpus, g->rank, nproc);
	if (g->rank != 0)
		return solve_elsewhere(&g->o, n, &g->job, a->stats);
	struct f64_graph f;
	f64_read(&f, g->r, &g->in, a->input, g->o.paths && !a->stats, a->order, g->threads);
	g->r = NULL; /* (freed there) */
	const char *alone = f.skip ? "sparse runs use one" : g->o.checkpoint ? "checkpoints"
	                  : (n + 63) / 64 < (uint64_t)nproc ? "fewer block rows than processes"
	                                                    : NULL;
	int go = nproc > 1 && f.rc != 1 && !alone;
	if (nproc > 1) {
		ranks_bcast(&go, sizeof go);
		alone_now = !go;
	}
	if (f.rc == 1)
		engine_negative_cycle(a->input, g->sout ? -1 : g->out, &f.h, f.plan.cycle_vertex,
		                      g->threads);
	gpustart_ready(&g->job, &g->o);
	if (nproc > 1) {
		g->o.device = g->job.device;
		g->o.rank = 0;
		g->o.ranks = go ? nproc : 0;
		g->o.gpus = 1;
		if (!go)
			tool_info("%s: float64: process 0 alone of %d, on one GPU (%s)",
			          tool_input_name(a->input), nproc, alone);
	}
	f64_solve(&f, g->out, g->sout, &a->form, &g->o, &g->ck, g->threads);
	ckpt_end(&g->ck); /* the result committed (taken or not: a killed run's leftovers) */
	return EXIT_OK;
}

void gpu_open(struct gpu_run *g, const struct gpu_args *a, int *argc, char ***argv)
{
	memset(g, 0, sizeof *g);
	g->a = a;
	g->o = a->engine;
	g->ck = a->ck;
	/* Under mpirun: one process of several, one GPU each (sharing the
	 * machine's cores: tool_threads() after). */
	g->nproc = ranks_init(argc, argv), g->rank = ranks_rank();
	g->threads = tool_threads();
	/* The engine's copies through its staging buffers take as many threads:
	 * under mpirun OpenMP's own default made them four times slower. */
	omp_set_num_threads(g->threads);
	if (g->nproc > 1 && a->gpus)
		tool_usage_error("--gpus: each process of an MPI run uses one GPU");
	/* Checkpoints (kept or dropped once n is known: decide_checkpoints). */
	if (g->ck.path || g->ck.resume) {
		g->ckcb = CKPT_CALLBACKS(&g->ck);
		g->o.checkpoint = &g->ckcb;
	}
	/* Nothing after the result is committed (the CUDA context's teardown,
	 * unmapping gigabytes) holds up whoever waits for this process (not in
	 * an MPI run, whose launcher follows the process itself). */
	if (!ranks_joined())
		tool_detach_teardown();
	tool_before_death(before_death);
	g->t0 = lib_now();
	/* Process 0 of an MPI run writes through mpirun's copy of its stdout. */
	if (g->rank == 0 && ranks_raw_stdout())
		tool_opts.force = 1;
	g->out = g->rank == 0 && !a->stats ? tool_output_open(1) : -1;
	g->sout = g->rank == 0 && a->stats ? tool_output_fopen(0) : NULL;
	g->head = (struct bands_head){0, 0, 0, 0, 0, BANDS_NONE};
	if (g->rank == 0) {
		g->r = engine_open(a->input, g->threads, &g->in);
		/* (betweenness: every row to process 0's host, not bands) */
		const int how = asks_betweenness(a) ? BANDS_NONE
		                                    : bands_how(g->r, &g->in, a->input, g->nproc);
		g->head = (struct bands_head){g->in.n, g->in.npad, g->in.type, g->in.block, g->in.flags,
		                              how};
	}
	ranks_bcast(&g->head, sizeof g->head);
	tool_mark("header read");
	/* (under mpirun process 0 alone makes some rows: the others leave) */
	if (g->rank == 0) {
		g->src = sources_resolve(&a->rows, g->head.n, &g->sources);
		g->dst = sources_targets(&a->rows, g->head.n, &g->targets);
	}
	if (a->rows.targets && !a->rows.paths) /* (a table holds distances alone unless --paths) */
		g->o.paths = 0;
	g->o.type = (int)g->head.type;
}

/* Whether the sparse engine is asked for, or may be chosen: auto takes it
 * for text (its arcs known without a matrix) when distances alone or some
 * rows are asked (under mpirun: statistics, which the processes share, or
 * some rows, which process 0 makes alone), without checkpoints.  Process 0
 * decides, and tells the others. */
static int sparse_first(const struct gpu_args *a, const struct gpu_run *g)
{
	int yes = 0;
	if (g->rank == 0 && !g->sparse_declined && a->engine_mode != ENGINE_DENSE)
		yes = a->engine_mode == ENGINE_SPARSE
		      || (g->r && !g->r->r
		          && (a->stats || g->src || (g->nproc == 1 && !g->o.paths))
		          && !g->ck.path && !g->ck.resume);
	if (g->nproc > 1)
		ranks_bcast(&yes, sizeof yes);
	return yes;
}

void gpu_plan_route(struct gpu_plan *p, struct gpu_run *g)
{
	const struct gpu_args *a = g->a;
	const uint64_t n = g->head.n;
	const int btw = asks_betweenness(a);
	memset(p, 0, sizeof *p);
	if (sparse_first(a, g)) {
		p->route = GPU_SPARSE;
		snprintf(p->why, sizeof p->why, "sparse: the sparse engine %s, its rows on the GPU",
		         a->engine_mode == ENGINE_SPARSE ? "asked for"
		         : g->src ? "tried (text, some rows)" : "tried (text, distances alone)");
		return;
	}
	if (g->src) /* (the dense engines on the GPU write every row) */
		tool_die("%s: %s: the sparse engine's alone on the GPU, and it does not run here (%s); "
		         "apsp-cpu takes them on the dense engine", tool_input_name(a->input),
		         a->rows.rows ? "--rows" : "--sources",
		         g->sparse_declined ? g->declined
		         : g->r && g->r->r ? "a stream's matrix: give the graph as text or arcs"
		                           : "checkpoints asked, or --engine dense");
	if (g->head.type == ST_FLOAT64) {
		p->route = GPU_FLOAT64;
		snprintf(p->why, sizeof p->why, "float64: the graph whole on process 0's host, solved "
		         "on the GPUs%s", g->nproc > 1 ? " of the processes" : "");
		return;
	}
	decide_checkpoints(&g->o, &g->ck, a->stats, n, g->head.how, a->input, g->nproc, g->rank);
	g->job.gpus_from = GPUS_FROM;
	gpustart_begin(&g->job, &g->o, n, a->gpus, g->rank, g->nproc);
	if (g->head.how != BANDS_NONE) {
		p->route = GPU_BANDS;
		snprintf(p->why, sizeof p->why, "bands: %d processes, each reading and writing its own "
		         "rows of the stream", g->nproc);
		return;
	}
	if (g->rank != 0) {
		p->route = GPU_FOLLOW;
		snprintf(p->why, sizeof p->why, "follow: process 0 reads the graph");
		return;
	}
	/* (betweenness: the graph and the rows on the host, run/betweenness.h) */
	const char *arcs = btw ? "betweenness asked" : not_by_arcs(g->r, &g->o, g->nproc);
	const char *direct = btw ? "betweenness asked"
	                   : arcs ? not_direct(&g->o, &g->in, g->r, a->order, g->nproc, &g->job) : "";
	if (!arcs) {
		p->route = GPU_ARCS;
		snprintf(p->why, sizeof p->why, "arcs: a sparse graph as text, its weight matrix made "
		         "on the device");
	} else if (!direct) {
		p->route = GPU_DIRECT;
		snprintf(p->why, sizeof p->why, "direct: the stream taken by %d GPUs as it is read",
		         gpustart_gpus(&g->job));
	} else {
		p->route = GPU_HOST;
		p->read_ahead = g->nproc == 1 && g->in.npad == n && !btw
		                && reads_ahead(&g->o, a->order, n, &g->job);
		snprintf(p->why, sizeof p->why, "host: the graph read on the host%s (not made from its "
		         "arcs: %s; not taken by the GPUs as read: %s)",
		         p->read_ahead ? ", the GPU begun on its rows as they come" : "", arcs, direct);
	}
}

/* The graph on the host (read here, gathered from an MPI run's processes,
 * or handed back by a run that read it straight onto the GPUs), or first
 * straight onto them (direct): solved, the result written. */
static int solve_on_host(const struct gpu_plan *p, struct gpu_run *g, void *gathered)
{
	const struct gpu_args *a = g->a;
	struct fwg_opts *o = &g->o;
	const st_header *in = &g->in;
	const uint64_t n = in->n;
	const int threads = g->threads, nproc = g->nproc;
	st_error err;
	st_header h;
	if (sv_result_header(in, o->paths, &h, &err) < 0)
		tool_die_st("result", &err);
	tool_add_provenance(&h);
	struct fwg_timing t;
	char why[160], msg[512];
	struct times tm = {.start = g->t0};
	struct sink res = {.n = n, .type = in->type, .flags = in->flags, .threads = threads, .t = &t};
	static struct reading rd;
	rd = (struct reading){.r = g->r, .in = in, .input = a->input, .threads = threads,
	                      .order = a->order, .out = g->out, .h = &h, .res = &res, .why = why,
	                      .why_len = sizeof why, .plan = {n, in->type, NULL, -1}};
	g->r = NULL; /* (the reading's now) */
	res.plan = &rd.plan;
	/* solved: by the run begun while the input was read */
	int solved = p->route == GPU_DIRECT
	             && solve_direct(&rd, o, &g->job, &t, a->stats, &tm, &gathered);
	if (!solved)
		solved = host_graph(&rd, o, &g->job, &t, a->stats, p->read_ahead, gathered, &tm);
	res.graph = rd.graph;
	int go = 0; /* an MPI run: whether it spans the processes */
	if (rd.rc == 1) {
		ranks_bcast(&go, sizeof go);
		alone_now = 1;
		engine_negative_cycle(a->input, g->out, &h, rd.plan.cycle_vertex, threads);
	}
	int32_t *perm = NULL;
	const char *alone = NULL; /* why process 0 of an MPI run solves alone */
	if (!solved) {
		perm = plan_order(o, a->order, &g->ck, in, rd.graph, threads, nproc, &go, &alone, why,
		                  sizeof why);
		if (!tm.prep) {
			tm.prep = lib_now();
			tool_mark("prepared");
		}
		tm.ready = gpustart_ready(&g->job, o);
		if (go) {
			o->device = g->job.device;
			o->rank = 0;
			o->ranks = nproc;
		} else if (nproc > 1) {
			o->device = g->job.device;
			o->gpus = 1;
		}
		if (a->stats) {
			sink_open_stats(&res, o, &rd.plan, n, in->type);
			if (asks_betweenness(a) && !getenv("APSP_BETWEENNESS_HOST"))
				gpubtw_dense(o, n, in->type);
			if (asks_betweenness(a) && rd.plan.potential)
				tool_die("betweenness: the graph has a negative weight (the counts of "
				         "shortest paths are made with weights of 0 or more)");
			/* (the graph and the devices' rooms made while the engine solves) */
			res.bc = btw_begin_beside(&a->form, n, in->type, rd.graph, n, threads);
			if (res.bc) /* (the panels come to the host, for its rows) */
				o->stats = NULL;
		}
		else if (!(res.w = st_writer_open(g->out, &h, tool_opts.level, threads, &err))
		         || (o->paths && !(res.pred = st_spool_open(res.w, ST_PRED, &err))))
			tool_die_st(tool_output_name(), &err);
		if (fwg_solve_panels(o, n, rd.graph, sink_take, &res, &t, msg, sizeof msg) < 0)
			sink_failed(&res, msg);
	}
	double t2 = lib_now();
	tool_mark("distances out");
	free(perm);
	sink_finish(&res, o, g->sout, &a->form);
	ckpt_end(&g->ck); /* the result committed: no more need of it */
	sv_plan_free(&rd.plan);
	/* Rows taken as read: the device was ready before the input was,
	 * and the solve is counted from the input checked. */
	if (solved)
		tm.ready = tm.prep;
	tm.solved = t2, tm.written = lib_now(), tm.warm = g->job.warm_s;
	report(o, &t, &res, n, why, alone, nproc, &tm);
	tool_done(EXIT_OK); /* (before the frees: whoever waits need not) */
	st_header_free(&h);
	free(rd.graph);
	return EXIT_OK;
}

/* A process other than 0 on the sparse route: its batches, or nothing, or
 * (the engine declined the graph) the route planned again with process 0. */
static int follow_sparse(struct gpu_run *g, struct gpusparse_dev *dev)
{
	const int what = gpusparse_follow(dev);
	gpusparse_end(dev);
	sparse_dev = NULL;
	if (what != GPUSPARSE_DECLINED)
		return EXIT_OK;
	g->sparse_declined = 1;
	struct gpu_plan again;
	gpu_plan_route(&again, g);
	return gpu_run_route(&again, g);
}

int gpu_run_route(const struct gpu_plan *p, struct gpu_run *g)
{
	const struct gpu_args *a = g->a;
	void *gathered = NULL; /* an MPI run's bands, gathered on process 0 */
	switch (p->route) {
	case GPU_SPARSE: {
		struct gpusparse_dev dev = {.device = g->o.device + ranks_local(),
		                            .gpus = g->nproc > 1 ? 1 : a->gpus, .n = g->head.n,
		                            .owed = g->nproc > 1 && g->rank == 0};
		gpusparse_begin(&dev); /* (beside the host's order and elimination) */
		sparse_dev = &dev;
		if (g->rank != 0) /* (process 0's batches and ours in turn, or a word to leave) */
			return follow_sparse(g, &dev);
		if (a->stats && asks_betweenness(a) && !getenv("APSP_BETWEENNESS_HOST"))
			gpubtw_sparse(&dev);
		const struct sparse_job job = {
			.mode = a->engine_mode, .order = a->order, .paths = g->o.paths,
			.checkpoint = g->ck.path || g->ck.resume, .input = a->input,
			.src = g->src, .sources = g->sources, .dst = g->dst, .targets = g->targets,
			.form = a->stats ? &a->form : NULL,
			.threads = g->threads, .streams = 0,
			.device_rows = gpusparse_rows, .device_ctx = &dev};
		void *read = NULL;
		char why[200];
		const int ran = sparse_run(&job, g->r, &g->in, g->out, g->sout, &read, why, sizeof why);
		gpusparse_end(&dev);
		sparse_dev = NULL;
		btw_use_device(NULL);
		if (ran) {
			gpusparse_word(&dev, GPUSPARSE_LEAVE); /* (where no word was owed yet) */
			g->r = NULL; /* (freed there) */
			return EXIT_OK;
		}
		gpusparse_word(&dev, GPUSPARSE_DECLINED);
		if (read) /* (only where it reads a stream, which it does not here) */
			tool_die("the sparse engine read the stream and declined it");
		tool_info("%s", why);
		g->sparse_declined = 1;
		snprintf(g->declined, sizeof g->declined, "%s", why);
		struct gpu_plan again;
		gpu_plan_route(&again, g);
		tool_info("%s: route %s", tool_input_name(a->input), again.why);
		return gpu_run_route(&again, g);
	}
	case GPU_FLOAT64:
		return solve_f64(g);
	case GPU_BANDS: {
		const int done = bands_solve(&g->head, g->r, &g->in, a->input, &g->o, &g->job, a->order,
		                             g->out, g->sout, a->stats ? &a->form : NULL, &g->ck,
		                             g->threads, &gathered);
		if (g->rank == 0 && g->r)
			engine_in_free(g->r), g->r = NULL;
		if (done)
			return EXIT_OK;
		if (g->rank != 0)
			return solve_elsewhere(&g->o, g->head.n, &g->job, stats_on_devices(a));
		return solve_on_host(p, g, gathered);
	}
	case GPU_FOLLOW:
		return solve_elsewhere(&g->o, g->head.n, &g->job, stats_on_devices(a));
	case GPU_ARCS:
		solve_arcs(g->r, &g->in, &g->o, &g->job, a->order, g->out, g->sout, &a->form,
		           g->threads, g->t0);
		g->r = NULL; /* (freed there) */
		ckpt_end(&g->ck);
		return EXIT_OK;
	case GPU_DIRECT:
	case GPU_HOST:
		break;
	}
	return solve_on_host(p, g, NULL);
}

void gpu_close(struct gpu_run *g, int status)
{
	tool_done(status);
	ranks_finish();
	if (g->rank == 0)
		st_header_free(&g->in);
}
