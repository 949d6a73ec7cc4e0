/* mtx2bin - import a graph (Matrix Market, DIMACS .gr, edge list; plain,
 * gzip or inside an archive) as a binary matrix stream.
 *
 * The parsers are in lib/graphio/graphio.c, the containers in run/graphin.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arcsout.h"
#include "graphin.h"
#include "stream.h"
#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: mtx2bin [OPTION]... [FILE]\n"
	        "Import a graph as a binary matrix stream of edge weights.\n"
	        "FILE is Matrix Market (.mtx), DIMACS shortest-path (.gr) or an edge list,\n"
	        "plain, gzip-compressed or in an archive (.tar.gz, .zip, ...); none or '-'\n"
	        "reads standard input.\n\n"
	        "  -F, --format FMT      mtx, dimacs or edges (default: detected)\n"
	        "  -w, --weights POLICY  value (default), abs or unit (pattern data: unit)\n"
	        "  -t, --type TYPE       int32, float32 or float64 (default: int32 for\n"
	        "                        integer and pattern data, float32 for real data;\n"
	        "                        float64 keeps every digit a double holds)\n"
	        "      --undirected      mirror every entry (i,j) to (j,i)\n"
	        "      --directed        store only the entries the file lists\n"
	        "  -B, --pad B           pad the matrix to a multiple of B vertices\n"
	        "      --base 0|1        edge lists: the number of the first vertex (default 0)\n"
	        "      --member NAME     the archive member to read (default: NAME/NAME.mtx,\n"
	        "                        NAME being the archive's base name)\n"
	        "  -L, --layout L        auto (default), matrix or arcs: the weights as the\n"
	        "                        n x n matrix, or as a list of arcs (a sparse graph\n"
	        "                        without the matrix); auto: arcs where the matrix\n"
	        "                        would exceed 256 MiB and the arcs take a sixteenth\n"
	        "      --keep-order      with -L arcs: keep the sparse engine's vertex order\n"
	        "                        (nested dissection) in the stream, so that the\n"
	        "                        engines' runs on it need not compute it\n"
	        "      --check           parse only: print the summary line, write nothing\n");
	tool_common_help(f, 1);
	fprintf(f, "\nArchives (libarchive): %s.  Exit status: 0 ok, 2 usage, input or I/O error.\n"
	           "See mtx2bin(1) for the formats and the policies.\n",
	        graphin_archives() ? "yes" : "no, only gzip");
}

/* ---- main ---- */

enum { OPT_UNDIRECTED = 0x100, OPT_DIRECTED, OPT_BASE, OPT_MEMBER, OPT_CHECK, OPT_KEEP_ORDER };

/* The graph read as a list (opts.edges_only) as a list of arcs (each pair
 * once, loops left out but negative ones): malloc'd, *arcs its length;
 * *edges its arcs between distinct vertices, as the matrix counts them. */
static void *list_arcs(const gio_graph *g, uint64_t *arcs, uint64_t *edges)
{
	st_error err;
	void *list = gio_arcs(g, arcs, &err);
	if (!list)
		tool_die_st(NULL, &err);
	const unsigned char *p = list;
	*edges = 0;
	for (uint64_t k = 0; k < *arcs; k++, p += ST_ARC_BYTES(g->type))
		*edges += memcmp(p, p + 4, 4) != 0;
	return list;
}

/* g's weight matrix from the edges read (opts.edges_only), its edges
 * counted as the matrix holds them (finite, off the diagonal). */
static void fill_matrix(gio_graph *g, const gio_opts *o)
{
	st_header h;
	st_header_init(&h, g->n, o->pad, g->type);
	const uint64_t bytes = st_matrix_bytes(&h);
	st_header_free(&h);
	if (!(g->w = malloc(bytes ? (size_t)bytes : 1)))
		tool_die("out of memory for the %llu x %llu matrix", (unsigned long long)g->npad,
		         (unsigned long long)g->npad);
	gio_fill_matrix(g, g->w, tool_threads());
	uint64_t edges = 0;
	const size_t es = ST_TYPE_SIZE(g->type);
	#pragma omp parallel for reduction(+ : edges) num_threads(tool_threads())
	for (uint64_t u = 0; u < g->n; u++) {
		const char *row = (const char *)g->w + u * g->npad * es;
		for (uint64_t v = 0; v < g->n; v++) {
			if (v == u)
				continue;
			edges += g->type == ST_INT32 ? ((const int32_t *)row)[v] < ST_INF_I32
			       : g->type == ST_FLOAT32 ? ((const float *)row)[v] < INFINITY
			                             : ((const double *)row)[v] < INFINITY;
		}
	}
	g->edges = edges;
}

/* The stream of g: its matrix (made here from the list where g was read as
 * one), or its list of arcs (and keep_order: the sparse engine's order). */
