/* bands.c - each process of an MPI run its own band of rows (see bands.h). */
#include "common.h"
#include "bands.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "checkpoint.h"
#include "engine.h"
#include "gpustart.h"
#include "statsout.h"
#include "fw.h"
#include "ranks.h"
#include "tool.h"

/* Message tags between the processes. */
enum { TAG_ROWS = 40, TAG_GATHER, TAG_HEAD_D, TAG_HEAD_P, TAG_BLOCKS_D, TAG_BLOCKS_P, TAG_CRC,
       TAG_STATE_D, TAG_STATE_P };

/* Stored blocks sent to process 0 in messages of about this many bytes. */
#define BLOCKS_BYTES (64u << 20)

/* Rows from the stream stride npad, packed in place to stride n. */
static void pack_rows(void *rows, uint64_t count, uint64_t n, uint64_t npad)
{
	for (uint64_t i = 1; i < count && npad != n; i++)
		memmove((char *)rows + i * n * 4, (const char *)rows + i * npad * 4, n * 4);
}

/* This process's rows of the stream read by r (positioned at its weights). */
static void rows_of_reader(struct bands *b, st_reader *r, const char *name)
{
	st_error err;
	if (st_read_row_range(r, b->first, b->end - b->first, b->rows, &err) < 0)
		tool_die_st(name, &err);
}

/* BANDS_FILE on a process other than 0: the input opened here. */
static void rows_of_file(struct bands *b, const char *path, const st_header *in, int threads)
{
	const char *name = tool_input_name(path);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		tool_die("process %d: %s:", b->rank, name);
	st_error err;
	st_header h;
	st_reader *r = st_reader_open(fd, path, &h, threads, &err);
	if (!r)
		tool_die_st(name, &err);
	if (h.n != in->n || h.npad != in->npad || h.type != in->type || !(h.matrices & ST_WEIGHTS))
		tool_die("process %d: %s is not the graph process 0 read (changed meanwhile?)", b->rank,
		         name);
	rows_of_reader(b, r, name);
	st_reader_free(r);
	st_header_free(&h);
	close(fd);
}

/* BANDS_FORWARD: process 0 reads the stream's blocks as stored and hands
 * each to the processes whose rows it holds (its own kept); each process
 * inflates its blocks in batches, on all its threads, while it takes the
 * next batch in. */
struct batch {
	unsigned char *buf;     /* blocks back to back */
	size_t used;
	uint64_t count, *index; /* each block's number */
	size_t *at, *len;       /* and its place in buf */
};

struct decoder {
	struct bands *b;
	const st_header *h;     /* the input's */
	int threads;
	uint64_t most;          /* blocks a batch holds: four a thread */
	struct batch batch[2];  /* one filled while the other is inflated */
	int cur, running;
	pthread_t t;
	uint64_t placed;        /* bytes of the band put in place */
	int failed;
	st_error err;
};


static void decode_range(void *ctx, uint64_t begin, uint64_t end)
{
	struct decoder *d = ctx;
	struct batch *bt = &d->batch[d->cur ^ 1];
	struct bands *b = d->b;
	const uint64_t rowbytes = d->h->npad * 4, own0 = b->first * rowbytes,
	               own1 = b->end * rowbytes;
	unsigned char *raw = malloc(d->h->block);
	st_error err;
	for (uint64_t k = begin; k < end; k++) {
		const uint64_t start = bt->index[k] * d->h->block;
		if (!raw || st_decode_stored(d->h, ST_WEIGHTS, bt->index[k], bt->buf + bt->at[k],
		                             bt->len[k], raw, &err) < 0) {
			if (__atomic_exchange_n(&d->failed, 1, __ATOMIC_RELAXED) == 0)
				d->err = err;
			continue;
		}
		const uint64_t stop = start + d->h->block;
		const uint64_t lo = start > own0 ? start : own0, hi = stop < own1 ? stop : own1;
		if (lo < hi) {
			memcpy((char *)b->rows + (lo - own0), raw + (lo - start), hi - lo);
			__atomic_add_fetch(&d->placed, hi - lo, __ATOMIC_RELAXED);
		}
	}
	free(raw);
}

