/* mtx2bin - import a graph (Matrix Market, DIMACS .gr, edge list; plain,
 * gzip or inside an archive) as a binary matrix stream.
 *
 * The parsers are in lib/graphio/graphio.c, the containers in run/graphin.c. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	        "      --check           parse only: print the summary line, write nothing\n");
	tool_common_help(f, 1);
	fprintf(f, "\nArchives (libarchive): %s.  Exit status: 0 ok, 2 usage, input or I/O error.\n"
	           "See mtx2bin(1) for the formats and the policies.\n",
	        graphin_archives() ? "yes" : "no, only gzip");
}

/* ---- main ---- */

enum { OPT_UNDIRECTED = 0x100, OPT_DIRECTED, OPT_BASE, OPT_MEMBER, OPT_CHECK };

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The edges of a graph read as a list (opts.edges_only) as the matrix
 * would hold them: distinct pairs, loops left out. */
static uint64_t distinct_arcs(const gio_graph *g)
{
	uint64_t *key = malloc((g->nedge ? g->nedge : 1) * sizeof *key), m = 0, distinct = 0;
	if (!key)
		tool_die("out of memory for %zu edges", g->nedge);
	for (size_t k = 0; k < g->nedge; k++)
		if (g->edge[k].u != g->edge[k].v)
			key[m++] = (uint64_t)g->edge[k].u << 32 | g->edge[k].v;
	qsort(key, m, sizeof *key, cmp_u64);
	for (uint64_t k = 0; k < m; k++)
		distinct += k == 0 || key[k] != key[k - 1];
	free(key);
	return distinct;
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
		{0, 0, 0, 0},
	};
	gio_opts o;
	const char *member = NULL;
	int check = 0, c;

	tool_init("mtx2bin", argc, argv);
	gio_opts_init(&o);
	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS "F:w:t:B:", longopts, NULL)) != -1) {
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
		default:
			tool_usage_error("unknown option");
		}
	}
	if (argc - optind > 1)
		tool_usage_error("one input file at most");
	const char *path = optind < argc ? argv[optind] : NULL;
	int out = -1;
	if (!check)
		out = tool_output_open(1); /* refuse a terminal before reading anything */
	o.edges_only = check; /* --check counts: no n x n matrix, whatever n says */

	const int fd = tool_open_input(path);
	char *label;
	gio_graph g;
	graphin_read(fd, path, member, &o, &g, &label);
	st_error err;
	if (check)
		g.edges = distinct_arcs(&g);

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
		st_header h;
		st_header_init(&h, g.n, o.pad, g.type);
		if (h.npad != g.npad)
			tool_die("internal error: padded size %llu, stream says %llu",
			         (unsigned long long)g.npad, (unsigned long long)h.npad);
		h.matrices = ST_WEIGHTS;
		h.flags = g.flags;
		tool_add_provenance(&h);
		if (st_write_all(out, &h, g.w, NULL, NULL, tool_opts.level, tool_threads(), &err) != 0)
			tool_die_st(tool_output_name(), &err);
		st_header_free(&h);
		tool_output_commit();
	}
	gio_graph_free(&g);
	free(label);
	if (fd > 2)
		close(fd);
	return EXIT_OK;
}
