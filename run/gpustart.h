/* gpustart.h - apsp-gpu's devices made ready on a thread of their own
 * while the input is read (prefix gpustart_): the CUDA contexts, NCCL's
 * communicators, and with paths the kernels launched once (fwg_warm). */
#ifndef APSP_GPUSTART_H
#define APSP_GPUSTART_H

#include <stdint.h>

#include "dense/fw_gpu.h"

/* The CUDA contexts are created in a thread while the input is read.
 * gpus: asked for (0: by n, -1: all), then the number used.  ranks > 1: one
 * process of an MPI run, its rank, and the run's NCCL id. */
struct init_job {
	int device, gpus, rc;
	int rank, ranks;
	unsigned char id[FWG_ID_BYTES];
	uint64_t n, staging;
	uint64_t gpus_from;  /* gpus 0: all of them from this n on, else one */
	int decided;         /* gpus is the number used (gpustart_gpus) */
	char err[256];
	/* Then, with paths unless APSP_WARM=0, the run's kernels launched once
	 * on a small graph (fwg_warm), in warm_s seconds; o: the run's options. */
	struct fwg_opts o;
	int warm;
	double warm_s;
};

/* The number of GPUs the run takes, as soon as the devices are counted
 * (before they are made ready); one where counting them failed
 * (gpustart_ready() then says why). */
int gpustart_gpus(struct init_job *job);
/* Start making the devices ready for a run of n with options o (gpus
 * asked for), on a thread; process rank of nproc (an MPI run shares its
 * NCCL id first).  job lives until gpustart_ready(). */
void gpustart_begin(struct init_job *job, const struct fwg_opts *o, uint64_t n, int gpus,
                    int rank, int nproc);
/* The devices, once ready: the GPUs taken into o, and when (dies where
 * they could not be made ready).  Several GPUs' communicators may still be
 * opening: the engine waits for them (fwg_init_beside). */
double gpustart_ready(const struct init_job *job, struct fwg_opts *o);
/* Wait for the thread and the communicators (exit() must not tear the
 * CUDA runtime down while either is inside it). */
void gpustart_join(void);

#endif
