/* stream_windows.c - the stream's reader, a window of whole rows at a
 * time: handed to the caller pass after pass (st_read_windows), or to work
 * that runs on the reader's threads beside the reading of the next
 * (st_read_windows_beside): without keep the windows flow through two
 * buffers without passes (a ring), with keep through three, pass after
 * pass.  Nothing here prints or exits. */
#include "stream_reader.h"
#include "common.h"
#include "pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A window of whole rows whose work runs beside the next pass; such a
 * window is this many blocks at least. */
#define WINDOW_LEAST 24
struct window {
	uint64_t first, count;
	const unsigned char *data;
};

static int stopped_at(st_reader *r, uint64_t row, st_error *err)
{
	lib_fail(err, "%s: reading stopped at row %llu", r->name, (unsigned long long)row);
	return rd_fail(r);
}

/* The last window's work beside this pass (w NULL: none); then none.  Its
 * end comes even where the pass failed (what begin took is given back). */
static int window_work(st_reader *r, struct rjob *job, uint64_t count, struct window *last,
                       st_error *err)
{
	const st_window_work *w = job->work;
	job->pieces = w && last->count ? w->begin(w->ctx, last->first, last->count, last->data) : 0;
	int rc = rd_pass(r, job, count, err);
	if (w && last->count && w->end(w->ctx, last->first, last->count, last->data) && rc == 0)
		rc = stopped_at(r, last->first, err);
	last->count = 0;
	return rc;
}

/* A window's buffer of bytes: the work's own (w->alloc), or the reader's. */
static unsigned char *window_buffer(const st_window_work *w, size_t bytes)
{
	if (!bytes)
		bytes = 1;
	return w && w->alloc ? w->alloc(w->ctx, bytes) : lib_huge_alloc(bytes);
}

/* Windows of bytes refused before any is allocated where the machine has
 * less memory (the one phrasing; they grow as the rows, npad): -1, else 0. */
static int windows_fit(const st_reader *r, size_t bytes, st_error *err)
{
	const double have = (double)lib_physical_memory();
	char why[200];
	if ((double)bytes <= have)
		return 0;
	return lib_fail(err, "%s: %s", r->name,
	                lib_memory_refusal(why, sizeof why, r->npad, (double)bytes, have, 1));
}

static void release_buffers(const st_window_work *w, unsigned char **buf, int nbuf, size_t bytes)
{
	for (int i = 0; i < nbuf; i++)
		if (buf[i] && w && w->alloc)
			w->release(w->ctx, buf[i], bytes ? bytes : 1);
		else
			free(buf[i]);
}

/* st_read_windows() (fn) and st_read_windows_beside() with keep (w):
 * passes of blocks into a buffer, whole rows handed over, the part of a row
 * at the end carried to the start of the next pass's buffer.  With w, three
 * buffers in turn: one window's work runs beside the pass that fills the
 * next, and its bytes stay until the next window's end. */
