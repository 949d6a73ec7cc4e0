// fw_graph_stats.cuh - graph statistics of the final distances where they are
// (fwg_opts.stats, lib/stats.h): each device folds its own band of rows
// with fw_stats_fold.cuh's kernels, its columns starting from the figures
// of the devices before it, so that every column's floating sum is made in
// the order of a stream's rows (as apsp-stats makes it); the host puts each
// position back at its vertex.  Only O(n) figures pass between host and
// devices.  (Included by fw_gpu.cu.)
#ifndef APSP_FW_STATS_CUH
#define APSP_FW_STATS_CUH

#include <vector>

#include "fw_devs.cuh"
#include "fw_stats_fold.cuh"
#include "fw_tiles16.cuh"
#include "fw_transfer.cuh"

namespace {

// int32 distances still in 16-bit lanes (a run in place, fw_tiles16.cuh).
template <> struct StatsElem<short> {
	using Sum = long long;
	static __device__ __forceinline__ bool finite(short x) { return x < INF16; }
	static __device__ __forceinline__ long long value(short x, const long long *h, int i, int j)
	{
		return h ? (long long)x - h[i] + h[j] : (long long)x;
	}
};

// A device's out figures (its rows first .. end - 1), and the in figures
// of every device so far (n each), on the host; sums and eccentricities as
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
	void *p[3] = {};
	~StatsMem()
	{
		if (id >= 0)
			cudaSetDevice(id);
		for (auto x : p)
			cudaFree(x);
	}
};

