/* apsp-cpu - all-pairs shortest paths on the CPU (blocked Floyd-Warshall,
 * or elimination for sparse graphs: run/sparse.c).
 *
 * Reads a graph (a stream, or text: run/graphin.c), computes distances and
 * (unless --no-paths) the predecessor matrix, writes a result stream.  The
 * reference engine: every other engine is compared with it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "betweenness.h"
#include "common.h"
#include "checkpoint.h"
#include "engine.h"
#include "fw.h"
#include "solve.h"
#include "sources.h"
#include "sparse.h"
#include "stream.h"
#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: %s [options] [GRAPH]\n"
	        "All-pairs shortest paths of GRAPH (default stdin) on the CPU: a graph stream,\n"
	        "or the graph as text (Matrix Market, DIMACS .gr, an edge list; plain, gzip\n"
	        "or in an archive) as mtx2bin reads it.  Writes a stream of distances and\n"
	        "predecessors.\n"
	        "\n"
	        "  -t, --type TYPE     a graph as text read as int32, float32 or float64\n"
	        "                      (default: int32 for whole numbers, float32 for real)\n"
	        "  -B, --block B       blocking factor, a multiple of 16 from 16 to 512\n"
	        "                      (default %d)\n"
	        "      --no-paths      distances only (no predecessor matrix), faster\n"
	        "      --simd LEVEL    avx512, avx2 or portable (default: the best this\n"
	        "                      processor runs)\n"
	        "      --order ORDER   nd (nested dissection), natural or auto (default:\n"
	        "                      nd for a sparse graph when built with METIS)\n"
	        "      --derive-paths WHEN  predecessors derived from the final distances:\n"
	        "                      auto or always (the default, unless a weight is\n"
	        "                      negative), or never (tracked through the rounds)\n"
	        "      --stats         print the graph's statistics (apsp-stats' table, no\n"
	        "                      predecessors) instead of writing a result stream\n"
	        "      --engine E      dense (blocked Floyd-Warshall), sparse (elimination in\n"
	        "                      nested-dissection order, rows in batches, no n x n\n"
	        "                      matrix; paths derived from the rows) or auto (the\n"
	        "                      default: sparse for a sparse graph with a small fill,\n"
	        "                      without paths)\n"
	        "\n",
	        tool_name(), FW_BLOCK_DEFAULT);
	sources_help(f);
	fputc('\n', f);
	engine_stats_help(f);
	fputs(ckpt_help, f);
	tool_common_help(f, 1);
	fputs("\nExit status: 0 success, 2 trouble (usage, input, I/O), 3 negative cycle.\n", f);
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

/* What the command line asks. */
struct cpu_args {
	fw_opts o;
	struct ckpt ck;
	int paths, order, as_stats, engine;
	struct stats_form form;
	struct sources_opt rows;
	const char *path; /* GRAPH ("-": standard input) */
};

