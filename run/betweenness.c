/* betweenness.c - the engines' betweenness (see betweenness.h). */
#include "betweenness.h"

#include <stdlib.h>
#include <string.h>

#include "tool.h"

struct btw_run {
	gs_bc *b;
	uint64_t n;
	int32_t *held; /* rows first .. first + count - 1, room for room */
	uint64_t first, count, room;
	void *dev;        /* the device's (btw_device), or NULL */
	double *partials; /* ... its sums of a batch */
	double kernel_ms;
	uint64_t batches;
};

static const struct btw_device *device;

void btw_use_device(const struct btw_device *d)
{
	device = d;
}

static void progress(void *ctx, uint64_t done, uint64_t sources)
{
	(void)ctx;
	tool_progress("sources' betweenness", done, sources);
}

btw_run *btw_begin(const struct stats_form *form, uint64_t n, uint32_t type, uint64_t count,
                 const uint32_t *from, const uint32_t *to, const void *w, uint64_t stride,
                 int threads)
{
	if (!form || (!form->betweenness && !form->edge_path))
		return NULL;
	const gs_bc_opts o = {.edges = form->edge_path != NULL, .threads = threads,
	                      .progress = progress};
	gs_bc *b;
	uint32_t bad[2];
	st_error err;
	const int rc = !stride ? gs_bc_new(&b, n, type, count, from, to, w, &o, bad, &err)
	                    : gs_bc_new_matrix(&b, n, type, w, stride, &o, bad, &err);
	const unsigned long long u = bad[0] + form->base, v = bad[1] + form->base;
	if (rc == 1)
		tool_die("betweenness: arc %llu -> %llu has a negative weight (the counts of "
		         "shortest paths are made with weights of 0 or more)", u, v);
	if (rc == 2)
		tool_die("betweenness: arc %llu -> %llu lies on a cycle of zero weight (its "
		         "vertices have shortest walks without end, and no count)", u, v);
	if (rc < 0)
		tool_die_st(NULL, &err);
	btw_run *run = calloc(1, sizeof *run);
	if (!run)
		tool_die("betweenness: out of memory");
	run->b = b, run->n = n;
	if (type == ST_INT32 && n && device && !form->edge_path && device->memory > 0) {
		/* every source, or as many as fit */
		uint64_t room = (uint64_t)(device->memory / device->batch_bytes(n, 64)) * 64;
		room = room < (n + 63) / 64 * 64 ? room : (n + 63) / 64 * 64;
		const char *env = getenv("APSP_BETWEENNESS_BATCH"); /* (tests: batches this small) */
		if (env && atoi(env) >= 64 && (uint64_t)atoi(env) / 64 * 64 < room)
			room = (uint64_t)atoi(env) / 64 * 64;
		const uint32_t *arcs;
		uint64_t m;
		const uint64_t *first = gs_bc_graph(b, &arcs, &m);
		char msg[400];
		if (room && device->open(&run->dev, n, first, arcs, m, room, msg, sizeof msg) < 0) {
			tool_info("betweenness on the host's cores: %s", msg);
			run->dev = NULL, room = 0;
		}
		if (room) {
			run->room = room;
			run->held = malloc(room * n * 4 + 1);
			run->partials = malloc((room / 64) * n * sizeof *run->partials + 1);
			if (!run->held || !run->partials)
				tool_die("betweenness: out of memory for %llu rows", (unsigned long long)room);
			return run;
		}
	}
	if (type == ST_INT32 && n) { /* a few chunks a core, in at most 256 MiB */
		const int t = threads > 0 ? threads : tool_threads();
		uint64_t room = (uint64_t)t * 64 * 4;
		if (room * n * 4 > (256u << 20))
			room = ((256u << 20) / (n * 4) + 63) / 64 * 64;
		run->room = room;
		if (!(run->held = malloc(room * n * 4)))
			tool_die("betweenness: out of memory for %llu rows", (unsigned long long)room);
	}
	return run;
}

static void flush(btw_run *r)
{
	st_error err;
	char msg[400];
	if (r->count && r->dev) {
		if (device->rows(r->dev, r->first, r->count, r->held, r->partials, &r->kernel_ms, msg,
		                 sizeof msg) < 0)
			tool_die("%s", msg);
		if (gs_bc_add_partials(r->b, r->first, r->count, r->partials, &err) < 0)
			tool_die_st(NULL, &err);
		r->batches++;
	} else if (r->count && gs_bc_add_rows(r->b, r->first, r->count, r->held, r->n, &err) < 0) {
		tool_die_st(NULL, &err);
	}
	r->first += r->count, r->count = 0;
}

void btw_rows(btw_run *r, uint64_t first, uint64_t count, const void *rows, uint64_t stride)
{
	if (!r || !r->held)
		return;
	for (uint64_t k = 0; k < count; k++) {
		if (r->count == r->room)
			flush(r);
		memcpy(r->held + r->count * r->n, (const int32_t *)rows + k * stride, r->n * 4);
		if (!r->count)
			r->first = first + k;
		r->count++;
	}
}

void btw_end(btw_run *r, const struct stats_form *form, uint32_t flags, gs_betweenness *out,
             struct stats_form *with)
{
	*with = *form;
	memset(out, 0, sizeof *out);
	if (!r)
		return;
	st_error err;
	tool_progress_stage("betweenness");
	if (r->held)
		flush(r);
	if (gs_bc_finish(r->b, out, &err) < 0)
		tool_die_st(NULL, &err);
	gs_bc_free(r->b);
	if (r->dev) {
		tool_info("betweenness on the GPU: %llu batches of up to %llu sources, kernels %.1f ms",
		          (unsigned long long)r->batches, (unsigned long long)r->room, r->kernel_ms);
		device->close(r->dev);
	}
	free(r->held);
	free(r->partials);
	free(r);
	gs_betweenness_scale(out, form->normalized, (flags & ST_DIRECTED) != 0);
	if (form->edge_path)
		stats_write_edges(form->edge_path, out, form->base, flags);
	if (form->betweenness)
		with->bc = out;
}
