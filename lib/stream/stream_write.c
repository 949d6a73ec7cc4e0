/* stream_write.c - the stream's writer: blocks compressed on many threads
 * as an ordered pipeline, and spools of later matrices.
 *
 * Each thread takes the next block, compresses it and queues it; whichever
 * thread finds the next block in order ready writes it, and the others go on
 * compressing.  So I/O overlaps the codec, the bytes never depend on the
 * thread count, and each thread holds a block or two.  A writer hands a
 * spool's blocks to a pipe by reference; nothing needs it: a stream still
 * goes through anything that writes in order.  Nothing here prints or exits.
 */
#include "stream_internal.h"
#include "common.h"
#include "fdio.h"
#include "pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

/* A writer given less than a block at a time stages whole blocks: */
#define BATCH_PER_THREAD 4        /* blocks per thread */
#define BATCH_MAX_BYTES (256u << 20)
#define BATCH_MIN_BYTES (4u << 20) /* small blocks: more of them */
#define BATCH_MAX_BLOCKS 4096

/* Blocks a writer stages when it is handed less than a block at a time: a
 * few per thread (more when blocks are small), at most BATCH_MAX_BYTES. */
static size_t batch_blocks(int threads, uint32_t block, uint64_t nblk)
{
	size_t nb = (size_t)threads * BATCH_PER_THREAD;
	size_t cap = BATCH_MAX_BYTES / block;

	if (nb * block < BATCH_MIN_BYTES)
		nb = BATCH_MIN_BYTES / block;
	if (nb > BATCH_MAX_BLOCKS && (size_t)threads * BATCH_PER_THREAD <= BATCH_MAX_BLOCKS)
		nb = BATCH_MAX_BLOCKS;
	if (nb > cap)
		nb = cap;
	if (nb > nblk)
		nb = (size_t)nblk;
	return nb ? nb : 1;
}

/* ---- writing ---- */

struct wblk {
	uint32_t raw, stored, crc, method;
	const unsigned char *payload;
};

struct st_writer {
	int fd, level, threads, failed;
	uint32_t block;
	uint64_t mbytes, nblk;  /* bytes and blocks of the matrix cur */
	uint64_t npad;
	struct sizes z;         /* what the matrices' sizes depend on */
	uint32_t type;          /* the header's element type */
	uint32_t todo;          /* matrix bits not yet ended */
	uint32_t cur;           /* the matrix being written, 0 when none is left */
	uint64_t blocks_out;    /* blocks of cur written so far (a part's: from its first) */
	uint64_t first_blk;     /* a spool of part of a matrix: its first block's number */
	int nmat;               /* matrices announced */
	uint64_t done;          /* raw bytes of cur taken so far (staged included) */
	size_t nb, slot;        /* blocks staged at most, bytes per block buffer */
	unsigned char *stage;   /* raw bytes of whole blocks not yet compressed */
	size_t staged, stage_cap; /* (its bytes: grown for a larger matrix) */
	struct worker *wk;
	struct spool_mem *mem;  /* a spool: blocks go here, not to fd */
	st_error err;           /* the first failure, repeated afterwards */
};

/* A spool's compressed blocks (header and payload), each compressing thread
 * copying its own out of its buffer, so nothing is copied in turn.  They are
 * cut from one reserved region (huge pages where the system has them) by
 * bumping an offset: malloc gave each block fresh pages, and at n = 10000
 * the page faults of 168 MB of predecessors were a good part of their cost.
 * Where the region cannot be reserved, each block is malloc'd. */
struct spool_mem {
	unsigned char *base;    /* the region, or NULL */
	size_t cap, used;       /* its size; bytes handed out (atomic) */
	unsigned char **blk;
	uint32_t *len;
};

static unsigned char *spool_take(struct spool_mem *m, size_t len)
{
	if (!m->base)
		return malloc(len);
	size_t at = __atomic_fetch_add(&m->used, (len + 63) & ~(size_t)63, __ATOMIC_RELAXED);
	return at + len <= m->cap ? m->base + at : NULL;
}

static void spool_mem_free(struct spool_mem *m, uint64_t nblk)
{
	if (!m)
		return;
	for (uint64_t i = 0; !m->base && m->blk && i < nblk; i++)
		free(m->blk[i]);
	if (m->base)
		munmap(m->base, m->cap);
	free(m->blk);
	free(m->len);
	free(m);
}