static void parse_options(int argc, char **argv, struct cpu_args *a)
{
	enum { OPT_SIMD = 0x2000, OPT_ENGINE };
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		ENGINE_LONGOPTS,
		{"simd", required_argument, 0, OPT_SIMD},
		{"engine", required_argument, 0, OPT_ENGINE},
		SOURCES_LONGOPTS,
		CKPT_LONGOPTS,
		{0, 0, 0, 0},
	};
	fw_opts *o = &a->o;
	int c;
	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS "B:t:", longopts, NULL)) != -1) {
		if (tool_common_option(c, optarg, usage)
		    || engine_stats_option(c, optarg, &a->form, &a->as_stats)
		    || ckpt_option(&a->ck, c, optarg) || sources_option(c, optarg, &a->rows))
			continue;
		switch (c) {
		case 't': engine_parse_type(optarg); break;
		case 'B':
			o->block = (int)tool_parse_ll("-B", optarg, 16, 512);
			if (o->block % 16)
				tool_usage_error("-B: %d is not a multiple of 16", o->block);
			break;
		case ENGINE_OPT_NO_PATHS: a->paths = 0; break;
		case ENGINE_OPT_ORDER: a->order = engine_parse_order(optarg); break;
		case OPT_ENGINE: a->engine = sparse_parse_engine(optarg); break;
		case ENGINE_OPT_DERIVE: o->track_paths = engine_parse_derive(optarg) == DERIVE_NEVER; break;
		case OPT_SIMD:
			if (strcmp(optarg, "avx512") == 0)
				o->simd = FW_SIMD_AVX512;
			else if (strcmp(optarg, "avx2") == 0)
				o->simd = FW_SIMD_AVX2;
			else if (strcmp(optarg, "portable") == 0)
				o->simd = FW_SIMD_PORTABLE;
			else if (strcmp(optarg, "auto") == 0)
				o->simd = FW_SIMD_AUTO;
			else
				tool_usage_error("--simd: '%s' is not avx512, avx2, portable or auto", optarg);
			break;
		default: tool_usage_error("unexpected option");
		}
	}
	if (argc - optind > 1)
		tool_usage_error("one input at most ('%s' is extra)", argv[optind + 1]);
	if (o->simd > (int)fw_simd_detect())
		tool_die("--simd %s: this processor does not run it (best: %s)",
		         fw_simd_name(o->simd), fw_simd_name(fw_simd_detect()));
	engine_check_stats(&a->form, a->as_stats);
	a->path = optind < argc ? argv[optind] : "-";
	sources_check(&a->rows, a->as_stats, a->path, a->paths);
	if (a->as_stats) /* distances alone, folded into the statistics */
		a->paths = 0;
}

