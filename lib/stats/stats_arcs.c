/* stats_arcs.c - the statistics of a graph given by its arcs, through the
 * sparse engine (see gs_add_arcs in stats.h, lib/sparse/elim.h). */
#include "common.h"
#include "elim.h"
#include "stats.h"

int gs_add_arcs(gs_stats *s, uint64_t count, const uint32_t *from, const uint32_t *to,
                const void *w, uint64_t most, int threads, int64_t *cycle_vertex, st_error *err)
{
	el_factor *f;
	const int rc = el_factor_make(s->n, s->type, count, from, to, w, 1, threads, most, &f,
	                              cycle_vertex, err);
	if (rc != 0)
		return rc;
	const int folded = el_fold_stats(f, s, threads, err);
	el_factor_free(f);
	return folded;
}