static int wfail(st_writer *w, st_error *err)
{
	w->failed = 1;
	if (err)
		*err = w->err;
	return -1;
}

/* Bytes of the matrix given by its bit (0: none). */
static uint64_t matrix_bytes(const st_writer *w, uint32_t matrix)
{
	return raw_bytes_of(w->z, matrix);
}

/* The byte and block counts of the matrix cur (0 when none is left). */
static void matrix_sizes(st_writer *w)
{
	w->mbytes = matrix_bytes(w, w->cur);
	w->nblk = (w->mbytes + w->block - 1) / w->block;
}

/* A writer's (or a part's spool's) fields from header h, level and
 * threads, once h and level are checked (what: the caller's verb for
 * messages).  0, or -1. */
static int writer_setup(st_writer *w, const st_header *h, int level, int threads,
                        const char *what, st_error *err)
{
	char why[200];
	if (header_check(h, h->provenance ? strlen(h->provenance) : 0, why, sizeof why) < 0)
		return lib_fail(err, "cannot %s: %s", what, why);
	if (level < 0 || level > 9)
		return lib_fail(err, "compression level %d is not in 0..9", level);
	w->level = level;
	w->threads = lib_threads(threads);
	w->block = h->block;
	w->npad = h->npad;
	w->type = h->type;
	w->z = sizes_of(h);
	/* buffers for the largest matrix */
	const uint64_t most = largest_matrix(h);
	w->nb = batch_blocks(w->threads, w->block, (most + h->block - 1) / h->block);
	w->slot = most < w->block ? (size_t)most : w->block;
	return 0;
}

st_writer *st_writer_open(int fd, const st_header *h, int level, int threads,
                          st_error *err)
{
	st_writer setup = {0};
	if (writer_setup(&setup, h, level, threads, "write stream", err) < 0)
		return NULL;
	st_writer *w = calloc(1, sizeof *w);
	if (!w) {
		lib_fail(err, "out of memory");
		return NULL;
	}
	*w = setup;
	w->fd = fd;
	w->todo = h->matrices;
	w->cur = next_bit(w->todo);
	w->nmat = st_matrix_count(h);
	size_t plen = h->provenance ? strlen(h->provenance) : 0;
	matrix_sizes(w);
	w->wk = calloc((size_t)w->threads, sizeof *w->wk);
	if (!w->wk) {
		lib_fail(err, "out of memory");
		st_writer_abort(w);
		return NULL;
	}

	/* version 2 where the arcs or the sources are counted after the fixed
	 * fields, 3 where a table's columns are counted after them */
	const int counted = (h->matrices & (ST_ARCS | ST_SOURCES)) != 0;
	const int table = (h->matrices & ST_TARGETS) != 0;
	const size_t fixed = HDR_FIXED + (counted ? HDR_COUNT : 0) + (table ? HDR_COUNT : 0);
	const size_t hlen = fixed + plen + 4;
	unsigned char *b = malloc(hlen);
	if (!b) {
		lib_fail(err, "out of memory for the header (%zu bytes)", hlen);
		st_writer_abort(w);
		return NULL;
	}
	memcpy(b, st_magic, 8);
	put32(b + 8, table ? 3 : counted ? 2 : 1);
	put32(b + 12, (uint32_t)hlen);
	put64(b + 16, h->n);
	put64(b + 24, h->npad);
	put32(b + 32, h->type);
	put32(b + 36, h->matrices);
	put32(b + 40, h->flags);
	put32(b + 44, h->block);
	put32(b + 48, (uint32_t)h->inf_i32);
	put64(b + 52, (uint64_t)h->cycle_vertex);
	put32(b + 60, (uint32_t)plen);
	if (counted)
		put64(b + HDR_FIXED, h->matrices & ST_SOURCES ? h->rows : h->arcs);
	if (table)
		put64(b + HDR_FIXED + HDR_COUNT, h->cols);
	if (plen)
		memcpy(b + fixed, h->provenance, plen);
	put32(b + fixed + plen, bc_crc32(b, fixed + plen));
	int rc = fdio_write_full(fd, b, hlen);
	free(b);
	if (rc < 0) {
		lib_fail(err, "write error: %s", strerror(errno));
		st_writer_abort(w);
		return NULL;
	}
	return w;
}

