// fw_transfer.cuh - matrices between the caller and the devices (included by
// fw_gpu.cu): uploads through the staging buffers (fw_devs.cuh), and the row
// panels handed to the caller's sink; rows of other processes come through
// the relay (fw_exchange.cuh).
#ifndef APSP_FW_TRANSFER_CUH
#define APSP_FW_TRANSFER_CUH

#include <omp.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "fw_exchange.cuh"
#include "fw_gpu.h"
#include "fw_prepare.cuh"
#include "solve.h"

namespace {

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

// The caller's rows first .. r1 - 1 (stride n, entries of es bytes; host
// holds them from row host_row0 on) into dev (stride npad, from row first
// on), on stream s; done: s's events for the staging buffers.
int upload_to(Err e, const void *host, char *dev, uint64_t first, uint64_t r1, uint64_t n,
              uint64_t npad, size_t es, cudaStream_t s, cudaEvent_t done[2],
              cudaEvent_t guard[2], const Reorder *ro, uint64_t host_row0 = 0)
{
	const size_t row = n * es;
	if (first >= r1)
		return 0;
	uint64_t rows = staging.bytes / row;
	if (rows == 0) { // a row larger than the staging buffer: plain copy
		if (ro)
			return fail(e, "n = %llu is too large to renumber", (unsigned long long)n);
		CUDA_TRY(cudaMemcpy2DAsync(dev, npad * es, (const char *)host + (first - host_row0) * row,
		                           row, row, r1 - first, cudaMemcpyHostToDevice, s));
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
			memcpy(st + i * row, (const char *)host + (from - host_row0) * row, row);
		}
		if (ro) { // in as they are, then their columns renumbered into place
			using W8 = unsigned long long;
			CUDA_TRY(cudaMemcpyAsync(ro->tmp[b], st, k * row, cudaMemcpyHostToDevice, s));
			if (es == 8)
				take_rows<<<GATHER_GRID, 256, 0, s>>>((const W8 *)ro->tmp[b], n, k, (W8 *)dev,
				                                      (int)npad, r0, ro->order);
			else
				take_rows<<<GATHER_GRID, 256, 0, s>>>((const uint32_t *)ro->tmp[b], n, k,
				                                      (uint32_t *)dev, (int)npad, r0, ro->order);
			CUDA_TRY(cudaGetLastError());
		} else {
			CUDA_TRY(cudaMemcpy2DAsync(dev + (r0 - first) * npad * es, npad * es, st, row, row, k,
			                           cudaMemcpyHostToDevice, s));
		}
		CUDA_TRY(cudaEventRecord(done[b], s));
		guard[b] = done[b];
	}
	return 0;
}

// The caller's rows of band x (first_row .. end_row - 1) into x.d (host
// holds rows from host_row0 on).
int upload_rows(Err e, const void *host, Dev &x, uint64_t n, uint64_t npad, int B,
                cudaEvent_t guard[2], const Reorder *ro, uint64_t host_row0 = 0)
{
	CUDA_TRY(cudaSetDevice(x.id));
	return upload_to(e, host, (char *)x.d, x.first_row(B), x.end_row(B, n), n, npad, x.es, x.s,
	                 x.done, guard, ro, host_row0);
}