int main(int argc, char **argv)
{
	static struct cpu_args a = {
		.o = {.block = FW_BLOCK_DEFAULT, .simd = FW_SIMD_AUTO, .progress = progress,
		      .stage = stage},
		.ck = {.every = -1}, .paths = 1, .order = ORDER_AUTO, .engine = ENGINE_AUTO,
		.form = {.what = STATS_TABLE}};
	tool_init("apsp-cpu", argc, argv);
	parse_options(argc, argv, &a);
	fw_opts o = a.o;
	fw_counts counts = {0, 0, 0};
	o.counts = &counts;
	struct ckpt ck = a.ck;
	int paths = a.paths;
	const int order = a.order, as_stats = a.as_stats, engine = a.engine;
	const struct stats_form form = a.form;
	const struct sources_opt rows = a.rows;
	const char *path = a.path;
	const char *name = tool_input_name(path);
	int threads = tool_threads();
	o.threads = threads;

	double t0 = lib_now();
	int out = as_stats ? -1 : tool_output_open(1);
	FILE *sout = as_stats ? tool_output_fopen(0) : NULL;
	st_error err;
	st_header in;
	engine_in *r = engine_open(path, threads, &in);
	const uint64_t n = in.n;
	uint64_t nsrc, ndst;
	uint32_t *src = sources_resolve(&rows, n, &nsrc), *dst = sources_targets(&rows, n, &ndst);
	if (dst && !rows.paths) /* (a table holds distances alone unless --paths) */
		paths = 0, o.track_paths = 0;
	char engine_why[200];
	void *read = NULL; /* the weights, where the sparse engine's reading found the graph dense */
	const struct sparse_job job = {.mode = engine, .order = order, .paths = paths,
	                               .checkpoint = ck.path || ck.resume, .input = path,
	                               .src = src, .sources = nsrc, .dst = dst, .targets = ndst,
	                               .form = as_stats ? &form : NULL, .threads = threads,
	                               .streams = 1};
	if (sparse_run(&job, r, &in, out, sout, &read, engine_why, sizeof engine_why)) {
		st_header_free(&in);
		free(src), free(dst);
		return EXIT_OK;
	}
	tool_info("%s", engine_why);

	/* Refuse what cannot fit before allocating anything: the weights,
	 * then distances and predecessors beside their tiled copies. */
	const uint64_t es = ST_TYPE_SIZE(in.type);
	double mat = (double)n * (double)n, npadb = (double)((n + o.block - 1) / o.block * o.block);
	engine_check_memory(name, &in, mat * (es + 4.0 * paths)
	                               + fmax((double)es * (double)in.npad * (double)in.npad,
	                                      npadb * npadb * (es + 4.0 * paths)));
	void *dist = lib_huge_alloc(n * n * es + 1);
	int32_t *pred = paths ? lib_huge_alloc(n * n * 4 + 1) : NULL;
	if (!dist || (paths && !pred))
		tool_die("out of memory for %llu x %llu matrices (%.1f MiB each)",
		         (unsigned long long)n, (unsigned long long)n, (double)n * n * es / 1048576.0);
	/* Without padding the weights are read straight into the distance
	 * matrix, which sv_prepare() fills in place: one matrix less to fault
	 * in and copy. */
	const int in_place = in.npad == n && !read;
	void *weights = read ? read : in_place ? dist : malloc(st_matrix_bytes(&in) + 1);
	if (!weights)
		tool_die("%s: n = %llu: out of memory for the weights", name, (unsigned long long)n);
	tool_progress_stage("reading the graph");
	uint64_t wbytes = st_matrix_bytes(&in);
	if (!read && engine_read_weights_as(r, weights, read_progress, &wbytes, &err) < 0)
		tool_die_st(NULL, &err);
	/* The betweenness' graph, before the weights become distances. */
	btw_run *bc = as_stats ? btw_begin(&form, n, in.type, 0, NULL, NULL, weights, in.npad, threads)
	                     : NULL;
	tool_progress_stage("preparing the graph");
	sv_plan plan;
	int rc = sv_prepare(&in, weights, dist, pred, threads, &plan, &err);
	if (!in_place)
		free(weights);
	if (rc < 0)
		tool_die_st(name, &err);

	st_header h;
	if (sv_result_header(&in, paths, &h, &err) < 0)
		tool_die_st("result", &err);
	if (src)
		sources_header(&h, nsrc, ndst);
	tool_add_provenance(&h);
	if (rc == 1)
		engine_negative_cycle(path, out, &h, plan.cycle_vertex, threads);

	double t1 = lib_now();
	char why[160];
	tool_progress_stage("ordering the vertices");
	int32_t *perm = engine_order(order, n, in.type, dist, 0, threads, NULL, why, sizeof why);
	o.order = perm; /* the engine reads and writes through it */
	const fw_checkpoint cb = CKPT_CALLBACKS(&ck);
	if (ck.path || ck.resume) {
		char layout[96];
		snprintf(layout, sizeof layout, "B:%d,paths:%s,engine:cpu", o.block,
		         !paths ? "none" : o.track_paths ? "tracked" : "auto");
		ckpt_begin(&ck, in.type, n, dist, perm, layout, (n + o.block - 1) / o.block);
		ckpt_ready(&ck); /* (the engine writes its result into dist) */
		o.checkpoint = &cb;
	}
	if (fw_cpu(&o, in.type, n, dist, pred, &err) < 0)
		tool_die_st(NULL, &err);
	free(perm);
	double t2 = lib_now();
	tool_progress_stage(as_stats ? "folding the statistics" : "writing the result");
	if (as_stats)
		engine_write_stats(sout, &form, &plan, dist, n, in.type, in.flags, threads, bc);
	else
		engine_write_result(out, &h, &plan, dist, pred, src, dst, threads);
	ckpt_end(&ck); /* the result committed: no more need of it */
	double t3 = lib_now();
	double relax = (double)n * n * n;
	tool_info("n %llu, B %d, %s%s%s, %s, %d threads, %s, %llu of %llu tiles skipped (%.1f%%): "
	          "solve %.3f s (%.3g dense relaxations/s); read+prepare %.3f s, write %.3f s",
	          (unsigned long long)n, o.block, st_type_name(in.type),
	          paths ? ", paths" : "",
	          paths ? (counts.derived ? " derived from the distances" : " tracked") : "",
	          fw_simd_name(o.simd ? (enum fw_simd)o.simd : fw_simd_detect()), threads, why,
	          (unsigned long long)counts.tiles_skipped, (unsigned long long)counts.tiles,
	          counts.tiles ? 100.0 * (double)counts.tiles_skipped / (double)counts.tiles : 0.0,
	          t2 - t1, t2 > t1 ? relax / (t2 - t1) : 0.0, t1 - t0, t3 - t2);
	st_header_free(&h);
	st_header_free(&in);
	free(dist);
	free(pred);
	free(src), free(dst);
	return EXIT_OK;
}