void st_writer_abort(st_writer *w)
{
	if (!w)
		return;
	workers_free(w->wk, w->threads);
	free(w->stage);
	spool_mem_free(w->mem, w->nblk);
	free(w);
}

/* Compress one block of raw bytes p into out (BLK_HDR + slot bytes; the
 * codec, lib/stream/blockcodec.h, chooses the method).  0, or -1 out of memory. */
static int compress_block(st_writer *w, struct worker *wk, unsigned char *out,
                          const unsigned char *p, uint32_t raw, struct wblk *b)
{
	b->raw = raw;
	b->crc = bc_crc32(p, raw);
	b->method = M_STORED;
	b->stored = raw;
	b->payload = p;
	if (!wk->c && !(wk->c = bc_coder_new(w->level, w->block)))
		return -1;
	uint32_t method;
	int64_t got = bc_encode(wk->c, p, raw, out + BLK_HDR, &method);
	if (got < 0)
		return -1;
	if (method != M_STORED) {
		b->method = method;
		b->stored = (uint32_t)got;
		b->payload = out + BLK_HDR;
	}
	return 0;
}

/* A compressed block waiting for the blocks before it to be written. */
struct wready {
	uint64_t j;
	int ready, bad;
	unsigned char *hd;          /* its header, and its stored bytes when deflated */
	const unsigned char *payload;
	uint32_t stored;
	int *busy;                  /* its buffers' flag, cleared once written */
	pthread_cond_t *freed;      /* its thread's, signalled then */
};

struct wjob {
	st_writer *w;
	const unsigned char *head;  /* whole blocks staged before src, or NULL */
	size_t headbytes;
	const unsigned char *src;   /* the raw bytes, or NULL: fill() makes them */
	size_t nbytes;
	int nomem, werrno, nofill;
	uint64_t first; /* index of the first block in its matrix */
	st_fill_fn *fill;
	void *ctx;
	/* Blocks are written in order by whichever thread finds the next one
	 * ready and nobody writing: each thread queues its block and goes on
	 * to compress another, instead of waiting for its turn. */
	pthread_mutex_t mu;
	/* Thread t waits on freed[t] for one of its two buffers: only the
	 * thread whose block was written is woken.  (One condition for all,
	 * broadcast for every block, woke every waiting thread each time: on
	 * 64 cores writing into a pipe that took it slower, hundreds of
	 * thousands of wakeups a second, each fighting for mu.) */
	pthread_cond_t *freed;
	int writing;
	uint64_t next_out;          /* the next block to write */
	struct wready *ready;       /* nready slots: block j in slot j % nready */
	size_t nready;
};

/* What went wrong with a block (write_one's bad: 1 out of memory, 3 the
 * fill failed, 4 no room in the spool) recorded for the whole write. */
static void note_failure(struct wjob *job, int bad)
{
	if (bad == 1)
		__atomic_store_n(&job->nomem, 1, __ATOMIC_RELAXED);
	if (bad == 3)
		__atomic_store_n(&job->nofill, 1, __ATOMIC_RELAXED);
	if (bad == 4)
		__atomic_store_n(&job->werrno, ENOMEM, __ATOMIC_RELAXED);
}

/* Write the blocks ready from next_out on, in order; called with job->mu
 * held by the thread that set job->writing, which it holds throughout. */
static void write_ready(struct wjob *job, struct pool *p)
{
	st_writer *w = job->w;
	struct wready *r;

	while ((r = &job->ready[job->next_out % job->nready])->ready && r->j == job->next_out) {
		struct wready b = *r;
		r->ready = 0;
		pthread_mutex_unlock(&job->mu);
		note_failure(job, b.bad);
		if (!b.bad && !job->nomem && !job->werrno && !job->nofill) {
			struct iovec iov[2];
			int k = 1;
			iov[0] = (struct iovec){b.hd, BLK_HDR};
			if (b.payload == b.hd + BLK_HDR)
				iov[0].iov_len += b.stored;
			else
				iov[k++] = (struct iovec){(void *)b.payload, b.stored};
			if (fdio_writev_full(w->fd, iov, k) < 0)
				__atomic_store_n(&job->werrno, errno ? errno : EIO, __ATOMIC_RELAXED);
		}
		if (b.bad || job->nomem || job->werrno || job->nofill)
			pool_halt(p);
		pthread_mutex_lock(&job->mu);
		*b.busy = 0;
		job->next_out++;
		pthread_cond_signal(b.freed);
	}
}