// Device x's figures of its rows into ds; its in figures start from ds's
// (the devices' before it; empty: zeros).  at: the position of each vertex
// on the device where the run has an order (one band), so that the floating
// sums are added in the vertices' order, as apsp-stats adds a result's.
template <typename T>
int stats_of_device(Err e, const Devs &v, const Dev &x, uint64_t n, const long long *h,
                    const int32_t *at, DevStats &ds)
{
	using S = typename StatsElem<T>::Sum;
	constexpr bool I = std::is_same<S, long long>::value;
	const int first = (int)x.first_row(v.B), end = (int)x.end_row(v.B, n), rows = end - first;
	ds.first = first, ds.end = end;
	ds.out_reach.assign(n, 0), ds.harm.resize(n), ds.in_reach.resize(n); // (zeros at first)
	std::vector<S> os(n), oe(n), is(n), ie(n);
	if constexpr (I)
		is = ds.in_isum.empty() ? is : ds.in_isum, ie = ds.in_iecc.empty() ? ie : ds.in_iecc;
	else
		is = ds.in_fsum.empty() ? is : ds.in_fsum, ie = ds.in_fecc.empty() ? ie : ds.in_fecc;
	if (rows <= 0)
		return 0;
	const int cblocks = (int)((n + 255) / 256);
	StatsMem m;
	m.id = x.id;
	CUDA_TRY(cudaMalloc(&m.p[0], n * 8 * 2));     // out reach, in reach
	CUDA_TRY(cudaMalloc(&m.p[1], n * sizeof(S) * 4)); // out sum, out ecc, in sum, in ecc
	CUDA_TRY(cudaMalloc(&m.p[2], n * 8));         // harmonic
	unsigned long long *oreach = (unsigned long long *)m.p[0], *ireach = oreach + n;
	S *osum = (S *)m.p[1], *oecc = osum + n, *isum = oecc + n, *iecc = isum + n;
	double *harm = (double *)m.p[2];
	CUDA_TRY(cudaMemcpyAsync(ireach, ds.in_reach.data(), n * 8, cudaMemcpyHostToDevice, x.s));
	CUDA_TRY(cudaMemcpyAsync(harm, ds.harm.data(), n * 8, cudaMemcpyHostToDevice, x.s));
	CUDA_TRY(cudaMemcpyAsync(isum, is.data(), n * sizeof(S), cudaMemcpyHostToDevice, x.s));
	CUDA_TRY(cudaMemcpyAsync(iecc, ie.data(), n * sizeof(S), cudaMemcpyHostToDevice, x.s));
	const T *d = x.base<T>(std::is_same<T, short>::value ? (void *)x.d16 : x.d, v.B, v.npad);
	if constexpr (I)
		stats_rows<T><<<std::min(rows, 65535), 256, 0, x.s>>>(d, v.npad, (int)n, first, end, h,
		                                                     oreach, osum, oecc);
	else
		stats_rows_ordered<T><<<(rows + 127) / 128, 128, 0, x.s>>>(d, v.npad, (int)n, first, end,
		                                                          at, oreach, osum, oecc);
	CUDA_TRY(cudaGetLastError());
	stats_cols<T><<<cblocks, 256, 0, x.s>>>(d, v.npad, (int)n, first, end, at, h, ireach, isum,
	                                       iecc, harm);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaMemcpyAsync(ds.out_reach.data(), oreach, n * 8, cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(ds.in_reach.data(), ireach, n * 8, cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(os.data(), osum, n * sizeof(S), cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(oe.data(), oecc, n * sizeof(S), cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(is.data(), isum, n * sizeof(S), cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(ie.data(), iecc, n * sizeof(S), cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaMemcpyAsync(ds.harm.data(), harm, n * 8, cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaStreamSynchronize(x.s));
	if constexpr (I)
		ds.out_isum = os, ds.out_iecc = oe, ds.in_isum = is, ds.in_iecc = ie;
	else
		ds.out_fsum = os, ds.out_fecc = oe, ds.in_fsum = is, ds.in_fecc = ie;
	return 0;
}

// A device's out figures into out (rows first .. end - 1), or with in,
// the in figures of every device (n each); positions put back at their
// vertices (order: the vertex at each position, or NULL).
void put_stats(const DevStats &ds, uint64_t n, uint32_t type, const int32_t *order, bool in,
               gs_stats *out)
{
	const bool is_int = type == ST_INT32;
	const uint64_t p0 = in ? 0 : (uint64_t)ds.first, p1 = in ? n : (uint64_t)ds.end;
	const int dir = in ? GS_IN : GS_OUT;
	for (uint64_t p = p0; p < p1; p++) {
		const uint64_t u = order ? (uint64_t)order[p] : p;
		out->reach[dir][u] = in ? ds.in_reach[p] : ds.out_reach[p];
		if (is_int) {
			((int64_t *)out->sum[dir])[u] = in ? ds.in_isum[p] : ds.out_isum[p];
			((int32_t *)out->ecc[dir])[u] = (int32_t)(in ? ds.in_iecc[p] : ds.out_iecc[p]);
		} else {
			const double ecc = in ? ds.in_fecc[p] : ds.out_fecc[p];
			((double *)out->sum[dir])[u] = in ? ds.in_fsum[p] : ds.out_fsum[p];
			if (type == ST_FLOAT64)
				((double *)out->ecc[dir])[u] = ecc;
			else
				((float *)out->ecc[dir])[u] = (float)ecc;
		}
		if (in)
			out->harmonic[u] = ds.harm[p];
	}
}

// The reweighting's potentials h[v] (int32), in the run's positions, onto
// each of this process's devices (hd[g]; none where potential is NULL).
int potentials_on(Err e, Devs &v, uint64_t n, const Reorder *ro, const int64_t *potential,
                  long long *hd[MAX_GPUS])
{
	if (!potential)
		return 0;
	std::vector<long long> hp(n);
	for (uint64_t p = 0; p < n; p++)
		hp[p] = potential[ro ? (uint64_t)ro->host[p] : p];
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		if (cudaMalloc(&hd[g], n * 8) != cudaSuccess
		    || cudaMemcpy(hd[g], hp.data(), n * 8, cudaMemcpyHostToDevice) != cudaSuccess)
			return fail(e, "the potentials on device %d: %s", v.dev[g].id,
			            cudaGetErrorString(cudaGetLastError()));
	}
	return 0;
}

void potentials_free(Devs &v, long long *hd[MAX_GPUS])
{
	for (int g = v.first; g < v.last; g++)
		if (hd[g]) {
			cudaSetDevice(v.dev[g].id);
			cudaFree(hd[g]);
		}
}

// Device x's figures (stats_of_device) for distances of type (lanes16:
// int32 distances left in 16-bit lanes).
int stats_of_type(Err e, const Devs &v, const Dev &x, uint64_t n, uint32_t type, bool lanes16,
                  const long long *h, const int32_t *at, DevStats &ds)
{
	return lanes16                ? stats_of_device<short>(e, v, x, n, h, at, ds)
	       : type == ST_INT32     ? stats_of_device<int>(e, v, x, n, h, at, ds)
	       : type == ST_FLOAT64   ? stats_of_device<double>(e, v, x, n, h, at, ds)
	                              : stats_of_device<float>(e, v, x, n, h, at, ds);
}

// The statistics of a run in core in this process (fwg_opts.stats): the
// reweighting's potentials on each device in the run's positions, then
// every device's figures (lanes16: int32 distances left in 16-bit lanes).
int stats_run(Err e, Devs &v, uint64_t n, uint32_t type, bool lanes16, const Reorder *ro,
              const int64_t *potential, gs_stats *out)
{
	long long *hd[MAX_GPUS] = {};
	int rc = potentials_on(e, v, n, ro, potential, hd);
	// device after device, each adding its rows to the in figures so far
	DevStats ds;
	for (int g = v.first; g < v.last && rc == 0; g++) {
		const Dev &x = v.dev[g];
		CUDA_TRY(cudaSetDevice(x.id));
		const int32_t *at = ro ? ro->pos : nullptr; // (an order: one device)
		if (stats_of_type(e, v, x, n, type, lanes16, hd[g], at, ds))
			rc = -1;
		else
			put_stats(ds, n, type, ro ? ro->host : nullptr, false, out);
	}
	if (rc == 0)
		put_stats(ds, n, type, ro ? ro->host : nullptr, true, out);
	potentials_free(v, hd);
	return rc;
}

// Figures as 8-byte words between processes: the in figures (n each: reach,
// sum, eccentricity, harmonic) and a band's out figures (its rows: reach,
// sum, eccentricity).
std::vector<uint64_t> in_words(const DevStats &ds, bool is_int, uint64_t n)
{
	std::vector<uint64_t> w(4 * n);
	memcpy(&w[0], ds.in_reach.data(), n * 8);
	memcpy(&w[n], is_int ? (const void *)ds.in_isum.data() : ds.in_fsum.data(), n * 8);
	memcpy(&w[2 * n], is_int ? (const void *)ds.in_iecc.data() : ds.in_fecc.data(), n * 8);
	memcpy(&w[3 * n], ds.harm.data(), n * 8);
	return w;
}

void set_in(DevStats &ds, bool is_int, uint64_t n, const std::vector<uint64_t> &w)
{
	ds.in_reach.resize(n), ds.harm.resize(n);
	if (is_int)
		ds.in_isum.resize(n), ds.in_iecc.resize(n);
	else
		ds.in_fsum.resize(n), ds.in_fecc.resize(n);
	memcpy(ds.in_reach.data(), &w[0], n * 8);
	memcpy(is_int ? (void *)ds.in_isum.data() : ds.in_fsum.data(), &w[n], n * 8);
	memcpy(is_int ? (void *)ds.in_iecc.data() : ds.in_fecc.data(), &w[2 * n], n * 8);
	memcpy(ds.harm.data(), &w[3 * n], n * 8);
}

std::vector<uint64_t> out_words(const DevStats &ds, bool is_int)
{
	const size_t k = ds.end > ds.first ? (size_t)(ds.end - ds.first) : 0, f = (size_t)ds.first;
	std::vector<uint64_t> w(3 * k + 1);
	if (k == 0)
		return w;
	memcpy(&w[0], &ds.out_reach[f], k * 8);
	memcpy(&w[k], is_int ? (const void *)&ds.out_isum[f] : &ds.out_fsum[f], k * 8);
	memcpy(&w[2 * k], is_int ? (const void *)&ds.out_iecc[f] : &ds.out_fecc[f], k * 8);
	return w;
}

void set_out(DevStats &ds, bool is_int, uint64_t n, int first, int end,
             const std::vector<uint64_t> &w)
{
	const size_t k = end > first ? (size_t)(end - first) : 0, f = (size_t)first;
	ds.first = first, ds.end = end;
	ds.out_reach.resize(n);
	if (is_int)
		ds.out_isum.resize(n), ds.out_iecc.resize(n);
	else
		ds.out_fsum.resize(n), ds.out_fecc.resize(n);
	if (k == 0)
		return;
	memcpy(&ds.out_reach[f], &w[0], k * 8);
	memcpy(is_int ? (void *)&ds.out_isum[f] : &ds.out_fsum[f], &w[k], k * 8);
	memcpy(is_int ? (void *)&ds.out_iecc[f] : &ds.out_fecc[f], &w[2 * k], k * 8);
}

// The statistics of a run over several processes, on their devices: the
// potentials from process 0 to each; the in figures passed from process to
// process in the order of their bands (the order of a stream's rows, so
// apsp-stats' bits), each adding its rows; every band's out figures and the
// last in figures to process 0, which alone fills out (the others: NULL).
int stats_ranks(Err e, Devs &v, uint64_t n, uint32_t type, const int64_t *potential,
                gs_stats *out)
{
	const bool is_int = type == ST_INT32;
	const int rank = v.first, ranks = v.count;
	Dev &x = v.dev[rank];
	CUDA_TRY(cudaSetDevice(x.id));
	uint64_t has = potential != nullptr;
	std::vector<int64_t> hp;
	for (int r = 1; r < ranks && rank == 0; r++)
		if (pass_host(e, x, &has, 8, r, true)
		    || (has && pass_host(e, x, (void *)potential, n * 8, r, true)))
			return -1;
	if (rank > 0) {
		if (pass_host(e, x, &has, 8, 0, false))
			return -1;
		hp.resize(has ? n : 0);
		if (has && pass_host(e, x, hp.data(), n * 8, 0, false))
			return -1;
		potential = has ? hp.data() : nullptr;
	}
	long long *hd[MAX_GPUS] = {};
	DevStats ds;
	std::vector<uint64_t> w;
	int rc = potentials_on(e, v, n, nullptr, potential, hd);
	if (rc == 0 && rank > 0) { // the in figures of the bands before
		w.resize(4 * n);
		rc = pass_host(e, x, w.data(), w.size() * 8, rank - 1, false);
		if (rc == 0)
			set_in(ds, is_int, n, w);
	}
	if (rc == 0)
		rc = stats_of_type(e, v, x, n, type, false, hd[rank], nullptr, ds);
	potentials_free(v, hd);
	if (rc == 0 && rank + 1 < ranks) {
		w = in_words(ds, is_int, n);
		rc = pass_host(e, x, w.data(), w.size() * 8, rank + 1, true);
	}
	if (rc == 0 && rank > 0) { // to process 0: this band's rows, and from the last the in figures
		w = out_words(ds, is_int);
		rc = pass_host(e, x, w.data(), w.size() * 8, 0, true);
		if (rc == 0 && rank + 1 == ranks) {
			w = in_words(ds, is_int, n);
			rc = pass_host(e, x, w.data(), w.size() * 8, 0, true);
		}
		return rc;
	}
	if (rc)
		return rc;
	put_stats(ds, n, type, nullptr, false, out);
	for (int r = 1; r < ranks && rc == 0; r++) {
		const Dev &y = v.dev[r];
		const int first = (int)y.first_row(v.B), end = (int)y.end_row(v.B, n);
		w.assign(3 * (size_t)(end > first ? end - first : 0) + 1, 0);
		rc = pass_host(e, x, w.data(), w.size() * 8, r, false);
		if (rc == 0) {
			set_out(ds, is_int, n, first, end, w);
			put_stats(ds, n, type, nullptr, false, out);
		}
	}
	if (rc == 0 && ranks > 1) {
		w.resize(4 * n);
		rc = pass_host(e, x, w.data(), w.size() * 8, ranks - 1, false);
		if (rc == 0)
			set_in(ds, is_int, n, w);
	}
	if (rc == 0)
		put_stats(ds, n, type, nullptr, true, out);
	return rc;
}

} // namespace
#endif
