// fw_matrix.cu - fwm_solve (fw_matrix.h): the host matrix padded onto the
// device, the rounds of fw_f64.cuh's kernels, the results back.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "fw_base.cuh"
#include "fw_matrix.h"
#include "fw_f64.cuh"

extern "C" {
#include "fw.h"
#include "solve.h"
}

static double times_ms[3];

#define CK(call)                                                                \
	do {                                                                    \
		cudaError_t e_ = (call);                                        \
		if (e_ != cudaSuccess) {                                        \
			fail(Err{err, errlen}, "%s: %s", #call, cudaGetErrorString(e_)); \
			goto out;                                               \
		}                                                               \
	} while (0)

extern "C" int fwm_device_count(char *err, size_t errlen)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
		return 0;
	if (e != cudaSuccess)
		return fail(Err{err, errlen}, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
	return count;
}

extern "C" void fwm_times(double *up_ms, double *kernel_ms, double *down_ms)
{
	*up_ms = times_ms[0], *kernel_ms = times_ms[1], *down_ms = times_ms[2];
}

// One GPU's part of a run: its band of block rows, the pivot block row's
// copy where the band does not hold it, its stream, and an event after its
// round (the next round's pivot row may not overwrite the copy before).
struct gpu {
	int dev;
	int row0, rows;     /* block rows */
	double *d, *pd;     /* the band; the pivot row copy (NULL with one GPU) */
	int32_t *m, *pm;
	cudaStream_t s;
	cudaEvent_t done, ready; /* its round done; (owner) the pivot row sent */
};

template <bool MID, bool BITS>
static cudaError_t kernel_attributes()
{
	cudaError_t e;
	const int up = (int)f64::update_smem<MID, f64::ROWS, BITS>();
	if ((e = cudaFuncSetAttribute(f64::closure<MID>, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                              (int)f64::closure_smem<MID>())) != cudaSuccess ||
	    (e = cudaFuncSetAttribute(f64::update<MID, f64::ROWS, BITS>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize, up)) != cudaSuccess ||
	    (e = cudaFuncSetAttribute(f64::update<MID, f64::COLS, BITS>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize, up)) != cudaSuccess ||
	    (e = cudaFuncSetAttribute(f64::update<MID, f64::BOTH, BITS>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize, up)) != cudaSuccess)
		return e;
	return cudaFuncSetAttribute(f64::update<MID, f64::MAIN, BITS>,
	                            cudaFuncAttributeMaxDynamicSharedMemorySize,
	                            (int)f64::update_smem<MID, f64::MAIN, BITS>());
}

// The state of a checkpoint: the bands' rows, whole, between the devices
// and the host (fwm_state_fn), a block of the file at a time (the
// writer's threads asking together).
struct state {
	gpu *g;
	int ng;
	int64_t npad;
};

static int state_move(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes, int up)
{
	const state *st = (const state *)ctx;
	const uint64_t es = pred ? 4 : 8, rowb = (uint64_t)st->npad * es;
	for (int x = 0; x < st->ng && bytes > 0; x++) {
		const gpu &v = st->g[x];
		const uint64_t b0 = (uint64_t)v.row0 * f64::B * rowb, b1 = b0 + (uint64_t)v.rows * f64::B * rowb;
		if (offset >= b1 || offset + bytes <= b0)
			continue;
		const uint64_t from = offset > b0 ? offset : b0;
		const uint64_t to = offset + bytes < b1 ? offset + bytes : b1;
		char *dev = (char *)(pred ? (void *)v.m : (void *)v.d) + (from - b0);
		char *host = (char *)buf + (from - offset);
		if (cudaSetDevice(v.dev) != cudaSuccess ||
		    cudaMemcpy(up ? (void *)dev : (void *)host, up ? (void *)host : (void *)dev, to - from,
		               up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost) != cudaSuccess)
			return -1;
	}
	return 0;
}

static int state_get(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes)
{
	return state_move(ctx, pred, offset, buf, bytes, 0);
}

static int state_put(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes)
{
	return state_move(ctx, pred, offset, buf, bytes, 1);
}

// The stage checkpoints name (one: the rounds in float64).
static const char STAGE[] = "float64";

// After round K: the state saved where a checkpoint is due.  With
// checkpoints every round is waited for, so that the host's clock, which
// says when one is due, goes with the devices' work (a wait of
// microseconds a round).
static cudaError_t checkpoint_after(gpu *g, int ng, int64_t npad, int K, int paths,
                                    const fwm_checkpoint *ck)
{
	const uint64_t side = (uint64_t)npad, bytes = side * side * (8 + (paths ? 4 : 0));
	if (!ck)
		return cudaSuccess;
	for (int x = 0; x < ng; x++) {
		cudaError_t e = cudaSetDevice(g[x].dev);
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(g[x].s);
		if (e != cudaSuccess)
			return e;
	}
	if (!ck->due(ck->ctx, bytes))
		return cudaSuccess;
	state st = {g, ng, npad};
	ck->save(ck->ctx, STAGE, (uint64_t)K + 1, side / f64::B, side, paths, state_get, &st);
	return cudaGetLastError();
}

// The rounds over the bands of ng GPUs from round K0: the pivot block row's
// GPU closes the pivot block and updates the pivot row, copies the row to
// the others, then every GPU updates its blocks of the pivot column and the
// rest; a checkpoint after any round where one is due.
template <bool MID, bool BITS>
static cudaError_t rounds(gpu *g, int ng, int64_t npad, int K0, const fwm_checkpoint *ck)
{
	const int nb = (int)(npad / f64::B), threads = f64::T * f64::T, ut = f64::UTHREADS;
	const size_t up = f64::update_smem<MID, f64::ROWS, BITS>(), rowd = (size_t)f64::B * npad;
	const size_t um = f64::update_smem<MID, f64::MAIN, BITS>();
	cudaError_t e;
	for (int x = 0; x < ng; x++)
		if ((e = cudaSetDevice(g[x].dev)) != cudaSuccess ||
		    (e = kernel_attributes<MID, BITS>()) != cudaSuccess)
			return e;
	for (int K = K0; K < nb; K++) {
		if (K > K0 && (e = checkpoint_after(g, ng, npad, K - 1, MID, ck)) != cudaSuccess)
			return e;
		int o = 0;
		while (K >= g[o].row0 + g[o].rows)
			o++;
		gpu &w = g[o];
		double *prow = w.d + (int64_t)(K - w.row0) * rowd;
		int32_t *pmrow = MID ? w.m + (int64_t)(K - w.row0) * rowd : NULL;
		cudaSetDevice(w.dev);
		for (int x = 0; x < ng && K > K0; x++)
			if (x != o && (e = cudaStreamWaitEvent(w.s, g[x].done, 0)) != cudaSuccess)
				return e;
		f64::closure<MID><<<1, threads, f64::closure_smem<MID>(), w.s>>>(prow, pmrow, npad, K);
		f64::band b = {w.d, w.m, prow, pmrow, npad, w.row0, w.rows, nb, K};
		if (ng == 1) {
			f64::update<MID, f64::BOTH, BITS><<<2 * nb, ut, up, w.s>>>(b);
			f64::update<MID, f64::MAIN, BITS><<<dim3(nb, w.rows), ut, um, w.s>>>(b);
			if ((e = cudaGetLastError()) != cudaSuccess)
				return e;
			continue;
		}
		f64::update<MID, f64::ROWS, BITS><<<nb, ut, up, w.s>>>(b);
		for (int x = 0; x < ng; x++)
			if (x != o && ((e = cudaMemcpyPeerAsync(g[x].pd, g[x].dev, prow, w.dev,
			                                        rowd * sizeof(double), w.s)) != cudaSuccess ||
			               (MID && (e = cudaMemcpyPeerAsync(g[x].pm, g[x].dev, pmrow, w.dev,
			                                                rowd * sizeof(int32_t), w.s)) != cudaSuccess)))
				return e;
		if ((e = cudaEventRecord(w.ready, w.s)) != cudaSuccess)
			return e;
		for (int x = 0; x < ng; x++) {
			gpu &v = g[x];
			cudaSetDevice(v.dev);
			if (x != o && (e = cudaStreamWaitEvent(v.s, w.ready, 0)) != cudaSuccess)
				return e;
			f64::band c = {v.d, v.m, x == o ? prow : v.pd, x == o ? pmrow : v.pm, npad,
			               v.row0, v.rows, nb, K};
			f64::update<MID, f64::COLS, BITS><<<v.rows, ut, up, v.s>>>(c);
			f64::update<MID, f64::MAIN, BITS><<<dim3(nb, v.rows), ut, um, v.s>>>(c);
			if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaEventRecord(v.done, v.s)) != cudaSuccess)
				return e;
		}
	}
	/* the state after the last round too: a run killed while its results
	 * come down goes on with no round left */
	return K0 < nb ? checkpoint_after(g, ng, npad, nb - 1, MID, ck) : cudaSuccess;
}
// Whether a band of rows block rows (of npad) and a pivot row copy fit in
// the device's free memory; else the message, with the largest n that fits
// on ng such devices.
static int fits(uint64_t n, int64_t npad, int rows, int ng, int paths, char *err, size_t errlen)
{
	size_t free_b = 0, total = 0;
	cudaError_t e = cudaMemGetInfo(&free_b, &total);
	if (e != cudaSuccess)
		return fail(Err{err, errlen}, "cudaMemGetInfo: %s", cudaGetErrorString(e));
	/* APSP_DEVICE_MEMORY: at most this many bytes counted free (tests) */
	const char *cap = getenv("APSP_DEVICE_MEMORY");
	if (cap && strtoull(cap, NULL, 10) > 0 && strtoull(cap, NULL, 10) < free_b)
		free_b = (size_t)strtoull(cap, NULL, 10);
	const double per = 8.0 + (paths ? 4.0 : 0.0), room = (double)free_b * 0.97;
	const double need = per * (double)npad * ((double)rows * f64::B + (ng > 1 ? f64::B : 0));
	if (need <= room)
		return 0;
	uint64_t most = (uint64_t)std::sqrt(room * ng / per) / f64::B * f64::B;
	return fail(Err{err, errlen}, "n = %llu needs about %.1f GiB on each of %d GPU%s, %.1f GiB are "
	             "free: at most n = %llu fits", (unsigned long long)n, need / (1 << 30), ng,
	             ng > 1 ? "s" : "", (double)free_b / (1 << 30), (unsigned long long)most);
}

