/* apsp-info - what a matrix stream holds, without decoding it: the header,
 * and for each matrix its blocks, stored size and ratio; --check also
 * inflates every block and checks its CRC; --json for scripts.
 *
 * Only block headers are read (the stored bytes are read and dropped), so
 * it is quick on any stream, and a pipe can be described on its way. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream.h"
#include "certificate.h"
#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: %s [options] [FILE...]\n"
	        "What each matrix stream FILE (default stdin) holds: vertices, padding, type,\n"
	        "flags, block size, each matrix's blocks, stored size and ratio, the\n"
	        "negative-cycle vertex and the provenance, read from the headers alone.\n"
	        "\n"
	        "  -c, --check         also inflate every block and check its CRC\n"
	        "      --json          one JSON object per FILE, one per line\n"
	        "  -g, --graph G       instead, certify each result FILE against the graph G\n"
	        "                      (a stream or text): every distance the shortest, every\n"
	        "                      predecessor chain a path of that weight (apsp-diff(1))\n"
	        "\n",
	        tool_name());
	tool_common_help(f, 0);
	fputs("\nExit status: 0 success, 1 a result not shortest (--graph), 2 trouble (usage,\n"
	      "a damaged or unreadable FILE), 3 a result records a negative cycle.\n", f);
}

static const char *matrix_key(uint32_t bit)
{
	return bit == ST_WEIGHTS ? "weights" : bit == ST_DIST ? "distances"
	     : bit == ST_ARCS    ? "arcs"    : bit == ST_ORDER ? "order"
	     : bit == ST_SOURCES ? "sources" : bit == ST_TARGETS ? "targets" : "predecessors";
}

/* s as a JSON string. */
static void json_string(FILE *out, const char *s, size_t len)
{
	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

struct desc {
	st_header h;
	int nmat;
	uint32_t bits[4];
	st_matrix_info info[4];
	uint64_t raw_bytes;    /* of all matrices */
	uint64_t stream_bytes; /* header, blocks, markers: the file's size */
};

/* The next provenance line of *p (without its newline) in *line, *len; 0 at
 * the end. */
static int next_line(const char **p, const char **line, size_t *len)
{
	if (!*p || !**p)
		return 0;
	const char *e = strchr(*p, '\n');
	*line = *p;
	*len = e ? (size_t)(e - *p) : strlen(*p);
	*p += *len + (e != NULL);
	return 1;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_text(FILE *out, const char *name, const struct desc *d, int checked)
{
	const st_header *h = &d->h;
	fprintf(out, "%s:\n", name);
	fprintf(out, "  vertices      %llu", (unsigned long long)h->n);
	if (h->npad != h->n)
		fprintf(out, " (stored padded to %llu)", (unsigned long long)h->npad);
	fprintf(out, "\n  type          %s\n", st_type_name(h->type));
	fprintf(out, "  flags         %s%s%s\n", h->flags & ST_DIRECTED ? "directed" : "undirected",
	        h->flags & ST_NEGATIVE ? ", negative weights" : "",
	        h->flags & ST_NEGCYCLE ? ", negative cycle" : "");
	fprintf(out, "  block         %u bytes\n", h->block);
	if (h->matrices & ST_ARCS)
		fprintf(out, "  arc count     %llu (a graph as a list of arcs, %u bytes each)\n",
		        (unsigned long long)h->arcs, ST_ARC_BYTES(h->type));
	if (h->matrices & ST_TARGETS)
		fprintf(out, "  table         %llu x %llu of %llu (distances from some sources to some "
		        "targets, both listed first)\n", (unsigned long long)h->rows,
		        (unsigned long long)h->cols, (unsigned long long)h->n);
	else if (h->matrices & ST_SOURCES)
		fprintf(out, "  rows          %llu of %llu (a result of some rows: their sources listed "
		        "first)\n", (unsigned long long)h->rows, (unsigned long long)h->n);
	if (h->cycle_vertex >= 0)
		fprintf(out, "  cycle vertex  %lld\n", (long long)h->cycle_vertex);
	for (int k = 0; k < d->nmat; k++) {
		const st_matrix_info *m = &d->info[k];
		fprintf(out, "  %-13s %llu blocks, %llu bytes raw, %llu stored (%.2f%%); "
		        "stored %llu, deflate %llu, shuffle %llu\n",
		        matrix_key(d->bits[k]), (unsigned long long)m->blocks,
		        (unsigned long long)m->raw_bytes, (unsigned long long)m->stored_bytes,
		        pct(m->stored_bytes, m->raw_bytes), (unsigned long long)m->by_method[0],
		        (unsigned long long)m->by_method[1], (unsigned long long)m->by_method[2]);
	}
	if (d->nmat == 0)
		fprintf(out, "  matrices      none\n");
	fprintf(out, "  stream        %llu bytes (%.2f%% of %llu raw)\n",
	        (unsigned long long)d->stream_bytes, pct(d->stream_bytes, d->raw_bytes),
	        (unsigned long long)d->raw_bytes);
	if (checked)
		fprintf(out, "  check         every block's CRC matches\n");
	if (st_header_is_checkpoint(h))
		fprintf(out, "  checkpoint    an engine's state between rounds (its own layout), not a "
		        "result: go on with --resume\n");
	const char *p = h->provenance, *line;
	size_t len;
	while (next_line(&p, &line, &len))
		fprintf(out, "  provenance    %.*s\n", (int)len, line);
}

static void print_json(FILE *out, const char *name, const struct desc *d, int checked)
{
	const st_header *h = &d->h;
	fputs("{\"file\":", out);
	json_string(out, name, strlen(name));
	fprintf(out, ",\"n\":%llu,\"npad\":%llu,\"type\":\"%s\",\"directed\":%s,\"negative\":%s,"
	        "\"negative_cycle\":%s,\"cycle_vertex\":%lld,\"block\":%u,\"arcs\":%llu,"
	        "\"rows\":%llu,\"cols\":%llu,\"matrices\":{",
	        (unsigned long long)h->n, (unsigned long long)h->npad,
	        st_type_name(h->type), h->flags & ST_DIRECTED ? "true" : "false",
	        h->flags & ST_NEGATIVE ? "true" : "false", h->flags & ST_NEGCYCLE ? "true" : "false",
	        (long long)h->cycle_vertex, h->block, (unsigned long long)h->arcs,
	        (unsigned long long)h->rows, (unsigned long long)h->cols);
	for (int k = 0; k < d->nmat; k++) {
		const st_matrix_info *m = &d->info[k];
		fprintf(out, "%s\"%s\":{\"blocks\":%llu,\"raw_bytes\":%llu,\"stored_bytes\":%llu,"
		        "\"ratio\":%.6f,\"methods\":{\"stored\":%llu,\"deflate\":%llu,\"shuffle\":%llu}}",
		        k ? "," : "", matrix_key(d->bits[k]), (unsigned long long)m->blocks,
		        (unsigned long long)m->raw_bytes, (unsigned long long)m->stored_bytes,
		        m->raw_bytes ? (double)m->stored_bytes / (double)m->raw_bytes : 0.0,
		        (unsigned long long)m->by_method[0], (unsigned long long)m->by_method[1],
		        (unsigned long long)m->by_method[2]);
	}
	fprintf(out, "},\"stream_bytes\":%llu,\"raw_bytes\":%llu,\"checked\":%s,\"checkpoint\":%s,"
	        "\"provenance\":[",
	        (unsigned long long)d->stream_bytes, (unsigned long long)d->raw_bytes,
	        checked ? "true" : "false", st_header_is_checkpoint(h) ? "true" : "false");
	const char *p = h->provenance, *line;
	size_t len;
	for (int first = 1; next_line(&p, &line, &len); first = 0) {
		if (!first)
			fputc(',', out);
		json_string(out, line, len);
	}
	fputs("]}\n", out);
}

/* Describe one stream; 0, or -1 after a message. */
static int describe(FILE *out, const char *path, int check, int json, int threads)
{
	int is_stdin = strcmp(path, "-") == 0;
	const char *name = tool_input_name(path);
	int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tool_warn("%s:", path);
		return -1;
	}
	if (is_stdin && isatty(fd)) {
		tool_warn("refusing to read binary data from a terminal");
		return -1;
	}
	struct desc d;
	memset(&d, 0, sizeof d);
	st_error err;
	int rc = 0;
	st_reader *r = st_reader_open(fd, name, &d.h, threads, &err);
	if (!r) {
		tool_warn("%s", err.msg);
		rc = -1;
		goto done;
	}
	/* the header (68 bytes, 76 with arcs or sources, 84 for a table, and
	 * the provenance) and the end-of-stream marker */
	d.stream_bytes = (d.h.matrices & ST_TARGETS ? 84 : d.h.matrices & (ST_ARCS | ST_SOURCES) ? 76 : 68)
	                 + (d.h.provenance ? strlen(d.h.provenance) : 0) + 16;
	for (uint32_t bit; (bit = st_next_matrix(r)) != 0; d.nmat++) {
		d.bits[d.nmat] = bit;
		if (st_scan_matrix(r, check, &d.info[d.nmat], &err) < 0) {
			tool_warn("%s", err.msg);
			st_reader_free(r);
			rc = -1;
			goto done;
		}
		d.raw_bytes += d.info[d.nmat].raw_bytes;
		d.stream_bytes += d.info[d.nmat].stored_bytes;
	}
	if (st_reader_close(r, &err) < 0) {
		tool_warn("%s", err.msg);
		rc = -1;
		goto done;
	}
	if (json)
		print_json(out, name, &d, check);
	else
		print_text(out, name, &d, check);
done:
	st_header_free(&d.h);
	if (!is_stdin)
		close(fd);
	return rc;
}

/* --graph G: each result certified against G, a window of rows at a time. */
static int certify_each(const char *graph, int count, char **paths, int threads)
{
	char *dash = "-";
	if (count == 0)
		count = 1, paths = &dash;
	int stdin_used = !strcmp(graph, "-");
	for (int i = 0; i < count; i++)
		stdin_used += !strcmp(paths[i], "-");
	if (stdin_used > 1)
		tool_usage_error("standard input ('-') can be only one of the inputs");
	uint64_t n;
	ce_graph *g = certify_graph(graph, threads, &n);
	FILE *out = tool_output_fopen(0);
	int bad = 0;
	for (int i = 0; i < count; i++) {
		tool_refuse_terminal_input(paths[i]);
		const int fd = tool_open_input(paths[i]);
		bad |= certify_stream(g, n, fd, tool_input_name(paths[i]), -1, threads, out) != 0;
		if (fd != 0)
			close(fd);
	}
	tool_output_commit();
	ce_graph_free(g);
	return bad ? EXIT_DIFFERENT : EXIT_OK;
}

int main(int argc, char **argv)
{
	enum { OPT_JSON = 0x2000 };
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{"check", no_argument, 0, 'c'},
		{"json", no_argument, 0, OPT_JSON},
		{"graph", required_argument, 0, 'g'},
		{0, 0, 0, 0},
	};
	int check = 0, json = 0, c;
	const char *graph = NULL;

	tool_init("apsp-info", argc, argv);
	tool_text_output();
	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS "cg:", longopts, NULL)) != -1) {
		if (tool_common_option(c, optarg, usage))
			continue;
		switch (c) {
		case 'c': check = 1; break;
		case 'g': graph = optarg; break;
		case OPT_JSON: json = 1; break;
		default: tool_usage_error("unexpected option");
		}
	}
	int threads = tool_threads();
	if (graph)
		return certify_each(graph, argc - optind, argv + optind, threads);
	FILE *out = tool_output_fopen(0);
	int bad = 0;
	if (optind == argc)
		bad |= describe(out, "-", check, json, threads) < 0;
	for (int i = optind; i < argc; i++)
		bad |= describe(out, argv[i], check, json, threads) < 0;
	tool_output_commit();
	return bad ? EXIT_TROUBLE : EXIT_OK;
}
