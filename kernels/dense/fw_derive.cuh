// fw_derive.cuh - predecessors derived from the final distances: the lists
// of edges into each vertex (made on the device, sorted by weight), the
// kernel that searches them, and the host side that makes the lists beside
// the rounds and launches the derivation (included by fw_rounds.cuh).
#ifndef APSP_FW_DERIVE_CUH
#define APSP_FW_DERIVE_CUH

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "fw_exchange.cuh"
#include "fw_tiles16.cuh"

namespace {

// ---- predecessors derived from distances ------------------------------------
//
// With the final distances known, a predecessor of j on a shortest path from
// i is any u with d[i][u] + w(u, j) = d[i][j].  The edges into each vertex are
// listed by increasing weight (key: w << 32 | u), so the search stops at the
// first weight above d[i][j] and usually finds a u among the first few.
// Where zero-weight cycles make such u point at each other, the host's
// repair of predecessor chains re-attaches them, as after any blocked run.

// A weight as its key's upper half: non-negative int32 or float32 order the
// same as their bits (a float -0 counts as 0).
__device__ __forceinline__ unsigned weight_bits(int v) { return (unsigned)v; }
__device__ __forceinline__ unsigned weight_bits(float v) { return __float_as_uint(fmaxf(v, 0.0f)); }

// in[j] += edges u -> j (u != j, w[u][j] < inf); rows of a 32 x 32 tile.
template <typename T>
__global__ void in_degree(const T *__restrict__ w, int npad, int n, T inf,
                          unsigned long long *__restrict__ in)
{
	const int j = blockIdx.x * 32 + threadIdx.x;
	if (j >= n)
		return;
	unsigned c = 0;
	for (int u = blockIdx.y * 32; u < n && u < blockIdx.y * 32 + 32; u++)
		c += u != j && w[(size_t)u * npad + j] < inf;
	if (c)
		atomicAdd(&in[j], (unsigned long long)c);
}

// Keys of the edges into j at off[j] .. off[j + 1] - 1, in no set order
// (sorted afterwards); fill[j] counts those placed.
template <typename T>
__global__ void in_edges(const T *__restrict__ w, int npad, int n, T inf,
                         const unsigned long long *__restrict__ off,
                         unsigned long long *__restrict__ fill,
                         unsigned long long *__restrict__ keys)
{
	const int j = blockIdx.x * 32 + threadIdx.x;
	if (j >= n)
		return;
	for (int u = blockIdx.y * 32; u < n && u < blockIdx.y * 32 + 32; u++) {
		const T v = w[(size_t)u * npad + j];
		if (u != j && v < inf)
			keys[off[j] + atomicAdd(&fill[j], 1ull)] =
			        (unsigned long long)weight_bits(v) << 32 | (unsigned)u;
	}
}

// The longest list: *longest = max over j of off[j + 1] - off[j] (starts at 0).
__global__ void longest_list(const unsigned long long *__restrict__ off, int n,
                             unsigned long long *longest)
{
	unsigned long long m = 0;
	for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x)
		m = max(m, off[j + 1] - off[j]);
	m = __reduce_max_sync(0xffffffffu, (unsigned)m); // (lists shorter than 2^32 here)
	if ((threadIdx.x & 31) == 0)
		atomicMax(longest, m);
}