static void *decode_batch(void *arg)
{
	struct decoder *d = arg;
	tool_parallel(d->threads, d->batch[d->cur ^ 1].count, decode_range, d);
	return NULL;
}

/* The filled batch to be inflated (after the one before), the other to fill. */
static void decoder_turn(struct decoder *d)
{
	if (d->running)
		pthread_join(d->t, NULL);
	d->running = 0;
	d->cur ^= 1;
	if (d->batch[d->cur ^ 1].count) {
		if (pthread_create(&d->t, NULL, decode_batch, d) == 0)
			d->running = 1;
		else
			decode_batch(d);
	}
	d->batch[d->cur].count = 0;
	d->batch[d->cur].used = 0;
}

/* Room in the batch being filled for a block of up to len bytes: where. */
static unsigned char *decoder_room(struct decoder *d, uint64_t index, size_t len)
{
	struct batch *bt = &d->batch[d->cur];
	if (bt->count == d->most) {
		decoder_turn(d);
		bt = &d->batch[d->cur];
	}
	bt->index[bt->count] = index;
	bt->at[bt->count] = bt->used;
	bt->len[bt->count] = len;
	return bt->buf + bt->used;
}

static void decoder_took(struct decoder *d, size_t len)
{
	struct batch *bt = &d->batch[d->cur];
	bt->len[bt->count++] = len;
	bt->used += len;
}

static void decoder_open(struct decoder *d, struct bands *b, const st_header *h, int threads)
{
	*d = (struct decoder){.b = b, .h = h, .threads = threads};
	d->most = 4 * (uint64_t)(threads > 0 ? threads : 1);
	const size_t cap = d->most * ((size_t)h->block + 16);
	for (int k = 0; k < 2; k++) {
		struct batch *bt = &d->batch[k];
		bt->buf = malloc(cap);
		bt->index = malloc(d->most * sizeof *bt->index);
		bt->at = malloc(d->most * sizeof *bt->at);
		bt->len = malloc(d->most * sizeof *bt->len);
		if (!bt->buf || !bt->index || !bt->at || !bt->len)
			tool_die("out of memory");
	}
}

/* The last batch inflated; every byte of the band in place, or death. */
static void decoder_close(struct decoder *d, const char *name)
{
	decoder_turn(d);
	decoder_turn(d);
	for (int k = 0; k < 2; k++) {
		struct batch *bt = &d->batch[k];
		free(bt->buf), free(bt->index), free(bt->at), free(bt->len);
	}
	if (d->failed)
		tool_die("process %d: %s: %s", d->b->rank, name, d->err.msg);
	const uint64_t want = (d->b->end - d->b->first) * d->h->npad * 4;
	if (d->placed != want)
		tool_die("process %d: %s: %llu of the band's %llu bytes came", d->b->rank, name,
		         (unsigned long long)d->placed, (unsigned long long)want);
}

/* Process 0: a block to each process whose rows it holds. */
static int forward_block(void *ctx, uint64_t index, const void *block, size_t len)
{
	struct decoder *d = ctx;
	struct bands *b = d->b;
	const uint64_t rowbytes = d->h->npad * 4, start = index * d->h->block;
	const uint64_t first = start / rowbytes, last = (start + d->h->block - 1) / rowbytes;
	for (int q = 0; q < b->count; q++) {
		uint64_t lo, hi;
		fwg_band_rows(b->n, b->block, b->count, q, &lo, &hi);
		if (hi <= first || lo > last || lo >= hi)
			continue;
		if (q == 0) {
			memcpy(decoder_room(d, index, len), block, len);
			decoder_took(d, len);
		} else {
			ranks_send(&index, sizeof index, q, TAG_ROWS);
			ranks_send(block, len, q, TAG_ROWS);
		}
	}
	return 0;
}