static void write_one(void *ctx, int t, uint64_t j, struct pool *p)
{
	struct wjob *job = ctx;
	st_writer *w = job->w;
	struct worker *wk = &w->wk[t];
	size_t off = (size_t)j * w->block;
	const unsigned char *src;
	uint32_t raw;
	if (off < job->headbytes) {
		src = job->head + off;
		raw = w->block;
	} else {
		off -= job->headbytes;
		src = job->src + off;
		raw = job->nbytes - off < w->block ? (uint32_t)(job->nbytes - off) : w->block;
	}
	/* This block takes whichever of the thread's two buffers has been
	 * written (waiting while both are queued). */
	int k = 0;
	if (!w->mem) {
		pthread_mutex_lock(&job->mu);
		while (wk->busy[0] && wk->busy[1])
			pthread_cond_wait(&job->freed[t], &job->mu);
		k = wk->busy[0];
		pthread_mutex_unlock(&job->mu);
	}
	unsigned char **out = k ? &wk->buf2 : &wk->buf, **fillbuf = k ? &wk->raw2 : &wk->raw;
	struct wblk b = {0};
	int bad = __atomic_load_n(&job->werrno, __ATOMIC_RELAXED)
	          || __atomic_load_n(&job->nomem, __ATOMIC_RELAXED)
	          || __atomic_load_n(&job->nofill, __ATOMIC_RELAXED) ? 2 : 0;
	if (!bad && !*out && !(*out = malloc(BLK_HDR + w->slot)))
		bad = 1;
	if (!bad && !job->src) {
		/* the block's raw bytes are made here, on this thread */
		if (!*fillbuf && !(*fillbuf = malloc(w->slot)))
			bad = 1;
		else if (job->fill(job->ctx, (job->first + j) * w->block, *fillbuf, raw) != 0)
			bad = 3;
		src = *fillbuf;
	}
	if (!bad)
		bad = compress_block(w, wk, *out, src, raw, &b) < 0;
	unsigned char *hd = *out;
	if (!bad) {
		put32(hd, b.raw);
		put32(hd + 4, b.stored);
		put32(hd + 8, b.crc ^ block_tag(w->cur, job->first + j));
		put32(hd + 12, b.method);
	}
	if (w->mem) {
		/* A spool's block goes to its place in memory now: no order. */
		unsigned char *own = NULL;
		if (!bad && !(own = spool_take(w->mem, BLK_HDR + (size_t)b.stored)))
			bad = 4;
		if (own) {
			memcpy(own, hd, BLK_HDR);
			memcpy(own + BLK_HDR, b.payload, b.stored);
			w->mem->blk[job->first + j - w->first_blk] = own;
			w->mem->len[job->first + j - w->first_blk] = BLK_HDR + b.stored;
		}
		note_failure(job, bad);
		if (bad)
			pool_halt(p);
		return;
	}
	pthread_mutex_lock(&job->mu);
	wk->busy[k] = 1;
	job->ready[j % job->nready] =
		(struct wready){j, 1, bad, hd, b.payload, b.stored, &wk->busy[k], &job->freed[t]};
	if (!job->writing) {
		job->writing = 1;
		write_ready(job, p);
		job->writing = 0;
	}
	pthread_mutex_unlock(&job->mu);
}

/* Compress the blocks of src (nbytes, starting on a block boundary of the
 * current matrix) on all threads and write them in order: each thread
 * compresses its next block and queues it, and the blocks are written in
 * order as they come ready, so writing overlaps compression and each
 * thread holds at most two blocks. */