// The rows of band x of the weight matrix of the graph given by arcs a (with
// ro, in its order), made on the device: no host matrix, no staging.  With
// lanes16 (int32 weights that all fit them), made in 16-bit lanes in x.d16;
// with live (x holds every row), a sparse run's map of live blocks made
// from the arcs too.
int upload_arcs(Err e, const fwg_arcs &a, Dev &x, uint64_t npad, int B, bool is_int,
                const Reorder *ro, bool lanes16 = false, uint8_t *live = nullptr)
{
	CUDA_TRY(cudaSetDevice(x.id));
	const int row0 = (int)x.first_row(B), rows = (int)(x.count(B, npad) / npad);
	if (rows <= 0)
		return 0;
	const size_t bytes = a.count * 4;
	uint32_t *ab[3] = {nullptr, nullptr, nullptr};
	const void *from[3] = {a.from, a.to, a.w};
	int rc = 0;
	for (int q = 0; q < 3 && rc == 0 && a.count; q++)
		if (cudaMalloc(&ab[q], bytes) != cudaSuccess
		    || cudaMemcpyAsync(ab[q], from[q], bytes, cudaMemcpyHostToDevice, x.s) != cudaSuccess)
			rc = fail(e, "the graph's %llu arcs onto the device: %s",
			          (unsigned long long)a.count, cudaGetErrorString(cudaGetLastError()));
	const uint32_t inf = is_int ? (uint32_t)ST_INF_I32 : 0x7f800000u; // +inf
	const int32_t *pos = ro ? ro->pos : nullptr;
	if (rc == 0 && lanes16) {
		no_edges16<<<GATHER_GRID, 256, 0, x.s>>>(x.d16, (int)npad, row0, rows);
		if (a.count)
			put_arcs<true><<<GATHER_GRID, 256, 0, x.s>>>(x.d16, (int)npad, row0, rows, ab[0],
			                                             ab[1], ab[2], a.count, pos);
	} else if (rc == 0) {
		no_edges<<<GATHER_GRID, 256, 0, x.s>>>((uint32_t *)x.d, (int)npad, row0, rows, inf);
		if (a.count)
			put_arcs<false><<<GATHER_GRID, 256, 0, x.s>>>(x.d, (int)npad, row0, rows, ab[0],
			                                              ab[1], ab[2], a.count, pos);
	}
	const int nb = (int)(npad / B);
	if (rc == 0 && live && cudaMemsetAsync(live, 0, (size_t)nb * nb, x.s) != cudaSuccess)
		rc = fail(e, "the map of live blocks: %s", cudaGetErrorString(cudaGetLastError()));
	if (rc == 0 && live)
		live_of_arcs<<<GATHER_GRID, 256, 0, x.s>>>(live, nb, B, ab[0], ab[1], ab[2], a.count, pos,
		                                           inf);
	if (rc == 0) {
		if (cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(x.s) != cudaSuccess)
			rc = fail(e, "the graph's arcs onto the device failed");
	}
	for (auto p : ab)
		cudaFree(p);
	return rc;
}

// A graph read straight onto the devices (fwg_feed.take): each window of
// rows the caller hands over goes to the bands that hold it, copied by the
// devices themselves from page-locked memory (fwg_host_register), else through
// the staging buffers.
struct Taking {
	Err e;
	Devs *v;
	uint64_t n;
	cudaEvent_t guard[2] = {nullptr, nullptr};
	bool failed = false; // a copy failed (e says why)
};

int put_window(Taking &k, uint64_t first, uint64_t count, const void *rows)
{
	Err e = k.e;
	Devs &v = *k.v;
	const size_t row = k.n * v.es;
	cudaPointerAttributes at;
	const bool locked = cudaPointerGetAttributes(&at, rows) == cudaSuccess
	                    && at.type == cudaMemoryTypeHost;
	cudaGetLastError(); // (pageable memory is no error)
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		const uint64_t f = x.first_row(v.B);
		const uint64_t lo = std::max(first, f), hi = std::min(first + count, x.end_row(v.B, k.n));
		if (lo >= hi)
			continue;
		char *to = (char *)x.d + (lo - f) * v.npad * v.es;
		CUDA_TRY(cudaSetDevice(x.id));
		const char *from = (const char *)rows + (lo - first) * row;
		if (locked && v.npad * v.es == row) // (rows the device copies: done before the call returns)
			CUDA_TRY(cudaMemcpyAsync(to, from, row * (hi - lo), cudaMemcpyHostToDevice, x.s));
		else if (locked)
			CUDA_TRY(cudaMemcpy2DAsync(to, (size_t)v.npad * v.es, from, row, row, hi - lo,
			                           cudaMemcpyHostToDevice, x.s));
		else if (upload_to(e, rows, to, lo, hi, k.n, v.npad, v.es, x.s, x.done, k.guard, nullptr,
		                   first))
			return -1;
	}
	for (int g = v.first; g < v.last && locked; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(cudaStreamSynchronize(v.dev[g].s));
	}
	return 0;
}

int put_rows(void *pctx, uint64_t first, uint64_t count, const void *rows)
{
	Taking &k = *(Taking *)pctx;
	if (!k.failed && put_window(k, first, count, rows))
		k.failed = true;
	return k.failed ? -1 : 0;
}