static void rows_forwarded(struct bands *b, st_reader *r, const st_header *in, const char *path,
                           int threads)
{
	const char *name = tool_input_name(path);
	struct decoder d;
	decoder_open(&d, b, in, threads);
	if (b->rank == 0) {
		st_error err;
		if (st_read_stored(r, forward_block, &d, &err) < 0)
			tool_die_st(name, &err);
		const uint64_t end = UINT64_MAX;
		for (int q = 1; q < b->count; q++)
			ranks_send(&end, sizeof end, q, TAG_ROWS);
	} else {
		for (;;) {
			uint64_t index;
			ranks_recv(&index, sizeof index, 0, TAG_ROWS);
			if (index == UINT64_MAX)
				break;
			unsigned char *to = decoder_room(&d, index, 0);
			decoder_took(&d, ranks_recv_some(to, (size_t)in->block + 16, 0, TAG_ROWS));
		}
	}
	decoder_close(&d, name);
}

void bands_read(struct bands *b, int how, const char *path, st_reader *r, const st_header *in,
                int threads)
{
	fwg_band_rows(b->n, b->block, b->count, b->rank, &b->first, &b->end);
	const uint64_t count = b->end - b->first;
	b->rows_bytes = count * in->npad * 4; /* (as read; packed to stride n after) */
	b->rows = lib_huge_alloc(b->rows_bytes + 4);
	if (!b->rows)
		tool_die("process %d: out of memory for its %llu rows of the graph (%.1f MiB)", b->rank,
		         (unsigned long long)count, b->rows_bytes / 1048576.0);
	if (how == BANDS_FILE && b->rank != 0)
		rows_of_file(b, path, in, threads);
	else if (how == BANDS_FILE)
		rows_of_reader(b, r, tool_input_name(path));
	else
		rows_forwarded(b, r, in, path, threads);
	pack_rows(b->rows, count, b->n, in->npad);
	tool_mark("band read");
	st_error err;
	sv_facts f;
	if (sv_band_facts(b->type, b->n, b->rows, b->first, count, threads, &f, &err) < 0)
		tool_die_st(NULL, &err);
	/* combined: sums, the first negative diagonal, whether any band has one */
	int64_t sum[2] = {(int64_t)f.edges, f.pos_bound};
	int64_t most[3] = {f.bad, f.negative, f.zero};
	int64_t least[1] = {f.neg_diag >= 0 ? f.neg_diag : INT64_MAX};
	ranks_allreduce(sum, 2, RANKS_SUM);
	ranks_allreduce(most, 3, RANKS_MAX);
	ranks_allreduce(least, 1, RANKS_MIN);
	b->all = (sv_facts){(uint64_t)sum[0], sum[1], least[0] == INT64_MAX ? -1 : least[0],
	                    (int)most[0], (int)most[1], (int)most[2]};
	tool_mark("bands' facts agreed");
}

int bands_stay(const struct bands *b, int paths, int order, uint32_t stream_block, char *why,
               size_t len)
{
	const sv_facts *f = &b->all;
	const char *no = sv_facts_need(b->type, f); /* (reweighting, a cycle, an error) */
	uint64_t smallest = UINT64_MAX; /* bytes of the smallest band */
	for (int q = 0; q < b->count; q++) {
		uint64_t lo, hi;
		fwg_band_rows(b->n, b->block, b->count, q, &lo, &hi);
		smallest = (hi - lo) * b->n * 4 < smallest ? (hi - lo) * b->n * 4 : smallest;
	}
	char kept[160]; /* (the order's words, not needed here) */
	if (!no && !engine_stays_dense(order, b->n, b->type, f->edges, kept, sizeof kept))
		no = "sparse runs use one";
	if (!no && paths && b->type != ST_INT32)
		no = "float32 predecessor chains are checked against the whole graph";
	if (!no && paths && f->zero)
		no = "with edges of weight 0 predecessor chains are checked against the whole graph";
	if (!no && smallest < stream_block)
		no = "bands smaller than a block of the stream";
	if (no)
		snprintf(why, len, "%s", no);
	return !no;
}

