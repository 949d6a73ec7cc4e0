/* stream_read.c - the stream's reader: blocks read in order and inflated
 * on many threads, whole matrices, chosen rows, or headers only.
 *
 * Each thread takes the next block (on many threads, the next few:
 * rd_group), reads its stored bytes when its turn comes (in a regular
 * file it only notes where they are, and reads them after the turn) and
 * inflates it while the others read on.  A reader
 * passes over the blocks it does not want without copying them where it
 * can: it seeks past them in a regular file and moves them from a pipe to
 * /dev/null inside the kernel; nothing needs it: a stream still goes
 * through anything that reads in order.  Nothing here prints or exits.
 */
#include "stream_reader.h"
#include "common.h"
#include "fdio.h"
#include "pool.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- reading ---- */

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
		ssize_t k = fdio_read_full(r->fd, buf, want);
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
	return !name || !strcmp(name, "-") ? "standard input" : name;
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

static void matrix_sizes(st_reader *r);

st_reader *st_reader_open(int fd, const char *name, st_header *h, int threads,
                          st_error *err)
{
	unsigned char b[HDR_FIXED];
	const char *nm = display_name(name);
	char why[200];

	memset(h, 0, sizeof *h);
	ssize_t got = fdio_read_full(fd, b, sizeof b);
	if (got < 0) {
		lib_fail(err, "%s: read error: %s", nm, strerror(errno));
		return NULL;
	}
	if (got == 0) {
		lib_fail(err, "%s: empty input, not an apsp matrix stream", nm);
		return NULL;
	}
	if ((size_t)got < 8 || memcmp(b, st_magic, 8)) {
		if ((size_t)got < 8 && !memcmp(b, st_magic, (size_t)got))
			lib_fail(err, "%s: truncated in the stream header", nm);
		else
			lib_fail(err, "%s: not an apsp matrix stream (%s)", nm, magic_hint(b, (size_t)got));
		return NULL;
	}
	const uint32_t version = (size_t)got >= 12 ? get32(b + 8) : 0;
	if ((size_t)got >= 12 && (version < 1 || version > ST_VERSION)) {
		lib_fail(err, "%s: unsupported stream version %u (this program reads versions 1 "
		         "to %d)", nm, version, ST_VERSION);
		return NULL;
	}
	if ((size_t)got < sizeof b) {
		lib_fail(err, "%s: truncated in the stream header", nm);
		return NULL;
	}
	/* version 2: the arc count follows the fixed fields; 3: the rows and
	 * the columns */
	const uint32_t fixed = HDR_FIXED + (version >= 2 ? HDR_COUNT : 0) + (version == 3 ? HDR_COUNT : 0);
	uint32_t hlen = get32(b + 12), plen = get32(b + 60);
	if (plen > PROV_MAX) {
		lib_fail(err, "%s: bad stream header: provenance of %u bytes exceeds %u", nm, plen, PROV_MAX);
		return NULL;
	}
	if (hlen != fixed + plen + 4) {
		lib_fail(err, "%s: bad stream header: header length %u does not match its provenance length %u",
		       nm, hlen, plen);
		return NULL;
	}
	unsigned char *all = malloc(hlen);
	if (!all) {
		lib_fail(err, "%s: out of memory for the header (%u bytes)", nm, hlen);
		return NULL;
	}
	memcpy(all, b, sizeof b);
	got = fdio_read_full(fd, all + HDR_FIXED, hlen - HDR_FIXED);
	if (got < 0 || (size_t)got < hlen - HDR_FIXED) {
		if (got < 0)
			lib_fail(err, "%s: read error: %s", nm, strerror(errno));
		else
			lib_fail(err, "%s: truncated in the stream header", nm);
		free(all);
		return NULL;
	}
	if (get32(all + fixed + plen) != bc_crc32(all, fixed + plen)) {
		lib_fail(err, "%s: CRC mismatch in the stream header", nm);
		free(all);
		return NULL;
	}
	if (memchr(all + fixed, '\0', plen)) {
		lib_fail(err, "%s: bad stream header: provenance holds a NUL byte", nm);
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
	/* version 2 counts the list the stream begins with: arcs or sources */
	const uint64_t count = version >= 2 ? get64(all + HDR_FIXED) : 0;
	if (t.matrices & ST_SOURCES)
		t.rows = count;
	else
		t.arcs = count;
	t.cols = version == 3 ? get64(all + HDR_FIXED + HDR_COUNT) : 0;
	int bad = header_check(&t, plen, why, sizeof why) < 0;
	if (!bad && (version == 3) != !!(t.matrices & ST_TARGETS)) {
		snprintf(why, sizeof why, "version %u %s a list of targets", version,
		         version == 3 ? "without" : "with");
		bad = 1;
	} else if (!bad && (version >= 2) != !!(t.matrices & (ST_ARCS | ST_SOURCES))) {
		snprintf(why, sizeof why, "version %u %s a list of arcs or sources", version,
		         version >= 2 ? "without" : "with");
		bad = 1;
	}
	if (bad) {
		lib_fail(err, "%s: bad stream header: %s", nm, why);
		free(all);
		return NULL;
	}
	t.provenance = malloc((size_t)plen + 1);
	st_reader *r = calloc(1, sizeof *r);
	char *rname = strdup(nm);
	if (!t.provenance || !r || !rname) {
		lib_fail(err, "%s: out of memory", nm);
		free(t.provenance);
		free(r);
		free(rname);
		free(all);
		return NULL;
	}
	memcpy(t.provenance, all + fixed, plen);
	t.provenance[plen] = '\0';
	free(all);

	r->fd = fd;
	r->devnull = -1;
	struct stat st;
	if (fstat(fd, &st) == 0)
		r->skip = S_ISREG(st.st_mode) ? SKIP_SEEK : S_ISFIFO(st.st_mode) ? SKIP_SPLICE : SKIP_READ;
	r->name = rname;
	r->threads = lib_threads(threads);
	r->block = t.block;
	r->npad = t.npad;
	r->type = t.type;
	r->z = sizes_of(&t);
	r->todo = t.matrices;
	r->nmat = st_matrix_count(&t);
	const uint64_t most = largest_matrix(&t);
	r->slot = most < r->block ? (size_t)most : r->block;
	matrix_sizes(r);
	r->wk = calloc((size_t)r->threads, sizeof *r->wk);
	if (!r->wk) {
		lib_fail(err, "%s: out of memory", nm);
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

/* Bytes of a row of the next matrix (npad entries; a table's, cols). */
uint64_t rd_row_bytes(const st_reader *r)
{
	return row_entries(r->z, next_bit(r->todo)) * entry_bytes(r->type, next_bit(r->todo));
}

/* The byte and block counts of the next matrix. */
static void matrix_sizes(st_reader *r)
{
	r->mbytes = raw_bytes_of(r->z, next_bit(r->todo));
	r->nblk = (r->mbytes + r->block - 1) / r->block;
}

uint32_t st_next_matrix(st_reader *r)
{
	return next_bit(r->todo);
}

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
 * time) into buf (room for a header and r->slot bytes).  Decides whether
 * the block is needed; *ri is the rows cursor. */
static int rd_block(st_reader *r, struct worker *wk, int mode, uint64_t i,
                    const uint64_t *rows, size_t nrows, size_t *ri,
                    unsigned char *dst, uint64_t dst_off, unsigned char *buf, struct rblk *b,
                    int *errnum)
{
	unsigned char hd[BLK_HDR];
	uint64_t start = i * r->block, rowbytes = rd_row_bytes(r);
	uint32_t expect = block_raw(r->mbytes, start, r->block);
	ssize_t got = fdio_read_full(r->fd, hd, sizeof hd);

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
	b->crc = get32(hd + 8) ^ block_tag(next_bit(r->todo), i);
	b->method = get32(hd + 12);
	if (b->raw == 0 && b->stored == 0 && b->method == TAG_EOM)
		return B_EARLY;
	if (!block_header_ok(b->raw, b->stored, b->method, expect))
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
	} else if (mode == READ_STORED) {
		b->need = 0; /* read in turn, handed over as stored */
	}
	if (!buf)
		return B_NOMEM;
	if ((mode == READ_ROWS || mode == READ_VERIFY) && b->need && !wk->raw
	    && !(wk->raw = malloc(r->slot)))
		return B_NOMEM;
	/* (room before the stored bytes for the header: READ_STORED hands both) */
	b->payload = buf + BLK_HDR; /* a skipped block's bytes are passed over */
	if (b->need) {
		b->dest = mode == READ_ALL ? dst + (start - dst_off) : wk->raw;
		if (mode == READ_ALL && b->method == M_STORED)
			b->payload = b->dest;
	}
	/* A wanted block of a regular file is only passed over in turn: its
	 * bytes are read with pread after the turn, by each thread for its own
	 * block, so reading them is not one thread at a time.  Passing over
	 * finds a file cut short in turn, as reading would. */
	b->at = b->need && r->skip == SKIP_SEEK ? lseek(r->fd, 0, SEEK_CUR) : -1;
	got = (b->need && b->at < 0) || mode == READ_STORED
	      ? fdio_read_full(r->fd, b->payload, b->stored)
	      : skip_bytes(r, buf + BLK_HDR, r->slot ? r->slot : 1, b->stored);
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
	uint64_t rowbytes = rd_row_bytes(r);
	uint64_t bstart = b->index * r->block, bend = bstart + b->raw;

	for (size_t k = b->first_row; k < nrows && rows[k] * rowbytes < bend; k++) {
		uint64_t rs = rows[k] * rowbytes, re = rs + rowbytes;
		uint64_t s = rs > bstart ? rs : bstart, e = re < bend ? re : bend;
		if (s < e)
			memcpy(dst + k * rowbytes + (s - rs), b->dest + (s - bstart), e - s);
	}
}

int rd_fail(st_reader *r)
{
	r->failed = 1;
	return -1;
}

/* Bytes of progress told at a time, at most (and the end): the callback
 * runs under the job's lock, so told for every block it made the blocks'
 * ends one at a time (bench/stream.md). */
#define PROGRESS_STEP (32u << 20)

/* With progress: block i is in place; report the whole prefix when it has
 * grown by PROGRESS_STEP or a sixteenth of the matrix, or reached the
 * end. */
static void block_done(struct rjob *job, uint64_t i)
{
	st_reader *r = job->r;
	pthread_mutex_lock(&job->mu);
	job->done[i] = 1;
	uint64_t k = job->prefix;
	while (k < r->nblk && job->done[k])
		k++;
	job->prefix = k;
	const uint64_t step = r->mbytes / 16 < PROGRESS_STEP ? r->mbytes / 16 : PROGRESS_STEP;
	if (k > job->told && (k == r->nblk || (k - job->told) * r->block >= step)) {
		job->told = k;
		uint64_t bytes = k * r->block;
		r->progress(r->progress_ctx, bytes < r->mbytes ? bytes : r->mbytes);
	}
	pthread_mutex_unlock(&job->mu);
}

/* Block b, read in turn (what: how that went), taken on after the turn:
 * its stored bytes read where only its place was noted, handed over
 * (READ_STORED) or inflated and checked, its rows copied or its progress
 * told.  A failure stops the pass, and the lowest failing block is kept. */
void rd_finish(struct rjob *job, struct worker *wk, struct rblk *b, int what,
               int errnum, struct pool *p)
{
	st_reader *r = job->r;
	const uint64_t i = b->index;
	if (!what && b->at >= 0) {
		ssize_t got = fdio_read_at(r->fd, b->payload, b->stored, b->at);
		what = got < 0 ? (errnum = errno, B_READ) : (size_t)got < b->stored ? B_TRUNC : B_OK;
	}
	if (!what && job->mode == READ_STORED) { /* (one thread: in order) */
		unsigned char *o = b->payload - BLK_HDR; /* the header again, before its bytes */
		put32(o, b->raw);
		put32(o + 4, b->stored);
		put32(o + 8, b->crc ^ block_tag(next_bit(r->todo), i));
		put32(o + 12, b->method);
		if (job->stored(job->dst, i, o, BLK_HDR + b->stored) != 0)
			what = B_STOP;
	}
	if (!what && b->need && !(what = decode_block(r, wk, b)) && job->mode == READ_ROWS)
		copy_rows(r, b, job->rows, job->nrows, job->dst);
	else if (!what && job->done)
		block_done(job, i);
	if (what) {
		__atomic_store_n(&job->stop, 1, __ATOMIC_RELAXED);
		if (p)
			pool_halt(p);
		pthread_mutex_lock(&job->mu);
		if (i < job->fail.index)
			job->fail = (struct rfail){i, what, errnum, *b};
		pthread_mutex_unlock(&job->mu);
	}
}

uint64_t rd_turn(struct rjob *job, struct worker *wk, uint64_t first, uint64_t count,
                 unsigned char *dst, uint64_t dst_off, struct rblk *b, int *what, int *errnum)
{
	st_reader *r = job->r;
	const size_t span = BLK_HDR + (r->slot ? r->slot : 1);
	if (wk->nbuf < count) {
		free(wk->buf);
		wk->buf = malloc(count * span);
		wk->nbuf = wk->buf ? count : 0;
	}
	uint64_t got = 0;
	while (got < count && !__atomic_load_n(&job->stop, __ATOMIC_RELAXED)) {
		struct rblk *bk = &b[got];
		*bk = (struct rblk){0};
		what[got] = rd_block(r, wk, job->mode, first + got, job->rows, job->nrows, &job->ri,
		                     dst, dst_off, wk->buf ? wk->buf + got * span : NULL, bk,
		                     &errnum[got]);
		if (what[got++]) {
			__atomic_store_n(&job->stop, 1, __ATOMIC_RELAXED);
			break;
		}
		if (job->info) { /* in stream order: one thread at a time */
			job->info->blocks++;
			job->info->stored_bytes += BLK_HDR + bk->stored;
			job->info->by_method[bk->method]++;
		}
	}
	return got;
}

/* Reading index i: blocks base + i * group on, read in one turn, each into
 * its own part of the thread's buffer, then taken on one after another
 * while the other threads read on.  The indices from job->reads on are
 * pieces of the last window's work. */
static void read_one(void *ctx, int t, uint64_t i, struct pool *p)
{
	struct rjob *job = ctx;
	struct worker *wk = &job->r->wk[t];
	struct rblk b[READ_GROUP_MOST];
	int what[READ_GROUP_MOST] = {0}, errnum[READ_GROUP_MOST] = {0};

	if (i >= job->reads) {
		job->work->piece(job->work->ctx, i - job->reads);
		return;
	}
	const uint64_t first = job->base + i * job->group, end = job->base + job->count;
	const uint64_t count = end - first < job->group ? end - first : job->group;
	pool_enter(p, i);
	const uint64_t got = rd_turn(job, wk, first, count, job->dst, job->dst_off, b, what, errnum);
	pool_leave(p, i);
	for (uint64_t k = 0; k < got; k++)
		rd_finish(job, wk, &b[k], what[k], errnum[k], p);
}

/* Whether the next matrix can be read (0), or -1 with why. */
int rd_check(st_reader *r, int mode, const uint64_t *rows, size_t nrows, st_error *err)
{
	if (r->failed) {
		lib_fail(err, "%s: cannot read on after an error", r->name);
		return -1;
	}
	if (!next_bit(r->todo)) {
		lib_fail(err, "%s: no matrix left to read: the stream holds %d", r->name, r->nmat);
		return -1;
	}
	if (mode == READ_ROWS && next_bit(r->todo) & (ST_ARCS | ST_ORDER)) {
		lib_fail(err, "%s: %s", r->name, ST_ARCS_REFUSAL);
		return -1;
	}
	if (mode == READ_ROWS && next_bit(r->todo) == ST_SOURCES) {
		lib_fail(err, "%s: the list of sources is read whole, not as rows", r->name);
		return -1;
	}
	for (size_t k = 0; mode == READ_ROWS && k < nrows; k++) {
		if (rows[k] >= r->z.rows || (k && rows[k] < rows[k - 1])) {
			lib_fail(err, "%s: row %llu %s", r->name, (unsigned long long)rows[k],
			       rows[k] >= r->z.rows ? "is out of range" : "is out of order");
			return -1;
		}
	}
	return 0;
}

/* Blocks a reading index takes: one turn passes from thread to thread for
 * each index, and where many threads inflate small blocks (a sparse graph's
 * rows from a pipe), waking the next thread for every block bounds the
 * pass (bench/stream.md).  One block up to 8 threads, then one more for
 * every 8, each thread's buffer room for that many; at least two indices
 * a thread. */
uint64_t rd_group(int nt, uint64_t count)
{
	uint64_t g = nt > 8 ? ((uint64_t)nt + 7) / 8 : 1;
	if (g > READ_GROUP_MOST)
		g = READ_GROUP_MOST;
	while (g > 1 && count < g * (uint64_t)nt * 2)
		g--;
	return g;
}

/* Blocks job->base .. job->base + count - 1 of the next matrix, and
 * job->pieces pieces of job->work beside them.  Each thread reads its next
 * group of blocks' stored bytes when its turn comes (stream order), then
 * inflates and checks them while the others read theirs; once every block
 * is taken, the threads take the pieces. */
int rd_pass(st_reader *r, struct rjob *job, uint64_t count, st_error *err)
{
	int mode = job->mode;

	job->fail = NO_FAIL;
	int nt = mode != READ_SKIP && mode != READ_SCAN && mode != READ_STORED
	         && r->mbytes >= PARALLEL_MIN_BYTES ? r->threads : 1;
	job->count = count;
	job->group = rd_group(nt, count);
	job->reads = (count + job->group - 1) / job->group;
	pool_run(nt, job->reads + job->pieces, read_one, job);
	return job->fail.what ? rd_failed(r, &job->fail, err) : 0;
}

int rd_failed(st_reader *r, const struct rfail *fail, st_error *err)
{
	const char *mname = matrix_name(next_bit(r->todo));
	unsigned long long k = (unsigned long long)fail->index;
	switch (fail->what) {
	case B_READ:
		lib_fail(err, "%s: read error: %s", r->name, strerror(fail->errnum));
		break;
	case B_TRUNC:
		lib_fail(err, "%s: truncated in block %llu of the %s", r->name, k, mname);
		break;
	case B_EARLY:
		lib_fail(err, "%s: the %s ends after %llu of its %llu blocks", r->name, mname, k,
		       (unsigned long long)r->nblk);
		break;
	case B_HEADER:
		lib_fail(err, "%s: bad header of block %llu of the %s (raw %u, stored %u, method %u)",
		       r->name, k, mname, fail->b.raw, fail->b.stored, fail->b.method);
		break;
	case B_CORRUPT:
		lib_fail(err, "%s: corrupt compressed data in block %llu of the %s", r->name, k, mname);
		break;
	case B_CRC:
		lib_fail(err, "%s: CRC mismatch in block %llu of the %s", r->name, k, mname);
		break;
	case B_STOP:
		lib_fail(err, "%s: reading stopped at block %llu of the %s", r->name, k, mname);
		break;
	default:
		lib_fail(err, "%s: out of memory for buffers of %zu bytes", r->name, r->slot);
	}
	return rd_fail(r);
}

/* After the next matrix's blocks: its end marker. */
int rd_end(st_reader *r, st_matrix_info *info, st_error *err)
{
	uint32_t bit = next_bit(r->todo);
	const char *mname = matrix_name(bit);
	unsigned char hd[BLK_HDR];
	ssize_t got = fdio_read_full(r->fd, hd, sizeof hd);
	if (got < 0) {
		lib_fail(err, "%s: read error: %s", r->name, strerror(errno));
		return rd_fail(r);
	}
	if ((size_t)got < sizeof hd) {
		lib_fail(err, "%s: truncated at the end of the %s", r->name, mname);
		return rd_fail(r);
	}
	if (get32(hd) != 0 || get32(hd + 4) != 0 || get32(hd + 12) != TAG_EOM
	    || get32(hd + 8) != (uint32_t)r->nblk) {
		lib_fail(err, "%s: bad end-of-matrix marker after the %s (more blocks than %llu?)",
		       r->name, mname, (unsigned long long)r->nblk);
		return rd_fail(r);
	}
	if (info)
		info->stored_bytes += BLK_HDR; /* the end-of-matrix marker */
	r->todo &= ~bit;
	matrix_sizes(r);
	return 0;
}

/* Read the next matrix: all of it, some rows, or none. */
static int read_body(st_reader *r, int mode, const uint64_t *rows, size_t nrows,
                     unsigned char *dst, st_matrix_info *info, st_error *err)
{
	if (rd_check(r, mode, rows, nrows, err) < 0)
		return -1;
	struct rjob job = {.r = r, .mode = mode, .rows = rows, .nrows = nrows, .dst = dst,
	                   .info = info, .mu = PTHREAD_MUTEX_INITIALIZER, .fail = NO_FAIL, .group = 1};
	if (mode == READ_ALL && r->progress && !(job.done = calloc(r->nblk ? r->nblk : 1, 1))) {
		lib_fail(err, "%s: out of memory", r->name);
		return rd_fail(r);
	}
	if (info) {
		memset(info, 0, sizeof *info);
		info->raw_bytes = r->mbytes;
	}
	int rc = rd_pass(r, &job, r->nblk, err);
	pthread_mutex_destroy(&job.mu);
	free(job.done);
	return rc < 0 ? rc : rd_end(r, info, err);
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

int st_read_row_range(st_reader *r, uint64_t first, uint64_t count, void *dst, st_error *err)
{
	uint64_t *rows = malloc((count ? count : 1) * sizeof *rows);
	if (!rows) {
		lib_fail(err, "%s: out of memory", r->name);
		return rd_fail(r);
	}
	for (uint64_t i = 0; i < count; i++)
		rows[i] = first + i;
	int rc = read_body(r, READ_ROWS, rows, (size_t)count, dst, NULL, err);
	free(rows);
	return rc;
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

int st_read_stored(st_reader *r, st_stored_fn *fn, void *ctx, st_error *err)
{
	if (rd_check(r, READ_STORED, NULL, 0, err) < 0)
		return -1;
	struct rjob job = {.r = r, .mode = READ_STORED, .dst = ctx, .mu = PTHREAD_MUTEX_INITIALIZER,
	                   .fail = NO_FAIL, .stored = fn, .group = 1};
	int rc = rd_pass(r, &job, r->nblk, err);
	pthread_mutex_destroy(&job.mu);
	return rc < 0 ? rc : rd_end(r, NULL, err);
}

int st_decode_stored(const st_header *h, uint32_t matrix, uint64_t index, const void *block,
                     size_t len, void *dst, st_error *err)
{
	const unsigned char *p = block;
	const uint64_t mbytes = raw_bytes_of(sizes_of(h), matrix);
	const uint64_t start = index * h->block;
	if (len < BLK_HDR || start >= mbytes)
		return lib_fail(err, "block %llu of the %s: not a block of it", (unsigned long long)index,
		                matrix_name(matrix));
	const uint32_t raw = get32(p), stored = get32(p + 4), method = get32(p + 12);
	const uint32_t crc = get32(p + 8) ^ block_tag(matrix, index);
	if (!block_header_ok(raw, stored, method, block_raw(mbytes, start, h->block))
	    || len != BLK_HDR + (size_t)stored)
		return lib_fail(err, "bad header of block %llu of the %s (raw %u, stored %u, method %u)",
		                (unsigned long long)index, matrix_name(matrix), raw, stored, method);
	if (method == M_STORED) {
		memcpy(dst, p + BLK_HDR, raw);
	} else {
		bc_coder *c = bc_coder_new(0, h->block);
		int rc = c ? bc_decode(c, method, p + BLK_HDR, stored, dst, raw) : BC_NOMEM;
		bc_coder_free(c);
		if (rc != BC_OK)
			return lib_fail(err, rc == BC_NOMEM ? "out of memory"
			                     : "corrupt compressed data in block %llu of the %s",
			                (unsigned long long)index, matrix_name(matrix));
	}
	if (bc_crc32(dst, raw) != crc)
		return lib_fail(err, "CRC mismatch in block %llu of the %s", (unsigned long long)index,
		                matrix_name(matrix));
	return 0;
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
			lib_fail(err, "%s: stream not read to its end after an error", r->name);
		st_reader_free(r);
		return -1;
	}
	ssize_t got = fdio_read_full(r->fd, m, sizeof m);
	if (got < 0) {
		lib_fail(err, "%s: read error: %s", r->name, strerror(errno));
		rc = -1;
	} else if ((size_t)got < sizeof m) {
		lib_fail(err, "%s: truncated before the end-of-stream marker", r->name);
		rc = -1;
	} else if (get32(m) != 0 || get32(m + 4) != 0 || get32(m + 12) != TAG_EOS
	           || get32(m + 8) != (uint32_t)r->nmat) {
		lib_fail(err, "%s: bad end-of-stream marker (more matrices than the header announces?)",
		       r->name);
		rc = -1;
	} else if ((got = fdio_read_full(r->fd, m, 1)) != 0) {
		/* Two streams concatenated, or junk appended: not one stream. */
		if (got < 0)
			lib_fail(err, "%s: read error: %s", r->name, strerror(errno));
		else
			lib_fail(err, "%s: data after the end-of-stream marker", r->name);
		rc = -1;
	}
	st_reader_free(r);
	return rc;
}

/* ---- whole streams ---- */

int st_read_all(int fd, const char *name, int threads, st_matrices *m, st_error *err)
{
	memset(m, 0, sizeof *m);
	st_reader *r = st_reader_open(fd, name, &m->h, threads, err);
	if (!r)
		return -1;
	if (st_header_is_checkpoint(&m->h)) {
		lib_fail(err, "%s: " ST_CHECKPOINT_REFUSAL, display_name(name));
		goto fail;
	}
	uint64_t total = 0;
	int count = st_matrix_count(&m->h);
	for (uint32_t bits = m->h.matrices, bit; (bit = next_bit(bits)); bits &= ~bit)
		total += st_matrix_bytes_of(&m->h, bit);
	if (count && total > lib_physical_memory()) {
		char why[200];
		lib_fail(err, "%s: %s", display_name(name),
		         lib_memory_refusal(why, sizeof why, m->h.npad, (double)total,
		                            (double)lib_physical_memory(), 2));
		goto fail;
	}
	for (uint32_t bit; (bit = st_next_matrix(r));) {
		const uint64_t bytes = st_matrix_bytes_of(&m->h, bit);
		void **slot = bit == ST_WEIGHTS ? &m->weights : bit == ST_DIST ? &m->dist
		            : bit == ST_PRED    ? &m->pred    : bit == ST_ARCS ? &m->arcs
		            : bit == ST_ORDER   ? &m->order   : bit == ST_TARGETS ? (void **)&m->targets
		                                                  : (void **)&m->sources;
		if (!(*slot = malloc(bytes ? (size_t)bytes : 1))) {
			lib_fail(err, "%s: out of memory: %llu bytes for the %s", display_name(name),
			       (unsigned long long)bytes, matrix_name(bit));
			goto fail;
		}
		if (st_read_matrix(r, *slot, err) < 0)
			goto fail;
		if (bit == ST_ARCS && st_arcs_check(display_name(name), &m->h, m->arcs, err) < 0)
			goto fail;
		if (bit == ST_ORDER && st_order_check(display_name(name), &m->h, m->order, err) < 0)
			goto fail;
		if (bit == ST_SOURCES
		    && st_sources_check(display_name(name), &m->h, m->sources, err) < 0)
			goto fail;
		if (bit == ST_TARGETS
		    && st_targets_check(display_name(name), &m->h, m->targets, err) < 0)
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
	free(m->arcs);
	free(m->order);
	free(m->sources);
	free(m->targets);
	m->weights = m->dist = m->pred = m->arcs = m->order = NULL;
	m->sources = NULL;
}
