// fw_devs.cuh - the devices of a run (included by fw_gpu.cu): the
// band of block rows each device holds and what each holds of the run, the
// host's staging buffers, and the steps every device takes alike (prepare,
// finish, wait).  What passes between devices is fw_exchange.cuh's.
#ifndef APSP_FW_DEVS_CUH
#define APSP_FW_DEVS_CUH

#include <cuda_runtime.h>

#include <vector>

#include "fw_base.cuh"
#include "fw_prepare.cuh"
#include "fw_tiles.cuh"

namespace {

int smem_limit(int device)
{
	int v = 0;
	cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
	return v;
}

// Host <-> device copies go through two page-locked staging buffers, so
// the caller's matrices need not be page-locked (pinning hundreds of MB costs
// more than it saves).  Uploads: rows are copied into one buffer on all cores
// while the other is in flight.  Downloads: row panels of the distances (and
// predecessors) come back into one buffer while the caller's sink consumes
// the panel in the other, so compressing the result overlaps the copy.
// guard[b]: the event of buffer b's last copy (on whichever device made it).
struct Staging {
	void *buf[2] = {nullptr, nullptr};
	size_t bytes = 0;
} staging;

// Two of 32 MiB for results under 512 MiB, 128 MiB from there: a panel then
// holds 128 blocks of the stream's default size, eight per thread on 16
// cores, where 32 MiB gave two and left the compressing threads waiting on
// each other.  Registering memory made ready beside the context (fw_gpu.cu)
// made the larger buffers cheap enough for n = 10000 with paths (800 MB of
// results): its panels took 0.11 s against 0.13 to 0.18 with 32 MiB, at
// n = 20000 0.45 to 0.49 s against 0.59 to 0.74 (H100 machine,
// bench/pipeline.md).  Under 512 MiB a run is short and its panels few.
constexpr size_t STAGING_BYTES = 32u << 20, STAGING_BYTES_LARGE = 128u << 20;
constexpr uint64_t STAGING_LARGE_FROM = 512ull << 20;

// A sparse run's state on the device: which blocks are live (hold a finite
// entry), the lists of blocks that can change in the rounds under way, and
// the count of block updates made; and its schedule, the pivot blocks by
// level (ord_block_levels), each level's rounds run together, at most width
// at a time, with panels of their own (fw_tiles.cuh).
struct Sparse {
	uint8_t *live = nullptr;
	int *lists = nullptr; // width x (2 + 2 nb): counts, rows, columns
	unsigned long long *touch = nullptr; // 2 nb: the lists' rows, then columns, as bits
	unsigned long long *updates = nullptr;
	int sms = 0;
	int *pivots = nullptr;                 // nb: the pivot blocks, level by level
	void *colT = nullptr, *rowP = nullptr; // width x B x npad each
	int width = 0;
	std::vector<int> starts;               // level l: pivots[starts[l] .. starts[l + 1] - 1]
	std::vector<int> by_level;             // pivots, on the host
	int levels() const { return starts.empty() ? 0 : (int)starts.size() - 1; }
	~Sparse() // (after ~Dev's body has made the device current)
	{
		for (void *x : {(void *)live, (void *)lists, (void *)updates, (void *)pivots, colT, rowP,
		                (void *)touch})
			if (x)
				cudaFree(x);
	}
};

// CTAs of kernel f that fill the device.
template <typename F> int fill_grid(F f, int threads, size_t smem, int sms)
{
	int per_sm = 0;
	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, threads, smem) != cudaSuccess)
		per_sm = 1;
	return per_sm > 0 ? per_sm * sms : sms;
}

// The edges into each vertex, by increasing weight (fw_tiles.cuh: derived
// predecessors): off[j] .. off[j + 1] - 1 index keys (w << 32 | u).  They
// are listed on a stream of their own (s, the lowest priority), beside the
// rounds: read, recorded there once the weights have been read (whatever
// overwrites them waits for it); ready, once the lists are sorted (the
// derivation waits for it).  Their memory is the stream's (cudaMallocAsync),
// all of it kept until the end of the run.
struct InEdges {
	unsigned long long *off = nullptr, *keys = nullptr;
	unsigned long long *fill = nullptr, *unsorted = nullptr;
	void *tmp = nullptr, *sort_tmp = nullptr;
	cudaStream_t s = nullptr;
	cudaEvent_t read = nullptr, ready = nullptr;
	// stream t goes on once the weights have been read (nothing where no
	// lists were started)
	cudaError_t after_read(cudaStream_t t) const
	{
		return read ? cudaStreamWaitEvent(t, read, 0) : cudaSuccess;
	}
	~InEdges() // (after ~Dev's body has made the device current)
	{
		if (!s)
			return;
		cudaDeviceSynchronize(); // (the lists may be in use on another stream)
		for (void *x : {(void *)off, (void *)keys, (void *)fill, (void *)unsorted, tmp, sort_tmp})
			if (x)
				cudaFreeAsync(x, s);
		cudaStreamSynchronize(s);
		for (auto x : {read, ready})
			if (x)
				cudaEventDestroy(x);
		cudaStreamDestroy(s);
	}
};