// Rows between the caller's pageable memory and a device go through two
// page-locked buffers, kept for the process: the device copies one while
// every core copies the other between it and the caller's rows (CUDA's own
// path for pageable memory is one thread, and it takes the page faults of
// a fresh array one by one).
#define STAGE_BYTES ((size_t)64 << 20)
static void *stage[2];

static cudaError_t stage_alloc(void)
{
	for (int b = 0; b < 2; b++)
		if (!stage[b]) {
			cudaError_t e = cudaHostAlloc(&stage[b], STAGE_BYTES, cudaHostAllocPortable);
			if (e != cudaSuccess)
				return e;
		}
	return cudaSuccess;
}

static void host_rows(char *dst, size_t dpitch, const char *src, size_t spitch, size_t width,
                      uint64_t rows)
{
	#pragma omp parallel for schedule(static)
	for (uint64_t r = 0; r < rows; r++)
		memcpy(dst + r * dpitch, src + r * spitch, width);
}

// rows rows of width bytes between host (pitch hpitch) and dev (pitch
// dpitch) on stream s, up or down.
static cudaError_t staged(void *host, size_t hpitch, void *dev, size_t dpitch, size_t width,
                          uint64_t rows, int up, cudaStream_t s)
{
	cudaError_t e = stage_alloc();
	const uint64_t per = STAGE_BYTES / width;
	if (e != cudaSuccess || per == 0)
		return up ? cudaMemcpy2D(dev, dpitch, host, hpitch, width, rows, cudaMemcpyHostToDevice)
		          : cudaMemcpy2D(host, hpitch, dev, dpitch, width, rows, cudaMemcpyDeviceToHost);
	cudaEvent_t ev[2] = {NULL, NULL};
	for (int b = 0; b < 2 && e == cudaSuccess; b++)
		e = cudaEventCreateWithFlags(&ev[b], cudaEventDisableTiming);
	uint64_t prev = 0, prev_rows = 0;
	for (uint64_t r = 0, c = 0; e == cudaSuccess && r < rows; r += per, c++) {
		const uint64_t k = rows - r < per ? rows - r : per;
		const int b = (int)(c % 2);
		char *h = (char *)host + r * hpitch, *d = (char *)dev + r * dpitch;
		if (up) {
			if (c >= 2 && (e = cudaEventSynchronize(ev[b])) != cudaSuccess)
				break;
			host_rows((char *)stage[b], width, h, hpitch, width, k);
			e = cudaMemcpy2DAsync(d, dpitch, stage[b], width, width, k, cudaMemcpyHostToDevice, s);
		} else {
			e = cudaMemcpy2DAsync(stage[b], width, d, dpitch, width, k, cudaMemcpyDeviceToHost, s);
		}
		if (e == cudaSuccess)
			e = cudaEventRecord(ev[b], s);
		if (!up && c > 0 && e == cudaSuccess && (e = cudaEventSynchronize(ev[1 - b])) == cudaSuccess)
			host_rows((char *)host + prev * hpitch, hpitch, (char *)stage[1 - b], width, width,
			          prev_rows);
		prev = r, prev_rows = k;
	}
	if (e == cudaSuccess && rows > 0) {
		const int b = (int)(((rows + per - 1) / per - 1) % 2);
		if ((e = cudaEventSynchronize(ev[b])) == cudaSuccess && !up)
			host_rows((char *)host + prev * hpitch, hpitch, (char *)stage[b], width, width,
			          prev_rows);
	}
	for (int b = 0; b < 2; b++)
		if (ev[b])
			cudaEventDestroy(ev[b]);
	return e;
}

