// fw_exchange.cuh - everything that passes between the GPUs of a run, and
// the one place NCCL is called (included after fw_devs.cuh): the
// communicators of one process's devices or of several processes, the pivot
// row shared each round, facts reduced over every device, the weights
// gathered whole on each device, and the relay of rows through process 0
// where a run spans processes.  A build without NCCL (make NCCL=0) compiles
// every function here to a refusal, so that the rest never asks.
#ifndef APSP_FW_EXCHANGE_CUH
#define APSP_FW_EXCHANGE_CUH

#include <pthread.h>
#include <algorithm>
#include <string.h>

#ifdef APSP_NCCL
#include <nccl.h>
#endif

#include "fw_devs.cuh"
#include "fw_gpu.h"

namespace {

#ifdef APSP_NCCL
constexpr bool EXCHANGE_BUILT = true;
#define NCCL_TRY(call)                                                        \
	do {                                                                      \
		ncclResult_t rc_ = (call);                                            \
		if (rc_ != ncclSuccess)                                               \
			return fail(e, "%s: %s (%s:%d)", #call, ncclGetErrorString(rc_), \
			            __FILE__, __LINE__);                                  \
	} while (0)

// A device's communicator (Dev keeps it untyped, so that fw_devs.cuh needs
// no NCCL).
ncclComm_t comm(const Dev &x) { return (ncclComm_t)x.comm; }
#else
constexpr bool EXCHANGE_BUILT = false;
#endif

// ---- communicators ---------------------------------------------------------------

// The communicators of devices device .. device + gpus - 1 of this process,
// made once and kept for later runs (Group), and connected at once: NCCL
// connects its devices at the first collective (40 ms on two H200s), here
// while the caller reads its input.
int open_group(Err e, int device, int gpus)
{
#ifdef APSP_NCCL
	if (gpus <= 1 || (group.first == device && group.count == gpus))
		return 0;
	for (int g = 0; g < group.count; g++)
		ncclCommDestroy((ncclComm_t)group.comm[g]);
	group.count = 0;
	int list[MAX_GPUS];
	ncclComm_t made[MAX_GPUS] = {};
	for (int g = 0; g < gpus; g++)
		list[g] = device + g;
	NCCL_TRY(ncclCommInitAll(made, gpus, list));
	for (int g = 0; g < gpus; g++)
		group.comm[g] = made[g];
	group.first = device;
	group.count = gpus;
	void *one[MAX_GPUS] = {};
	for (int g = 0; g < gpus; g++) {
		CUDA_TRY(cudaSetDevice(device + g));
		CUDA_TRY(cudaMalloc(&one[g], 4));
	}
	NCCL_TRY(ncclGroupStart());
	for (int g = 0; g < gpus; g++)
		NCCL_TRY(ncclBroadcast(one[g], one[g], 1, ncclInt32, 0, made[g], 0));
	NCCL_TRY(ncclGroupEnd());
	for (int g = 0; g < gpus; g++) {
		CUDA_TRY(cudaSetDevice(device + g));
		CUDA_TRY(cudaDeviceSynchronize());
		cudaFree(one[g]);
	}
	CUDA_TRY(cudaSetDevice(device));
	return 0;
#else
	return gpus > 1 ? fail(e, "%d GPUs asked for: this build has no NCCL, so it uses one GPU "
	                          "(build with NCCL, see README)", gpus)
	                : 0;
#endif
}

// The group opened on a thread of its own (open_group_beside) while the
// caller goes on: a graph read straight onto the devices needs only their
// contexts.  group_wait() joins it; everything that uses the group calls it
// first.
struct Opening {
	pthread_t thread;
	bool running = false;
	int device = 0, gpus = 0, rc = 0;
	char msg[256] = "";
} opening;

void *open_beside(void *)
{
	Err e{opening.msg, sizeof opening.msg};
	opening.rc = open_group(e, opening.device, opening.gpus);
	return nullptr;
}

int open_group_beside(Err e, int device, int gpus)
{
	opening.device = device, opening.gpus = gpus, opening.rc = 0;
	if (gpus <= 1 || pthread_create(&opening.thread, nullptr, open_beside, nullptr) != 0)
		return open_group(e, device, gpus);
	opening.running = true;
	return 0;
}

int group_wait(Err e)
{
	if (!opening.running)
		return 0;
	pthread_join(opening.thread, nullptr);
	opening.running = false;
	return opening.rc ? fail(e, "%s", opening.msg) : 0;
}

// The id that process 0 hands the others (fwg_unique_id).
int unique_id(Err e, void *id, size_t len)
{
#ifdef APSP_NCCL
	static_assert(sizeof(ncclUniqueId) <= FWG_ID_BYTES, "FWG_ID_BYTES too small");
	if (len < sizeof(ncclUniqueId))
		return fail(e, "an NCCL id needs %zu bytes", sizeof(ncclUniqueId));
	ncclUniqueId u;
	NCCL_TRY(ncclGetUniqueId(&u));
	memcpy(id, &u, sizeof u);
	return 0;
#else
	return fail(e, "several processes need a build with NCCL");
#endif
}

// Process rank of ranks: its one device's communicator (the current
// device), connected at once, here while process 0 reads.
int open_rank(Err e, int device, int rank, int ranks, const void *id)
{
#ifdef APSP_NCCL
	ncclUniqueId u;
	ncclComm_t made = nullptr;
	memcpy(&u, id, sizeof u);
	NCCL_TRY(ncclCommInitRank(&made, ranks, u, rank));
	group.comm[0] = made;
	group.first = device;
	group.count = 1;
	group.rank = rank;
	group.ranks = ranks;
	int *one = nullptr;
	CUDA_TRY(cudaMalloc(&one, 4));
	NCCL_TRY(ncclAllReduce(one, one, 1, ncclInt32, ncclSum, made, 0));
	CUDA_TRY(cudaDeviceSynchronize());
	cudaFree(one);
	return 0;
#else
	return fail(e, "several processes need a build with NCCL");
#endif
}

// ---- each round, and once a run ------------------------------------------------------

// The pivot row panel rowP (bytes per entry: size) and, with preds, the
// pivot rows of the predecessors (pivot_preds), from the device that holds
// row round to the others.
int share_pivot(Err e, Devs &v, int round, size_t size, bool preds)
{
	if (v.count == 1)
		return 0;
#ifdef APSP_NCCL
	const int root = v.rank(v.holder(round));
	const size_t panel = (size_t)v.B * v.npad;
	NCCL_TRY(ncclGroupStart());
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		int32_t *pp = pivot_preds(v, x, round); // sent by the holder, received by the rest
		NCCL_TRY(ncclBroadcast(x.rowP, x.rowP, panel * size, ncclUint8, root, comm(x), x.s));
		if (preds)
			NCCL_TRY(ncclBroadcast(pp, pp, panel, ncclInt32, root, comm(x), x.s));
	}
	NCCL_TRY(ncclGroupEnd());
	return 0;
#else
	return fail(e, "several GPUs need a build with NCCL");
#endif
}