// The rows taken, back to the caller in order (fwg_feed.back) through a
// staging buffer: the run is not the one they were taken for.
int give_back(Err e, Devs &v, uint64_t n, const fwg_feed &f)
{
	const size_t row = n * v.es;
	const uint64_t most = staging.bytes / row;
	if (most == 0)
		return fail(e, "n = %llu is too large to hand back", (unsigned long long)n);
	for (int g = v.first; g < v.last; g++) {
		const Dev &x = v.dev[g];
		const uint64_t first = x.first_row(v.B), end = x.end_row(v.B, n);
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaStreamSynchronize(x.s));
		for (uint64_t r0 = first; r0 < end; r0 += most) {
			const uint64_t k = std::min(most, end - r0);
			CUDA_TRY(cudaMemcpy2D(staging.buf[0], row,
			                      (const char *)x.d + (r0 - first) * v.npad * v.es,
			                      (size_t)v.npad * v.es, row, k, cudaMemcpyDeviceToHost));
			if (f.back(f.ctx, r0, k, staging.buf[0]))
				return fail(e, "the graph could not be handed back");
		}
	}
	return 0;
}

// The facts of the rows taken, over the devices (row_facts), into *f.
template <typename T>
int facts_taken(Err e, Devs &v, uint64_t n, sv_facts *f)
{
	unsigned long long got[MAX_GPUS][4];
	const unsigned long long start[4] = {0, 0, 0, ~0ull};
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		const int first = (int)x.first_row(v.B), end = (int)x.end_row(v.B, n);
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaMemcpyAsync(x.scratch, start, sizeof start, cudaMemcpyHostToDevice, x.s));
		if (end > first)
			row_facts<T><<<std::min(end - first, 16384), 256, 0, x.s>>>(
			        (const T *)x.d, (int)n, v.npad, first, end, x.scratch);
		CUDA_TRY(cudaGetLastError());
		CUDA_TRY(cudaMemcpyAsync(got[g], x.scratch, sizeof got[g], cudaMemcpyDeviceToHost, x.s));
	}
	*f = sv_facts{};
	f->neg_diag = -1;
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(cudaStreamSynchronize(v.dev[g].s));
		f->edges += got[g][0];
		f->pos_bound += (int64_t)got[g][1];
		f->bad |= (got[g][2] & ROW_BAD) != 0;
		f->zero |= (got[g][2] & ROW_ZERO) != 0;
		f->negative |= (got[g][2] & ROW_NEGATIVE) != 0;
		if (got[g][3] != ~0ull && f->neg_diag < 0)
			f->neg_diag = (int64_t)got[g][3];
	}
	return 0;
}

// A graph read straight onto the devices (fwg_feed.take), its diagonal then
// 0 as sv_prepare() leaves it: 0, or 1 where the input failed or the
// verdict was 0 (the rows handed back).
int take_onto(Err e, Devs &v, uint64_t n, bool is_int, const fwg_feed &f)
{
	Taking k{e, &v, n};
	if (f.take(f.ctx, put_rows, &k) < 0) // (copies in flight finished first)
		return k.failed || sync_all(e, v) ? -1 : 1;
	if (sync_all(e, v))
		return -1;
	if ((is_int ? facts_taken<int>(e, v, n, f.facts) : facts_taken<float>(e, v, n, f.facts)))
		return -1;
	if (!f.verdict(f.ctx))
		return give_back(e, v, n, f) ? -1 : 1;
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		const int first = (int)x.first_row(v.B), end = (int)x.end_row(v.B, n);
		CUDA_TRY(cudaSetDevice(x.id));
		if (end > first)
			zero_diagonal<int><<<(unsigned)(end - first + 255) / 256, 256, 0, x.s>>>(
			        (int *)x.d, v.npad, first, end);
		CUDA_TRY(cudaGetLastError());
	}
	return 0;
}

// bytes from device memory to pageable host memory through the staging
// buffers on stream s (done: s's events for them): one is emptied on all
// cores while the other fills.  (The way up is upload_to() with rows of
// npad.)
void copy_cores(char *to, const char *from, size_t bytes)
{
	constexpr size_t PIECE = 1u << 20;
	const int64_t pieces = (int64_t)((bytes + PIECE - 1) / PIECE);
#pragma omp parallel for schedule(static)
	for (int64_t i = 0; i < pieces; i++) {
		const size_t at = (size_t)i * PIECE;
		memcpy(to + at, from + at, bytes - at < PIECE ? bytes - at : PIECE);
	}
}

