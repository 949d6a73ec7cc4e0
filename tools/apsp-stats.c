/* apsp-stats - graph statistics from a result stream: for each vertex its
 * reach, distance sums and eccentricities out and in, closeness and
 * harmonic centrality (networkx's definitions); or, with --summary, the
 * graph's diameter, radius, average distance and Wiener index.
 *
 * The distances are read a window of rows at a time and folded into O(n)
 * accumulators (lib/stats.h) on the reader's threads, each window while the
 * next is inflated (st_read_windows_beside), so the n x n matrix is never
 * held.  Nothing is printed until the whole stream has
 * been read and checked: a damaged stream gives no table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "statsout.h"
#include "stream.h"
#include "tool.h"

/* Rows a window holds at least: the reader keeps a few blocks more. */
#define WINDOW_ROWS 64

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: %s [options] [RESULT]\n"
	        "Statistics of the graph whose distances the stream RESULT (default stdin)\n"
	        "holds: a tab-separated line a vertex with its reach, distance sums and\n"
	        "eccentricities out and in, closeness and harmonic centrality.\n"
	        "\n",
	        tool_name());
	stats_help(f);
	tool_common_help(f, 0);
	fputs("\nExit status: 0 success, 2 trouble (usage, a damaged or unreadable RESULT),\n"
	      "3 the graph has a negative cycle.\n", f);
}

/* Each window of rows folded in pieces on the reader's threads while the
 * next is inflated (st_read_windows_beside). */
struct fold {
	gs_stats *s;
	gs_batch b;
};

static uint64_t fold_begin(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct fold *f = ctx;
	uint64_t n = f->s->n, rows = first + count <= n ? count : first < n ? n - first : 0;
	return gs_batch_begin(&f->b, f->s, first, rows, data, n);
}

static void fold_piece(void *ctx, uint64_t i)
{
	struct fold *f = ctx;
	gs_batch_piece(&f->b, i);
}

static int fold_end(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct fold *f = ctx;
	gs_batch_end(&f->b);
	tool_progress("rows", first + count, f->s->n);
	(void)data;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		STATS_LONGOPTS,
		{0, 0, 0, 0},
	};
	struct stats_form form = {.what = STATS_TABLE};
	int c;

	tool_init("apsp-stats", argc, argv);
	tool_text_output();
	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS, longopts, NULL)) != -1) {
		if (tool_common_option(c, optarg, usage) || stats_option(c, optarg, &form))
			continue;
		tool_usage_error("unexpected option");
	}
	if (argc - optind > 1)
		tool_usage_error("one input at most ('%s' is extra)", argv[optind + 1]);
	const char *input = optind < argc ? argv[optind] : "-";
	const char *name = tool_input_name(input);
	const int threads = tool_threads();
	FILE *out = tool_output_fopen(0); /* a damaged input leaves no file behind */
	st_header h;
	st_error err;
	st_reader *r = tool_open_result(input, &h, form.base, 0, threads, NULL);
	/* The accumulators and two windows of rows at least, told before any
	 * is taken (a hostile header's n). */
	char why[200];
	const double need = gs_bytes(h.n, h.type)
	                  + 2.0 * WINDOW_ROWS * (double)h.npad * ST_TYPE_SIZE(h.type);
	if (tool_memory_refusal(why, sizeof why, h.n, need, 1)) {
		st_reader_free(r); /* (freed first: clean under LeakSanitizer) */
		st_header_free(&h);
		tool_die("%s: %s", name, why);
	}
	gs_stats s;
	if (gs_init(&s, h.n, h.type, &err) < 0)
		tool_die_st(name, &err);
	struct fold f = {&s, {0}};
	const st_window_work work = {.begin = fold_begin, .piece = fold_piece, .end = fold_end,
	                             .ctx = &f};
	if (h.matrices & ST_SOURCES) { /* (freed first: clean under LeakSanitizer) */
		st_reader_free(r);
		gs_free(&s);
		st_header_free(&h);
		tool_die("%s: %s: the statistics take every row (give the graph to apsp-cpu or "
		         "apsp-gpu --stats)", name, h.matrices & ST_TARGETS ? ST_TABLE_REFUSAL : ST_ROWS_REFUSAL);
	}
	if (h.npad != h.n) /* a padded stream: rows of npad, the first n entries */
		tool_die("%s: a result stream has no padding (npad %llu, n %llu)", name,
		         (unsigned long long)h.npad, (unsigned long long)h.n);
	for (uint32_t bit; (bit = st_next_matrix(r)) != 0;) {
		int rc = bit == ST_DIST ? st_read_windows_beside(r, WINDOW_ROWS, &work, &err)
		                        : st_scan_matrix(r, 1, NULL, &err); /* its CRCs too */
		if (rc < 0) { /* (all freed first: clean under LeakSanitizer) */
			st_reader_free(r);
			gs_free(&s);
			st_header_free(&h);
			tool_die_st(NULL, &err);
		}
	}
	if (st_reader_close(r, &err) < 0)
		tool_die_st(NULL, &err);
	tool_progress_end();
	stats_print(out, &s, &form, h.flags);
	tool_output_commit();
	gs_free(&s);
	st_header_free(&h);
	return EXIT_OK;
}
