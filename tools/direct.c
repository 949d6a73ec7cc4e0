/* direct.c - a graph read straight onto the GPUs (see direct.h). */
#include "direct.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* A window of rows is about this many bytes (the reader holds three). */
#define WINDOW_BYTES (256u << 20)

/* The reading.  The reader inflates each window into one of three
 * page-locked buffers in turn; a thread of its own has the devices copy
 * it while the reader inflates the next, and the window's buffer is not
 * filled again before its copy is done (the next window's end waits for
 * it).  The devices take the rows' facts once all are in.  (No page-locked
 * memory: the engine copies the window out through its staging buffers
 * before the put returns.) */
struct windows {
	struct direct *d;
	fwg_put_fn *put;
	void *pctx;
	/* the buffers, and whether each is page-locked */
	void *buf[3];
	int locked[3];
	/* the putting thread and what it puts */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int pending, quit, put_failed;
	uint64_t put_first, put_count;
	const void *put_rows;
	/* where the time went (-v) */
	uint64_t windows;
	double put_s, wait_s;
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
		const double t0 = tool_now();
		const int rc = w->put_failed ? -1 : w->put(w->pctx, w->put_first, w->put_count, w->put_rows);
		const double t1 = tool_now();
		pthread_mutex_lock(&w->mu);
		w->put_s += t1 - t0;
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

/* The reader's buffers: page-locked where the devices allow. */
static void *window_alloc(void *ctx, size_t bytes)
{
	struct windows *w = ctx;
	int i = 0;
	while (i < 3 && w->buf[i])
		i++;
	if (i == 3)
		return NULL;
	w->buf[i] = fwg_host_alloc(bytes);
	w->locked[i] = w->buf[i] != NULL;
	if (!w->buf[i])
		w->buf[i] = malloc(bytes);
	return w->buf[i];
}

static void window_release(void *ctx, void *p, size_t bytes)
{
	(void)bytes;
	struct windows *w = ctx;
	put_done(w); /* (the last window's copy) */
	for (int i = 0; i < 3; i++)
		if (w->buf[i] == p) {
			if (w->locked[i])
				fwg_host_free(p);
			else
				free(p);
			w->buf[i] = NULL;
		}
}

static uint64_t window_begin(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	(void)ctx, (void)first, (void)count, (void)data;
	return 0;
}

static void window_piece(void *ctx, uint64_t i) { (void)ctx, (void)i; }

/* The window before this one is put (its buffer is the next to fill);
 * this one goes to the putting thread. */
static int window_end(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct windows *w = ctx;
	const double t0 = tool_now();
	const int failed = put_done(w);
	w->wait_s += tool_now() - t0;
	w->windows++;
	pthread_mutex_lock(&w->mu);
	w->put_first = first, w->put_count = count, w->put_rows = data;
	w->pending = !failed;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	tool_progress("rows read", first + count, w->d->h->n);
	return failed;
}

static int take(void *ctx, fwg_put_fn *put, void *pctx)
{
	struct direct *d = ctx;
	struct windows w = {.d = d, .put = put, .pctx = pctx};
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	d->taken = 1;
	pthread_t tid;
	if (pthread_create(&tid, NULL, putting, &w) != 0)
		tool_die("cannot start a thread:");
	/* Tests: windows of this many bytes (the reader's least: 24 blocks). */
	const char *env = getenv("APSP_WINDOW_BYTES");
	const uint64_t bytes = env && *env ? strtoull(env, NULL, 10) : WINDOW_BYTES;
	const uint64_t row = d->h->n * 4, rows = bytes / row ? bytes / row : 1;
	const st_window_work work = {window_begin, window_piece, window_end, &w,
	                             window_alloc, window_release, 1};
	const int rc = engine_read_weights_windows(d->in, rows, &work, &d->err);
	d->in = NULL;
	put_done(&w);
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
	tool_info("read straight: %llu windows of %llu rows; the devices' copies %.3f s (%.1f GB/s), "
	          "waited for %.3f s", (unsigned long long)w.windows, (unsigned long long)rows,
	          w.put_s, w.put_s > 0 ? (double)row * (double)d->h->n / w.put_s * 1e-9 : 0.0,
	          w.wait_s);
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
	return (struct fwg_feed){.verdict = verdict, .ctx = d, .take = take, .back = back,
	                         .facts = &d->facts};
}
