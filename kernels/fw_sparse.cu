// fw_sparse.cu - the sparse engine on one GPU (see fw_sparse.h).
//
// The factor (lib/sparse/elim.h) goes to the device once.  A batch of S
// sources then runs as S threads, thread j the source first + j: its
// column of d (n x S, position-major, so that a warp's loads of one
// position are one line) set to unreachable, its up sweep along its
// ancestors (the parent chain: every upper neighbour of a position is one
// of them), its down sweep over every position from the top, the running
// minimum of a position kept in a register.  No thread reads another's
// column, so one kernel does a batch without a barrier.  The batch's rows
// are folded into the statistics where they lie (a thread a source for the
// out figures, a thread a vertex for the in figures, the additions of the
// dense engine's kernels in fw_stats_fold.cuh, in the same order), or made
// in the vertices' numbering (a tiled transpose through shared memory) and
// copied out.
#include "fw_base.cuh"
#include "fw_stats_fold.cuh"

#include <math.h>
#include <string.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "fw_sparse.h"

namespace {

template <typename T> struct Unreachable;
template <> struct Unreachable<int> {
	static __device__ __forceinline__ int value() { return ST_INF_I32; }
};
template <> struct Unreachable<float> {
	static __device__ __forceinline__ float value() { return __int_as_float(0x7f800000); }
};
template <> struct Unreachable<double> {
	static __device__ __forceinline__ double value()
	{
		return __longlong_as_double(0x7ff0000000000000ll);
	}
};

// The factor on the device.
struct DevFactor {
	long long *first = nullptr;
	int *upper = nullptr, *pos = nullptr, *parent = nullptr;
	void *up = nullptr, *down = nullptr;
};

// Sources src0 .. src0 + count - 1, a thread each: their distances to every
// position in d (column j of n x S).
template <typename T>
__global__ void __launch_bounds__(128)
sweeps(int n, int src0, int count, int S, const long long *__restrict__ first,
       const int *__restrict__ upper, const T *__restrict__ up, const T *__restrict__ down,
       const int *__restrict__ pos, const int *__restrict__ parent, T *__restrict__ d)
{
	const int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= count)
		return;
	const T inf = Unreachable<T>::value();
	T *col = d + j;
	for (int p = 0; p < n; p++)
		col[(size_t)p * S] = inf;
	int p = pos[src0 + j];
	col[(size_t)p * S] = 0;
	for (; p >= 0; p = parent[p]) { // up, through the ancestors in order
		const T dp = col[(size_t)p * S];
		if (!(dp < inf))
			continue;
		for (long long k = first[p]; k < first[p + 1]; k++) {
			const T w = up[k];
			if (!(w < inf))
				continue;
			T *x = col + (size_t)upper[k] * S;
			const T c = dp + w;
			if (c < *x)
				*x = c;
		}
	}
	for (int q = n - 1; q >= 0; q--) { // down, every position from the top
		T acc = col[(size_t)q * S];
		for (long long k = first[q]; k < first[q + 1]; k++) {
			const T w = down[k];
			const T x = col[(size_t)upper[k] * S];
			if (!(w < inf) || !(x < inf)) // (int32: unreachable plus a negative weight)
				continue;
			const T c = x + w;
			acc = c < acc ? c : acc;
		}
		col[(size_t)q * S] = acc;
	}
}

// The batch's rows (count of them, n each, stride n) in the vertices'
// numbering: row j, column v from d[pos[v]][j], through a 32 x 32 tile.
template <typename T>
__global__ void to_rows(int n, int count, int S, const int *__restrict__ pos,
                        const T *__restrict__ d, T *__restrict__ rows)
{
	__shared__ T tile[32][33];
	const int v0 = blockIdx.x * 32, j0 = blockIdx.y * 32;
	for (int r = threadIdx.y; r < 32; r += blockDim.y) {
		const int v = v0 + r, j = j0 + threadIdx.x;
		if (v < n && j < count)
			tile[r][threadIdx.x] = d[(size_t)pos[v] * S + j];
	}
	__syncthreads();
	for (int r = threadIdx.y; r < 32; r += blockDim.y) {
		const int j = j0 + r, v = v0 + threadIdx.x;
		if (v < n && j < count)
			rows[(size_t)j * n + v] = tile[threadIdx.x][r];
	}
}