// The bands' rows between the host matrix host (n x n of es bytes, stride
// n) and the devices' d (or m, for es 4), up or down.
static cudaError_t copy_rows(gpu *g, int ng, void *host, uint64_t n, int64_t npad, size_t es,
                             int up)
{
	for (int x = 0; x < ng; x++) {
		const uint64_t r0 = (uint64_t)g[x].row0 * f64::B;
		if (r0 >= n)
			continue;
		const uint64_t r1 = r0 + (uint64_t)g[x].rows * f64::B, rows = (r1 < n ? r1 : n) - r0;
		void *dev = es == 8 ? (void *)g[x].d : (void *)g[x].m;
		cudaError_t e = cudaSetDevice(g[x].dev);
		if (e == cudaSuccess)
			e = staged((char *)host + r0 * n * es, n * es, dev, (size_t)npad * es, n * es, rows,
			           up, g[x].s);
		if (e != cudaSuccess)
			return e;
	}
	return cudaSuccess;
}

// The weights up, padded and prepared (FWM_* flags); where one is
// negative, back to the host to look for a negative cycle: 1 with
// *cycle_vertex, 0 ready, -1 an error.
static int upload(gpu *g, int ng, const void *graph, void *dist, uint64_t n, int64_t npad,
                  int flags, int64_t *cycle_vertex, int *negative, char *err, size_t errlen)
{
	unsigned f = 0;
	int rc = -1;
	for (int x = 0; x < ng; x++) {
		CK(cudaSetDevice(g[x].dev));
		f64::pad_fill<<<1024, 256, 0, g[x].s>>>(g[x].d, g[x].m, npad,
		                                        (int64_t)g[x].row0 * f64::B,
		                                        (int64_t)g[x].rows * f64::B);
		CK(cudaGetLastError());
	}
	CK(copy_rows(g, ng, const_cast<void *>(graph), n, npad, 8, 1));
	for (int x = 0; x < ng; x++) {
		unsigned *found = NULL, fx = 0;
		const int64_t r0 = (int64_t)g[x].row0 * f64::B;
		const int64_t rows = r0 >= (int64_t)n ? 0 : std::min((int64_t)g[x].rows * f64::B, (int64_t)n - r0);
		CK(cudaSetDevice(g[x].dev));
		CK(cudaMalloc(&found, sizeof *found));
		/* on the band's stream, after its rows are up */
		cudaError_t e = cudaMemsetAsync(found, 0, sizeof *found, g[x].s);
		if (e == cudaSuccess) {
			f64::prepare<<<1024, 256, 0, g[x].s>>>(g[x].d, npad, (int64_t)n, r0, rows, flags,
			                                       found);
			if (flags & FWM_UNDIRECTED)
				f64::symmetric<<<1024, 256, 0, g[x].s>>>(g[x].d, npad, (int64_t)n);
			e = cudaGetLastError();
		}
		if (e == cudaSuccess)
			e = cudaMemcpyAsync(&fx, found, sizeof fx, cudaMemcpyDeviceToHost, g[x].s);
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(g[x].s);
		cudaFree(found);
		CK(e);
		f |= fx;
	}
	if (f & f64::FOUND_NAN) {
		fail(Err{err, errlen}, "an edge weight is NaN");
		goto out;
	}
	if (f & f64::FOUND_NEG_INF) {
		fail(Err{err, errlen}, "an edge weight is -infinity");
		goto out;
	}
	rc = 0;
	*negative = (f & f64::FOUND_NEGATIVE) != 0;
	if ((f & f64::FOUND_NEGATIVE) && !(flags & FWM_CHECKED)) {
		st_header h;
		sv_plan plan;
		st_error se;
		CK(copy_rows(g, ng, dist, n, npad, 8, 0));
		memset(&h, 0, sizeof h);
		h.n = n, h.npad = n, h.type = ST_FLOAT64;
		rc = sv_prepare(&h, dist, dist, NULL, 0, &plan, &se);
		*cycle_vertex = plan.cycle_vertex;
		sv_plan_free(&plan);
		if (rc < 0)
			fail(Err{err, errlen}, "%s", se.msg);
	}
out:
	return rc;
}

