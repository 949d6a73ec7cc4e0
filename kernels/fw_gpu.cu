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
#include <type_traits>
#include <vector>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

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

template <int B>
int run_rounds16(Err e, short *d, int npad, uint32_t *colT2, short *rowP, cudaStream_t s,
                 const Sparse *sp)
{
	const int nb = npad / B;
	const int t1 = p1_dim<B>() * p1_dim<B>();
	const size_t s1 = (size_t)B * (B + 1) * sizeof(short);
	const size_t s3 = tile16_smem<B>();
	CUDA_TRY(cudaFuncSetAttribute(tile_update16<B, 2>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
	CUDA_TRY(cudaFuncSetAttribute(tile_update16<B, 3>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
	CUDA_TRY(cudaFuncSetAttribute(tile_update16_listed<B>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
	const int t3 = tile16_threads<B>();
	const int g3 = sp ? fill_grid(tile_update16_listed<B>, t3, s3, sp->sms) : 0;
	const uint8_t *live = sp ? sp->live : nullptr;
	const dim3 gp((npad + 31) / 32, (B + 31) / 32), tp(32, 8);
	for (int round = 0; round < nb; round++) {
		phase1<short, B, false><<<1, t1, s1, s>>>(d, nullptr, npad, round);
		if (nb > 1) {
			panels16<B><<<gp, tp, 0, s>>>(d, npad, round, colT2, rowP);
			if (sp)
				round_lists<<<1, 1024, 0, s>>>(sp->live, nb, round, sp->lists, sp->updates);
			tile_update16<B, 2><<<2 * nb, t3, s3, s>>>(d, npad, round, colT2, rowP, live);
			if (sp)
				tile_update16_listed<B><<<g3, t3, s3, s>>>(d, npad, round, colT2, rowP,
				                                           sp->lists, sp->live);
			else
				tile_update16<B, 3><<<dim3(nb, nb), t3, s3, s>>>(d, npad, round, colT2, rowP,
				                                                 nullptr);
		}
		CUDA_TRY(cudaGetLastError());
	}
	return 0;
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

// Predecessors derived from the final distances dist (fw_tiles.cuh).
template <typename D>
int derive(Err e, const D *dist, int n, int npad, const InEdges *ie, int32_t *p, cudaStream_t s)
{
	const size_t sm = (size_t)n * sizeof(D);
	CUDA_TRY(cudaFuncSetAttribute(derive_preds<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                              (int)sm));
	derive_preds<D><<<n < 16384 ? n : 16384, 512, sm, s>>>(dist, npad, n, ie->off, ie->keys, p);
	CUDA_TRY(cudaGetLastError());
	return 0;
}

// Try the 16-bit run.  *done: 1 its result stands (d holds it), -1 it was
// run and rejected, 0 it was not tried.  inf: d's INF.  With ie, a result
// that stands also gets its predecessors, derived into p.
int try16(Err e, int B, int *d, int n, int npad, int inf, void *colT, void *rowP,
          cudaStream_t s, const Sparse *sp, const InEdges *ie, int32_t *p, int *done)
{
	*done = 0;
	if (B != 64 && B != 128)
		return 0;
	const size_t count = (size_t)npad * npad;
	size_t free_b = 0, total_b = 0;
	CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
	if (count * 2 + (64 << 20) > free_b)
		return 0;
	int *dmax = nullptr, h[2];
	short *d16 = nullptr;
	CUDA_TRY(cudaMalloc(&dmax, 2 * sizeof(int)));
	CUDA_TRY(cudaMemsetAsync(dmax, 0, 2 * sizeof(int), s));
	const unsigned grid = (unsigned)((count + 255) / 256);
	max_below<int><<<1024, 256, 0, s>>>(d, count, inf, dmax); // largest weight
	CUDA_TRY(cudaMemcpyAsync(h, dmax, sizeof(int), cudaMemcpyDeviceToHost, s));
	CUDA_TRY(cudaStreamSynchronize(s));
	const int wmax = h[0];
	int rc = 0;
	if (wmax < INF16 / 4) {
		if ((rc = cudaMalloc(&d16, count * 2)) != cudaSuccess) {
			cudaGetLastError(); // no room: the 32-bit run it is
			cudaFree(dmax);
			return 0;
		}
		to16<<<grid, 256, 0, s>>>(d, d16, count);
		rc = B == 64 ? run_rounds16<64>(e, d16, npad, (uint32_t *)colT, (short *)rowP, s, sp)
		             : run_rounds16<128>(e, d16, npad, (uint32_t *)colT, (short *)rowP, s, sp);
		if (rc == 0) {
			max_below<short><<<1024, 256, 0, s>>>(d16, count, INF16, dmax + 1);
			cudaMemcpyAsync(h, dmax, 2 * sizeof(int), cudaMemcpyDeviceToHost, s);
			cudaError_t st = cudaStreamSynchronize(s);
			if (st != cudaSuccess)
				rc = fail(e, "16-bit run: %s", cudaGetErrorString(st));
			else if (h[1] + wmax < INF16) {
				if (ie)
					rc = derive(e, d16, n, npad, ie, p, s);
				from16<<<grid, 256, 0, s>>>(d16, d, count);
				*done = 1;
			} else {
				*done = -1;
			}
		}
	}
	cudaStreamSynchronize(s);
	cudaFree(d16);
	cudaFree(dmax);
	if (rc == 0 && (rc = (int)cudaGetLastError()) != 0)
		rc = fail(e, "16-bit run: %s", cudaGetErrorString((cudaError_t)rc));
	return rc;
}


template <typename T, int B, int R, bool PATHS, bool PACKED>
int run_rounds(Err e, int device, T *d, int32_t *p, int npad, T *colT, T *rowP,
               cudaStream_t s, const Sparse *sp)
{
	const int nb = npad / B;
	const int t1 = p1_dim<B>() * p1_dim<B>();
	const size_t s1 = (size_t)B * (B + 1) * (sizeof(T) + (PATHS ? 4 : 0));
	const int t3 = tile_threads<B, R>();
	const size_t s3 = tile_smem<T, B>();
	if ((int)s1 > smem_limit(device) || (int)s3 > smem_limit(device))
		return fail(e, "blocking factor %d needs %zu bytes of shared memory per block; "
		               "the device allows %d", B, s1 > s3 ? s1 : s3, smem_limit(device));
	CUDA_TRY(cudaFuncSetAttribute(phase1<T, B, PATHS>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s1));
	CUDA_TRY(cudaFuncSetAttribute(tile_update<T, B, R, PATHS, PACKED, 2>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
	CUDA_TRY(cudaFuncSetAttribute(tile_update<T, B, R, PATHS, PACKED, 3>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
	CUDA_TRY(cudaFuncSetAttribute(tile_update_listed<T, B, R, PATHS, PACKED>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
	const int g3 = sp ? fill_grid(tile_update_listed<T, B, R, PATHS, PACKED>, t3, s3, sp->sms) : 0;
	const uint8_t *live = sp ? sp->live : nullptr;
	const dim3 gp((npad + 31) / 32, (B + 31) / 32), tp(32, 8);
	for (int round = 0; round < nb; round++) {
		phase1<T, B, PATHS><<<1, t1, s1, s>>>(d, p, npad, round);
		if (nb > 1) {
			panels<T, B, PACKED><<<gp, tp, 0, s>>>(d, npad, round, colT, rowP);
			if (sp)
				round_lists<<<1, 1024, 0, s>>>(sp->live, nb, round, sp->lists, sp->updates);
			tile_update<T, B, R, PATHS, PACKED, 2><<<2 * nb, t3, s3, s>>>(d, p, npad, round, colT,
			                                                             rowP, live);
			if (sp)
				tile_update_listed<T, B, R, PATHS, PACKED><<<g3, t3, s3, s>>>(
				        d, p, npad, round, colT, rowP, sp->lists, sp->live);
			else
				tile_update<T, B, R, PATHS, PACKED, 3><<<dim3(nb, nb), t3, s3, s>>>(
				        d, p, npad, round, colT, rowP, nullptr);
		}
		CUDA_TRY(cudaGetLastError());
	}
	return 0;
}

template <typename T, int B>
int dispatch_modes(Err e, int device, bool paths, bool packed, T *d, int32_t *p,
                   int npad, T *colT, T *rowP, cudaStream_t s, const Sparse *sp)
{
	// Register tile: 8 x 8 where the block is large enough and the kernel
	// keeps nothing but distances; 4 x 4 when it also tracks k explicitly.
	constexpr int RD = B >= 64 ? 8 : 4;
	if (!paths)
		return run_rounds<T, B, RD, false, false>(e, device, d, p, npad, colT, rowP, s, sp);
	if constexpr (std::is_same<T, int>::value)
		if (packed)
			return run_rounds<T, B, RD, true, true>(e, device, d, p, npad, colT, rowP, s, sp);
	return run_rounds<T, B, 4, true, false>(e, device, d, p, npad, colT, rowP, s, sp);
}

template <typename T>
int dispatch(Err e, int device, int B, bool paths, bool packed, T *d, int32_t *p,
             int npad, T *colT, T *rowP, cudaStream_t s, const Sparse *sp)
{
	switch (B) {
	case 16: return dispatch_modes<T, 16>(e, device, paths, packed, d, p, npad, colT, rowP, s, sp);
	case 32: return dispatch_modes<T, 32>(e, device, paths, packed, d, p, npad, colT, rowP, s, sp);
	case 64: return dispatch_modes<T, 64>(e, device, paths, packed, d, p, npad, colT, rowP, s, sp);
	case 128: return dispatch_modes<T, 128>(e, device, paths, packed, d, p, npad, colT, rowP, s, sp);
	}
	return fail(e, "blocking factor %d not supported (16, 32, 64 or 128)", B);
}

struct DeviceBuffers {
	void *d = nullptr, *colT = nullptr, *rowP = nullptr;
	int32_t *p = nullptr;
	Sparse sparse;
	cudaStream_t s = nullptr;
	cudaEvent_t ev[4] = {};
	~DeviceBuffers()
	{
		cudaFree(sparse.live);
		cudaFree(sparse.lists);
		cudaFree(sparse.updates);
		cudaFree(d);
		cudaFree(p);
		cudaFree(colT);
		cudaFree(rowP);
		for (auto x : ev)
			if (x)
				cudaEventDestroy(x);
		if (s)
			cudaStreamDestroy(s);
	}
};

// Host <-> device copies go through two page-locked staging buffers, so
// the caller's matrices need not be page-locked (pinning hundreds of MB costs
// more than it saves).  Uploads: rows are copied into one buffer on all cores
// while the other is in flight.  Downloads: row panels of the distances (and
// predecessors) come back into one buffer while the caller's sink consumes
// the panel in the other, so compressing the result overlaps the copy.
struct Staging {
	void *buf[2] = {nullptr, nullptr};
	cudaEvent_t done[2] = {nullptr, nullptr};
	size_t bytes = 0;
} staging;

// Two of 32 MiB for matrices up to 4 GiB; larger ones, whose reading takes
// seconds while the context is made, get 128 MiB: a panel then holds 128
// blocks of the stream's default size, eight per thread on 16 cores, where 32
// MiB gave two and left the compressing threads waiting on each other.
constexpr size_t STAGING_BYTES = 32u << 20, STAGING_BYTES_LARGE = 128u << 20;
constexpr uint64_t STAGING_LARGE_FROM = 4ull << 30;

// A run in another vertex order (fwg_opts.order): the order and its inverse
// on the device, and two device buffers of the staging size through which
// rows are renumbered on their way in and out.
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

int upload_rows(Err e, const void *host, void *dev, uint64_t n, uint64_t npad, cudaStream_t s,
                const Reorder *ro)
{
	const size_t row = n * 4;
	uint64_t rows = staging.bytes / row;
	if (rows == 0) { // a row larger than the staging buffer: plain copy
		if (ro)
			return fail(e, "n = %llu is too large to renumber", (unsigned long long)n);
		CUDA_TRY(cudaMemcpy2DAsync(dev, npad * 4, host, row, row, n, cudaMemcpyHostToDevice, s));
		return 0;
	}
	int b = 0;
	for (uint64_t r0 = 0; r0 < n; r0 += rows, b ^= 1) {
		const uint64_t k = n - r0 < rows ? n - r0 : rows;
		char *st = (char *)staging.buf[b];
		CUDA_TRY(cudaEventSynchronize(staging.done[b]));
#pragma omp parallel for schedule(static)
		for (int64_t i = 0; i < (int64_t)k; i++) {
			const uint64_t from = ro ? (uint64_t)ro->host[r0 + i] : r0 + i;
			memcpy(st + i * row, (const char *)host + from * row, row);
		}
		if (ro) { // in as they are, then their columns renumbered into place
			CUDA_TRY(cudaMemcpyAsync(ro->tmp[b], st, k * row, cudaMemcpyHostToDevice, s));
			take_rows<<<GATHER_GRID, 256, 0, s>>>((const uint32_t *)ro->tmp[b], n, k,
			                                      (uint32_t *)dev, (int)npad, r0, ro->order);
			CUDA_TRY(cudaGetLastError());
		} else {
			CUDA_TRY(cudaMemcpy2DAsync((char *)dev + r0 * npad * 4, npad * 4, st, row, row, k,
			                           cudaMemcpyHostToDevice, s));
		}
		CUDA_TRY(cudaEventRecord(staging.done[b], s));
	}
	return 0;
}

// Row panels of d (and p) to the sink, in order; panel k + 1 is copied
// while the sink runs on panel k.  A staging buffer holds a panel's distance
// rows, then its predecessor rows.
int download_panels(Err e, const void *d, const int32_t *p, uint64_t n, uint64_t npad,
                    cudaStream_t s, const Reorder *ro, fwg_sink *sink, void *ctx)
{
	const size_t row = n * 4;
	uint64_t rows = staging.bytes / (row * (p ? 2 : 1));
	std::vector<char> big;
	void *buf[2] = {staging.buf[0], staging.buf[1]};
	if (rows == 0) { // rows larger than staging: one row at a time, pageable
		if (ro)
			return fail(e, "n = %llu is too large to renumber", (unsigned long long)n);
		rows = 1;
		big.resize(2 * row * (p ? 2 : 1));
		buf[0] = big.data();
		buf[1] = big.data() + row * (p ? 2 : 1);
	}
	int b = 0;
	uint64_t prev0 = 0, prevk = 0;
	for (uint64_t r0 = 0; r0 < n || prevk; r0 += rows, b ^= 1) {
		const uint64_t k = r0 < n ? (n - r0 < rows ? n - r0 : rows) : 0;
		char *st = (char *)buf[b];
		if (k && ro) { // the caller's rows, renumbered, gathered on the device
			char *tmp = (char *)ro->tmp[b];
			give_rows<<<GATHER_GRID, 256, 0, s>>>((const uint32_t *)d, p, (int)npad, n, r0, k,
			                                      ro->order, ro->pos, (uint32_t *)tmp,
			                                      p ? (int32_t *)(tmp + k * row) : nullptr);
			CUDA_TRY(cudaGetLastError());
			CUDA_TRY(cudaMemcpyAsync(st, tmp, k * row * (p ? 2 : 1), cudaMemcpyDeviceToHost, s));
			CUDA_TRY(cudaEventRecord(staging.done[b], s));
		} else if (k) {
			CUDA_TRY(cudaMemcpy2DAsync(st, row, (const char *)d + r0 * npad * 4, npad * 4, row, k,
			                           cudaMemcpyDeviceToHost, s));
			if (p)
				CUDA_TRY(cudaMemcpy2DAsync(st + k * row, row, p + r0 * npad, npad * 4, row, k,
				                           cudaMemcpyDeviceToHost, s));
			CUDA_TRY(cudaEventRecord(staging.done[b], s));
		}
		if (prevk) { // the previous panel to the sink meanwhile
			CUDA_TRY(cudaEventSynchronize(staging.done[b ^ 1]));
			char *prev = (char *)buf[b ^ 1];
			if (sink(ctx, prev0, prevk, prev, p ? (int32_t *)(prev + prevk * row) : nullptr))
				return fail(e, "the result could not be taken (rows %llu..%llu)",
				            (unsigned long long)prev0, (unsigned long long)(prev0 + prevk - 1));
		}
		prev0 = r0, prevk = k;
	}
	CUDA_TRY(cudaStreamSynchronize(s));
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

} // namespace

extern "C" int fwg_init(int device, uint64_t staging_bytes, char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
	int count = 0;
	cudaError_t rc = cudaGetDeviceCount(&count);
	if (rc != cudaSuccess)
		return fail(e, "no usable CUDA driver or device: %s", cudaGetErrorString(rc));
	if (count == 0)
		return fail(e, "no CUDA device found");
	if (device < 0 || device >= count)
		return fail(e, "device %d does not exist (%d device%s found)", device, count,
		            count == 1 ? "" : "s");
	CUDA_TRY(cudaSetDevice(device));
	CUDA_TRY(cudaFree(0)); // creates the context
	if (!staging.buf[0]) {
		// Pinning costs about 0.4 ms a MiB: no more than a small run needs.
		const size_t cap = staging_bytes >= STAGING_LARGE_FROM ? STAGING_BYTES_LARGE : STAGING_BYTES;
		size_t bytes = staging_bytes && staging_bytes < cap ? staging_bytes : cap;
		for (int i = 0; i < 2; i++) {
			CUDA_TRY(cudaMallocHost(&staging.buf[i], bytes));
			CUDA_TRY(cudaEventCreateWithFlags(&staging.done[i], cudaEventDisableTiming));
			CUDA_TRY(cudaEventRecord(staging.done[i], 0));
		}
		staging.bytes = bytes;
	}
	return 0;
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

extern "C" uint64_t fwg_memory_needed(uint64_t n, int block, int paths)
{
	if (block == 0)
		block = 128; /* the most that any choice pads and stages */
	uint64_t npad = (n + block - 1) / block * block;
	return npad * npad * 4 * (paths ? 2 : 1) + 2 * (uint64_t)block * npad * 4;
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
	if (B != 16 && B != 32 && B != 64 && B != 128)
		return fail(e, "blocking factor %d not supported (16, 32, 64 or 128)", B);
	if (n == 0)
		return 0;
	const uint64_t npad = (n + B - 1) / B * B;
	if (npad > (uint64_t)INT32_MAX / 2)
		return fail(e, "%llu vertices is more than this engine handles", (unsigned long long)n);
	const bool is_int = o->type == ST_INT32;
	const bool paths = o->paths != 0;

	CUDA_TRY(cudaSetDevice(o->device));
	cudaDeviceProp prop;
	CUDA_TRY(cudaGetDeviceProperties(&prop, o->device));
	snprintf(t->device_name, sizeof t->device_name, "%.*s", (int)sizeof t->device_name - 1, prop.name);
	size_t free_b = 0, total_b = 0;
	CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
	uint64_t need = fwg_memory_needed(n, B, paths);
	if (o->order) // renumbering: the order both ways, two staging-sized buffers
		need += 8 * n + 2 * staging.bytes;
	if (o->skip) // the map of live blocks and a round's lists
		need += (npad / B) * (npad / B) + 8 * (npad / B) + 64;
	if (need > free_b)
		return fail(e, "n = %llu needs %.1f MiB of device memory (%s); %.1f MiB of %.1f MiB are free",
		            (unsigned long long)n, need / 1048576.0,
		            paths ? "distances and predecessors" : "distances",
		            free_b / 1048576.0, total_b / 1048576.0);

	DeviceBuffers db;
	const size_t mbytes = (size_t)npad * npad * 4, pbytes = (size_t)B * npad * 4;
	CUDA_TRY(cudaStreamCreateWithFlags(&db.s, cudaStreamNonBlocking));
	for (auto &x : db.ev)
		CUDA_TRY(cudaEventCreate(&x));
	CUDA_TRY(cudaMalloc(&db.d, mbytes));
	if (paths)
		CUDA_TRY(cudaMalloc(&db.p, mbytes));
	CUDA_TRY(cudaMalloc(&db.colT, pbytes));
	CUDA_TRY(cudaMalloc(&db.rowP, pbytes));

	const uint64_t nb = npad / B;
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
		sp = &db.sparse;
		CUDA_TRY(cudaMalloc(&sp->live, nb * nb));
		CUDA_TRY(cudaMalloc(&sp->lists, (2 + 2 * nb) * sizeof(int)));
		CUDA_TRY(cudaMalloc(&sp->updates, sizeof *sp->updates));
		sp->sms = prop.multiProcessorCount;
	}

	CUDA_TRY(cudaEventRecord(db.ev[0], db.s));
	if (upload_rows(e, graph, db.d, n, npad, db.s, ro))
		return -1;
	// int32: the sum of each vertex's largest weight bounds every simple
	// path; below INF_PACKED, tracked paths can take the packed form.  And
	// where no edge weighs 0, every derived chain ends at its source.  Both
	// matter only with paths.
	bool packed = false;
	if (is_int && paths) {
		struct { unsigned long long bound; int zero; } facts = {0, 0}, *dev = nullptr;
		CUDA_TRY(cudaMalloc(&dev, sizeof facts));
		CUDA_TRY(cudaMemsetAsync(dev, 0, sizeof facts, db.s));
		int_facts<<<n < 16384 ? (unsigned)n : 16384u, 256, 0, db.s>>>((const int *)db.d, (int)n,
		                                                          (int)npad, &dev->bound, &dev->zero);
		CUDA_TRY(cudaGetLastError());
		CUDA_TRY(cudaMemcpyAsync(&facts, dev, sizeof facts, cudaMemcpyDeviceToHost, db.s));
		CUDA_TRY(cudaStreamSynchronize(db.s));
		cudaFree(dev);
		packed = paths && facts.bound < (unsigned long long)INF_PACKED;
		t->zero_weight = facts.zero;
	}
	t->packed = packed;
	const size_t count = (size_t)npad * npad;
	const unsigned grid = (unsigned)((count + 255) / 256);
	if (is_int)
		prepare<int><<<grid, 256, 0, db.s>>>((int *)db.d, db.p, (int)n, (int)npad, ST_INF_I32,
		                                     packed ? INF_PACKED : ST_INF_I32);
	else
		prepare<float><<<grid, 256, 0, db.s>>>((float *)db.d, db.p, (int)n, (int)npad,
		                                       __builtin_inff(), __builtin_inff());
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaEventRecord(db.ev[1], db.s));

	// A sparse run starts from the blocks that hold a finite entry (again
	// before a 32-bit run that follows a rejected 16-bit one).
	auto sparse_start = [&]() -> int {
		if (!sp)
			return 0;
		CUDA_TRY(cudaMemsetAsync(sp->updates, 0, sizeof *sp->updates, db.s));
		const dim3 g((unsigned)nb, (unsigned)nb);
		if (is_int)
			live_init<int><<<g, 256, 0, db.s>>>((const int *)db.d, (int)npad, B,
			                                    packed ? INF_PACKED : ST_INF_I32, sp->live);
		else
			live_init<float><<<g, 256, 0, db.s>>>((const float *)db.d, (int)npad, B,
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
	InEdges in_edges_list;
	int derive16 = 0, derive32 = 0;
	if (rc == 0 && is_int && paths && o->derive != FWG_DERIVE_NEVER && use_lanes16(n, lanes16)
	    && (B == 64 || B == 128))
		rc = list_in_edges<int>(e, (const int *)db.d, (int)n, (int)npad, inf_dev, 2,
		                        (size_t)npad * npad * 2, db.s, o->device, &in_edges_list,
		                        &derive16);
	if (rc == 0 && !is_int && paths && o->derive != FWG_DERIVE_NEVER
	    && (o->derive == FWG_DERIVE_ALWAYS || n > 2048)) {
		// float32: distances on the plain kernel, then predecessors derived,
		// where no weight is negative
		int *neg = nullptr, h = 0;
		CUDA_TRY(cudaMalloc(&neg, sizeof *neg));
		CUDA_TRY(cudaMemsetAsync(neg, 0, sizeof *neg, db.s));
		any_negative<<<1024, 256, 0, db.s>>>((const float *)db.d, count, neg);
		CUDA_TRY(cudaMemcpyAsync(&h, neg, sizeof h, cudaMemcpyDeviceToHost, db.s));
		CUDA_TRY(cudaStreamSynchronize(db.s));
		cudaFree(neg);
		if (!h)
			rc = list_in_edges<float>(e, (const float *)db.d, (int)n, (int)npad, __builtin_inff(),
			                          4, 0, db.s, o->device, &in_edges_list, &derive32);
	}
	if (rc == 0 && is_int && (!paths || derive16) && use_lanes16(n, lanes16))
		rc = try16(e, B, (int *)db.d, (int)n, (int)npad, inf_dev, db.colT, db.rowP, db.s, sp,
		           derive16 ? &in_edges_list : nullptr, db.p, &done);
	t->lanes16 = done;
	t->derived = (derive16 && done == 1) || derive32;
	t->chains_sure = t->derived && is_int && !t->zero_weight;
	if (rc == 0 && done == -1)
		rc = sparse_start();
	if (rc == 0 && done != 1)
		rc = is_int ? dispatch<int>(e, o->device, B, paths, packed, (int *)db.d, db.p,
		                            (int)npad, (int *)db.colT, (int *)db.rowP, db.s, sp)
		            : dispatch<float>(e, o->device, B, paths && !derive32, packed, (float *)db.d,
		                              db.p, (int)npad, (float *)db.colT, (float *)db.rowP, db.s,
		                              sp);
	if (rc == 0 && derive32)
		rc = derive<float>(e, (const float *)db.d, (int)n, (int)npad, &in_edges_list, db.p, db.s);
	if (rc)
		return rc;
	CUDA_TRY(cudaEventRecord(db.ev[2], db.s));
	if (packed)
		finish<int><<<grid, 256, 0, db.s>>>((int *)db.d, count, ST_INF_I32, INF_PACKED);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaEventRecord(db.ev[3], db.s));
	CUDA_TRY(cudaEventSynchronize(db.ev[3]));
	auto t_down = std::chrono::steady_clock::now();
	t->tiles = nb > 1 ? nb * (2 * (nb - 1) + (nb - 1) * (nb - 1)) : 0;
	if (sp) {
		unsigned long long updates = 0;
		CUDA_TRY(cudaMemcpy(&updates, sp->updates, sizeof updates, cudaMemcpyDeviceToHost));
		t->tiles_skipped = t->tiles - updates;
	}
	if (download_panels(e, db.d, paths ? db.p : nullptr, n, npad, db.s, ro, sink, ctx))
		return -1;
	t->download_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_down).count();
	float ms;
	CUDA_TRY(cudaEventElapsedTime(&ms, db.ev[0], db.ev[1]));
	t->upload_ms = ms;
	CUDA_TRY(cudaEventElapsedTime(&ms, db.ev[1], db.ev[2]));
	t->kernel_ms = ms;
	return 0;
}