static void write_graph(int out, gio_graph *g, const gio_opts *o, void *list, uint64_t arcs,
                        int keep_order)
{
	st_error err;
	st_header h;
	st_header_init(&h, g->n, o->pad, g->type);
	if (h.npad != g->npad)
		tool_die("internal error: padded size %llu, stream says %llu",
		         (unsigned long long)g->npad, (unsigned long long)h.npad);
	h.flags = g->flags;
	h.matrices = list ? ST_ARCS : ST_WEIGHTS;
	h.arcs = list ? arcs : 0;
	tool_add_provenance(&h);
	if (list) {
		arcsout_write(out, &h, list, keep_order);
	} else {
		if (!g->w)
			fill_matrix(g, o);
		if (st_write_all(out, &h, g->w, NULL, NULL, tool_opts.level, tool_threads(), &err) != 0)
			tool_die_st(tool_output_name(), &err);
	}
	st_header_free(&h);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{"format", required_argument, 0, 'F'},
		{"weights", required_argument, 0, 'w'},
		{"type", required_argument, 0, 't'},
		{"pad", required_argument, 0, 'B'},
		{"undirected", no_argument, 0, OPT_UNDIRECTED},
		{"directed", no_argument, 0, OPT_DIRECTED},
		{"base", required_argument, 0, OPT_BASE},
		{"member", required_argument, 0, OPT_MEMBER},
		{"check", no_argument, 0, OPT_CHECK},
		{"layout", required_argument, 0, 'L'},
		{"keep-order", no_argument, 0, OPT_KEEP_ORDER},
		{0, 0, 0, 0},
	};
	gio_opts o;
	const char *member = NULL;
	int check = 0, layout = LAYOUT_AUTO, keep_order = 0, c;

	tool_init("mtx2bin", argc, argv);
	gio_opts_init(&o);
	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS "F:w:t:B:L:", longopts, NULL)) != -1) {
		if (tool_common_option(c, optarg, usage))
			continue;
		switch (c) {
		case 'F':
			o.format = gio_format_parse(optarg);
			if (o.format < 0)
				tool_usage_error("-F: unknown format '%s' (mtx, dimacs or edges)", optarg);
			break;
		case 'w':
			if (!strcmp(optarg, "value"))
				o.weights = GIO_VALUE;
			else if (!strcmp(optarg, "abs"))
				o.weights = GIO_ABS;
			else if (!strcmp(optarg, "unit"))
				o.weights = GIO_UNIT;
			else
				tool_usage_error("-w: unknown weight policy '%s' (value, abs or unit)", optarg);
			break;
		case 't':
			if (!strcmp(optarg, "int32"))
				o.type = ST_INT32;
			else if (!strcmp(optarg, "float32"))
				o.type = ST_FLOAT32;
			else if (!strcmp(optarg, "float64"))
				o.type = ST_FLOAT64;
			else
				tool_usage_error("-t: unknown type '%s' (int32, float32 or float64)", optarg);
			break;
		case 'B':
			o.pad = (uint64_t)tool_parse_ll("-B", optarg, 1, 1 << 20);
			break;
		case OPT_UNDIRECTED:
			o.symmetry = GIO_UNDIRECTED;
			break;
		case OPT_DIRECTED:
			o.symmetry = GIO_DIRECTED;
			break;
		case OPT_BASE:
			o.base = (int)tool_parse_ll("--base", optarg, 0, 1);
			break;
		case OPT_MEMBER:
			member = optarg;
			break;
		case OPT_CHECK:
			check = 1;
			break;
		case 'L':
			layout = arcsout_parse_layout(optarg);
			break;
		case OPT_KEEP_ORDER:
			keep_order = 1;
			break;
		default:
			tool_usage_error("unknown option");
		}
	}
	if (argc - optind > 1)
		tool_usage_error("one input file at most");
	arcsout_check_keep(keep_order, layout);
	const char *path = optind < argc ? argv[optind] : NULL;
	int out = -1;
	if (!check)
		out = tool_output_open(1); /* refuse a terminal before reading anything */
	/* --check counts, and the layout is chosen, from the list of edges: no
	 * n x n matrix until the matrix is chosen */
	o.edges_only = check || layout != LAYOUT_MATRIX;

	const int fd = tool_open_input(path);
	char *label;
	gio_graph g;
	graphin_read(fd, path, member, &o, &g, &label);
	void *list = NULL;
	uint64_t arcs = 0;
	/* A matrix too small for the list ever to be chosen is filled from the
	 * edges as read: no sort (the list's order) is needed for it. */
	const int matrix_sure = layout == LAYOUT_AUTO
	                        && !arcsout_chosen(layout, g.npad, g.type, 0);
	if (o.edges_only && !matrix_sure)
		list = list_arcs(&g, &arcs, &g.edges);
	else if (o.edges_only)
		fill_matrix(&g, &o);

	char summary[512];
	snprintf(summary, sizeof summary, "%s: %llu vertices, %llu entries, %llu edges, %s, %s, %s%s",
	         label, (unsigned long long)g.n, (unsigned long long)g.entries,
	         (unsigned long long)g.edges, g.kind, st_type_name(g.type),
	         g.flags & ST_DIRECTED ? "directed" : "undirected",
	         g.flags & ST_NEGATIVE ? ", negative weights" : "");
	if (check) {
		printf("%s\n", summary);
	} else {
		tool_info("%s", summary);
		if ((g.flags & (ST_DIRECTED | ST_NEGATIVE)) == ST_NEGATIVE && g.edges > 0)
			tool_warn("%s: warning: an undirected graph with negative weights: each "
			          "negative edge is a negative cycle (see --weights abs or unit)",
			          tool_input_name(path));
		if (list && !arcsout_chosen(layout, g.npad, g.type, arcs)) {
			free(list);
			list = NULL;
		}
		tool_info("written as %s", list ? "a list of arcs" : "the weight matrix");
		write_graph(out, &g, &o, list, arcs, keep_order);
		tool_output_commit();
	}
	free(list);
	gio_graph_free(&g);
	free(label);
	if (fd > 2)
		close(fd);
	return EXIT_OK;
}