// Each list of at most SORT_KEYS keys sorted in shared memory (bitonic, the
// list padded to a power of two with the largest key), CTA j taking list j:
// far quicker than a general segmented sort for the lists of graphs whose
// vertices have at most that many edges in (all keys differ: u does).
constexpr int SORT_KEYS = 4096;
__global__ void __launch_bounds__(256)
sort_lists(const unsigned long long *__restrict__ off, const unsigned long long *__restrict__ in,
           unsigned long long *__restrict__ out)
{
	__shared__ unsigned long long k[SORT_KEYS];
	const unsigned long long b = off[blockIdx.x];
	const int len = (int)(off[blockIdx.x + 1] - b);
	if (len == 0)
		return;
	int size = 2;
	while (size < len)
		size *= 2;
	for (int t = threadIdx.x; t < size; t += blockDim.x)
		k[t] = t < len ? in[b + t] : ~0ull;
	__syncthreads();
	for (int m = 2; m <= size; m *= 2)
		for (int h = m / 2; h > 0; h /= 2) {
			for (int t = threadIdx.x; t < size / 2; t += blockDim.x) {
				const int lo = 2 * t - (t & (h - 1)), hi = lo + h; // pairs h apart
				const bool up = (lo & m) == 0;
				const unsigned long long x = k[lo], y = k[hi];
				if ((x > y) == up) {
					k[lo] = y;
					k[hi] = x;
				}
			}
			__syncthreads();
		}
	for (int t = threadIdx.x; t < len; t += blockDim.x)
		out[b + t] = k[t];
}

template <typename D> struct Derive;
// 16-bit distances of int32 weights: sums are exact.
template <> struct Derive<short> {
	static __device__ __forceinline__ bool finite(short d) { return d < INF16; }
	static __device__ __forceinline__ int weight(unsigned bits) { return (int)bits; }
};
// float32 distances: sums of the weights along a path may round differently
// from the blocked run's, so the closest u is taken where none is exact.
template <> struct Derive<float> {
	static __device__ __forceinline__ bool finite(float d) { return d < __int_as_float(0x7f800000); }
	static __device__ __forceinline__ float weight(unsigned bits) { return __uint_as_float(bits); }
};

// Row i of the distances in shared memory; p[i][j] = the first u of j's
// list with d[i][u] + w = d[i][j] (float32: the closest, if none is), or -1
// (j = i, unreachable, none).  Weights and distances are >= 0 here, so no u
// past the first weight above d[i][j] can match.  Rows row0 .. end - 1
// (dist and p point where row 0 would be).  gate: the largest 16-bit
// distance below INF16 (max_below); with the largest weight wmax it must
// stay below INF16, or the 16-bit run is rejected and p is left as it was.
template <typename D>
__global__ void derive_preds(const D *__restrict__ dist, int npad, int n,
                             const unsigned long long *__restrict__ off,
                             const unsigned long long *__restrict__ keys, int32_t *__restrict__ p,
                             int row0, int end, const int *gate, int wmax)
{
	if (gate && *gate + wmax >= INF16)
		return;
	extern __shared__ __align__(16) unsigned char smem[];
	D *row = (D *)smem;
	for (int i = row0 + blockIdx.x; i < end; i += gridDim.x) {
		for (int j = threadIdx.x; j < n; j += blockDim.x)
			row[j] = dist[(size_t)i * npad + j];
		__syncthreads();
		for (int j = threadIdx.x; j < n; j += blockDim.x) {
			const D dij = row[j];
			int32_t pred = -1;
			if (j != i && Derive<D>::finite(dij)) {
				float best = __int_as_float(0x7f800000);
				for (unsigned long long e = off[j], end = off[j + 1]; e < end; e++) {
					const unsigned long long k = keys[e];
					const auto wt = Derive<D>::weight((unsigned)(k >> 32));
					const int u = (int)(unsigned)k;
					if (wt > dij)
						break;
					const auto sum = row[u] + wt;
					if (sum == dij) {
						pred = u;
						break;
					}
					if constexpr (std::is_same<D, float>::value)
						if (Derive<D>::finite(row[u]) && fabsf(sum - dij) < best) {
							best = fabsf(sum - dij);
							pred = u;
						}
				}
			}
			p[(size_t)i * npad + j] = pred;
		}
		__syncthreads();
	}
}

// ---- the host side ------------------------------------------------------------

