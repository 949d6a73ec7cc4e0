// fw_bench.cu - time the GPU engine alone, without streams or tools.
//
//   fw-kernel-bench -n 20000 [-B 128] [-p] [-g GPUS] [-t float32] [-r REPS] [--check] [--warm]
//                   [--rounds | --rows] [--no-lookahead] [--no-float-bits] [--negative-zeros]
//   (without -B, or -B 0: the engine chooses the blocking factor)
//
// Builds a random graph on the host (each ordered pair an edge with
// probability -d percent, weights uniform in 1..100), runs fwg_solve REPS
// times and prints kernel time (CUDA events, all phases of all rounds; the
// median of the runs after the first, and the first alone; --warm: after
// fwg_warm, as apsp-gpu runs), n^3
// relaxations per second and the share of the 16.6e12/s add-min ceiling the
// H100 measured.  --check compares with a plain Floyd-Warshall on the host
// (small n only) and walks every predecessor chain.  --negative-zeros makes
// the weights of 1 -0 (float32; int32 0): a test of the engine's sign check.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <algorithm>

#include "dense/fw_gpu.h"
#include "stream.h"

static int derive_mode = FWG_DERIVE_AUTO;
static int schedule = FWG_SCHEDULE_AUTO;
static int phase1 = FWG_PHASE1_AUTO;
static int lookahead = FWG_LOOKAHEAD_AUTO;
static int float_bits = FWG_FLOAT_BITS_AUTO;
static bool negative_zeros = false;
static int gpus = 1;
static bool warm = false;

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

template <typename T> static T inf_of();
template <> int inf_of<int>() { return ST_INF_I32; }
template <> float inf_of<float>() { return INFINITY; }

template <typename T>
static void make_graph(std::vector<T> &w, int n, double density, uint64_t seed)
{
	w.resize((size_t)n * n);
#pragma omp parallel for schedule(static)
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			uint64_t r = mix(seed ^ mix(((uint64_t)i << 32) | (uint32_t)j));
			bool edge = (r >> 11) * (1.0 / 9007199254740992.0) < density / 100.0;
			T x = edge ? (T)(1 + (r & 0xffff) % 100) : inf_of<T>();
			if (negative_zeros && x == (T)1)
				x = (T)-0.0;
			w[(size_t)i * n + j] = i == j ? (T)0 : x;
		}
}

template <typename T>
static int check(const std::vector<T> &w, const std::vector<T> &got, const std::vector<int32_t> &pred,
                 int n, bool paths)
{
	std::vector<T> d(w);
	for (int k = 0; k < n; k++)
#pragma omp parallel for schedule(static)
		for (int i = 0; i < n; i++) {
			T a = d[(size_t)i * n + k];
			if (a == inf_of<T>())
				continue;
			for (int j = 0; j < n; j++) {
				T b = d[(size_t)k * n + j];
				if (b != inf_of<T>() && a + b < d[(size_t)i * n + j])
					d[(size_t)i * n + j] = a + b;
			}
		}
	long bad = 0, badp = 0;
	for (size_t e = 0; e < d.size(); e++)
		if (d[e] != got[e] && !(sizeof(T) == 4 && (T)0.5 != 0 && fabs((double)d[e] - got[e]) < 1e-3))
			bad++;
	if (paths)
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				if (got[(size_t)i * n + j] == inf_of<T>() || i == j) {
					badp += pred[(size_t)i * n + j] != -1;
					continue;
				}
				double len = 0;
				int v = j, steps = 0;
				while (v != i && steps++ <= n) {
					int u = pred[(size_t)i * n + v];
					if (u < 0 || u >= n || w[(size_t)u * n + v] == inf_of<T>())
						break;
					len += w[(size_t)u * n + v];
					v = u;
				}
				if (v != i || fabs(len - (double)got[(size_t)i * n + j]) > 1e-3 * (1 + fabs(len)))
					badp++;
			}
	printf("check: %ld wrong distances, %ld bad predecessor chains\n", bad, badp);
	return bad || badp;
}

// How the run held its distances (the "form" column) and scheduled its rounds.
static const char *form_of(const struct fwg_timing &t)
{
	if (t.derived)
		return t.lanes16 == 1 ? "16bit+derive" : "derive";
	return t.lanes16 == 1 ? "16bit" : t.lanes16 == -1 ? "16>32" : t.packed ? "packed"
	       : t.float_bits ? "bits" : "plain";
}
static const char *schedule_of(const struct fwg_timing &t)
{
	return t.row_bands ? "row order" : t.lookahead ? "rounds, lookahead" : "rounds";
}