void *bands_gather(struct bands *b)
{
	const uint64_t row = b->n * 4;
	void *all = NULL;
	if (b->rank == 0) {
		const size_t bytes = (size_t)(b->n * row);
		if (!(all = lib_huge_alloc(bytes + 4)))
			tool_die("out of memory for the %llu x %llu graph gathered on process 0",
			         (unsigned long long)b->n, (unsigned long long)b->n);
		memcpy((char *)all + b->first * row, b->rows, (b->end - b->first) * row);
		for (int q = 1; q < b->count; q++) {
			uint64_t lo, hi;
			fwg_band_rows(b->n, b->block, b->count, q, &lo, &hi);
			ranks_recv((char *)all + lo * row, (hi - lo) * row, q, TAG_GATHER);
		}
	} else {
		ranks_send(b->rows, (b->end - b->first) * row, 0, TAG_GATHER);
	}
	bands_free_rows(b);
	return all;
}

void bands_free_rows(struct bands *b)
{
	if (b->rows)
		free(b->rows);
	b->rows = NULL;
}

/* ---- the result ---- */

/* One matrix of the result on this process: the bytes own0 .. own1 - 1 of
 * its own rows; of them, those before lo (the rest of a block begun in the
 * band before) go to the process before, and lo .. hi - 1 (up to the first
 * block begun in the next band, whose first bytes come from it) are
 * compressed here: into the stream on process 0, into a spool elsewhere. */
struct part {
	uint64_t own0, own1, lo, hi;
	st_spool *s;            /* the blocks from lo on (process 0's distances: none) */
	unsigned char *head;    /* own0 .. lo - 1 */
};

struct bands_out {
	struct bands *b;
	st_writer *w;           /* process 0 */
	struct part d, p;
	int paths, threads;
	const struct fwg_timing *t;
	int64_t bad;            /* predecessor chains found not to end at their source */
};

static void part_open(struct bands_out *o, struct part *pt, uint32_t matrix, const st_header *h,
                      int level)
{
	const struct bands *b = o->b;
	const uint64_t row = b->n * 4, blk = h->block, total = b->n * row;
	pt->own0 = b->first * row;
	pt->own1 = b->end * row;
	pt->lo = (pt->own0 + blk - 1) / blk * blk;
	pt->hi = b->rank == b->count - 1 ? total : (pt->own1 + blk - 1) / blk * blk;
	if (pt->lo > pt->own0 && !(pt->head = malloc(pt->lo - pt->own0)))
		tool_die("out of memory");
	st_error err;
	if ((b->rank || matrix == ST_PRED)
	    && !(pt->s = st_spool_open_part(h, matrix, pt->lo, pt->hi - pt->lo, level, o->threads,
	                                    &err)))
		tool_die_st(NULL, &err);
}

struct bands_out *bands_out_open(struct bands *b, int fd, const st_header *h, int paths,
                                 int level, int threads)
{
	struct bands_out *o = calloc(1, sizeof *o);
	if (!o)
		tool_die("out of memory");
	o->b = b;
	o->paths = paths;
	o->threads = threads;
	st_error err;
	if (b->rank == 0 && !(o->w = st_writer_open(fd, h, level, threads, &err)))
		tool_die_st(tool_output_name(), &err);
	part_open(o, &o->d, ST_DIST, h, level);
	if (paths)
		part_open(o, &o->p, ST_PRED, h, level);
	return o;
}

void bands_out_timing(struct bands_out *o, const struct fwg_timing *t)
{
	o->t = t;
}

