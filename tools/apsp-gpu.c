/* apsp-gpu - all-pairs shortest paths on an NVIDIA GPU (blocked Floyd-Warshall).
 *
 * Reads a graph (a stream, or text: run/graphin.c), computes distances and
 * (unless --no-paths) the predecessor matrix, writes a result stream.  The
 * run's route (where the graph is read, which engine runs where) is planned
 * in one place and run by run/gpuroute.c; the CUDA context is created in a
 * thread while the input is read and prepared, since both take a while. */
#include <stdlib.h>
#include <string.h>

#include "gpuroute.h"
#include "sparse.h"
#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: %s [options] [GRAPH]\n"
	        "All-pairs shortest paths of GRAPH (default stdin) on an NVIDIA GPU: a graph\n"
	        "stream, or the graph as text (Matrix Market, DIMACS .gr, an edge list; plain,\n"
	        "gzip or in an archive) as mtx2bin reads it.  Writes a stream of distances and\n"
	        "predecessors.\n"
	        "\n"
	        "  -t, --type TYPE     a graph as text read as int32, float32 or float64\n"
	        "                      (default: int32 for whole numbers, float32 for real)\n"
	        "  -B, --block B       blocking factor: 16, 32, 64 or 128 (default: chosen by n)\n"
	        "      --no-paths      distances only (no predecessor matrix), faster\n"
	        "  -d, --device N      CUDA device number (default 0)\n"
	        "  -g, --gpus N|all    use N GPUs from the device on (default: all of them\n"
	        "                      from n = %d on, else one; the sparse engine too)\n"
	        "      --no-16bit      never compute int32 distances in 16-bit lanes\n"
	        "      --16bit         try 16-bit lanes at every n (default: from n = 2000,\n"
	        "                      from n = 1500 with paths)\n"
	        "      --derive-paths WHEN  predecessors derived from the final distances:\n"
	        "                      auto (int32 where 16-bit lanes are tried, float32\n"
	        "                      from n = 2000 without negative weights), always, never\n"
	        "      --order ORDER   nd (nested dissection), natural or auto (default:\n"
	        "                      nd for sparse int32 graphs when built with METIS);\n"
	        "                      sparse graphs and nd skip blocks that cannot change\n"
	        "      --stats         print the graph's statistics (apsp-stats' table, no\n"
	        "                      predecessors) instead of writing a result stream\n"
	        "      --engine E      dense (blocked Floyd-Warshall), sparse (elimination in\n"
	        "                      nested-dissection order on the host, the rows in\n"
	        "                      batches on the GPU, no n x n matrix; paths derived\n"
	        "                      from the rows on the host) or auto (the default:\n"
	        "                      sparse tried for a graph as text when distances\n"
	        "                      alone are asked)\n"
	        "\n",
	        tool_name(), GPUS_FROM);
	sources_help(f);
	fputs("                      (the sparse engine's; for a graph it declines,\n"
	      "                      apsp-cpu)\n\n", f);
	engine_stats_help(f);
	fputs(ckpt_help, f);
	tool_common_help(f, 1);
	fputs("\nExit status: 0 success, 2 trouble (usage, input, I/O, CUDA), 3 negative cycle.\n", f);
}

/* An error in one process of an MPI run ends them all. */

static void test_hooks(struct fwg_opts *o)
{
	/* Tests: a device with this many bytes free, at most. */
	const char *cap = getenv("APSP_DEVICE_MEMORY");
	if (cap && *cap)
		o->memory_cap = strtoull(cap, NULL, 10);
	/* Tests: the order of the block updates, "rounds" or "rows" (the same
	 * results either way). */
	const char *sched = getenv("APSP_SCHEDULE");
	if (sched && !strcmp(sched, "rounds"))
		o->schedule = FWG_SCHEDULE_ROUNDS;
	else if (sched && !strcmp(sched, "rows"))
		o->schedule = FWG_SCHEDULE_ROWS;
	/* Tests: where phase 1 runs, "apart", "registers" or "shared" (the
	 * same results every way). */
	const char *p1 = getenv("APSP_PHASE1");
	if (p1 && !strcmp(p1, "apart"))
		o->phase1 = FWG_PHASE1_APART;
	else if (p1 && !strcmp(p1, "registers"))
		o->phase1 = FWG_PHASE1_REGISTERS;
	else if (p1 && !strcmp(p1, "shared"))
		o->phase1 = FWG_PHASE1_SHARED;
	/* Tests: "never" runs the rounds without lookahead (the same results). */
	const char *look = getenv("APSP_LOOKAHEAD");
	if (look && !strcmp(look, "never"))
		o->lookahead = FWG_LOOKAHEAD_NEVER;
	/* Tests: "never" relaxes float32 as floats, never as bits (the same results). */
	const char *bits = getenv("APSP_FLOAT_BITS");
	if (bits && !strcmp(bits, "never"))
		o->float_bits = FWG_FLOAT_BITS_NEVER;
}