template <typename T>
static int run(int n, int B, bool paths, int reps, double density, bool do_check, int lanes)
{
	std::vector<T> w;
	make_graph(w, n, density, 42);
	std::vector<T> d((size_t)n * n);
	std::vector<int32_t> p(paths ? (size_t)n * n : 1);
	struct fwg_opts o = {0, B, sizeof(T) == 4 && (T)0.5 != 0 ? ST_FLOAT32 : ST_INT32, paths, lanes};
	o.derive = derive_mode;
	o.gpus = gpus;
	o.schedule = schedule;
	o.phase1 = phase1;
	o.lookahead = lookahead;
	o.float_bits = float_bits;
	struct fwg_timing t;
	char err[512];
	if (warm && fwg_warm(&o, n, err, sizeof err) < 0) {
		fprintf(stderr, "fw-kernel-bench: warm-up: %s\n", err);
		return 2;
	}
	std::vector<double> ms;
	double first = 0; // the process's first run: the kernels' code loaded as they launch
	for (int r = 0; r < reps + 1; r++) {
		if (fwg_solve(&o, n, w.data(), d.data(), paths ? p.data() : nullptr, &t, err, sizeof err) < 0) {
			fprintf(stderr, "fw-kernel-bench: %s\n", err);
			return 2;
		}
		if (r == 0)
			first = t.kernel_ms;
		if (r > 0 || reps == 0)
			ms.push_back(t.kernel_ms);
	}
	std::sort(ms.begin(), ms.end());
	double med = ms[ms.size() / 2], rate = (double)n * n * n / (med * 1e-3);
	printf("%-8d %-4d %-8s %-6s %-7s %10.2f %12.3e %7.1f%%   (%s, %s, %zu runs, min %.2f ms, "
	       "first run %.2f ms)\n", n, t.block,
	       o.type == ST_INT32 ? "int32" : "float32", paths ? "paths" : "dist",
	       form_of(t), med, rate, 100 * rate / 16.6e12, t.device_name, schedule_of(t), ms.size(),
	       ms[0], first);
	return do_check ? check(w, d, p, n, paths) : 0;
}

int main(int argc, char **argv)
{
	int n = 4096, B = 0, reps = 3;
	bool paths = false, is_float = false, do_check = false;
	int lanes = FWG_LANES16_AUTO;
	double density = 15;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc) n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-B") && i + 1 < argc) B = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-d") && i + 1 < argc) density = atof(argv[++i]);
		else if (!strcmp(argv[i], "-p")) paths = true;
		else if (!strcmp(argv[i], "-g") && i + 1 < argc) gpus = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-t") && i + 1 < argc) is_float = !strcmp(argv[++i], "float32");
		else if (!strcmp(argv[i], "--check")) do_check = true;
		else if (!strcmp(argv[i], "--warm")) warm = true;
		else if (!strcmp(argv[i], "--no-16bit")) lanes = FWG_LANES16_NEVER;
		else if (!strcmp(argv[i], "--16bit")) lanes = FWG_LANES16_ALWAYS;
		else if (!strcmp(argv[i], "--derive")) derive_mode = FWG_DERIVE_ALWAYS;
		else if (!strcmp(argv[i], "--no-derive")) derive_mode = FWG_DERIVE_NEVER;
		else if (!strcmp(argv[i], "--rounds")) schedule = FWG_SCHEDULE_ROUNDS;
		else if (!strcmp(argv[i], "--rows")) schedule = FWG_SCHEDULE_ROWS;
		else if (!strcmp(argv[i], "--no-lookahead")) lookahead = FWG_LOOKAHEAD_NEVER;
		else if (!strcmp(argv[i], "--no-float-bits")) float_bits = FWG_FLOAT_BITS_NEVER;
		else if (!strcmp(argv[i], "--negative-zeros")) negative_zeros = true;
		else if (!strcmp(argv[i], "--phase1") && i + 1 < argc) {
			const char *w = argv[++i];
			phase1 = !strcmp(w, "auto") ? FWG_PHASE1_AUTO
			       : !strcmp(w, "apart") ? FWG_PHASE1_APART
			       : !strcmp(w, "registers") ? FWG_PHASE1_REGISTERS
			       : !strcmp(w, "shared") ? FWG_PHASE1_SHARED : -1;
			if (phase1 < 0) {
				fprintf(stderr, "fw-kernel-bench: --phase1 %s: auto, apart, registers or shared\n", w);
				return 2;
			}
		}
		else if (!strcmp(argv[i], "--header")) {
			printf("%-8s %-4s %-8s %-6s %-7s %10s %12s %8s\n", "n", "B", "type", "mode", "form",
			       "kernel_ms", "relax/s", "ceiling");
			return 0;
		} else {
			/* --help: the usage on stdout, success; anything else: on stderr, trouble */
			const bool help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
			fprintf(help ? stdout : stderr,
			        "usage: fw-kernel-bench [-n N] [-B B] [-p] [-g GPUS] [-t int32|float32] "
			        "[-d DENSITY] [-r REPS] [--check] [--warm] [--no-16bit | --16bit]\n"
			        "       [--derive | --no-derive] [--rounds | --rows] [--no-lookahead]\n"
			        "       [--no-float-bits] [--negative-zeros] [--phase1 auto|apart|registers|shared] | --header\n"
			        "The tile kernels timed alone on a random graph (bench/gpu.md); a developer's\n"
			        "benchmark, built in bin/ and not installed.\n");
			return help ? 0 : 2;
		}
	}
	char err[256];
	if (fwg_init(0, gpus, 0, err, sizeof err) < 0) {
		fprintf(stderr, "fw-kernel-bench: %s\n", err);
		return 2;
	}
	return is_float ? run<float>(n, B, paths, reps, density, do_check, lanes)
	                : run<int>(n, B, paths, reps, density, do_check, lanes);
}