static int write_blocks(st_writer *w, const unsigned char *head, size_t headbytes,
                        const unsigned char *src, size_t nbytes, st_fill_fn *fill, void *ctx,
                        st_error *err)
{
	uint64_t cnt = (headbytes + nbytes + w->block - 1) / w->block;
	struct wjob job = {w, head, headbytes, src, nbytes, 0, 0, 0, w->blocks_out, fill, ctx,
	                   PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, NULL, 0};

	/* Blocks taken and not yet written are at most three a thread (two
	 * queued, one waiting for a buffer), so each has a slot of its own. */
	job.nready = 3 * (size_t)w->threads + 1;
	if (!w->mem && (!(job.ready = calloc(job.nready, sizeof *job.ready))
	                || !(job.freed = malloc((size_t)w->threads * sizeof *job.freed)))) {
		free(job.ready);
		lib_fail(&w->err, "out of memory for deflate state and buffers");
		return wfail(w, err);
	}
	for (int t = 0; job.freed && t < w->threads; t++)
		pthread_cond_init(&job.freed[t], NULL);
	pool_run(headbytes + nbytes >= PARALLEL_MIN_BYTES ? w->threads : 1, cnt, write_one, &job);
	for (int t = 0; job.freed && t < w->threads; t++)
		pthread_cond_destroy(&job.freed[t]);
	free(job.freed);
	free(job.ready);
	pthread_mutex_destroy(&job.mu);
	w->blocks_out += cnt;
	if (job.werrno) {
		lib_fail(&w->err, "write error: %s", strerror(job.werrno));
		return wfail(w, err);
	}
	if (job.nomem) {
		lib_fail(&w->err, "out of memory for deflate state and buffers");
		return wfail(w, err);
	}
	if (job.nofill) {
		lib_fail(&w->err, "the source of the %s's data failed", matrix_name(w->cur));
		return wfail(w, err);
	}
	return 0;
}

/* Can the writer take len more bytes of the current matrix?  0 or -1. */
static int write_check(st_writer *w, uint64_t len, st_error *err)
{
	if (w->failed)
		return wfail(w, err);
	if (!len)
		return 0;
	if (!w->cur) {
		lib_fail(&w->err, "more data than the %d matrices the header announces", w->nmat);
		return wfail(w, err);
	}
	if (len > w->mbytes - w->done) {
		lib_fail(&w->err, "%llu bytes more for the %s, which holds only %llu more",
		       (unsigned long long)len, matrix_name(w->cur),
		       (unsigned long long)(w->mbytes - w->done));
		return wfail(w, err);
	}
	return 0;
}

static int flush_stage(st_writer *w, st_error *err)
{
	if (write_blocks(w, NULL, 0, w->stage, w->staged, NULL, NULL, err) < 0)
		return -1;
	w->staged = 0;
	return 0;
}

/* Whole blocks go from buf to the codec; what is left of a block waits in
 * the stage.  A caller that hands over pieces of a block at a time has
 * them gathered into a batch of blocks first; one that hands over large
 * pieces not cut at block boundaries (row panels) has only the block that
 * straddles two pieces copied. */
int st_write(st_writer *w, const void *buf, size_t len, st_error *err)
{
	const unsigned char *p = buf;
	size_t batch = w->nb * (size_t)w->block;

	if (write_check(w, len, err) < 0)
		return -1;
	while (len) {
		if (w->staged && w->staged % w->block == 0 && len >= w->block) {
			/* the staged blocks and buf's whole blocks in one round of
			 * the threads, not one after the other (a panel not cut at
			 * block boundaries would otherwise compress its first block
			 * alone) */
			size_t k = len == w->mbytes - w->done ? len : len / w->block * w->block;
			if (write_blocks(w, w->stage, w->staged, p, k, NULL, NULL, err) < 0)
				return -1;
			w->staged = 0;
			w->done += k;
			p += k;
			len -= k;
			continue;
		}
		if (w->staged == 0) {
			/* Whole blocks, and the matrix's tail, straight from buf. */
			size_t k = len == w->mbytes - w->done ? len : len / w->block * w->block;
			if (k) {
				if (write_blocks(w, NULL, 0, p, k, NULL, NULL, err) < 0)
					return -1;
				w->done += k;
				p += k;
				len -= k;
				continue;
			}
			/* (sized for this matrix: a later one may be larger, a
			 * table's whole predecessor rows after its few columns) */
			const size_t need = batch < w->mbytes ? batch : (size_t)w->mbytes;
			if (w->stage_cap < need) {
				free(w->stage);
				if (!(w->stage = malloc(need))) {
					w->stage_cap = 0;
					lib_fail(&w->err, "out of memory for a write buffer of %zu bytes", need);
					return wfail(w, err);
				}
				w->stage_cap = need;
			}
		}
		size_t room = (w->mbytes - w->done < batch - w->staged)
			? (size_t)(w->mbytes - w->done) : batch - w->staged;
		if (len >= w->block && room > w->block - w->staged % w->block)
			room = w->block - w->staged % w->block; /* complete this block only */
		size_t k = len < room ? len : room;
		memcpy(w->stage + w->staged, p, k);
		w->staged += k;
		w->done += k;
		p += k;
		len -= k;
		if ((w->staged == batch || w->done == w->mbytes) && flush_stage(w, err) < 0)
			return -1;
	}
	return 0;
}

