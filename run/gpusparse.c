/* gpusparse.c - apsp-gpu's sparse engine on a GPU (see gpusparse.h). */
#include "common.h"
#include "gpusparse.h"

#include <stdio.h>
#include <stdlib.h>

#include "sparse/fw_sparse.h"
#include "gpuroute.h"
#include "ranks.h"
#include "tool.h"

enum { TAG_SPARSE = 60 };

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

void gpusparse_word(struct gpusparse_dev *d, int what)
{
	if (!d->owed)
		return;
	d->owed = 0;
	d->alone = what != GPUSPARSE_GO;
	ranks_bcast(&what, sizeof what);
}

/* Tests: at most this many sources a batch (several batches on a small
 * graph); 0: as many as fit. */
static uint64_t batch_cap(void)
{
	const char *most = getenv("APSP_SPARSE_BATCH");
	return most ? strtoull(most, NULL, 10) : 0;
}

/* ---- the processes of an MPI run ---- */

static int rank_send(void *ctx, const void *buf, size_t len, int to)
{
	ranks_send(buf, len, to, TAG_SPARSE);
	return 0;
}
static int rank_recv(void *ctx, void *buf, size_t len, int from)
{
	ranks_recv(buf, len, from, TAG_SPARSE);
	return 0;
}
static int rank_least(void *ctx, uint64_t *v)
{
	int64_t x = (int64_t)*v;
	ranks_allreduce(&x, 1, RANKS_MIN);
	*v = (uint64_t)x;
	return 0;
}
static struct fws_ranks run_ranks(void)
{
	return (struct fws_ranks){ranks_rank(), ranks_count(), NULL, rank_send, rank_recv,
	                          rank_least};
}

/* Process 0's factor f to every process: f there, a copy made elsewhere
 * (f NULL). */
static el_factor *factor_shared(const el_factor *f)
{
	uint64_t head[4] = {f ? f->n : 0, f ? f->type : 0, f ? f->first[f->n] : 0,
	                    f ? f->widest : 0};
	ranks_bcast(head, sizeof head);
	const uint64_t n = head[0], E = head[2], es = ST_TYPE_SIZE((uint32_t)head[1]);
	el_factor *g = (el_factor *)f;
	if (!g) {
		g = calloc(1, sizeof *g);
		if (!g || !(g->perm = malloc(n * 4 + 1)) || !(g->pos = malloc(n * 4 + 1))
		    || !(g->first = malloc((n + 1) * 8)) || !(g->upper = malloc(E * 4 + 1))
		    || !(g->up = malloc(E * es + 1)) || !(g->down = malloc(E * es + 1))
		    || !(g->parent = malloc(n * 4 + 1)))
			tool_die("process %d: out of memory for the sparse engine's factor (%.1f MiB)",
			         ranks_rank(), (double)(n * 20 + E * (4 + 2 * es)) / 1048576.0);
		g->n = n, g->type = (uint32_t)head[1], g->widest = head[3];
	}
	ranks_bcast(g->perm, n * 4);
	ranks_bcast(g->pos, n * 4);
	ranks_bcast(g->first, (n + 1) * 8);
	ranks_bcast(g->upper, E * 4);
	ranks_bcast(g->up, E * es);
	ranks_bcast(g->down, E * es);
	ranks_bcast(g->parent, n * 4);
	return g;
}

int gpusparse_follow(struct gpusparse_dev *d)
{
	int what = 0;
	ranks_bcast(&what, sizeof what);
	if (what != GPUSPARSE_GO)
		return what;
	el_factor *f = factor_shared(NULL);
	gs_stats st;
	st_error err;
	if (gs_init(&st, f->n, f->type, &err) < 0)
		tool_die_st(NULL, &err);
	char msg[512];
	fws_plan *plan = fws_plan_make(f, msg, sizeof msg); /* (beside the device's start) */
	if (!plan)
		tool_die("process %d: %s", ranks_rank(), msg);
	gpusparse_end(d);
	if (d->rc < 0 || d->ndevices < 1)
		tool_die("process %d: %s", ranks_rank(), d->ndevices < 1 ? "no device found" : d->err);
	const struct fws_ranks rk = run_ranks();
	struct fws_timing t;
	if (fws_solve_ranks(d->devices, 1, f, plan, &st, batch_cap(), &rk, &t, msg, sizeof msg) < 0)
		tool_die("process %d: %s", ranks_rank(), msg);
	fws_plan_free(plan);
	gs_free(&st);
	el_factor_free(f);
	return what;
}

