// fw_smallgraph_rounds.cuh - the kernels of many small graphs in one call
// (fw_smallgraphs.h), over a semiring: the textbook order's steps on each
// graph, the rows of a step in parallel.
//
// At step k row k and column k do not change (the diagonal is the
// semiring's one: an entry extended by it is not strictly better), so
// every entry sees the same operands in the same order as the textbook's
// loop (lib/cpu/fw_batch.c) gives it: the same bits.  Shortest paths stop a graph at
// the first pivot whose diagonal entry is below 0 (a negative cycle through
// it, with the earlier pivots' vertices): before it no walk holds a
// negative cycle, so no int32 sum leaves (-ST_INF_I32, ST_INF_I32).
#ifndef APSP_FW_SMALLGRAPH_ROUNDS_CUH
#define APSP_FW_SMALLGRAPH_ROUNDS_CUH

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "types.h"

namespace sg {

// How a launch reads its graphs (Rooms::flags): DENSE from the caller's
// dense arrays by scipy's rules (in, of in_type: an entry is an edge where
// 1e-8 < |w| < infinity, the diagonal 0), with UNDIRECTED each edge both
// ways at the smaller weight, with UNWEIGHTED every edge 1.  Without DENSE
// the rooms hold weights as fw_batch() takes them, solved in place (made
// from lists of arcs by scatter_arcs, or the caller's).  WHOLE (always
// with DENSE): the results fill each whole room (unreachable where there
// is no path or no vertex, no_pred the predecessors there); else the rest
// of a room is left as it was.
enum { DENSE = 1, UNDIRECTED = 2, UNWEIGHTED = 4, WHOLE = 8 };
// in_type beyond lib/types.h's element types: numpy's default integers.
enum { IN_INT64 = 4 };

// One launch's graphs on the device: rooms of n x n at dist (and pred),
// graph list[b] of a chunk, size[list[b]] vertices, b < count.
template <typename T> struct Rooms {
	T *dist;
	int32_t *pred; // or null
	const uint32_t *size;
	const uint32_t *list;
	int64_t *cycle;
	uint64_t count;
	uint32_t n;
	uint32_t flags;
	const void *in; // DENSE: the arrays, in_type
	uint32_t in_type;
	T unreachable;
	int32_t no_pred;
};

// DENSE: entry e of the input by scipy's rules, +infinity no edge.
template <typename T> __device__ __forceinline__ double dense_entry(const Rooms<T> &r, uint64_t e)
{
	double x;
	switch (r.in_type) {
	case ST_INT32: x = ((const int32_t *)r.in)[e]; break;
	case ST_FLOAT32: x = ((const float *)r.in)[e]; break;
	case IN_INT64: x = (double)((const int64_t *)r.in)[e]; break;
	default: x = ((const double *)r.in)[e]; break;
	}
	const double a = fabs(x);
	if (!(a > 1e-8 && a < INFINITY)) // (NaN too)
		return INFINITY;
	return r.flags & UNWEIGHTED ? 1.0 : x;
}

template <typename T> __device__ __forceinline__ T infinite()
{
	if constexpr (std::is_same<T, int32_t>::value)
		return ST_INF_I32;
	else
		return T(INFINITY);
}

// Shortest paths (min, +): no path INF (+infinity), the diagonal 0 unless a
// negative loop.  times(a, b) extends a path a (the device-memory kernel's
// order: row i's entry through k, as lib/cpu/fw_batch.c's SUM_I32 gives
// it); extend(a, b) and relax(a, b, c) (the better of c and a extended) take
// b a path instead (the register kernels: row k's entry), which gives the
// same sums: int32 INF + b is held at INF, as the CPU passes the row over.
// NO_NEG_ZERO: no weight is -0 (scipy's rules for dense arrays make it no
// edge), so that fmin picks as the strict order does: one instruction.
template <typename T, bool NO_NEG_ZERO = false> struct MinPlus {
	static constexpr bool CYCLES = true;
	__device__ static T none() { return infinite<T>(); }
	__device__ static T diagonal(T x) { return x > T(0) ? T(0) : x; }
	__device__ static bool has(T x) { return x < infinite<T>(); }
	__device__ static T times(T a, T b)
	{
		if constexpr (std::is_same<T, int32_t>::value)
			return b >= ST_INF_I32 ? ST_INF_I32 : a + b;
		else
			return a + b;
	}
	__device__ static T extend(T a, T b)
	{
		if constexpr (std::is_same<T, int32_t>::value)
			return a >= ST_INF_I32 ? ST_INF_I32 : a + b;
		else
			return a + b;
	}
	__device__ static bool better(T s, T c) { return s < c; }
	__device__ static T relax(T a, T b, T c)
	{
		if constexpr (std::is_same<T, int32_t>::value) {
			// b >= 0: a + b stays below 2^31, and at least c where a is INF
			if (b >= 0)
				return __viaddmin_s32(a, b, c); // one VIADDMNMX on sm_90
		} else if constexpr (NO_NEG_ZERO) {
			return fmin(a + b, c);
		}
		const T s = extend(a, b);
		return s < c ? s : c;
	}
};

// Widest paths (max, min): no path -infinity, the diagonal +infinity.
template <typename T> struct Widest {
	static constexpr bool CYCLES = false;
	__device__ static T none() { return -infinite<T>(); }
	__device__ static T diagonal(T) { return infinite<T>(); }
	__device__ static bool has(T x) { return x > -infinite<T>(); }
	__device__ static T times(T a, T b) { return a < b ? a : b; }
	__device__ static T extend(T a, T b) { return a < b ? a : b; }
	__device__ static bool better(T s, T c) { return s > c; }
	__device__ static T relax(T a, T b, T c)
	{
		const T s = extend(a, b);
		return s > c ? s : c;
	}
};

// The weight of arc (i, j) of graph g (a vertex of it, its room at base)
// as the rounds start: the semiring's zero where there is none, the
// diagonal its one (shortest paths: a negative loop kept, in place).
template <typename T, typename S>
__device__ __forceinline__ T first_weight(const Rooms<T> &r, uint64_t base, int i, int j)
{
	T v;
	if (r.flags & DENSE) {
		double x = dense_entry(r, base + (uint64_t)i * r.n + j);
		if (r.flags & UNDIRECTED) {
			const double y = dense_entry(r, base + (uint64_t)j * r.n + i);
			x = y < x ? y : x;
		}
		if (i == j)
			x = 0;
		v = x < INFINITY ? T(x) : S::none();
	} else {
		v = r.dist[base + (uint64_t)i * r.n + j];
	}
	return i == j ? S::diagonal(v) : v;
}

// What a room's entry (i, j) holds at the end where (i, j) is not a pair of
// the graph's vertices (WHOLE: unreachable), and where it holds d.
template <typename T, typename S> __device__ __forceinline__ T final_value(const Rooms<T> &r, T d)
{
	return (r.flags & WHOLE) && !S::has(d) ? r.unreachable : d;
}

// ---- a graph in registers: N vertices (its own padded up to N), a
// thread a piece of J rows of one column (the threads of a warp on
// neighbouring columns, so that the rooms are read and written a row at a
// time), N / J pieces a column ----

template <int N, int J> struct Shape {
	static constexpr int PIECES = N / J;             // threads a column
	static constexpr int TG = N * PIECES;            // threads a graph
	static constexpr int G = TG <= 32 ? 128 / TG : 1; // graphs a block
	static constexpr int THREADS = TG * G;
	static constexpr bool WARP = TG <= 32;           // a graph within a warp
	static_assert(N % J == 0 && (TG >= 32 || 32 % TG == 0), "a shape of threads");
};

// Column k's entries in shared memory, J-row pieces apart by 16 bytes (so
// that the pieces' threads read other banks).
template <typename T, int J> __device__ __forceinline__ int at(int i)
{
	return i + (i / J) * (16 / (int)sizeof(T));
}

// Step k on thread (piece r0.., column j): column k (every d[i][k]) comes
// from shared memory, row k's entry d[k][j] (and its predecessor) from the
// thread's registers where its piece holds row k, else from shared memory;
// the owners of column k + 1 and row k + 1 write them there after the step.
template <int N, int J, typename T, typename S, bool PATHS>
__global__ void __launch_bounds__(Shape<N, J>::THREADS)
shared_rounds(Rooms<T> r)
{
	using Sh = Shape<N, J>;
	constexpr int COL = N + Sh::PIECES * (16 / (int)sizeof(T)) + 4;
	constexpr int ROW = Sh::PIECES > 1 ? N : 1;
	__shared__ alignas(16) T colk[Sh::G][2][COL];
	__shared__ T rowk[Sh::G][2][ROW];
	__shared__ int32_t predk[Sh::G][2][PATHS ? ROW : 1];

	const int gl = threadIdx.x / Sh::TG, t = threadIdx.x % Sh::TG;
	const int j = t % N, pb = t / N, r0 = pb * J;
	const uint64_t b = (uint64_t)blockIdx.x * Sh::G + gl;
	const bool live = b < r.count;
	const uint64_t g = live ? r.list[b] : 0;
	const int size = live ? (int)r.size[g] : 0;
	int kmax = size; // the steps the threads that sync together take
	if (Sh::WARP)
		kmax = __reduce_max_sync(0xffffffffu, size);
	const uint64_t nn = (uint64_t)r.n * r.n;
	T *room = r.dist + g * nn;
	int32_t *proom = PATHS ? r.pred + g * nn : nullptr;

	T d[J];
	int32_t p[PATHS ? J : 1];
#pragma unroll
	for (int rr = 0; rr < J; rr++) {
		const int i = r0 + rr;
		T v = i < size && j < size ? first_weight<T, S>(r, g * nn, i, j) : S::none();
		if (i == j)
			v = S::diagonal(v);
		d[rr] = v;
		if constexpr (PATHS)
			p[rr] = i != j && S::has(v) ? i : -1;
	}
	auto sync = [] {
		if (Sh::WARP)
			__syncwarp();
		else
			__syncthreads();
	};
	// pivot 0's column and row
	if (j == 0) {
#pragma unroll
		for (int rr = 0; rr < J; rr++)
			colk[gl][0][at<T, J>(r0 + rr)] = d[rr];
	}
	if (Sh::PIECES > 1 && pb == 0) {
		rowk[gl][0][j] = d[0];
		if constexpr (PATHS)
			predk[gl][0][j] = p[0];
	}
	sync();
	int cycle = -1;
	// the steps of a piece unrolled (their register indices known at
	// compile time), the pieces not (the code's size)
#pragma unroll 1
	for (int kb = 0; kb < Sh::PIECES; kb++) {
#pragma unroll
		for (int kk = 0; kk < J; kk++) {
			const int k = kb * J + kk, h = k & 1;
			if (k >= kmax)
				break;
			if (S::CYCLES && cycle < 0 && k < size && colk[gl][h][at<T, J>(k)] < T(0))
				cycle = k;
			if (cycle < 0 && k < size) {
				const T bkj = Sh::PIECES == 1 ? d[kk] : rowk[gl][h][j];
				int32_t pkj = 0;
				if constexpr (PATHS)
					pkj = Sh::PIECES == 1 ? p[kk] : predk[gl][h][j];
				if (S::has(bkj)) {
					const T *ck = &colk[gl][h][at<T, J>(r0)];
#pragma unroll
					for (int rr = 0; rr < J; rr++) {
						if constexpr (PATHS) {
							const T s = S::extend(ck[rr], bkj);
							if (S::better(s, d[rr]))
								d[rr] = s, p[rr] = pkj;
						} else {
							d[rr] = S::relax(ck[rr], bkj, d[rr]);
						}
					}
				}
			}
			if (k + 1 < kmax) { // pivot k + 1's column and row
				if (j == k + 1) {
#pragma unroll
					for (int rr = 0; rr < J; rr++)
						colk[gl][h ^ 1][at<T, J>(r0 + rr)] = d[rr];
				}
				if (Sh::PIECES > 1) {
					const bool own = kk + 1 < J ? pb == kb : pb == kb + 1;
					if (own) {
						rowk[gl][h ^ 1][j] = d[kk + 1 < J ? kk + 1 : 0];
						if constexpr (PATHS)
							predk[gl][h ^ 1][j] = p[kk + 1 < J ? kk + 1 : 0];
					}
				}
			}
			sync();
		}
	}
	if (!live)
		return;
	if (t == 0)
		r.cycle[g] = cycle;
	const bool whole = r.flags & WHOLE;
#pragma unroll
	for (int rr = 0; rr < J; rr++) {
		const int i = r0 + rr;
		const uint64_t e = (uint64_t)i * r.n + j;
		if (i < size && j < size)
			room[e] = final_value<T, S>(r, d[rr]);
		else if (whole && i < (int)r.n && j < (int)r.n)
			room[e] = r.unreachable;
		if constexpr (PATHS) {
			if (i < (int)r.n && j < (int)r.n)
				proom[e] = i < size && j < size && p[rr] >= 0 ? p[rr] : r.no_pred;
		}
	}
	for (uint64_t e = (uint64_t)t; r.n > N && (PATHS || whole) && e < nn; e += Sh::TG) {
		const uint64_t ri = e / r.n, rj = e % r.n; // rooms wider than N
		if (ri < (uint64_t)N && rj < (uint64_t)N)
			continue;
		if (PATHS)
			proom[e] = r.no_pred;
		if (whole)
			room[e] = r.unreachable;
	}
}

template <int N, int J, typename T, typename S, bool PATHS>
cudaError_t launch_shared(const Rooms<T> &r, cudaStream_t s)
{
	using Sh = Shape<N, J>;
	const uint64_t blocks = (r.count + Sh::G - 1) / Sh::G;
	shared_rounds<N, J, T, S, PATHS><<<(unsigned)blocks, Sh::THREADS, 0, s>>>(r);
	return cudaGetLastError();
}

// ---- a larger graph in device memory, a block a graph ----

constexpr int GLOBAL_THREADS = 1024;

template <typename T, typename S, bool PATHS>
__global__ void __launch_bounds__(GLOBAL_THREADS) global_rounds(Rooms<T> r)
{
	const uint64_t g = r.list[blockIdx.x];
	const uint64_t n = r.n, size = r.size[g], nn = n * n;
	T *d = r.dist + g * nn;
	int32_t *p = PATHS ? r.pred + g * nn : nullptr;
	const bool whole = r.flags & WHOLE;
	for (uint64_t e = threadIdx.x; e < nn; e += blockDim.x) {
		const uint64_t i = e / n, j = e % n;
		if (i < size && j < size) {
			const T v = first_weight<T, S>(r, g * nn, (int)i, (int)j);
			if (i == j || whole)
				d[e] = v;
			if (PATHS)
				p[e] = i != j && S::has(v) ? (int32_t)i : -1;
		} else {
			if (PATHS)
				p[e] = r.no_pred;
			if (whole)
				d[e] = r.unreachable;
		}
	}
	__syncthreads();
	int64_t cycle = -1;
	for (uint64_t k = 0; k < size; k++) {
		if (S::CYCLES && d[k * n + k] < T(0)) {
			cycle = (int64_t)k;
			break;
		}
		for (uint64_t e = threadIdx.x; e < size * size; e += blockDim.x) {
			const uint64_t i = e / size, j = e % size;
			if (i == k)
				continue;
			const T a = d[i * n + k];
			if (!S::has(a))
				continue;
			const T s = S::times(a, d[k * n + j]);
			if (S::better(s, d[i * n + j])) {
				d[i * n + j] = s;
				if (PATHS)
					p[i * n + j] = p[k * n + j];
			}
		}
		__syncthreads();
	}
	if (threadIdx.x == 0)
		r.cycle[g] = cycle;
	for (uint64_t e = threadIdx.x; e < size * size; e += blockDim.x) {
		const uint64_t at = e / size * n + e % size;
		if (whole)
			d[at] = final_value<T, S>(r, d[at]);
		if (PATHS && p[at] < 0)
			p[at] = r.no_pred;
	}
}

template <typename T, typename S, bool PATHS>
cudaError_t launch_global(const Rooms<T> &r, cudaStream_t s)
{
	global_rounds<T, S, PATHS><<<(unsigned)r.count, GLOBAL_THREADS, 0, s>>>(r);
	return cudaGetLastError();
}

// ---- rooms made from lists of arcs (float64 shortest paths) ----

// Graph b's room (b < count, list-free: a chunk's graphs in turn): no arc
// (+infinity) but the diagonal 0 within its size, then its arcs first[b]
// .. first[b + 1] - 1 ((u, v) pairs of its own vertices, weights w), the
// least of repeated arcs kept.
static __global__ void scatter_arcs(double *dist, uint32_t n, const uint32_t *size,
                             const uint64_t *first, const uint16_t *arcs, const double *w)
{
	const uint64_t b = blockIdx.x, nn = (uint64_t)n * n;
	double *room = dist + b * nn;
	const uint32_t k = size[b];
	for (uint64_t e = threadIdx.x; e < nn; e += blockDim.x)
		room[e] = e / n == e % n && e / n < k ? 0.0 : INFINITY;
	__syncthreads();
	for (uint64_t a = first[b] + threadIdx.x; a < first[b + 1]; a += blockDim.x) {
		unsigned long long *at = (unsigned long long *)(room + (uint64_t)arcs[2 * a] * n +
		                                                arcs[2 * a + 1]);
		const double x = w[a];
		unsigned long long old = *at;
		while (x < __longlong_as_double((long long)old)) {
			const unsigned long long was = atomicCAS(at, old, (unsigned long long)
			                                         __double_as_longlong(x));
			if (was == old)
				break;
			old = was;
		}
	}
}

// The launches of one element type, each type built in a file of its own
// (fw_smallgraphs_TYPE.cu): class c of the register rooms (ROOMS), or the
// device-memory kernel where c is CLASSES - 1.
constexpr int CLASSES = 5;
constexpr int ROOMS[CLASSES - 1] = {16, 32, 64, 128};
template <typename T>
cudaError_t launch(uint32_t semiring, int c, const Rooms<T> &r, bool paths, cudaStream_t s);

// Shortest paths for every type, widest paths for the float types.
template <typename T, typename S, bool PATHS>
cudaError_t launch_class(int c, const Rooms<T> &r, cudaStream_t s)
{
	if (r.count == 0)
		return cudaSuccess;
	switch (c) {
	case 0: return launch_shared<16, 16, T, S, PATHS>(r, s);
	case 1: return launch_shared<32, 32, T, S, PATHS>(r, s);
	case 2: return launch_shared<64, 32, T, S, PATHS>(r, s);
	case 3: return launch_shared<128, 32, T, S, PATHS>(r, s);
	default: return launch_global<T, S, PATHS>(r, s);
	}
}

#define SG_LAUNCH(T)                                                                 \
	template <>                                                                  \
	cudaError_t launch<T>(uint32_t semiring, int c, const Rooms<T> &r, bool paths, \
	                      cudaStream_t s)                                        \
	{                                                                            \
		if constexpr (std::is_same<T, double>::value) {                       \
			if (semiring == 0 && !paths && (r.flags & DENSE))            \
				return launch_class<T, MinPlus<T, true>, false>(c, r, s); \
		}                                                                    \
		if constexpr (!std::is_same<T, int32_t>::value) {                     \
			if (semiring == 1 /* FW_WIDEST */)                           \
				return paths ? launch_class<T, Widest<T>, true>(c, r, s) \
				             : launch_class<T, Widest<T>, false>(c, r, s); \
		}                                                                    \
		return paths ? launch_class<T, MinPlus<T>, true>(c, r, s)                \
		             : launch_class<T, MinPlus<T>, false>(c, r, s);              \
	}

} // namespace sg

#endif
