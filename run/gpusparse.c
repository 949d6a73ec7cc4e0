/* gpusparse.c - apsp-gpu's sparse engine on a GPU (see gpusparse.h). */
#include "common.h"
#include "gpusparse.h"

#include <stdio.h>
#include <stdlib.h>

#include "fw_sparse.h"
#include "tool.h"

static void *start(void *arg)
{
	struct gpusparse_dev *d = arg;
	d->rc = fws_start(d->device, d->err, sizeof d->err);
	return NULL;
}

void gpusparse_begin(struct gpusparse_dev *d)
{
	d->started = pthread_create(&d->thread, NULL, start, d) == 0;
}

void gpusparse_end(struct gpusparse_dev *d)
{
	if (d->started)
		pthread_join(d->thread, NULL);
	d->started = 0;
}

int gpusparse_rows(void *ctx, const el_factor *f, gs_stats *stats, el_rows_fn *take,
                   void *take_ctx, char *info, size_t len)
{
	struct gpusparse_dev *d = ctx;
	const int device = d->device;
	gpusparse_end(d); /* (its error, where it failed, comes again below) */
	struct fws_timing t;
	/* Tests: at most this many sources a batch (several batches on a
	 * small graph). */
	const char *most = getenv("APSP_SPARSE_BATCH");
	if (fws_solve(device, f, stats, stats ? NULL : take, take_ctx,
	              most ? strtoull(most, NULL, 10) : 0, &t, info, len) < 0)
		return -1;
	const double rate = t.kernel_ms > 0 ? (double)t.arcs * (double)f->n / (t.kernel_ms * 1e-3)
	                                    : 0.0;
	char fold[64] = "";
	if (stats)
		snprintf(fold, sizeof fold, " (the sources' own figures %.1f ms)", t.fold_out_ms);
	snprintf(info, len, "%s, sparse engine: %s: sweeps %.1f ms (up %.1f ms; %.3g relaxations/s: "
	         "the factor's %llu arcs, a source each), %s %.1f ms%s, factor up %.1f ms; %llu "
	         "sources a batch, %.2f GiB of device memory",
	         t.device_name, st_type_name(f->type), t.kernel_ms, t.up_ms, rate,
	         (unsigned long long)t.arcs, stats ? "statistics folded" : "rows down", t.fold_ms,
	         fold, t.upload_ms, (unsigned long long)t.batch, t.device_bytes / 1073741824.0);
	return 0;
}
