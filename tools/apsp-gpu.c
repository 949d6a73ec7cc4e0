/* apsp-gpu - all-pairs shortest paths on an NVIDIA GPU (blocked Floyd-Warshall).
 *
 * Reads a graph stream, computes distances and (unless --no-paths) the
 * predecessor matrix, writes a result stream.  The CUDA context is created in
 * a thread while the input is read and prepared, since both take a while. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "fw.h"
#include "fw_gpu.h"
#include "solve.h"
#include "stream.h"
#include "tool.h"

#define DEFAULT_BLOCK 128

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: %s [options] [GRAPH]\n"
	        "All-pairs shortest paths of the graph stream GRAPH (default stdin) on an\n"
	        "NVIDIA GPU; writes a stream of distances and predecessors.\n"
	        "\n"
	        "  -B, --block B       blocking factor: 16, 32, 64 or 128 (default %d)\n"
	        "      --no-paths      distances only (no predecessor matrix), faster\n"
	        "  -d, --device N      CUDA device number (default 0)\n"
	        "      --no-16bit      never compute int32 distances in 16-bit lanes\n"
	        "\n",
	        tool_name(), DEFAULT_BLOCK);
	tool_common_help(f, 1);
	fputs("\nExit status: 0 success, 2 trouble (usage, input, I/O, CUDA), 3 negative cycle.\n", f);
}

/* The CUDA context is created in a thread while the input is read. */
struct init_job {
	int device, rc;
	char err[256];
};

static void *init_device(void *arg)
{
	struct init_job *j = arg;
	j->rc = fwg_init(j->device, j->err, sizeof j->err);
	return NULL;
}

/* exit() tears the CUDA runtime down: never while the thread is inside it. */
static pthread_t init_thread;
static int init_running;

static void join_init(void)
{
	if (init_running) {
		init_running = 0;
		pthread_join(init_thread, NULL);
	}
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{"block", required_argument, 0, 'B'},
		{"no-paths", no_argument, 0, 'P'},
		{"device", required_argument, 0, 'd'},
		{"no-16bit", no_argument, 0, 'S'},
		{0, 0, 0, 0},
	};
	struct fwg_opts o = {.device = 0, .block = DEFAULT_BLOCK, .paths = 1};
	int c;

	tool_init("apsp-gpu", argc, argv);
	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS "B:d:", longopts, NULL)) != -1) {
		if (tool_common_option(c, optarg, usage))
			continue;
		switch (c) {
		case 'B':
			o.block = (int)tool_parse_ll("-B", optarg, 1, 1 << 20);
			if (o.block != 16 && o.block != 32 && o.block != 64 && o.block != 128)
				tool_usage_error("-B %d: blocking factor must be 16, 32, 64 or 128", o.block);
			break;
		case 'P':
			o.paths = 0;
			break;
		case 'S':
			o.no_lanes16 = 1;
			break;
		case 'd':
			o.device = (int)tool_parse_ll("-d", optarg, 0, 1024);
			break;
		default:
			tool_usage_error("unexpected option");
		}
	}
	if (argc - optind > 1)
		tool_usage_error("too many arguments");
	const char *input = optind < argc ? argv[optind] : "-";
	const int threads = tool_threads();
	double t0 = seconds();

	static struct init_job job;
	job.device = o.device;
	if (pthread_create(&init_thread, NULL, init_device, &job) != 0)
		tool_die("cannot start a thread:");
	init_running = 1;
	tool_before_death(join_init);
	int out = tool_output_open(1);
	st_header in;
	st_reader *r = engine_open(input, threads, &in);
	o.type = (int)in.type;
	const uint64_t n = in.n;
	/* Without padding the weights are read straight into the matrix that
	 * sv_prepare() fills in place.  With paths, the results come back into
	 * a second matrix: the repair of predecessor chains needs the graph. */
	const int in_place = in.npad == n;
	const double mat = 4.0 * (double)n * (double)n;
	engine_check_memory(input, &in, (double)st_matrix_bytes(&in) * !in_place + mat * (1 + 2 * o.paths));
	void *graph = malloc((size_t)mat + 4);
	void *weights = in_place ? graph : malloc(st_matrix_bytes(&in) + 4);
	void *dist = o.paths ? malloc((size_t)mat + 4) : graph;
	int32_t *pred = o.paths ? malloc((size_t)mat + 4) : NULL;
	if (!graph || !weights || !dist || (o.paths && !pred))
		tool_die("out of memory for %llu x %llu matrices (%.1f MiB each)",
		         (unsigned long long)n, (unsigned long long)n, mat / 1048576.0);
	engine_read_weights(r, weights);
	double t_read = seconds();
	st_error err;
	sv_plan plan;
	int rc = sv_prepare(&in, weights, graph, NULL, threads, &plan, &err);
	if (weights != graph)
		free(weights);
	if (rc < 0)
		tool_die_st(input, &err);

	st_header h;
	if (sv_result_header(&in, o.paths, &h, &err) < 0)
		tool_die_st("result", &err);
	tool_add_provenance(&h);
	if (rc == 1)
		engine_negative_cycle(out, &h, plan.cycle_vertex, threads);

	double t_prep = seconds();
	join_init();
	if (job.rc < 0)
		tool_die("%s", job.err);
	double t1 = seconds();
	struct fwg_timing t;
	char msg[512];
	if (fwg_solve(&o, n, graph, dist, pred, &t, msg, sizeof msg) < 0)
		tool_die("%s", msg);
	int64_t repaired = 0;
	if (o.paths && (repaired = fw_repair_paths(in.type, n, graph, n, dist, pred, threads)) < 0)
		tool_die("out of memory checking the predecessor chains");
	double t2 = seconds();
	engine_write_result(out, &h, &plan, dist, pred, threads);
	double t3 = seconds();
	double relax = (double)n * n * n;
	tool_info("%s: n %llu, B %d, %s%s, %s: kernels %.1f ms (%.3g relaxations/s), "
	          "upload %.1f ms, download %.1f ms; read %.3f s, prepare %.3f s, device wait %.3f s, "
	          "solve %.3f s (%lld predecessor chains re-attached), write %.3f s",
	          t.device_name, (unsigned long long)n, o.block,
	          o.type == ST_INT32 ? "int32" : "float32", o.paths ? ", paths" : "",
	          t.lanes16 == 1 ? "16-bit lanes" : t.lanes16 == -1 ? "32-bit (16-bit lanes rejected)"
	          : t.packed ? "packed" : "plain", t.kernel_ms,
	          t.kernel_ms > 0 ? relax / (t.kernel_ms * 1e-3) : 0.0, t.upload_ms,
	          t.download_ms, t_read - t0, t_prep - t_read, t1 - t_prep, t2 - t1, (long long)repaired, t3 - t2);
	st_header_free(&h);
	st_header_free(&in);
	if (dist != graph)
		free(dist);
	free(graph);
	free(pred);
	return EXIT_OK;
}
