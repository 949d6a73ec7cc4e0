/* betweenness.c - the engines' betweenness (see betweenness.h). */
#include "betweenness.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

struct btw_run {
	gs_bc *b;
	int32_t *held; /* rows first .. first + count - 1, room for room */
	uint64_t first, count, room;
	struct btw_slot {  /* each device's (btw_device): its context, */
		void *ctx;
		uint64_t first, count; /* ... the batch put there and not yet taken */
	} *dev;            /* or NULL */
	int devs, cur;     /* ... the one whose room is held */
	double kernel_ms;
	uint64_t batches;
	struct btw_args {  /* btw_begin's, for a run begun on a thread */
		const struct stats_form *form;
		uint64_t n, count, stride;
		uint32_t type;
		const uint32_t *from, *to;
		const void *w;
		int threads;
	} args;
	pthread_t thread;  /* btw_begin_beside's, */
	int beside;        /* ... not yet joined (by the one thread that hands rows over), */
	char why[512];     /* ... and why it failed ("": it did not) */
};

static struct btw_device *device;

/* Sources enough to keep a device busy (an H200 holds about 5000 warps of
 * the betweenness kernel at once, a warp a source). */
#define BTW_FILLS 4096

void btw_use_device(struct btw_device *d)
{
	device = d;
}

static void progress(void *ctx, uint64_t done, uint64_t sources)
{
	(void)ctx;
	tool_progress("sources' betweenness", done, sources);
}

/* The sources dealt to the devices, a batch each in turn, as many as fit
 * (each a multiple of 64): 1, 0 where they do not take them, -1 with
 * run->why. */
static int on_devices(btw_run *run, uint64_t n)
{
	if (device->ready)
		device->ready(device);
	if (device->devices < 1) {
		tool_info("betweenness on the host's cores: no GPU");
		return 0;
	}
	const int devs = device->devices;
	const uint64_t all = (n + 63) / 64 * 64;
	uint64_t each = ((n + devs - 1) / devs + 63) / 64 * 64;
	if (each >= 2 * BTW_FILLS) /* two batches a device: the host fills one as it sums the other */
		each = (each / 2 + 63) / 64 * 64;
	/* and at most twice what fills one: a room is pinned host memory, made
	 * while the engine uploads (two H200, n = 100000 at 1%: rooms of 25024
	 * sources, 10 GB each, held the upload to 16.7 s and the run to 82 s;
	 * of 8192, 4.6 s and 52 s, the sums' kernels 27.9 s against 25.7 s) */
	if (each > 2 * BTW_FILLS)
		each = 2 * BTW_FILLS;
	uint64_t room = device->memory > 0
	                ? (uint64_t)(device->memory / device->batch_bytes(n, 64)) * 64 : 0;
	room = room < each ? room : each;
	const char *env = getenv("APSP_BETWEENNESS_BATCH"); /* (tests: batches this small) */
	if (env && atoi(env) >= 64 && (uint64_t)atoi(env) / 64 * 64 < room)
		room = (uint64_t)atoi(env) / 64 * 64;
	if (!room) {
		tool_info("betweenness on the host's cores: the GPU has no room for 64 sources");
		return 0;
	}
	const uint32_t *arcs;
	uint64_t m;
	const uint64_t *first = gs_bc_graph(run->b, &arcs, &m);
	char msg[400];
	if (!(run->dev = calloc((size_t)devs, sizeof *run->dev))) {
		snprintf(run->why, sizeof run->why, "betweenness: out of memory");
		return -1;
	}
	int d = 0;
	for (; d < devs && (uint64_t)d * room < all; d++)
		if (device->open(&run->dev[d].ctx, d, n, first, arcs, m, room, msg, sizeof msg) < 0)
			break;
	if (d < devs && (uint64_t)d * room < all) {
		tool_info("betweenness on the host's cores: %s", msg);
		while (d-- > 0)
			device->close(run->dev[d].ctx);
		free(run->dev);
		run->dev = NULL;
		return 0;
	}
	run->devs = d, run->room = room;
	if (!(run->held = device->room(run->dev[0].ctx, msg, sizeof msg))) {
		snprintf(run->why, sizeof run->why, "%s", msg);
		return -1;
	}
	tool_mark("betweenness: the devices ready");
	return 1;
}

