/* apsp-diff - compare the distances of two result streams, or certify
 * results against the graph they came from.
 *
 *   apsp-diff A B              distances of A and B, like cmp(1)
 *   apsp-diff --graph G A [B]  A's (and B's) distances are exactly the
 *                              shortest of G, and each predecessor chain a
 *                              path of G of that weight (run/certificate.h);
 *                              with B, the distances agree too
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream.h"
#include "certificate.h"
#include "graphin.h"
#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: %s [options] A B\n"
	        "       %s [options] --graph G A [B]\n"
	        "Compare the distances of two result streams A and B (apsp-cpu, apsp-gpu),\n"
	        "or certify A (and B) against the graph G: every distance is exactly the\n"
	        "shortest (no arc of G gives less, and a path of G weighs it) and every\n"
	        "predecessor chain is such a path.\n"
	        "\n"
	        "  -g, --graph G         certify against the graph G (a stream of weights or\n"
	        "                        arcs, or text as the engines read it)\n"
	        "  -n, --max-diffs N     print at most N differences (default 10)\n"
	        "  -t, --tolerance X     float32 and float64: equal when\n"
	        "                        |a - b| <= X * max(1, |a|, |b|) (default 1e-5;\n"
	        "                        1e-12 where both are float64); int32 must be equal\n"
	        "  -o, --output FILE     write the report to FILE (replaced only when\n"
	        "                        complete), not stdout\n"
	        "  -T, --threads N       use N threads (default 0: all cores)\n"
	        "  -q, --quiet           print nothing, only the exit status\n"
	        "  -v, --verbose         say more\n"
	        "  -h, --help            print this help and exit\n"
	        "  -V, --version         print the version and exit\n"
	        "\n"
	        "Exit status: 0 equal (and every result certified), 1 different (or a\n"
	        "result not shortest), 2 trouble (usage, input, I/O, sizes that do not match),\n"
	        "3 a result records a negative cycle.\n",
	        tool_name(), tool_name());
}

/* Where the report goes: -o FILE or standard output (tool_output_fopen). */
static FILE *report;

/* The rows (or columns) a result holds: every vertex's in order, or those
 * of a list (a result of some rows' sources, a table's targets). */
struct axis {
	const uint32_t *list; /* NULL: every vertex */
	uint64_t count;       /* the list's length, or n */
	int64_t *at;          /* a list's: vertex -> its place, or -1 */
};

struct result {
	const char *name;
	st_matrices m;
	struct axis rows, cols;
};

/* The axis of list (count of them; NULL: n vertices in order). */
static struct axis axis_of(const struct result *r, const uint32_t *list, uint64_t count)
{
	const uint64_t n = r->m.h.n;
	struct axis a = {list, list ? count : n, NULL};
	if (!list)
		return a;
	if (!(a.at = malloc((n ? n : 1) * sizeof *a.at)))
		tool_die("%s: out of memory for its rows", r->name);
	for (uint64_t v = 0; v < n; v++)
		a.at[v] = -1;
	for (uint64_t i = 0; i < count; i++)
		a.at[list[i]] = (int64_t)i;
	return a;
}

/* The rows of r by vertex, and its columns (a table's targets, else every
 * vertex). */
static void index_rows(struct result *r)
{
	r->rows = axis_of(r, r->m.sources, r->m.h.rows);
	r->cols = axis_of(r, r->m.targets, r->m.h.cols);
}

/* Vertex v's place on axis a, or -1. */
static int64_t place_of(const struct axis *a, uint64_t v)
{
	return a->at ? a->at[v] : (int64_t)v;
}

/* The vertex at place k of axis a. */
static uint64_t vertex_at(const struct axis *a, uint64_t k)
{
	return a->list ? a->list[k] : k;
}

/* Entries from one row to the next. */
static uint64_t stride(const struct result *r)
{
	return r->cols.list ? r->cols.count : r->m.h.npad;
}

