/* direct.c - a graph read straight onto the GPUs (see direct.h). */
#include "common.h"
#include "direct.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

/* A window of rows is about this many bytes (the reader holds three). */
#define WINDOW_BYTES (256u << 20)
/* Windows read while the devices start are set aside in at most this much
 * memory: a sixteenth of the machine's, 16 GiB at most. */
#define SPILL_PART 16
#define SPILL_MOST (16ull << 30)
/* A window set aside is copied in this many pieces, beside the next pass. */
#define SPILL_PIECES 64

/* The reading runs on a thread of its own from direct_begin() on.  Until
 * the engine takes the rows (take) each window is set aside in memory of
 * its own (a spill), copied on the reader's threads, while there is room;
 * then the windows go in turn from three buffers that the devices copy
 * themselves (registered at their first copy), a putting thread having
 * them copied while the reader inflates the next: a window's buffer is not
 * filled again before its copy is done (the next window's end waits for
 * it).  The windows set aside are put between those.  Where the engine
 * will not take them (direct_finish), every row goes to a host matrix. */
enum { WAITING, TAKING, TO_HOST };

struct spill {
	uint64_t first, count;
	char *rows;
	struct spill *next;
};

struct windows {
	struct direct *d;
	uint64_t row, rows; /* bytes a row, rows a window */
	pthread_t reader, putter;
	/* under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state; /* WAITING, TAKING (put set) or TO_HOST (d->graph) */
	fwg_put_fn *put;
	void *pctx;
	int read_done, rc, put_failed;
	int pending; /* a window of the buffers to put: */
	uint64_t put_first, put_count;
	const char *put_rows;
	struct spill *spills, **tail; /* set aside, not yet put */
	uint64_t spill_bytes, spill_most;
	/* the buffers (the putting thread registers them) */
	char *buf[3];
	size_t buf_bytes;
	int registered[3];
	/* the window in hand, on the reader's threads */
	struct spill *aside;
	const char *data;
	/* -v */
	uint64_t windows, spilled;
	double put_s, wait_s;
};

/* ---- the putting thread ---- */

static void spill_free(struct windows *w, struct spill *s)
{
	free(s->rows);
	free(s);
}

static int put_timed(struct windows *w, uint64_t first, uint64_t count, const void *rows)
{
	const double t0 = lib_now();
	const int rc = w->put(w->pctx, first, count, rows);
	w->put_s += lib_now() - t0;
	return rc;
}

/* A window of the buffers put (the buffer registered at its first). */
static int put_buffer(struct windows *w, uint64_t first, uint64_t count, const char *rows)
{
	for (int i = 0; i < 3; i++)
		if (w->buf[i] == rows && !w->registered[i])
			w->registered[i] = fwg_host_register(w->buf[i], w->buf_bytes) == 0 ? 1 : -1;
	return put_timed(w, first, count, rows);
}

static void *putting(void *arg)
{
	struct windows *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->state == TAKING && !w->pending && !w->spills && !w->read_done)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->state != TAKING || (!w->pending && !w->spills))
			break;
		int rc;
		if (w->pending) { /* (first: the reader waits for it) */
			const uint64_t first = w->put_first, count = w->put_count;
			const char *rows = w->put_rows;
			pthread_mutex_unlock(&w->mu);
			rc = w->put_failed ? -1 : put_buffer(w, first, count, rows);
			pthread_mutex_lock(&w->mu);
			w->pending = 0;
		} else {
			struct spill *s = w->spills;
			if (!(w->spills = s->next))
				w->tail = &w->spills;
			pthread_mutex_unlock(&w->mu);
			rc = w->put_failed ? -1 : put_timed(w, s->first, s->count, s->rows);
			spill_free(w, s);
			pthread_mutex_lock(&w->mu);
		}
		w->put_failed |= rc != 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* ---- the reader's work (st_window_work) ---- */

static void *window_alloc(void *ctx, size_t bytes)
{
	struct windows *w = ctx;
	int i = 0;
	while (i < 3 && w->buf[i])
		i++;
	if (i == 3)
		return NULL;
	w->buf_bytes = bytes;
	return w->buf[i] = lib_huge_alloc(bytes);
}

static void window_release(void *ctx, void *p, size_t bytes)
{
	struct windows *w = ctx;
	pthread_mutex_lock(&w->mu); /* (its copy done) */
	while (w->pending && w->put_rows == p && w->state == TAKING)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
	for (int i = 0; i < 3; i++)
		if (w->buf[i] == p) {
			if (w->registered[i] == 1)
				fwg_host_unregister(p);
			free(p);
			w->buf[i] = NULL;
		}
}

/* While the engine has not taken the rows, the window is set aside where
 * there is room: copied in pieces. */
static uint64_t window_begin(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct windows *w = ctx;
	const uint64_t bytes = count * w->row;
	w->aside = NULL;
	w->data = data;
	pthread_mutex_lock(&w->mu);
	const int room = w->state == WAITING && w->spill_bytes + bytes <= w->spill_most;
	if (room)
		w->spill_bytes += bytes;
	pthread_mutex_unlock(&w->mu);
	struct spill *s = room ? calloc(1, sizeof *s) : NULL;
	if (s && !(s->rows = lib_huge_alloc(bytes)))
		free(s), s = NULL;
	if (!s)
		return 0;
	s->first = first, s->count = count;
	w->aside = s;
	return SPILL_PIECES;
}