int st_write_fill(st_writer *w, uint64_t len, st_fill_fn *fill, void *ctx, st_error *err)
{
	if (write_check(w, len, err) < 0)
		return -1;
	if (!len)
		return 0;
	if (w->staged || w->done % w->block
	    || (len % w->block && len != w->mbytes - w->done)) {
		lib_fail(&w->err, "st_write_fill: %llu bytes at offset %llu of the %s are not whole blocks",
		       (unsigned long long)len, (unsigned long long)w->done, matrix_name(w->cur));
		return wfail(w, err);
	}
	if (write_blocks(w, NULL, 0, NULL, (size_t)len, fill, ctx, err) < 0)
		return -1;
	w->done += len;
	return 0;
}

static int write_marker(st_writer *w, uint32_t count, uint32_t tag, st_error *err)
{
	unsigned char m[BLK_HDR];

	put32(m, 0);
	put32(m + 4, 0);
	put32(m + 8, count);
	put32(m + 12, tag);
	if (fdio_write_full(w->fd, m, sizeof m) < 0) {
		lib_fail(&w->err, "write error: %s", strerror(errno));
		return wfail(w, err);
	}
	return 0;
}

int st_write_end_matrix(st_writer *w, st_error *err)
{
	if (w->failed)
		return wfail(w, err);
	if (!w->cur) {
		lib_fail(&w->err, "no matrix left to end: the header announces %d", w->nmat);
		return wfail(w, err);
	}
	if (w->done != w->mbytes) {
		lib_fail(&w->err, "the %s ended after %llu of its %llu bytes", matrix_name(w->cur),
		       (unsigned long long)w->done, (unsigned long long)w->mbytes);
		return wfail(w, err);
	}
	if (write_marker(w, (uint32_t)w->nblk, TAG_EOM, err) < 0)
		return -1;
	w->todo &= ~w->cur;
	w->cur = next_bit(w->todo);
	matrix_sizes(w);
	w->blocks_out = 0;
	w->done = 0;
	return 0;
}

int st_write_matrix(st_writer *w, const void *m, st_error *err)
{
	if (st_write(w, m, (size_t)w->mbytes, err) < 0)
		return -1;
	return st_write_end_matrix(w, err);
}

int st_writer_close(st_writer *w, st_error *err)
{
	int rc = 0;

	if (w->failed) {
		rc = wfail(w, err);
	} else if (w->cur) {
		lib_fail(&w->err, "stream closed with %d of its %d matrices written",
		       w->nmat - __builtin_popcount(w->todo), w->nmat);
		rc = wfail(w, err);
	} else {
		rc = write_marker(w, (uint32_t)w->nmat, TAG_EOS, err);
	}
	st_writer_abort(w);
	return rc;
}

/* ---- a later matrix, compressed ahead ---- */

/* A spool is a writer of one matrix whose blocks go to memory: the same
 * cutting into blocks, the same codec and block tags, so its bytes are the
 * ones the writer would have written itself. */
struct st_spool {
	st_writer w;
};

/* A spool of bytes offset .. offset + len - 1 of matrix (its bit), for a
 * writer with the fields of tmpl (block, element type, size, codec). */