static int read_windows(st_reader *r, uint64_t rows, st_rows_fn *fn, void *ctx,
                        const st_window_work *w, st_error *err)
{
	if (rd_check(r, READ_ROWS, NULL, 0, err) < 0)
		return -1;
	const uint64_t rowbytes = rd_row_bytes(r);
	if (rows < 1)
		rows = 1;
	/* A pass: enough blocks for the rows asked, and a few a thread; with
	 * work beside, WINDOW_LEAST blocks at least, so that what a pass costs
	 * whatever its size (its threads started, its last block inflated
	 * while the others wait) stays small beside it (bench/stats.md). */
	uint64_t count = (rows * rowbytes + r->block - 1) / r->block;
	if (count < (uint64_t)r->threads * 4)
		count = (uint64_t)r->threads * 4;
	if (w && count < WINDOW_LEAST)
		count = WINDOW_LEAST;
	if (count > r->nblk)
		count = r->nblk;
	const size_t cap = (size_t)(count * r->block + rowbytes);
	const int nbuf = !w ? 1 : w->keep ? 3 : 2;
	unsigned char *buf[3] = {NULL, NULL, NULL};
	if (windows_fit(r, cap * nbuf, err) < 0)
		return rd_fail(r);
	int ok = 1;
	for (int i = 0; i < nbuf; i++)
		ok &= (buf[i] = window_buffer(w, cap)) != NULL;
	if (!ok) {
		release_buffers(w, buf, nbuf, cap);
		lib_fail(err, "%s: out of memory for %zu bytes of rows", r->name, cap * nbuf);
		return rd_fail(r);
	}
	struct rjob job = {.r = r, .mode = READ_ALL, .dst = buf[0], .mu = PTHREAD_MUTEX_INITIALIZER,
	                   .fail = NO_FAIL, .work = w, .group = 1};
	struct window last = {0, 0, NULL};
	uint64_t row0 = 0, carry = 0; /* bytes of a row begun at the start of the buffer */
	int rc = 0, side = 0;
	for (uint64_t b0 = 0; b0 < r->nblk && rc == 0; b0 += count) {
		const uint64_t k = r->nblk - b0 < count ? r->nblk - b0 : count;
		const uint64_t start = b0 * r->block;
		const uint64_t end = start + k * r->block < r->mbytes ? start + k * r->block : r->mbytes;
		job.dst = buf[side];
		job.base = b0;
		job.dst_off = start - carry;
		if ((rc = window_work(r, &job, k, &last, err)) < 0)
			break;
		const uint64_t have = carry + (end - start), whole = have / rowbytes;
		if (whole && !w && fn(ctx, row0, whole, buf[side]) != 0) {
			rc = stopped_at(r, row0, err);
			break;
		}
		carry = have - whole * rowbytes;
		if (w) {
			last = (struct window){row0, whole, buf[side]};
			const int next = (side + 1) % nbuf;
			memcpy(buf[next], buf[side] + whole * rowbytes, carry);
			side = next;
		} else {
			memmove(buf[0], buf[0] + whole * rowbytes, carry);
		}
		row0 += whole;
	}
	if (rc == 0 && last.count)
		rc = window_work(r, &job, 0, &last, err);
	pthread_mutex_destroy(&job.mu);
	release_buffers(w, buf, nbuf, cap);
	return rc < 0 ? rc : rd_end(r, NULL, err);
}

int st_read_windows(st_reader *r, uint64_t rows, st_rows_fn *fn, void *ctx, st_error *err)
{
	return read_windows(r, rows, fn, ctx, NULL, err);
}

/* ---- the ring: windows folded beside the reading, without passes ----
 *
 * Window w is blocks w * k .. w * k + k - 1 (the last fewer), inflated into
 * buffer w % 2 after the part of a row that window w - 1 ended on.  Each
 * thread takes, in this order of preference: window f's begin (f the
 * first window not yet ended; once its blocks are all in), one of its
 * pieces, or the stream's turn for its next block, which it then inflates
 * while the others go on.  A window's blocks may be read once the window
 * two before has ended (its buffer is free), and its begin comes after the
 * window before's end: the same calls, in the same order, as in passes,
 * with no thread waiting at a pass's end, and two windows' bytes in memory
 * instead of two larger ones fresh from the system (bench/stats.md). */

/* Blocks a window of the ring holds at least, for each thread. */
#define RING_LEAST 4

struct ring {
	st_reader *r;
	const st_window_work *w;
	struct rjob job;            /* failures: job.stop, job.fail */
	unsigned char *buf[2];
	uint64_t k, nwin, rowbytes; /* blocks a window, windows */
	int nt;
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* a window's begin, pieces or end; a stop */
	pthread_cond_t turn_cv;     /* the turn free: one waiter woken a turn */
	uint64_t next;              /* the next block to take its turn */
	int turn;                   /* a thread reads in turn */
	uint64_t *in;               /* blocks inflated, by window */
	uint64_t ended;             /* windows 0 .. ended - 1 have ended; ended is f */
	int begun;                  /* f's begin: 0 not yet, 1 under way, 2 done */
	uint64_t pieces, taken, finished; /* f's pieces */
	uint64_t row_stop;          /* an end refused its rows: their first (else UINT64_MAX) */
};

/* Window w's blocks (k, the last fewer). */
static uint64_t ring_blocks(const struct ring *g, uint64_t w)
{
	const uint64_t b0 = w * g->k;
	return g->r->nblk - b0 < g->k ? g->r->nblk - b0 : g->k;
}

/* Window w's first row, its whole rows, and the bytes of the row it begins
 * within (carried from the window before). */
static void ring_rows(const struct ring *g, uint64_t w, uint64_t *first, uint64_t *whole,
                      uint64_t *carry)
{
	const st_reader *r = g->r;
	const uint64_t start = w * g->k * r->block, stop = start + ring_blocks(g, w) * r->block;
	const uint64_t end = stop < r->mbytes ? stop : r->mbytes;
	*first = start / g->rowbytes;
	*whole = end / g->rowbytes - *first;
	*carry = start - *first * g->rowbytes;
}