int stage_down(Err e, char *host, const char *dev, size_t bytes, cudaStream_t s,
               cudaEvent_t done[2], cudaEvent_t guard[2])
{
	int b = 0;
	size_t prev = 0, prevk = 0;
	for (size_t at = 0; at < bytes || prevk; b ^= 1) {
		size_t k = 0;
		if (at < bytes) {
			k = bytes - at < staging.bytes ? bytes - at : staging.bytes;
			if (guard[b]) // its last copy up, perhaps on another stream
				CUDA_TRY(cudaStreamWaitEvent(s, guard[b], 0));
			CUDA_TRY(cudaMemcpyAsync(staging.buf[b], dev + at, k, cudaMemcpyDeviceToHost, s));
			CUDA_TRY(cudaEventRecord(done[b], s));
			guard[b] = done[b];
		}
		if (prevk) {
			CUDA_TRY(cudaEventSynchronize(guard[b ^ 1]));
			copy_cores(host + prev, (const char *)staging.buf[b ^ 1], prevk);
		}
		prev = at, prevk = k;
		at += k;
	}
	return 0;
}

// The way back of stage_down(): bytes of pageable host memory to device
// memory, one staging buffer filled on all cores while the other is in
// flight; the last copies may still run on s on return.
int stage_up(Err e, char *dev, const char *host, size_t bytes, cudaStream_t s,
             cudaEvent_t done[2], cudaEvent_t guard[2])
{
	int b = 0;
	for (size_t at = 0, k = 0; at < bytes; at += k, b ^= 1) {
		k = bytes - at < staging.bytes ? bytes - at : staging.bytes;
		if (guard[b])
			CUDA_TRY(cudaEventSynchronize(guard[b]));
		copy_cores((char *)staging.buf[b], host + at, k);
		CUDA_TRY(cudaMemcpyAsync(dev + at, staging.buf[b], k, cudaMemcpyHostToDevice, s));
		CUDA_TRY(cudaEventRecord(done[b], s));
		guard[b] = done[b];
	}
	return 0;
}

// Rows row0 .. n - 1 of the results in host memory (a run out of core),
// stride npad.
struct HostRows {
	uint64_t row0;
	const char *d;
	const int32_t *p;
};

