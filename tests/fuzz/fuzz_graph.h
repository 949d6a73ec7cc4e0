/* fuzz_graph.h - the text readers on arbitrary bytes, one format per target
 * (fuzz_mtx.c, fuzz_dimacs.c, fuzz_edges.c).
 *
 * Input: two option bytes, then the file's text.  The options pick the weight
 * policy, element type, symmetry, base, padding and dense or edge output.
 * The text is parsed from one buffer and again through a reader callback that
 * hands it out in small pieces; both must give the same graph or the same
 * error.  An accepted graph must keep the library's promises: 0 or a
 * negative self-loop on the diagonal, unreachable padding, finite values
 * inside (-ST_INF_I32, ST_INF_I32), an edge count that matches the matrix. */
#include <math.h>

#include "fuzz.h"
#include "graphio.h"
#include "../unit/t.h" /* t_dribble_read */

static void check_graph(const gio_graph *g, const gio_opts *o)
{
	FUZZ_ASSERT(g->n <= g->npad && g->npad < ST_MAX_N);
	FUZZ_ASSERT(g->npad % o->pad == 0 && g->npad - g->n < o->pad);
	FUZZ_ASSERT(g->type == ST_INT32 || g->type == ST_FLOAT32);
	FUZZ_ASSERT(!(g->flags & ~(uint32_t)(ST_DIRECTED | ST_NEGATIVE)));
	if (o->edges_only) {
		for (size_t e = 0; e < g->nedge; e++)
			FUZZ_ASSERT(g->edge[e].u < g->n && g->edge[e].v < g->n && !isnan(g->edge[e].w));
		return;
	}
	uint64_t n = g->n, np = g->npad, finite = 0;
	FUZZ_ASSERT(np == 0 || g->w);
	for (uint64_t i = 0; i < np; i++) {
		for (uint64_t j = 0; j < np; j++) {
			int pad = i >= n || j >= n;
			if (g->type == ST_INT32) {
				int32_t v = ((const int32_t *)g->w)[i * np + j];
				FUZZ_ASSERT(v == ST_INF_I32 || (v > -ST_INF_I32 && v < ST_INF_I32));
				if (i == j)
					FUZZ_ASSERT(v <= 0 && (!pad || v == 0) && (v == 0 || (g->flags & ST_NEGATIVE)));
				else if (pad)
					FUZZ_ASSERT(v == ST_INF_I32);
				else if (v != ST_INF_I32)
					finite++;
				if (v < 0)
					FUZZ_ASSERT(g->flags & ST_NEGATIVE);
			} else {
				float v = ((const float *)g->w)[i * np + j];
				FUZZ_ASSERT(!isnan(v) && v != -INFINITY);
				if (i == j)
					FUZZ_ASSERT(v <= 0 && (!pad || v == 0));
				else if (pad)
					FUZZ_ASSERT(v == INFINITY);
				else if (v != INFINITY)
					finite++;
				if (v < 0)
					FUZZ_ASSERT(g->flags & ST_NEGATIVE);
			}
		}
	}
	FUZZ_ASSERT(finite == g->edges);
}

static int same_graph(const gio_graph *a, const gio_graph *b, const gio_opts *o)
{
	if (a->n != b->n || a->npad != b->npad || a->type != b->type || a->flags != b->flags
	    || a->entries != b->entries || a->edges != b->edges || a->negative != b->negative
	    || strcmp(a->kind, b->kind) != 0)
		return 0;
	if (o->edges_only)
		return a->nedge == b->nedge
		       && (!a->nedge || memcmp(a->edge, b->edge, a->nedge * sizeof *a->edge) == 0);
	return a->npad == 0 || memcmp(a->w, b->w, a->npad * a->npad * 4) == 0;
}

static int fuzz_graph(const uint8_t *data, size_t size, int format)
{
	static const uint64_t pads[4] = {1, 1, 4, 16};
	if (size < 2)
		return 0;
	gio_opts o;
	gio_opts_init(&o);
	o.format = format;
	o.weights = data[0] % 3;                  /* value, abs, unit */
	o.type = (uint32_t)(data[0] / 3 % 3);     /* from the data, int32, float32 */
	o.symmetry = data[0] / 9 % 3;             /* from the file, directed, undirected */
	o.base = data[0] / 27 % 2;
	o.pad = pads[data[1] & 3];
	o.edges_only = (data[1] >> 2) & 1;
	size_t step = 1 + (data[1] >> 3);         /* 1..32 bytes a read */
	data += 2, size -= 2;

	gio_graph a, b;
	st_error ea = {{0}}, eb = {{0}};
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	int ra = gio_read_buffer("fuzz", data, size, &o, &a, &ea);
	struct t_dribble d = {data, size, step};
	int rb = gio_read("fuzz", t_dribble_read, &d, &o, &b, &eb);
	if (ra < 0)
		fuzz_check_message("gio_read_buffer", &ea);
	if (rb < 0)
		fuzz_check_message("gio_read", &eb);
	if ((ra < 0) != (rb < 0) || (ra < 0 && strcmp(ea.msg, eb.msg) != 0)) {
		fprintf(stderr, "whole buffer: %d %s\n%zu-byte reads: %d %s\n", ra,
		        ra < 0 ? ea.msg : "ok", step, rb, rb < 0 ? eb.msg : "ok");
		abort();
	}
	if (ra == 0) {
		check_graph(&a, &o);
		FUZZ_ASSERT(same_graph(&a, &b, &o));
	}
	gio_graph_free(&a);
	gio_graph_free(&b);
	(void)gio_detect("fuzz.txt", data, size);
	return 0;
}