static void window_piece(void *ctx, uint64_t i)
{
	struct windows *w = ctx;
	const uint64_t bytes = w->aside->count * w->row;
	const uint64_t lo = bytes * i / SPILL_PIECES, hi = bytes * (i + 1) / SPILL_PIECES;
	memcpy(w->aside->rows + lo, w->data + lo, hi - lo);
}

/* The window set aside, or put once the one before is (its buffer is the
 * next to fill), or copied into the host matrix. */
static int window_end(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct windows *w = ctx;
	const double t0 = lib_now();
	int failed = 0;
	w->windows++;
	pthread_mutex_lock(&w->mu);
	if (w->aside) {
		*w->tail = w->aside, w->tail = &w->aside->next;
		w->spilled++;
	} else {
		while (w->state == WAITING || (w->state == TAKING && w->pending))
			pthread_cond_wait(&w->cv, &w->mu);
		failed = w->state == TAKING && w->put_failed;
		if (w->state == TAKING && !failed) {
			w->put_first = first, w->put_count = count, w->put_rows = data;
			w->pending = 1;
		}
	}
	pthread_cond_broadcast(&w->cv);
	const int to_host = !w->aside && w->state == TO_HOST;
	pthread_mutex_unlock(&w->mu);
	if (to_host)
		memcpy((char *)w->d->graph + first * w->row, data, count * w->row);
	w->wait_s += lib_now() - t0;
	tool_progress("rows read", first + count, w->d->h->n);
	return failed;
}

static void *reading(void *arg)
{
	struct windows *w = arg;
	const st_window_work work = {window_begin, window_piece, window_end, w,
	                             window_alloc, window_release, 1};
	const int rc = engine_read_weights_windows(w->d->in, w->rows, &work, &w->d->err);
	pthread_mutex_lock(&w->mu);
	w->rc = rc;
	w->read_done = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

void direct_begin(struct direct *d)
{
	struct windows *w = calloc(1, sizeof *w);
	if (!w)
		tool_die("out of memory");
	*w = (struct windows){.d = d, .row = d->h->n * 4, .state = WAITING};
	w->tail = &w->spills;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	/* Tests: windows of this many bytes (the reader's least: 24 blocks). */
	const char *env = getenv("APSP_WINDOW_BYTES");
	const uint64_t bytes = env && *env ? strtoull(env, NULL, 10) : WINDOW_BYTES;
	w->rows = bytes / w->row ? bytes / w->row : 1;
	const double most = engine_physical_memory() / SPILL_PART;
	w->spill_most = most < SPILL_MOST ? (uint64_t)most : SPILL_MOST;
	d->reading = w; /* (the input is the reader's from here on) */
	if (pthread_create(&w->reader, NULL, reading, w) != 0)
		tool_die("cannot start a thread:");
}

/* Wait for the reading's end; its result (0 or -1: d->err). */
static int read_end(struct windows *w)
{
	pthread_join(w->reader, NULL);
	w->d->in = NULL;
	tool_progress_end();
	w->d->t_read = lib_now();
	return w->rc;
}

static int take(void *ctx, fwg_put_fn *put, void *pctx)
{
	struct direct *d = ctx;
	struct windows *w = d->reading;
	pthread_mutex_lock(&w->mu);
	w->put = put, w->pctx = pctx;
	w->state = TAKING;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	if (pthread_create(&w->putter, NULL, putting, w) != 0)
		tool_die("cannot start a thread:");
	const int rc = read_end(w);
	pthread_join(w->putter, NULL); /* (every window put) */
	tool_mark("weights read onto the devices");
	tool_info("read straight: %llu windows of %llu rows, %llu of them set aside while the "
	          "devices started; the devices' copies %.3f s (%.1f GB/s), the reader waited "
	          "%.3f s", (unsigned long long)w->windows, (unsigned long long)w->rows,
	          (unsigned long long)w->spilled, w->put_s,
	          w->put_s > 0 ? (double)w->row * (double)d->h->n / w->put_s * 1e-9 : 0.0, w->wait_s);
	d->failed = rc < 0 && !w->put_failed;
	return rc < 0 || w->put_failed ? -1 : 0;
}

/* The host matrix of the graph (lib_huge_alloc(n * n * 4 + 4)), once. */
static void host_matrix(struct direct *d)
{
	const uint64_t n = d->h->n;
	const size_t bytes = n * n * 4;
	if (d->graph)
		return;
	engine_check_memory(d->input, d->h, (double)bytes);
	if (!(d->graph = lib_huge_alloc(bytes + 4)))
		tool_die("out of memory for the %llu x %llu graph", (unsigned long long)n,
		         (unsigned long long)n);
}

void direct_finish(struct direct *d)
{
	struct windows *w = d->reading;
	if (w->state == WAITING) { /* (not taken) */
		host_matrix(d);
		pthread_mutex_lock(&w->mu);
		w->state = TO_HOST;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		const int rc = read_end(w);
		for (struct spill *s = w->spills, *next; s; s = next) {
			next = s->next;
			memcpy((char *)d->graph + s->first * w->row, s->rows, s->count * w->row);
			spill_free(w, s);
		}
		tool_mark("weights read");
		if (rc < 0)
			tool_die_st(NULL, &d->err);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
	d->reading = NULL;
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
	host_matrix(d);
	memcpy((char *)d->graph + first * d->h->n * 4, rows, count * d->h->n * 4);
	return 0;
}

struct fwg_feed direct_feed(struct direct *d)
{
	return (struct fwg_feed){.verdict = verdict, .ctx = d, .take = take, .back = back,
	                         .facts = &d->facts};
}
