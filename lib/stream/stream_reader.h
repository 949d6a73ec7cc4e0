/* stream_reader.h - the stream's reader inside the library: its state
 * and the steps on one block (read in turn, then inflated and checked)
 * that reading whole matrices, rows (stream_read.c) and windows of rows
 * (stream_windows.c) are made of. */
#ifndef APSP_STREAM_READER_H
#define APSP_STREAM_READER_H

#include <pthread.h>

#include "stream_internal.h"

struct pool;

/* The most blocks a thread reads in one turn (rd_group). */
#define READ_GROUP_MOST 16

struct st_reader {
	int fd, threads;
	char *name;
	uint32_t block;
	uint64_t npad, mbytes, nblk;  /* of the next matrix (matrix_sizes) */
	uint32_t type;               /* the header's element type */
	struct sizes z;              /* what the matrices' sizes depend on */
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

/* What a reading asks of the next matrix's blocks. */
enum { READ_ALL, READ_ROWS, READ_SKIP, READ_SCAN, READ_VERIFY, READ_STORED };

/* What went wrong with a block; the first by block number is reported. */
enum { B_OK, B_READ, B_TRUNC, B_EARLY, B_HEADER, B_CORRUPT, B_CRC, B_NOMEM, B_STOP };

struct rfail {
	uint64_t index;
	int what, errnum;
	struct rblk b;
};

/* No block has failed (a failure's index is lower). */
#define NO_FAIL ((struct rfail){UINT64_MAX, 0, 0, {0}})

/* One reading of blocks: a whole matrix, rows, or a pass of a window. */
struct rjob {
	st_reader *r;
	int mode;
	const uint64_t *rows;
	size_t nrows;
	unsigned char *dst;         /* READ_ALL: where byte dst_off of the matrix goes */
	uint64_t dst_off;
	uint64_t base;              /* the first block of this pass (windows: one of several) */
	size_t ri;                  /* rows cursor, moved in stream order */
	st_matrix_info *info;       /* scan and verify modes: what the blocks hold */
	int stop;                   /* a block failed: read no further */
	pthread_mutex_t mu;
	struct rfail fail;          /* the failing block with the lowest number */
	unsigned char *done;        /* with progress: the blocks inflated and checked */
	uint64_t prefix;            /* blocks 0 .. prefix - 1 are all done */
	uint64_t told;              /* the prefix last reported */
	st_stored_fn *stored;       /* READ_STORED: the caller's (ctx in dst) */
	uint64_t reads;             /* indices below this read blocks; the others */
	uint64_t pieces;            /* are pieces of the last window's work */
	const st_window_work *work;
	uint64_t count, group;      /* blocks of this pass; a reading index takes group */
};

/* Bytes of a row of the next matrix. */
uint64_t rd_row_bytes(const st_reader *r);
/* Mark r failed: -1. */
int rd_fail(st_reader *r);
/* Whether the next matrix can be read (0), or -1 with why. */
/* Whether the next matrix can be read in mode (READ_ROWS also for windows
 * of rows: a list of arcs has none).  0, or -1 with err set. */
int rd_check(st_reader *r, int mode, const uint64_t *rows, size_t nrows, st_error *err);
/* A thread's turn: blocks first .. first + count - 1 (at most
 * READ_GROUP_MOST) read in stream order into wk's buffer, their raw bytes
 * bound for dst (which holds the matrix's bytes from dst_off on); b, what
 * and errnum say how each went.  The blocks read; a failure stops the job. */
uint64_t rd_turn(struct rjob *job, struct worker *wk, uint64_t first, uint64_t count,
                 unsigned char *dst, uint64_t dst_off, struct rblk *b, int *what, int *errnum);
/* Block b taken on after its turn (what: how the turn went): inflated and
 * checked; a failure stops the job (and p, where given). */
void rd_finish(struct rjob *job, struct worker *wk, struct rblk *b, int what, int errnum,
               struct pool *p);
/* A pass over job->count blocks from job->base, job->pieces of its work beside. */
int rd_pass(st_reader *r, struct rjob *job, uint64_t count, st_error *err);
/* The job's first failing block said in err: -1. */
int rd_failed(st_reader *r, const struct rfail *fail, st_error *err);
/* After the next matrix's blocks: its end marker. */
int rd_end(st_reader *r, st_matrix_info *info, st_error *err);
/* Blocks a reading turn takes on nt threads, of count. */
uint64_t rd_group(int nt, uint64_t count);

#endif