int gpusparse_rows(void *ctx, const el_factor *f, const el_rowset *rows, gs_stats *stats,
                   el_rows_fn *take, void *take_ctx, char *info, size_t len)
{
	struct gpusparse_dev *d = ctx;
	const int nproc = ranks_count();
	if (d->owed) { /* (an MPI run: the others' batches, or they leave) */
		gpusparse_word(d, stats ? GPUSPARSE_GO : GPUSPARSE_LEAVE);
		if (stats)
			factor_shared(f);
	}
	const double plan0 = lib_now(); /* (the host's part, beside the device's start) */
	fws_plan *plan = fws_plan_make(f, info, len);
	if (!plan)
		return -1;
	const double wait0 = lib_now(), planned = wait0 - plan0;
	gpusparse_end(d);
	const double waited = lib_now() - wait0;
	tool_mark("sparse: the devices ready");
	if (d->rc < 0 || d->ndevices < 1) {
		snprintf(info, len, "%s", d->ndevices < 1 ? "no device found" : d->err);
		fws_plan_free(plan);
		return -1;
	}
	struct fws_timing t;
	const double w0 = lib_now();
	const uint64_t cap = batch_cap();
	const struct fws_ranks rk = run_ranks();
	const int shared = nproc > 1 && !d->alone; /* (the batches the processes') */
	const int rc = shared ? fws_solve_ranks(d->devices, 1, f, plan, stats, cap, &rk, &t, info, len)
	                      : fws_solve(d->devices, d->ndevices, f, plan, rows, stats,
	                                  stats ? NULL : take, take_ctx, cap, &t, info, len);
	fws_plan_free(plan);
	if (rc < 0)
		return -1;
	tool_mark("sparse: the rows made");
	const double rate = t.kernel_ms > 0 ? (double)t.arcs * (double)t.swept / (t.kernel_ms * 1e-3)
	                                    : 0.0;
	const double wall = (lib_now() - w0) * 1e3;
	char fold[64] = "", gpus[96] = "";
	if (stats)
		snprintf(fold, sizeof fold, " (the sources' own figures %.1f ms)", t.fold_out_ms);
	if (d->ndevices > 1) /* (the kernels' times added up over the GPUs) */
		snprintf(gpus, sizeof gpus, " on %d GPUs (the batches taken in turn; %.1f ms wall, "
		         "times below summed)", d->ndevices, wall);
	else if (shared) /* (process 0's own times) */
		snprintf(gpus, sizeof gpus, ", process 0 of %d (the batches taken in turn; %.1f ms "
		         "wall, times below its own)", nproc, wall);
	else if (nproc > 1)
		snprintf(gpus, sizeof gpus, ", process 0 alone of %d (every row made here)", nproc);
	snprintf(info, len, "%s%s, sparse engine: %s: sweeps %.1f ms (up %.1f ms; %.3g relaxations/s: "
	         "the factor's %llu arcs, a source each), %s %.1f ms%s, factor planned %.1f ms "
	         "(beside the device's start), up %.1f ms; %llu sources a batch, %.2f GiB of device "
	         "memory; device wait %.3f s",
	         t.device_name, gpus, st_type_name(f->type), t.kernel_ms, t.up_ms, rate,
	         (unsigned long long)t.arcs,
	         stats ? "statistics folded" : rows && rows->dst ? "the table's columns down" : "rows down",
	         t.fold_ms,
	         fold, planned * 1e3, t.upload_ms, (unsigned long long)t.batch,
	         t.device_bytes / 1073741824.0, waited);
	return 0;
}