/* A stream, or (for --graph) a graph as text, read as the engines read it. */
static void load(struct result *r, const char *path, int threads)
{
	st_error err;
	tool_refuse_terminal_input(path);
	int fd = tool_open_input(path);
	r->name = tool_input_name(path);
	if (graphin_is_text(fd)) {
		gio_opts o;
		gio_graph g;
		char *label;
		gio_opts_init(&o);
		graphin_read(fd, path, NULL, &o, &g, &label);
		free(label);
		memset(&r->m, 0, sizeof r->m);
		st_header_init(&r->m.h, g.n, 1, g.type);
		r->m.h.matrices = ST_WEIGHTS;
		r->m.h.flags = g.flags;
		r->m.weights = g.w; /* (the graph's matrix, now the result's to free) */
		g.w = NULL;
		gio_graph_free(&g);
	} else if (st_read_all(fd, r->name, threads, &r->m, &err) < 0) {
		tool_die_st(NULL, &err);
	} else if (r->m.arcs) { /* a graph as a list of arcs: its matrix */
		gio_graph g;
		if (gio_from_arcs(&r->m.h, r->m.arcs, &g, &err) < 0)
			tool_die_st(NULL, &err);
		const uint64_t bytes = st_matrix_bytes(&r->m.h);
		if (!(r->m.weights = malloc(bytes ? bytes : 1)))
			tool_die("%s: out of memory for the %llu x %llu weight matrix", r->name,
			         (unsigned long long)r->m.h.npad, (unsigned long long)r->m.h.npad);
		gio_fill_matrix(&g, r->m.weights, threads);
		gio_graph_free(&g);
		free(r->m.arcs);
		r->m.arcs = NULL;
		r->m.h.matrices = ST_WEIGHTS;
		r->m.h.arcs = 0;
	}
	if (fd != 0)
		close(fd);
}

/* Distance of entry k as a double; +inf when unreachable. */
static double value(const st_header *h, const void *m, size_t k)
{
	if (h->type == ST_INT32) {
		int32_t x = ((const int32_t *)m)[k];
		return x >= ST_INF_I32 ? INFINITY : x <= -ST_INF_I32 ? -INFINITY : (double)x;
	}
	if (h->type == ST_FLOAT32)
		return ((const float *)m)[k];
	return ((const double *)m)[k];
}

static void print_value(FILE *f, double x)
{
	if (isinf(x))
		fputs(x > 0 ? "inf" : "-inf", f);
	else
		fprintf(f, "%.17g", x);
}

/* Every row (cols: column) of few is one more holds too, or die naming the
 * vertex; -v says how many are compared where they differ in number. */
static void held_by_both(const struct result *few, const struct result *more, int cols,
                         int fewer)
{
	const struct axis *f = cols ? &few->cols : &few->rows, *m = cols ? &more->cols : &more->rows;
	for (uint64_t k = 0; k < f->count; k++)
		if (place_of(m, vertex_at(f, k)) < 0)
			tool_die("%s holds the %s of vertex %llu, %s does not (%s)", few->name,
			         cols ? "column" : "row", (unsigned long long)vertex_at(f, k), more->name,
			         cols ? "a table: --targets" : "a result of some rows: --rows, --sources");
	if (fewer && tool_opts.verbose > 0)
		fprintf(report, "the %llu %s of %s compared\n", (unsigned long long)f->count,
		        cols ? "columns" : "rows", few->name);
}

static int compare(const struct result *a, const struct result *b, double tol, long maxdiffs)
{
	const st_header *ha = &a->m.h, *hb = &b->m.h;
	uint64_t pairs = 0, differ = 0, unreach = 0;
	double maxabs = 0, maxrel = 0;
	long shown = 0;
	int exact = ha->type == ST_INT32 && hb->type == ST_INT32;
	/* the rows of the one with fewer: each must be in the other; the same
	 * for the columns of a table */
	const struct result *few = b->rows.count < a->rows.count ? b : a;
	const struct result *fewc = b->cols.count < a->cols.count ? b : a;
	held_by_both(few, few == a ? b : a, 0, a->rows.count != b->rows.count);
	held_by_both(fewc, fewc == a ? b : a, 1, a->cols.count != b->cols.count);

	for (uint64_t k = 0; k < few->rows.count; k++) {
		const uint64_t i = vertex_at(&few->rows, k);
		const uint64_t ia = (uint64_t)place_of(&a->rows, i), ib = (uint64_t)place_of(&b->rows, i);
		for (uint64_t c = 0; c < fewc->cols.count; c++) {
			const uint64_t j = vertex_at(&fewc->cols, c);
			double x = value(ha, a->m.dist, ia * stride(a) + (uint64_t)place_of(&a->cols, j));
			double y = value(hb, b->m.dist, ib * stride(b) + (uint64_t)place_of(&b->cols, j));
			int same;
			pairs++;
			if (isinf(x) || isinf(y)) {
				same = x == y;
				unreach += !same;
			} else {
				double d = fabs(x - y);
				double scale = fmax(1.0, fmax(fabs(x), fabs(y)));
				same = exact ? x == y : d <= tol * scale;
				if (d > maxabs)
					maxabs = d;
				if (d / scale > maxrel)
					maxrel = d / scale;
			}
			if (same)
				continue;
			differ++;
			if (shown < maxdiffs && tool_opts.verbose > 0) {
				fprintf(report, "%llu %llu: ", (unsigned long long)i, (unsigned long long)j);
				print_value(report, x);
				fputs(" != ", report);
				print_value(report, y);
				fputc('\n', report);
				shown++;
			}
		}
	}
	if (tool_opts.verbose > 0) {
		fprintf(report, "%llu pairs compared, %llu different (%llu reachable in one only); "
		       "largest difference %.9g absolute, %.3g relative\n",
		       (unsigned long long)pairs, (unsigned long long)differ,
		       (unsigned long long)unreach, maxabs, maxrel);
	}
	return differ ? EXIT_DIFFERENT : EXIT_OK;
}

