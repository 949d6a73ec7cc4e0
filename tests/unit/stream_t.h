/* stream_t.h - what the stream's unit tests share (test_stream.c,
 * test_stream_io.c): streams written from made-up matrices, read back and
 * compared, and bytes handed to a reader as a file, a pipe or a socket. */
#ifndef APSP_STREAM_T_H
#define APSP_STREAM_T_H
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "stream.h"
#include "t.h"


/* An fd holding len bytes of buf, positioned at 0. */
static inline int mem_fd(const void *buf, size_t len)
{
	int fd = memfd_create("stream", 0);
	if (fd < 0 || (len && write(fd, buf, len) != (ssize_t)len)) {
		perror("memfd");
		exit(2);
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* The whole content of fd. */
static inline unsigned char *fd_bytes(int fd, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	unsigned char *b = malloc(end > 0 ? (size_t)end : 1);
	if (!b || pread(fd, b, (size_t)end, 0) != end) {
		perror("pread");
		exit(2);
	}
	*len = (size_t)end;
	return b;
}

/* Bytes handed to a reader the three ways it passes over blocks it does not
 * want: a regular file (it seeks), a pipe (it splices to /dev/null) and a
 * socket (it reads and drops).  A thread feeds the pipe and the socket. */
enum { SRC_FILE, SRC_PIPE, SRC_SOCKET, SRC_KINDS };
static const char *const src_name[SRC_KINDS] __attribute__((unused)) = {"a file", "a pipe", "a socket"};

struct source {
	int fd, wfd;
	const unsigned char *b;
	size_t len;
	pthread_t t;
};

static inline void *source_feed(void *arg)
{
	struct source *s = arg;
	for (size_t o = 0; o < s->len;) {
		ssize_t k = write(s->wfd, s->b + o, s->len - o);
		if (k <= 0)
			break; /* the reader stopped early: EPIPE */
		o += (size_t)k;
	}
	close(s->wfd);
	return NULL;
}

static inline int source_open(struct source *s, int kind, const unsigned char *b, size_t len)
{
	int p[2];
	s->b = b, s->len = len, s->wfd = -1;
	if (kind == SRC_FILE)
		return s->fd = mem_fd(b, len);
	signal(SIGPIPE, SIG_IGN);
	if ((kind == SRC_PIPE ? pipe(p) : socketpair(AF_UNIX, SOCK_STREAM, 0, p)) < 0) {
		perror("pipe");
		exit(2);
	}
	s->fd = p[0], s->wfd = p[1];
	if (pthread_create(&s->t, NULL, source_feed, s) != 0)
		exit(2);
	return s->fd;
}

static inline void source_close(struct source *s)
{
	close(s->fd);
	if (s->wfd >= 0)
		pthread_join(s->t, NULL);
}

/* A plausible matrix of kind bit for h: distances and weights with INF,
 * predecessors in -1..n-1, padded vertices isolated. */
static inline void *make_matrix(const st_header *h, uint32_t bit)
{
	uint64_t np = h->npad;
	void *m = malloc(st_matrix_bytes_of(h, bit) ? st_matrix_bytes_of(h, bit) : 1);
	int32_t *mi = m;
	float *mf = m;
	double *md = m;

	for (uint64_t i = 0; i < np; i++)
		for (uint64_t j = 0; j < np; j++) {
			uint64_t k = i * np + j;
			int real = i < h->n && j < h->n;
			if (bit == ST_PRED) {
				mi[k] = real && i != j && t_rnd() % 8 ? (int32_t)(t_rnd() % h->n) : -1;
				continue;
			}
			int inf = i != j && (!real || t_rnd() % 10 == 0);
			int32_t v = i == j ? 0 : (int32_t)(1 + (i + j) % 300 + t_rnd() % 50);
			if (h->type == ST_INT32)
				mi[k] = inf ? ST_INF_I32 : v;
			else if (h->type == ST_FLOAT32)
				mf[k] = inf ? INFINITY : (float)v + 0.25f * (float)(t_rnd() % 4);
			else
				md[k] = inf ? INFINITY : (double)v + 1.0 / (double)(1 + t_rnd() % 7);
		}
	return m;
}

struct mats {
	void *m[3]; /* weights, dist, pred */
};

static inline void make_all(const st_header *h, struct mats *x)
{
	for (int k = 0; k < 3; k++)
		x->m[k] = (h->matrices & (1u << k)) ? make_matrix(h, 1u << k) : NULL;
}

/* An int32 stream's header of n vertices (unpadded) holding the matrices
 * mats in blocks of block bytes, and those matrices made into x. */
static inline void make_int32(st_header *h, struct mats *x, uint64_t n, uint32_t mats,
                              uint32_t block)
{
	st_header_init(h, n, 1, ST_INT32);
	h->matrices = mats;
	h->block = block;
	make_all(h, x);
}

static inline void free_all(struct mats *x)
{
	for (int k = 0; k < 3; k++)
		free(x->m[k]);
}

/* Write a stream of h and x in chunks of chunk bytes (0: whole matrices). */
static inline unsigned char *write_stream(const st_header *h, const struct mats *x, int level,
                                   int threads, size_t chunk, size_t *len, st_error *err)
{
	int fd = memfd_create("out", 0);
	unsigned char *b = NULL;

	if (chunk == 0) {
		if (st_write_all(fd, h, x->m[0], x->m[1], x->m[2], level, threads, err) < 0)
			goto out;
	} else {
		st_writer *w = st_writer_open(fd, h, level, threads, err);
		if (!w)
			goto out;
		for (int k = 0; k < 3; k++) {
			if (!x->m[k])
				continue;
			const unsigned char *p = x->m[k];
			size_t left = st_matrix_bytes_of(h, 1u << k);
			while (left) {
				size_t c = left < chunk ? left : chunk;
				if (st_write(w, p, c, err) < 0) {
					st_writer_abort(w);
					goto out;
				}
				p += c;
				left -= c;
			}
			if (st_write_end_matrix(w, err) < 0) {
				st_writer_abort(w);
				goto out;
			}
		}
		if (st_writer_close(w, err) < 0)
			goto out;
	}
	b = fd_bytes(fd, len);
out:
	close(fd);
	return b;
}

/* Read a stream from bytes with st_read_all; 1 if it gives h and x back. */
static inline int read_equal(const unsigned char *b, size_t len, const st_header *h,
                      const struct mats *x, int threads, st_error *err)
{
	int fd = mem_fd(b, len);
	st_matrices m;
	int ok = 0;

	if (st_read_all(fd, "mem", threads, &m, err) == 0) {
		void *got[3] = {m.weights, m.dist, m.pred};
		ok = m.h.n == h->n && m.h.npad == h->npad && m.h.type == h->type
		     && m.h.matrices == h->matrices && m.h.flags == h->flags
		     && m.h.block == h->block && m.h.cycle_vertex == h->cycle_vertex
		     && !strcmp(m.h.provenance, h->provenance ? h->provenance : "");
		for (int k = 0; k < 3; k++)
			ok = ok && (!x->m[k] ? !got[k]
			                     : got[k] && !memcmp(got[k], x->m[k], st_matrix_bytes_of(h, 1u << k)));
		st_matrices_free(&m);
	}
	close(fd);
	return ok;
}

static inline const char *tname(uint32_t t)
{
	return t == ST_INT32 ? "int32" : t == ST_FLOAT32 ? "float32" : "float64";
}

#endif