/* Every waiting thread woken (under the lock): a window can begin, has
 * pieces or has ended, or the reading stopped. */
static void ring_wake_all(struct ring *g)
{
	pthread_cond_broadcast(&g->cv);
	pthread_cond_broadcast(&g->turn_cv);
}

/* Window f's end (where it had rows), then the next window's turn. */
static void ring_end(struct ring *g, uint64_t f)
{
	uint64_t first, whole, carry;
	ring_rows(g, f, &first, &whole, &carry);
	const int refused = whole && g->w->end(g->w->ctx, first, whole, g->buf[f % 2]);
	pthread_mutex_lock(&g->mu);
	if (refused && g->row_stop == UINT64_MAX) {
		g->row_stop = first;
		__atomic_store_n(&g->job.stop, 1, __ATOMIC_RELAXED);
	}
	g->ended = f + 1;
	g->begun = 0;
	ring_wake_all(g);
	pthread_mutex_unlock(&g->mu);
}

/* Window f's begin: the part of a row it ends on carried to the next
 * window's buffer (free: the window before f has ended), its pieces
 * counted. */
static void ring_begin(struct ring *g, uint64_t f)
{
	uint64_t first, whole, carry, nfirst, nwhole, ncarry;
	ring_rows(g, f, &first, &whole, &carry);
	if (f + 1 < g->nwin) {
		ring_rows(g, f + 1, &nfirst, &nwhole, &ncarry);
		memcpy(g->buf[(f + 1) % 2], g->buf[f % 2] + whole * g->rowbytes, ncarry);
	}
	const uint64_t pieces = whole ? g->w->begin(g->w->ctx, first, whole, g->buf[f % 2]) : 0;
	pthread_mutex_lock(&g->mu);
	g->begun = 2;
	g->pieces = pieces, g->taken = 0, g->finished = 0;
	ring_wake_all(g);
	pthread_mutex_unlock(&g->mu);
	if (!pieces)
		ring_end(g, f);
}

/* Blocks b0 .. b0 + cnt - 1 (one window's) read in turn, then inflated. */
static void ring_read(struct ring *g, int t, uint64_t b0, uint64_t cnt)
{
	st_reader *r = g->r;
	struct worker *wk = &r->wk[t];
	struct rblk b[READ_GROUP_MOST];
	int what[READ_GROUP_MOST] = {0}, errnum[READ_GROUP_MOST] = {0};
	const uint64_t w = b0 / g->k;
	uint64_t first, whole, carry;
	ring_rows(g, w, &first, &whole, &carry);
	const uint64_t got = rd_turn(&g->job, wk, b0, cnt, g->buf[w % 2], first * g->rowbytes, b,
	                             what, errnum);
	pthread_mutex_lock(&g->mu);
	g->turn = 0;
	pthread_cond_signal(&g->turn_cv);
	pthread_mutex_unlock(&g->mu);
	for (uint64_t i = 0; i < got; i++)
		rd_finish(&g->job, wk, &b[i], what[i], errnum[i], NULL);
	pthread_mutex_lock(&g->mu);
	g->in[w] += got;
	/* (only a window's last blocks, or a failure, let another thread on) */
	if (g->in[w] == ring_blocks(g, w) || __atomic_load_n(&g->job.stop, __ATOMIC_RELAXED))
		ring_wake_all(g);
	pthread_mutex_unlock(&g->mu);
}

enum { TAKE_NONE, TAKE_BEGIN, TAKE_PIECE, TAKE_READ };

/* What thread t does next (under the lock); TAKE_NONE: all done or stopped. */
static int ring_take(struct ring *g, uint64_t *a, uint64_t *cnt)
{
	for (;;) {
		const uint64_t f = g->ended;
		if (f == g->nwin || __atomic_load_n(&g->job.stop, __ATOMIC_RELAXED))
			return TAKE_NONE;
		if (!g->begun && g->in[f] == ring_blocks(g, f)) {
			g->begun = 1;
			*a = f;
			return TAKE_BEGIN;
		}
		if (g->begun == 2 && g->taken < g->pieces) {
			*a = g->taken++;
			return TAKE_PIECE;
		}
		const uint64_t w = g->next / g->k;
		const int readable = g->next < g->r->nblk && w < f + 2; /* (its buffer free) */
		if (!g->turn && readable) {
			const uint64_t left = w * g->k + ring_blocks(g, w) - g->next;
			const uint64_t group = rd_group(g->nt, g->k);
			*a = g->next;
			*cnt = left < group ? left : group;
			g->next += *cnt;
			g->turn = 1;
			return TAKE_READ;
		}
		/* Waiting for the turn alone: woken alone when it is free
		 * (with 64 threads, every thread woken at every turn made
		 * the ring 3x slower than on 32: bench/stats.md). */
		pthread_cond_wait(readable ? &g->turn_cv : &g->cv, &g->mu);
	}
}

