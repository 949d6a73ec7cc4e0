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
};

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
	if (r->count && gs_bc_add_rows(r->b, r->first, r->count, r->held, r->n, &err) < 0)
		tool_die_st(NULL, &err);
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
	free(r->held);
	free(r);
	gs_betweenness_scale(out, form->normalized, (flags & ST_DIRECTED) != 0);
	if (form->edge_path)
		stats_write_edges(form->edge_path, out, form->base, flags);
	if (form->betweenness)
		with->bc = out;
}
