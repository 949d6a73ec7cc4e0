// fw_gpu.cu - the device-side driver behind fw_gpu.h: buffers, staging,
// uploads and downloads, and the round scheduler that launches the tile
// kernels of fw_tiles.cuh (phase 1, panels, phase 2, phase 3 per round).
#include <cuda_runtime.h>
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <chrono>
#include <thread>
#include <type_traits>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#ifdef APSP_NCCL
#include <nccl.h>
#endif

#include "fw_gpu.h"
#include "fw_tiles.cuh"
#include "stream.h"

namespace {

struct Err {
	char *buf;
	size_t len;
};

int fail(Err e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (e.buf && e.len)
		vsnprintf(e.buf, e.len, fmt, ap);
	va_end(ap);
	return -1;
}

#define CUDA_TRY(call)                                                        \
	do {                                                                      \
		cudaError_t rc_ = (call);                                             \
		if (rc_ != cudaSuccess)                                               \
			return fail(e, "%s: %s (%s:%d)", #call, cudaGetErrorString(rc_), \
			            __FILE__, __LINE__);                                  \
	} while (0)

int smem_limit(int device)
{
	int v = 0;
	cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
	return v;
}

// A sparse run's state on the device: which blocks are live (hold a finite
// entry), the current round's lists of blocks that can change, and the count
// of block updates made.  Phase 3 then runs on a grid sized to fill the
// device, each CTA taking listed blocks in turn.
struct Sparse {
	uint8_t *live = nullptr;
	int *lists = nullptr; // 2 + 2 nb: counts, rows, columns
	unsigned long long *updates = nullptr;
	int sms = 0;
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
// predecessors): off[j] .. off[j + 1] - 1 index keys (w << 32 | u).
struct InEdges {
	unsigned long long *off = nullptr, *keys = nullptr;
	~InEdges()
	{
		cudaFree(off);
		cudaFree(keys);
	}
};

// Lists the edges of the weight matrix w (entries below inf) into ie, or
// sets *ok = 0 where device memory, or shared memory for a row of dist_bytes
// entries, is short for it.  room: device memory to leave for the run.
template <typename T>
int list_in_edges(Err e, const T *w, int n, int npad, T inf, size_t dist_bytes, size_t room,
                  cudaStream_t s, int device, InEdges *ie, int *ok)
{
	*ok = 0;
	if ((size_t)n * dist_bytes > (size_t)smem_limit(device))
		return 0;
	unsigned long long *fill = nullptr, *keys = nullptr, total = 0;
	void *tmp = nullptr;
	size_t tmp_bytes = 0, free_b = 0, total_b = 0;
	const dim3 g((n + 31) / 32, (n + 31) / 32);
	int rc = 0;
	CUDA_TRY(cudaMalloc(&ie->off, (n + 1) * sizeof *ie->off));
	CUDA_TRY(cudaMalloc(&fill, (n + 1) * sizeof *fill));
	CUDA_TRY(cudaMemsetAsync(fill, 0, (n + 1) * sizeof *fill, s));
	in_degree<<<g, 32, 0, s>>>(w, npad, n, inf, fill);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, fill, ie->off, n + 1, s));
	CUDA_TRY(cudaMalloc(&tmp, tmp_bytes));
	CUDA_TRY(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, fill, ie->off, n + 1, s));
	CUDA_TRY(cudaMemcpyAsync(&total, ie->off + n, sizeof total, cudaMemcpyDeviceToHost, s));
	CUDA_TRY(cudaStreamSynchronize(s));
	cudaFree(tmp);
	tmp = nullptr;
	// keys twice (the sort's input and output) and the sort's scratch, with
	// room left for the 16-bit matrix
	CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
	if (total * 8 * 3 + room + (256u << 20) > free_b) {
		cudaFree(fill);
		return 0;
	}
	CUDA_TRY(cudaMalloc(&keys, (total ? total : 1) * 8));
	CUDA_TRY(cudaMalloc(&ie->keys, (total ? total : 1) * 8));
	CUDA_TRY(cudaMemsetAsync(fill, 0, (n + 1) * sizeof *fill, s));
	in_edges<<<g, 32, 0, s>>>(w, npad, n, inf, ie->off, fill, keys);
	CUDA_TRY(cudaGetLastError());
	if (total) {
		tmp_bytes = 0;
		CUDA_TRY(cub::DeviceSegmentedSort::SortKeys(nullptr, tmp_bytes, keys, ie->keys,
		                                             (int64_t)total, n, ie->off, ie->off + 1, s));
		if (cudaMalloc(&tmp, tmp_bytes) != cudaSuccess) {
			cudaGetLastError();
			rc = 1;
		} else if (cub::DeviceSegmentedSort::SortKeys(tmp, tmp_bytes, keys, ie->keys,
		                                               (int64_t)total, n, ie->off, ie->off + 1,
		                                               s) != cudaSuccess) {
			rc = fail(e, "sorting the edges into each vertex: %s",
			          cudaGetErrorString(cudaGetLastError()));
		}
	}
	CUDA_TRY(cudaStreamSynchronize(s));
	cudaFree(tmp);
	cudaFree(keys);
	cudaFree(fill);
	if (rc < 0)
		return rc;
	*ok = rc == 0;
	return 0;
}

// ---- the devices of a run -----------------------------------------------------
//
// A run uses one GPU, or several of one process, each holding a band of
// block rows (row0 .. row0 + rows - 1) of the distances and predecessors;
// one GPU holds all of them.  The round scheduler below drives the same tile
// kernels either way: each round, the device that holds the pivot row runs
// phase 1 and the pivot row's half of phase 2, NCCL broadcasts the finished
// pivot row panel (and the pivot rows of the predecessors, where the kernels
// track them) to the others, and every device updates the pivot column and
// phase 3 of its own rows.  A sparse run (block skipping, an order) uses one.

constexpr int MAX_GPUS = 16;

// The communicators of the process's devices (fwg_init), kept for later runs;
// or, one process of several (fwg_init_rank), its one device's.
struct Group {
	int first = -1, count = 0;
	int rank = 0, ranks = 0;
#ifdef APSP_NCCL
	ncclComm_t comm[MAX_GPUS] = {};
#endif
} group;

struct Dev {
	int id = -1;             // CUDA device
	int row0 = 0, rows = 0;  // the block rows held
	void *d = nullptr;       // rows * B x npad: distances
	int32_t *p = nullptr;    // rows * B x npad: predecessors
	void *colT = nullptr, *rowP = nullptr; // B x npad panels (fw_tiles.cuh)
	int32_t *prow = nullptr; // B x npad: the pivot rows of p, from their holder
	short *d16 = nullptr;    // rows * B x npad: 16-bit lanes
	unsigned long long *scratch = nullptr; // facts to combine over the devices (4)
	void *relay[2] = {nullptr, nullptr}; // process 0 of several: other bands' rows
	Sparse sparse;
	InEdges ie;
	cudaStream_t s = nullptr;
	cudaEvent_t ev[4] = {};  // upload start, kernels start, kernels end, finished
	cudaEvent_t done[2] = {}; // a staging buffer's copy finished
#ifdef APSP_NCCL
	ncclComm_t comm = nullptr;
#endif
	~Dev()
	{
		if (id < 0)
			return;
		cudaSetDevice(id);
		cudaFree(sparse.live);
		cudaFree(sparse.lists);
		cudaFree(sparse.updates);
		cudaFree(d);
		cudaFree(p);
		cudaFree(colT);
		cudaFree(rowP);
		cudaFree(prow);
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
};

// Every band of the run (count), of which this process drives dev[first]
// .. dev[last - 1]: all of them, or one where the run spans processes
// (ranks; band g is process g's).
struct Devs {
	Dev dev[MAX_GPUS];
	int count = 1, first = 0, last = 1;
	bool ranks = false;
	int B = 0, npad = 0;
	Dev &holder(int round)
	{
		for (int g = 0; g < count; g++)
			if (dev[g].holds(round))
				return dev[g];
		return dev[0];
	}
	int rank(const Dev &x) const { return (int)(&x - dev); }
};

#ifdef APSP_NCCL
#define NCCL_TRY(call)                                                        \
	do {                                                                      \
		ncclResult_t rc_ = (call);                                            \
		if (rc_ != ncclSuccess)                                               \
			return fail(e, "%s: %s (%s:%d)", #call, ncclGetErrorString(rc_), \
			            __FILE__, __LINE__);                                  \
	} while (0)
#endif

// The pivot row panel rowP (bytes per entry: size) and, with prow, the pivot
// rows of the predecessors, from the device that holds row round to the
// others.
int share_pivot(Err e, Devs &v, int round, size_t size, bool preds)
{
	if (v.count == 1)
		return 0;
#ifdef APSP_NCCL
	Dev &h = v.holder(round);
	const int root = v.rank(h);
	const size_t panel = (size_t)v.B * v.npad;
	NCCL_TRY(ncclGroupStart());
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		NCCL_TRY(ncclBroadcast(x.rowP, x.rowP, panel * size, ncclUint8, root, x.comm, x.s));
		if (preds) {
			int32_t *own = h.pbase(v.B, v.npad) + (size_t)round * panel;
			NCCL_TRY(ncclBroadcast(own, &x == &h ? own : x.prow, panel, ncclInt32, root, x.comm,
			                       x.s));
		}
	}
	NCCL_TRY(ncclGroupEnd());
	return 0;
#else
	return fail(e, "several GPUs need a build with NCCL");
#endif
}