/* The command line into a. */
static void parse_options(int argc, char **argv, struct gpu_args *a)
{
	struct fwg_opts *o = &a->engine;
	enum { OPT_NO_16BIT = 0x2000, OPT_16BIT, OPT_ENGINE };
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		ENGINE_LONGOPTS,
		{"device", required_argument, 0, 'd'},
		{"gpus", required_argument, 0, 'g'},
		{"no-16bit", no_argument, 0, OPT_NO_16BIT},
		{"16bit", no_argument, 0, OPT_16BIT},
		{"engine", required_argument, 0, OPT_ENGINE},
		SOURCES_LONGOPTS,
		CKPT_LONGOPTS,
		{0, 0, 0, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS "B:t:d:g:", longopts, NULL)) != -1) {
		if (tool_common_option(c, optarg, usage)
		    || engine_stats_option(c, optarg, &a->form, &a->stats)
		    || ckpt_option(&a->ck, c, optarg) || sources_option(c, optarg, &a->rows))
			continue;
		switch (c) {
		case 't': engine_parse_type(optarg); break;
		case 'B':
			o->block = (int)tool_parse_ll("-B", optarg, 1, 1 << 20);
			if (o->block != 16 && o->block != 32 && o->block != 64 && o->block != 128)
				tool_usage_error("-B %d: blocking factor must be 16, 32, 64 or 128", o->block);
			break;
		case ENGINE_OPT_NO_PATHS:
			o->paths = 0;
			break;
		case OPT_NO_16BIT:
			o->lanes16 = FWG_LANES16_NEVER;
			break;
		case OPT_16BIT:
			o->lanes16 = FWG_LANES16_ALWAYS;
			break;
		case ENGINE_OPT_ORDER:
			a->order = engine_parse_order(optarg);
			break;
		case OPT_ENGINE:
			a->engine_mode = sparse_parse_engine(optarg);
			break;
		case ENGINE_OPT_DERIVE: {
			int d = engine_parse_derive(optarg);
			o->derive = d == DERIVE_ALWAYS ? FWG_DERIVE_ALWAYS
			         : d == DERIVE_NEVER ? FWG_DERIVE_NEVER : FWG_DERIVE_AUTO;
			break;
		}
		case 'd':
			o->device = (int)tool_parse_ll("-d", optarg, 0, 1024);
			break;
		case 'g':
			a->gpus = strcmp(optarg, "all") == 0 ? -1 : (int)tool_parse_ll("-g", optarg, 1, 16);
			break;
		default:
			tool_usage_error("unexpected option");
		}
	}
	if (argc - optind > 1)
		tool_usage_error("too many arguments");
	engine_check_stats(&a->form, a->stats);
	if (a->stats) /* distances alone, folded into the statistics */
		o->paths = 0;
	a->input = optind < argc ? argv[optind] : "-";
	sources_check(&a->rows, a->stats, a->input, o->paths);
}

int main(int argc, char **argv)
{
	static struct gpu_args a = {.engine = {.device = 0, .block = 0, .paths = 1},
	                            .order = ORDER_AUTO, .form = {.what = STATS_TABLE},
	                            .ck = {.every = -1}};
	tool_init("apsp-gpu", argc, argv);
	test_hooks(&a.engine);
	parse_options(argc, argv, &a);
	static struct gpu_run run;
	gpu_open(&run, &a, &argc, &argv);
	struct gpu_plan plan;
	gpu_plan_route(&plan, &run);
	if (run.rank == 0)
		tool_info("%s: route %s", tool_input_name(a.input), plan.why);
	const int status = gpu_run_route(&plan, &run);
	gpu_close(&run, status);
	return status;
}