// Facts each device of this process left in its scratch[at .. at + count
// - 1], summed (or their maximum taken) over every device of the run, in
// place, on the devices' streams.
int reduce_scratch(Err e, Devs &v, int at, int count, bool sum)
{
#ifdef APSP_NCCL
	if (v.count > 1) {
		NCCL_TRY(ncclGroupStart());
		for (int g = v.first; g < v.last; g++) {
			Dev &x = v.dev[g];
			NCCL_TRY(ncclAllReduce(x.scratch + at, x.scratch + at, count, ncclUint64,
			                       sum ? ncclSum : ncclMax, comm(x), x.s));
		}
		NCCL_TRY(ncclGroupEnd());
	}
#else
	(void)e, (void)v, (void)at, (void)count, (void)sum;
#endif
	return 0;
}

// ... scratch[0 .. count - 1] so, into out.
int combine(Err e, Devs &v, int count, bool sum, unsigned long long *out)
{
	if (reduce_scratch(e, v, 0, count, sum))
		return -1;
	Dev &x = v.dev[v.first];
	CUDA_TRY(cudaSetDevice(x.id));
	CUDA_TRY(cudaMemcpyAsync(out, x.scratch, count * sizeof *out, cudaMemcpyDeviceToHost, x.s));
	return sync_all(e, v);
}