// Facts each device of this process left in its scratch[0 .. count - 1],
// summed (or their maximum taken) over every device of the run, into out.
int combine(Err e, Devs &v, int count, bool sum, unsigned long long *out)
{
#ifdef APSP_NCCL
	if (v.count > 1 && count > 0) {
		NCCL_TRY(ncclGroupStart());
		for (int g = v.first; g < v.last; g++) {
			Dev &x = v.dev[g];
			NCCL_TRY(ncclAllReduce(x.scratch, x.scratch, count, ncclUint64, sum ? ncclSum : ncclMax,
			                       x.comm, x.s));
		}
		NCCL_TRY(ncclGroupEnd());
	}
#endif
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		CUDA_TRY(cudaSetDevice(x.id));
		if (g == v.first && count > 0)
			CUDA_TRY(cudaMemcpyAsync(out, x.scratch, count * sizeof *out, cudaMemcpyDeviceToHost,
			                         x.s));
		CUDA_TRY(cudaStreamSynchronize(x.s));
	}
	return 0;
}

// Whether any device of the run says yes (flag[g] for this process's
// device g), so that every process takes the same way.
int any_of(Err e, Devs &v, const bool *flag, bool *out)
{
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

// The predecessors' pivot rows the kernels of round read on device x.
int32_t *pivot_preds(const Devs &v, const Dev &x, int round)
{
	if (!x.p)
		return nullptr;
	return x.holds(round) ? x.pbase(v.B, v.npad) + (size_t)round * v.B * v.npad : x.prow;
}

template <int B>
int run_rounds16(Err e, Devs &v, const Sparse *sp)
{
	const int npad = v.npad, nb = npad / B;
	const int t1 = p1_dim<B>() * p1_dim<B>();
	const size_t s1 = (size_t)B * (B + 1) * sizeof(short);
	const size_t s3 = tile16_smem<B>();
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(cudaFuncSetAttribute(tile_update16<B, 2>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		CUDA_TRY(cudaFuncSetAttribute(tile_update16<B, 3>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		CUDA_TRY(cudaFuncSetAttribute(tile_update16_listed<B>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
	}
	const int t3 = tile16_threads<B>();
	const int g3 = sp ? fill_grid(tile_update16_listed<B>, t3, s3, sp->sms) : 0;
	const uint8_t *live = sp ? sp->live : nullptr;
	const dim3 gp((npad + 31) / 32, (B + 31) / 32), tp(32, 8);
	for (int round = 0; round < nb; round++) {
		for (int g = v.first; g < v.last; g++) { // the pivot row; every device's column panel
			Dev &x = v.dev[g];
			short *d = x.base<short>(x.d16, B, npad);
			if (v.count > 1)
				CUDA_TRY(cudaSetDevice(x.id));
			if (x.holds(round))
				phase1<short, B, false><<<1, t1, s1, x.s>>>(d, nullptr, npad, round);
			if (nb == 1)
				continue;
			panels16<B><<<gp, tp, 0, x.s>>>(d, npad, round, (uint32_t *)x.colT, (short *)x.rowP,
			                                 x.row0, x.rows);
			if (sp)
				round_lists<<<1, 1024, 0, x.s>>>(sp->live, nb, round, sp->lists, sp->updates);
			if (x.holds(round))
				tile_update16<B, 2><<<nb + x.rows, t3, s3, x.s>>>(
				        d, npad, round, (uint32_t *)x.colT, (short *)x.rowP, live, x.row0, x.rows);
			CUDA_TRY(cudaGetLastError());
		}
		if (nb == 1)
			break;
		if (share_pivot(e, v, round, sizeof(short), false))
			return -1;
		for (int g = v.first; g < v.last; g++) { // the pivot column elsewhere; phase 3
			Dev &x = v.dev[g];
			short *d = x.base<short>(x.d16, B, npad);
			if (v.count > 1)
				CUDA_TRY(cudaSetDevice(x.id));
			if (!x.holds(round))
				tile_update16<B, 2><<<x.rows, t3, s3, x.s>>>(
				        d, npad, round, (uint32_t *)x.colT, (short *)x.rowP, nullptr, x.row0, x.rows);
			if (sp)
				tile_update16_listed<B><<<g3, t3, s3, x.s>>>(d, npad, round, (uint32_t *)x.colT,
				                                           (short *)x.rowP, sp->lists, sp->live);
			else
				tile_update16<B, 3><<<dim3(nb, x.rows), t3, s3, x.s>>>(
				        d, npad, round, (uint32_t *)x.colT, (short *)x.rowP, nullptr, x.row0,
				        x.rows);
			CUDA_TRY(cudaGetLastError());
		}
	}
	return 0;
}

// Predecessors of the rows x holds, derived from the final distances dist
// (fw_tiles.cuh); dist points where row 0 would be.
template <typename D>
int derive(Err e, const Devs &v, const Dev &x, const D *dist, int n)
{
	const int npad = v.npad, end = (x.row0 + x.rows) * v.B < n ? (x.row0 + x.rows) * v.B : n;
	const int first = x.row0 * v.B;
	if (first >= end)
		return 0;
	const size_t sm = (size_t)n * sizeof(D);
	CUDA_TRY(cudaFuncSetAttribute(derive_preds<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                              (int)sm));
	const int rows = end - first;
	derive_preds<D><<<rows < 16384 ? rows : 16384, 512, sm, x.s>>>(
	        dist, npad, n, x.ie.off, x.ie.keys,
	        x.pbase(v.B, npad), first, end);
	CUDA_TRY(cudaGetLastError());
	return 0;
}

// The largest entry below limit of every device's rows (lanes16: of the
// 16-bit matrices), into *out.
int max_entry(Err e, Devs &v, bool lanes16, int limit, int *out)
{
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		const size_t count = x.count(v.B, v.npad);
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaMemsetAsync(x.scratch, 0, sizeof *x.scratch, x.s));
		if (count == 0)
			continue;
		if (lanes16)
			max_below<short><<<1024, 256, 0, x.s>>>(x.d16, count, limit, (int *)x.scratch);
		else
			max_below<int><<<1024, 256, 0, x.s>>>((const int *)x.d, count, limit,
			                                      (int *)x.scratch);
		CUDA_TRY(cudaGetLastError());
	}
	unsigned long long m = 0;
	if (combine(e, v, 1, false, &m))
		return -1;
	*out = (int)m;
	return 0;
}

// Try the 16-bit run.  *done: 1 its result stands (the devices' d hold it),
// -1 it was run and rejected, 0 it was not tried.  inf: d's INF.  With
// derive, a result that stands also gets its predecessors, derived into p.
int try16(Err e, Devs &v, int n, int inf, const Sparse *sp, bool derive16, int *done)
{
	*done = 0;
	const int B = v.B;
	if (B != 64 && B != 128)
		return 0;
	int wmax = 0, dmax = 0, rc = 0;
	if (max_entry(e, v, false, inf, &wmax)) // the largest weight
		return -1;
	if (wmax >= INF16 / 4)
		return 0;
	bool short_of[MAX_GPUS] = {}, no_room = false;
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		size_t free_b = 0, total_b = 0;
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
		if (x.count(B, v.npad) * 2 + (64 << 20) > free_b
		    || cudaMalloc(&x.d16, x.count(B, v.npad) * 2) != cudaSuccess) {
			cudaGetLastError();
			short_of[g] = true;
		}
	}
	if (any_of(e, v, short_of, &no_room))
		return -1;
	if (no_room) { // the 32-bit run it is
		for (int g = v.first; g < v.last; g++) {
			cudaSetDevice(v.dev[g].id);
			cudaFree(v.dev[g].d16);
			v.dev[g].d16 = nullptr;
		}
		return 0;
	}
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		const size_t count = x.count(B, v.npad);
		CUDA_TRY(cudaSetDevice(x.id));
		to16<<<(unsigned)((count + 255) / 256), 256, 0, x.s>>>((const int *)x.d, x.d16, count);
		CUDA_TRY(cudaGetLastError());
	}
	rc = B == 64 ? run_rounds16<64>(e, v, sp) : run_rounds16<128>(e, v, sp);
	if (rc == 0)
		rc = max_entry(e, v, true, INF16, &dmax);
	if (rc == 0 && dmax + wmax < INF16) {
		for (int g = v.first; g < v.last && rc == 0; g++) {
			Dev &x = v.dev[g];
			const size_t count = x.count(B, v.npad);
			CUDA_TRY(cudaSetDevice(x.id));
			if (derive16)
				rc = derive(e, v, x, x.base<short>(x.d16, B, v.npad), n);
			from16<<<(unsigned)((count + 255) / 256), 256, 0, x.s>>>(x.d16, (int *)x.d, count);
		}
		*done = 1;
	} else if (rc == 0) {
		*done = -1;
	}
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		cudaSetDevice(x.id);
		cudaError_t st = cudaStreamSynchronize(x.s);
		if (rc == 0 && st != cudaSuccess)
			rc = fail(e, "16-bit run: %s", cudaGetErrorString(st));
		cudaFree(x.d16);
		x.d16 = nullptr;
	}
	return rc;
}

template <typename T, int B, int R, bool PATHS, bool PACKED>
int run_rounds(Err e, Devs &v, const Sparse *sp)
{
	const int npad = v.npad, nb = npad / B;
	const int t1 = p1_dim<B>() * p1_dim<B>();
	const size_t s1 = (size_t)B * (B + 1) * (sizeof(T) + (PATHS ? 4 : 0));
	const int t3 = tile_threads<B, R>();
	const size_t s3 = tile_smem<T, B>();
	for (int g = v.first; g < v.last; g++) {
		const int id = v.dev[g].id;
		if ((int)s1 > smem_limit(id) || (int)s3 > smem_limit(id))
			return fail(e, "blocking factor %d needs %zu bytes of shared memory per block; "
			               "the device allows %d", B, s1 > s3 ? s1 : s3, smem_limit(id));
		CUDA_TRY(cudaSetDevice(id));
		CUDA_TRY(cudaFuncSetAttribute(phase1<T, B, PATHS>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s1));
		CUDA_TRY(cudaFuncSetAttribute(tile_update<T, B, R, PATHS, PACKED, 2>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		CUDA_TRY(cudaFuncSetAttribute(tile_update<T, B, R, PATHS, PACKED, 3>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		CUDA_TRY(cudaFuncSetAttribute(tile_update_listed<T, B, R, PATHS, PACKED>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
	}
	const int g3 = sp ? fill_grid(tile_update_listed<T, B, R, PATHS, PACKED>, t3, s3, sp->sms) : 0;
	const uint8_t *live = sp ? sp->live : nullptr;
	const dim3 gp((npad + 31) / 32, (B + 31) / 32), tp(32, 8);
	for (int round = 0; round < nb; round++) {
		for (int g = v.first; g < v.last; g++) { // the pivot row; every device's column panel
			Dev &x = v.dev[g];
			T *d = x.base<T>(x.d, B, npad);
			int32_t *p = x.pbase(B, npad);
			if (v.count > 1)
				CUDA_TRY(cudaSetDevice(x.id));
			if (x.holds(round))
				phase1<T, B, PATHS><<<1, t1, s1, x.s>>>(d, p, npad, round);
			if (nb == 1)
				continue;
			panels<T, B, PACKED><<<gp, tp, 0, x.s>>>(d, npad, round, (T *)x.colT, (T *)x.rowP,
			                                         x.row0, x.rows);
			if (sp)
				round_lists<<<1, 1024, 0, x.s>>>(sp->live, nb, round, sp->lists, sp->updates);
			if (x.holds(round))
				tile_update<T, B, R, PATHS, PACKED, 2><<<nb + x.rows, t3, s3, x.s>>>(
				        d, p, pivot_preds(v, x, round), npad, round, (T *)x.colT, (T *)x.rowP,
				        live, x.row0, x.rows);
			CUDA_TRY(cudaGetLastError());
		}
		if (nb == 1)
			break;
		if (share_pivot(e, v, round, sizeof(T), PATHS))
			return -1;
		for (int g = v.first; g < v.last; g++) { // the pivot column elsewhere; phase 3
			Dev &x = v.dev[g];
			T *d = x.base<T>(x.d, B, npad);
			int32_t *p = x.pbase(B, npad);
			const int32_t *prow = pivot_preds(v, x, round);
			if (v.count > 1)
				CUDA_TRY(cudaSetDevice(x.id));
			if (!x.holds(round))
				tile_update<T, B, R, PATHS, PACKED, 2><<<x.rows, t3, s3, x.s>>>(
				        d, p, prow, npad, round, (T *)x.colT, (T *)x.rowP, nullptr, x.row0, x.rows);
			if (sp)
				tile_update_listed<T, B, R, PATHS, PACKED><<<g3, t3, s3, x.s>>>(
				        d, p, npad, round, (T *)x.colT, (T *)x.rowP, sp->lists, sp->live);
			else
				tile_update<T, B, R, PATHS, PACKED, 3><<<dim3(nb, x.rows), t3, s3, x.s>>>(
				        d, p, prow, npad, round, (T *)x.colT, (T *)x.rowP, nullptr, x.row0, x.rows);
			CUDA_TRY(cudaGetLastError());
		}
	}
	return 0;
}

template <typename T, int B>
int dispatch_modes(Err e, Devs &v, bool paths, bool packed, const Sparse *sp)
{
	// Register tile: 8 x 8 where the block is large enough and the kernel
	// keeps nothing but distances; 4 x 4 when it also tracks k explicitly.
	constexpr int RD = B >= 64 ? 8 : 4;
	if (!paths)
		return run_rounds<T, B, RD, false, false>(e, v, sp);
	if constexpr (std::is_same<T, int>::value)
		if (packed)
			return run_rounds<T, B, RD, true, true>(e, v, sp);
	return run_rounds<T, B, 4, true, false>(e, v, sp);
}

template <typename T>
int dispatch(Err e, Devs &v, bool paths, bool packed, const Sparse *sp)
{
	switch (v.B) {
	case 16: return dispatch_modes<T, 16>(e, v, paths, packed, sp);
	case 32: return dispatch_modes<T, 32>(e, v, paths, packed, sp);
	case 64: return dispatch_modes<T, 64>(e, v, paths, packed, sp);
	case 128: return dispatch_modes<T, 128>(e, v, paths, packed, sp);
	}
	return fail(e, "blocking factor %d not supported (16, 32, 64 or 128)", v.B);
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

// Two of 32 MiB for matrices up to 4 GiB; larger ones, whose reading takes
// seconds while the context is made, get 128 MiB: a panel then holds 128
// blocks of the stream's default size, eight per thread on 16 cores, where 32
// MiB gave two and left the compressing threads waiting on each other.
constexpr size_t STAGING_BYTES = 32u << 20, STAGING_BYTES_LARGE = 128u << 20;
constexpr uint64_t STAGING_LARGE_FROM = 4ull << 30;

// A run in another vertex order (fwg_opts.order, one GPU): the order and
// its inverse on the device, and two device buffers of the staging size
// through which rows are renumbered on their way in and out.
struct Reorder {
	const int32_t *host = nullptr; // order[k]: the vertex at position k
	int32_t *order = nullptr, *pos = nullptr;
	void *tmp[2] = {nullptr, nullptr};
	~Reorder()
	{
		cudaFree(order);
		cudaFree(pos);
		cudaFree(tmp[0]);
		cudaFree(tmp[1]);
	}
};

constexpr unsigned GATHER_GRID = 4096;

// The caller's rows r0 .. r1 - 1 of the holder x (first the rows' own
// numbers: x holds row x.row0 * B at x.d).
int upload_rows(Err e, const void *host, Dev &x, uint64_t n, uint64_t npad, int B,
                cudaEvent_t guard[2], const Reorder *ro)
{
	const size_t row = n * 4;
	const uint64_t first = (uint64_t)x.row0 * B, end = first + x.count(B, npad) / npad;
	const uint64_t r1 = end < n ? end : n;
	char *dev = (char *)x.d;
	CUDA_TRY(cudaSetDevice(x.id));
	if (first >= r1)
		return 0;
	uint64_t rows = staging.bytes / row;
	if (rows == 0) { // a row larger than the staging buffer: plain copy
		if (ro)
			return fail(e, "n = %llu is too large to renumber", (unsigned long long)n);
		CUDA_TRY(cudaMemcpy2DAsync(dev, npad * 4, (const char *)host + first * row, row, row,
		                           r1 - first, cudaMemcpyHostToDevice, x.s));
		return 0;
	}
	int b = 0;
	for (uint64_t r0 = first; r0 < r1; r0 += rows, b ^= 1) {
		const uint64_t k = r1 - r0 < rows ? r1 - r0 : rows;
		char *st = (char *)staging.buf[b];
		if (guard[b])
			CUDA_TRY(cudaEventSynchronize(guard[b]));
#pragma omp parallel for schedule(static)
		for (int64_t i = 0; i < (int64_t)k; i++) {
			const uint64_t from = ro ? (uint64_t)ro->host[r0 + i] : r0 + i;
			memcpy(st + i * row, (const char *)host + from * row, row);
		}
		if (ro) { // in as they are, then their columns renumbered into place
			CUDA_TRY(cudaMemcpyAsync(ro->tmp[b], st, k * row, cudaMemcpyHostToDevice, x.s));
			take_rows<<<GATHER_GRID, 256, 0, x.s>>>((const uint32_t *)ro->tmp[b], n, k,
			                                        (uint32_t *)dev, (int)npad, r0, ro->order);
			CUDA_TRY(cudaGetLastError());
		} else {
			CUDA_TRY(cudaMemcpy2DAsync(dev + (r0 - first) * npad * 4, npad * 4, st, row, row, k,
			                           cudaMemcpyHostToDevice, x.s));
		}
		CUDA_TRY(cudaEventRecord(x.done[b], x.s));
		guard[b] = x.done[b];
	}
	return 0;
}

// Where the run spans processes, process 0 alone has the caller's matrices:
// rows of the other bands go through its device to theirs and back, by NCCL
// send and receive, relay_rows(n) rows at a time through two device buffers
// of RELAY_BYTES (the same count on both sides).
constexpr size_t RELAY_BYTES = 32u << 20;

uint64_t relay_rows(uint64_t npad, bool paths)
{
	return RELAY_BYTES / (npad * 4 * (paths ? 2 : 1));
}

#ifdef APSP_NCCL
// Process 0: the caller's rows of band g, to its process.  Band g's
// process: them, into its distances.
int relay_up(Err e, Devs &v, const void *host, int g, uint64_t n, cudaEvent_t guard[2])
{
	const uint64_t npad = v.npad, row = n * 4, rows = relay_rows(npad, false);
	const Dev &h = v.dev[g];
	const uint64_t first = (uint64_t)h.row0 * v.B, end = first + (uint64_t)h.rows * v.B;
	const uint64_t r1 = end < n ? end : n;
	Dev &x = v.dev[v.first];
	int b = 0;
	for (uint64_t r0 = first; r0 < r1; r0 += rows, b ^= 1) {
		const uint64_t k = r1 - r0 < rows ? r1 - r0 : rows;
		if (v.first == g) { // this process holds band g
			NCCL_TRY(ncclRecv((char *)x.d + (r0 - first) * npad * 4, k * npad * 4, ncclUint8, 0,
			                  x.comm, x.s));
			continue;
		}
		char *st = (char *)staging.buf[b];
		if (guard[b])
			CUDA_TRY(cudaEventSynchronize(guard[b]));
#pragma omp parallel for schedule(static)
		for (int64_t i = 0; i < (int64_t)k; i++)
			memcpy(st + i * row, (const char *)host + (r0 + i) * row, row);
		CUDA_TRY(cudaMemcpy2DAsync(x.relay[b], npad * 4, st, row, row, k, cudaMemcpyHostToDevice,
		                           x.s));
		CUDA_TRY(cudaEventRecord(x.done[b], x.s));
		guard[b] = x.done[b];
		NCCL_TRY(ncclSend(x.relay[b], k * npad * 4, ncclUint8, g, x.comm, x.s));
	}
	return 0;
}

// Band g's process (not 0): its rows of the results to process 0, in the
// panels download_panels() receives them in.
int relay_down(Err e, Devs &v, uint64_t n, bool paths)
{
	Dev &x = v.dev[v.first];
	const uint64_t npad = v.npad, rows = relay_rows(npad, paths);
	const uint64_t first = (uint64_t)x.row0 * v.B, end = first + (uint64_t)x.rows * v.B;
	const uint64_t r1 = end < n ? end : n;
	for (uint64_t r0 = first; r0 < r1; r0 += rows) {
		const uint64_t k = r1 - r0 < rows ? r1 - r0 : rows, at = (r0 - first) * npad;
		NCCL_TRY(ncclGroupStart());
		NCCL_TRY(ncclSend((char *)x.d + at * 4, k * npad * 4, ncclUint8, 0, x.comm, x.s));
		if (paths)
			NCCL_TRY(ncclSend(x.p + at, k * npad * 4, ncclUint8, 0, x.comm, x.s));
		NCCL_TRY(ncclGroupEnd());
	}
	CUDA_TRY(cudaStreamSynchronize(x.s));
	return 0;
}
#endif

// Row panels of d (and p) to the sink, in order, from whichever device holds
// them (through the relay from other processes); panel k + 1 is copied while the sink runs on panel k.  A staging
// buffer holds a panel's distance rows, then its predecessor rows.
int download_panels(Err e, Devs &v, uint64_t n, bool paths, const Reorder *ro, fwg_sink *sink,
                    void *ctx)
{
	const uint64_t npad = v.npad;
	const size_t row = n * 4;
	uint64_t rows = staging.bytes / (row * (paths ? 2 : 1));
	std::vector<char> big;
	void *buf[2] = {staging.buf[0], staging.buf[1]};
	if (rows == 0) { // rows larger than staging: one row at a time, pageable
		if (ro)
			return fail(e, "n = %llu is too large to renumber", (unsigned long long)n);
		rows = 1;
		big.resize(2 * row * (paths ? 2 : 1));
		buf[0] = big.data();
		buf[1] = big.data() + row * (paths ? 2 : 1);
	}
	int b = 0, g = 0;
	cudaEvent_t guard[2] = {nullptr, nullptr};
	uint64_t prev0 = 0, prevk = 0;
	for (uint64_t r0 = 0; r0 < n || prevk; b ^= 1) {
		uint64_t k = 0;
		if (r0 < n) {
			while ((uint64_t)(v.dev[g].row0 + v.dev[g].rows) * v.B <= r0)
				g++;
			const bool relayed = g < v.first || g >= v.last;
			Dev &x = relayed ? v.dev[v.first] : v.dev[g];
			const Dev &h = v.dev[g];
			const uint64_t end = (uint64_t)(h.row0 + h.rows) * v.B, first = (uint64_t)h.row0 * v.B;
			const uint64_t stop = end < n ? end : n;
			k = stop - r0 < rows ? stop - r0 : rows;
			char *st = (char *)buf[b];
			const size_t at = (r0 - first) * npad;
			if (v.count > 1)
				CUDA_TRY(cudaSetDevice(x.id));
			if (relayed) {
#ifdef APSP_NCCL
				// panels as relay_down() sends them (in the same count)
				const uint64_t rr = relay_rows(npad, paths);
				k = stop - r0 < rr ? stop - r0 : rr;
				char *rl = (char *)x.relay[b];
				NCCL_TRY(ncclGroupStart());
				NCCL_TRY(ncclRecv(rl, k * npad * 4, ncclUint8, g, x.comm, x.s));
				if (paths)
					NCCL_TRY(ncclRecv(rl + k * npad * 4, k * npad * 4, ncclUint8, g, x.comm, x.s));
				NCCL_TRY(ncclGroupEnd());
				CUDA_TRY(cudaMemcpy2DAsync(st, row, rl, npad * 4, row, k, cudaMemcpyDeviceToHost,
				                           x.s));
				if (paths)
					CUDA_TRY(cudaMemcpy2DAsync(st + k * row, row, rl + k * npad * 4, npad * 4, row,
					                           k, cudaMemcpyDeviceToHost, x.s));
#endif
			} else if (ro) { // the caller's rows, renumbered, gathered on the device
				char *tmp = (char *)ro->tmp[b];
				give_rows<<<GATHER_GRID, 256, 0, x.s>>>((const uint32_t *)x.d, x.p, (int)npad, n,
				                                        r0, k, ro->order, ro->pos, (uint32_t *)tmp,
				                                        paths ? (int32_t *)(tmp + k * row) : nullptr);
				CUDA_TRY(cudaGetLastError());
				CUDA_TRY(cudaMemcpyAsync(st, tmp, k * row * (paths ? 2 : 1), cudaMemcpyDeviceToHost,
				                         x.s));
			} else {
				CUDA_TRY(cudaMemcpy2DAsync(st, row, (const char *)x.d + at * 4, npad * 4, row, k,
				                           cudaMemcpyDeviceToHost, x.s));
				if (paths)
					CUDA_TRY(cudaMemcpy2DAsync(st + k * row, row, x.p + at, npad * 4, row, k,
					                           cudaMemcpyDeviceToHost, x.s));
			}
			CUDA_TRY(cudaEventRecord(x.done[b], x.s));
			guard[b] = x.done[b];
		}
		if (prevk) { // the previous panel to the sink meanwhile
			CUDA_TRY(cudaEventSynchronize(guard[b ^ 1]));
			char *prev = (char *)buf[b ^ 1];
			if (sink(ctx, prev0, prevk, prev, paths ? (int32_t *)(prev + prevk * row) : nullptr))
				return fail(e, "the result could not be taken (rows %llu..%llu)",
				            (unsigned long long)prev0, (unsigned long long)(prev0 + prevk - 1));
		}
		prev0 = r0, prevk = k;
		r0 += k;
	}
	for (int h = v.first; h < v.last; h++) {
		CUDA_TRY(cudaSetDevice(v.dev[h].id));
		CUDA_TRY(cudaStreamSynchronize(v.dev[h].s));
	}
	return 0;
}

// fwg_solve()'s sink: panels into the caller's n x n matrices.
struct Into {
	void *dist;
	int32_t *pred;
	uint64_t n;
};

int copy_into(void *ctx, uint64_t r0, uint64_t rows, void *dist, int32_t *pred)
{
	Into *m = (Into *)ctx;
	const size_t row = m->n * 4;
#pragma omp parallel for schedule(static)
	for (int64_t i = 0; i < (int64_t)rows; i++) {
		memcpy((char *)m->dist + (r0 + i) * row, (const char *)dist + i * row, row);
		if (pred)
			memcpy(m->pred + (r0 + i) * m->n, pred + i * m->n, row);
	}
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
		const size_t count = h.count(v.B, v.npad) * 4, at = (size_t)h.row0 * v.B * v.npad * 4;
		for (int g = v.first; g < v.last; g++) {
			Dev &x = v.dev[g];
			NCCL_TRY(ncclBroadcast(&x == &h ? h.d : (char *)full[g] + at, (char *)full[g] + at,
			                       count, ncclUint8, src, x.comm, x.s));
		}
	}
	NCCL_TRY(ncclGroupEnd());
	return 0;
#else
	return fail(e, "several GPUs need a build with NCCL");
#endif
}

// The lists of edges into each vertex (derived predecessors) on every
// device; *ok = 0 where memory is short for them anywhere.  elem: bytes of a
// distance the derivation holds per row in shared memory; room: device
// memory to leave for the run.
template <typename T>
int list_in_edges_all(Err e, Devs &v, int n, T inf, size_t elem, bool room16, int *ok)
{
	*ok = 0;
	const size_t full_bytes = (size_t)v.npad * v.npad * sizeof(T);
	void *full[MAX_GPUS] = {};
	bool short_of[MAX_GPUS] = {}, none = false;
	int rc = 0;
	if (v.count > 1) { // the whole matrix on each device for a while
		for (int g = v.first; g < v.last; g++) {
			CUDA_TRY(cudaSetDevice(v.dev[g].id));
			if (cudaMalloc(&full[g], full_bytes) != cudaSuccess) {
				cudaGetLastError();
				short_of[g] = true;
			}
		}
		if (any_of(e, v, short_of, &none))
			rc = -1;
		else if (!none && gather_rows(e, v, full))
			rc = -1;
	}
	for (int g = v.first; g < v.last && rc == 0 && !none; g++) {
		Dev &x = v.dev[g];
		CUDA_TRY(cudaSetDevice(x.id));
		const T *w = v.count > 1 ? (const T *)full[g] : (const T *)x.d;
		int one = 0;
		rc = list_in_edges<T>(e, w, n, v.npad, inf, elem, room16 ? x.count(v.B, v.npad) * 2 : 0,
		                      x.s, x.id, &x.ie, &one);
		short_of[g] = !one;
	}
	for (int g = v.first; g < v.last; g++)
		if (full[g]) {
			cudaSetDevice(v.dev[g].id);
			cudaFree(full[g]);
		}
	if (rc == 0 && !none && any_of(e, v, short_of, &none))
		rc = -1;
	if (rc < 0)
		return rc;
	*ok = !none;
	return 0;
}

} // namespace

extern "C" int fwg_device_count(char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
	int count = 0;
	cudaError_t rc = cudaGetDeviceCount(&count);
	if (rc != cudaSuccess)
		return fail(e, "no usable CUDA driver or device: %s", cudaGetErrorString(rc));
	return count;
}

// The staging buffers, once.  Pinning costs about 0.4 ms a MiB: no more
// than a small run needs.  Portable: every device of the run copies through
// them.
static int alloc_staging(Err e, uint64_t staging_bytes)
{
	if (staging.buf[0])
		return 0;
	const size_t cap = staging_bytes >= STAGING_LARGE_FROM ? STAGING_BYTES_LARGE : STAGING_BYTES;
	size_t bytes = staging_bytes && staging_bytes < cap ? staging_bytes : cap;
	for (int i = 0; i < 2; i++)
		CUDA_TRY(cudaHostAlloc(&staging.buf[i], bytes, cudaHostAllocPortable));
	staging.bytes = bytes;
	return 0;
}

extern "C" int fwg_init(int device, int gpus, uint64_t staging_bytes, char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
	if (gpus < 1)
		gpus = 1;
	const int count = fwg_device_count(errbuf, errlen);
	if (count < 0)
		return -1;
	if (count == 0)
		return fail(e, "no CUDA device found");
	if (device < 0 || device + gpus > count)
		return fail(e, "device%s %d%s%.0d do%s not exist (%d device%s found)",
		            gpus > 1 ? "s" : "", device, gpus > 1 ? " to " : "",
		            gpus > 1 ? device + gpus - 1 : 0, gpus > 1 ? "" : "es", count,
		            count == 1 ? "" : "s");
	if (gpus > MAX_GPUS)
		return fail(e, "at most %d GPUs", MAX_GPUS);
#ifndef APSP_NCCL
	if (gpus > 1)
		return fail(e, "%d GPUs asked for: this build has no NCCL, so it uses one GPU "
		               "(build with NCCL, see README)", gpus);
#endif
	// The contexts are made side by side: each takes a few hundred ms.
	std::vector<std::thread> th;
	cudaError_t made[MAX_GPUS] = {};
	for (int g = 0; g < gpus; g++)
		th.emplace_back([g, device, &made] {
			made[g] = cudaSetDevice(device + g);
			if (made[g] == cudaSuccess)
				made[g] = cudaFree(0); // creates the context
		});
	for (auto &t : th)
		t.join();
	for (int g = 0; g < gpus; g++)
		if (made[g] != cudaSuccess)
			return fail(e, "device %d: %s", device + g, cudaGetErrorString(made[g]));
	CUDA_TRY(cudaSetDevice(device));
#ifdef APSP_NCCL
	if (gpus > 1 && (group.first != device || group.count != gpus)) {
		for (int g = 0; g < group.count; g++)
			ncclCommDestroy(group.comm[g]);
		group.count = 0;
		int list[MAX_GPUS];
		for (int g = 0; g < gpus; g++)
			list[g] = device + g;
		NCCL_TRY(ncclCommInitAll(group.comm, gpus, list));
		group.first = device;
		group.count = gpus;
		// NCCL connects its devices at the first collective (40 ms on two
		// H200s): do that here, while the caller reads its input.
		void *one[MAX_GPUS] = {};
		for (int g = 0; g < gpus; g++) {
			CUDA_TRY(cudaSetDevice(device + g));
			CUDA_TRY(cudaMalloc(&one[g], 4));
		}
		NCCL_TRY(ncclGroupStart());
		for (int g = 0; g < gpus; g++)
			NCCL_TRY(ncclBroadcast(one[g], one[g], 1, ncclInt32, 0, group.comm[g], 0));
		NCCL_TRY(ncclGroupEnd());
		for (int g = 0; g < gpus; g++) {
			CUDA_TRY(cudaSetDevice(device + g));
			CUDA_TRY(cudaDeviceSynchronize());
			cudaFree(one[g]);
		}
		CUDA_TRY(cudaSetDevice(device));
	}
#endif
	return alloc_staging(e, staging_bytes);
}

extern "C" int fwg_unique_id(void *id, size_t len, char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
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

extern "C" int fwg_init_rank(int device, int rank, int ranks, const void *id,
                             uint64_t staging_bytes, char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
#ifdef APSP_NCCL
	const int count = fwg_device_count(errbuf, errlen);
	if (count < 0)
		return -1;
	if (device < 0 || device >= count)
		return fail(e, "process %d of %d: device %d does not exist (%d device%s found)", rank,
		            ranks, device, count, count == 1 ? "" : "s");
	if (ranks > MAX_GPUS)
		return fail(e, "at most %d processes", MAX_GPUS);
	CUDA_TRY(cudaSetDevice(device));
	CUDA_TRY(cudaFree(0)); // creates the context
	ncclUniqueId u;
	memcpy(&u, id, sizeof u);
	NCCL_TRY(ncclCommInitRank(&group.comm[0], ranks, u, rank));
	group.first = device;
	group.count = 1;
	group.rank = rank;
	group.ranks = ranks;
	// NCCL connects at the first collective: here, while process 0 reads.
	int *one = nullptr;
	CUDA_TRY(cudaMalloc(&one, 4));
	NCCL_TRY(ncclAllReduce(one, one, 1, ncclInt32, ncclSum, group.comm[0], 0));
	CUDA_TRY(cudaDeviceSynchronize());
	cudaFree(one);
	return alloc_staging(e, staging_bytes);
#else
	return fail(e, "several processes need a build with NCCL");
#endif
}

// Whether int32 distances are tried in 16-bit lanes.  By default not for
// n <= 2048: at n = 1000 the 16-bit run took 1.07 ms against 0.66 for 32
// bits (the conversions, the check and their allocations); at 2000 they were
// equal, at 3000 16-bit lanes were 15% faster (H100, bench/gpu.md).
static bool use_lanes16(uint64_t n, int lanes16)
{
	return lanes16 == FWG_LANES16_ALWAYS || (lanes16 == FWG_LANES16_AUTO && n > 2048);
}

// Measured on the H100 (bench/gpu.md, kernel times at n = 1000 .. 20000,
// B = 32, 64, 128): per round, B = 64 pays less for phases 1 and 2 than
// B = 128, which wins only where phase 3 dominates and its larger tiles
// reuse more: 16-bit lanes above n = 16000 (20000: 324 against 334 ms), int32
// paths above about 11000 (12000: 165 against 169; 8000: 60 against 55) and
// float32 paths above 16000 (a tie there).  32-bit distances, int32 and
// float32, were fastest at B = 64 at every n from 1000 to 20000; int32 paths
// at B = 32 up to n = 2048 (2000: 2.38 against 2.56 ms).
//
// A run that skips blocks (fwg_opts.skip) never takes 128: coarser blocks
// skip less and cost more per round.  Grids, H100: n = 65536, 16-bit lanes,
// 231 ms at B = 64 against 292 at 32 (32-bit) and 278 at 128; with paths
// 502 at 64, 540 at 32, 652 at 128; n = 16384 with paths 23.4 ms at 64,
// 23.8 at 32, 51.5 at 128 (bench/sparse-gpu.md).
extern "C" int fwg_choose_block(uint64_t n, int type, int paths, int lanes16, int skip)
{
	const bool is_int = type == ST_INT32;
	if (skip)
		return paths && is_int && n <= 2048 && !use_lanes16(n, lanes16) ? 32 : 64;
	if (is_int && use_lanes16(n, lanes16)) // paths derived from 16-bit distances too
		return n <= 16000 ? 64 : 128;
	if (paths && !is_int && n > 2048) // derived from distances (unless a weight is negative)
		return 64;
	if (paths)
		return is_int ? (n <= 2048 ? 32 : n <= 11000 ? 64 : 128) : (n <= 16000 ? 64 : 128);
	return 64;
}

// Block rows of device g of gpus: as even a share of nb as can be.
static void band(uint64_t nb, int gpus, int g, int *row0, int *rows)
{
	*row0 = (int)(nb * g / gpus);
	*rows = (int)(nb * (g + 1) / gpus) - *row0;
}

extern "C" uint64_t fwg_memory_needed(uint64_t n, int block, int paths, int gpus)
{
	if (block == 0)
		block = 128; /* the most that any choice pads and stages */
	if (gpus < 1)
		gpus = 1;
	const uint64_t npad = (n + block - 1) / block * block, nb = npad / block;
	const uint64_t rows = (nb + gpus - 1) / gpus * block; // the largest band
	return rows * npad * 4 * (paths ? 2 : 1) + (2 + (gpus > 1 && paths)) * (uint64_t)block * npad * 4;
}

extern "C" int fwg_solve(const struct fwg_opts *o, uint64_t n, const void *graph, void *dist,
                         int32_t *pred, struct fwg_timing *t, char *errbuf, size_t errlen)
{
	Into into{dist, pred, n};
	return fwg_solve_panels(o, n, graph, copy_into, &into, t, errbuf, errlen);
}

extern "C" int fwg_solve_panels(const struct fwg_opts *o, uint64_t n, const void *graph,
                                fwg_sink *sink, void *ctx, struct fwg_timing *t, char *errbuf,
                                size_t errlen)
{
	Err e{errbuf, errlen};
	memset(t, 0, sizeof *t);
	const int B = o->block ? o->block : fwg_choose_block(n, o->type, o->paths, o->lanes16, o->skip);
	t->block = B;
	t->gpus = 1;
	if (B != 16 && B != 32 && B != 64 && B != 128)
		return fail(e, "blocking factor %d not supported (16, 32, 64 or 128)", B);
	if (n == 0)
		return 0;
	const uint64_t npad = (n + B - 1) / B * B;
	if (npad > (uint64_t)INT32_MAX / 2)
		return fail(e, "%llu vertices is more than this engine handles", (unsigned long long)n);
	const bool is_int = o->type == ST_INT32;
	const bool paths = o->paths != 0;
	const uint64_t nb = npad / B;

	// Several GPUs for dense runs only, each with a block row at least.
	const bool ranks = o->ranks > 1;
	int gpus = ranks ? o->ranks : o->gpus > 1 && !o->order && !o->skip ? o->gpus : 1;
	if (ranks) {
		if (o->order || o->skip)
			return fail(e, "a sparse run (skipped blocks, an order) takes one process");
		if ((uint64_t)gpus > nb)
			return fail(e, "n = %llu has %llu block rows of %d: too few for %d processes",
			            (unsigned long long)n, (unsigned long long)nb, B, gpus);
		if (group.ranks != o->ranks || group.rank != o->rank)
			return fail(e, "process %d of %d: fwg_init_rank() first", o->rank, o->ranks);
		if (relay_rows(npad, paths) == 0)
			return fail(e, "n = %llu is too large for several processes", (unsigned long long)n);
		if ((o->rank == 0) != (graph != nullptr))
			return fail(e, "process %d of %d: the graph belongs to process 0 alone", o->rank,
			            o->ranks);
	}
	if ((uint64_t)gpus > nb)
		gpus = (int)nb;
	if (gpus > MAX_GPUS)
		return fail(e, "at most %d GPUs", MAX_GPUS);
	if (!ranks && gpus > 1 && (group.first != o->device || group.count != gpus)
	    && fwg_init(o->device, gpus, 0, errbuf, errlen) < 0)
		return -1;
	t->gpus = gpus;
	Devs v;
	v.count = gpus;
	v.ranks = ranks;
	v.first = ranks ? o->rank : 0;
	v.last = ranks ? o->rank + 1 : gpus;
	v.B = B;
	v.npad = (int)npad;
	for (int g = 0; g < gpus; g++)
		band(nb, gpus, g, &v.dev[g].row0, &v.dev[g].rows);

	CUDA_TRY(cudaSetDevice(o->device));
	cudaDeviceProp prop;
	CUDA_TRY(cudaGetDeviceProperties(&prop, o->device));
	if (ranks)
		snprintf(t->device_name, sizeof t->device_name, "%d processes x %.100s", gpus, prop.name);
	else if (gpus > 1)
		snprintf(t->device_name, sizeof t->device_name, "%d x %.100s", gpus, prop.name);
	else
		snprintf(t->device_name, sizeof t->device_name, "%.*s", (int)sizeof t->device_name - 1,
		         prop.name);
	const size_t pbytes = (size_t)B * npad * 4;
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		x.id = o->device + g - v.first;
#ifdef APSP_NCCL
		if (gpus > 1)
			x.comm = group.comm[g - v.first];
#endif
		size_t free_b = 0, total_b = 0;
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
		const size_t mbytes = x.count(B, npad) * 4;
		uint64_t need = mbytes * (paths ? 2 : 1) + 2 * pbytes + (gpus > 1 && paths ? pbytes : 0);
		if (ranks && o->rank == 0)
			need += 2 * RELAY_BYTES;
		if (o->order) // renumbering: the order both ways, two staging-sized buffers
			need += 8 * n + 2 * staging.bytes;
		if (o->skip) // the map of live blocks and a round's lists
			need += nb * nb + 8 * nb + 64;
		if (need > free_b) {
			if (gpus > 1)
				return fail(e, "n = %llu on %d GPUs needs %.1f MiB of memory on GPU %d%s (%s); "
				               "%.1f MiB of %.1f MiB are free",
				            (unsigned long long)n, gpus, need / 1048576.0, x.id,
				            ranks ? " of a process" : "",
				            paths ? "distances and predecessors" : "distances",
				            free_b / 1048576.0, total_b / 1048576.0);
			return fail(e, "n = %llu needs %.1f MiB of device memory (%s); %.1f MiB of %.1f MiB are free",
			            (unsigned long long)n, need / 1048576.0,
			            paths ? "distances and predecessors" : "distances",
			            free_b / 1048576.0, total_b / 1048576.0);
		}
		CUDA_TRY(cudaStreamCreateWithFlags(&x.s, cudaStreamNonBlocking));
		for (auto &ev : x.ev)
			CUDA_TRY(cudaEventCreate(&ev));
		for (auto &ev : x.done)
			CUDA_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
		CUDA_TRY(cudaMalloc(&x.d, mbytes));
		if (paths)
			CUDA_TRY(cudaMalloc(&x.p, mbytes));
		if (gpus > 1 && paths)
			CUDA_TRY(cudaMalloc(&x.prow, pbytes));
		CUDA_TRY(cudaMalloc(&x.colT, pbytes));
		CUDA_TRY(cudaMalloc(&x.rowP, pbytes));
		CUDA_TRY(cudaMalloc(&x.scratch, 4 * sizeof *x.scratch));
		if (ranks && o->rank == 0)
			for (auto &r : x.relay)
				CUDA_TRY(cudaMalloc(&r, RELAY_BYTES));
	}
	Dev &d0 = v.dev[v.first];
	CUDA_TRY(cudaSetDevice(d0.id));

	Reorder reorder, *ro = nullptr;
	if (o->order) {
		ro = &reorder;
		ro->host = o->order;
		std::vector<int32_t> pos(n);
		for (uint64_t k = 0; k < n; k++)
			pos[o->order[k]] = (int32_t)k;
		CUDA_TRY(cudaMalloc(&ro->order, n * 4));
		CUDA_TRY(cudaMalloc(&ro->pos, n * 4));
		CUDA_TRY(cudaMemcpy(ro->order, o->order, n * 4, cudaMemcpyHostToDevice));
		CUDA_TRY(cudaMemcpy(ro->pos, pos.data(), n * 4, cudaMemcpyHostToDevice));
		for (auto &x : ro->tmp)
			CUDA_TRY(cudaMalloc(&x, staging.bytes));
	}
	Sparse *sp = nullptr;
	if (o->skip && nb > 1) {
		sp = &d0.sparse;
		CUDA_TRY(cudaMalloc(&sp->live, nb * nb));
		CUDA_TRY(cudaMalloc(&sp->lists, (2 + 2 * nb) * sizeof(int)));
		CUDA_TRY(cudaMalloc(&sp->updates, sizeof *sp->updates));
		sp->sms = prop.multiProcessorCount;
	}

	cudaEvent_t guard[2] = {nullptr, nullptr};
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(cudaEventRecord(v.dev[g].ev[0], v.dev[g].s));
		if (graph && upload_rows(e, graph, v.dev[g], n, npad, B, guard, ro))
			return -1;
	}
#ifdef APSP_NCCL
	for (int g = 1; g < gpus && ranks; g++) // other processes' bands, through process 0
		if ((o->rank == 0 || g == o->rank) && relay_up(e, v, graph, g, n, guard))
			return -1;
#endif
	// int32: the sum of each vertex's largest weight bounds every simple
	// path; below INF_PACKED, tracked paths can take the packed form.  And
	// where no edge weighs 0, every derived chain ends at its source.  Both
	// matter only with paths.
	bool packed = false;
	if (is_int && paths) {
		for (int g = v.first; g < v.last; g++) {
			Dev &x = v.dev[g];
			const int first = x.row0 * B, end = (x.row0 + x.rows) * B < (int)n ? (x.row0 + x.rows) * B : (int)n;
			CUDA_TRY(cudaSetDevice(x.id));
			CUDA_TRY(cudaMemsetAsync(x.scratch, 0, 2 * sizeof *x.scratch, x.s));
			const int rows = end - first;
			if (rows > 0) // scratch[1]: the zero flag, as an int in a 64-bit word
				int_facts<<<rows < 16384 ? (unsigned)rows : 16384u, 256, 0, x.s>>>(
				        x.base<int>(x.d, B, (int)npad), (int)n, (int)npad, &x.scratch[0],
				        (int *)&x.scratch[1], first, end);
			CUDA_TRY(cudaGetLastError());
		}
		unsigned long long facts[2];
		if (combine(e, v, 2, true, facts))
			return -1;
		t->zero_weight = facts[1] != 0;
		packed = facts[0] < (unsigned long long)INF_PACKED;
	}
	t->packed = packed;
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		const size_t count = x.count(B, npad);
		const unsigned grid = (unsigned)((count + 255) / 256);
		CUDA_TRY(cudaSetDevice(x.id));
		if (is_int)
			prepare<int><<<grid, 256, 0, x.s>>>((int *)x.d, x.p, (int)n, (int)npad, ST_INF_I32,
			                                    packed ? INF_PACKED : ST_INF_I32, x.row0 * B,
			                                    x.rows * B);
		else
			prepare<float><<<grid, 256, 0, x.s>>>((float *)x.d, x.p, (int)n, (int)npad,
			                                      __builtin_inff(), __builtin_inff(), x.row0 * B,
			                                      x.rows * B);
		CUDA_TRY(cudaGetLastError());
	}
	// The kernels' time runs from when every device is ready.
	if (gpus > 1 && combine(e, v, 0, false, nullptr))
		return -1;
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(cudaEventRecord(v.dev[g].ev[1], v.dev[g].s));
	}
	CUDA_TRY(cudaSetDevice(d0.id));

	// A sparse run (one GPU) starts from the blocks that hold a finite entry
	// (again before a 32-bit run that follows a rejected 16-bit one).
	auto sparse_start = [&]() -> int {
		if (!sp)
			return 0;
		CUDA_TRY(cudaMemsetAsync(sp->updates, 0, sizeof *sp->updates, d0.s));
		const dim3 g((unsigned)nb, (unsigned)nb);
		if (is_int)
			live_init<int><<<g, 256, 0, d0.s>>>((const int *)d0.d, (int)npad, B,
			                                    packed ? INF_PACKED : ST_INF_I32, sp->live);
		else
			live_init<float><<<g, 256, 0, d0.s>>>((const float *)d0.d, (int)npad, B,
			                                      __builtin_inff(), sp->live);
		CUDA_TRY(cudaGetLastError());
		return 0;
	};
	int done = 0;
	int rc = sparse_start();
	// int32 paths where 16-bit lanes are tried: distances in them, then
	// predecessors derived from the distances and the edges into each vertex.
	const int inf_dev = packed ? INF_PACKED : ST_INF_I32;
	const int lanes16 = paths && o->derive == FWG_DERIVE_ALWAYS ? FWG_LANES16_ALWAYS : o->lanes16;
	int derive16 = 0, derive32 = 0;
	if (rc == 0 && is_int && paths && o->derive != FWG_DERIVE_NEVER && use_lanes16(n, lanes16)
	    && (B == 64 || B == 128))
		rc = list_in_edges_all<int>(e, v, (int)n, inf_dev, 2, true, &derive16);
	if (rc == 0 && !is_int && paths && o->derive != FWG_DERIVE_NEVER
	    && (o->derive == FWG_DERIVE_ALWAYS || n > 2048)) {
		// float32: distances on the plain kernel, then predecessors derived,
		// where no weight is negative
		unsigned long long any = 0;
		for (int g = v.first; g < v.last; g++) {
			Dev &x = v.dev[g];
			CUDA_TRY(cudaSetDevice(x.id));
			CUDA_TRY(cudaMemsetAsync(x.scratch, 0, sizeof *x.scratch, x.s));
			any_negative<<<1024, 256, 0, x.s>>>((const float *)x.d, x.count(B, npad),
			                                    (int *)x.scratch);
			CUDA_TRY(cudaGetLastError());
		}
		if (combine(e, v, 1, false, &any))
			return -1;
		if (!any)
			rc = list_in_edges_all<float>(e, v, (int)n, __builtin_inff(), 4, false, &derive32);
	}
	if (rc == 0 && is_int && (!paths || derive16) && use_lanes16(n, lanes16))
		rc = try16(e, v, (int)n, inf_dev, sp, derive16, &done);
	t->lanes16 = done;
	t->derived = (derive16 && done == 1) || derive32;
	t->chains_sure = t->derived && is_int && !t->zero_weight;
	if (rc == 0 && done == -1)
		rc = sparse_start();
	if (rc == 0 && done != 1)
		rc = is_int ? dispatch<int>(e, v, paths, packed, sp)
		            : dispatch<float>(e, v, paths && !derive32, packed, sp);
	for (int g = v.first; g < v.last && rc == 0 && derive32; g++) {
		Dev &x = v.dev[g];
		CUDA_TRY(cudaSetDevice(x.id));
		rc = derive<float>(e, v, x, x.base<float>(x.d, B, (int)npad), (int)n);
	}
	if (rc)
		return rc;
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		const size_t count = x.count(B, npad);
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaEventRecord(x.ev[2], x.s));
		if (packed)
			finish<int><<<(unsigned)((count + 255) / 256), 256, 0, x.s>>>((int *)x.d, count,
			                                                             ST_INF_I32, INF_PACKED);
		CUDA_TRY(cudaGetLastError());
		CUDA_TRY(cudaEventRecord(x.ev[3], x.s));
	}
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(cudaEventSynchronize(v.dev[g].ev[3]));
	}
	CUDA_TRY(cudaSetDevice(d0.id));
	auto t_down = std::chrono::steady_clock::now();
	t->tiles = nb > 1 ? nb * (2 * (nb - 1) + (nb - 1) * (nb - 1)) : 0;
	if (sp) {
		unsigned long long updates = 0;
		CUDA_TRY(cudaMemcpy(&updates, sp->updates, sizeof updates, cudaMemcpyDeviceToHost));
		t->tiles_skipped = t->tiles - updates;
	}
#ifdef APSP_NCCL
	if (ranks && o->rank != 0) {
		if (relay_down(e, v, n, paths))
			return -1;
	} else
#endif
	if (download_panels(e, v, n, paths, ro, sink, ctx))
		return -1;
	t->download_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_down).count();
	for (int g = v.first; g < v.last; g++) {
		float up, ker;
		CUDA_TRY(cudaEventElapsedTime(&up, v.dev[g].ev[0], v.dev[g].ev[1]));
		CUDA_TRY(cudaEventElapsedTime(&ker, v.dev[g].ev[1], v.dev[g].ev[2]));
		t->upload_ms = up > t->upload_ms ? up : t->upload_ms;
		t->kernel_ms = ker > t->kernel_ms ? ker : t->kernel_ms;
	}
	CUDA_TRY(cudaSetDevice(d0.id));
	return 0;
}
