/* sink.c - apsp-gpu's results panel by panel (see sink.h). */
#include "common.h"
#include "sink.h"

#include <pthread.h>
#include <stdlib.h>

#include "betweenness.h"
#include "fw.h"
#include "tool.h"

/* One thread's share of a panel: rows begin..end-1 of it. */
struct panel {
	struct sink *res;
	uint64_t r0;
	void *dist;
	int32_t *pred;
	int64_t repaired;
	int oom;
};

static void panel_rows(void *ctx, uint64_t begin, uint64_t end)
{
	struct panel *pn = ctx;
	struct sink *res = pn->res;
	uint64_t n = res->n;
	char *dist = (char *)pn->dist + begin * n * 4;
	if (pn->pred) {
		int32_t *pred = pn->pred + begin * n;
		int64_t k = res->t->chains_sure ? 0
		          : fw_repair_rows(res->type, n, res->graph, n, pn->r0 + begin, end - begin,
		                           dist, pred, 1);
		if (k < 0)
			__atomic_store_n(&pn->oom, 1, __ATOMIC_RELAXED);
		else
			__atomic_add_fetch(&pn->repaired, k, __ATOMIC_RELAXED);
	}
	sv_finish_rows(res->plan, dist, pn->r0 + begin, end - begin, 1);
}

/* A panel's predecessors into the spool, on a thread beside the distances. */
struct spool_job {
	st_spool *s;
	const int32_t *pred;
	size_t len;
	int rc;
	st_error err;
};

static void *spool_panel(void *arg)
{
	struct spool_job *j = arg;
	j->rc = st_spool_write(j->s, j->pred, j->len, &j->err);
	return NULL;
}

/* fwg_solve_panels() failed: why, the sink's own failure first. */
_Noreturn void sink_failed(const struct sink *res, const char *msg)
{
	if (res->failed == 1)
		tool_die("out of memory checking the predecessor chains");
	if (res->failed == 2)
		tool_die_st(tool_output_name(), &res->err);
	tool_die("%s", msg);
}

int sink_take(void *ctx, uint64_t r0, uint64_t rows, void *dist, int32_t *pred)
{
	struct sink *res = ctx;
	struct panel pn = {res, r0, dist, pred, 0, 0};
	double t0 = lib_now();
	if (r0 == 0)
		tool_mark("first panel back");
	if ((pred && !res->t->chains_sure) || res->plan->potential)
		tool_parallel(res->threads, rows, panel_rows, &pn);
	if (pn.oom) {
		res->failed = 1;
		return -1;
	}
	res->repaired += pn.repaired;
	double t = lib_now();
	if (res->stats) { /* (the engine folded them itself where it could) */
		gs_add_rows(res->stats, r0, rows, dist, res->n, res->threads);
		btw_rows(res->bc, r0, rows, dist, res->n);
		res->sink_s += lib_now() - t0;
		tool_progress("rows", r0 + rows, res->n);
		return 0;
	}
	const size_t len = rows * res->n * 4;
	struct spool_job sj = {res->pred, pred, len, 0, {{0}}};
	pthread_t tid;
	int beside = pred && pthread_create(&tid, NULL, spool_panel, &sj) == 0;
	if (pred && !beside)
		spool_panel(&sj);
	int rc = st_write(res->w, dist, len, &res->err);
	double tj = lib_now();
	if (beside)
		pthread_join(tid, NULL);
	res->spool_wait_s += lib_now() - tj;
	if (rc == 0 && sj.rc < 0)
		res->err = sj.err, rc = -1;
	if (rc < 0) {
		res->failed = 2;
		return -1;
	}
	res->write_s += lib_now() - t;
	res->sink_s += lib_now() - t0;
	tool_progress("rows", r0 + rows, res->n);
	return 0;
}

/* --stats: the figures to fill, by the devices or by sink_take. */
void sink_open_stats(struct sink *res, struct fwg_opts *o, const sv_plan *plan, uint64_t n,
                     uint32_t type)
{
	static gs_stats st;
	st_error err;
	if (!res->stats && gs_init(&st, n, type, &err) < 0)
		tool_die_st(NULL, &err);
	res->stats = &st;
	o->stats = &st;
	o->potential = plan ? plan->potential : NULL;
}

/* The result stream's ends, or the statistics; then the output committed. */
void sink_finish(struct sink *res, const struct fwg_opts *o, FILE *sout,
                 const struct stats_form *form)
{
	st_error err;
	if (res->stats) {
		btw_print(res->bc, sout, res->stats, form, res->flags);
		tool_output_commit();
		gs_free(res->stats);
		return;
	}
	if (st_write_end_matrix(res->w, &err) < 0
	    || (o->paths && st_write_spool(res->w, res->pred, &err) < 0)
	    || st_writer_close(res->w, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	tool_output_commit();
}
