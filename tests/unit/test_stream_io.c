/* test_stream_io.c - unit tests of how the binary matrix stream is read
 * and written (lib/stream/stream_write.c, stream_read.c): the same bytes whatever
 * the thread count, several blocks a turn on many threads, progress, rows
 * and skips, a later matrix spooled ahead, parts compressed apart, blocks
 * handed over as stored, and a real pipe (windows: test_stream_windows.c). */
#include "stream_t.h"

/* The bytes never depend on the thread count; reading on any count works. */
static void test_threads(void)
{
	static const int threads[] = {1, 2, 3, 8, 0};
	static const struct { uint64_t n; uint32_t block; int level; } cfg[] = {
		{131, 256, 1}, {200, 4000, 3}, {700, ST_BLOCK_DEFAULT, 1}, {300, 1024, 0}};
	st_error err;

	for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
		st_header h;
		struct mats x;
		size_t len0 = 0, len;
		make_int32(&h, &x, cfg[c].n, ST_DIST | ST_PRED, cfg[c].block);
		unsigned char *ref = write_stream(&h, &x, cfg[c].level, 1, 0, &len0, &err);
		for (size_t t = 1; t < sizeof threads / sizeof *threads; t++) {
			unsigned char *b = write_stream(&h, &x, cfg[c].level, threads[t], 0, &len, &err);
			T_CHECKF(b && ref && len == len0 && !memcmp(b, ref, len),
			       "n=%llu block=%u level=%d: %d threads write the bytes 1 thread writes",
			       (unsigned long long)h.n, h.block, cfg[c].level, threads[t]);
			free(b);
		}
		for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
			T_CHECKF(ref && read_equal(ref, len0, &h, &x, threads[t], &err),
			       "n=%llu block=%u: read back on %d threads", (unsigned long long)h.n,
			       h.block, threads[t]);
		free(ref);
		free_all(&x);
	}
}

/* ---- progress while a matrix is read ---- */

struct seen {
	const unsigned char *want; /* the matrix the stream holds */
	const unsigned char *dst;  /* where it is being read */
	uint64_t last;
	int calls, backwards, unequal;
};

static void on_progress(void *ctx, uint64_t bytes)
{
	struct seen *s = ctx;
	s->calls++;
	if (bytes <= s->last)
		s->backwards++;
	if (memcmp(s->dst, s->want, bytes)) /* what it reports is in place */
		s->unequal++;
	s->last = bytes;
}

/* Read the first matrix of stream b with progress reported; the read's
 * status. */
static int read_progress(const unsigned char *b, size_t len, const st_header *h,
                         const void *want, int threads, struct seen *s, st_error *err)
{
	int fd = mem_fd(b, len);
	st_header got;
	unsigned char *dst = calloc(st_matrix_bytes(h), 1);
	memset(s, 0, sizeof *s);
	s->want = want, s->dst = dst;
	int rc = -1;
	st_reader *r = st_reader_open(fd, "mem", &got, threads, err);
	if (r) {
		st_reader_progress(r, on_progress, s);
		st_next_matrix(r);
		rc = st_read_matrix(r, dst, err);
		if (rc == 0)
			rc = st_reader_close(r, err);
		else
			st_reader_free(r);
		st_header_free(&got);
	}
	free(dst);
	close(fd);
	return rc;
}

static void test_progress(void)
{
	st_header h;
	struct mats x;
	st_error err;
	size_t len;
	struct seen s;

	st_header_init(&h, 300, 1, ST_INT32);
	h.matrices = ST_WEIGHTS;
	h.block = 4096; /* 88 blocks */
	make_all(&h, &x);
	const uint64_t bytes = st_matrix_bytes(&h);
	unsigned char *b = write_stream(&h, &x, 1, 4, 0, &len, &err);
	for (int threads = 1; threads <= 8; threads *= 8) {
		int rc = read_progress(b, len, &h, x.m[0], threads, &s, &err);
		T_CHECKF(rc == 0 && s.last == bytes && s.calls > 1 && !s.backwards && !s.unequal,
		         "progress on %d threads: %d calls, growing, each part in place, the whole "
		         "matrix last", threads, s.calls);
	}
	/* A block spoilt past the middle: the progress stops before it. */
	unsigned char *c = malloc(len);
	memcpy(c, b, len);
	c[len * 3 / 4] ^= 0x40;
	int rc = read_progress(c, len, &h, x.m[0], 8, &s, &err);
	T_CHECKF(rc < 0 && s.last < bytes && !s.unequal && !s.backwards,
	         "a damaged block: the read fails (%s) and the progress stops before it (%llu of "
	         "%llu bytes)", err.msg, (unsigned long long)s.last, (unsigned long long)bytes);
	free(c);
	free(b);
	free_all(&x);
}

/* ---- rows and skips ---- */