/* The accumulator of run->args's graph, and where its rows go: 0, or -1
 * with run->why (nothing here dies: a run begun beside is on a thread). */
static int begin(btw_run *run)
{
	const struct btw_args *a = &run->args;
	const gs_bc_opts o = {.edges = a->form->edge_path != NULL, .threads = a->threads,
	                      .progress = progress};
	gs_bc *b;
	uint32_t bad[2];
	st_error err;
	const int rc = !a->stride
	               ? gs_bc_new(&b, a->n, a->type, a->count, a->from, a->to, a->w, &o, bad, &err)
	               : gs_bc_new_matrix(&b, a->n, a->type, a->w, a->stride, &o, bad, &err);
	const unsigned long long u = bad[0] + a->form->base, v = bad[1] + a->form->base;
	if (rc != 0) {
		if (rc == 1)
			snprintf(run->why, sizeof run->why, "betweenness: arc %llu -> %llu has a negative "
			         "weight (the counts of shortest paths are made with weights of 0 or "
			         "more)", u, v);
		else if (rc == 2)
			snprintf(run->why, sizeof run->why, "betweenness: arc %llu -> %llu lies on a cycle "
			         "of zero weight (its vertices have shortest walks without end, and no "
			         "count)", u, v);
		else
			snprintf(run->why, sizeof run->why, "%s", err.msg);
		return -1;
	}
	tool_mark("betweenness: the graph made");
	const uint64_t n = a->n;
	run->b = b;
	if (a->type == ST_INT32 && n && device && !a->form->edge_path) {
		const int on = on_devices(run, n);
		if (on)
			return on > 0 ? 0 : -1;
	}
	if (a->type == ST_INT32 && n) { /* a few chunks a core, in at most 256 MiB */
		const int t = a->threads > 0 ? a->threads : tool_threads();
		uint64_t room = (uint64_t)t * 64 * 4;
		if (room * n * 4 > (256u << 20))
			room = ((256u << 20) / (n * 4) + 63) / 64 * 64;
		run->room = room;
		if (!(run->held = malloc(room * n * 4))) {
			snprintf(run->why, sizeof run->why, "betweenness: out of memory for %llu rows",
			         (unsigned long long)room);
			return -1;
		}
	}
	return 0;
}

static btw_run *new_run(const struct stats_form *form, uint64_t n, uint32_t type,
                        uint64_t count, const uint32_t *from, const uint32_t *to,
                        const void *w, uint64_t stride, int threads)
{
	if (!form || (!form->betweenness && !form->edge_path))
		return NULL;
	btw_run *run = calloc(1, sizeof *run);
	if (!run)
		tool_die("betweenness: out of memory");
	run->args = (struct btw_args){form, n, count, stride, type, from, to, w, threads};
	return run;
}

btw_run *btw_begin(const struct stats_form *form, uint64_t n, uint32_t type, uint64_t count,
                 const uint32_t *from, const uint32_t *to, const void *w, uint64_t stride,
                 int threads)
{
	btw_run *run = new_run(form, n, type, count, from, to, w, stride, threads);
	if (run && begin(run) < 0)
		tool_die("%s", run->why);
	return run;
}

static void *begin_thread(void *arg)
{
	begin(arg); /* (its failure in run->why, for settle) */
	return NULL;
}

btw_run *btw_begin_beside(const struct stats_form *form, uint64_t n, uint32_t type,
                          const void *w, uint64_t stride, int threads)
{
	btw_run *run = new_run(form, n, type, 0, NULL, NULL, w, stride, threads);
	if (!run)
		return NULL;
	run->beside = pthread_create(&run->thread, NULL, begin_thread, run) == 0;
	if (!run->beside && begin(run) < 0)
		tool_die("%s", run->why);
	return run;
}