// The out figures of the batch's sources (thread j: source s0 + j), its
// row's entries in the vertices' order, read where the sweeps left them
// (d, position-major: a warp's loads of one vertex are one line).
template <typename T>
__global__ void fold_out(const T *__restrict__ d, int n, int S, int s0, int count,
                         const int *__restrict__ pos, unsigned long long *__restrict__ reach,
                         typename StatsElem<T>::Sum *__restrict__ sum,
                         typename StatsElem<T>::Sum *__restrict__ ecc)
{
	const int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= count)
		return;
	const int i = s0 + j;
	Running<T> f;
	for (int v = 0; v < n; v++)
		f.add(d[(size_t)pos[v] * S + j], nullptr, i, v, false);
	reach[i] = f.c, sum[i] = f.s, ecc[i] = f.m;
}

// The in figures of every vertex v (thread v) over the batch's sources in
// order, added to the running ones: the additions of stats_cols, in the
// same order, from d's row of v.
template <typename T>
__global__ void fold_in(const T *__restrict__ d, int n, int S, int s0, int count,
                        const int *__restrict__ pos, unsigned long long *__restrict__ reach,
                        typename StatsElem<T>::Sum *__restrict__ sum,
                        typename StatsElem<T>::Sum *__restrict__ ecc, double *__restrict__ harm)
{
	const int v = blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n)
		return;
	const T *row = d + (size_t)pos[v] * S;
	Running<T> f;
	f.c = reach[v], f.s = sum[v], f.m = ecc[v], f.hs = harm[v];
	for (int j = 0; j < count; j++)
		f.add(row[j], nullptr, s0 + j, v, true);
	reach[v] = f.c, sum[v] = f.s, ecc[v] = f.m, harm[v] = f.hs;
}

// Device memory of a run, freed on every way out.
struct Mem {
	std::vector<void *> p;
	void *host = nullptr;
	cudaEvent_t ev[4] = {};
	void *take(void *x)
	{
		p.push_back(x);
		return x;
	}
	~Mem()
	{
		for (void *x : p)
			cudaFree(x);
		cudaFreeHost(host);
		for (auto e : ev)
			if (e)
				cudaEventDestroy(e);
	}
};

template <typename T> int alloc(Err e, Mem &m, T **x, size_t bytes)
{
	CUDA_TRY(cudaMalloc((void **)x, bytes ? bytes : 1));
	m.take(*x);
	return 0;
}

