/* fw_solve.c - all pairs on the CPU in one call, for callers that hold the
 * matrix themselves (the Python package, through ctypes): sv_prepare(),
 * fw_cpu() and sv_finish() on one n x n matrix, in place (see fw.h). */
#include <stdlib.h>
#include <string.h>

#include "fw.h"
#include "solve.h"
#include "common.h"

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
	memset(&o, 0, sizeof o);
	o.block = block, o.threads = threads, o.textbook_paths = 1;
	rc = fw_cpu(&o, type, n, dist, pred, err);
	if (rc == 0)
		sv_finish(&plan, dist, threads);
	sv_plan_free(&plan);
	return rc;
}
