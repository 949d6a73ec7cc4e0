// fw_stats.cuh - graph statistics of the final distances where they are
// (fwg_opts.stats, lib/stats.h): each device folds its own band of rows,
// the rows' figures (reach, sum, eccentricity out) a CTA a row, the
// columns' (in, and harmonic centrality) a thread a column over a chunk of
// the band's rows in order, the chunks then added in order; the host adds
// the devices' column figures in device order and puts each position back
// at its vertex.  Only O(n) figures leave a device.  (Included by fw_gpu.cu.)
#ifndef APSP_FW_STATS_CUH
#define APSP_FW_STATS_CUH

#include <vector>

#include "fw_devs.cuh"
#include "fw_transfer.cuh"

extern "C" {
#include "stats.h"
}

namespace {

// A distance as the statistics take it: finite or not, and its value with
// the reweighting undone (int32: d - h[i] + h[j], exact in 64 bits).
template <typename T> struct StatsElem;
template <> struct StatsElem<int> {
	using Sum = long long;
	static __device__ __forceinline__ bool finite(int x) { return x < ST_INF_I32; }
	static __device__ __forceinline__ long long value(int x, const long long *h, int i, int j)
	{
		return h ? (long long)x - h[i] + h[j] : (long long)x;
	}
};
template <> struct StatsElem<float> {
	using Sum = double;
	static __device__ __forceinline__ bool finite(float x) { return x < __int_as_float(0x7f800000); }
	static __device__ __forceinline__ double value(float x, const long long *, int, int)
	{
		return (double)x;
	}
};

// Row i (first <= i < end; d points where row 0 would be, rows npad apart):
// its finite entries j != i counted, summed, and the largest with 0.
template <typename T>
__global__ void __launch_bounds__(256)
stats_rows(const T *__restrict__ d, int npad, int n, int first, int end,
           const long long *__restrict__ h, unsigned long long *__restrict__ reach,
           typename StatsElem<T>::Sum *__restrict__ sum, typename StatsElem<T>::Sum *__restrict__ ecc)
{
	using S = typename StatsElem<T>::Sum;
	__shared__ unsigned long long sc[8];
	__shared__ S ss[8], se[8];
	for (int i = first + blockIdx.x; i < end; i += gridDim.x) {
		const T *row = d + (size_t)i * npad;
		unsigned long long c = 0;
		S s = 0, m = 0;
		for (int j = threadIdx.x; j < n; j += blockDim.x) {
			const T x = row[j];
			if (j != i && StatsElem<T>::finite(x)) {
				const S y = StatsElem<T>::value(x, h, i, j);
				c++;
				s += y;
				m = y > m ? y : m;
			}
		}
		for (int o = 16; o > 0; o >>= 1) {
			c += __shfl_xor_sync(0xffffffffu, c, o);
			s += __shfl_xor_sync(0xffffffffu, s, o);
			const S mo = __shfl_xor_sync(0xffffffffu, m, o);
			m = mo > m ? mo : m;
		}
		if ((threadIdx.x & 31) == 0)
			sc[threadIdx.x >> 5] = c, ss[threadIdx.x >> 5] = s, se[threadIdx.x >> 5] = m;
		__syncthreads();
		if (threadIdx.x == 0) {
			for (int w = 1; w < (int)(blockDim.x >> 5); w++) {
				c += sc[w], s += ss[w];
				m = se[w] > m ? se[w] : m;
			}
			reach[i] = c, sum[i] = s, ecc[i] = m;
		}
		__syncthreads();
	}
}

// Column j over rows r0 .. r1 - 1 of chunk blockIdx.y (rows in order):
// into the chunk's partial figures (n each).
template <typename T>
__global__ void stats_cols(const T *__restrict__ d, int npad, int n, int first, int end,
                           int chunk, const long long *__restrict__ h,
                           unsigned long long *__restrict__ reach,
                           typename StatsElem<T>::Sum *__restrict__ sum,
                           typename StatsElem<T>::Sum *__restrict__ ecc, double *__restrict__ harm)
{
	using S = typename StatsElem<T>::Sum;
	const int j = blockIdx.x * blockDim.x + threadIdx.x;
	const int r0 = first + blockIdx.y * chunk, r1 = min(end, r0 + chunk);
	if (j >= n)
		return;
	unsigned long long c = 0;
	S s = 0, m = 0;
	double hs = 0;
	for (int i = r0; i < r1; i++) {
		const T x = d[(size_t)i * npad + j];
		if (i != j && StatsElem<T>::finite(x)) {
			const S y = StatsElem<T>::value(x, h, i, j);
			c++;
			s += y;
			m = y > m ? y : m;
			if (y != 0)
				hs += 1.0 / (double)y;
		}
	}
	const size_t at = (size_t)blockIdx.y * n + j;
	reach[at] = c, sum[at] = s, ecc[at] = m, harm[at] = hs;
}

// The chunks' partial figures of column j added in chunk order into chunk 0's.
template <typename S>
__global__ void stats_chunks(int n, int chunks, unsigned long long *__restrict__ reach,
                             S *__restrict__ sum, S *__restrict__ ecc, double *__restrict__ harm)
{
	const int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= n)
		return;
	for (int k = 1; k < chunks; k++) {
		const size_t at = (size_t)k * n + j;
		reach[j] += reach[at];
		sum[j] += sum[at];
		ecc[j] = ecc[at] > ecc[j] ? ecc[at] : ecc[j];
		harm[j] += harm[at];
	}
}