int factor_up(Err e, Mem &m, const el_factor *f, DevFactor &df)
{
	const uint64_t n = f->n, E = f->first[n], es = ST_TYPE_SIZE(f->type);
	std::vector<long long> first(f->first, f->first + n + 1);
	if (alloc(e, m, &df.first, (n + 1) * 8) || alloc(e, m, &df.upper, E * 4)
	    || alloc(e, m, &df.pos, n * 4) || alloc(e, m, &df.parent, n * 4)
	    || alloc(e, m, (char **)&df.up, E * es) || alloc(e, m, (char **)&df.down, E * es))
		return -1;
	CUDA_TRY(cudaMemcpy(df.first, first.data(), (n + 1) * 8, cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMemcpy(df.upper, f->upper, E * 4, cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMemcpy(df.pos, f->pos, n * 4, cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMemcpy(df.parent, f->parent, n * 4, cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMemcpy(df.up, f->up, E * es, cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMemcpy(df.down, f->down, E * es, cudaMemcpyHostToDevice));
	return 0;
}

// The statistics' figures on the device, n each.
template <typename S> struct DevFigures {
	unsigned long long *reach[2] = {};
	S *sum[2] = {}, *ecc[2] = {};
	double *harm = nullptr;
};

template <typename S> int figures_zeroed(Err e, Mem &m, uint64_t n, DevFigures<S> &g)
{
	for (int dir = 0; dir < 2; dir++)
		if (alloc(e, m, &g.reach[dir], n * 8) || alloc(e, m, &g.sum[dir], n * sizeof(S))
		    || alloc(e, m, &g.ecc[dir], n * sizeof(S)))
			return -1;
	if (alloc(e, m, &g.harm, n * 8))
		return -1;
	for (int dir = 0; dir < 2; dir++) {
		CUDA_TRY(cudaMemset(g.reach[dir], 0, n * 8));
		CUDA_TRY(cudaMemset(g.sum[dir], 0, n * sizeof(S)));
		CUDA_TRY(cudaMemset(g.ecc[dir], 0, n * sizeof(S)));
	}
	CUDA_TRY(cudaMemset(g.harm, 0, n * 8));
	return 0;
}

// The figures into the caller's statistics (vertices as numbered).
template <typename T, typename S>
int figures_down(Err e, const DevFigures<S> &g, uint64_t n, gs_stats *st)
{
	std::vector<S> v(n);
	for (int dir = 0; dir < 2; dir++) {
		CUDA_TRY(cudaMemcpy(st->reach[dir], g.reach[dir], n * 8, cudaMemcpyDeviceToHost));
		CUDA_TRY(cudaMemcpy(v.data(), g.sum[dir], n * sizeof(S), cudaMemcpyDeviceToHost));
		for (uint64_t u = 0; u < n; u++)
			((S *)st->sum[dir])[u] = v[u]; // (int64_t or double)
		CUDA_TRY(cudaMemcpy(v.data(), g.ecc[dir], n * sizeof(S), cudaMemcpyDeviceToHost));
		for (uint64_t u = 0; u < n; u++)
			((T *)st->ecc[dir])[u] = (T)v[u];
	}
	CUDA_TRY(cudaMemcpy(st->harmonic, g.harm, n * 8, cudaMemcpyDeviceToHost));
	return 0;
}

// Sources a batch: d (and the rows, for the host) fit in 80% of what the
// device has free; the rows for the host at most 1 GiB.  The more sources,
// the more threads: the sweeps' time fell as the batch grew (n = 126025,
// 8192 to 65536 sources: 1533 to 269 ms, bench/sparse-road.md).
uint64_t batch_size(uint64_t n, uint64_t es, size_t free_bytes, bool to_host)
{
	const double room = (double)free_bytes * 0.8;
	double s = room / ((to_host ? 2.0 : 1.0) * (double)n * (double)es);
	if (to_host)
		s = std::min(s, (double)(1u << 30) / ((double)n * (double)es));
	s = std::min(s, (double)(1 << 20));
	const uint64_t rounded = (uint64_t)std::max(s, 0.0) / 32 * 32;
	return std::min(rounded, (n + 31) / 32 * 32);
}

template <typename T>
int solve_typed(Err e, int device, const el_factor *f, gs_stats *st, fws_rows_fn *take, void *ctx,
                uint64_t most, fws_timing *t)
{
	using S = typename StatsElem<T>::Sum;
	const uint64_t n = f->n, E = f->first[n], es = sizeof(T);
	Mem m;
	CUDA_TRY(cudaSetDevice(device));
	cudaDeviceProp prop;
	CUDA_TRY(cudaGetDeviceProperties(&prop, device));
	snprintf(t->device_name, sizeof t->device_name, "%s", prop.name);
	for (auto &x : m.ev)
		CUDA_TRY(cudaEventCreate(&x));
	double t0 = lib_now();
	DevFactor df;
	if (factor_up(e, m, f, df))
		return -1;
	DevFigures<S> g;
	if (st && figures_zeroed(e, m, n, g))
		return -1;
	CUDA_TRY(cudaDeviceSynchronize());
	t->upload_ms = (lib_now() - t0) * 1e3;
	size_t free_b, total_b;
	CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
	uint64_t S_ = batch_size(n, es, free_b, !st);
	if (most && S_ > most)
		S_ = most;
	if (S_ == 0)
		return fail(e, "n = %llu: the sparse engine's batch of 32 sources needs %.1f GiB of device "
		            "memory, %.1f GiB free", (unsigned long long)n,
		            2.0 * 32 * (double)n * es / 1073741824.0, free_b / 1073741824.0);
	T *d, *rows = nullptr; /* (the rows: for the host only) */
	if (alloc(e, m, &d, n * S_ * es) || (!st && alloc(e, m, &rows, n * S_ * es)))
		return -1;
	if (!st)
		CUDA_TRY(cudaMallocHost(&m.host, n * S_ * es));
	t->batch = S_;
	t->device_bytes = (double)(total_b - free_b) + (st ? 1.0 : 2.0) * (double)(n * S_ * es);
	float ms;
	t->kernel_ms = t->fold_ms = 0;
	for (uint64_t s0 = 0; s0 < n; s0 += S_) {
		const int count = (int)std::min(S_, n - s0);
		CUDA_TRY(cudaEventRecord(m.ev[0]));
		sweeps<T><<<(count + 127) / 128, 128>>>((int)n, (int)s0, count, (int)S_, df.first, df.upper,
		                                        (const T *)df.up, (const T *)df.down, df.pos,
		                                        df.parent, d);
		CUDA_TRY(cudaGetLastError());
		CUDA_TRY(cudaEventRecord(m.ev[1]));
		if (st) { // folded where the sweeps left the distances
			fold_out<T><<<(count + 127) / 128, 128>>>(d, (int)n, (int)S_, (int)s0, count, df.pos,
			                                        g.reach[GS_OUT], g.sum[GS_OUT], g.ecc[GS_OUT]);
			CUDA_TRY(cudaGetLastError());
			fold_in<T><<<(unsigned)((n + 127) / 128), 128>>>(d, (int)n, (int)S_, (int)s0, count,
			                                                df.pos, g.reach[GS_IN], g.sum[GS_IN],
			                                                g.ecc[GS_IN], g.harm);
			CUDA_TRY(cudaGetLastError());
		} else {
			to_rows<T><<<dim3((unsigned)((n + 31) / 32), (unsigned)((count + 31) / 32)),
			             dim3(32, 8)>>>((int)n, count, (int)S_, df.pos, d, rows);
			CUDA_TRY(cudaGetLastError());
			CUDA_TRY(cudaMemcpy(m.host, rows, (size_t)count * n * es, cudaMemcpyDeviceToHost));
		}
		CUDA_TRY(cudaEventRecord(m.ev[2]));
		CUDA_TRY(cudaEventSynchronize(m.ev[2]));
		CUDA_TRY(cudaEventElapsedTime(&ms, m.ev[0], m.ev[1]));
		t->kernel_ms += ms;
		CUDA_TRY(cudaEventElapsedTime(&ms, m.ev[1], m.ev[2]));
		t->fold_ms += ms;
		if (!st && take(ctx, s0, (uint64_t)count, m.host))
			return fail(e, "the rows' writer stopped");
	}
	if (st && figures_down<T>(e, g, n, st))
		return -1;
	t->arcs = 0;
	const T *up = (const T *)f->up, *down = (const T *)f->down;
	const T inf = std::is_same<T, int>::value ? (T)ST_INF_I32 : (T)INFINITY;
	for (uint64_t k = 0; k < E; k++)
		t->arcs += (uint64_t)(up[k] < inf) + (uint64_t)(down[k] < inf);
	return 0;
}

} // namespace

int fws_solve(int device, const el_factor *f, gs_stats *stats, fws_rows_fn *take, void *ctx,
              uint64_t most, struct fws_timing *t, char *err, size_t errlen)
{
	Err e{err, errlen};
	memset(t, 0, sizeof *t);
	if (!stats && !take)
		return fail(e, "fws_solve: neither statistics nor a taker of rows");
	if (f->n > (uint64_t)INT32_MAX)
		return fail(e, "n = %llu: over the sparse engine's limit on a GPU",
		            (unsigned long long)f->n);
	switch (f->type) {
	case ST_INT32: return solve_typed<int>(e, device, f, stats, take, ctx, most, t);
	case ST_FLOAT32: return solve_typed<float>(e, device, f, stats, take, ctx, most, t);
	case ST_FLOAT64: return solve_typed<double>(e, device, f, stats, take, ctx, most, t);
	}
	return fail(e, "element type %u unknown", f->type);
}