static st_spool *spool_new(const st_writer *tmpl, uint32_t matrix, uint64_t offset, uint64_t len,
                           st_error *err)
{
	const uint64_t nblk = (len + tmpl->block - 1) / tmpl->block;
	st_spool *s = calloc(1, sizeof *s);
	struct spool_mem *m = calloc(1, sizeof *m);
	if (!s || !m || !(m->blk = calloc(nblk ? nblk : 1, sizeof *m->blk))
	    || !(m->len = calloc(nblk ? nblk : 1, sizeof *m->len))
	    || !(s->w.wk = calloc((size_t)tmpl->threads, sizeof *s->w.wk))) {
		spool_mem_free(m, 0);
		free(s);
		lib_fail(err, "out of memory");
		return NULL;
	}
	/* Room for every block at its largest (a stored block is its raw bytes),
	 * reserved, not committed: only what the blocks fill is ever touched
	 * (so a mapping of its own, not lib_huge_alloc's committed memory). */
	m->cap = (size_t)nblk * (((size_t)BLK_HDR + tmpl->slot + 63) & ~(size_t)63);
	void *base = mmap(NULL, m->cap ? m->cap : 1, PROT_READ | PROT_WRITE,
	                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base != MAP_FAILED) {
		m->base = base;
#ifdef MADV_HUGEPAGE
		madvise(base, m->cap ? m->cap : 1, MADV_HUGEPAGE);
#endif
	}
	s->w.mem = m;
	st_writer *c = &s->w;
	c->fd = -1;
	c->level = tmpl->level;
	c->threads = tmpl->threads;
	c->block = tmpl->block;
	c->npad = tmpl->npad;
	c->type = tmpl->type;
	c->todo = c->cur = matrix;
	c->mbytes = len;
	c->nblk = nblk;
	c->first_blk = c->blocks_out = offset / tmpl->block;
	c->nmat = 1;
	c->nb = tmpl->nb;
	c->slot = tmpl->slot;
	return s;
}

st_spool *st_spool_open(st_writer *w, uint32_t matrix, st_error *err)
{
	if (w->failed) {
		wfail(w, err);
		return NULL;
	}
	if (__builtin_popcount(matrix) != 1 || !(w->todo & matrix) || matrix == w->cur) {
		if (__builtin_popcount(matrix) == 1 && matrix <= ST_PRED)
			lib_fail(err, "cannot spool the %s: the header announces none after the %s",
			       matrix_name(matrix), w->cur ? matrix_name(w->cur) : "last matrix");
		else
			lib_fail(err, "cannot spool matrix bits 0x%x: one matrix bit is needed", matrix);
		return NULL;
	}
	return spool_new(w, matrix, 0, matrix_bytes(w, matrix), err);
}

st_spool *st_spool_open_part(const st_header *h, uint32_t matrix, uint64_t offset, uint64_t len,
                             int level, int threads, st_error *err)
{
	st_writer t = {0};
	if (writer_setup(&t, h, level, threads, "spool", err) < 0)
		return NULL;
	if (__builtin_popcount(matrix) != 1 || !(h->matrices & matrix)) {
		lib_fail(err, "cannot spool matrix bits 0x%x: one matrix bit of the header's is needed",
		         matrix);
		return NULL;
	}
	const uint64_t whole = matrix_bytes(&t, matrix);
	if (offset % h->block || offset > whole || len > whole - offset
	    || (len % h->block && offset + len != whole)) {
		lib_fail(err, "bytes %llu..%llu of the %s (%llu bytes) are not whole blocks of %u",
		         (unsigned long long)offset, (unsigned long long)(offset + len),
		         matrix_name(matrix), (unsigned long long)whole, h->block);
		return NULL;
	}
	return spool_new(&t, matrix, offset, len, err);
}

uint64_t st_spool_blocks(const st_spool *s)
{
	return s->w.nblk;
}

const void *st_spool_block(const st_spool *s, uint64_t i, size_t *len)
{
	*len = s->w.mem->len[i];
	return s->w.mem->blk[i];
}

int st_spool_write(st_spool *s, const void *buf, size_t len, st_error *err)
{
	return st_write(&s->w, buf, len, err);
}

void st_spool_free(st_spool *s)
{
	if (!s)
		return;
	st_writer *c = &s->w;
	workers_free(c->wk, c->threads);
	free(c->stage);
	spool_mem_free(c->mem, c->nblk);
	free(s);
}

/* Blocks staged so far written, so that the writer stands at a block
 * boundary where the next bytes are compressed blocks; 0 or -1. */
static int flush_to_boundary(st_writer *w, st_error *err)
{
	if (w->done % w->block) {
		lib_fail(&w->err, "the %s is at byte %llu, not at a block boundary",
		         matrix_name(w->cur), (unsigned long long)w->done);
		return wfail(w, err);
	}
	return w->staged ? flush_stage(w, err) : 0;
}

/* Stored blocks (headers and payloads) in iov, continuing the current
 * matrix, written to fd as they are (by reference into a pipe where
 * by_ref); 0 or -1. */