/* A run begun beside: joined, once; where it failed, dies saying why. */
static void settle(btw_run *r)
{
	if (!r->beside)
		return;
	pthread_join(r->thread, NULL);
	r->beside = 0;
	if (r->why[0])
		tool_die("%s", r->why);
}

/* Device d's batch waited for, its sums added. */
static void take(btw_run *r, int d)
{
	struct btw_slot *x = &r->dev[d];
	st_error err;
	char msg[400];
	if (!x->count)
		return;
	const double *partials = device->take(x->ctx, &r->kernel_ms, msg, sizeof msg);
	if (!partials)
		tool_die("%s", msg);
	if (gs_bc_add_partials(r->b, x->first, x->count, partials, &err) < 0)
		tool_die_st(NULL, &err);
	x->count = 0;
}

/* The rows held: to the device whose room they fill (its last batch, the
 * oldest out, taken first), the next one's room held next (filled while
 * the devices work); or summed on the host's cores. */
static void flush(btw_run *r)
{
	st_error err;
	char msg[400];
	if (r->count && r->dev) {
		struct btw_slot *x = &r->dev[r->cur];
		take(r, r->cur);
		if (device->put(x->ctx, r->first, r->count, msg, sizeof msg) < 0)
			tool_die("%s", msg);
		x->first = r->first, x->count = r->count;
		r->batches++;
		r->cur = (r->cur + 1) % r->devs;
		if (!(r->held = device->room(r->dev[r->cur].ctx, msg, sizeof msg)))
			tool_die("%s", msg);
	} else if (r->count && gs_bc_add_rows(r->b, r->first, r->count, r->held, r->args.n, &err) < 0) {
		tool_die_st(NULL, &err);
	}
	r->first += r->count, r->count = 0;
}

void btw_rows(btw_run *r, uint64_t first, uint64_t count, const void *rows, uint64_t stride)
{
	if (!r)
		return;
	settle(r);
	if (!r->held)
		return;
	for (uint64_t k = 0; k < count; k++) {
		if (r->count == r->room)
			flush(r);
		memcpy(r->held + r->count * r->args.n, (const int32_t *)rows + k * stride, r->args.n * 4);
		if (!r->count)
			r->first = first + k;
		r->count++;
	}
}

void btw_print(btw_run *r, FILE *out, const gs_stats *st, const struct stats_form *form,
               uint32_t flags)
{
	if (!r) {
		stats_print(out, st, form, flags);
		return;
	}
	gs_betweenness values;
	settle(r);
	st_error err;
	tool_progress_stage("betweenness");
	if (r->held)
		flush(r);
	for (int i = 0; i < r->devs; i++) /* the batches still out, in the order put */
		take(r, (r->cur + i) % r->devs);
	tool_mark("betweenness: the sources summed");
	if (gs_bc_finish(r->b, &values, &err) < 0)
		tool_die_st(NULL, &err);
	gs_bc_free(r->b);
	if (r->dev) {
		tool_info("betweenness on %d GPU%s: %llu batches of up to %llu sources, kernels %.1f "
		          "ms%s", r->devs, r->devs > 1 ? "s" : "", (unsigned long long)r->batches,
		          (unsigned long long)r->room, r->kernel_ms,
		          r->devs > 1 ? " (the GPUs' added)" : "");
		for (int d = 0; d < r->devs; d++)
			device->close(r->dev[d].ctx);
		free(r->dev);
	} else {
		free(r->held);
	}
	free(r);
	gs_betweenness_scale(&values, form->normalized, (flags & ST_DIRECTED) != 0);
	if (form->edge_path)
		stats_write_edges(form->edge_path, &values, form->base, flags);
	struct stats_form with = *form;
	if (form->betweenness)
		with.bc = &values;
	stats_print(out, st, &with, flags);
	gs_betweenness_free(&values);
}
