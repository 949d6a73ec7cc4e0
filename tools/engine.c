/* engine.c - see engine.h. */
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "tool.h"

/* How messages name the input. */
static const char *display(const char *path)
{
	return strcmp(path, "-") == 0 ? "standard input" : path;
}

st_reader *engine_open(const char *path, int threads, st_header *h)
{
	st_error err;
	const char *name = display(path);
	int fd = tool_open_input(path);
	st_reader *r = st_reader_open(fd, path, h, threads, &err);
	if (!r)
		tool_die_st(NULL, &err);
	/* The reader is freed before these deaths: clean under LeakSanitizer. */
	if (h->flags & ST_NEGCYCLE) {
		long long v = (long long)h->cycle_vertex;
		st_reader_free(r);
		st_header_free(h);
		tool_die_status(EXIT_NEGCYCLE, "%s: input records a negative cycle through vertex %lld",
		                name, v);
	}
	if (!(h->matrices & ST_WEIGHTS)) {
		st_reader_free(r);
		st_header_free(h);
		tool_die("%s: the stream holds no edge weights (is it already a result?)", name);
	}
	return r;
}

void engine_check_memory(const char *path, const st_header *h, double bytes)
{
	const char *name = display(path);
	double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
	if (have > 0 && bytes > have)
		tool_die("%s: n = %llu needs %.1f GiB of memory, this machine has %.1f GiB", name,
		         (unsigned long long)h->n, bytes / 1073741824.0, have / 1073741824.0);
}

void engine_read_weights(st_reader *r, void *dst)
{
	st_error err;
	for (uint32_t next; (next = st_next_matrix(r));)
		if ((next == ST_WEIGHTS ? st_read_matrix(r, dst, &err) : st_skip_matrix(r, &err)) < 0)
			tool_die_st(NULL, &err);
	if (st_reader_close(r, &err) < 0)
		tool_die_st(NULL, &err);
}

_Noreturn void engine_negative_cycle(int out, st_header *result, int64_t v, int threads)
{
	st_error err;
	result->matrices = 0;
	result->flags |= ST_NEGCYCLE;
	result->cycle_vertex = v;
	if (st_write_all(out, result, NULL, NULL, NULL, tool_opts.level, threads, &err) < 0)
		tool_die_st("write", &err);
	tool_output_commit();
	tool_die_status(EXIT_NEGCYCLE, "negative cycle through vertex %lld", (long long)v);
}

void engine_write_result(int out, const st_header *result, sv_plan *plan, void *dist,
                         const int32_t *pred, int threads)
{
	st_error err;
	sv_finish(plan, dist, threads);
	sv_plan_free(plan);
	if (st_write_all(out, result, NULL, dist, pred, tool_opts.level, threads, &err) < 0)
		tool_die_st("write", &err);
	tool_output_commit();
}
