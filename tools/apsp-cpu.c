/* apsp-cpu - all-pairs shortest paths on the CPU (blocked Floyd-Warshall,
 * or elimination for sparse graphs: run/sparse.c).
 *
 * Reads a graph (a stream, or text: run/graphin.c), computes distances and
 * (unless --no-paths) the predecessor matrix, writes a result stream.  The
 * reference engine: every other engine is compared with it.  Its run is
 * run/cpuroute.c's, in the shape of apsp-gpu's. */
#include <string.h>

#include "cpuroute.h"
#include "sparse.h"
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
		.o = {.block = FW_BLOCK_DEFAULT, .simd = FW_SIMD_AUTO},
		.ck = {.every = -1}, .paths = 1, .order = ORDER_AUTO, .engine = ENGINE_AUTO,
		.form = {.what = STATS_TABLE}};
	tool_init("apsp-cpu", argc, argv);
	parse_options(argc, argv, &a);
	static struct cpu_run run;
	cpu_open(&run, &a);
	struct cpu_plan plan;
	cpu_plan_route(&plan, &run);
	const int status = cpu_run_route(&plan, &run);
	cpu_close(&run);
	return status;
}