// ---- the devices of a run -----------------------------------------------------
//
// A run uses one GPU, several of one process, or one in each of several
// processes (mpirun), each holding a band of block rows (row0 .. row0 + rows
// - 1) of the distances and predecessors; one GPU holds all of them.  The
// round scheduler (fw_rounds.cuh) drives the same tile kernels either way:
// each round, the device that holds the pivot row runs phase 1 and the pivot
// row's half of phase 2, NCCL broadcasts the finished pivot row panel (and
// the pivot rows of the predecessors, where the kernels track them) to the
// others, and every device updates the pivot column and phase 3 of its own
// rows.  A sparse run (block skipping, an order) uses one.

constexpr int MAX_GPUS = 16;

// One device in core: the second stream and pair of panels of the rounds
// with lookahead (fw_rounds.cuh, rounds_ahead); s stays null where the run
// has no room for them or is not to look ahead.
struct Ahead {
	cudaStream_t s = nullptr;
	void *colT = nullptr, *rowP = nullptr;
	cudaEvent_t phase2 = nullptr, rest = nullptr; // recorded on s and on the first stream
	~Ahead() // (after ~Dev's body has made the device current)
	{
		cudaFree(colT);
		cudaFree(rowP);
		for (auto x : {phase2, rest})
			if (x)
				cudaEventDestroy(x);
		if (s)
			cudaStreamDestroy(s);
	}
};

// The communicators of the process's devices (fwg_init), kept for later runs;
// or, one process of several (fwg_init_rank), its one device's.
struct Group {
	int first = -1, count = 0;
	int rank = 0, ranks = 0;
	void *comm[MAX_GPUS] = {}; // NCCL communicators (fw_exchange.cuh)
} group;

struct Dev {
	int id = -1;             // CUDA device
	int es = 4;              // bytes of a distance: 4 (int32, float32) or 8 (float64)
	int row0 = 0, rows = 0;  // the block rows held
	void *d = nullptr;       // rows * B x npad: distances
	int32_t *p = nullptr;    // rows * B x npad: predecessors
	void *colT = nullptr, *rowP = nullptr; // B x npad panels (fw_tiles.cuh)
	int32_t *prow = nullptr; // B x npad: the pivot rows of p, from their holder
	short *d16 = nullptr;    // rows * B x npad: 16-bit lanes
	bool d16_in_d = false;   // ... in the first half of d's memory (in_place16)
	unsigned long long *scratch = nullptr; // facts to combine over the devices (4)
	void *relay[2] = {nullptr, nullptr}; // process 0 of several: other bands' rows
	Sparse sparse;
	InEdges ie;
	Ahead ahead;
	cudaStream_t s = nullptr;
	cudaEvent_t ev[3] = {};  // upload start, kernels start, kernels end
	cudaEvent_t done[2] = {}; // a staging buffer's copy finished
	void *comm = nullptr;     // its NCCL communicator (fw_exchange.cuh)
	~Dev()
	{
		if (id < 0)
			return;
		cudaSetDevice(id);
		cudaFree(d);
		cudaFree(p);
		cudaFree(colT);
		cudaFree(rowP);
		cudaFree(prow);
		if (!d16_in_d)
			cudaFree(d16);
		cudaFree(scratch);
		cudaFree(relay[0]);
		cudaFree(relay[1]);
		for (auto x : ev)
			if (x)
				cudaEventDestroy(x);
		for (auto x : done)
			if (x)
				cudaEventDestroy(x);
		if (s)
			cudaStreamDestroy(s);
	}
	bool holds(int round) const { return round >= row0 && round < row0 + rows; }
	// Where row 0 of the whole matrix would be, so that the kernels index
	// the rows held by their numbers in the whole matrix.
	template <typename T> T *base(void *x, int B, int npad) const
	{
		return (T *)x - (size_t)row0 * B * npad;
	}
	int32_t *pbase(int B, int npad) const { return p ? p - (size_t)row0 * B * npad : nullptr; }
	size_t count(int B, int npad) const { return (size_t)rows * B * npad; }
	// The caller's rows in the band: first_row .. end_row - 1 (n: how many
	// the caller has; the rest is padding).
	uint64_t first_row(int B) const { return (uint64_t)row0 * B; }
	uint64_t end_row(int B, uint64_t n) const
	{
		const uint64_t end = (uint64_t)(row0 + rows) * B;
		return end < n ? end : n;
	}
};