/* Bytes at..at + len - 1 of a part's matrix: those before lo kept for the
 * process before, the rest compressed here. */
static int part_put(struct bands_out *o, struct part *pt, uint64_t at, const void *src,
                    size_t len, st_error *err)
{
	const unsigned char *p = src;
	if (at < pt->lo) {
		const size_t k = pt->lo - at < len ? (size_t)(pt->lo - at) : len;
		memcpy(pt->head + (at - pt->own0), p, k);
		p += k, at += k, len -= k;
	}
	if (!len)
		return 0;
	return pt->s ? st_spool_write(pt->s, p, len, err) : st_write(o->w, p, len, err);
}

/* A panel's predecessors into their part, on a thread beside the distances. */
struct pred_job {
	struct bands_out *o;
	uint64_t at;
	const int32_t *pred;
	size_t len;
	int rc;
	st_error err;
};

static void *put_preds(void *arg)
{
	struct pred_job *j = arg;
	j->rc = part_put(j->o, &j->o->p, j->at, j->pred, j->len, &j->err);
	return NULL;
}

int bands_take(void *ctx, uint64_t r0, uint64_t rows, void *dist, int32_t *pred)
{
	struct bands_out *o = ctx;
	struct bands *b = o->b;
	bands_free_rows(b); /* (on the device long since) */
	const uint64_t n = b->n, at = r0 * n * 4;
	const size_t len = rows * n * 4;
	if (pred && o->t && !o->t->chains_sure) { /* checked; nothing here to re-attach them by */
		int64_t k = fw_repair_rows(b->type, n, NULL, n, r0, rows, dist, pred, o->threads);
		o->bad += k < 0 ? 1 : k;
	}
	struct pred_job pj = {o, at, pred, len, 0, {{0}}};
	pthread_t tid;
	const int beside = pred && pthread_create(&tid, NULL, put_preds, &pj) == 0;
	if (pred && !beside)
		put_preds(&pj);
	st_error err;
	int rc = part_put(o, &o->d, at, dist, len, &err);
	if (beside)
		pthread_join(tid, NULL);
	if (rc < 0 || pj.rc < 0)
		tool_die_st(b->rank ? NULL : tool_output_name(), rc < 0 ? &err : &pj.err);
	if (b->rank == 0)
		tool_progress("rows", r0 + rows, b->end);
	return 0;
}

/* The bytes own1 .. hi - 1 of a part: the next process's head. */
static void part_tail(struct bands_out *o, struct part *pt, int tag)
{
	const struct bands *b = o->b;
	const size_t len = pt->hi - pt->own1;
	if (b->rank == b->count - 1 || !len)
		return;
	unsigned char *tail = malloc(len);
	if (!tail)
		tool_die("out of memory");
	ranks_recv(tail, len, b->rank + 1, tag);
	st_error err;
	if (part_put(o, pt, pt->own1, tail, len, &err) < 0)
		tool_die_st(b->rank ? NULL : tool_output_name(), &err);
	free(tail);
}

/* A spool's blocks to process 0, in messages of whole blocks, each after
 * its length; a length of 0 ends them. */
static void send_blocks(st_spool *s, int tag)
{
	unsigned char *buf = NULL;
	size_t cap = 0, used = 0;
	for (uint64_t i = 0, nblk = st_spool_blocks(s); i <= nblk; i++) {
		size_t len = 0;
		const void *blk = i < nblk ? st_spool_block(s, i, &len) : NULL;
		if (used && (i == nblk || used + len > BLOCKS_BYTES)) {
			uint64_t m = used;
			ranks_send(&m, sizeof m, 0, tag);
			ranks_send(buf, used, 0, tag);
			used = 0;
		}
		if (i == nblk)
			break;
		if (used + len > cap) {
			cap = used + len > BLOCKS_BYTES ? used + len : BLOCKS_BYTES;
			if (!(buf = realloc(buf, cap)))
				tool_die("out of memory");
		}
		memcpy(buf + used, blk, len);
		used += len;
	}
	uint64_t end = 0;
	ranks_send(&end, sizeof end, 0, tag);
	free(buf);
}