static int put_stored(st_writer *w, struct iovec *iov, int k, int *by_ref, st_error *err)
{
	int put = 1;
	if (*by_ref && (put = fdio_put_iov(w->fd, iov, k, 1)) == 1)
		*by_ref = 0;
	if (put < 0 || (put == 1 && fdio_writev_full(w->fd, iov, k) < 0)) {
		lib_fail(&w->err, "write error: %s", strerror(errno));
		return wfail(w, err);
	}
	return 0;
}

int st_write_spool(st_writer *w, st_spool *s, st_error *err)
{
	st_writer *c = &s->w;
	int rc = -1;

	if (w->failed) {
		wfail(w, err);
	} else if (c->failed) {
		w->err = c->err;
		wfail(w, err);
	} else if (w->cur != c->cur || w->done != c->first_blk * w->block) {
		lib_fail(&w->err, "the spooled %s is not the matrix the stream is at", matrix_name(c->cur));
		wfail(w, err);
	} else if (c->done != c->mbytes) {
		lib_fail(&w->err, "the spooled %s holds %llu of its %llu bytes", matrix_name(c->cur),
		       (unsigned long long)c->done, (unsigned long long)c->mbytes);
		wfail(w, err);
	} else if (flush_to_boundary(w, err) == 0) {
		struct spool_mem *m = c->mem;
		struct iovec iov[64];
		/* The region is unmapped once written, never written again: a
		 * pipe may take its pages by reference (malloc'd blocks could be
		 * handed out again while the pipe still holds them). */
		int by_ref = m->base != NULL;
		rc = 0;
		for (uint64_t i = 0; i < c->nblk && rc == 0; i += 64) {
			int k = 0;
			for (; k < 64 && i + k < c->nblk; k++)
				iov[k] = (struct iovec){m->blk[i + k], m->len[i + k]};
			rc = put_stored(w, iov, k, &by_ref, err);
		}
		if (rc == 0) {
			w->done += c->mbytes;
			w->blocks_out += c->nblk;
			if (w->done == w->mbytes)
				rc = st_write_end_matrix(w, err);
		}
	}
	st_spool_free(s);
	return rc;
}

int st_write_stored(st_writer *w, const void *buf, size_t len, st_error *err)
{
	const unsigned char *p = buf;
	if (write_check(w, len ? 1 : 0, err) < 0 || flush_to_boundary(w, err) < 0)
		return -1;
	uint64_t raw = 0, blocks = 0;
	for (size_t at = 0; at < len; blocks++) {
		const uint64_t start = w->done + raw;
		uint32_t r = 0, stored = 0, method = 0;
		if (len - at >= BLK_HDR)
			r = get32(p + at), stored = get32(p + at + 4), method = get32(p + at + 12);
		if (len - at < BLK_HDR || start >= w->mbytes
		    || !block_header_ok(r, stored, method, block_raw(w->mbytes, start, w->block))
		    || stored > len - at - BLK_HDR) {
			lib_fail(&w->err, "stored block %llu of the %s is not whole or not the next one",
			         (unsigned long long)(w->blocks_out + blocks), matrix_name(w->cur));
			return wfail(w, err);
		}
		raw += r;
		at += BLK_HDR + stored;
	}
	struct iovec iov = {(void *)buf, len};
	int by_ref = 0;
	if (len && put_stored(w, &iov, 1, &by_ref, err) < 0)
		return -1;
	w->done += raw;
	w->blocks_out += blocks;
	return 0;
}

int st_write_all(int fd, const st_header *h, const void *weights,
                 const void *dist, const void *pred, int level, int threads,
                 st_error *err)
{
	st_writer *w = st_writer_open(fd, h, level, threads, err);
	if (!w)
		return -1;
	for (uint32_t bits = h->matrices, bit; (bit = next_bit(bits)); bits &= ~bit) {
		/* (a list of arcs: its records as weights) */
		const void *src = bit == ST_WEIGHTS || bit == ST_ARCS ? weights
		                : bit == ST_DIST                     ? dist
		                : bit == ST_PRED                     ? pred
		                                                     : NULL; /* (an order: st_write_matrix) */
		if (!src) {
			lib_fail(err, "no data given for the %s the header announces", matrix_name(bit));
			st_writer_abort(w);
			return -1;
		}
		if (st_write_matrix(w, src, err) < 0) {
			st_writer_abort(w);
			return -1;
		}
	}
	return st_writer_close(w, err);
}
