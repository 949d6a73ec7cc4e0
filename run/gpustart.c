/* gpustart.c - apsp-gpu's devices made ready on a thread (see gpustart.h). */
#include "common.h"
#include "gpustart.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"
#include "tool.h"

static pthread_mutex_t decided_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t decided_cv = PTHREAD_COND_INITIALIZER;

/* The number of GPUs known (j->gpus): gpustart_gpus() may return. */
static void decided(struct init_job *j)
{
	pthread_mutex_lock(&decided_mu);
	j->decided = 1;
	pthread_cond_broadcast(&decided_cv);
	pthread_mutex_unlock(&decided_mu);
}

/* Whether the communicators are opening beside (fwg_init_beside): waited
 * for before the process ends. */
static int group_beside;

static void group_settled(void)
{
	char msg[256];
	if (group_beside)
		fwg_group_wait(msg, sizeof msg);
	group_beside = 0;
}

static void *init_device(void *arg)
{
	struct init_job *j = arg;
	if (j->ranks > 1) {
		j->rc = fwg_init_rank(j->device, j->rank, j->ranks, j->id, j->staging, j->err,
		                      sizeof j->err);
		return NULL;
	}
	if (j->gpus <= 0) {
		int count = fwg_device_count(j->err, sizeof j->err);
		if (count < 0) {
			j->rc = -1;
			j->gpus = 1;
			decided(j);
			return NULL;
		}
		/* all: what there is (asked for, the engine says so if it cannot);
		 * by n: what there is and the build can use */
		const int by_n = j->n >= j->gpus_from ? count - j->device : 1;
		j->gpus = j->gpus < 0 ? count - j->device
		        : by_n < fwg_max_gpus() ? by_n : fwg_max_gpus();
		if (j->gpus < 1)
			j->gpus = 1;
		decided(j);
	}
	/* Several GPUs: their communicators open on beside the reading (the
	 * engine waits for them where it needs them; a graph read straight
	 * onto the devices needs only the contexts). */
	if (j->gpus > 1) {
		j->rc = fwg_init_beside(j->device, j->gpus, j->staging, j->err, sizeof j->err);
		if (j->rc == 0) {
			group_beside = 1;
			atexit(group_settled); /* (after the CUDA runtime's own: run before it) */
		}
	} else {
		j->rc = fwg_init(j->device, j->gpus, j->staging, j->err, sizeof j->err);
	}
	if (j->rc == 0 && j->warm && j->gpus == 1) {
		double t = lib_now();
		char msg[256];
		j->o.device = j->device;
		j->o.gpus = 1;
		if (fwg_warm(&j->o, j->n, msg, sizeof msg) < 0) /* (the run will say) */
			tool_mark("warm-up failed");
		j->warm_s = lib_now() - t;
	}
	return NULL;
}

static pthread_t init_thread;
static int init_running;

static void join_init(void)
{
	if (init_running) {
		init_running = 0;
		pthread_join(init_thread, NULL);
	}
}

void gpustart_join(void)
{
	join_init();
	group_settled();
}

void gpustart_begin(struct init_job *job, const struct fwg_opts *o, uint64_t n, int gpus,
                    int rank, int nproc)
{
	job->device = o->device + ranks_local();
	job->gpus = gpus;
	job->n = n;
	job->staging = n ? n * n * 4 * (1 + o->paths) : 4096;
	job->rank = rank;
	job->ranks = nproc;
	job->o = *o;
	job->decided = gpus > 0 || nproc > 1;
	const char *warm = getenv("APSP_WARM"); /* benchmarks: 0, none */
	job->warm = o->paths && !(warm && !strcmp(warm, "0")); /* (without paths it paid less than it cost) */
	if (nproc > 1) {
		char msg[256];
		if (rank == 0 && fwg_unique_id(job->id, sizeof job->id, msg, sizeof msg) < 0)
			tool_die("%s", msg);
		ranks_bcast(job->id, sizeof job->id);
	}
	if (pthread_create(&init_thread, NULL, init_device, job) != 0)
		tool_die("cannot start a thread:");
	init_running = 1;
}

int gpustart_gpus(struct init_job *job)
{
	pthread_mutex_lock(&decided_mu);
	while (!job->decided)
		pthread_cond_wait(&decided_cv, &decided_mu);
	pthread_mutex_unlock(&decided_mu);
	return job->gpus;
}

double gpustart_ready(const struct init_job *job, struct fwg_opts *o)
{
	join_init();
	if (job->rc < 0)
		tool_die("%s", job->err);
	o->gpus = job->gpus;
	tool_mark("device ready");
	return lib_now();
}