// One device's figures, on the host: its rows' out figures (rows first ..
// end - 1) and its column partials (n each), sums and eccentricities as
// int64 or double.
struct DevStats {
	int first = 0, end = 0;
	std::vector<unsigned long long> out_reach, in_reach;
	std::vector<long long> out_isum, in_isum, out_iecc, in_iecc;
	std::vector<double> out_fsum, in_fsum, out_fecc, in_fecc, harm;
};

// Device memory for the figures, freed on every way out.
struct StatsMem {
	int id = -1;
	void *p[6] = {};
	~StatsMem()
	{
		if (id >= 0)
			cudaSetDevice(id);
		for (auto x : p)
			cudaFree(x);
	}
};

// Device x's figures of its rows into ds (as T: int or float distances).
template <typename T>
int stats_of_device(Err e, const Devs &v, const Dev &x, uint64_t n, const long long *h,
                    int sms, DevStats &ds)
{
	using S = typename StatsElem<T>::Sum;
	const int first = (int)x.first_row(v.B), end = (int)x.end_row(v.B, n), rows = end - first;
	ds.first = first, ds.end = end;
	if (rows <= 0)
		return 0;
	const int ncol = (int)n, cblocks = (ncol + 255) / 256;
	// enough chunks of rows to fill the device four times over
	int chunks = std::max(1, std::min(rows, (4 * sms + cblocks - 1) / cblocks));
	const int chunk = (rows + chunks - 1) / chunks;
	chunks = (rows + chunk - 1) / chunk;
	const size_t cn = (size_t)chunks * n;
	StatsMem m;
	m.id = x.id;
	CUDA_TRY(cudaMalloc(&m.p[0], n * 8 + cn * 8));     // out reach (rows), in reach (chunks)
	CUDA_TRY(cudaMalloc(&m.p[1], n * sizeof(S) * 2));  // out sum, out ecc
	CUDA_TRY(cudaMalloc(&m.p[2], cn * sizeof(S) * 2)); // in sum, in ecc
	CUDA_TRY(cudaMalloc(&m.p[3], cn * 8));             // harmonic
	unsigned long long *oreach = (unsigned long long *)m.p[0], *ireach = oreach + n;
	S *osum = (S *)m.p[1], *oecc = osum + n, *isum = (S *)m.p[2], *iecc = isum + cn;
	double *harm = (double *)m.p[3];
	const T *d = x.base<T>(x.d, v.B, v.npad);
	stats_rows<T><<<std::min(rows, 65535), 256, 0, x.s>>>(d, v.npad, ncol, first, end, h, oreach,
	                                                     osum, oecc);
	CUDA_TRY(cudaGetLastError());
	stats_cols<T><<<dim3(cblocks, chunks), 256, 0, x.s>>>(d, v.npad, ncol, first, end, chunk, h,
	                                                     ireach, isum, iecc, harm);
	CUDA_TRY(cudaGetLastError());
	stats_chunks<S><<<cblocks, 256, 0, x.s>>>(ncol, chunks, ireach, isum, iecc, harm);
	CUDA_TRY(cudaGetLastError());
	std::vector<S> os(n), oe(n), is(n), ie(n);
	ds.out_reach.resize(n), ds.in_reach.resize(n), ds.harm.resize(n);
	CUDA_TRY(cudaMemcpyAsync(ds.out_reach.data(), oreach, n * 8, cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(ds.in_reach.data(), ireach, n * 8, cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(os.data(), osum, n * sizeof(S), cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(oe.data(), oecc, n * sizeof(S), cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(is.data(), isum, n * sizeof(S), cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(ie.data(), iecc, n * sizeof(S), cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(ds.harm.data(), harm, n * 8, cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaStreamSynchronize(x.s));
	if constexpr (sizeof(S) == 8 && std::is_same<S, long long>::value) {
		ds.out_isum = os, ds.out_iecc = oe, ds.in_isum = is, ds.in_iecc = ie;
	} else {
		ds.out_fsum = os, ds.out_fecc = oe, ds.in_fsum = is, ds.in_fecc = ie;
	}
	return 0;
}

// One device's figures added into out (zeroed, n vertices; devices in
// order), positions put back at their vertices (order: the vertex at each
// position, or NULL).
void add_device_stats(const DevStats &ds, uint64_t n, bool is_int, const int32_t *order,
                      gs_stats *out)
{
	if (ds.end <= ds.first)
		return;
	for (uint64_t p = 0; p < n; p++) { // in figures: every position
		const uint64_t u = order ? (uint64_t)order[p] : p;
		out->reach[GS_IN][u] += ds.in_reach[p];
		out->harmonic[u] += ds.harm[p];
		if (is_int) {
			int32_t *e = (int32_t *)out->ecc[GS_IN] + u;
			((int64_t *)out->sum[GS_IN])[u] += ds.in_isum[p];
			*e = std::max(*e, (int32_t)ds.in_iecc[p]);
		} else {
			float *e = (float *)out->ecc[GS_IN] + u;
			((double *)out->sum[GS_IN])[u] += ds.in_fsum[p];
			*e = std::max(*e, (float)ds.in_fecc[p]);
		}
	}
	for (int p = ds.first; p < ds.end; p++) { // out figures: the device's rows
		const uint64_t u = order ? (uint64_t)order[p] : (uint64_t)p;
		out->reach[GS_OUT][u] = ds.out_reach[p];
		if (is_int) {
			((int64_t *)out->sum[GS_OUT])[u] = ds.out_isum[p];
			((int32_t *)out->ecc[GS_OUT])[u] = (int32_t)ds.out_iecc[p];
		} else {
			((double *)out->sum[GS_OUT])[u] = ds.out_fsum[p];
			((float *)out->ecc[GS_OUT])[u] = (float)ds.out_fecc[p];
		}
	}
}

// The statistics of a run in core in this process (fwg_opts.stats): the
// reweighting's potentials on each device in the run's positions, then
// every device's figures.
int stats_run(Err e, Devs &v, uint64_t n, bool is_int, const Reorder *ro,
              const int64_t *potential, int sms, gs_stats *out)
{
	std::vector<long long> hp;
	if (potential) {
		hp.resize(n);
		for (uint64_t p = 0; p < n; p++)
			hp[p] = potential[ro ? (uint64_t)ro->host[p] : p];
	}
	long long *hd[MAX_GPUS] = {};
	int rc = 0;
	for (int g = v.first; g < v.last && potential && rc == 0; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		if (cudaMalloc(&hd[g], n * 8) != cudaSuccess
		    || cudaMemcpy(hd[g], hp.data(), n * 8, cudaMemcpyHostToDevice) != cudaSuccess)
			rc = fail(e, "the potentials on device %d: %s", v.dev[g].id,
			          cudaGetErrorString(cudaGetLastError()));
	}
	// (each device's figures read its own copy; one device: the only one)
	for (int g = v.first; g < v.last && rc == 0; g++) {
		std::vector<DevStats> one(1);
		const Dev &x = v.dev[g];
		CUDA_TRY(cudaSetDevice(x.id));
		if (is_int ? stats_of_device<int>(e, v, x, n, hd[g], sms, one[0])
		           : stats_of_device<float>(e, v, x, n, hd[g], sms, one[0]))
			rc = -1;
		else
			add_device_stats(one[0], n, is_int, ro ? ro->host : nullptr, out);
	}
	for (int g = v.first; g < v.last; g++)
		if (hd[g]) {
			cudaSetDevice(v.dev[g].id);
			cudaFree(hd[g]);
		}
	return rc;
}

} // namespace
#endif