// Whether any device of the run says yes (flag[g] for this process's
// device g), so that every process takes the same way.
int any_of(Err e, Devs &v, const bool *flag, bool *out)
{
	if (v.first == 0 && v.last == v.count) { // (one process: its own flags)
		*out = std::any_of(flag, flag + v.count, [](bool f) { return f; });
		return 0;
	}
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		const unsigned long long f = flag[g];
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaMemcpyAsync(x.scratch, &f, sizeof f, cudaMemcpyHostToDevice, x.s));
		CUDA_TRY(cudaStreamSynchronize(x.s));
	}
	unsigned long long m = 0;
	if (combine(e, v, 1, false, &m))
		return -1;
	*out = m != 0;
	return 0;
}

// The two facts of an int32 graph (int_facts) over every device's rows,
// combined: whether an edge other than a loop weighs 0 (t->zero_weight),
// and whether every simple path stays below INF_PACKED, so that tracked
// paths can take the packed form (*packed).  more(x): rows x has beside its
// own (out of core: the bands in host memory), or 0.
template <typename More>
int int32_facts(Err e, Devs &v, uint64_t n, fwg_timing *t, bool *packed, More more)
{
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaMemsetAsync(x.scratch, 0, 2 * sizeof *x.scratch, x.s));
		if (facts_of_rows(e, v, x, n) || more(x))
			return -1;
	}
	unsigned long long facts[2];
	if (combine(e, v, 2, true, facts))
		return -1;
	t->zero_weight = facts[1] != 0;
	*packed = facts[0] < (unsigned long long)INF_PACKED;
	return 0;
}

// Every device's rows of the weights, whole on each (for the lists of edges
// into each vertex); into full[g], npad x npad each.
int gather_rows(Err e, Devs &v, void *full[])
{
#ifdef APSP_NCCL
	NCCL_TRY(ncclGroupStart());
	for (int src = 0; src < v.count; src++) { // every band, to this process's devices
		const Dev &h = v.dev[src];
		const size_t count = h.count(v.B, v.npad) * v.es, at = (size_t)h.row0 * v.B * v.npad * v.es;
		for (int g = v.first; g < v.last; g++) {
			Dev &x = v.dev[g];
			NCCL_TRY(ncclBroadcast(&x == &h ? h.d : (char *)full[g] + at, (char *)full[g] + at,
			                       count, ncclUint8, src, comm(x), x.s));
		}
	}
	NCCL_TRY(ncclGroupEnd());
	return 0;
#else
	return fail(e, "several GPUs need a build with NCCL");
#endif
}

// ---- the relay through process 0 -------------------------------------------------

// Where the run spans processes, process 0 alone has the caller's matrices:
// rows of the other bands go through its device to theirs and back, by NCCL
// send and receive, relay_rows(n) rows at a time through two device buffers
// of the staging size (the same count on both sides: every process is given
// the same size).  A panel of relayed rows then fills a staging buffer as
// one from process 0's own device does, so the sink gets panels as large.
uint64_t relay_rows(uint64_t npad, size_t es, bool paths)
{
	return staging.bytes / (npad * (es + (paths ? 4 : 0)));
}

#ifdef APSP_NCCL
// Process 0: the caller's rows of band g, to its process.  Band g's
// process: them, into its distances.
int relay_up(Err e, Devs &v, const void *host, int g, uint64_t n, cudaEvent_t guard[2])
{
	const uint64_t npad = v.npad, es = v.es, row = n * es, rows = relay_rows(npad, es, false);
	const Dev &h = v.dev[g];
	const uint64_t first = h.first_row(v.B), r1 = h.end_row(v.B, n);
	Dev &x = v.dev[v.first];
	int b = 0;
	for (uint64_t r0 = first; r0 < r1; r0 += rows, b ^= 1) {
		const uint64_t k = r1 - r0 < rows ? r1 - r0 : rows;
		if (v.first == g) { // this process holds band g
			NCCL_TRY(ncclRecv((char *)x.d + (r0 - first) * npad * es, k * npad * es, ncclUint8,
			                  0, comm(x), x.s));
			continue;
		}
		char *st = (char *)staging.buf[b];
		if (guard[b])
			CUDA_TRY(cudaEventSynchronize(guard[b]));
#pragma omp parallel for schedule(static)
		for (int64_t i = 0; i < (int64_t)k; i++)
			memcpy(st + i * row, (const char *)host + (r0 + i) * row, row);
		CUDA_TRY(cudaMemcpy2DAsync(x.relay[b], npad * es, st, row, row, k, cudaMemcpyHostToDevice,
		                           x.s));
		CUDA_TRY(cudaEventRecord(x.done[b], x.s));
		guard[b] = x.done[b];
		NCCL_TRY(ncclSend(x.relay[b], k * npad * es, ncclUint8, g, comm(x), x.s));
	}
	return 0;
}