/* Process 0: process q's blocks of the current matrix into w (NULL: taken
 * and dropped).  0, or -1 (err) where w failed; all of them taken even
 * then. */
static int write_blocks_of(st_writer *w, int q, int tag, st_error *err)
{
	unsigned char *buf = NULL;
	size_t cap = 0;
	int rc = 0;
	for (;;) {
		uint64_t m;
		ranks_recv(&m, sizeof m, q, tag);
		if (!m)
			break;
		if (m > cap && !(buf = realloc(buf, cap = m)))
			tool_die("out of memory");
		ranks_recv(buf, m, q, tag);
		if (w && rc == 0 && st_write_stored(w, buf, m, err) < 0)
			rc = -1;
	}
	free(buf);
	return rc;
}

/* Every process's blocks of the current matrix after process 0's. */
static void write_others(st_writer *w, int count, int tag)
{
	st_error err;
	for (int q = 1; q < count; q++)
		if (write_blocks_of(w, q, tag, &err) < 0)
			tool_die_st(tool_output_name(), &err);
}

void bands_out_finish(struct bands_out *o)
{
	const struct bands *b = o->b;
	if (o->bad)
		tool_die("process %d: %lld predecessor chains do not end at their sources, and no "
		         "process holds the whole graph to re-attach them", b->rank, (long long)o->bad);
	/* the heads to the process before, the tails from the process after */
	ranks_req rq[2] = {{NULL}, {NULL}};
	if (b->rank > 0) {
		ranks_isend(o->d.head, o->d.lo - o->d.own0, b->rank - 1, TAG_HEAD_D, &rq[0]);
		if (o->paths)
			ranks_isend(o->p.head, o->p.lo - o->p.own0, b->rank - 1, TAG_HEAD_P, &rq[1]);
	}
	part_tail(o, &o->d, TAG_HEAD_D);
	if (o->paths)
		part_tail(o, &o->p, TAG_HEAD_P);
	ranks_wait(&rq[0]);
	ranks_wait(&rq[1]);
	free(o->d.head);
	free(o->p.head);
	st_error err;
	if (b->rank > 0) { /* every block to process 0 */
		send_blocks(o->d.s, TAG_BLOCKS_D);
		st_spool_free(o->d.s);
		if (o->paths)
			send_blocks(o->p.s, TAG_BLOCKS_P);
		st_spool_free(o->p.s);
		free(o);
		return;
	}
	write_others(o->w, b->count, TAG_BLOCKS_D);
	if (st_write_end_matrix(o->w, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	if (o->paths) {
		if (st_write_spool(o->w, o->p.s, &err) < 0)
			tool_die_st(tool_output_name(), &err);
		write_others(o->w, b->count, TAG_BLOCKS_P);
		if (st_write_end_matrix(o->w, &err) < 0)
			tool_die_st(tool_output_name(), &err);
	}
	if (st_writer_close(o->w, &err) < 0)
		tool_die_st(tool_output_name(), &err);
	free(o);
}

/* ---- checkpoints shared by the processes (checkpoint.h) ---- */

static unsigned long share_crc(unsigned long crc, uint64_t len)
{
	const int rank = ranks_rank(), count = ranks_count();
	uint64_t mine[2] = {crc, len}, all = crc;
	if (rank > 0) {
		ranks_send(mine, sizeof mine, 0, TAG_CRC);
	} else {
		for (int q = 1; q < count; q++) { /* in the rows' order */
			uint64_t theirs[2];
			ranks_recv(theirs, sizeof theirs, q, TAG_CRC);
			all = crc32_combine((uLong)all, (uLong)theirs[0], (z_off_t)theirs[1]);
		}
	}
	ranks_bcast(&all, sizeof all);
	return (unsigned long)all;
}

static int share_agree(int yes)
{
	ranks_bcast(&yes, sizeof yes);
	return yes;
}

static void share_send(st_spool *s, int matrix)
{
	send_blocks(s, matrix == ST_PRED ? TAG_STATE_P : TAG_STATE_D);
}

static int share_recv(st_writer *w, int matrix, st_error *err)
{
	int rc = 0;
	for (int q = 1; q < ranks_count(); q++)
		if (write_blocks_of(w, q, matrix == ST_PRED ? TAG_STATE_P : TAG_STATE_D, err) < 0)
			rc = -1, w = NULL; /* (the rest taken and dropped) */
	return rc;
}

/* The run's checkpoints shared by its processes: this one's rows of the
 * state (npad of them, blocking factor B) and of the weights; the run's
 * identity from every process's weights (user_block: the -B asked). */
static void share_checkpoints(struct ckpt *ck, const struct bands *b, const struct fwg_opts *o,
                              int user_block)
{
	static struct ckpt_ranks R;
	const uint64_t npad = (b->n + b->block - 1) / b->block * b->block;
	R = (struct ckpt_ranks){b->rank, b->count, 0, 0, (uint64_t)b->block, b->end - b->first,
	                        share_crc, share_agree, share_send, share_recv};
	fwg_band_rows(npad, b->block, b->count, b->rank, &R.first_row, &R.end_row);
	ck->ranks = &R;
	char layout[96]; /* (as one process makes it: its checkpoints are this run's) */
	ckpt_gpu_layout(layout, sizeof layout, user_block, o->paths, o->lanes16, o->derive, 0);
	ckpt_begin(ck, b->type, b->n, b->rows, NULL, layout, 0);
}

/* ---- the run ---- */

int bands_how(const engine_in *r, const st_header *in, const char *input, int nproc)
{
	struct stat sb;
	if (nproc < 2 || !r || !r->r || (in->type != ST_INT32 && in->type != ST_FLOAT32))
		return BANDS_NONE;
	return strcmp(input, "-") && stat(input, &sb) == 0 && S_ISREG(sb.st_mode) ? BANDS_FILE
	                                                                       : BANDS_FORWARD;
}

int bands_solve(const struct bands_head *hd, engine_in *r, st_header *in, const char *input,
                struct fwg_opts *o, struct init_job *job, int order, int out, FILE *sout,
                const struct stats_form *form, struct ckpt *ck, int threads, void **gathered)
{
	const int rank = ranks_rank(), nproc = ranks_count(), paths = o->paths, asked = o->block;
	const double t0 = lib_now();
	struct bands b = {.n = hd->n, .type = hd->type, .rank = rank, .count = nproc};
	b.block = o->block ? o->block : fwg_choose_block(hd->n, o->type, paths, o->lanes16, 0);
	st_header h;
	st_header_init(&h, hd->n, 1, hd->type);
	h.npad = hd->npad, h.block = hd->block, h.flags = hd->flags, h.matrices = ST_WEIGHTS;
	/* the rows as read, then the result's compressed ahead of their turn */
	uint64_t first, end;
	fwg_band_rows(b.n, b.block, nproc, rank, &first, &end);
	const double band = (double)(end - first) * (double)b.n * 4, have = engine_physical_memory();
	double need = band * (double)hd->npad / (double)b.n > band * (1 + paths)
	            ? band * (double)hd->npad / (double)b.n : band * (1 + paths);
	if (o->checkpoint) /* (the state of its rows, beside) */
		need += band * (1 + paths);
	char refusal[200];
	if (have > 0 && need > have) /* (each process's rows grow as n^2 for a count of processes) */
		tool_die("process %d, its %llu rows: %s", rank, (unsigned long long)(end - first),
		         lib_memory_refusal(refusal, sizeof refusal, b.n, need, have, 2));
	bands_read(&b, hd->how, input, r ? r->r : NULL, rank == 0 ? in : &h, threads);
	const double t_read = lib_now();
	char why[160];
	if (!bands_stay(&b, paths, order, hd->block, why, sizeof why)) {
		if (o->checkpoint && rank == 0)
			tool_die("%s: checkpoints under mpirun need each process's rows to stay where they "
			         "are; here %s", tool_input_name(input), why);
		if (o->checkpoint) /* (process 0's death ends this one) */
			ranks_bcast(&b.rank, sizeof b.rank);
		if (rank == 0)
			tool_info("the graph gathered on process 0: %s", why);
		*gathered = bands_gather(&b);
		st_header_free(&h);
		return 0;
	}
	for (uint64_t i = b.first; i < b.end; i++) /* (sv_prepare's diagonal) */
		memset((char *)b.rows + ((i - b.first) * b.n + i) * 4, 0, 4);
	if (rank == 0) {
		st_header_free(&h);
		st_error err;
		if (sv_result_header(in, paths, &h, &err) < 0)
			tool_die_st("result", &err);
		tool_add_provenance(&h);
	} else {
		h.matrices = ST_DIST | (paths ? ST_PRED : 0), h.npad = hd->n;
	}
	if (o->checkpoint)
		share_checkpoints(ck, &b, o, asked);
	o->block = b.block, o->own_rows = 1, o->rank = rank, o->ranks = nproc;
	gpustart_ready(job, o);
	o->device = job->device;
	const double t1 = lib_now();
	struct fwg_timing t;
	char msg[512];
	static gs_stats st;
	struct bands_out *bo = NULL;
	st_error err;
	if (form && gs_init(&st, b.n, b.type, &err) < 0)
		tool_die_st(NULL, &err);
	o->stats = form ? &st : NULL;
	if (!form)
		bo = bands_out_open(&b, out, &h, paths, tool_opts.level, threads);
	if (bo)
		bands_out_timing(bo, &t);
	if (fwg_solve_panels(o, b.n, b.rows, bo ? bands_take : NULL, bo, &t, msg, sizeof msg) < 0)
		tool_die("process %d: %s", rank, msg);
	const double t2 = lib_now();
	tool_mark("band solved");
	bands_free_rows(&b);
	if (bo)
		bands_out_finish(bo);
	tool_mark("rows written");
	if (rank == 0 && form)
		stats_print(sout, &st, form, hd->flags);
	if (form)
		gs_free(&st);
	if (rank == 0)
		tool_output_commit();
	if (o->checkpoint) /* (the result committed: no more need of it) */
		ckpt_end(ck);
	if (rank == 0) {
		const double nn = (double)b.n;
		tool_info("%s (each process its own rows): n %llu, B %d, %s%s, %s: kernels %.1f ms "
		          "(%.3g dense relaxations/s), upload %.1f ms, download %.1f ms; read %.3f s, "
		          "device wait %.3f s, solve %.3f s, rest written %.3f s; %d threads a process%s",
		          t.device_name, (unsigned long long)b.n, t.block,
		          b.type == ST_INT32 ? "int32" : "float32", paths ? ", paths" : "",
		          t.lanes16 == 1 ? "16-bit lanes" : t.packed ? "packed" : "plain", t.kernel_ms,
		          t.kernel_ms > 0 ? nn * nn * nn / (t.kernel_ms * 1e-3) : 0.0, t.upload_ms,
		          t.download_ms, t_read - t0, t1 - t_read, t2 - t1, lib_now() - t2, threads,
		          t.stats_on_device ? "; statistics folded on the device" : "");
		if (o->checkpoint)
			ckpt_gpu_report(t.checkpoints, t.resumed_from, t.checkpoint_direct);
	}
	st_header_free(&h);
	return 1;
}