/* A thread of the ring (the pool's index i, one a thread): tasks taken
 * until every window has ended or the reading stopped. */
static void ring_thread(void *ctx, int t, uint64_t i, struct pool *p)
{
	struct ring *g = ctx;
	(void)i, (void)p;
	for (;;) {
		uint64_t a = 0, cnt = 0;
		pthread_mutex_lock(&g->mu);
		const int what = ring_take(g, &a, &cnt);
		const uint64_t f = g->ended;
		pthread_mutex_unlock(&g->mu);
		if (what == TAKE_NONE)
			return;
		if (what == TAKE_BEGIN) {
			ring_begin(g, a);
		} else if (what == TAKE_READ) {
			ring_read(g, t, a, cnt);
		} else {
			g->w->piece(g->w->ctx, a);
			pthread_mutex_lock(&g->mu);
			const int last = ++g->finished == g->pieces;
			pthread_mutex_unlock(&g->mu);
			if (last)
				ring_end(g, f);
		}
	}
}

/* st_read_windows_beside() without w->keep: windows of at least rows rows. */
static int read_ring(st_reader *r, uint64_t rows, const st_window_work *w, st_error *err)
{
	if (rd_check(r, READ_ROWS, NULL, 0, err) < 0)
		return -1;
	struct ring g = {.r = r, .w = w, .rowbytes = rd_row_bytes(r), .row_stop = UINT64_MAX,
	                 .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
	                 .turn_cv = PTHREAD_COND_INITIALIZER};
	g.job = (struct rjob){.r = r, .mode = READ_ALL, .mu = PTHREAD_MUTEX_INITIALIZER,
	                      .fail = NO_FAIL, .group = 1};
	/* (as the pool runs them: more threads than cores only take turns) */
	const int cores = lib_threads(0);
	g.nt = r->mbytes < PARALLEL_MIN_BYTES ? 1 : r->threads < cores ? r->threads : cores;
	g.k = ((rows ? rows : 1) * g.rowbytes + r->block - 1) / r->block;
	if (g.k < (uint64_t)g.nt * RING_LEAST)
		g.k = (uint64_t)g.nt * RING_LEAST;
	if (g.k > r->nblk)
		g.k = r->nblk ? r->nblk : 1;
	g.nwin = (r->nblk + g.k - 1) / g.k;
	const size_t cap = (size_t)(g.k * r->block + g.rowbytes);
	if (windows_fit(r, cap * 2, err) < 0)
		return rd_fail(r);
	g.buf[0] = window_buffer(w, cap);
	g.buf[1] = window_buffer(w, cap);
	g.in = calloc(g.nwin ? g.nwin : 1, sizeof *g.in);
	if (!g.buf[0] || !g.buf[1] || !g.in) {
		release_buffers(w, g.buf, 2, cap);
		free(g.in);
		lib_fail(err, "%s: out of memory for %zu bytes of rows", r->name, cap * 2);
		return rd_fail(r);
	}
	pool_run(g.nt, (uint64_t)g.nt, ring_thread, &g); /* (fewer threads: the same windows) */
	/* Stopped: a window begun ends all the same (what begin took is given back). */
	if (g.ended < g.nwin && g.begun == 2)
		ring_end(&g, g.ended);
	int rc = 0;
	if (g.job.fail.what)
		rc = rd_failed(r, &g.job.fail, err);
	else if (g.row_stop != UINT64_MAX)
		rc = stopped_at(r, g.row_stop, err);
	release_buffers(w, g.buf, 2, cap);
	free(g.in);
	pthread_mutex_destroy(&g.mu);
	pthread_cond_destroy(&g.cv);
	pthread_cond_destroy(&g.turn_cv);
	pthread_mutex_destroy(&g.job.mu);
	return rc < 0 ? rc : rd_end(r, NULL, err);
}

int st_read_windows_beside(st_reader *r, uint64_t rows, const st_window_work *w, st_error *err)
{
	return w->keep ? read_windows(r, rows, NULL, NULL, w, err) : read_ring(r, rows, w, err);
}