static int rows_equal_via(int kind, const unsigned char *b, size_t len, const st_header *h,
                          const struct mats *x, const uint64_t *rows, size_t nrows,
                          st_error *err)
{
	struct source src;
	int fd = source_open(&src, kind, b, len);
	st_header g;
	uint64_t rb = h->npad * ST_TYPE_SIZE(h->type);
	int ok = 0;
	st_reader *r = st_reader_open(fd, "mem", &g, 2, err);
	unsigned char *dst = malloc(nrows * rb + 1);

	if (r && st_next_matrix(r) == ST_WEIGHTS && st_skip_matrix(r, err) == 0
	    && st_next_matrix(r) == ST_DIST && st_read_rows(r, rows, nrows, dst, err) == 0) {
		ok = 1;
		for (size_t k = 0; k < nrows; k++)
			ok = ok && !memcmp(dst + k * rb, (unsigned char *)x->m[1] + rows[k] * rb, rb);
		/* the stream goes on correctly after the rows */
		unsigned char *pred = malloc(st_matrix_bytes_of(h, ST_PRED));
		ok = ok && st_next_matrix(r) == ST_PRED && st_read_matrix(r, pred, err) == 0
		     && !memcmp(pred, x->m[2], st_matrix_bytes_of(h, ST_PRED)) && st_next_matrix(r) == 0;
		free(pred);
		ok = ok && st_reader_close(r, err) == 0;
		r = NULL;
	}
	st_reader_free(r);
	st_header_free(&g);
	free(dst);
	source_close(&src);
	return ok;
}

static int rows_equal(const unsigned char *b, size_t len, const st_header *h,
                      const struct mats *x, const uint64_t *rows, size_t nrows, st_error *err)
{
	return rows_equal_via(SRC_FILE, b, len, h, x, rows, nrows, err);
}

static void test_rows(void)
{
	st_header h;
	struct mats x;
	st_error err = {""};
	size_t len;

	st_header_init(&h, 131, 1, ST_INT32);
	h.matrices = ST_WEIGHTS | ST_DIST | ST_PRED;
	h.block = 200; /* rows of 524 bytes span blocks */
	make_all(&h, &x);
	unsigned char *b = write_stream(&h, &x, 1, 2, 0, &len, &err);

	uint64_t all[131];
	for (int i = 0; i < 131; i++)
		all[i] = (uint64_t)i;
	static const uint64_t some[] = {0, 5, 6, 50, 50, 99, 130};
	static const uint64_t first[] = {0}, last[] = {130}, mid[] = {64};
	T_CHECKF(rows_equal(b, len, &h, &x, all, 131, &err), "read_rows: every row %s", err.msg);
	T_CHECKF(rows_equal(b, len, &h, &x, some, 7, &err), "read_rows: some rows, one twice");
	T_CHECKF(rows_equal(b, len, &h, &x, first, 1, &err), "read_rows: first row");
	T_CHECKF(rows_equal(b, len, &h, &x, last, 1, &err), "read_rows: last row");
	T_CHECKF(rows_equal(b, len, &h, &x, mid, 1, &err), "read_rows: one middle row");
	T_CHECKF(rows_equal(b, len, &h, &x, NULL, 0, &err), "read_rows: no row");
	{
		/* float64: rows of 1048 bytes, then the narrower predecessors */
		st_header h8;
		struct mats x8;
		size_t len8;
		st_header_init(&h8, 131, 1, ST_FLOAT64);
		h8.matrices = ST_WEIGHTS | ST_DIST | ST_PRED;
		h8.block = 200;
		make_all(&h8, &x8);
		unsigned char *b8 = write_stream(&h8, &x8, 1, 2, 0, &len8, &err);
		T_CHECKF(b8 && rows_equal(b8, len8, &h8, &x8, some, 7, &err), "read_rows: float64 rows, then the predecessors %s", err.msg);
		free(b8);
		free_all(&x8);
	}

	/* Wrong rows are refused. */
	static const uint64_t bad1[] = {3, 2}, bad2[] = {131};
	const uint64_t *bad[] = {bad1, bad2};
	for (int k = 0; k < 2; k++) {
		int fd = mem_fd(b, len);
		st_header g;
		st_reader *r = st_reader_open(fd, "mem", &g, 1, &err);
		unsigned char dst[2 * 524];
		int rc = r ? st_skip_matrix(r, &err) : -1;
		rc = rc ? rc : st_read_rows(r, bad[k], k ? 1 : 2, dst, &err);
		T_CHECKF(rc < 0 && strstr(err.msg, k ? "out of range" : "out of order"),
		       "read_rows refuses rows %s: %s", k ? "out of range" : "out of order", err.msg);
		st_reader_free(r);
		st_header_free(&g);
		close(fd);
	}

	/* Blocks holding no wanted row are not inflated: break the payload of a
	 * distance block far from row 0 and read row 0 only, then that block. */
	{
		int fd = mem_fd(b, len);
		st_header g;
		st_reader *r = st_reader_open(fd, "mem", &g, 1, &err);
		st_skip_matrix(r, &err);
		off_t pos = lseek(fd, 0, SEEK_CUR);
		st_reader_free(r);
		st_header_free(&g);
		close(fd);
		/* walk to block 40 of the distance matrix */
		size_t p = (size_t)pos;
		for (int k = 0; k < 40; k++)
			p += 16 + (b[p + 4] | b[p + 5] << 8 | b[p + 6] << 16 | (size_t)b[p + 7] << 24);
		unsigned char *c = malloc(len);
		memcpy(c, b, len);
		for (int k = 0; k < 4; k++)
			c[p + 16 + k] ^= 0x5a;
		uint64_t row0 = 0, row40 = 40 * 200 / 524;
		T_CHECKF(rows_equal(c, len, &h, &x, &row0, 1, &err), "read_rows skips a broken block it does not need");
		T_CHECKF(!rows_equal(c, len, &h, &x, &row40, 1, &err)
		       && strstr(err.msg, "block 40 of the distance matrix"),
		       "read_rows reports the broken block it needs: %s", err.msg);
		/* Blocks passed over from a pipe and a socket as from a file: the
		 * rows and the matrices after them come out the same, and a stream
		 * cut inside a block passed over (or its header) is truncated there. */
		for (int kind = 0; kind < SRC_KINDS; kind++) {
			uint64_t row1 = 1;
			int ok = rows_equal_via(kind, b, len, &h, &x, some, 7, &err)
			         && rows_equal_via(kind, b, len, &h, &x, &row1, 1, &err)
			         && rows_equal_via(kind, c, len, &h, &x, &row0, 1, &err);
			T_CHECKF(ok, "read_rows from %s, blocks passed over (a broken one too) %s",
			         src_name[kind], ok ? "" : err.msg);
			for (int cut = 0; cut < 2; cut++) {
				size_t at = cut ? p + 16 + 3 : p + 7;
				T_CHECKF(!rows_equal_via(kind, b, at, &h, &x, &row0, 1, &err)
				         && strstr(err.msg, "truncated in block 40 of the distance matrix"),
				         "from %s cut in %s of a block passed over: %s", src_name[kind],
				         cut ? "the bytes" : "the header", err.msg);
			}
		}
		free(c);
	}

	/* st_reader_close skips what was not read and checks the end marker. */
	{
		int fd = mem_fd(b, len);
		st_header g;
		st_reader *r = st_reader_open(fd, "mem", &g, 1, &err);
		T_CHECKF(r && st_reader_close(r, &err) == 0 && lseek(fd, 0, SEEK_CUR) == (off_t)len,
		       "close skips unread matrices to the end marker");
		st_header_free(&g);
		close(fd);
	}
	free(b);
	free_all(&x);
}