// Bands of block rows for ng GPUs from device, their memory and streams.
static int bands(gpu *g, int ng, int device, int64_t npad, uint64_t n, int paths, char *err,
                 size_t errlen)
{
	const int nb = (int)(npad / f64::B);
	const size_t rowd = (size_t)f64::B * npad;
	int rc = -1;
	for (int x = 0; x < ng; x++) {
		gpu &v = g[x];
		v.dev = device + x;
		v.row0 = (int)((int64_t)nb * x / ng), v.rows = (int)((int64_t)nb * (x + 1) / ng) - v.row0;
		CK(cudaSetDevice(v.dev));
		if (fits(n, npad, v.rows, ng, paths, err, errlen))
			goto out;
		for (int y = 0; y < ng; y++) {
			int can = 0;
			if (y != x && cudaDeviceCanAccessPeer(&can, v.dev, device + y) == cudaSuccess && can)
				cudaDeviceEnablePeerAccess(device + y, 0); /* (already enabled: fine) */
		}
		cudaGetLastError();
		CK(cudaStreamCreateWithFlags(&v.s, cudaStreamNonBlocking));
		CK(cudaEventCreateWithFlags(&v.done, cudaEventDisableTiming));
		CK(cudaEventCreateWithFlags(&v.ready, cudaEventDisableTiming));
		CK(cudaMalloc(&v.d, (size_t)v.rows * rowd * sizeof(double)));
		if (paths)
			CK(cudaMalloc(&v.m, (size_t)v.rows * rowd * sizeof(int32_t)));
		if (ng > 1) {
			CK(cudaMalloc(&v.pd, rowd * sizeof(double)));
			if (paths)
				CK(cudaMalloc(&v.pm, rowd * sizeof(int32_t)));
		}
	}
	rc = 0;
out:
	return rc;
}

