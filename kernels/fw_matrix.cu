// fw_matrix.cu - fwm_solve (fw_matrix.h): the host matrix padded onto the
// device, the rounds of fw_f64.cuh's kernels, the results back.
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#include "fw_matrix.h"
#include "fw_f64.cuh"

extern "C" {
#include "fw.h"
#include "solve.h"
}

static double times_ms[3];

static int failf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && len)
		vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

#define CK(call)                                                                \
	do {                                                                    \
		cudaError_t e_ = (call);                                        \
		if (e_ != cudaSuccess) {                                        \
			failf(err, errlen, "%s: %s", #call, cudaGetErrorString(e_)); \
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
		return failf(err, errlen, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
	return count;
}

extern "C" void fwm_times(double *up_ms, double *kernel_ms, double *down_ms)
{
	*up_ms = times_ms[0], *kernel_ms = times_ms[1], *down_ms = times_ms[2];
}

template <bool MID, bool BITS>
static cudaError_t rounds(double *d, int32_t *m, int64_t npad, cudaStream_t s)
{
	const int nb = (int)(npad / f64::B), threads = f64::T * f64::T, uthreads = f64::UTHREADS;
	cudaError_t e;
	if ((e = cudaFuncSetAttribute(f64::closure<MID>, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                              (int)f64::closure_smem<MID>())) != cudaSuccess ||
	    (e = cudaFuncSetAttribute(f64::update<MID, f64::PHASE2, BITS>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize,
	                              (int)f64::update_smem<MID>())) != cudaSuccess ||
	    (e = cudaFuncSetAttribute(f64::update<MID, f64::PHASE3, BITS>,
	                              cudaFuncAttributeMaxDynamicSharedMemorySize,
	                              (int)f64::update_smem<MID>())) != cudaSuccess)
		return e;
	for (int K = 0; K < nb; K++) {
		f64::closure<MID><<<1, threads, f64::closure_smem<MID>(), s>>>(d, m, npad, K);
		if (nb > 1) {
			f64::update<MID, f64::PHASE2, BITS><<<2 * nb, uthreads, f64::update_smem<MID>(), s>>>(
			        d, m, npad, nb, K);
			f64::update<MID, f64::PHASE3, BITS>
			        <<<dim3(nb, nb), uthreads, f64::update_smem<MID>(), s>>>(d, m, npad, nb, K);
		}
		if ((e = cudaGetLastError()) != cudaSuccess)
			return e;
	}
	return cudaSuccess;
}

// Whether n fits in the device's free memory; else the message.
static int fits(uint64_t n, int paths, char *err, size_t errlen)
{
	size_t free_b = 0, total = 0;
	cudaError_t e = cudaMemGetInfo(&free_b, &total);
	if (e != cudaSuccess)
		return failf(err, errlen, "cudaMemGetInfo: %s", cudaGetErrorString(e));
	const double per = 8.0 + (paths ? 4.0 : 0.0), room = (double)free_b * 0.97;
	uint64_t npad = (n + f64::B - 1) / f64::B * f64::B;
	if (per * (double)npad * (double)npad <= room)
		return 0;
	uint64_t most = (uint64_t)std::sqrt(room / per) / f64::B * f64::B;
	return failf(err, errlen, "n = %llu needs about %.1f GiB on the GPU, %.1f GiB are free: "
	             "at most n = %llu fits", (unsigned long long)n,
	             per * (double)npad * (double)npad / (1 << 30), (double)free_b / (1 << 30),
	             (unsigned long long)most);
}

// The weights up, padded and prepared (FWM_* flags); where one is
// negative, back to the host to look for a negative cycle: 1 with
// *cycle_vertex, 0 ready, -1 an error.
static int upload(const void *graph, void *dist, double *d, int32_t *m, uint64_t n,
                  int64_t npad, int flags, int64_t *cycle_vertex, int *negative, char *err,
                  size_t errlen)
{
	const size_t row = n * sizeof(double), prow = (size_t)npad * sizeof(double);
	unsigned *found = NULL, f = 0;
	int rc = -1;
	CK(cudaMalloc(&found, sizeof *found));
	CK(cudaMemset(found, 0, sizeof *found));
	f64::pad_fill<<<1024, 256>>>(d, m, npad);
	CK(cudaGetLastError());
	CK(cudaMemcpy2D(d, prow, graph, row, row, n, cudaMemcpyHostToDevice));
	f64::prepare<<<1024, 256>>>(d, npad, (int64_t)n, flags, found);
	if (flags & FWM_UNDIRECTED)
		f64::symmetric<<<1024, 256>>>(d, npad, (int64_t)n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&f, found, sizeof f, cudaMemcpyDeviceToHost));
	if (f & f64::FOUND_NAN) {
		failf(err, errlen, "an edge weight is NaN");
		goto out;
	}
	if (f & f64::FOUND_NEG_INF) {
		failf(err, errlen, "an edge weight is -infinity");
		goto out;
	}
	rc = 0;
	*negative = (f & f64::FOUND_NEGATIVE) != 0;
	if ((f & f64::FOUND_NEGATIVE) && !(flags & FWM_CHECKED)) {
		st_header h;
		sv_plan plan;
		st_error se;
		CK(cudaMemcpy2D(dist, row, d, prow, row, n, cudaMemcpyDeviceToHost));
		memset(&h, 0, sizeof h);
		h.n = n, h.npad = n, h.type = ST_FLOAT64;
		rc = sv_prepare(&h, dist, dist, NULL, 0, &plan, &se);
		*cycle_vertex = plan.cycle_vertex;
		sv_plan_free(&plan);
		if (rc < 0)
			failf(err, errlen, "%s", se.msg);
	}
out:
	cudaFree(found);
	return rc;
}

extern "C" int fwm_solve(uint32_t type, uint64_t n, const void *graph, void *dist,
                         int32_t *pred, int flags, int device, int64_t *cycle_vertex,
                         char *err, size_t errlen)
{
	double *d = NULL;
	int32_t *m = NULL;
	cudaEvent_t ev[4] = {NULL, NULL, NULL, NULL};
	int rc = -1, negative = 1, bits = 0;

	*cycle_vertex = -1;
	times_ms[0] = times_ms[1] = times_ms[2] = 0;
	if (type != ST_FLOAT64)
		return failf(err, errlen, "the GPU library takes float64 matrices only");
	if (n == 0)
		return 0;
	const int64_t npad = (int64_t)((n + f64::B - 1) / f64::B * f64::B);
	const size_t row = n * sizeof(double), prow = (size_t)npad * sizeof(double);
	CK(cudaSetDevice(device));
	if (fits(n, pred != NULL, err, errlen))
		return -1;
	for (int i = 0; i < 4; i++)
		CK(cudaEventCreate(&ev[i]));
	CK(cudaEventRecord(ev[0], 0));
	CK(cudaMalloc(&d, (size_t)npad * npad * sizeof(double)));
	if (pred)
		CK(cudaMalloc(&m, (size_t)npad * npad * sizeof(int32_t)));
	if ((rc = upload(graph, dist, d, m, n, npad, flags, cycle_vertex, &negative, err, errlen)) != 0)
		goto out;
	rc = -1;
	CK(cudaEventRecord(ev[1], 0));
	/* APSP_F64_BITS=0: benchmarks, the minima as fmin() alone */
	bits = !negative && !(getenv("APSP_F64_BITS") && !strcmp(getenv("APSP_F64_BITS"), "0"));
	if (pred)
		CK((rounds<true, false>(d, m, npad, 0)));
	else if (bits)
		CK((rounds<false, true>(d, m, npad, 0)));
	else
		CK((rounds<false, false>(d, m, npad, 0)));
	CK(cudaEventRecord(ev[2], 0));
	CK(cudaMemcpy2D(dist, row, d, prow, row, n, cudaMemcpyDeviceToHost));
	if (pred)
		CK(cudaMemcpy2D(pred, n * 4, m, (size_t)npad * 4, n * 4, n, cudaMemcpyDeviceToHost));
	if (pred && fw_textbook_preds(type, n, dist, pred, 0)) {
		failf(err, errlen, "out of memory for the predecessors");
		goto out;
	}
	CK(cudaEventRecord(ev[3], 0));
	CK(cudaEventSynchronize(ev[3]));
	for (int i = 0; i < 3; i++) {
		float ms = 0;
		CK(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
		times_ms[i] = ms;
	}
	rc = 0;
out:
	for (int i = 0; i < 4; i++)
		if (ev[i])
			cudaEventDestroy(ev[i]);
	cudaFree(d);
	cudaFree(m);
	return rc;
}