/* ---- a later matrix spooled ahead ---- */

struct spool_job {
	st_spool *s;
	const unsigned char *p;
	size_t len, chunk;
	int rc;
	st_error err;
};

static void *spool_feeder(void *arg)
{
	struct spool_job *j = arg;
	for (size_t off = 0; off < j->len && j->rc == 0; off += j->chunk) {
		size_t c = j->len - off < j->chunk ? j->len - off : j->chunk;
		j->rc = st_spool_write(j->s, j->p + off, c, &j->err);
	}
	return NULL;
}

/* Distances written, then predecessors from a spool filled beforehand, into
 * fd: how apsp-gpu writes into a pipe.  0 or -1. */
struct spool_out {
	int fd, threads, rc;
	const st_header *h;
	const struct mats *x;
	st_error err;
};

static void *spool_into(void *arg)
{
	struct spool_out *o = arg;
	st_writer *w = st_writer_open(o->fd, o->h, 1, o->threads, &o->err);
	st_spool *sp = w ? st_spool_open(w, ST_PRED, &o->err) : NULL;
	size_t bytes = st_matrix_bytes(o->h);
	o->rc = sp && st_spool_write(sp, o->x->m[2], bytes, &o->err) == 0
	        && st_write_matrix(w, o->x->m[1], &o->err) == 0
	        && st_write_spool(w, sp, &o->err) == 0 && st_writer_close(w, &o->err) == 0 ? 0 : -1;
	if (o->rc < 0 && w) {
		st_spool_free(sp);
		st_writer_abort(w);
	}
	return NULL;
}

/* The same in a thread, closing fd after (the reader waits for its end). */
static void *spool_into_closed(void *arg)
{
	struct spool_out *o = arg;
	spool_into(o);
	close(o->fd);
	return NULL;
}

/* The predecessors spooled (from another thread, in row panels) while the
 * distances are written: the same bytes as writing them in turn. */
