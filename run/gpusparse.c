/* gpusparse.c - apsp-gpu's sparse engine on a GPU (see gpusparse.h). */
#include "common.h"
#include "gpusparse.h"

#include <stdio.h>
#include <stdlib.h>

#include "fw_sparse.h"
#include "gpuroute.h"
#include "tool.h"

/* The devices of the run into d: APSP_SPARSE_DEVICES (a list, for tests:
 * one device twice runs the several devices' way on one), or --gpus's. */
static int find_devices(struct gpusparse_dev *d)
{
	const char *list = getenv("APSP_SPARSE_DEVICES");
	d->ndevices = 0;
	for (const char *p = list; p && *p && d->ndevices < GPUSPARSE_MAX;) {
		char *end;
		d->devices[d->ndevices++] = (int)strtol(p, &end, 10);
		p = *end == ',' ? end + 1 : "";
	}
	if (d->ndevices)
		return 0;
	int want = d->gpus;
	if (want != 1 && !(want == 0 && d->n < GPUS_FROM)) {
		const int count = fws_device_count(d->err, sizeof d->err);
		if (count < 0)
			return -1;
		const int there = count - d->device;
		if (want > there) {
			snprintf(d->err, sizeof d->err, "--gpus %d: %d GPU%s from device %d on", want,
			         there, there == 1 ? "" : "s", d->device);
			return -1;
		}
		want = want > 0 ? want : there;
	}
	want = want < 1 ? 1 : want > GPUSPARSE_MAX ? GPUSPARSE_MAX : want;
	for (int k = 0; k < want; k++)
		d->devices[d->ndevices++] = d->device + k;
	return 0;
}

static void *start(void *arg)
{
	struct gpusparse_dev *d = arg;
	d->rc = find_devices(d);
	for (int k = 0; k < d->ndevices && d->rc == 0; k++)
		d->rc = fws_start(d->devices[k], d->err, sizeof d->err);
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

int gpusparse_rows(void *ctx, const el_factor *f, const uint32_t *src, uint64_t sources,
                   gs_stats *stats, el_rows_fn *take, void *take_ctx, char *info, size_t len)
{
	struct gpusparse_dev *d = ctx;
	gpusparse_end(d);
	if (d->rc < 0 || d->ndevices < 1) {
		snprintf(info, len, "%s", d->ndevices < 1 ? "no device found" : d->err);
		return -1;
	}
	struct fws_timing t;
	/* Tests: at most this many sources a batch (several batches on a
	 * small graph). */
	const char *most = getenv("APSP_SPARSE_BATCH");
	const double w0 = lib_now();
	if (fws_solve(d->devices, d->ndevices, f, src, sources, stats, stats ? NULL : take, take_ctx,
	              most ? strtoull(most, NULL, 10) : 0, &t, info, len) < 0)
		return -1;
	const double rows = src ? (double)sources : (double)f->n;
	const double rate = t.kernel_ms > 0 ? (double)t.arcs * rows / (t.kernel_ms * 1e-3) : 0.0;
	const double wall = (lib_now() - w0) * 1e3;
	char fold[64] = "", gpus[96] = "";
	if (stats)
		snprintf(fold, sizeof fold, " (the sources' own figures %.1f ms)", t.fold_out_ms);
	if (d->ndevices > 1) /* (the kernels' times added up over the GPUs) */
		snprintf(gpus, sizeof gpus, " on %d GPUs (the batches taken in turn; %.1f ms wall, "
		         "times below summed)", d->ndevices, wall);
	snprintf(info, len, "%s%s, sparse engine: %s: sweeps %.1f ms (up %.1f ms; %.3g relaxations/s: "
	         "the factor's %llu arcs, a source each), %s %.1f ms%s, factor up %.1f ms; %llu "
	         "sources a batch, %.2f GiB of device memory",
	         t.device_name, gpus, st_type_name(f->type), t.kernel_ms, t.up_ms, rate,
	         (unsigned long long)t.arcs, stats ? "statistics folded" : "rows down", t.fold_ms,
	         fold, t.upload_ms, (unsigned long long)t.batch, t.device_bytes / 1073741824.0);
	return 0;
}
