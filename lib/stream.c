/* stream.c - the binary matrix stream: a checked header, then each matrix as
 * independently deflated blocks with sizes and a CRC32, then markers.
 *
 * The byte layout is in man/apspmat.5.  Blocks are compressed and inflated on
 * many threads as an ordered pipeline.  Writing, each thread takes the next
 * block, compresses it and queues it; whichever thread finds the next block
 * in order ready writes it, and the others go on compressing.  Reading, each
 * thread takes the next block, reads its stored bytes when its turn comes
 * (in a regular file it only notes where they are, and reads them after the
 * turn) and inflates it while the others read on.  So I/O overlaps the
 * codec, the bytes never depend on the thread count, and each thread holds
 * a block or two.  How one block is coded (deflate engine,
 * CRC32, byte shuffle) is lib/blockcodec.c's.  Nothing here prints or
 * exits.  A reader passes over the blocks it does not want without copying
 * them where it can: it seeks past them in a regular file and moves them
 * from a pipe to /dev/null inside the kernel; a writer hands a spool's blocks
 * to a pipe by reference.  Neither needs it: a stream still goes through
 * anything that reads or writes in order.
 */
#include "stream.h"
#include "blockcodec.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static const unsigned char st_magic[8] = {0x89, 'A', 'P', 'M', '\r', '\n', 0x1a, '\n'};

#define HDR_FIXED 64              /* header bytes before the provenance text */
#define PROV_MAX (1u << 20)       /* provenance bytes */
#define BLOCK_MAX (64u << 20)     /* raw bytes per block */
#define BLK_HDR 16                /* raw, stored, crc, method */
#define TAG_EOM 0x4d444e45u       /* "ENDM": end of one matrix */
#define TAG_EOS 0x53444e45u       /* "ENDS": end of the stream */
/* A writer given less than a block at a time stages whole blocks: */
#define BATCH_PER_THREAD 4        /* blocks per thread */
#define BATCH_MAX_BYTES (256u << 20)
#define BATCH_MIN_BYTES (4u << 20) /* small blocks: more of them */
#define BATCH_MAX_BLOCKS 4096
#define PARALLEL_MIN_BYTES (64u << 10) /* less is not worth waking threads */

enum { M_STORED = BC_STORED, M_DEFLATE = BC_DEFLATE, M_SHUFFLE = BC_SHUFFLE };

/* ---- small helpers ---- */