// Row panels of d (and p) to the sink, in order, from whichever device holds
// them (through the relay from other processes; from host memory past
// hr->row0); panel k + 1 is copied while the sink runs on panel k.  A
// staging buffer holds a panel's distance rows, then its predecessor rows.
// Rows from .. to - 1; cs: the stream to copy on (one device, its own rows;
// nullptr: the device's), e.g. while the device computes on its own.
int download_panels(Err e, Devs &v, uint64_t n, bool paths, const Reorder *ro,
                    const HostRows *hr, fwg_sink *sink, void *ctx, uint64_t from = 0,
                    uint64_t to = UINT64_MAX, cudaStream_t cs = nullptr)
{
	if (to > n)
		to = n;
	const uint64_t npad = v.npad;
	const size_t es = v.es, row = n * es, prow = n * 4; // a row of distances, of predecessors
	const size_t both = row + (paths ? prow : 0);
	uint64_t rows = staging.bytes / both;
	std::vector<char> big;
	void *buf[2] = {staging.buf[0], staging.buf[1]};
	if (rows == 0) { // rows larger than staging: one row at a time, pageable
		if (ro)
			return fail(e, "n = %llu is too large to renumber", (unsigned long long)n);
		rows = 1;
		big.resize(2 * both);
		buf[0] = big.data();
		buf[1] = big.data() + both;
	}
	int b = 0, g = 0;
	cudaEvent_t guard[2] = {nullptr, nullptr};
	uint64_t prev0 = 0, prevk = 0;
	for (uint64_t r0 = from; r0 < to || prevk; b ^= 1) {
		uint64_t k = 0;
		if (r0 < to && hr && r0 >= hr->row0) {
			k = to - r0 < rows ? to - r0 : rows;
			char *st = (char *)buf[b];
			const uint64_t at = r0 - hr->row0;
#pragma omp parallel for schedule(static)
			for (int64_t i = 0; i < (int64_t)k; i++) {
				memcpy(st + i * row, hr->d + (at + i) * npad * es, row);
				if (paths)
					memcpy(st + k * row + i * prow, hr->p + (at + i) * npad, prow);
			}
			guard[b] = nullptr;
		} else if (r0 < to) {
			while (v.dev[g].end_row(v.B, n) <= r0)
				g++;
			const bool relayed = g < v.first || g >= v.last;
			Dev &x = relayed ? v.dev[v.first] : v.dev[g];
			const Dev &h = v.dev[g];
			const uint64_t first = h.first_row(v.B), end = h.end_row(v.B, n);
			const uint64_t stop = end < to ? end : to;
			const cudaStream_t s = cs ? cs : x.s;
			k = stop - r0 < rows ? stop - r0 : rows;
			char *st = (char *)buf[b];
			const size_t at = (r0 - first) * npad;
			if (v.count > 1)
				CUDA_TRY(cudaSetDevice(x.id));
			if (relayed) {
				// panels as relay_down() sends them (in the same count)
				const uint64_t rr = relay_rows(npad, es, paths);
				k = stop - r0 < rr ? stop - r0 : rr;
				char *rl = (char *)x.relay[b];
				if (relay_recv(e, x, g, rl, k * npad * es, k * npad * 4, paths))
					return -1;
				CUDA_TRY(cudaMemcpy2DAsync(st, row, rl, npad * es, row, k, cudaMemcpyDeviceToHost,
				                           x.s));
				if (paths)
					CUDA_TRY(cudaMemcpy2DAsync(st + k * row, prow, rl + k * npad * es, npad * 4,
					                           prow, k, cudaMemcpyDeviceToHost, x.s));
			} else if (ro) { // the caller's rows, renumbered, gathered on the device
				using W8 = unsigned long long;
				char *tmp = (char *)ro->tmp[b];
				int32_t *ptmp = paths ? (int32_t *)(tmp + k * row) : nullptr;
				if (es == 8)
					give_rows<<<GATHER_GRID, 256, 0, s>>>((const W8 *)x.d, x.p, (int)npad, n, r0,
					                                      k, ro->order, ro->pos, (W8 *)tmp, ptmp);
				else
					give_rows<<<GATHER_GRID, 256, 0, s>>>((const uint32_t *)x.d, x.p, (int)npad, n,
					                                      r0, k, ro->order, ro->pos,
					                                      (uint32_t *)tmp, ptmp);
				CUDA_TRY(cudaGetLastError());
				CUDA_TRY(cudaMemcpyAsync(st, tmp, k * (row + (paths ? prow : 0)),
				                         cudaMemcpyDeviceToHost, s));
			} else {
				CUDA_TRY(cudaMemcpy2DAsync(st, row, (const char *)x.d + at * es, npad * es, row, k,
				                           cudaMemcpyDeviceToHost, s));
				if (paths)
					CUDA_TRY(cudaMemcpy2DAsync(st + k * row, prow, x.p + at, npad * 4, prow, k,
					                           cudaMemcpyDeviceToHost, s));
			}
			CUDA_TRY(cudaEventRecord(x.done[b], s));
			guard[b] = x.done[b];
		}
		if (prevk) { // the previous panel to the sink meanwhile
			if (guard[b ^ 1])
				CUDA_TRY(cudaEventSynchronize(guard[b ^ 1]));
			char *prev = (char *)buf[b ^ 1];
			if (sink(ctx, prev0, prevk, prev, paths ? (int32_t *)(prev + prevk * row) : nullptr))
				return fail(e, "the result could not be taken (rows %llu..%llu)",
				            (unsigned long long)prev0, (unsigned long long)(prev0 + prevk - 1));
		}
		prev0 = r0, prevk = k;
		r0 += k;
	}
	if (cs) {
		CUDA_TRY(cudaStreamSynchronize(cs));
		return 0;
	}
	return sync_all(e, v);
}

// fwg_solve()'s sink: panels into the caller's n x n matrices.
struct Into {
	void *dist;
	int32_t *pred;
	uint64_t n;
	size_t es; // bytes of a distance
};

int copy_into(void *ctx, uint64_t r0, uint64_t rows, void *dist, int32_t *pred)
{
	Into *m = (Into *)ctx;
	const size_t row = m->n * m->es;
#pragma omp parallel for schedule(static)
	for (int64_t i = 0; i < (int64_t)rows; i++) {
		memcpy((char *)m->dist + (r0 + i) * row, (const char *)dist + i * row, row);
		if (pred)
			memcpy(m->pred + (r0 + i) * m->n, pred + i * m->n, m->n * 4);
	}
	return 0;
}

} // namespace
#endif
