/* bands.h - an MPI run of apsp-gpu in which each process reads and writes
 * its own band of rows (prefix bands_).
 *
 * Each process reads the rows of its band of the weights: from the input
 * file itself, skipping the others' blocks unread, or from process 0,
 * which reads a pipe's blocks as stored and hands each process those that
 * hold its rows, to inflate there.  The facts of every band,
 * combined, say whether the run can go on this way: dense, no weight below
 * zero, and with paths int32 with no weight of 0 (every predecessor chain
 * then ends at its source: nothing to re-attach against the whole graph).
 * Then each process compresses its own rows of the result and process 0
 * writes the blocks in order; otherwise the bands are gathered on process
 * 0, which goes on as if it had read the whole graph itself.  Tools die on
 * errors (ranks.h ends every process). */
#ifndef APSP_BANDS_H
#define APSP_BANDS_H

#include <stdint.h>

#include <stdio.h>

#include "engine.h"
#include "dense/fw_gpu.h"
#include "gpustart.h"
#include "solve.h"
#include "stream.h"

/* How the processes get their rows. */
enum { BANDS_NONE, BANDS_FILE, BANDS_FORWARD };

/* What every process of an MPI run learns of the input from process 0. */
struct bands_head {
	uint64_t n, npad;
	uint32_t type, block, flags;
	int how; /* BANDS_* */
};

/* Under mpirun (nproc > 1) with a stream of int32 or float32 weights
 * (process 0's input r, header in, named input): how each process gets its
 * own rows.  BANDS_NONE: process 0 reads them all. */
int bands_how(const engine_in *r, const st_header *in, const char *input, int nproc);

struct stats_form;
struct ckpt;
/* The run of apsp-gpu (options o, devices being made ready by job, the
 * order asked) with each process's own rows; process 0 writes to out, or
 * the statistics to sout where form is given; with o->checkpoint, ck's
 * checkpoints shared by the processes (refused where the rows cannot
 * stay).  1: solved where they are,
 * the run is over.  0: the rows were gathered on process 0 (*gathered,
 * stride n, as bands_gather()), which goes on as if it had read them; the
 * others go on as without bands. */
int bands_solve(const struct bands_head *hd, engine_in *r, st_header *in, const char *input,
                struct fwg_opts *o, struct init_job *job, int order, int out, FILE *sout,
                const struct stats_form *form, struct ckpt *ck, int threads, void **gathered);

struct bands {
	uint64_t n, first, end; /* this process's rows: first .. end - 1 */
	uint32_t type;
	int rank, count;
	int block;              /* the run's blocking factor */
	void *rows;             /* its rows of the weights, stride n (NULL once freed) */
	size_t rows_bytes;
	sv_facts all;           /* the facts of every band, combined */
};

/* This process's band of the n-vertex graph of type (blocking factor
 * block), read as how says: BANDS_FILE, each process from path;
 * BANDS_FORWARD, process 0 from its reader r (header in), the others the
 * blocks of their rows from process 0.  Then the facts of every band into b->all. */
void bands_read(struct bands *b, int how, const char *path, st_reader *r, const st_header *in,
                int threads);
/* Whether the bands can be solved where they are (with paths or not, in
 * the order asked: ORDER_*); else 0 and why not. */
int bands_stay(const struct bands *b, int paths, int order, uint32_t stream_block, char *why,
               size_t len);
/* The bands gathered on process 0: its whole matrix (stride n, from
 * lib_huge_alloc of n * n * 4 + 4 bytes); NULL on the others. */
void *bands_gather(struct bands *b);
/* Free this process's rows (once they are on the device). */
void bands_free_rows(struct bands *b);

/* The result of the run where the bands stay: opened before the solve
 * (process 0: the stream's header into fd), its sink fed with this
 * process's rows, then ended: the parts between processes exchanged and
 * every block written by process 0. */
struct bands_out;
struct bands_out *bands_out_open(struct bands *b, int fd, const st_header *h, int paths,
                                 int level, int threads);
int bands_take(void *ctx, uint64_t r0, uint64_t rows, void *dist, int32_t *pred);
/* The engine's choices, read by the sink (whether chains need a check). */
void bands_out_timing(struct bands_out *o, const struct fwg_timing *t);
void bands_out_finish(struct bands_out *o);

#endif