static unsigned char *write_spooled(const st_header *h, const struct mats *x, int level,
                                    int threads, size_t chunk, size_t *len, st_error *err)
{
	int fd = memfd_create("out", 0);
	unsigned char *b = NULL;
	size_t bytes = st_matrix_bytes(h);
	st_writer *w = st_writer_open(fd, h, level, threads, err);
	if (!w)
		goto out;
	if (x->m[0] && st_write_matrix(w, x->m[0], err) < 0) {
		st_writer_abort(w);
		goto out;
	}
	struct spool_job j = {st_spool_open(w, ST_PRED, err), x->m[2], bytes, chunk, 0, {{0}}};
	pthread_t t;
	if (!j.s || pthread_create(&t, NULL, spool_feeder, &j) != 0) {
		st_spool_free(j.s);
		st_writer_abort(w);
		goto out;
	}
	int rc = 0;
	for (size_t off = 0; off < bytes && rc == 0; off += chunk)
		rc = st_write(w, (unsigned char *)x->m[1] + off, bytes - off < chunk ? bytes - off : chunk,
		              err);
	pthread_join(t, NULL);
	if (j.rc < 0)
		*err = j.err;
	if (rc < 0 || j.rc < 0 || st_write_end_matrix(w, err) < 0 || st_write_spool(w, j.s, err) < 0
	    || st_writer_close(w, err) < 0) {
		if (rc < 0 || j.rc < 0)
			st_spool_free(j.s);
		goto out;
	}
	b = fd_bytes(fd, len);
out:
	close(fd);
	return b;
}