// Predecessors of rows first .. end - 1, derived from the final distances
// dist (fw_tiles.cuh) into p; both point where row 0 would be.  Once x's
// lists are sorted; with gate (16-bit distances), only if *gate + wmax stays
// below INF16, so that the verdict on the 16-bit run needs no wait first.
template <typename D>
int derive_rows(Err e, const Dev &x, const D *dist, int32_t *p, int npad, int n, int first,
                int end, const int *gate = nullptr, int wmax = 0)
{
	if (first >= end)
		return 0;
	const size_t sm = (size_t)n * sizeof(D);
	CUDA_TRY(cudaFuncSetAttribute(derive_preds<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                              (int)sm));
	const int rows = end - first;
	CUDA_TRY(cudaStreamWaitEvent(x.s, x.ie.ready, 0));
	derive_preds<D><<<rows < 16384 ? rows : 16384, 512, sm, x.s>>>(dist, npad, n, x.ie.off,
	                                                               x.ie.keys, p, first, end,
	                                                               gate, wmax);
	CUDA_TRY(cudaGetLastError());
	return 0;
}

// ... of the rows x holds.
template <typename D>
int derive(Err e, const Devs &v, const Dev &x, const D *dist, int n, const int *gate = nullptr,
           int wmax = 0)
{
	return derive_rows(e, x, dist, x.pbase(v.B, v.npad), v.npad, n, (int)x.first_row(v.B),
	                   (int)x.end_row(v.B, n), gate, wmax);
}

// Device memory the lists of total edges take, with 256 MiB to spare: the
// keys twice (the sort's input and output) and about as much for its scratch.
size_t lists_bytes(unsigned long long total) { return total * 8 * 3 + (256u << 20); }

// The lists of the edges into each vertex (InEdges) in two steps.
// lists_open: *ok = 0 where shared memory is short for a row of dist_bytes
// entries (the derivation's); otherwise ie's stream, which starts after what
// stream s has queued (the weights' upload), and *sure = 1 where device
// memory has room for the lists of a complete graph, so that the lists can
// be made later (lists_make) with nothing left to refuse them.
int lists_open(Err e, int n, size_t dist_bytes, cudaStream_t s, int device, InEdges *ie,
               int *ok, int *sure)
{
	*ok = *sure = 0;
	if ((size_t)n * dist_bytes > (size_t)smem_limit(device))
		return 0;
	int least = 0, greatest = 0;
	size_t free_b = 0, total_b = 0;
	CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	CUDA_TRY(cudaStreamCreateWithPriority(&ie->s, cudaStreamNonBlocking, least));
	CUDA_TRY(cudaEventCreateWithFlags(&ie->read, cudaEventDisableTiming));
	CUDA_TRY(cudaEventCreateWithFlags(&ie->ready, cudaEventDisableTiming));
	CUDA_TRY(cudaEventRecord(ie->read, s)); // (the weights are there)
	CUDA_TRY(cudaStreamWaitEvent(ie->s, ie->read, 0));
	CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
	*ok = 1;
	*sure = lists_bytes((unsigned long long)n * (n - 1)) <= free_b;
	return 0;
}