static void check_result(const struct result *r)
{
	const st_header *h = &r->m.h;
	if (h->flags & ST_NEGCYCLE)
		tool_die_status(EXIT_NEGCYCLE, "%s: the graph has a negative cycle through vertex %lld",
		                r->name, (long long)h->cycle_vertex);
	if (!r->m.dist)
		tool_die("%s: the stream holds no distances", r->name);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{"graph", required_argument, 0, 'g'},
		{"max-diffs", required_argument, 0, 'n'},
		{"tolerance", required_argument, 0, 't'},
		{0, 0, 0, 0},
	};
	const char *graph = NULL;
	long maxdiffs = 10;
	double tol = -1; /* unless given: 1e-12 where every input is float64, else 1e-5 */
	int c;

	tool_init("apsp-diff", argc, argv);
	tool_text_output();
	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS "g:n:t:", longopts, NULL)) != -1) {
		if (tool_common_option(c, optarg, usage))
			continue;
		switch (c) {
		case 'g': graph = optarg; break;
		case 'n': maxdiffs = (long)tool_parse_ll("-n", optarg, 0, 1000000000); break;
		case 't':
			tol = tool_parse_double("--tolerance", optarg);
			if (!(tol >= 0))
				tool_usage_error("--tolerance: %s is not a number >= 0", optarg);
			break;
		default: tool_usage_error("unexpected option");
		}
	}
	int nargs = argc - optind;
	if (graph ? nargs < 1 || nargs > 2 : nargs != 2)
		tool_usage_error(graph ? "give one or two results after --graph G"
		                       : "give two results to compare, A B");
	int from_stdin = graph && !strcmp(graph, "-");
	for (int i = 0; i < nargs; i++)
		from_stdin += !strcmp(argv[optind + i], "-");
	if (from_stdin > 1)
		tool_usage_error("standard input ('-') can be only one of the inputs");
	int threads = tool_threads();
	report = tool_output_fopen(0);

	struct result r[2] = {{0}};
	for (int i = 0; i < nargs; i++) {
		load(&r[i], argv[optind + i], threads);
		check_result(&r[i]);
		index_rows(&r[i]);
	}
	if (nargs == 2 && r[0].m.h.n != r[1].m.h.n)
		tool_die("%s has %llu vertices, %s %llu", r[0].name,
		         (unsigned long long)r[0].m.h.n, r[1].name, (unsigned long long)r[1].m.h.n);
	if (nargs == 2 && r[0].m.h.type != r[1].m.h.type)
		tool_warn("%s is %s, %s %s: compared within the tolerance", r[0].name,
		          st_type_name(r[0].m.h.type), r[1].name, st_type_name(r[1].m.h.type));

	if (tol < 0) {
		int all64 = 1;
		for (int i = 0; i < nargs; i++)
			all64 &= r[i].m.h.type == ST_FLOAT64;
		tol = all64 ? 1e-12 : 1e-5;
	}
	int status = EXIT_OK;
	if (graph) {
		uint64_t n;
		ce_graph *g = certify_graph(graph, threads, &n);
		for (int i = 0; i < nargs; i++) {
			if (r[i].m.h.n != n)
				tool_die("%s has %llu vertices, the graph %s %llu", r[i].name,
				         (unsigned long long)r[i].m.h.n, tool_input_name(graph),
				         (unsigned long long)n);
			if (certify_rows(g, r[i].name, &r[i].m, tol, threads, report))
				status = EXIT_DIFFERENT;
		}
		ce_graph_free(g);
	}
	if (nargs == 2 && compare(&r[0], &r[1], tol, maxdiffs) != EXIT_OK)
		status = EXIT_DIFFERENT;
	tool_output_commit();
	st_matrices_free(&r[0].m);
	st_matrices_free(&r[1].m);
	for (int i = 0; i < 2; i++)
		free(r[i].rows.at), free(r[i].cols.at);
	return status;
}