static void test_spool(void)
{
	static const struct { uint64_t n; uint32_t block; int level, threads; size_t chunk; uint32_t mats; } cfg[] = {
		{131, 256, 1, 2, 1000, ST_DIST | ST_PRED},
		{300, 4096, 1, 3, 131 * 4 * 7, ST_WEIGHTS | ST_DIST | ST_PRED},
		{700, ST_BLOCK_DEFAULT, 1, 0, 700 * 4 * 100, ST_DIST | ST_PRED},
		{200, 1024, 0, 2, 3, ST_DIST | ST_PRED},
		{1500, 65536, 3, 4, 1500 * 4 * 37, ST_DIST | ST_PRED}};
	st_error err;

	for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
		st_header h;
		struct mats x;
		size_t len0 = 0, len = 0;
		make_int32(&h, &x, cfg[c].n, cfg[c].mats, cfg[c].block);
		unsigned char *ref = write_stream(&h, &x, cfg[c].level, 1, 0, &len0, &err);
		unsigned char *b = write_spooled(&h, &x, cfg[c].level, cfg[c].threads, cfg[c].chunk,
		                                 &len, &err);
		T_CHECKF(ref && b && len == len0 && !memcmp(b, ref, len),
		       "n=%llu block=%u level=%d: predecessors spooled in pieces of %zu bytes while the "
		       "distances are written give the same stream %s", (unsigned long long)h.n, h.block,
		       cfg[c].level, cfg[c].chunk, b ? "" : err.msg);
		free(b);
		free(ref);
		free_all(&x);
	}

	/* Into a pipe, the spool's blocks are handed over by reference
	 * (vmsplice): the whole stream fits in the pipe, so the writer returns
	 * and unmaps the spool before anything is read; memory is then written
	 * over, and the bytes read must still be the stream's. */
	{
		st_header hp;
		struct mats xp;
		size_t len0 = 0;
		st_header_init(&hp, 131, 1, ST_INT32);
		hp.matrices = ST_DIST | ST_PRED;
		make_all(&hp, &xp);
		unsigned char *ref = write_stream(&hp, &xp, 1, 1, 0, &len0, &err);
		int p[2];
		int ok = ref && pipe(p) == 0;
		if (ok && fcntl(p[1], F_SETPIPE_SZ, 1 << 20) < (int)len0 + 4096) {
			printf("SKIP spool into a pipe: the pipe holds less than %zu bytes\n", len0);
			close(p[0]), close(p[1]);
			ok = -1;
		}
		if (ok == 1) {
			struct spool_out o = {p[1], 2, 0, &hp, &xp, {{0}}};
			spool_into(&o);
			ok = o.rc == 0;
			err = o.err;
			close(p[1]);
			for (int k = 0; k < 8; k++) { /* reuse freed memory */
				unsigned char *junk = malloc(4 << 20);
				memset(junk, 0xa5, 4 << 20);
				free(junk);
			}
			unsigned char *got = malloc(len0 + 1);
			ssize_t n = ok ? 0 : -1;
			for (ssize_t k = 1; ok && k > 0 && (size_t)n <= len0; n += k)
				if ((k = read(p[0], got + n, len0 + 1 - (size_t)n)) <= 0)
					break;
			T_CHECKF(ok && n == (ssize_t)len0 && !memcmp(got, ref, len0),
			         "the spool into a pipe, read after the writer has gone, is the stream "
			         "(%zd of %zu bytes) %s", n, len0, ok ? "" : err.msg);
			free(got);
			close(p[0]);
		}
		free(ref);
		free_all(&xp);
	}
	/* A spool many times the pipe's size, read as it is written: the
	 * pipe takes the blocks a part at a time. */
	{
		st_header hp;
		struct mats xp;
		st_header_init(&hp, 1100, 1, ST_INT32);
		hp.matrices = ST_DIST | ST_PRED;
		hp.block = 65536;
		make_all(&hp, &xp);
		int p[2];
		pthread_t t;
		if (pipe(p) == 0) {
			struct spool_out o = {p[1], 3, 0, &hp, &xp, {{0}}};
			pthread_create(&t, NULL, spool_into_closed, &o);
			st_matrices m;
			int ok = st_read_all(p[0], "-", 2, &m, &err) == 0;
			pthread_join(t, NULL);
			size_t bytes = st_matrix_bytes(&hp);
			ok = ok && o.rc == 0 && !memcmp(m.dist, xp.m[1], bytes) && !memcmp(m.pred, xp.m[2], bytes);
			T_CHECKF(ok, "n=1100: a spool of %zu raw bytes through a pipe read as it comes %s",
			         bytes, ok ? "" : o.rc ? o.err.msg : err.msg);
			if (ok)
				st_matrices_free(&m);
			close(p[0]);
		}
		free_all(&xp);
	}

	/* misuse */
	st_header h;
	int32_t m[16] = {0};
	st_header_init(&h, 4, 1, ST_INT32);
	h.matrices = ST_WEIGHTS | ST_DIST;
	h.block = 16;
	int fd = memfd_create("w", 0);
	st_writer *w = st_writer_open(fd, &h, 1, 1, &err);
	T_CHECKF(w && !st_spool_open(w, ST_WEIGHTS, &err) && strstr(err.msg, "cannot spool the weight matrix"),
	       "the current matrix cannot be spooled: %s", err.msg);
	T_CHECKF(w && !st_spool_open(w, ST_PRED, &err)
	       && strstr(err.msg, "cannot spool the predecessor matrix"),
	       "a matrix the header does not announce cannot be spooled: %s", err.msg);
	st_spool *s = w ? st_spool_open(w, ST_DIST, &err) : NULL;
	T_CHECKF(s && st_spool_write(s, m, 64, &err) == 0 && st_write_spool(w, s, &err) < 0
	       && strstr(err.msg, "not the matrix the stream is at"),
	       "a spool written before its turn is refused: %s", err.msg);
	st_writer_abort(w);
	w = st_writer_open(fd, &h, 1, 1, &err);
	s = w ? st_spool_open(w, ST_DIST, &err) : NULL;
	T_CHECKF(s && st_spool_write(s, m, 40, &err) == 0 && st_write_matrix(w, m, &err) == 0
	       && st_write_spool(w, s, &err) < 0 && strstr(err.msg, "holds 40 of its 64 bytes"),
	       "a spool short of its matrix is refused: %s", err.msg);
	st_writer_abort(w);
	w = st_writer_open(fd, &h, 1, 1, &err);
	s = w ? st_spool_open(w, ST_DIST, &err) : NULL;
	T_CHECKF(s && st_spool_write(s, m, 65, &err) < 0 && strstr(err.msg, "holds only 64"),
	       "a spool refuses bytes beyond its matrix: %s", err.msg);
	st_spool_free(s);
	T_CHECKF(w && st_write_matrix(w, m, &err) == 0 && st_write_matrix(w, m, &err) == 0
	       && st_writer_close(w, &err) == 0, "a writer goes on after a spool was dropped");
	close(fd);
}

/* ---- through a real pipe, written by another thread ---- */

struct pipe_job {
	int fd;
	const st_header *h;
	const struct mats *x;
	int rc;
	st_error err;
};

static void *pipe_writer(void *arg)
{
	struct pipe_job *j = arg;
	j->rc = st_write_all(j->fd, j->h, j->x->m[0], j->x->m[1], j->x->m[2], 1, 2, &j->err);
	close(j->fd);
	return NULL;
}

static void test_pipe(void)
{
	st_header h;
	struct mats x;
	st_error err;
	int p[2];
	pthread_t t;

	st_header_init(&h, 700, 64, ST_FLOAT32);
	h.matrices = ST_WEIGHTS | ST_DIST | ST_PRED;
	h.block = 65536;
	make_all(&h, &x);
	if (pipe(p) < 0)
		return;
	struct pipe_job job = {p[1], &h, &x, 0, {{0}}};
	pthread_create(&t, NULL, pipe_writer, &job);
	st_matrices m;
	int ok = st_read_all(p[0], "-", 2, &m, &err) == 0;
	pthread_join(t, NULL);
	uint64_t bytes = st_matrix_bytes(&h);
	ok = ok && job.rc == 0 && !memcmp(m.weights, x.m[0], bytes)
	     && !memcmp(m.dist, x.m[1], bytes) && !memcmp(m.pred, x.m[2], bytes);
	T_CHECKF(ok, "float32 n=700 through a pipe from another thread %s", ok ? "" : err.msg);
	if (ok)
		st_matrices_free(&m);
	close(p[0]);
	free_all(&x);
}