struct Checkpoints; // fw_checkpoint.cuh

// Every band of the run (count), of which this process drives dev[first]
// .. dev[last - 1]: all of them, or one where the run spans processes
// (ranks; band g is process g's).
struct Devs {
	Dev dev[MAX_GPUS];
	int count = 1, first = 0, last = 1;
	int B = 0, npad = 0;
	int es = 4;                        // bytes of a distance (each Dev's es too)
	int phase1 = FWG_PHASE1_AUTO;      // as asked
	int phase1_ran = FWG_PHASE1_APART; // ... and where it ran (run_rounds_with)
	bool ahead_ran = false;            // the rounds ran with lookahead (rounds_ahead)
	bool small_ran = false;            // phase 2 with twice the registers (run_rounds, row order)
	Checkpoints *ck = nullptr;         // the state saved between steps (NULL: not)
	Dev &holder(int round)
	{
		for (int g = 0; g < count; g++)
			if (dev[g].holds(round))
				return dev[g];
		return dev[0];
	}
	int rank(const Dev &x) const { return (int)(&x - dev); }
};

// The predecessors' pivot rows the kernels of round read on device x.
int32_t *pivot_preds(const Devs &v, const Dev &x, int round)
{
	if (!x.p)
		return nullptr;
	return x.holds(round) ? x.pbase(v.B, v.npad) + (size_t)round * v.B * v.npad : x.prow;
}

// The two facts of an int32 graph (int_facts) over the caller's rows of x,
// as uploaded, added into x.scratch[0] and [1] (an int in a 64-bit word).
int facts_of_rows(Err e, const Devs &v, Dev &x, uint64_t n)
{
	const int first = (int)x.first_row(v.B), end = (int)x.end_row(v.B, n), rows = end - first;
	if (rows > 0)
		int_facts<<<rows < 16384 ? (unsigned)rows : 16384u, 256, 0, x.s>>>(
		        x.base<int>(x.d, v.B, v.npad), (int)n, v.npad, &x.scratch[0],
		        (int *)&x.scratch[1], first, end);
	CUDA_TRY(cudaGetLastError());
	return 0;
}

// x's rows as the rounds take them (prepare): padding, the device's INF
// (packed int32 paths: INF_PACKED), the first predecessors.
int prepare_rows(Err e, const Devs &v, Dev &x, uint64_t n, bool is_int, bool packed)
{
	const size_t count = x.count(v.B, v.npad);
	const unsigned grid = (unsigned)((count + 255) / 256);
	if (count == 0)
		return 0;
	if (x.es == 8) { // float64 tracks each path's largest intermediate: none yet
		prepare<double><<<grid, 256, 0, x.s>>>((double *)x.d, nullptr, (int)n, v.npad,
		                                       __builtin_inf(), __builtin_inf(), x.row0 * v.B,
		                                       x.rows * v.B);
		if (x.p)
			CUDA_TRY(cudaMemsetAsync(x.p, 0xff, count * sizeof *x.p, x.s));
	} else if (is_int) {
		prepare<int><<<grid, 256, 0, x.s>>>((int *)x.d, x.p, (int)n, v.npad, ST_INF_I32,
		                                    packed ? INF_PACKED : ST_INF_I32, x.row0 * v.B,
		                                    x.rows * v.B);
	} else {
		prepare<float><<<grid, 256, 0, x.s>>>((float *)x.d, x.p, (int)n, v.npad,
		                                      __builtin_inff(), __builtin_inff(), x.row0 * v.B,
		                                      x.rows * v.B);
	}
	CUDA_TRY(cudaGetLastError());
	return 0;
}

// Packed int32 paths: x's rows back to the caller's INF (finish).
int finish_rows(Err e, const Devs &v, Dev &x)
{
	const size_t count = x.count(v.B, v.npad);
	if (count)
		finish<int><<<(unsigned)((count + 255) / 256), 256, 0, x.s>>>((int *)x.d, count,
		                                                             ST_INF_I32, INF_PACKED);
	CUDA_TRY(cudaGetLastError());
	return 0;
}

// Wait for everything queued on this process's devices.
int sync_all(Err e, Devs &v)
{
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(cudaStreamSynchronize(v.dev[g].s));
	}
	return 0;
}

} // namespace
#endif
