/* batches.c - the sparse engine's whole runs (see elim.h): every row of the
 * distances in order, a group of batches at a time on threads; the
 * statistics folded from them; the factor made in one call; the rows of
 * chosen sources (fw_sparse_rows, fw.h). */
#include "common.h"
#include "elim.h"
#include "fw.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "order.h"

int el_all_rows(const el_factor *f, const uint32_t *src, uint64_t sources, int threads,
                el_rows_fn *fn, void *ctx, uint64_t *relaxations, st_error *err)
{
	threads = lib_threads(threads);
	const uint64_t n = f->n, es = ST_TYPE_SIZE(f->type), rows_n = src ? sources : n;
	/* A group: eight batches a thread where 64 MiB holds them (fewer
	 * waits between the sweeps and what fn does), at least one a thread. */
	uint64_t group = (uint64_t)threads * EL_BATCH * 8;
	while (group > (uint64_t)threads * EL_BATCH && group * n * es > (64u << 20))
		group -= EL_BATCH;
	el_space **space = calloc((size_t)threads, sizeof *space);
	uint64_t *relax = calloc((size_t)threads, sizeof *relax);
	void *rows = lib_huge_alloc((group < rows_n ? group : rows_n) * n * es + 1);
	int rc = 0;
	for (int t = 0; space && t < threads; t++)
		if (!(space[t] = el_space_new(f)))
			rc = -1;
	if (rc < 0 || !space || !relax || !rows) {
		rc = lib_fail(err, "sparse engine: out of memory for %llu rows of n = %llu",
		              (unsigned long long)group, (unsigned long long)n);
		goto out;
	}
	for (uint64_t first = 0; first < rows_n && rc == 0; first += group) {
		const uint64_t count = rows_n - first < group ? rows_n - first : group;
		const int batches = (int)((count + EL_BATCH - 1) / EL_BATCH);
		#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
		for (int b = 0; b < batches; b++) {
			uint32_t batch[EL_BATCH];
			const uint64_t s0 = first + (uint64_t)b * EL_BATCH;
			const int k = (int)(rows_n - s0 < EL_BATCH ? rows_n - s0 : EL_BATCH);
			for (int i = 0; i < k; i++)
				batch[i] = src ? src[s0 + (uint64_t)i] : (uint32_t)(s0 + (uint64_t)i);
			const int t = omp_get_thread_num();
			el_rows(f, space[t], batch, k, (char *)rows + (uint64_t)b * EL_BATCH * n * es, n,
			        &relax[t]);
		}
		if (fn(ctx, first, count, rows))
			rc = lib_fail(err, "sparse engine: the rows' taker stopped");
	}
	for (int t = 0; t < threads && relaxations; t++)
		*relaxations += relax[t];
out:
	for (int t = 0; space && t < threads; t++)
		el_space_free(space[t]);
	free(space), free(relax), free(rows);
	return rc;
}

struct folding {
	gs_stats *s;
	uint64_t n;
	int threads;
};

static int fold(void *ctx, uint64_t first, uint64_t count, const void *rows)
{
	struct folding *fo = ctx;
	gs_add_rows(fo->s, first, count, rows, fo->n, fo->threads);
	return 0;
}

int el_fold_stats(const el_factor *f, gs_stats *s, int threads, st_error *err)
{
	struct folding fo = {s, f->n, threads};
	return el_all_rows(f, NULL, 0, threads, fold, &fo, NULL, err);
}

int el_factor_make(uint64_t n, uint32_t type, uint64_t count, const uint32_t *from,
                   const uint32_t *to, const void *w, int nd, int threads, uint64_t most,
                   el_factor **f, int64_t *cycle_vertex, st_error *err)
{
	*f = NULL;
	int32_t *perm = NULL;
	if (nd && ord_available()) {
		if (!(perm = malloc(n * sizeof *perm + 1)))
			return lib_fail(err, "sparse engine: out of memory for the order");
		if (ord_split_dissection_arcs(n, count, from, to, perm, threads, err) < 0) {
			free(perm);
			return -1;
		}
	}
	const int planned = el_factor_plan(n, count, from, to, perm, f, err);
	free(perm);
	if (planned < 0)
		return -1;
	if (most && el_factor_entries(*f) > most) {
		el_factor_free(*f);
		*f = NULL;
		return 2;
	}
	const int rc = el_factor_weigh(*f, type, count, from, to, w, cycle_vertex, err);
	if (rc != 0) {
		el_factor_free(*f);
		*f = NULL;
	}
	return rc;
}

/* fw_sparse_rows' rows, copied into the caller's matrix in the list's order. */
struct into {
	char *rows;
	uint64_t row_bytes;
};

static int copy_rows(void *ctx, uint64_t first, uint64_t count, const void *rows)
{
	struct into *in = ctx;
	memcpy(in->rows + first * in->row_bytes, rows, count * in->row_bytes);
	return 0;
}

int fw_sparse_rows(uint64_t n, uint32_t type, uint64_t count, const uint32_t *from,
                   const uint32_t *to, const void *w, const uint32_t *src, uint64_t sources,
                   void *rows, uint64_t most, int threads, int64_t *cycle_vertex, st_error *err)
{
	for (uint64_t i = 0; i < sources; i++)
		if (src[i] >= n)
			return lib_fail(err, "source %llu of n = %llu", (unsigned long long)src[i],
			                (unsigned long long)n);
	threads = lib_threads(threads);
	if (sources <= EL_SEARCH_MOST && el_no_negative_arc(type, count, w))
		return el_search_rows(n, type, count, from, to, w, src, sources, rows, threads, NULL,
		                      err);
	el_factor *f;
	const int rc = el_factor_make(n, type, count, from, to, w, 1, threads, most, &f,
	                              cycle_vertex, err);
	if (rc != 0)
		return rc;
	struct into in = {rows, n * ST_TYPE_SIZE(type)};
	const int made = el_all_rows(f, src, sources, threads, copy_rows, &in, NULL, err);
	el_factor_free(f);
	return made;
}
