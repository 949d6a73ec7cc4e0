/* betweenness.c - the engines' betweenness (see betweenness.h). */
#include "betweenness.h"

#include <string.h>

#include "tool.h"

static void progress(void *ctx, uint64_t done, uint64_t sources)
{
	(void)ctx;
	tool_progress("sources' betweenness", done, sources);
}

gs_bc *btw_begin(const struct stats_form *form, uint64_t n, uint32_t type, uint64_t count,
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
	return b;
}

void btw_rows(gs_bc *b, uint64_t first, uint64_t count, const void *rows, uint64_t stride)
{
	st_error err;
	if (b && gs_bc_add_rows(b, first, count, rows, stride, &err) < 0)
		tool_die_st(NULL, &err);
}

void btw_end(gs_bc *b, const struct stats_form *form, uint32_t flags, gs_betweenness *out,
             struct stats_form *with)
{
	*with = *form;
	memset(out, 0, sizeof *out);
	if (!b)
		return;
	st_error err;
	tool_progress_stage("betweenness");
	if (gs_bc_finish(b, out, &err) < 0)
		tool_die_st(NULL, &err);
	gs_bc_free(b);
	gs_betweenness_scale(out, form->normalized, (flags & ST_DIRECTED) != 0);
	if (form->edge_path)
		stats_write_edges(form->edge_path, out, form->base, flags);
	if (form->betweenness)
		with->bc = out;
}
