/* fw_gpu.h - blocked Floyd-Warshall on an NVIDIA GPU (prefix fwg_).
 *
 * The caller hands over n x n row-major matrices prepared by sv_prepare()
 * (lib/solve.h: int32 values in [0, ST_INF_I32], float32 or float64 any sign
 * or +inf, no negative cycle); the engine pads them to a multiple of the blocking factor
 * on the device, runs the rounds, and copies distances (and predecessors)
 * back.  Nothing here prints or exits: errors come back as -1 and a message.
 */
#ifndef APSP_FW_GPU_H
#define APSP_FW_GPU_H

#include <stddef.h>
#include <stdint.h>

struct gs_stats;

#ifdef __cplusplus
extern "C" {
#endif

#include "fw.h" /* fw_checkpoint (C linkage, as the library) */

enum { FWG_LANES16_AUTO = 0, FWG_LANES16_NEVER = 1, FWG_LANES16_ALWAYS = 2 };
enum { FWG_DERIVE_AUTO = 0, FWG_DERIVE_NEVER = 1, FWG_DERIVE_ALWAYS = 2 };
enum { FWG_SCHEDULE_AUTO = 0, FWG_SCHEDULE_ROUNDS = 1, FWG_SCHEDULE_ROWS = 2 };
/* Where phase 1 of a round runs (fwg_opts.phase1; the same results every
 * way): AUTO as the kernels choose; APART a launch of its own every round;
 * REGISTERS, SHARED in the phase-3 CTA that updated the pivot block the round
 * before, its registers or its shared memory, where that kernel can. */
enum { FWG_PHASE1_AUTO = 0, FWG_PHASE1_APART = 1, FWG_PHASE1_REGISTERS = 2, FWG_PHASE1_SHARED = 3 };
/* Lookahead (fwg_opts.lookahead; the same results either way): AUTO where it
 * can (one GPU, in core, every block every round, rounds in turn: each
 * round's phase 3 in two parts, the next round's phases 1 and 2 beside the
 * second); NEVER not. */
enum { FWG_LOOKAHEAD_AUTO = 0, FWG_LOOKAHEAD_NEVER = 1 };
/* float32 distances relaxed as the bits of their values (fwg_opts.float_bits;
 * the same results either way): AUTO where no entry of the weight matrix
 * has its sign bit set (no weight below +0, no -0, no NaN) and the whole
 * graph is on the device before the rounds; NEVER not. */
enum { FWG_FLOAT_BITS_AUTO = 0, FWG_FLOAT_BITS_NEVER = 1 };

/* From this n on, FWG_SCHEDULE_AUTO takes row order where it can. */
#define FWG_ROW_ORDER_FROM 32768

/* Input still arriving: the caller reads the graph into the matrix it passes
 * while the engine starts on its first rows.  rows(ctx, want) blocks until
 * rows 0 .. want - 1 are in place and returns how many are (want or more;
 * fewer: the input failed).  verdict(ctx) blocks until the caller has checked
 * the whole graph (sv_prepare() in place, which then changes at most the
 * diagonal, to 0): 1 the graph in place is the one to solve, 0 not (an error,
 * a negative cycle, reweighting, or a run of another form: an order, skipped
 * blocks).  The engine asks for the verdict before any result reaches the
 * sink.  Where the input failed or the verdict is 0, fwg_solve_panels()
 * returns 1 having handed nothing over, and the caller may solve again. */
/*
 * Read straight onto the devices (take set, graph NULL): the n x n matrix
 * is never on the host.  take(ctx, put, pctx) reads the whole graph and
 * hands each row over once, in any order, put(pctx, first, count, rows) for
 * rows first .. first + count - 1 (stride n, valid during the call; one
 * call at a time, from any thread; rows in fwg_host_register()'s memory go
 * straight to the devices; 0, or -1: stop reading), and returns 0, or -1
 * where the input failed or put stopped it.  The devices then take the rows' facts into
 * *facts (sv_band_facts() of lib/solve.h over every row, as read), and
 * verdict(ctx) follows as above; where 0, the
 * engine hands the rows back as they came, back(ctx, first, count, rows),
 * and returns 1: the caller holds the graph after all.  The engine takes a
 * graph so for a run of one process in core, dense (no skipped blocks), as
 * numbered, without paths or checkpoints, round after round; elsewhere
 * fwg_solve_panels() returns 1 without calling take (nothing read). */
struct sv_facts;
typedef int fwg_put_fn(void *pctx, uint64_t first, uint64_t count, const void *rows);
struct fwg_feed {
	uint64_t (*rows)(void *ctx, uint64_t want);
	int (*verdict)(void *ctx);
	void *ctx;
	int (*take)(void *ctx, fwg_put_fn *put, void *pctx);
	int (*back)(void *ctx, uint64_t first, uint64_t count, const void *rows);
	struct sv_facts *facts;
};

/* A graph given by its arcs instead of a matrix (fwg_opts.arcs): arc k
 * leaves vertex from[k] for to[k] (the caller's numbering) with weight w[k],
 * an int32 from 0 to below ST_INF_I32 or a float32 from +0 to below +inf as
 * fwg_opts.type says; of repeated arcs the least weight counts, and loops
 * are left out.  The weight matrix is made on the devices. */
struct fwg_arcs {
	const uint32_t *from, *to;
	const void *w;
	uint64_t count;
};

/* Checkpoints (fwg_opts.checkpoint): the interface of lib/fw.h
 * (fw_checkpoint), both engines'.  The state is the matrices as the rounds
 * hold them, rows of side entries: side x side of distances (in the rounds'
 * form: 16-bit lanes widened to 32-bit words, the INF of packed int32
 * paths, float32 as its bits, float64 as 8-byte words) and, where
 * predecessors are tracked through the rounds (paths), as many 32-bit
 * predecessors (float64: each path's largest intermediate vertex).  stage
 * names that form; steps counts the steps (rounds; a sparse run's groups
 * of rounds of one level; the super-rounds out of core).  save: in core on
 * a thread of the engine's while the devices go on (one at a time: a
 * checkpoint due while the last is being saved waits for it; due may be
 * asked meanwhile); out of core while they wait.  load may answer
 * FW_CHECKPOINT_OTHER where the checkpoint is of another stage of the run:
 * a 16-bit run whose lanes came too close to their limit left one of its
 * 32-bit run (the engine goes straight on to that), or the reverse (that
 * run begins).  The last round's state is not saved.
 * In core save runs while the devices go on from a host copy of the state;
 * where fwg_opts.host_memory has no room for that copy, get takes the state
 * from the devices while they wait, as out of core, and put puts it there.
 * Checkpoints take one process, in core or out of core, or several that
 * each hold their own rows (fwg_opts.own_rows): each then has its band of
 * the state alone (get and put take the offsets of its rows only), and
 * save is called on each process's calling thread, at the same step on
 * every process as long as due says the same on all; the rounds then go
 * round after round (FWG_SCHEDULE_ROUNDS; the same results). */

struct fwg_opts {
	int device;     /* CUDA device number */
	int block;      /* blocking factor B: 16, 32, 64 or 128; 0: the engine's
	                   choice for n (fwg_choose_block) */
	int type;       /* enum st_type; ST_FLOAT64 takes block 64 (or 0) and
	                   a matrix (no arcs), and runs round after round */
	int paths;      /* also compute predecessors; float64: each path's
	                   largest intermediate vertex instead (-1: the arc
	                   itself, or none), which fw_textbook_preds() (lib/fw.h)
	                   turns into the textbook predecessors */
	int lanes16;    /* int32 distances in 16-bit lanes, with predecessors
	                   (if asked for) derived from them afterwards:
	                   FWG_LANES16_AUTO tries them where n is large enough
	                   for them to pay, _NEVER never, _ALWAYS at every n */
	/* Solve with vertex order[k] at position k (a permutation of 0..n-1,
	 * e.g. a nested-dissection order); NULL: as numbered.  Results come
	 * back in the caller's numbering either way; the renumbering is done
	 * on the device while rows go up and come back. */
	const int32_t *order;
	/* Predecessors derived from the final distances and the edges into
	 * each vertex, instead of tracked through the rounds: FWG_DERIVE_AUTO
	 * for int32 where 16-bit lanes are tried and for float32 from n = 2000
	 * (no weight negative), _NEVER never, _ALWAYS at every n. */
	int derive;
	int skip;       /* keep a map of the blocks that hold a finite entry and
	                   update only blocks whose operands both do (sparse
	                   graphs); 0: every block every round */
	int gpus;       /* devices device .. device + gpus - 1, each holding a band
	                   of block rows (NCCL between them); 0 or 1: one.  A run
	                   that skips blocks or has an order uses one, as does a
	                   run with fewer block rows than GPUs (one per GPU at
	                   most). */
	/* One process of several (MPI ranks, each with one GPU: device), after
	 * fwg_init_rank(): process rank holds band rank of ranks.  Process 0
	 * alone passes the graph and gets the panels; the others pass NULL for
	 * both.  ranks 0 or 1: this process alone. */
	int rank, ranks;
	/* Several processes, each holding its own band of the graph
	 * (fwg_band_rows): graph points at its first row (stride n) and the
	 * sink takes its own rows of the results; nothing goes through process
	 * 0.  0: process 0 holds the graph and takes every row, as above. */
	int own_rows;
	/* Device memory a run may count on, at most (bytes; 0: what the device
	 * has free): tests make a small device of a large one with it. */
	uint64_t memory_cap;
	/* Host memory a run out of core may take for the rows the device cannot
	 * hold (bytes; 0: no limit): a run that would need more is refused.  A
	 * run in core whose checkpoints' state has no room in it takes each
	 * from the devices while they wait. */
	uint64_t host_memory;
	/* The order of the block updates on one GPU (the same updates, the same
	 * results either way): FWG_SCHEDULE_ROUNDS round after round over the
	 * whole matrix; _ROWS in row order, the block rows finished in bands
	 * from the top, each band's results handed over while the device works
	 * on the next (one GPU, in core, dense, as numbered; elsewhere rounds);
	 * _AUTO rows from n = FWG_ROW_ORDER_FROM in fwg_solve_panels(), rounds
	 * in fwg_solve(). */
	int schedule;
	/* Tests: where phase 1 runs (FWG_PHASE1_*). */
	int phase1;
	/* Tests and benchmarks: FWG_LOOKAHEAD_*. */
	int lookahead;
	/* Tests and benchmarks: FWG_FLOAT_BITS_*. */
	int float_bits;
	/* fwg_solve_panels() on a graph still being read (NULL: the graph is
	 * whole).  In row order without paths the rounds start on the bands of
	 * rows as they arrive (fwg_timing.streamed); elsewhere the engine sets
	 * up the device, then waits for the whole graph and the verdict. */
	const struct fwg_feed *feed;
	/* Statistics instead of results (lib/stats.h, zeroed by gs_init() for
	 * n vertices of type): where the run is in core the devices fold their
	 * own rows of the final distances, the sink is not called and no
	 * predecessors are made (fwg_timing.stats_on_device); out of core the
	 * panels go to the sink as usual and the caller folds them.  Over
	 * several processes each one passes its own, and process 0's is
	 * filled: the figures pass from process to process.  potential: h[v]
	 * of int32 weights reweighted by the caller (sv_prepare; process 0's),
	 * d(u,v) = d'(u,v) - h[u] + h[v]; NULL: none. */
	struct gs_stats *stats;
	const int64_t *potential;
	/* The graph as its arcs (fwg_solve_panels() with graph NULL): the n x n
	 * matrix is never on the host.  One process, in core; NULL: the graph
	 * is the matrix passed. */
	const struct fwg_arcs *arcs;
	/* Checkpoints (NULL: none). */
	const fw_checkpoint *checkpoint;
};

struct fwg_timing {
	double upload_ms;   /* host to device, padding, initial predecessors */
	double kernel_ms;   /* all rounds, all three phases (CUDA events) */
	double download_ms; /* device to host, with the sink's work on each panel */
	int block;          /* the blocking factor used */
	int gpus;           /* the devices used */
	int packed;         /* int32 paths used the packed (distance, k) form */
	int lanes16;        /* 1: int32 distances computed in 16-bit lanes;
	                       -1: tried, a distance came too close to the
	                       16-bit limit, computed again on 32 bits */
	int phase1;         /* where phase 1 ran after round 0 (FWG_PHASE1_APART,
	                       _REGISTERS or _SHARED; in a run on several GPUs,
	                       process 0's) */
	int lookahead;      /* 1: the rounds ran with lookahead (FWG_LOOKAHEAD_AUTO) */
	int small;          /* 1: where a band's phase 3 was under three waves
	                       of thread blocks, phase 2 (and with lookahead
	                       the first part of phase 3) ran in kernels of
	                       twice the registers; 32-bit kernels, process 0's */
	int float_bits;     /* 1: float32 distances relaxed as bits (FWG_FLOAT_BITS_AUTO) */
	int derived;        /* 1: predecessors derived from the final
	                       distances and the edges into each vertex */
	int zero_weight;    /* int32 with paths: an edge other than a loop weighs 0 */
	int chains_sure;    /* 1: every predecessor chain is known to end at
	                       its source (int32, derived, no zero weight: each
	                       step lowers the distance), so no check is needed */
	/* Out of core (the matrices larger than the device): bands of band_rows
	 * rows, the first resident of them held on the device, the others in
	 * host memory and streamed through it every super-round; 0: in core. */
	int bands, band_rows, resident;
	int row_bands;          /* row order: the bands of results handed over as
	                           they were final; 0: round after round */
	int streamed;           /* with a feed: the rounds began on the first bands
	                           of rows while the rest were read (kernel_ms then
	                           includes waiting for them) */
	uint64_t tiles;         /* block updates of phases 2 and 3 a dense run makes */
	uint64_t tiles_skipped; /* of those, skipped (with skip) */
	int stats_on_device;    /* 1: fwg_opts.stats filled by the devices */
	int levels;             /* with skip: the steps the rounds took, those of
	                           independent pivot blocks together (ord_block_levels) */
	int resumed_from;       /* with a checkpoint: the step the rounds went on
	                           from (0: the start) */
	int checkpoints;        /* with a checkpoint: states handed to save */
	int checkpoint_direct;  /* 1: in core without host memory for a copy of
	                           the state, each taken from the devices while
	                           they waited */
	int lanes16_in_place;   /* 1: the 16-bit lanes took the first half of the
	                           32-bit matrix's memory (a graph made from its
	                           arcs, made again from them where rejected) */
	char device_name[128];
};

/* The number of CUDA devices, or -1 with a message. */
int fwg_device_count(char *err, size_t errlen);

/* The most GPUs one process can use: 1 in a build without NCCL. */
int fwg_max_gpus(void);

/* Create the CUDA contexts on devices device .. device + gpus - 1 (side by
 * side), the NCCL communicators between them where gpus > 1, and the
 * page-locked staging buffers (two of staging_bytes, at most 32 MiB each, or
 * 128 MiB where staging_bytes is 512 MiB or more; 0 = 32 MiB) through which
 * matrices move.  Slow: call it early, e.g. in a thread while the input is
 * being read.  0 or -1. */
int fwg_init(int device, int gpus, uint64_t staging_bytes, char *err, size_t errlen);
/* The same, the communicators made on a thread of their own that goes on
 * after the call (a caller reading straight onto the devices needs only
 * the contexts): the engine waits for them where it first needs them, and
 * the caller with fwg_group_wait() before it ends (0, or -1 with the
 * message where they failed). */
int fwg_init_beside(int device, int gpus, uint64_t staging_bytes, char *err, size_t errlen);
int fwg_group_wait(char *err, size_t errlen);

/* Host memory of bytes at p page-locked (after fwg_init; 0, or -1: it
 * stays as it was), and back: rows that a feed puts from it go straight to
 * the devices, not through the staging buffers. */
int fwg_host_register(void *p, size_t bytes);
void fwg_host_unregister(void *p);

/* Several processes: process 0 makes an id of FWG_ID_BYTES with
 * fwg_unique_id() and hands it to the others (e.g. MPI_Bcast); then each
 * calls fwg_init_rank() with its rank and one device (slow, as fwg_init; all
 * of them must call it).  0 or -1. */
#define FWG_ID_BYTES 128
int fwg_unique_id(void *id, size_t len, char *err, size_t errlen);
int fwg_init_rank(int device, int rank, int ranks, const void *id, uint64_t staging_bytes,
                  char *err, size_t errlen);

/* The blocking factor the engine uses for n vertices when o->block is 0:
 * the fastest measured on an H100 for that kind of run (bench/gpu.md,
 * bench/sparse-gpu.md). */
int fwg_choose_block(uint64_t n, int type, int paths, int lanes16, int skip);
/* The rows of process rank of ranks in a run of n with blocking factor
 * block (fwg_opts.rank, .ranks): first .. end - 1. */
void fwg_band_rows(uint64_t n, int block, int ranks, int rank, uint64_t *first, uint64_t *end);

/* Device memory the engine needs for n vertices of type (enum st_type) on
 * each of gpus devices, in bytes (block 0: the most that any choice needs). */
uint64_t fwg_memory_needed(uint64_t n, int type, int block, int paths, int gpus);

/* Solve: graph (n x n) in, distances out into dist (which may be graph
 * itself); pred (n x n, may be NULL unless o->paths) receives the
 * predecessor matrix.  0 or -1. */
int fwg_solve(const struct fwg_opts *o, uint64_t n, const void *graph, void *dist,
              int32_t *pred, struct fwg_timing *t, char *err, size_t errlen);

/* Results come back in row panels, in row order: sink(ctx, r0, rows, dist,
 * pred) gets rows r0 .. r0 + rows - 1 of the distances and, with paths, of
 * the predecessors (row-major, stride n) in page-locked buffers that stay
 * valid until it returns, while the next panel is being copied from the
 * device.  The sink may change them in place.  Non-zero from the sink stops
 * the solve with an error. */
typedef int fwg_sink(void *ctx, uint64_t r0, uint64_t rows, void *dist, int32_t *pred);

/* Pay the first launches' costs of the run of n with options o beforehand
 * (after fwg_init; e.g. while the graph is read): a small run with the same
 * kernels, its results thrown away.  One device, one process, no order;
 * elsewhere nothing.  0, or -1 with a message (the run itself may still
 * work). */
int fwg_warm(const struct fwg_opts *o, uint64_t n, char *err, size_t errlen);
/* Solve as fwg_solve(), handing the results to sink panel by panel: 0, -1,
 * or 1 (o->feed's input failed or its verdict was 0; nothing handed over).
 * Every field of *t but download_ms, upload_ms and kernel_ms is set before
 * the first panel reaches the sink.  In row order the sink runs on a thread of
 * the engine's while the device computes, and where a 16-bit run is rejected
 * after its first rows went out (t->lanes16 then becomes -1 and the
 * predecessors of the rest are tracked), the rest follow from a 32-bit run:
 * the graph must stay unchanged until the call returns. */
int fwg_solve_panels(const struct fwg_opts *o, uint64_t n, const void *graph, fwg_sink *sink,
                     void *ctx, struct fwg_timing *t, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