/* ---- many threads: several blocks read in a turn ---- */

/* The first matrix of stream b (len bytes, through a source of kind) read
 * on threads into dst, whole (rows NULL) or those rows: 0, or -1 with err. */
static int read_first_via(int kind, const unsigned char *b, size_t len, int threads,
                          const uint64_t *rows, size_t nrows, void *dst, st_error *err)
{
	struct source src;
	int fd = source_open(&src, kind, b, len);
	st_header g;
	int rc = -1;
	err->msg[0] = 0;
	st_reader *r = st_reader_open(fd, "mem", &g, threads, err);
	if (r) {
		st_next_matrix(r);
		rc = rows ? st_read_rows(r, rows, nrows, dst, err) : st_read_matrix(r, dst, err);
		if (rc == 0)
			rc = st_reader_close(r, err);
		else
			st_reader_free(r);
		st_header_free(&g);
	}
	source_close(&src);
	return rc;
}

static void test_groups(void)
{
	static const int threads[] = {9, 16, 33, 64};
	static const uint64_t rows[] = {0, 7, 150, 151, 299};
	static const char *kname[] = {"a file", "a pipe"};
	st_header h;
	struct mats x;
	st_error err, ref;
	size_t len, len1;
	struct seen s;

	st_header_init(&h, 300, 1, ST_INT32);
	h.matrices = ST_WEIGHTS;
	h.block = 256; /* 1407 blocks: 64 threads read 8 a turn, 9 threads 2 */
	make_all(&h, &x);
	unsigned char *b = write_stream(&h, &x, 1, 64, 0, &len, &err);
	unsigned char *b1 = write_stream(&h, &x, 1, 1, 0, &len1, &err);
	T_CHECKF(b && b1 && len == len1 && !memcmp(b, b1, len),
	         "64 threads write the bytes 1 thread writes (%zu blocks)", (size_t)1407);
	const uint64_t bytes = st_matrix_bytes(&h), rb = h.npad * 4;
	unsigned char *dst = malloc(bytes), *c = malloc(len);
	memcpy(c, b, len);
	c[len * 2 / 3] ^= 0x40;
	for (int kind = SRC_FILE; kind <= SRC_PIPE; kind++) {
		for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
			memset(dst, 0, bytes);
			int ok = read_first_via(kind, b, len, threads[t], NULL, 0, dst, &err) == 0
			         && !memcmp(dst, x.m[0], bytes);
			T_CHECKF(ok, "%s, %d threads, blocks read in turns of several: the matrix %s",
			         kname[kind], threads[t], err.msg);
			ok = read_first_via(kind, b, len, threads[t], rows, 5, dst, &err) == 0;
			for (int k = 0; k < 5; k++)
				ok = ok && !memcmp(dst + k * rb, (unsigned char *)x.m[0] + rows[k] * rb, rb);
			T_CHECKF(ok, "%s, %d threads: five rows %s", kname[kind], threads[t], err.msg);
		}
		/* the same message as one thread gives: a spoilt block, a cut */
		for (int cut = 0; cut < 2; cut++) {
			const unsigned char *in = cut ? b : c;
			const size_t inlen = cut ? len / 2 : len;
			read_first_via(kind, in, inlen, 1, NULL, 0, dst, &ref);
			for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
				int rc = read_first_via(kind, in, inlen, threads[t], NULL, 0, dst, &err);
				T_CHECKF(rc < 0 && ref.msg[0] && !strcmp(err.msg, ref.msg),
				         "%s, %d threads: %s as one thread says it (%s)", kname[kind],
				         threads[t], cut ? "a cut stream" : "a spoilt block", err.msg);
			}
		}
	}
	int rc = read_progress(b, len, &h, x.m[0], 64, &s, &err);
	T_CHECKF(rc == 0 && s.last == bytes && s.calls > 1 && !s.backwards && !s.unequal,
	         "progress on 64 threads: %d calls, growing, each part in place, the whole matrix "
	         "last", s.calls);
	free(c);
	free(dst);
	free(b);
	free(b1);
	free_all(&x);
}

/* ---- parts of a matrix compressed apart (one per process) ---- */

/* Matrix bit m of x as `parts` processes would write it: rows cut into
 * even bands, each process compressing the blocks that begin in its band
 * (the bytes up to the next band's first block included), the first
 * writing its own straight into w.  0 or -1. */
