/* direct.c - a graph read straight onto the GPUs (see direct.h). */
#include "direct.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* A window of rows is about this many bytes (the reader holds two). */
#define WINDOW_BYTES (256u << 20)
/* A window is copied and its facts taken in this many pieces at most, on
 * the reader's threads beside its inflating the next window. */
#define PIECES 256

/* The reading.  The reader's threads copy each window's rows into one of
 * two page-locked buffers and take their facts while they inflate the
 * next window; then a thread of its own puts the buffer onto the devices,
 * which copy it themselves, while the next window is copied into the
 * other.  (No page-locked memory: the window itself is put, through the
 * engine's staging buffers, before the reader goes on.) */
struct windows {
	struct direct *d;
	fwg_put_fn *put;
	void *pctx;
	/* the window in hand: its pieces, and where they are copied */
	uint64_t first, count, pieces;
	const char *data;
	char *to;
	sv_facts part[PIECES];
	char *locked[2];
	size_t locked_bytes[2];
	int side;
	/* the putting thread and what it puts */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int pending, quit, put_failed;
	uint64_t put_first, put_count;
	const void *put_rows;
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
		const int rc = w->put_failed ? -1 : w->put(w->pctx, w->put_first, w->put_count, w->put_rows);
		pthread_mutex_lock(&w->mu);
		w->put_failed |= rc != 0;
		w->pending = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Wait until the putting thread has put what it was given: whether it failed. */
static int put_done(struct windows *w)
{
	pthread_mutex_lock(&w->mu);
	while (w->pending)
		pthread_cond_wait(&w->cv, &w->mu);
	const int failed = w->put_failed;
	pthread_mutex_unlock(&w->mu);
	return failed;
}

/* A page-locked buffer of bytes at least on this side (its last rows were
 * put before this window's begin), or NULL. */
static char *locked_buffer(struct windows *w, size_t bytes)
{
	const int s = w->side;
	if (w->locked_bytes[s] < bytes) {
		fwg_host_free(w->locked[s]);
		bytes += bytes / 8; /* (windows differ by a block or so) */
		w->locked[s] = fwg_host_alloc(bytes);
		w->locked_bytes[s] = w->locked[s] ? bytes : 0;
	}
	return w->locked[s];
}

static uint64_t window_begin(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct windows *w = ctx;
	w->first = first, w->count = count, w->data = data;
	w->to = locked_buffer(w, count * w->d->h->n * 4);
	w->pieces = count < PIECES ? count : PIECES;
	for (uint64_t i = 0; i < w->pieces; i++)
		w->part[i] = (sv_facts){.neg_diag = -1};
	return w->pieces;
}

static void window_piece(void *ctx, uint64_t i)
{
	struct windows *w = ctx;
	const struct direct *d = w->d;
	const uint64_t n = d->h->n, lo = w->count * i / w->pieces, hi = w->count * (i + 1) / w->pieces;
	if (w->to)
		memcpy(w->to + lo * n * 4, w->data + lo * n * 4, (hi - lo) * n * 4);
	st_error err; /* (int32 and float32 alone come here) */
	sv_band_facts(d->h->type, n, w->data + lo * n * 4, w->first + lo, hi - lo, 1, &w->part[i],
	              &err);
}

static int window_end(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct windows *w = ctx;
	int failed = put_done(w); /* (the other buffer's rows) */
	pthread_mutex_lock(&w->mu);
	w->put_first = first, w->put_count = count, w->put_rows = w->to ? w->to : data;
	w->pending = !failed;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	if (!w->to) /* (the window's own rows: put before the reader reuses them) */
		failed = put_done(w);
	w->side ^= 1;
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
	for (int s = 0; s < 2; s++)
		fwg_host_free(w.locked[s]);
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
	if (sv_facts_need(h->type, f)
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