// lists_make: the edges of the weight matrix w (entries below inf) listed
// on ie's stream: their count comes back to the host (its one wait), then
// the keys are placed (ie->read: w may change after it) and sorted
// (ie->ready) while the host goes on: each in shared memory where none is
// longer than SORT_KEYS, by CUB's segmented sort otherwise.  *ok = 0 where
// device memory is short.
// Memory comes from the stream's pool (cudaMallocAsync), and none is given
// back before the run ends: a cudaMalloc may, and a cudaFree does, wait for
// the whole device, the rounds queued on it too.
template <typename T>
int lists_make(Err e, const T *w, int n, int npad, T inf, InEdges *ie, int *ok)
{
	*ok = 0;
	unsigned long long total = 0, longest = 0;
	size_t tmp_bytes = 0, scan_bytes = 0, free_b = 0, total_b = 0;
	const dim3 g((n + 31) / 32, (n + 31) / 32);
	CUDA_TRY(cudaMallocAsync(&ie->off, (n + 1) * sizeof *ie->off, ie->s));
	CUDA_TRY(cudaMallocAsync(&ie->fill, (n + 2) * sizeof *ie->fill, ie->s)); // (+ the longest)
	CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, ie->fill, ie->off, n + 1, ie->s));
	CUDA_TRY(cudaMallocAsync(&ie->tmp, scan_bytes, ie->s));
	CUDA_TRY(cudaMemsetAsync(ie->fill, 0, (n + 2) * sizeof *ie->fill, ie->s));
	in_degree<<<g, 32, 0, ie->s>>>(w, npad, n, inf, ie->fill);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cub::DeviceScan::ExclusiveSum(ie->tmp, scan_bytes, ie->fill, ie->off, n + 1, ie->s));
	longest_list<<<(n + 255) / 256, 256, 0, ie->s>>>(ie->off, n, ie->fill + n + 1);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaMemcpyAsync(&total, ie->off + n, sizeof total, cudaMemcpyDeviceToHost, ie->s));
	CUDA_TRY(cudaMemcpyAsync(&longest, ie->fill + n + 1, sizeof longest, cudaMemcpyDeviceToHost,
	                         ie->s));
	CUDA_TRY(cudaStreamSynchronize(ie->s));
	CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
	if (lists_bytes(total) > free_b)
		return 0;
	CUDA_TRY(cudaMallocAsync(&ie->unsorted, (total ? total : 1) * 8, ie->s));
	CUDA_TRY(cudaMallocAsync(&ie->keys, (total ? total : 1) * 8, ie->s));
	const bool general = total && longest > (unsigned long long)SORT_KEYS;
	if (general) {
		CUDA_TRY(cub::DeviceSegmentedSort::SortKeys(nullptr, tmp_bytes, ie->unsorted, ie->keys,
		                                             (int64_t)total, n, ie->off, ie->off + 1,
		                                             ie->s));
		if (cudaMallocAsync(&ie->sort_tmp, tmp_bytes, ie->s) != cudaSuccess) {
			cudaGetLastError();
			return 0;
		}
	}
	CUDA_TRY(cudaMemsetAsync(ie->fill, 0, (n + 1) * sizeof *ie->fill, ie->s));
	in_edges<<<g, 32, 0, ie->s>>>(w, npad, n, inf, ie->off, ie->fill, ie->unsorted);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaEventRecord(ie->read, ie->s));
	if (general && cub::DeviceSegmentedSort::SortKeys(ie->sort_tmp, tmp_bytes, ie->unsorted,
	                                                  ie->keys, (int64_t)total, n, ie->off,
	                                                  ie->off + 1, ie->s) != cudaSuccess)
		return fail(e, "sorting the edges into each vertex: %s",
		            cudaGetErrorString(cudaGetLastError()));
	if (total && !general)
		sort_lists<<<n, 256, 0, ie->s>>>(ie->off, ie->unsorted, ie->keys);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaEventRecord(ie->ready, ie->s));
	*ok = 1;
	return 0;
}

// Both steps at once.
template <typename T>
int list_in_edges(Err e, const T *w, int n, int npad, T inf, size_t dist_bytes, cudaStream_t s,
                  int device, InEdges *ie, int *ok)
{
	int sure = 0;
	const int rc = lists_open(e, n, dist_bytes, s, device, ie, ok, &sure);
	if (rc || !*ok)
		return rc;
	return lists_make<T>(e, w, n, npad, inf, ie, ok);
}

// The lists of edges into each vertex (derived predecessors) on every
// device; *ok = 0 where memory is short for them anywhere.  elem: bytes of a
// distance the derivation holds per row in shared memory.
template <typename T>
int list_in_edges_all(Err e, Devs &v, int n, T inf, size_t elem, int *ok)
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
		rc = list_in_edges<T>(e, w, n, v.npad, inf, elem, x.s, x.id, &x.ie, &one);
		short_of[g] = !one;
	}
	for (int g = v.first; g < v.last; g++)
		if (full[g]) { // (read by the lists' own stream)
			cudaSetDevice(v.dev[g].id);
			if (v.dev[g].ie.s)
				cudaStreamSynchronize(v.dev[g].ie.s);
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
#endif
