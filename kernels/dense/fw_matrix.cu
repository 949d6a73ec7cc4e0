// fw_matrix.cu - fwm_solve (fw_matrix.h) over the GPU engine (fw_gpu.h):
// the caller's float64 matrix read as its flags say into dist on every
// core, a negative cycle looked for where a weight is negative
// (sv_prepare), the engine run in core on the devices asked for, and the
// textbook predecessors made of the largest intermediate vertices it
// tracks (fw_textbook_preds).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "fw_base.cuh"
#include "fw_gpu.h"
#include "fw_matrix.h"

extern "C" {
#include "fw.h"
#include "solve.h"
}

static fwg_timing last; // the last solve's

extern "C" int fwm_device_count(char *err, size_t errlen)
{
	return fwg_device_count(err, errlen);
}

extern "C" void fwm_times(double *up_ms, double *kernel_ms, double *down_ms)
{
	*up_ms = last.upload_ms, *kernel_ms = last.kernel_ms, *down_ms = last.download_ms;
}

// What read_weights() found.
enum { FOUND_NAN = 1, FOUND_NEG_INF = 2, FOUND_NEGATIVE = 4 };

// graph (n x n) into dist (which may be graph) as flags say: no edge (+inf)
// where FWM_NULL_VALUES says so, 1 for every edge with FWM_UNWEIGHTED, no -0
// (its bits would order below every other value), the diagonal 0; with
// FWM_UNDIRECTED the smaller of (i, j) and (j, i) both ways.
static unsigned read_weights(const double *graph, double *dist, uint64_t n, int flags)
{
	const double inf = HUGE_VAL;
	unsigned found = 0;
#pragma omp parallel for schedule(static) reduction(| : found)
	for (int64_t i = 0; i < (int64_t)n; i++) {
		const double *g = graph + (uint64_t)i * n;
		double *d = dist + (uint64_t)i * n;
		for (uint64_t j = 0; j < n; j++) {
			double v = g[j];
			if (flags & FWM_NULL_VALUES) {
				if (v == 0 || !std::isfinite(v))
					v = inf;
			} else if (std::isnan(v)) {
				found |= FOUND_NAN, v = inf;
			} else if (v == -inf) {
				found |= FOUND_NEG_INF;
			}
			if ((flags & FWM_UNWEIGHTED) && v < inf)
				v = 1;
			if (v == 0)
				v = 0;
			if ((uint64_t)i == j)
				v = 0;
			else if (v < 0)
				found |= FOUND_NEGATIVE;
			d[j] = v;
		}
	}
	if (!(flags & FWM_UNDIRECTED))
		return found;
	constexpr uint64_t T = 64; // tiles, so that both of a pair stay in cache
	const uint64_t nt = (n + T - 1) / T;
#pragma omp parallel for schedule(dynamic)
	for (int64_t bi = 0; bi < (int64_t)nt; bi++)
		for (uint64_t bj = (uint64_t)bi; bj < nt; bj++)
			for (uint64_t i = (uint64_t)bi * T; i < std::min(n, (uint64_t)bi * T + T); i++)
				for (uint64_t j = std::max(i + 1, bj * T); j < std::min(n, bj * T + T); j++) {
					const double a = dist[i * n + j], b = dist[j * n + i];
					const double m = b <= a ? b : a;
					dist[i * n + j] = m, dist[j * n + i] = m;
				}
	return found;
}

// The engine's options for this call: float64, in core, the device memory
// APSP_DEVICE_MEMORY allows (tests).
static fwg_opts options(int paths, int device, int gpus)
{
	fwg_opts o;
	memset(&o, 0, sizeof o);
	o.device = device;
	o.gpus = gpus;
	o.type = ST_FLOAT64;
	o.paths = paths;
	const char *cap = getenv("APSP_DEVICE_MEMORY");
	o.memory_cap = cap ? strtoull(cap, nullptr, 10) : 0;
	return o;
}

// The devices made ready once for each choice of them (kept for the next
// calls).  0 or -1.
static int ready(int device, int gpus, char *err, size_t errlen)
{
	static int made_device = -1, made_gpus = 0;
	if (made_device == device && made_gpus == gpus)
		return 0;
	if (fwg_init(device, gpus, 0, err, errlen) < 0)
		return -1;
	made_device = device, made_gpus = gpus;
	return 0;
}

// One solve at a time in a process: the engine's staging buffers and the
// devices made ready are the process's (ctypes lets Python threads call in
// together).
static std::mutex solving;

extern "C" int fwm_solve(uint32_t type, uint64_t n, const void *graph, void *dist,
                         int32_t *pred, int flags, int device, int gpus, int64_t *cycle_vertex,
                         char *err, size_t errlen)
{
	std::lock_guard<std::mutex> hold(solving);
	Err e{err, errlen};
	*cycle_vertex = -1;
	memset(&last, 0, sizeof last);
	if (type != ST_FLOAT64)
		return fail(e, "the GPU library takes float64 matrices only");
	if (gpus > FWM_MAX_GPUS)
		return fail(e, "at most %d GPUs", FWM_MAX_GPUS);
	if (n == 0)
		return 0;
	gpus = gpus < 1 ? 1 : gpus;
	const unsigned found = read_weights((const double *)graph, (double *)dist, n, flags);
	if (found & FOUND_NAN)
		return fail(e, "an edge weight is NaN");
	if (found & FOUND_NEG_INF)
		return fail(e, "an edge weight is -infinity");
	if ((found & FOUND_NEGATIVE) && !(flags & FWM_CHECKED)) {
		st_header h;
		sv_plan plan;
		st_error se;
		memset(&h, 0, sizeof h);
		h.n = n, h.npad = n, h.type = ST_FLOAT64;
		const int rc = sv_prepare(&h, dist, dist, nullptr, 0, &plan, &se);
		*cycle_vertex = plan.cycle_vertex;
		sv_plan_free(&plan);
		if (rc != 0)
			return rc < 0 ? fail(e, "%s", se.msg) : 1;
	}
	if (ready(device, gpus, err, errlen))
		return -1;
	// The weights as read, kept for the predecessors' repair: the textbook
	// chains can point at each other where paths of equal length met
	// (fw_solve in lib/cpu/fw_solve.c says when).
	void *weights = nullptr;
	if (pred) {
		if (!(weights = malloc(n * n * sizeof(double))))
			return fail(e, "out of memory for a copy of the weights (n = %llu)",
			            (unsigned long long)n);
		memcpy(weights, dist, n * n * sizeof(double));
	}
	const fwg_opts o = options(pred != nullptr, device, gpus);
	if (fwg_solve(&o, n, dist, dist, pred, &last, err, errlen) < 0) {
		free(weights);
		return -1;
	}
	int rc = 0;
	if (pred && (fw_textbook_preds(type, n, dist, pred, 0)
	             || fw_repair_paths(type, n, weights, n, dist, pred, 0) < 0))
		rc = fail(e, "out of memory for the predecessors");
	free(weights);
	return rc;
}
