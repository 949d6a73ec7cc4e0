/* checkpoint.h - an engine's state between rounds saved to a file and
 * taken up again (prefix ckpt_), for the engines' --checkpoint and --resume.
 *
 * A checkpoint is a matrix stream (apspmat.5): the engine's state (the CPU
 * engine's tiles, the GPU engine's rows) as a square matrix of distances
 * (and, where predecessors are tracked through the rounds, of
 * predecessors), with a provenance line
 * "@PG ID:checkpoint ... CL:round=K of=R [stage=S] id=IDENTITY" that says
 * how many rounds (steps) it holds, the form of the GPU engine's state, and
 * what run it belongs to: the graph (a digest of its prepared weights), the
 * type, the blocking factor, the vertex order and the engine.  It is written
 * to a temporary file beside its name, synced and renamed over it, so a kill
 * at any moment leaves the last one whole.
 */
#ifndef APSP_CHECKPOINT_H
#define APSP_CHECKPOINT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "fw.h"

#include "stream.h"

/* An MPI run (apsp-gpu, each process its own rows: bands.c) shares its
 * checkpoints: each process holds rows first_row .. end_row - 1 of the
 * state and the same share of the weights (k->weights: its rows, stride
 * n); process 0 writes the file with every process's rows, compressed
 * where they are, and each reads its own back.  What the processes do
 * together, on the threads that call the engine: */
struct ckpt_ranks {
	int rank, count;
	uint64_t first_row, end_row; /* of the state (side rows) */
	uint64_t align;              /* every first_row a multiple of it (a power of 2) */
	uint64_t weight_rows;        /* rows of the weights held (k->weights) */
	/* the CRC of the whole weights from each process's of its own (len bytes) */
	unsigned long (*crc)(unsigned long crc, uint64_t len);
	/* process 0's yes or no, on every process */
	int (*agree)(int yes);
	/* this process's part of a matrix of the state to process 0 (others) */
	void (*send)(st_spool *s, int matrix);
	/* process 0: the others' parts of the matrix after its own, in order
	 * (w NULL: taken and dropped); 0, or -1 (err) where w failed, all of
	 * them taken even then */
	int (*recv)(st_writer *w, int matrix, st_error *err);
};

struct ckpt {
	const char *path;   /* --checkpoint FILE (NULL: none) */
	const char *resume; /* --resume FILE (NULL: none) */
	double every;       /* --checkpoint-every seconds; < 0: the default */
	int keep;           /* --keep-checkpoint */
	/* set by ckpt_begin */
	char id[256];      /* ready once the digest thread is joined */
	pthread_t digest;  /* makes id (the weights' digest) beside the rounds */
	int digesting;
	const void *weights;
	uint64_t n;
	const int32_t *order;
	char layout[128];
	char stage[96];    /* the GPU engine's stage of the state ("": the CPU's) */
	uint32_t type;
	uint64_t rounds;
	double last;       /* when the last one was written (or the rounds began) */
	double cost;       /* how long the last one took to write */
	int written;       /* how many this run wrote */
	int warned;        /* a write failed and was said (once) */
	const struct ckpt_ranks *ranks; /* an MPI run's (NULL: one process) */
};

/* The options, for the engines' getopt tables and their option switch. */
enum { CKPT_OPT_FILE = 0x4000, CKPT_OPT_EVERY, CKPT_OPT_RESUME, CKPT_OPT_KEEP };
#define CKPT_LONGOPTS                                                   \
	{"checkpoint", required_argument, 0, CKPT_OPT_FILE},            \
	{"checkpoint-every", required_argument, 0, CKPT_OPT_EVERY},     \
	{"resume", required_argument, 0, CKPT_OPT_RESUME},              \
	{"keep-checkpoint", no_argument, 0, CKPT_OPT_KEEP}
/* 1 where c was one of them (taken into k), 0 otherwise. */
int ckpt_option(struct ckpt *k, int c, const char *arg);
/* The options' help lines. */
extern const char ckpt_help[];

/* Whether checkpoints can matter to a run whose rounds take about seconds
 * and whose state is bytes: 1 where one is to be taken up (--resume of a
 * file that exists) or the first would be due within that time. */
int ckpt_wanted(const struct ckpt *k, uint64_t bytes, double seconds);
/* Before the rounds: the run's identity from its prepared weights (n x n of
 * type), what else decides the state's layout (a text: blocking factor,
 * order, engine), and its rounds.  The weights' digest is made on a thread
 * beside the rounds (at once where a checkpoint is to be loaded): weights
 * and order must stay as they are until ckpt_end.  Options that only say
 * where checkpoints go are left out of the result's provenance. */
void ckpt_begin(struct ckpt *k, uint32_t type, uint64_t n, const void *weights,
                const int32_t *order, const char *layout, uint64_t rounds);
/* -v: the checkpoints a GPU run wrote, the step it went on from, and
 * (direct) that each was taken from the devices while they waited. */
void ckpt_gpu_report(int written, int resumed_from, int direct);
/* apsp-gpu's layout text: the blocking factor asked (0: the engine's
 * choice), paths, 16-bit lanes, derived predecessors, skipped blocks. */
void ckpt_gpu_layout(char *buf, size_t len, int block, int paths, int lanes16, int derive,
                     int skip);
/* The identity made: the weights may change from now on. */
void ckpt_ready(struct ckpt *k);
/* Both engines' callbacks (struct fw_checkpoint of lib/fw.h), ctx the
 * struct ckpt: whether one is due; the state of a stage saved, at once, or
 * loaded (the round to go on from, 0, or FW_CHECKPOINT_OTHER where the
 * checkpoint is of another stage of this run).  CKPT_CALLBACKS(k) makes
 * them for k. */
int ckpt_due(void *ctx, uint64_t bytes);
void ckpt_save(void *ctx, const char *stage, uint64_t step, uint64_t steps, uint64_t side,
               int paths, fw_state_fn *get, void *gctx);
int64_t ckpt_load(void *ctx, const char *stage, uint64_t steps, uint64_t side, int paths,
                  fw_state_fn *put, void *pctx);
#define CKPT_CALLBACKS(k) ((fw_checkpoint){ckpt_due, ckpt_save, ckpt_load, (k)})
/* After the result is committed: the checkpoint removed unless kept. */
void ckpt_end(struct ckpt *k);

#endif
