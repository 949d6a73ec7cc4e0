/* ranks.c - the processes of an MPI run of a tool (see ranks.h). */
#include "ranks.h"
#include "tool.h"

#include <sched.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>

#ifdef APSP_MPI
#include <mpi.h>

static int rank, count = 1, local, joined;

/* Launchers say so in the environment: Open MPI, PMIx, MPICH's and Slurm's
 * PMI.  Without one, MPI_Init would start a run of one, slowly. */
static int launched(void)
{
	static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"};
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
		if (getenv(vars[i]))
			return 1;
	return 0;
}

/* The processes of this machine that may run on this process's cores (the
 * same affinity: mpirun --bind-to none gives each all of them) share them:
 * a thread each per core, not as many threads as cores each. */
static void share_cores(MPI_Comm node)
{
	int size = 1;
	MPI_Comm_size(node, &size);
	cpu_set_t mine, *all = calloc((size_t)size, sizeof *all);
	CPU_ZERO(&mine);
	if (!all || sched_getaffinity(0, sizeof mine, &mine) != 0) {
		free(all);
		return;
	}
	MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, node);
	int ways = 0;
	for (int q = 0; q < size; q++)
		ways += CPU_EQUAL(&all[q], &mine);
	free(all);
	tool_share_cores(ways);
}

int ranks_init(int *argc, char ***argv)
{
	if (joined || !launched())
		return count;
	/* Open MPI maps the machine with hwloc, whose OpenCL and GL components
	 * start the GPUs' drivers to list them: 0.2 s of MPI_Init on an H200
	 * machine (0.05 s without; bench/multi-gpu.md).  MPI here only hands
	 * NCCL its id, and NCCL finds the GPUs itself, so leave them out unless
	 * the user chose hwloc's components. */
	setenv("HWLOC_COMPONENTS", "-opencl,-gl,-cuda,-nvml,-rsmi,-levelzero", 0);
	int provided;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
		return count;
	joined = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &count);
	MPI_Comm node;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &local);
	share_cores(node);
	MPI_Comm_free(&node);
	tool_mark_process(rank);
	tool_mark("MPI joined");
	atexit(ranks_finish); /* also on the ways out that exit() */
	return count;
}

int ranks_rank(void) { return rank; }
int ranks_count(void) { return count; }
int ranks_local(void) { return local; }
int ranks_joined(void) { return joined; }

/* Messages in pieces of at most this many bytes (MPI counts are int). */
#define PIECE (1u << 30)

void ranks_bcast(void *buf, size_t len)
{
	for (size_t at = 0; count > 1 && at < len; at += PIECE)
		MPI_Bcast((char *)buf + at, (int)(len - at < PIECE ? len - at : PIECE), MPI_BYTE, 0,
		          MPI_COMM_WORLD);
}

void ranks_send(const void *buf, size_t len, int to, int tag)
{
	for (size_t at = 0; at < len || len == 0; at += PIECE) {
		const size_t k = len - at < PIECE ? len - at : PIECE;
		MPI_Send((const char *)buf + at, (int)k, MPI_BYTE, to, tag, MPI_COMM_WORLD);
		if (len == 0)
			break;
	}
}

void ranks_recv(void *buf, size_t len, int from, int tag)
{
	for (size_t at = 0; at < len || len == 0; at += PIECE) {
		const size_t k = len - at < PIECE ? len - at : PIECE;
		MPI_Recv((char *)buf + at, (int)k, MPI_BYTE, from, tag, MPI_COMM_WORLD,
		         MPI_STATUS_IGNORE);
		if (len == 0)
			break;
	}
}

size_t ranks_recv_some(void *buf, size_t cap, int from, int tag)
{
	MPI_Status st;
	int got = 0;
	MPI_Recv(buf, (int)(cap < PIECE ? cap : PIECE), MPI_BYTE, from, tag, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_BYTE, &got);
	return (size_t)got;
}

void ranks_isend(const void *buf, size_t len, int to, int tag, ranks_req *rq)
{
	MPI_Request *r = malloc(sizeof *r);
	if (!r) { /* (then it waits here) */
		ranks_send(buf, len, to, tag);
		rq->req = NULL;
		return;
	}
	MPI_Isend(buf, (int)len, MPI_BYTE, to, tag, MPI_COMM_WORLD, r);
	rq->req = r;
}

void ranks_wait(ranks_req *rq)
{
	if (rq->req)
		MPI_Wait(rq->req, MPI_STATUS_IGNORE);
	free(rq->req);
	rq->req = NULL;
}

void ranks_allreduce(int64_t *v, int n, int op)
{
	if (count > 1)
		MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T,
		              op == RANKS_MAX ? MPI_MAX : op == RANKS_MIN ? MPI_MIN : MPI_SUM,
		              MPI_COMM_WORLD);
}

void ranks_abort(int status)
{
	if (count > 1)
		MPI_Abort(MPI_COMM_WORLD, status);
}

int ranks_raw_stdout(void)
{
	struct termios t;
	if (!joined || !isatty(STDOUT_FILENO) || tcgetattr(STDOUT_FILENO, &t) != 0)
		return 0;
	cfmakeraw(&t);
	return tcsetattr(STDOUT_FILENO, TCSANOW, &t) == 0;
}

void ranks_finish(void)
{
	if (joined) {
		joined = 0;
		tool_mark("MPI finalizing");
		MPI_Finalize();
		tool_mark("MPI finalized");
	}
}

#else

int ranks_init(int *argc, char ***argv) { return 1; }
int ranks_rank(void) { return 0; }
int ranks_count(void) { return 1; }
int ranks_local(void) { return 0; }
int ranks_joined(void) { return 0; }
void ranks_bcast(void *buf, size_t len) {}
void ranks_send(const void *buf, size_t len, int to, int tag) {}
void ranks_recv(void *buf, size_t len, int from, int tag) {}
size_t ranks_recv_some(void *buf, size_t cap, int from, int tag) { return 0; }
void ranks_isend(const void *buf, size_t len, int to, int tag, ranks_req *rq) { rq->req = NULL; }
void ranks_wait(ranks_req *rq) {}
void ranks_allreduce(int64_t *v, int n, int op) {}
void ranks_abort(int status) {}
int ranks_raw_stdout(void) { return 0; }
void ranks_finish(void) {}

#endif