static void seterr(st_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void seterr(st_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

static const char *matrix_name(uint32_t bit)
{
	switch (bit) {
	case ST_WEIGHTS: return "weight matrix";
	case ST_DIST: return "distance matrix";
	case ST_PRED: return "predecessor matrix";
	}
	return "matrix";
}

static uint32_t first_bit(uint32_t bits)
{
	return bits & -bits;
}

static int default_threads(int threads)
{
	if (threads > 0)
		return threads;
	threads = omp_get_num_procs();
	return threads > 0 ? threads : 1;
}

/* The CRC field of block i of a matrix holds the CRC of its raw bytes XOR
 * this tag, so a block that turns up in another place (blocks swapped or
 * repeated, a block of another matrix) fails its check. */
static uint32_t block_tag(uint32_t matrix_bit, uint64_t index)
{
	uint64_t x = ((uint64_t)matrix_bit << 48) ^ index;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(x ^ (x >> 31));
}

/* Up to len bytes from fd into buf: fewer only at the end of the input.
 * at >= 0: from that offset of a file, leaving its position alone (pread);
 * else from the current position.  -1 (errno). */
static ssize_t read_at(int fd, void *buf, size_t len, int64_t at)
{
	unsigned char *p = buf;
	size_t got = 0;

	while (got < len) {
		size_t want = len - got > (1u << 30) ? (1u << 30) : len - got;
		ssize_t r = at < 0 ? read(fd, p + got, want)
		                   : pread(fd, p + got, want, (off_t)(at + (int64_t)got));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
	return read_at(fd, buf, len, -1);
}

/* Write every byte of iov[0..cnt-1].  by_ref: into the pipe fd by
 * reference (vmsplice), so the reader copies out of the writer's pages and
 * the writer copies nothing.  Only for memory nothing writes again: the pipe
 * holds the pages until the reader has them, after the writer has moved on
 * or unmapped them.  0; 1 when by_ref and fd takes no splice (not a pipe:
 * nothing was written); -1 (errno). */
static int put_iov(int fd, struct iovec *iov, int cnt, int by_ref)
{
	int any = 0;
#ifndef SPLICE_F_GIFT
	if (by_ref)
		return 1;
#endif
	while (cnt > 0) {
		int k = cnt > 64 ? 64 : cnt;
#ifdef SPLICE_F_GIFT
		ssize_t r = by_ref ? vmsplice(fd, iov, (unsigned long)k, 0) : writev(fd, iov, k);
#else
		ssize_t r = writev(fd, iov, k);
#endif
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return by_ref && !any && (errno == EBADF || errno == EINVAL) ? 1 : -1;
		}
		any = 1;
		size_t done = (size_t)r;
		while (cnt > 0 && done >= iov->iov_len) {
			done -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + done;
			iov->iov_len -= done;
		}
		while (cnt > 0 && iov->iov_len == 0) {
			iov++;
			cnt--;
		}
	}
	return 0;
}

static int writev_full(int fd, struct iovec *iov, int cnt)
{
	return put_iov(fd, iov, cnt, 0);
}

static int write_full(int fd, const void *buf, size_t len)
{
	struct iovec iov = {(void *)buf, len};
	return len ? writev_full(fd, &iov, 1) : 0;
}

/* Per-thread codec state and buffers, set up by the thread that first
 * needs them: a reading thread holds one block in flight, a writing thread
 * up to two (queued to be written while it compresses another). */
struct worker {
	bc_coder *c;            /* the block codec (lib/blockcodec.h) */
	unsigned char *buf;     /* writer: block header + stored bytes; reader: stored bytes */
	unsigned char *raw;     /* reader, rows mode: the raw block; writer: filled raw bytes */
	unsigned char *buf2, *raw2; /* writer: the second block's */
	int busy[2];            /* writer: buffers k hold a block waiting to be written */
};

static void workers_free(struct worker *wk, int n)
{
	if (!wk)
		return;
	for (int i = 0; i < n; i++) {
		bc_coder_free(wk[i].c);
		free(wk[i].buf);
		free(wk[i].raw);
		free(wk[i].buf2);
		free(wk[i].raw2);
	}
	free(wk);
}

/* An ordered pipeline on nt threads: body(ctx, t, i, p) runs for every i
 * in 0..cnt-1, on thread t (0..nt-1, the caller is 0), and may bracket
 * the part that must run in index order (the reader's I/O) with
 * pool_enter/pool_leave, exactly once per i.  Waiting threads sleep on a condition variable rather
 * than spin: in a pipeline of tools every stage runs on all cores, and a
 * spinning waiter would steal the core of the thread it waits for. */
struct pool {
	pthread_mutex_t mu;
	pthread_cond_t *slot;   /* nt of them: index i waits on slot[i % nt] */
	int nt;
	uint64_t next, turn, cnt;
	void (*body)(void *ctx, int t, uint64_t i, struct pool *p);
	void *ctx;
	int halt;   /* pool_halt(): take no further index */
};

struct pool_arg {
	struct pool *p;
	int t;
};

static void *pool_thread(void *arg)
{
	struct pool_arg *a = arg;
	struct pool *p = a->p;
	uint64_t i;

	while (!__atomic_load_n(&p->halt, __ATOMIC_RELAXED)
	       && (i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->cnt)
		p->body(p->ctx, a->t, i, p);
	return NULL;
}

/* After a failure: the indices already taken still run (their turns keep the
 * order), no new one starts, so a hostile block count ends at once. */
static void pool_halt(struct pool *p)
{
	__atomic_store_n(&p->halt, 1, __ATOMIC_RELAXED);
}

/* The indices in flight are turn..next-1, fewer than nt, so no two of them
 * share a slot: leaving wakes only the thread whose turn comes next, not
 * every waiter (16 threads woken per block made a convoy of two tools'
 * pools on the same cores). */
static void pool_enter(struct pool *p, uint64_t i)
{
	pthread_mutex_lock(&p->mu);
	while (p->turn != i)
		pthread_cond_wait(&p->slot[i % p->nt], &p->mu);
	pthread_mutex_unlock(&p->mu);
}

static void pool_leave(struct pool *p, uint64_t i)
{
	pthread_mutex_lock(&p->mu);
	p->turn = i + 1;
	pthread_cond_signal(&p->slot[(i + 1) % p->nt]);
	pthread_mutex_unlock(&p->mu);
}

static void pool_run(int nt, uint64_t cnt, void (*body)(void *, int, uint64_t, struct pool *),
                     void *ctx)
{
	pthread_cond_t one = PTHREAD_COND_INITIALIZER;
	struct pool p = {PTHREAD_MUTEX_INITIALIZER, &one, 1, 0, 0, cnt, body, ctx, 0};
	int started = 0;

	if ((uint64_t)nt > cnt)
		nt = (int)cnt;
	/* More threads than cores only take turns on them. */
	int cores = omp_get_num_procs();
	if (cores > 0 && nt > cores)
		nt = cores;
	if (nt < 1)
		nt = 1;
	/* Threads of its own, not OpenMP's team: with the team, writing a
	 * distance matrix on 16 cores ran at a third of the speed
	 * (bench/stream.md). */
	pthread_t *tid = nt > 1 ? malloc((size_t)nt * sizeof *tid) : NULL;
	struct pool_arg *args = nt > 1 ? malloc((size_t)nt * sizeof *args) : NULL;
	pthread_cond_t *slot = nt > 1 ? malloc((size_t)nt * sizeof *slot) : NULL;
	if (slot) {
		for (int t = 0; t < nt; t++)
			pthread_cond_init(&slot[t], NULL);
		p.slot = slot;
		p.nt = nt;
	}
	for (int t = 1; t < nt && tid && args && slot; t++) {
		args[t] = (struct pool_arg){&p, t};
		if (pthread_create(&tid[t], NULL, pool_thread, &args[t]) != 0)
			break; /* fewer threads, same result */
		started = t;
	}
	struct pool_arg self = {&p, 0};
	pool_thread(&self);
	for (int t = 1; t <= started; t++)
		pthread_join(tid[t], NULL);
	for (int t = 0; t < p.nt; t++)
		pthread_cond_destroy(&p.slot[t]);
	free(slot);
	free(tid);
	free(args);
	pthread_mutex_destroy(&p.mu);
}

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

/* ---- header ---- */

void st_header_init(st_header *h, uint64_t n, uint64_t pad, enum st_type type)
{
	memset(h, 0, sizeof *h);
	h->n = n;
	h->npad = pad > 1 ? (n + pad - 1) / pad * pad : n;
	h->type = type;
	h->block = ST_BLOCK_DEFAULT;
	h->inf_i32 = ST_INF_I32;
	h->cycle_vertex = -1;
}

void st_header_free(st_header *h)
{
	if (!h)
		return;
	free(h->provenance);
	h->provenance = NULL;
}

uint64_t st_matrix_bytes(const st_header *h)
{
	return h->npad * h->npad * 4;
}

int st_matrix_count(const st_header *h)
{
	return __builtin_popcount(h->matrices & (ST_WEIGHTS | ST_DIST | ST_PRED));
}

/* Append s to b, escaping what would break a tab-separated line. */
static size_t escape_into(char *b, const char *s)
{
	size_t k = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\t') { b[k++] = '\\'; b[k++] = 't'; }
		else if (c == '\n') { b[k++] = '\\'; b[k++] = 'n'; }
		else if (c == '\r') { b[k++] = '\\'; b[k++] = 'r'; }
		else if (c < 0x20 || c == 0x7f) k += (size_t)sprintf(b + k, "\\x%02x", c);
		else b[k++] = (char)c;
	}
	return k;
}

int st_header_add_pg(st_header *h, const char *name, const char *version,
                     int argc, char **argv, st_error *err)
{
	size_t need = 32, old = h->provenance ? strlen(h->provenance) : 0;

	name = name ? name : "";
	version = version ? version : "";
	need += 4 * (strlen(name) + strlen(version));
	for (int i = 0; i < argc && argv && argv[i]; i++)
		need += 4 * strlen(argv[i]) + 1;
	char *line = malloc(need);
	if (!line) {
		seterr(err, "out of memory for a provenance line (%zu bytes)", need);
		return -1;
	}
	size_t k = 0;
	k += (size_t)sprintf(line + k, "@PG\tID:");
	k += escape_into(line + k, name);
	k += (size_t)sprintf(line + k, "\tVN:");
	k += escape_into(line + k, version);
	k += (size_t)sprintf(line + k, "\tCL:");
	for (int i = 0; i < argc && argv && argv[i]; i++) {
		if (i)
			line[k++] = ' ';
		k += escape_into(line + k, argv[i]);
	}
	line[k++] = '\n';
	if (old + k > PROV_MAX) {
		free(line);
		seterr(err, "provenance would exceed %u bytes", PROV_MAX);
		return -1;
	}
	char *p = realloc(h->provenance, old + k + 1);
	if (!p) {
		free(line);
		seterr(err, "out of memory for provenance (%zu bytes)", old + k + 1);
		return -1;
	}
	memcpy(p + old, line, k);
	p[old + k] = '\0';
	h->provenance = p;
	free(line);
	return 0;
}

/* Is h a header this version can write and read?  0, or -1 with why. */
static int header_check(const st_header *h, size_t provlen, char *why, size_t len)
{
	if (h->type != ST_INT32 && h->type != ST_FLOAT32)
		snprintf(why, len, "unknown element type %u", h->type);
	else if (h->matrices & ~(uint32_t)(ST_WEIGHTS | ST_DIST | ST_PRED))
		snprintf(why, len, "unknown matrix bits 0x%x", h->matrices);
	else if (h->flags & ~(uint32_t)(ST_DIRECTED | ST_NEGATIVE | ST_NEGCYCLE))
		snprintf(why, len, "unknown flag bits 0x%x", h->flags);
	else if (h->npad < h->n)
		snprintf(why, len, "padded size %llu is smaller than n = %llu",
		         (unsigned long long)h->npad, (unsigned long long)h->n);
	else if (h->npad >= ST_MAX_N)
		snprintf(why, len, "padded size %llu is not below the limit %llu",
		         (unsigned long long)h->npad, (unsigned long long)ST_MAX_N);
	else if (h->n == 0 && h->npad != 0)
		snprintf(why, len, "n is 0 but the padded size is %llu",
		         (unsigned long long)h->npad);
	else if (h->block == 0 || h->block % 4 || h->block > BLOCK_MAX)
		snprintf(why, len, "block size %u is not a positive multiple of 4 up to %u",
		         h->block, BLOCK_MAX);
	else if (h->inf_i32 != ST_INF_I32)
		snprintf(why, len, "INF convention %d, expected %d", h->inf_i32, ST_INF_I32);
	else if (h->cycle_vertex < -1 || (h->cycle_vertex >= 0 && (uint64_t)h->cycle_vertex >= h->n))
		snprintf(why, len, "negative-cycle vertex %lld out of range",
		         (long long)h->cycle_vertex);
	else if (provlen > PROV_MAX)
		snprintf(why, len, "provenance of %zu bytes exceeds %u", provlen, PROV_MAX);
	else
		return 0;
	return -1;
}

/* ---- writing ---- */

struct wblk {
	uint32_t raw, stored, crc, method;
	const unsigned char *payload;
};

struct st_writer {
	int fd, level, threads, failed;
	uint32_t block;
	uint64_t mbytes, nblk;  /* bytes and blocks of one matrix */
	uint32_t todo;          /* matrix bits not yet ended */
	uint32_t cur;           /* the matrix being written, 0 when none is left */
	uint64_t blocks_out;    /* blocks of cur written so far */
	int nmat;               /* matrices announced */
	uint64_t done;          /* raw bytes of cur taken so far (staged included) */
	size_t nb, slot;        /* blocks staged at most, bytes per block buffer */
	unsigned char *stage;   /* raw bytes of whole blocks not yet compressed */
	size_t staged;
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

st_writer *st_writer_open(int fd, const st_header *h, int level, int threads,
                          st_error *err)
{
	char why[200];
	size_t plen = h->provenance ? strlen(h->provenance) : 0;

	if (header_check(h, plen, why, sizeof why) < 0) {
		seterr(err, "cannot write stream: %s", why);
		return NULL;
	}
	if (level < 0 || level > 9) {
		seterr(err, "compression level %d is not in 0..9", level);
		return NULL;
	}
	st_writer *w = calloc(1, sizeof *w);
	if (!w) {
		seterr(err, "out of memory");
		return NULL;
	}
	w->fd = fd;
	w->level = level;
	w->threads = default_threads(threads);
	w->block = h->block;
	w->mbytes = st_matrix_bytes(h);
	w->nblk = (w->mbytes + h->block - 1) / h->block;
	w->todo = h->matrices;
	w->cur = first_bit(w->todo);
	w->nmat = st_matrix_count(h);
	w->nb = batch_blocks(w->threads, w->block, w->nblk);
	w->slot = w->mbytes < w->block ? (size_t)w->mbytes : w->block;
	w->wk = calloc((size_t)w->threads, sizeof *w->wk);
	if (!w->wk) {
		seterr(err, "out of memory");
		st_writer_abort(w);
		return NULL;
	}

	size_t hlen = HDR_FIXED + plen + 4;
	unsigned char *b = malloc(hlen);
	if (!b) {
		seterr(err, "out of memory for the header (%zu bytes)", hlen);
		st_writer_abort(w);
		return NULL;
	}
	memcpy(b, st_magic, 8);
	put32(b + 8, ST_VERSION);
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
	if (plen)
		memcpy(b + HDR_FIXED, h->provenance, plen);
	put32(b + HDR_FIXED + plen, bc_crc32(b, HDR_FIXED + plen));
	int rc = write_full(fd, b, hlen);
	free(b);
	if (rc < 0) {
		seterr(err, "write error: %s", strerror(errno));
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
 * codec, lib/blockcodec.h, chooses the method).  0, or -1 out of memory. */
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
	pthread_cond_t freed;       /* some block's buffers were written */
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
			if (writev_full(w->fd, iov, k) < 0)
				__atomic_store_n(&job->werrno, errno ? errno : EIO, __ATOMIC_RELAXED);
		}
		if (b.bad || job->nomem || job->werrno || job->nofill)
			pool_halt(p);
		pthread_mutex_lock(&job->mu);
		*b.busy = 0;
		job->next_out++;
		pthread_cond_broadcast(&job->freed);
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
			pthread_cond_wait(&job->freed, &job->mu);
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
			w->mem->blk[job->first + j] = own;
			w->mem->len[job->first + j] = BLK_HDR + b.stored;
		}
		note_failure(job, bad);
		if (bad)
			pool_halt(p);
		return;
	}
	pthread_mutex_lock(&job->mu);
	wk->busy[k] = 1;
	job->ready[j % job->nready] = (struct wready){j, 1, bad, hd, b.payload, b.stored, &wk->busy[k]};
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
	                   PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, NULL, 0};

	/* Blocks taken and not yet written are at most three a thread (two
	 * queued, one waiting for a buffer), so each has a slot of its own. */
	job.nready = 3 * (size_t)w->threads + 1;
	if (!w->mem && !(job.ready = calloc(job.nready, sizeof *job.ready))) {
		seterr(&w->err, "out of memory for deflate state and buffers");
		return wfail(w, err);
	}
	pool_run(headbytes + nbytes >= PARALLEL_MIN_BYTES ? w->threads : 1, cnt, write_one, &job);
	free(job.ready);
	pthread_mutex_destroy(&job.mu);
	pthread_cond_destroy(&job.freed);
	w->blocks_out += cnt;
	if (job.werrno) {
		seterr(&w->err, "write error: %s", strerror(job.werrno));
		return wfail(w, err);
	}
	if (job.nomem) {
		seterr(&w->err, "out of memory for deflate state and buffers");
		return wfail(w, err);
	}
	if (job.nofill) {
		seterr(&w->err, "the source of the %s's data failed", matrix_name(w->cur));
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
		seterr(&w->err, "more data than the %d matrices the header announces", w->nmat);
		return wfail(w, err);
	}
	if (len > w->mbytes - w->done) {
		seterr(&w->err, "%llu bytes more for the %s, which holds only %llu more",
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
			if (!w->stage && !(w->stage = malloc(batch < w->mbytes ? batch : w->mbytes))) {
				seterr(&w->err, "out of memory for a write buffer of %zu bytes", batch);
				return wfail(w, err);
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
		seterr(&w->err, "st_write_fill: %llu bytes at offset %llu of the %s are not whole blocks",
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
	if (write_full(w->fd, m, sizeof m) < 0) {
		seterr(&w->err, "write error: %s", strerror(errno));
		return wfail(w, err);
	}
	return 0;
}

int st_write_end_matrix(st_writer *w, st_error *err)
{
	if (w->failed)
		return wfail(w, err);
	if (!w->cur) {
		seterr(&w->err, "no matrix left to end: the header announces %d", w->nmat);
		return wfail(w, err);
	}
	if (w->done != w->mbytes) {
		seterr(&w->err, "the %s ended after %llu of its %llu bytes", matrix_name(w->cur),
		       (unsigned long long)w->done, (unsigned long long)w->mbytes);
		return wfail(w, err);
	}
	if (write_marker(w, (uint32_t)w->nblk, TAG_EOM, err) < 0)
		return -1;
	w->todo &= ~w->cur;
	w->cur = first_bit(w->todo);
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
		seterr(&w->err, "stream closed with %d of its %d matrices written",
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

st_spool *st_spool_open(st_writer *w, uint32_t matrix, st_error *err)
{
	if (w->failed) {
		wfail(w, err);
		return NULL;
	}
	if (__builtin_popcount(matrix) != 1 || !(w->todo & matrix) || matrix <= w->cur) {
		if (__builtin_popcount(matrix) == 1 && matrix <= ST_PRED)
			seterr(err, "cannot spool the %s: the header announces none after the %s",
			       matrix_name(matrix), w->cur ? matrix_name(w->cur) : "last matrix");
		else
			seterr(err, "cannot spool matrix bits 0x%x: one matrix bit is needed", matrix);
		return NULL;
	}
	st_spool *s = calloc(1, sizeof *s);
	struct spool_mem *m = calloc(1, sizeof *m);
	if (!s || !m || !(m->blk = calloc(w->nblk, sizeof *m->blk))
	    || !(m->len = calloc(w->nblk, sizeof *m->len))
	    || !(s->w.wk = calloc((size_t)w->threads, sizeof *s->w.wk))) {
		spool_mem_free(m, 0);
		free(s);
		seterr(err, "out of memory");
		return NULL;
	}
	/* Room for every block at its largest (a stored block is its raw bytes),
	 * reserved, not committed: only what the blocks fill is ever touched. */
	m->cap = (size_t)w->nblk * (((size_t)BLK_HDR + w->slot + 63) & ~(size_t)63);
	void *base = mmap(NULL, m->cap, PROT_READ | PROT_WRITE,
	                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base != MAP_FAILED) {
		m->base = base;
#ifdef MADV_HUGEPAGE
		madvise(base, m->cap, MADV_HUGEPAGE);
#endif
	}
	s->w.mem = m;
	st_writer *c = &s->w;
	c->fd = -1;
	c->level = w->level;
	c->threads = w->threads;
	c->block = w->block;
	c->mbytes = w->mbytes;
	c->nblk = w->nblk;
	c->todo = c->cur = matrix;
	c->nmat = 1;
	c->nb = w->nb;
	c->slot = w->slot;
	return s;
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

int st_write_spool(st_writer *w, st_spool *s, st_error *err)
{
	st_writer *c = &s->w;
	int rc = -1;

	if (w->failed) {
		wfail(w, err);
	} else if (c->failed) {
		w->err = c->err;
		wfail(w, err);
	} else if (w->cur != c->cur || w->done != 0) {
		seterr(&w->err, "the spooled %s is not the matrix the stream is at", matrix_name(c->cur));
		wfail(w, err);
	} else if (c->done != c->mbytes) {
		seterr(&w->err, "the spooled %s holds %llu of its %llu bytes", matrix_name(c->cur),
		       (unsigned long long)c->done, (unsigned long long)c->mbytes);
		wfail(w, err);
	} else {
		struct spool_mem *m = c->mem;
		struct iovec iov[64];
		/* The region is unmapped once written, never written again: a
		 * pipe may take its pages by reference (malloc'd blocks could be
		 * handed out again while the pipe still holds them). */
		int by_ref = m->base != NULL;
		rc = 0;
		for (uint64_t i = 0; i < c->nblk && rc == 0; i += 64) {
			int k = 0, put = 1;
			for (; k < 64 && i + k < c->nblk; k++)
				iov[k] = (struct iovec){m->blk[i + k], m->len[i + k]};
			if (by_ref && (put = put_iov(w->fd, iov, k, 1)) == 1)
				by_ref = 0;
			if (put < 0 || (put == 1 && writev_full(w->fd, iov, k) < 0)) {
				seterr(&w->err, "write error: %s", strerror(errno));
				rc = wfail(w, err);
			}
		}
		if (rc == 0) {
			w->done = w->mbytes;
			w->blocks_out = w->nblk;
			rc = st_write_end_matrix(w, err);
		}
	}
	st_spool_free(s);
	return rc;
}

/* ---- reading ---- */

struct rblk {
	uint64_t index;             /* block number in the matrix */
	uint32_t raw, stored, crc, method;
	int need;                   /* inflate it (else skipped) */
	unsigned char *payload;     /* stored bytes as read */
	unsigned char *dest;        /* where the raw bytes go */
	size_t first_row;           /* rows mode: first wanted row that may overlap */
	int64_t at;                 /* >= 0: the stored bytes are at this offset of a
	                               regular file, read after the turn (pread) */
};

struct st_reader {
	int fd, threads;
	char *name;
	uint32_t block;
	uint64_t npad, mbytes, nblk;
	uint32_t todo;              /* matrix bits not yet read */
	int nmat;
	size_t slot;                /* bytes per block buffer */
	struct worker *wk;
	int failed;
	st_progress_fn *progress;   /* st_reader_progress() */
	void *progress_ctx;
	int skip;                   /* how unwanted blocks are passed over (SKIP_*) */
	int devnull;                /* SKIP_SPLICE: /dev/null, opened when first needed */
};

/* How a reader passes over the stored bytes of blocks it does not want. */
enum { SKIP_READ, SKIP_SEEK, SKIP_SPLICE };

/* Pass over len bytes of the input: a regular file seeks past them, a pipe
 * moves them to /dev/null inside the kernel (splice), anything else (or
 * where those fail) reads them into buf (cap bytes) and drops them.  Bytes
 * passed over, fewer only at the end of the input; -1 (errno). */
static ssize_t skip_bytes(st_reader *r, unsigned char *buf, size_t cap, size_t len)
{
	size_t done = 0;

	if (r->skip == SKIP_SEEK) {
		struct stat st;
		off_t at = lseek(r->fd, 0, SEEK_CUR);
		if (at >= 0 && fstat(r->fd, &st) == 0) {
			uint64_t left = st.st_size > at ? (uint64_t)(st.st_size - at) : 0;
			size_t k = left < len ? (size_t)left : len;
			if (lseek(r->fd, (off_t)k, SEEK_CUR) >= 0)
				return (ssize_t)k;
		}
		r->skip = SKIP_READ;
	}
#ifdef SPLICE_F_MOVE
	if (r->skip == SKIP_SPLICE && r->devnull < 0
	    && (r->devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		r->skip = SKIP_READ;
	while (r->skip == SKIP_SPLICE && done < len) {
		ssize_t k = splice(r->fd, NULL, r->devnull, NULL, len - done, SPLICE_F_MOVE);
		if (k > 0)
			done += (size_t)k;
		else if (k == 0)
			return (ssize_t)done;
		else if (errno == EINVAL || errno == ENOSYS)
			r->skip = SKIP_READ; /* a kernel that will not: read the rest */
		else if (errno != EINTR)
			return -1;
	}
#endif
	while (done < len) {
		size_t want = len - done < cap ? len - done : cap;
		ssize_t k = read_full(r->fd, buf, want);
		if (k < 0)
			return -1;
		done += (size_t)k;
		if ((size_t)k < want)
			break;
	}
	return (ssize_t)done;
}

static const char *display_name(const char *name)
{
	return !name || !strcmp(name, "-") ? "stdin" : name;
}

/* Why 64 bytes that are not our magic are not: a hint for common mistakes. */
static const char *magic_hint(const unsigned char *b, size_t got)
{
	if (got >= 4 && !memcmp(b, st_magic, 4))
		return "bad magic: mangled by a text-mode transfer?";
	if (got >= 14 && !memcmp(b, "%%MatrixMarket", 14))
		return "bad magic: this is Matrix Market text; convert it with mtx2bin";
	if (got >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return "bad magic: this is gzip data";
	return "bad magic";
}

st_reader *st_reader_open(int fd, const char *name, st_header *h, int threads,
                          st_error *err)
{
	unsigned char b[HDR_FIXED];
	const char *nm = display_name(name);
	char why[200];

	memset(h, 0, sizeof *h);
	ssize_t got = read_full(fd, b, sizeof b);
	if (got < 0) {
		seterr(err, "%s: read error: %s", nm, strerror(errno));
		return NULL;
	}
	if (got == 0) {
		seterr(err, "%s: empty input, not an apsp matrix stream", nm);
		return NULL;
	}
	if ((size_t)got < 8 || memcmp(b, st_magic, 8)) {
		if ((size_t)got < 8 && !memcmp(b, st_magic, (size_t)got))
			seterr(err, "%s: truncated in the stream header", nm);
		else
			seterr(err, "%s: not an apsp matrix stream (%s)", nm, magic_hint(b, (size_t)got));
		return NULL;
	}
	if ((size_t)got >= 12 && get32(b + 8) != ST_VERSION) {
		seterr(err, "%s: unsupported stream version %u (this program reads version %d)",
		       nm, get32(b + 8), ST_VERSION);
		return NULL;
	}
	if ((size_t)got < sizeof b) {
		seterr(err, "%s: truncated in the stream header", nm);
		return NULL;
	}
	uint32_t hlen = get32(b + 12), plen = get32(b + 60);
	if (plen > PROV_MAX) {
		seterr(err, "%s: bad stream header: provenance of %u bytes exceeds %u", nm, plen, PROV_MAX);
		return NULL;
	}
	if (hlen != HDR_FIXED + plen + 4) {
		seterr(err, "%s: bad stream header: header length %u does not match its provenance length %u",
		       nm, hlen, plen);
		return NULL;
	}
	unsigned char *all = malloc(hlen);
	if (!all) {
		seterr(err, "%s: out of memory for the header (%u bytes)", nm, hlen);
		return NULL;
	}
	memcpy(all, b, sizeof b);
	got = read_full(fd, all + HDR_FIXED, plen + 4);
	if (got < 0 || (size_t)got < plen + 4) {
		if (got < 0)
			seterr(err, "%s: read error: %s", nm, strerror(errno));
		else
			seterr(err, "%s: truncated in the stream header", nm);
		free(all);
		return NULL;
	}
	if (get32(all + HDR_FIXED + plen) != bc_crc32(all, HDR_FIXED + plen)) {
		seterr(err, "%s: CRC mismatch in the stream header", nm);
		free(all);
		return NULL;
	}
	if (memchr(all + HDR_FIXED, '\0', plen)) {
		seterr(err, "%s: bad stream header: provenance holds a NUL byte", nm);
		free(all);
		return NULL;
	}
	st_header t = {0};
	t.n = get64(b + 16);
	t.npad = get64(b + 24);
	t.type = get32(b + 32);
	t.matrices = get32(b + 36);
	t.flags = get32(b + 40);
	t.block = get32(b + 44);
	t.inf_i32 = (int32_t)get32(b + 48);
	t.cycle_vertex = (int64_t)get64(b + 52);
	if (header_check(&t, plen, why, sizeof why) < 0) {
		seterr(err, "%s: bad stream header: %s", nm, why);
		free(all);
		return NULL;
	}
	t.provenance = malloc((size_t)plen + 1);
	st_reader *r = calloc(1, sizeof *r);
	char *rname = strdup(nm);
	if (!t.provenance || !r || !rname) {
		seterr(err, "%s: out of memory", nm);
		free(t.provenance);
		free(r);
		free(rname);
		free(all);
		return NULL;
	}
	memcpy(t.provenance, all + HDR_FIXED, plen);
	t.provenance[plen] = '\0';
	free(all);

	r->fd = fd;
	r->devnull = -1;
	struct stat st;
	if (fstat(fd, &st) == 0)
		r->skip = S_ISREG(st.st_mode) ? SKIP_SEEK : S_ISFIFO(st.st_mode) ? SKIP_SPLICE : SKIP_READ;
	r->name = rname;
	r->threads = default_threads(threads);
	r->block = t.block;
	r->npad = t.npad;
	r->mbytes = st_matrix_bytes(&t);
	r->nblk = (r->mbytes + t.block - 1) / t.block;
	r->todo = t.matrices;
	r->nmat = st_matrix_count(&t);
	r->slot = r->mbytes < r->block ? (size_t)r->mbytes : r->block;
	r->wk = calloc((size_t)r->threads, sizeof *r->wk);
	if (!r->wk) {
		seterr(err, "%s: out of memory", nm);
		free(t.provenance);
		st_reader_free(r);
		return NULL;
	}
	*h = t;
	return r;
}

void st_reader_free(st_reader *r)
{
	if (!r)
		return;
	workers_free(r->wk, r->threads);
	if (r->devnull >= 0)
		close(r->devnull);
	free(r->name);
	free(r);
}

uint32_t st_next_matrix(st_reader *r)
{
	return first_bit(r->todo);
}

enum { READ_ALL, READ_ROWS, READ_SKIP, READ_SCAN, READ_VERIFY };

/* What went wrong with a block; the first by block number is reported. */
enum { B_OK, B_READ, B_TRUNC, B_EARLY, B_HEADER, B_CORRUPT, B_CRC, B_NOMEM };

/* Inflate and check one block into b->dest.  B_OK or what went wrong. */
static int decode_block(st_reader *r, struct worker *wk, struct rblk *b)
{
	if (b->method != M_STORED) {
		if (!wk->c && !(wk->c = bc_coder_new(0, (uint32_t)r->slot)))
			return B_NOMEM;
		int rc = bc_decode(wk->c, b->method, b->payload, b->stored, b->dest, b->raw);
		if (rc != BC_OK)
			return rc == BC_NOMEM ? B_NOMEM : B_CORRUPT;
	} else if (b->payload != b->dest) {
		memcpy(b->dest, b->payload, b->raw);
	}
	return bc_crc32(b->dest, b->raw) != b->crc ? B_CRC : B_OK;
}

/* Read block i's header and stored bytes (in stream order, one thread at a
 * time).  Decides whether the block is needed; *ri is the rows cursor. */
static int read_block(st_reader *r, struct worker *wk, int mode, uint64_t i,
                      const uint64_t *rows, size_t nrows, size_t *ri,
                      unsigned char *dst, struct rblk *b, int *errnum)
{
	unsigned char hd[BLK_HDR];
	uint64_t start = i * r->block, rowbytes = r->npad * 4;
	uint32_t expect = i == r->nblk - 1 ? (uint32_t)(r->mbytes - start) : r->block;
	ssize_t got = read_full(r->fd, hd, sizeof hd);

	b->index = i;
	b->need = 0;
	if (got < 0) {
		*errnum = errno;
		return B_READ;
	}
	if ((size_t)got < sizeof hd)
		return B_TRUNC;
	b->raw = get32(hd);
	b->stored = get32(hd + 4);
	b->crc = get32(hd + 8) ^ block_tag(first_bit(r->todo), i);
	b->method = get32(hd + 12);
	if (b->raw == 0 && b->stored == 0 && b->method == TAG_EOM)
		return B_EARLY;
	if (b->raw != expect || b->method > M_SHUFFLE
	    || (b->method == M_STORED ? b->stored != b->raw : b->stored == 0 || b->stored > b->raw))
		return B_HEADER;
	if (mode == READ_ALL) {
		b->need = 1;
	} else if (mode == READ_ROWS) {
		while (*ri < nrows && (rows[*ri] + 1) * rowbytes <= start)
			++*ri;
		b->first_row = *ri;
		b->need = *ri < nrows && rows[*ri] * rowbytes < start + b->raw;
	} else if (mode == READ_VERIFY) {
		b->need = 1; /* inflated and checked, then dropped */
	}
	if (!wk->buf && !(wk->buf = malloc(r->slot ? r->slot : 1)))
		return B_NOMEM;
	if ((mode == READ_ROWS || mode == READ_VERIFY) && b->need && !wk->raw
	    && !(wk->raw = malloc(r->slot)))
		return B_NOMEM;
	b->payload = wk->buf; /* a skipped block's bytes are passed over */
	if (b->need) {
		b->dest = mode == READ_ALL ? dst + start : wk->raw;
		if (mode == READ_ALL && b->method == M_STORED)
			b->payload = b->dest;
	}
	/* A wanted block of a regular file is only passed over in turn: its
	 * bytes are read with pread after the turn, by each thread for its own
	 * block, so reading them is not one thread at a time.  Passing over
	 * finds a file cut short in turn, as reading would. */
	b->at = b->need && r->skip == SKIP_SEEK ? lseek(r->fd, 0, SEEK_CUR) : -1;
	got = b->need && b->at < 0 ? read_full(r->fd, b->payload, b->stored)
	                           : skip_bytes(r, wk->buf, r->slot ? r->slot : 1, b->stored);
	if (got < 0) {
		*errnum = errno;
		return B_READ;
	}
	return (size_t)got < b->stored ? B_TRUNC : B_OK;
}

/* Rows mode: copy the wanted rows' parts of block b into dst. */
static void copy_rows(const st_reader *r, const struct rblk *b, const uint64_t *rows,
                      size_t nrows, unsigned char *dst)
{
	uint64_t rowbytes = r->npad * 4;
	uint64_t bstart = b->index * r->block, bend = bstart + b->raw;

	for (size_t k = b->first_row; k < nrows && rows[k] * rowbytes < bend; k++) {
		uint64_t rs = rows[k] * rowbytes, re = rs + rowbytes;
		uint64_t s = rs > bstart ? rs : bstart, e = re < bend ? re : bend;
		if (s < e)
			memcpy(dst + k * rowbytes + (s - rs), b->dest + (s - bstart), e - s);
	}
}

static int rfail(st_reader *r)
{
	r->failed = 1;
	return -1;
}

struct rfail {
	uint64_t index;
	int what, errnum;
	struct rblk b;
};

struct rjob {
	st_reader *r;
	int mode;
	const uint64_t *rows;
	size_t nrows;
	unsigned char *dst;
	size_t ri;                  /* rows cursor, moved in stream order */
	st_matrix_info *info;       /* scan and verify modes: what the blocks hold */
	int stop;                   /* a block failed: read no further */
	pthread_mutex_t mu;
	struct rfail fail;          /* the failing block with the lowest number */
	unsigned char *done;        /* with progress: the blocks inflated and checked */
	uint64_t prefix;            /* blocks 0 .. prefix - 1 are all done */
};

/* With progress: block i is in place; report the whole prefix when it grows. */
static void block_done(struct rjob *job, uint64_t i)
{
	st_reader *r = job->r;
	pthread_mutex_lock(&job->mu);
	job->done[i] = 1;
	uint64_t k = job->prefix;
	while (k < r->nblk && job->done[k])
		k++;
	if (k > job->prefix) {
		job->prefix = k;
		uint64_t bytes = k * r->block;
		r->progress(r->progress_ctx, bytes < r->mbytes ? bytes : r->mbytes);
	}
	pthread_mutex_unlock(&job->mu);
}

static void read_one(void *ctx, int t, uint64_t i, struct pool *p)
{
	struct rjob *job = ctx;
	st_reader *r = job->r;
	struct worker *wk = &r->wk[t];
	struct rblk b = {0};
	int what = B_OK, errnum = 0;

	pool_enter(p, i);
	if (!__atomic_load_n(&job->stop, __ATOMIC_RELAXED)) {
		what = read_block(r, wk, job->mode, i, job->rows, job->nrows, &job->ri, job->dst,
		                  &b, &errnum);
		if (what)
			__atomic_store_n(&job->stop, 1, __ATOMIC_RELAXED);
		else if (job->info) { /* in stream order: one thread at a time */
			job->info->blocks++;
			job->info->stored_bytes += BLK_HDR + b.stored;
			job->info->by_method[b.method]++;
		}
	}
	pool_leave(p, i);
	if (!what && b.at >= 0) {
		ssize_t got = read_at(r->fd, b.payload, b.stored, b.at);
		what = got < 0 ? (errnum = errno, B_READ) : (size_t)got < b.stored ? B_TRUNC : B_OK;
	}
	if (!what && b.need && !(what = decode_block(r, wk, &b)) && job->mode == READ_ROWS)
		copy_rows(r, &b, job->rows, job->nrows, job->dst);
	else if (!what && job->done)
		block_done(job, i);
	if (what) {
		__atomic_store_n(&job->stop, 1, __ATOMIC_RELAXED);
		pool_halt(p);
		pthread_mutex_lock(&job->mu);
		if (i < job->fail.index)
			job->fail = (struct rfail){i, what, errnum, b};
		pthread_mutex_unlock(&job->mu);
	}
}

/* Read the next matrix: all of it, some rows, or none.  Each thread reads
 * its next block's stored bytes when its turn comes (stream order), then
 * inflates and checks it while the others read theirs. */
static int read_body(st_reader *r, int mode, const uint64_t *rows, size_t nrows,
                     unsigned char *dst, st_matrix_info *info, st_error *err)
{
	uint32_t bit = first_bit(r->todo);
	const char *mname = matrix_name(bit);
	unsigned char hd[BLK_HDR];

	if (r->failed) {
		seterr(err, "%s: cannot read on after an error", r->name);
		return -1;
	}
	if (!bit) {
		seterr(err, "%s: no matrix left to read: the stream holds %d", r->name, r->nmat);
		return -1;
	}
	if (mode == READ_ROWS) {
		for (size_t k = 0; k < nrows; k++) {
			if (rows[k] >= r->npad || (k && rows[k] < rows[k - 1])) {
				seterr(err, "%s: row %llu %s", r->name, (unsigned long long)rows[k],
				       rows[k] >= r->npad ? "is out of range" : "is out of order");
				return -1;
			}
		}
	}

	struct rjob job = {r, mode, rows, nrows, dst, 0, info, 0, PTHREAD_MUTEX_INITIALIZER,
	                   {UINT64_MAX, 0, 0, {0}}, NULL, 0};
	if (mode == READ_ALL && r->progress && !(job.done = calloc(r->nblk ? r->nblk : 1, 1))) {
		seterr(err, "%s: out of memory", r->name);
		return rfail(r);
	}
	if (info) {
		memset(info, 0, sizeof *info);
		info->raw_bytes = r->mbytes;
	}
	int nt = mode != READ_SKIP && mode != READ_SCAN && r->mbytes >= PARALLEL_MIN_BYTES
	         ? r->threads : 1;
	pool_run(nt, r->nblk, read_one, &job);
	pthread_mutex_destroy(&job.mu);
	free(job.done);
	struct rfail fail = job.fail;

	if (fail.what) {
		unsigned long long k = (unsigned long long)fail.index;
		switch (fail.what) {
		case B_READ:
			seterr(err, "%s: read error: %s", r->name, strerror(fail.errnum));
			break;
		case B_TRUNC:
			seterr(err, "%s: truncated in block %llu of the %s", r->name, k, mname);
			break;
		case B_EARLY:
			seterr(err, "%s: the %s ends after %llu of its %llu blocks", r->name, mname, k,
			       (unsigned long long)r->nblk);
			break;
		case B_HEADER:
			seterr(err, "%s: bad header of block %llu of the %s (raw %u, stored %u, method %u)",
			       r->name, k, mname, fail.b.raw, fail.b.stored, fail.b.method);
			break;
		case B_CORRUPT:
			seterr(err, "%s: corrupt compressed data in block %llu of the %s", r->name, k, mname);
			break;
		case B_CRC:
			seterr(err, "%s: CRC mismatch in block %llu of the %s", r->name, k, mname);
			break;
		default:
			seterr(err, "%s: out of memory for buffers of %zu bytes", r->name, r->slot);
		}
		return rfail(r);
	}

	ssize_t got = read_full(r->fd, hd, sizeof hd);
	if (got < 0) {
		seterr(err, "%s: read error: %s", r->name, strerror(errno));
		return rfail(r);
	}
	if ((size_t)got < sizeof hd) {
		seterr(err, "%s: truncated at the end of the %s", r->name, mname);
		return rfail(r);
	}
	if (get32(hd) != 0 || get32(hd + 4) != 0 || get32(hd + 12) != TAG_EOM
	    || get32(hd + 8) != (uint32_t)r->nblk) {
		seterr(err, "%s: bad end-of-matrix marker after the %s (more blocks than %llu?)",
		       r->name, mname, (unsigned long long)r->nblk);
		return rfail(r);
	}
	if (info)
		info->stored_bytes += BLK_HDR; /* the end-of-matrix marker */
	r->todo &= ~bit;
	return 0;
}

void st_reader_progress(st_reader *r, st_progress_fn *fn, void *ctx)
{
	r->progress = fn;
	r->progress_ctx = ctx;
}

int st_read_matrix(st_reader *r, void *dst, st_error *err)
{
	return read_body(r, READ_ALL, NULL, 0, dst, NULL, err);
}

int st_read_rows(st_reader *r, const uint64_t *rows, size_t nrows, void *dst,
                 st_error *err)
{
	return read_body(r, READ_ROWS, rows, nrows, dst, NULL, err);
}

int st_skip_matrix(st_reader *r, st_error *err)
{
	return read_body(r, READ_SKIP, NULL, 0, NULL, NULL, err);
}

int st_scan_matrix(st_reader *r, int verify, st_matrix_info *info, st_error *err)
{
	st_matrix_info mine;
	return read_body(r, verify ? READ_VERIFY : READ_SCAN, NULL, 0, NULL, info ? info : &mine,
	                 err);
}

int st_reader_close(st_reader *r, st_error *err)
{
	unsigned char m[BLK_HDR];
	int rc = 0;

	while (!r->failed && r->todo)
		if (st_skip_matrix(r, err) < 0)
			rc = -1;
	if (r->failed) {
		if (!rc)
			seterr(err, "%s: stream not read to its end after an error", r->name);
		st_reader_free(r);
		return -1;
	}
	ssize_t got = read_full(r->fd, m, sizeof m);
	if (got < 0) {
		seterr(err, "%s: read error: %s", r->name, strerror(errno));
		rc = -1;
	} else if ((size_t)got < sizeof m) {
		seterr(err, "%s: truncated before the end-of-stream marker", r->name);
		rc = -1;
	} else if (get32(m) != 0 || get32(m + 4) != 0 || get32(m + 12) != TAG_EOS
	           || get32(m + 8) != (uint32_t)r->nmat) {
		seterr(err, "%s: bad end-of-stream marker (more matrices than the header announces?)",
		       r->name);
		rc = -1;
	} else if ((got = read_full(r->fd, m, 1)) != 0) {
		/* Two streams concatenated, or junk appended: not one stream. */
		if (got < 0)
			seterr(err, "%s: read error: %s", r->name, strerror(errno));
		else
			seterr(err, "%s: data after the end-of-stream marker", r->name);
		rc = -1;
	}
	st_reader_free(r);
	return rc;
}

/* ---- whole streams ---- */

static uint64_t physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

int st_read_all(int fd, const char *name, int threads, st_matrices *m, st_error *err)
{
	memset(m, 0, sizeof *m);
	st_reader *r = st_reader_open(fd, name, &m->h, threads, err);
	if (!r)
		return -1;
	uint64_t bytes = st_matrix_bytes(&m->h);
	int count = st_matrix_count(&m->h);
	if (count && bytes > physical_memory() / (uint64_t)count) {
		seterr(err, "%s: %d matrices of %llu x %llu need %.1f GB, more than this machine's memory",
		       display_name(name), count, (unsigned long long)m->h.npad,
		       (unsigned long long)m->h.npad, (double)bytes * count / 1e9);
		goto fail;
	}
	for (uint32_t bit; (bit = st_next_matrix(r));) {
		void **slot = bit == ST_WEIGHTS ? &m->weights : bit == ST_DIST ? &m->dist : &m->pred;
		if (!(*slot = malloc(bytes ? (size_t)bytes : 1))) {
			seterr(err, "%s: out of memory: %llu bytes for the %s", display_name(name),
			       (unsigned long long)bytes, matrix_name(bit));
			goto fail;
		}
		if (st_read_matrix(r, *slot, err) < 0)
			goto fail;
	}
	if (st_reader_close(r, err) < 0) {
		r = NULL;
		goto fail;
	}
	return 0;
fail:
	st_reader_free(r);
	st_matrices_free(m);
	return -1;
}

void st_matrices_free(st_matrices *m)
{
	st_header_free(&m->h);
	free(m->weights);
	free(m->dist);
	free(m->pred);
	m->weights = m->dist = m->pred = NULL;
}

int st_write_all(int fd, const st_header *h, const void *weights,
                 const void *dist, const void *pred, int level, int threads,
                 st_error *err)
{
	st_writer *w = st_writer_open(fd, h, level, threads, err);
	if (!w)
		return -1;
	for (uint32_t bits = h->matrices, bit; (bit = first_bit(bits)); bits &= ~bit) {
		const void *src = bit == ST_WEIGHTS ? weights : bit == ST_DIST ? dist : pred;
		if (!src) {
			seterr(err, "no data given for the %s the header announces", matrix_name(bit));
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

const char *st_engine(void)
{
	return bc_engine();
}
