// fw_stats_fold.cuh - graph statistics folded from rows of distances on a
// device (lib/stats.h's figures): the rows' figures (reach, sum,
// eccentricity out) a CTA a row, or a thread a row in order where floating
// sums must be the host's bits; the columns' (in, and harmonic centrality)
// a thread a column over the rows in order, starting from the figures
// folded before, so that every column's floating sum is made in the order
// of a stream's rows (as apsp-stats makes it).  The dense engine
// (fw_graph_stats.cuh) and the sparse one (fw_sparse.cu) fold with these.
#ifndef APSP_FW_STATS_FOLD_CUH
#define APSP_FW_STATS_FOLD_CUH

#include "fw_base.cuh"

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
template <> struct StatsElem<double> {
	using Sum = double;
	static __device__ __forceinline__ bool finite(double x)
	{
		return x < __longlong_as_double(0x7ff0000000000000ll);
	}
	static __device__ __forceinline__ double value(double x, const long long *, int, int)
	{
		return x;
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

// The figures of a row or a column as its entries come, in order: how
// many are finite off the diagonal, their sum, the largest with 0, and
// (columns) the sum of their inverses.
template <typename T> struct Running {
	using S = typename StatsElem<T>::Sum;
	unsigned long long c = 0;
	S s = 0, m = 0;
	double hs = 0;
	// Entry (i, j) of the distances, x (h: the reweighting's potentials).
	__device__ __forceinline__ void add(T x, const long long *h, int i, int j, bool harmonic)
	{
		if (i != j && StatsElem<T>::finite(x)) {
			const S y = StatsElem<T>::value(x, h, i, j);
			c++;
			s += y;
			m = y > m ? y : m;
			if (harmonic && y != 0) // (rounded as 1.0 / y is, in fewer instructions)
				hs += __drcp_rn((double)y);
		}
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
		Running<T> f;
		for (int j = threadIdx.x; j < n; j += blockDim.x)
			f.add(row[j], h, i, j, false);
		unsigned long long c = f.c;
		S s = f.s, m = f.m;
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

// The same with a thread a row, its entries in order: float32 sums, whose
// bits depend on the order of the additions, then equal the host's fold
// (int32 sums are exact in any order, and take the faster kernel above).
// at (where not NULL): the run's position of each vertex, the entries then
// taken in the vertices' order, as the result's rows hold them.
template <typename T>
__global__ void stats_rows_ordered(const T *__restrict__ d, int npad, int n, int first, int end,
                                   const int32_t *__restrict__ at,
                                   unsigned long long *__restrict__ reach,
                                   typename StatsElem<T>::Sum *__restrict__ sum,
                                   typename StatsElem<T>::Sum *__restrict__ ecc)
{
	const int i = first + blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= end)
		return;
	const T *row = d + (size_t)i * npad;
	Running<T> f;
	for (int k = 0; k < n; k++) {
		const int j = at ? at[k] : k;
		f.add(row[j], nullptr, i, j, false);
	}
	reach[i] = f.c, sum[i] = f.s, ecc[i] = f.m;
}

// Column j over the band's rows first .. end - 1 in order, added to the
// running figures of the devices before (the same order of additions as
// the host's fold of a stream, lib/stats/stats.c, so the same bits; at, as
// above: the rows in the vertices' order, a run in one band).
template <typename T>
__global__ void stats_cols(const T *__restrict__ d, int npad, int n, int first, int end,
                           const int32_t *__restrict__ at, const long long *__restrict__ h,
                           unsigned long long *__restrict__ reach,
                           typename StatsElem<T>::Sum *__restrict__ sum,
                           typename StatsElem<T>::Sum *__restrict__ ecc, double *__restrict__ harm)
{
	const int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= n)
		return;
	Running<T> f;
	f.c = reach[j], f.s = sum[j], f.m = ecc[j], f.hs = harm[j];
	for (int k = first; k < end; k++) {
		const int i = at ? at[k] : k;
		f.add(d[(size_t)i * npad + j], h, i, j, true);
	}
	reach[j] = f.c, sum[j] = f.s, ecc[j] = f.m, harm[j] = f.hs;
}

} // namespace

#endif
