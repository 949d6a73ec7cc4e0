/* direct.c - a graph read straight onto the GPUs (see direct.h). */
#include "direct.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* A window of rows is about this many bytes (the reader holds two). */
#define WINDOW_BYTES (256u << 20)
/* A window's facts are taken in this many pieces at most, on the reader's
 * threads beside its inflating the next window. */
#define PIECES 256

/* The reading: each window's rows put onto the devices by a thread of
 * their own while the reader's threads take their facts and inflate the
 * next window. */
struct windows {
	struct direct *d;
	fwg_put_fn *put;
	void *pctx;
	/* the window in hand */
	uint64_t first, count, pieces;
	const char *data;
	sv_facts part[PIECES];
	/* the putting thread */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int pending, quit, put_failed;
};

static void *putting(void *arg)
{
	struct windows *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->pending && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->pending)
			break;
		pthread_mutex_unlock(&w->mu);
		const int rc = w->put_failed ? -1 : w->put(w->pctx, w->first, w->count, w->data);
		pthread_mutex_lock(&w->mu);
		w->put_failed |= rc != 0;
		w->pending = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static uint64_t window_begin(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct windows *w = ctx;
	w->pieces = count < PIECES ? count : PIECES;
	for (uint64_t i = 0; i < w->pieces; i++)
		w->part[i] = (sv_facts){.neg_diag = -1};
	pthread_mutex_lock(&w->mu);
	w->first = first, w->count = count, w->data = data;
	w->pending = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return w->pieces;
}

static void window_piece(void *ctx, uint64_t i)
{
	struct windows *w = ctx;
	const struct direct *d = w->d;
	const uint64_t n = d->h->n, lo = w->count * i / w->pieces, hi = w->count * (i + 1) / w->pieces;
	st_error err; /* (int32 and float32 alone come here) */
	sv_band_facts(d->h->type, n, w->data + lo * n * 4, w->first + lo, hi - lo, 1, &w->part[i],
	              &err);
}

static int window_end(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct windows *w = ctx;
	(void)data;
	pthread_mutex_lock(&w->mu);
	while (w->pending)
		pthread_cond_wait(&w->cv, &w->mu);
	const int failed = w->put_failed;
	pthread_mutex_unlock(&w->mu);
	for (uint64_t i = 0; i < w->pieces; i++)
		sv_facts_add(&w->d->facts, &w->part[i]);
	tool_progress("rows read", first + count, w->d->h->n);
	return failed;
}

static int take(void *ctx, fwg_put_fn *put, void *pctx)
{
	struct direct *d = ctx;
	static struct windows w; /* (too large for a thread's stack) */
	w = (struct windows){.d = d, .put = put, .pctx = pctx};
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	d->taken = 1;
	d->facts = (sv_facts){.neg_diag = -1};
	pthread_t tid;
	if (pthread_create(&tid, NULL, putting, &w) != 0)
		tool_die("cannot start a thread:");
	/* Tests: windows of this many bytes (the reader's least: 24 blocks). */
	const char *env = getenv("APSP_WINDOW_BYTES");
	const uint64_t bytes = env && *env ? strtoull(env, NULL, 10) : WINDOW_BYTES;
	const uint64_t row = d->h->n * 4, rows = bytes / row ? bytes / row : 1;
	const st_window_work work = {window_begin, window_piece, window_end, &w};
	const int rc = engine_read_weights_windows(d->in, rows, &work, &d->err);
	d->in = NULL;
	pthread_mutex_lock(&w.mu);
	w.quit = 1;
	pthread_cond_broadcast(&w.cv);
	pthread_mutex_unlock(&w.mu);
	pthread_join(tid, NULL);
	pthread_mutex_destroy(&w.mu);
	pthread_cond_destroy(&w.cv);
	tool_progress_end();
	d->t_read = tool_now();
	tool_mark("weights read onto the devices");
	d->failed = rc < 0 && !w.put_failed;
	return rc < 0 || w.put_failed ? -1 : 0;
}

/* The run begun stands where the rows need nothing the host would do
 * (sv_prepare: reweighting, a negative cycle, an error) and the graph is
 * dense and kept as numbered. */
static int verdict(void *ctx)
{
	struct direct *d = ctx;
	const sv_facts *f = &d->facts;
	const st_header *h = d->h;
	if (f->bad || f->neg_diag >= 0 || f->negative
	    || (h->type == ST_INT32 && f->pos_bound >= ST_INF_I32)
	    || !engine_stays_dense(d->order, h->n, h->type, f->edges, d->why, sizeof d->why))
		return 0;
	if (d->go)
		d->go(d->gctx);
	return 1;
}

static int back(void *ctx, uint64_t first, uint64_t count, const void *rows)
{
	struct direct *d = ctx;
	const uint64_t n = d->h->n;
	const size_t row = n * 4, bytes = n * row;
	if (!d->graph) {
		engine_check_memory(d->input, d->h, (double)bytes);
		if (!(d->graph = tool_matrix_alloc(bytes + 4)))
			tool_die("out of memory for the %llu x %llu graph", (unsigned long long)n,
			         (unsigned long long)n);
	}
	memcpy((char *)d->graph + first * row, rows, count * row);
	return 0;
}

struct fwg_feed direct_feed(struct direct *d)
{
	return (struct fwg_feed){.verdict = verdict, .ctx = d, .take = take, .back = back};
}