static int write_parts(st_writer *w, const st_header *h, const struct mats *x, uint32_t m,
                       int parts, int level, st_error *err)
{
	const unsigned char *src = x->m[m == ST_DIST ? 1 : 2];
	const uint64_t row = h->npad * 4, bytes = h->npad * row, blk = h->block;
	uint64_t at = 0; /* the next byte the stream needs */
	int ended = 0;
	for (int k = 0; k < parts; k++) {
		const uint64_t end = k + 1 == parts ? bytes : (h->npad * (k + 1) / parts) * row;
		const uint64_t b1 = k + 1 == parts ? bytes : (end + blk - 1) / blk * blk;
		if (k == 0) { /* the first process: into the stream as its rows come */
			if (st_write(w, src, (size_t)(b1 < bytes ? b1 : bytes), err) < 0)
				return -1;
		} else if (b1 > at) {
			st_spool *s = st_spool_open_part(h, m, at, b1 - at, level, 2, err);
			if (!s || st_spool_write(s, src + at, (size_t)(b1 - at), err) < 0) {
				st_spool_free(s);
				return -1;
			}
			if (k == parts - 1 && k % 2) { /* the last: as a spool of its own */
				if (st_write_spool(w, s, err) < 0)
					return -1;
				at = b1;
				ended = 1;
				continue;
			}
			for (uint64_t i = 0; i < st_spool_blocks(s); i++) {
				size_t len;
				const void *b = st_spool_block(s, i, &len);
				if (st_write_stored(w, b, len, err) < 0) {
					st_spool_free(s);
					return -1;
				}
			}
			st_spool_free(s);
		}
		at = b1 > at ? b1 : at;
	}
	return ended ? 0 : st_write_end_matrix(w, err);
}

static void test_parts(void)
{
	static const struct { uint64_t n; uint32_t block; int level, parts; } cfg[] = {
		{131, 256, 1, 2}, {300, 4096, 1, 3}, {257, 1024, 0, 4}, {700, 65536, 1, 4},
		{64, 1 << 20, 1, 2}, {1000, 4096, 1, 7}};
	st_error err;
	for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
		st_header h;
		struct mats x;
		size_t len0 = 0, len = 0;
		make_int32(&h, &x, cfg[c].n, ST_DIST | ST_PRED, cfg[c].block);
		unsigned char *ref = write_stream(&h, &x, cfg[c].level, 1, 0, &len0, &err);
		int fd = memfd_create("parts", 0);
		st_writer *w = st_writer_open(fd, &h, cfg[c].level, 2, &err);
		int ok = w && write_parts(w, &h, &x, ST_DIST, cfg[c].parts, cfg[c].level, &err) == 0
		         && write_parts(w, &h, &x, ST_PRED, cfg[c].parts, cfg[c].level, &err) == 0;
		ok = ok && st_writer_close(w, &err) == 0;
		unsigned char *b = ok ? fd_bytes(fd, &len) : NULL;
		T_CHECKF(ref && b && len == len0 && !memcmp(b, ref, len),
		         "n=%llu block=%u: %d processes' parts give the stream's bytes %s",
		         (unsigned long long)h.n, h.block, cfg[c].parts, b ? "" : err.msg);
		close(fd);
		free(b);
		free(ref);
		free_all(&x);
	}

	/* A block out of its place, or cut short, is refused; so is a part
	 * that does not begin on a block boundary. */
	st_header h;
	struct mats x;
	make_int32(&h, &x, 100, ST_DIST, 4096);
	T_CHECK("a part off a block boundary is refused",
	        !st_spool_open_part(&h, ST_DIST, 100, 4096, 1, 1, &err));
	T_CHECK("a part of a matrix not announced is refused",
	        !st_spool_open_part(&h, ST_PRED, 0, 4096, 1, 1, &err));
	st_spool *s = st_spool_open_part(&h, ST_DIST, 4096, 8192, 1, 1, &err);
	int fd = memfd_create("parts", 0);
	st_writer *w = st_writer_open(fd, &h, 1, 1, &err);
	size_t len;
	const void *b = s && st_spool_write(s, (char *)x.m[1] + 4096, 8192, &err) == 0
	                ? st_spool_block(s, 0, &len) : NULL;
	T_CHECKF(b && w && st_write_stored(w, b, len - 1, &err) < 0 && strstr(err.msg, "not whole"),
	         "a stored block cut short is refused: %s", err.msg);
	st_writer_abort(w);
	w = st_writer_open(fd, &h, 1, 1, &err);
	T_CHECKF(b && w && st_write(w, x.m[1], 100, &err) == 0 && st_write_stored(w, b, len, &err) < 0
	         && strstr(err.msg, "block boundary"), "stored blocks off a block boundary: %s", err.msg);
	st_writer_abort(w);
	st_spool_free(s);
	close(fd);
	free_all(&x);
}

/* ---- blocks handed over as stored ---- */

