/* gpuroute.h - apsp-gpu's run: what the command line asks, the route a run
 * takes (prefix gpu_), picked in one place, and each route's steps.
 *
 * A route says where the graph is read and made, which engine runs where,
 * and what is written:
 *   sparse    the sparse engine (run/sparse.c): the factor made on the host
 *             from the graph's arcs, the rows on the GPU (run/gpusparse.c);
 *             where it declines, the route planned again without it;
 *   float64   the graph read whole on process 0's host (run/float64.c),
 *             solved by the GPU engine on the GPUs, or the processes,
 *             asked for;
 *   bands     an mpirun run whose processes read and write their own rows
 *             (run/bands.c), falling back to process 0's graph gathered;
 *   follow    a process other than 0 of an mpirun run: its band of the
 *             rows, nothing read or written;
 *   arcs      a sparse graph as text: its arcs to the device, which makes
 *             the weight matrix (no n x n matrix on the host);
 *   direct    a stream read straight onto several GPUs (run/direct.c),
 *             falling back to the host's graph where the engine does not
 *             take it so;
 *   host      the graph read (or gathered) on the host and checked there,
 *             on one GPU begun on its rows as they are read (read ahead).
 * -v prints the route and its reasons. */
#ifndef APSP_GPUROUTE_H
#define APSP_GPUROUTE_H

#include <stdio.h>

#include "bands.h"
#include "checkpoint.h"
#include "engine.h"
#include "dense/fw_gpu.h"
#include "gpustart.h"
#include "sources.h"
#include "statsout.h"

/* From this n on, the GPUs of the machine by default (bench/multi-gpu.md,
 * two H200): a second device and NCCL's set-up add about 0.7 s to the start
 * (n = 3000: 1.39 s against 0.68 s on one), which the kernels win back only
 * at large n (20000: 330 against 188 ms; 40000: 2360 against 1234 ms, the
 * whole run 3.60 against 3.13 s). */
#define GPUS_FROM 32768

/* What the command line asks: read-only once parsed (a run copies what it
 * fills in). */
struct gpu_args {
	struct fwg_opts engine;  /* the engine's options as asked */
	const char *input;       /* GRAPH ("-": standard input) */
	int order;               /* ORDER_* */
	int engine_mode;         /* ENGINE_AUTO, _DENSE, _SPARSE (run/sparse.h) */
	int gpus;                /* 0: by n, -1: all */
	int stats;               /* --stats: statistics, no result stream */
	struct stats_form form;
	struct ckpt ck;          /* --checkpoint, --resume, as asked */
	struct sources_opt rows; /* --rows, --sources */
};

enum gpu_route { GPU_SPARSE, GPU_FLOAT64, GPU_BANDS, GPU_FOLLOW, GPU_ARCS, GPU_DIRECT, GPU_HOST };

/* A run's state, from its start to its end. */
struct gpu_run {
	const struct gpu_args *a;
	struct fwg_opts o;       /* the engine's options for this run */
	struct ckpt ck;          /* the checkpoints' options and state */
	fw_checkpoint ckcb;      /* its callbacks */
	int threads, nproc, rank;
	double t0;
	int out;                 /* the result stream's descriptor (process 0), or -1 */
	FILE *sout;              /* --stats: the statistics' output (process 0), or NULL */
	engine_in *r;            /* process 0's input */
	st_header in;            /* its header (process 0) */
	struct bands_head head;  /* what every process knows of it */
	struct init_job job;     /* the devices made ready */
	int sparse_declined;     /* the sparse engine declined the graph */
	char declined[200];      /* ... why */
	uint32_t *src;           /* the rows asked (--rows, --sources), or NULL: all */
	uint64_t sources;        /* ... how many */
	uint32_t *dst;           /* a table's columns (--targets), or NULL */
	uint64_t targets;        /* ... how many */
};

/* The route and why it was taken. */
struct gpu_plan {
	enum gpu_route route;
	int read_ahead;          /* host: one GPU begun on the rows as read */
	char why[320];
};

/* The run begun: threads, the processes of an mpirun job (argc and argv as
 * MPI takes them), checkpoints, the output opened, the input's header read
 * (and shared with the other processes). */
void gpu_open(struct gpu_run *g, const struct gpu_args *a, int *argc, char ***argv);
/* The route of g, and why.  The machine is part of the question: where the
 * route uses the engine's GPUs they are started here (counting them decides
 * between direct and read ahead). */
void gpu_plan_route(struct gpu_plan *p, struct gpu_run *g);
/* The route run: the exit status (every failure dies with its message). */
int gpu_run_route(const struct gpu_plan *p, struct gpu_run *g);
/* The run ended: its status to whoever waits, the processes joined. */
void gpu_close(struct gpu_run *g, int status);

#endif