// Band g's process (not 0): its rows of the results to process 0, in the
// panels download_panels() receives them in.
int relay_down(Err e, Devs &v, uint64_t n, bool paths)
{
	Dev &x = v.dev[v.first];
	const uint64_t npad = v.npad, es = v.es, rows = relay_rows(npad, es, paths);
	const uint64_t first = x.first_row(v.B), r1 = x.end_row(v.B, n);
	for (uint64_t r0 = first; r0 < r1; r0 += rows) {
		const uint64_t k = r1 - r0 < rows ? r1 - r0 : rows, at = (r0 - first) * npad;
		NCCL_TRY(ncclGroupStart());
		NCCL_TRY(ncclSend((char *)x.d + at * es, k * npad * es, ncclUint8, 0, comm(x), x.s));
		if (paths)
			NCCL_TRY(ncclSend(x.p + at, k * npad * 4, ncclUint8, 0, comm(x), x.s));
		NCCL_TRY(ncclGroupEnd());
	}
	CUDA_TRY(cudaStreamSynchronize(x.s));
	return 0;
}

// Process 0: a panel of bytes of band g's distances (and pbytes of its
// predecessors after them) into rl, as relay_down() sends it.
int relay_recv(Err e, Dev &x, int g, char *rl, size_t bytes, size_t pbytes, bool paths)
{
	NCCL_TRY(ncclGroupStart());
	NCCL_TRY(ncclRecv(rl, bytes, ncclUint8, g, comm(x), x.s));
	if (paths)
		NCCL_TRY(ncclRecv(rl + bytes, pbytes, ncclUint8, g, comm(x), x.s));
	NCCL_TRY(ncclGroupEnd());
	return 0;
}

// Bytes of host memory to or from process peer (small: the statistics'
// figures), through a device buffer of x's, in order with x's stream.
int pass_host(Err e, Dev &x, void *host, size_t bytes, int peer, bool send)
{
	struct Buf {
		void *p = nullptr;
		~Buf() { cudaFree(p); }
	} b;
	CUDA_TRY(cudaMalloc(&b.p, bytes ? bytes : 1));
	if (send) {
		CUDA_TRY(cudaMemcpyAsync(b.p, host, bytes, cudaMemcpyHostToDevice, x.s));
		NCCL_TRY(ncclSend(b.p, bytes, ncclUint8, peer, comm(x), x.s));
	} else {
		NCCL_TRY(ncclRecv(b.p, bytes, ncclUint8, peer, comm(x), x.s));
		CUDA_TRY(cudaMemcpyAsync(host, b.p, bytes, cudaMemcpyDeviceToHost, x.s));
	}
	CUDA_TRY(cudaStreamSynchronize(x.s));
	return 0;
}
#else
int pass_host(Err e, Dev &, void *, size_t, int, bool)
{
	return fail(e, "several processes need a build with NCCL");
}
int relay_up(Err e, Devs &, const void *, int, uint64_t, cudaEvent_t *)
{
	return fail(e, "several processes need a build with NCCL");
}
int relay_down(Err e, Devs &, uint64_t, bool)
{
	return fail(e, "several processes need a build with NCCL");
}
int relay_recv(Err e, Dev &, int, char *, size_t, size_t, bool)
{
	return fail(e, "several processes need a build with NCCL");
}
#endif

} // namespace
#endif
