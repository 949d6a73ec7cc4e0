/* arcsout.c - see arcsout.h. */
#include <stdlib.h>
#include <string.h>

#include "arcsout.h"
#include "order.h"
#include "tool.h"

int arcsout_parse_layout(const char *arg)
{
	if (!strcmp(arg, "auto"))
		return LAYOUT_AUTO;
	if (!strcmp(arg, "matrix"))
		return LAYOUT_MATRIX;
	if (!strcmp(arg, "arcs"))
		return LAYOUT_ARCS;
	tool_usage_error("--layout: unknown layout '%s' (auto, matrix or arcs)", arg);
}

int arcsout_chosen(int layout, uint64_t npad, uint32_t type, uint64_t arcs)
{
	if (layout != LAYOUT_AUTO)
		return layout == LAYOUT_ARCS;
	const double matrix = (double)npad * (double)npad * ST_TYPE_SIZE(type);
	return matrix > (double)LAYOUT_AUTO_MATRIX
	       && (double)arcs * ST_ARC_BYTES(type) * 16 <= matrix;
}

void arcsout_check_keep(int keep_order, int layout)
{
	if (!keep_order)
		return;
	if (layout != LAYOUT_ARCS)
		tool_usage_error("--keep-order keeps the order beside a list of arcs: give --layout arcs");
	if (!ord_available())
		tool_usage_error("--keep-order: no nested dissection in this build (METIS)");
}

/* The order the sparse engine would make for the list (n vertices). */
static int32_t *engine_order(const st_header *h, const unsigned char *list)
{
	st_error err;
	const size_t rec = ST_ARC_BYTES(h->type);
	uint32_t *from = malloc((h->arcs + 1) * sizeof *from), *to = malloc((h->arcs + 1) * sizeof *to);
	int32_t *perm = malloc((h->n + 1) * sizeof *perm);
	if (!from || !to || !perm)
		tool_die("out of memory for the order of %llu vertices", (unsigned long long)h->n);
	for (uint64_t k = 0; k < h->arcs; k++) {
		memcpy(&from[k], list + k * rec, 4);
		memcpy(&to[k], list + k * rec + 4, 4);
	}
	tool_progress_stage("ordering the vertices");
	if (ord_split_dissection_arcs(h->n, h->arcs, from, to, perm, tool_threads(), &err) < 0)
		tool_die_st(NULL, &err);
	free(from);
	free(to);
	return perm;
}

void arcsout_write(int out, st_header *h, const void *list, int keep_order)
{
	st_error err;
	int32_t *order = keep_order ? engine_order(h, list) : NULL;
	if (order)
		h->matrices |= ST_ORDER;
	st_writer *w = st_writer_open(out, h, tool_opts.level, tool_threads(), &err);
	if (!w || st_write_matrix(w, list, &err) < 0 || (order && st_write_matrix(w, order, &err) < 0)
	    || st_writer_close(w, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	free(order);
}
