/* fw_solve.c - all pairs on the CPU in one call, for callers that hold the
 * matrix themselves (the Python package, through ctypes): sv_prepare(),
 * fw_cpu() and sv_finish() on one n x n matrix, in place (see fw.h). */
#include <stdlib.h>
#include <string.h>

#include "fw.h"
#include "solve.h"
#include "common.h"

/* Whether paths of equal length can meet: float weights, or an int32 arc
 * of weight 0 or below. */
static int may_tie(uint32_t type, uint64_t n, const void *w)
{
	if (type != ST_INT32)
		return 1;
	const int32_t *x = w;
	for (uint64_t u = 0; u < n; u++)
		for (uint64_t v = 0; v < n; v++)
			if (u != v && x[u * n + v] <= 0)
				return 1;
	return 0;
}

int fw_solve(uint32_t type, uint64_t n, void *dist, int32_t *pred, int block, int threads,
             int64_t *cycle_vertex, st_error *err)
{
	st_header h;
	sv_plan plan;
	fw_opts o;

	*cycle_vertex = -1;
	if (type != ST_INT32 && type != ST_FLOAT32 && type != ST_FLOAT64)
		return lib_fail(err, "unknown element type %u", type);
	if (n > ST_MAX_N)
		return lib_fail(err, "%llu vertices: at most %llu", (unsigned long long)n,
		                (unsigned long long)ST_MAX_N);
	memset(&h, 0, sizeof h);
	h.n = n, h.npad = n, h.type = type;
	int rc = sv_prepare(&h, dist, dist, pred, threads, &plan, err);
	if (rc == 1)
		*cycle_vertex = plan.cycle_vertex;
	if (rc != 0) {
		sv_plan_free(&plan);
		return rc;
	}
	/* The textbook predecessors follow each path's largest intermediate
	 * vertex; where the blocked order met paths of equal length (an arc of
	 * weight 0 or below, reweighted ones of 0 above all, or float sums
	 * that absorb a small term) those can point at each other.  So the
	 * weights are kept and every chain that misses its source is
	 * re-attached along shortest-path arcs. */
	void *weights = NULL;
	if (pred && may_tie(type, n, dist)) {
		const size_t bytes = n * n * ST_TYPE_SIZE(type);
		if (!(weights = malloc(bytes ? bytes : 1))) {
			sv_plan_free(&plan);
			return lib_fail(err, "out of memory for a copy of the weights (n = %llu)",
			                (unsigned long long)n);
		}
		memcpy(weights, dist, bytes);
	}
	memset(&o, 0, sizeof o);
	o.block = block, o.threads = threads, o.textbook_paths = 1;
	rc = fw_cpu(&o, type, n, dist, pred, err);
	if (rc == 0 && weights && fw_repair_paths(type, n, weights, n, dist, pred, threads) < 0)
		rc = lib_fail(err, "out of memory for the predecessors' repair");
	if (rc == 0)
		sv_finish(&plan, dist, threads);
	free(weights);
	sv_plan_free(&plan);
	return rc;
}