struct stored_copy {
	const st_header *h;
	uint32_t matrix;
	unsigned char *dst;     /* the matrix inflated block by block */
	st_writer *w;           /* the blocks written again as they are */
	uint64_t next;
	int bad;
};

static int take_stored(void *ctx, uint64_t index, const void *block, size_t len)
{
	struct stored_copy *c = ctx;
	st_error err;
	c->bad |= index != c->next++;
	c->bad |= st_decode_stored(c->h, c->matrix, index, block, len, c->dst + index * c->h->block,
	                           &err) < 0;
	return st_write_stored(c->w, block, len, &err) < 0;
}

static void test_stored(void)
{
	st_header h;
	struct mats x;
	size_t len0 = 0, len = 0;
	st_error err;
	make_int32(&h, &x, 300, ST_WEIGHTS | ST_DIST | ST_PRED, 4096);
	unsigned char *ref = write_stream(&h, &x, 1, 2, 0, &len0, &err);
	int in = mem_fd(ref, len0), out = memfd_create("stored", 0);
	st_header hr;
	st_reader *r = st_reader_open(in, "ref", &hr, 2, &err);
	st_writer *w = r ? st_writer_open(out, &hr, 1, 2, &err) : NULL;
	int ok = r && w, same = 1;
	for (uint32_t m = ST_WEIGHTS; ok && m <= ST_PRED; m <<= 1) {
		const size_t bytes = st_matrix_bytes_of(&hr, m);
		struct stored_copy c = {&hr, m, malloc(bytes), w, 0, 0};
		ok = c.dst && st_read_stored(r, take_stored, &c, &err) == 0 && !c.bad
		     && st_write_end_matrix(w, &err) == 0;
		same &= ok && !memcmp(c.dst, x.m[m == ST_WEIGHTS ? 0 : m == ST_DIST ? 1 : 2], bytes);
		free(c.dst);
	}
	ok = ok && st_reader_close(r, &err) == 0 && st_writer_close(w, &err) == 0;
	if (r)
		st_header_free(&hr);
	unsigned char *b = ok ? fd_bytes(out, &len) : NULL;
	T_CHECKF(ok && same, "blocks read as stored inflate one at a time to the matrices %s",
	         ok ? "" : err.msg);
	T_CHECKF(b && len == len0 && !memcmp(b, ref, len),
	         "blocks read as stored and written as stored: the same stream");
	free(b);
	close(in);
	close(out);

	/* A range of rows, the other blocks passed over. */
	in = mem_fd(ref, len0);
	r = st_reader_open(in, "ref", &hr, 2, &err);
	unsigned char *rows = malloc(100 * 300 * 4);
	T_CHECKF(r && rows && st_read_row_range(r, 150, 100, rows, &err) == 0
	         && !memcmp(rows, (char *)x.m[0] + 150 * 300 * 4, 100 * 300 * 4),
	         "rows 150..249 of the weights read as a range %s", r ? "" : err.msg);
	if (r) {
		st_reader_free(r);
		st_header_free(&hr);
	}
	free(rows);
	close(in);

	/* A block in another place, or damaged, is refused. */
	unsigned char *blk = NULL;
	size_t blen = 0;
	st_spool *s = st_spool_open_part(&h, ST_DIST, 0, 8192, 1, 1, &err);
	if (s && st_spool_write(s, x.m[1], 8192, &err) == 0)
		blk = (unsigned char *)st_spool_block(s, 1, &blen);
	unsigned char *raw = malloc(h.block);
	T_CHECKF(blk && st_decode_stored(&h, ST_DIST, 1, blk, blen, raw, &err) == 0
	         && !memcmp(raw, (char *)x.m[1] + 4096, 4096), "a spool's block decodes in its place");
	T_CHECKF(blk && st_decode_stored(&h, ST_DIST, 0, blk, blen, raw, &err) < 0
	         && strstr(err.msg, "CRC"), "a block decoded in another place: %s", err.msg);
	T_CHECKF(blk && st_decode_stored(&h, ST_PRED, 1, blk, blen, raw, &err) < 0,
	         "a block decoded as another matrix's: %s", err.msg);
	if (blk)
		blk[16 + blen / 2 - 8] ^= 0x40;
	T_CHECKF(blk && st_decode_stored(&h, ST_DIST, 1, blk, blen, raw, &err) < 0,
	         "a damaged block: %s", err.msg);
	T_CHECKF(blk && st_decode_stored(&h, ST_DIST, 1, blk, blen - 1, raw, &err) < 0
	         && strstr(err.msg, "bad header"), "a block cut short: %s", err.msg);
	free(raw);
	st_spool_free(s);
	free(ref);
	free_all(&x);
}

int main(void)
{
	t_rng = 88172645463325252ull;
	test_threads();
	test_groups();
	test_progress();
	test_rows();
	test_spool();
	test_parts();
	test_stored();
	test_pipe();
	return T_DONE();
}