static void bands_free(gpu *g, int ng)
{
	for (int x = 0; x < ng; x++) {
		cudaSetDevice(g[x].dev);
		cudaFree(g[x].d), cudaFree(g[x].m), cudaFree(g[x].pd), cudaFree(g[x].pm);
		if (g[x].s)
			cudaStreamDestroy(g[x].s);
		if (g[x].done)
			cudaEventDestroy(g[x].done);
		if (g[x].ready)
			cudaEventDestroy(g[x].ready);
	}
}

// One solve at a time in a process: the page-locked buffers and the times
// are the process's (ctypes lets Python threads call in together).
static std::mutex solving;

static int solve(uint32_t type, uint64_t n, const void *graph, void *dist, int32_t *pred,
                 int flags, int device, int gpus, const fwm_checkpoint *ck,
                 int64_t *cycle_vertex, char *err, size_t errlen);

extern "C" int fwm_solve(uint32_t type, uint64_t n, const void *graph, void *dist,
                         int32_t *pred, int flags, int device, int gpus, int64_t *cycle_vertex,
                         char *err, size_t errlen)
{
	std::lock_guard<std::mutex> hold(solving);
	return solve(type, n, graph, dist, pred, flags, device, gpus, NULL, cycle_vertex, err,
	             errlen);
}

extern "C" int fwm_solve_resumable(uint32_t type, uint64_t n, const void *graph, void *dist,
                                   int32_t *pred, int flags, int device, int gpus,
                                   const fwm_checkpoint *ck, int64_t *cycle_vertex, char *err,
                                   size_t errlen)
{
	std::lock_guard<std::mutex> hold(solving);
	return solve(type, n, graph, dist, pred, flags, device, gpus, ck, cycle_vertex, err, errlen);
}

// The round to begin with: 0, or the step of a checkpoint whose state is
// put into the bands; -1 where the state could not be put.
static int resume_at(gpu *g, int ng, int64_t npad, int paths, const fwm_checkpoint *ck)
{
	if (!ck || !ck->load)
		return 0;
	state st = {g, ng, npad};
	const int64_t K = ck->load(ck->ctx, STAGE, (uint64_t)npad / f64::B, (uint64_t)npad, paths,
	                           state_put, &st);
	return cudaGetLastError() != cudaSuccess ? -1 : K > 0 ? (int)K : 0;
}

static int solve(uint32_t type, uint64_t n, const void *graph, void *dist, int32_t *pred,
                 int flags, int device, int gpus, const fwm_checkpoint *ck,
                 int64_t *cycle_vertex, char *err, size_t errlen)
{
	gpu g[FWM_MAX_GPUS];
	int rc = -1, negative = 1, bits = 0, count = 0, K0 = 0;
	double t0 = lib_now() * 1e3, t1, t2;

	memset(g, 0, sizeof g);
	*cycle_vertex = -1;
	times_ms[0] = times_ms[1] = times_ms[2] = 0;
	if (type != ST_FLOAT64)
		return fail(Err{err, errlen}, "the GPU library takes float64 matrices only");
	if (n == 0)
		return 0;
	const int64_t npad = (int64_t)((n + f64::B - 1) / f64::B * f64::B);
	const int ng = std::max(1, std::min(gpus, (int)(npad / f64::B)));
	if (gpus > FWM_MAX_GPUS)
		return fail(Err{err, errlen}, "at most %d GPUs", FWM_MAX_GPUS);
	if (ng > 1 && (flags & FWM_UNDIRECTED))
		return fail(Err{err, errlen}, "undirected graphs are read on one GPU");
	if (cudaGetDeviceCount(&count) != cudaSuccess || device + ng > count)
		return fail(Err{err, errlen}, "GPUs %d to %d asked for, %d present", device, device + ng - 1,
		             count);
	if (bands(g, ng, device, npad, n, pred != NULL, err, errlen) ||
	    (rc = upload(g, ng, graph, dist, n, npad, flags, cycle_vertex, &negative, err, errlen)) != 0)
		goto out;
	rc = -1;
	for (int x = 0; x < ng; x++) {
		CK(cudaSetDevice(g[x].dev));
		CK(cudaDeviceSynchronize());
	}
	if ((K0 = resume_at(g, ng, npad, pred != NULL, ck)) < 0) {
		fail(Err{err, errlen}, "a checkpoint's state could not be put on the device");
		goto out;
	}
	t1 = lib_now() * 1e3;
	/* APSP_F64_BITS=0: benchmarks, the minima as fmin() alone */
	bits = !negative && !(getenv("APSP_F64_BITS") && !strcmp(getenv("APSP_F64_BITS"), "0"));
	if (pred && bits)
		CK((rounds<true, true>(g, ng, npad, K0, ck)));
	else if (pred)
		CK((rounds<true, false>(g, ng, npad, K0, ck)));
	else if (bits)
		CK((rounds<false, true>(g, ng, npad, K0, ck)));
	else
		CK((rounds<false, false>(g, ng, npad, K0, ck)));
	for (int x = 0; x < ng; x++) {
		CK(cudaSetDevice(g[x].dev));
		CK(cudaDeviceSynchronize());
	}
	t2 = lib_now() * 1e3;
	if (ck && ck->ready)
		ck->ready(ck->ctx);
	CK(copy_rows(g, ng, dist, n, npad, 8, 0));
	if (pred)
		CK(copy_rows(g, ng, pred, n, npad, 4, 0));
	if (pred && fw_textbook_preds(type, n, dist, pred, 0)) {
		fail(Err{err, errlen}, "out of memory for the predecessors");
		goto out;
	}
	times_ms[0] = t1 - t0, times_ms[1] = t2 - t1, times_ms[2] = lib_now() * 1e3 - t2;
	rc = 0;
out:
	bands_free(g, ng < 1 ? 1 : ng);
	return rc;
}
