// fw_sweeps.cuh - the sparse engine's kernels (fw_sparse.cu schedules them):
// the two sweeps through the factor (lib/sparse/elim.h) for a batch of
// sources, and the batch's rows folded into the statistics or made in the
// vertices' numbering.
//
// d is n x S, position-major: column j holds source j's distances, so that
// a warp's loads of one position are one line.  A lane is a source: no
// thread reads another source's column.
//
// Up (sweep_up): from the source's position along its ancestors (the
// parent chain; every upper neighbour of a position is one of them), their
// entries set to unreachable first and then relaxed in order.  Nothing
// else of the column is written: the down sweep takes a position's value
// from the up sweep only where the position is an ancestor of the source
// (or the source), which its interval in the elimination tree's postorder
// says.
//
// Down: every position from the top, as groups of positions (Plan,
// fw_sparse.cu): a group's outside upper neighbours are read from the column
// once, all their loads in flight together, into slots in shared memory,
// and each position of the group, from the highest, takes its minimum over
// its upper neighbours from the slots (its own result goes to a slot too,
// for the positions below it in the group).  A road graph's positions share
// most of their upper neighbours with their neighbours in the order, so a
// slot is read several times for each load from memory.  A position's
// entries come from lists made on the host for the sweep (DevFactor: the
// slot's offset ready, those in slots first), the same on every lane.  The
// top of the elimination tree, the large separators, goes first
// (sweep_top: a CTA's warps share a source's rows); then the subtrees below
// it, packed into parts, each part a thread of its own for each source
// (sweep_down).  With int32 distances the sweeps also fold each source's
// own figures (OutRun) as they make its distances, so that the batch's d
// is read once more, for the vertices' in figures (fold_in).
#ifndef APSP_FW_SWEEPS_CUH
#define APSP_FW_SWEEPS_CUH

#include "fw_base.cuh"
#include "fw_cpasync.cuh"
#include "fw_stats_fold.cuh"

#include <stdint.h>

#include <type_traits>

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

// The factor on the device, with its groups for the down sweep.
struct DevFactor {
	long long *first = nullptr;
	int *upper = nullptr, *pos = nullptr, *parent = nullptr;
	void *up = nullptr;
	int *post = nullptr; // postorder number
	int *outside = nullptr, *ofirst = nullptr; // group g: its outside upper neighbours
	int *mfirst = nullptr; // group g: members mfirst[g] .. mfirst[g + 1] - 1, highest first
	int *pfirst = nullptr; // part r: groups pfirst[r] .. pfirst[r + 1] - 1
	// The members as the down sweep reads them (member m, in the order of
	// the groups): {position, its first entry, its first entry read from
	// d, the end of its entries} and {low, post} of the position (its
	// subtree); their entries, those from slots first (at: the slot's byte
	// offset from a thread's first slot) then those from d (at: the upper
	// neighbour), and their weights (the factor's type); the top's
	// members: how many of their first entries lie within their chunk.
	int4 *meta = nullptr;
	int2 *span = nullptr;
	int *at = nullptr, *inner = nullptr;
	void *weight = nullptr;
	int parts = 0; // besides part 0, the top
};

// int32 only: a source's out figures over the positions one block of the
// down sweep made (part y of the top's and the parts' blocks), the sums
// exact in any order, so that the sweeps fold them where they make the
// distances and fold_out_parts adds the parts' (no second read of d).
struct OutPart {
	unsigned c; // finite, off the diagonal
	int m;      // the largest, with 0
	long long s;
};
// Whether int32 distance x, at place at of a row whose own is self, is a
// figure's term: finite, off the diagonal.
__device__ __forceinline__ bool counted_i32(int x, int at, int self)
{
	return at != self && x < ST_INF_I32;
}
struct OutRun {
	unsigned c = 0;
	int m = 0;
	long long s = 0;
	// x, the distance to position p from the source at position sp
	__device__ __forceinline__ void add(int x, int p, int sp)
	{
		if (counted_i32(x, p, sp))
			c++, s += x, m = x > m ? x : m;
	}
	__device__ __forceinline__ void put(OutPart *to) const { *to = OutPart{c, m, s}; }
};
template <typename T> __host__ __device__ constexpr bool folds_out()
{
	return std::is_same<T, int>::value;
}

// acc lowered by y + w.  CHECK: a sum with an unreachable operand is left
// out (int32 where a weight is negative: unreachable plus a negative weight
// is below unreachable); else such a sum is unreachable or more by itself.
template <typename T, bool CHECK> __device__ __forceinline__ T relax(T acc, T y, T w)
{
	const T inf = Unreachable<T>::value();
	if (CHECK && (!(w < inf) || !(y < inf)))
		return acc;
	const T c = y + w;
	return c < acc ? c : acc;
}
// Threads a block of the parts' down sweep, for elements of es bytes.
__host__ __device__ constexpr int sweep_threads_of(size_t es) { return es > 4 ? 64 : 128; }
template <typename T> __host__ __device__ constexpr int sweep_threads()
{
	return sweep_threads_of(sizeof(T));
}

constexpr int UP_FLIGHT = 4, UP_WARPS = 4;

// The batch's count sources, spos[j] the position of lane j's (its column
// of d): the up sweep of each.  The lanes of a warp walk their chains
// together, the lowest position among them first, so that lanes whose
// chains have met (the sources of a warp lie near each other in a road
// graph's numbering, and so in the tree) take each of their common
// ancestors at once and their loads of it are one line.  A CTA's UP_WARPS
// warps (threadIdx.y) take the same 32 sources, each a share of every
// position's entries, UP_FLIGHT of them with their loads in flight at once
// (their upper neighbours are distinct, so every load of a round may go
// before its stores), a barrier between positions.
template <typename T>
__global__ void __launch_bounds__(32 * UP_WARPS)
sweep_up(const int *__restrict__ spos, int count, int S, const long long *__restrict__ first,
         const int *__restrict__ upper, const T *__restrict__ up, const int *__restrict__ parent,
         T *__restrict__ d)
{
	const unsigned all = 0xffffffffu, none = 0xffffffffu;
	const int j = blockIdx.x * 32 + threadIdx.x, w = threadIdx.y;
	const T inf = Unreachable<T>::value();
	T *col = d + j;
	const int ps = j < count ? spos[j] : -1;
	int p = ps;
	if (w == 0) {
		while (__any_sync(all, p >= 0)) { // the chain unreachable
			const unsigned low = __reduce_min_sync(all, p >= 0 ? (unsigned)p : none);
			if ((unsigned)p == low) {
				col[(size_t)p * S] = inf;
				p = parent[p];
			}
		}
		if (ps >= 0)
			col[(size_t)ps * S] = 0;
	}
	__syncthreads();
	p = ps;
	while (__any_sync(all, p >= 0)) { // (the same on every warp of the CTA)
		const unsigned low = __reduce_min_sync(all, p >= 0 ? (unsigned)p : none);
		if ((unsigned)p == low) {
			const T dp = col[(size_t)p * S];
			const long long k1 = dp < inf ? first[p + 1] : first[p];
			long long k = first[p] + w * UP_FLIGHT;
			for (; k + UP_FLIGHT <= k1; k += UP_WARPS * UP_FLIGHT) {
				T wt[UP_FLIGHT], x[UP_FLIGHT];
				T *at[UP_FLIGHT];
#pragma unroll
				for (int i = 0; i < UP_FLIGHT; i++)
					wt[i] = up[k + i], at[i] = col + (size_t)upper[k + i] * S;
#pragma unroll
				for (int i = 0; i < UP_FLIGHT; i++)
					x[i] = *at[i];
#pragma unroll
				for (int i = 0; i < UP_FLIGHT; i++)
					if (wt[i] < inf && dp + wt[i] < x[i])
						*at[i] = dp + wt[i];
			}
			for (; k < k1; k++) { // (the last round, short: this warp's)
				const T wt = up[k];
				T *x = col + (size_t)upper[k] * S;
				if (wt < inf && dp + wt < *x)
					*x = dp + wt;
			}
			p = parent[p];
		}
		__syncthreads();
	}
}

// The down sweep of the same sources over the groups of part part0 +
// blockIdx.y in order (CHECK: relax's), SWEEP_R sources a thread
// (blockDim.x = sweep_threads<T>() apart), so that a position's bookkeeping
// and entries serve more than one.  A member's entries come from
// DevFactor's parts' lists, the same address on every lane (one load a
// warp): those in slots with their byte offsets ready, then those read
// from d.  FW_SWEEP_R (a knob for benchmarks).
#ifndef FW_SWEEP_R
#define FW_SWEEP_R 2
#endif
constexpr int SWEEP_R = FW_SWEEP_R;

template <typename T, bool CHECK>
__global__ void __launch_bounds__(sweep_threads<T>())
sweep_down(const int *__restrict__ spos, int count, int S, DevFactor f, int part0,
           T *__restrict__ d, OutPart *__restrict__ out)
{
	constexpr int BD = sweep_threads<T>(), STRIDE = SWEEP_R * BD;
	extern __shared__ __align__(16) unsigned char sweep_smem[];
	T *slots = (T *)sweep_smem; // [slots][SWEEP_R][BD]
	const unsigned char *mine = sweep_smem + threadIdx.x * sizeof(T);
	const int t = threadIdx.x;
	const T inf = Unreachable<T>::value();
	const T *__restrict__ weight = (const T *)f.weight;
	bool live[SWEEP_R];
	T *col[SWEEP_R]; // (a lane past the batch reads its last source's column, and writes nothing)
	int q[SWEEP_R];  // the sources' postorder numbers
	int sp[SWEEP_R]; // ... and positions
	OutRun o[SWEEP_R];
	for (int r = 0; r < SWEEP_R; r++) {
		const int j = blockIdx.x * STRIDE + r * BD + t;
		live[r] = j < count, col[r] = d + (live[r] ? j : count - 1);
		sp[r] = live[r] ? spos[j] : -1;
		q[r] = live[r] ? f.post[sp[r]] : -1;
	}
	const int part = part0 + (int)blockIdx.y;
	for (int g = f.pfirst[part]; g < f.pfirst[part + 1]; g++) {
		const int o0 = f.ofirst[g], outside = f.ofirst[g + 1] - o0;
		const int m0 = f.mfirst[g], members = f.mfirst[g + 1] - m0;
#pragma unroll 4
		for (int i = 0; i < outside; i++) {
			const size_t at = (size_t)f.outside[o0 + i] * S;
#pragma unroll
			for (int r = 0; r < SWEEP_R; r++)
				slots[i * STRIDE + r * BD + t] = col[r][at];
		}
		for (int i = 0; i < members; i++) {
			const int4 m = f.meta[m0 + i];
			const int2 span = f.span[m0 + i];
			T acc[SWEEP_R];
#pragma unroll
			for (int r = 0; r < SWEEP_R; r++)
				acc[r] = span.x <= q[r] && q[r] <= span.y ? col[r][(size_t)m.x * S] : inf;
			int k = m.y;
#pragma unroll 2
			for (; k < m.z; k++) {
				const T w = weight[k];
				const unsigned char *y = mine + f.at[k];
#pragma unroll
				for (int r = 0; r < SWEEP_R; r++)
					acc[r] = relax<T, CHECK>(acc[r], *(const T *)(y + r * BD * sizeof(T)), w);
			}
			for (; k < m.w; k++) {
				const T w = weight[k];
				const size_t at = (size_t)f.at[k] * S;
#pragma unroll
				for (int r = 0; r < SWEEP_R; r++)
					acc[r] = relax<T, CHECK>(acc[r], col[r][at], w);
			}
#pragma unroll
			for (int r = 0; r < SWEEP_R; r++) {
				slots[(outside + i) * STRIDE + r * BD + t] = acc[r];
				if (live[r])
					col[r][(size_t)m.x * S] = acc[r];
				if constexpr (folds_out<T>())
					o[r].add(acc[r], m.x, sp[r]);
			}
		}
	}
	if (folds_out<T>() && out)
		for (int r = 0; r < SWEEP_R; r++)
			if (live[r])
				o[r].put(out + (size_t)part * S + blockIdx.x * STRIDE + r * BD + t);
}

// The down sweep of part 0, the top of the tree, whose positions are few
// but have the most upper neighbours (the large separators): a CTA takes
// 32 sources (lane = source) and its TOP_WARPS warps share a group's
// members, so that a source's work on the top is not one thread's alone.
// A group's members go in chunks of TOP_CHUNK (the top is closed upward: a
// member's upper neighbours at or below the chunk's highest are members of
// the chunk, the first inner[m] of its entries, all in slots): first every
// warp relaxes its members' other entries, then one warp the entries within
// the chunk, a member at a time from the highest.  The entries come from
// DevFactor's lists as in sweep_down (the slots' offsets for this layout).
// FW_TOP_CHUNK (a knob for benchmarks): the chunk's size, at most 32; 16
// was 3 to 5% faster than 32 over the top and the parts (bench/sparse-road.md).
#ifndef FW_TOP_CHUNK
#define FW_TOP_CHUNK 16
#endif
constexpr int TOP_WARPS = 8, TOP_CHUNK = FW_TOP_CHUNK;
template <typename T, bool CHECK>
__global__ void __launch_bounds__(32 * TOP_WARPS)
sweep_top(const int *__restrict__ spos, int count, int S, DevFactor f, T *__restrict__ d,
          OutPart *__restrict__ out)
{
	extern __shared__ __align__(16) unsigned char sweep_smem[];
	T(*part)[32] = (T(*)[32])sweep_smem;                    // [TOP_CHUNK][32]
	T(*slots)[32] = (T(*)[32])(sweep_smem + TOP_CHUNK * 32 * sizeof(T));
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, j = blockIdx.x * 32 + lane;
	const bool live = j < count;
	const T inf = Unreachable<T>::value();
	const T *__restrict__ weight = (const T *)f.weight;
	const unsigned char *mine = (const unsigned char *)&slots[0][lane];
	T *col = d + (live ? j : count - 1); // (a lane past the batch writes nothing)
	const int sp = live ? spos[j] : -1, q = live ? f.post[sp] : -1;
	OutRun o; // (warp 0's)
	for (int g = f.pfirst[0]; g < f.pfirst[1]; g++) {
		const int o0 = f.ofirst[g], outside = f.ofirst[g + 1] - o0;
		const int m0 = f.mfirst[g], members = f.mfirst[g + 1] - m0;
		for (int i = w; i < outside; i += TOP_WARPS)
			slots[i][lane] = col[(size_t)f.outside[o0 + i] * S];
		__syncthreads();
		for (int c0 = 0; c0 < members; c0 += TOP_CHUNK) {
			const int chunk = members - c0 < TOP_CHUNK ? members - c0 : TOP_CHUNK;
			for (int r = w; r < chunk; r += TOP_WARPS) {
				const int i = m0 + c0 + r;
				const int4 m = f.meta[i];
				const int2 span = f.span[i];
				T acc = span.x <= q && q <= span.y ? col[(size_t)m.x * S] : inf;
				int k = m.y + f.inner[i];
#pragma unroll 4
				for (; k < m.z; k++)
					acc = relax<T, CHECK>(acc, *(const T *)(mine + f.at[k]), weight[k]);
				for (; k < m.w; k++)
					acc = relax<T, CHECK>(acc, col[(size_t)f.at[k] * S], weight[k]);
				part[r][lane] = acc;
			}
			__syncthreads();
			if (w == 0)
				for (int r = 0; r < chunk; r++) {
					const int i = m0 + c0 + r;
					const int4 m = f.meta[i];
					T acc = part[r][lane];
					for (int k = m.y; k < m.y + f.inner[i]; k++)
						acc = relax<T, CHECK>(acc, *(const T *)(mine + f.at[k]), weight[k]);
					slots[outside + c0 + r][lane] = acc;
					if (live)
						col[(size_t)m.x * S] = acc;
					if constexpr (folds_out<T>())
						o.add(acc, m.x, sp);
				}
			__syncthreads();
		}
	}
	if (folds_out<T>() && out && w == 0 && live)
		o.put(out + j);
}

// The out figures of the batch's sources (thread j: source s0 + j) from
// the parts' of the top and of parts - 1 parts below it (OutPart: int32).
__global__ void fold_out_parts(const OutPart *__restrict__ out, int parts, int S, int s0, int count,
                               unsigned long long *__restrict__ reach, long long *__restrict__ sum,
                               long long *__restrict__ ecc)
{
	const int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= count)
		return;
	unsigned long long c = 0;
	long long s = 0, m = 0;
	for (int y = 0; y < parts; y++) {
		const OutPart x = out[(size_t)y * S + j];
		c += x.c, s += x.s, m = x.m > m ? x.m : m;
	}
	reach[s0 + j] = c, sum[s0 + j] = s, ecc[s0 + j] = m;
}

// The batch's rows (count of them, n entries each, stride n): row j,
// column v from d[pos[v]][j], through a 32 x 32 tile.  pos: the vertices'
// positions (whole rows, n the vertex count), or a table's targets'
// (n the count of targets).
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
// (a warp's loads of one vertex are one line), eight loads in flight before
// their additions in order.
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
	int v = 0;
	for (; v + 8 <= n; v += 8) {
		T x[8];
#pragma unroll
		for (int u = 0; u < 8; u++)
			x[u] = d[(size_t)pos[v + u] * S + j];
#pragma unroll
		for (int u = 0; u < 8; u++)
			f.add(x[u], nullptr, i, v + u, false);
	}
	for (; v < n; v++)
		f.add(d[(size_t)pos[v] * S + j], nullptr, i, v, false);
	reach[i] = f.c, sum[i] = f.s, ecc[i] = f.m;
}

// A lane's vertex's figures f with the tile's cols sources (x[c]: from
// source c, which is the vertex where c == self), in order: Running's
// additions; for int32 without branches (a figure's terms that are left
// out count as zeros, and a harmonic sum, never -0, plus +0 is itself) and
// with the tile's count, sum and largest in 32 bits where they fit.
template <typename T>
__device__ __forceinline__ void fold_in_tile(Running<T> &f, const T *x, int cols, int self)
{
	if constexpr (std::is_same<T, int>::value) {
		unsigned c = 0;
		long long s = 0;
		int m = 0;
		for (int k = 0; k < cols; k++) {
			const bool in = counted_i32(x[k], k, self);
			const int y = in ? x[k] : 0;
			c += in, s += y, m = y > m ? y : m;
			const double r = __drcp_rn((double)(y != 0 ? y : 1));
			f.hs += y != 0 ? r : 0.0;
		}
		f.c += c, f.s += s, f.m = m > f.m ? m : f.m;
	} else {
		for (int k = 0; k < cols; k++)
			f.add(x[k], nullptr, k, self, true);
	}
}

// The in figures of every vertex over the batch's sources in order, added
// to the running ones: the additions of stats_cols, in the same order.  A
// warp takes 32 vertices: 32 sources of their rows of d come in as 32
// copies of one line each into a tile in shared memory, the next tile's on
// their way (cp.async) while each lane adds its vertex's 32 of this one in
// order, fold_in_warps<T>() warps a CTA.
template <typename T> __host__ __device__ constexpr int fold_in_warps()
{
	return sizeof(T) > 4 ? 2 : 4;
}
template <typename T>
__global__ void __launch_bounds__(32 * fold_in_warps<T>())
fold_in(const T *__restrict__ d, int n, int S, int s0, int count, const int *__restrict__ pos,
        unsigned long long *__restrict__ reach, typename StatsElem<T>::Sum *__restrict__ sum,
        typename StatsElem<T>::Sum *__restrict__ ecc, double *__restrict__ harm)
{
	constexpr int W = fold_in_warps<T>();
	__shared__ T tile[W][2][32][33];
	__shared__ size_t row[W][32];
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	const int v0 = (blockIdx.x * W + w) * 32, v = v0 + lane;
	if (v0 >= n)
		return;
	const int rows = n - v0 < 32 ? n - v0 : 32;
	row[w][lane] = v < n ? (size_t)pos[v] * S : 0;
	__syncwarp();
	Running<T> f;
	if (v < n)
		f.c = reach[v], f.s = sum[v], f.m = ecc[v], f.hs = harm[v];
	auto fetch = [&](int j0) { // the tile of sources j0 .. j0 + 31, into buffer (j0 / 32) & 1
		T(*x)[33] = tile[w][(j0 >> 5) & 1];
		if (j0 < count && lane < count - j0)
			for (int r = 0; r < rows; r++)
				cp_async<sizeof(T)>(&x[r][lane], d + row[w][r] + j0 + lane);
		cp_async_commit();
	};
	fetch(0);
	for (int j0 = 0; j0 < count; j0 += 32) {
		fetch(j0 + 32);
		cp_async_wait<1>();
		__syncwarp();
		const T(*x)[33] = tile[w][(j0 >> 5) & 1];
		const int cols = count - j0 < 32 ? count - j0 : 32;
		if (v < n)
			fold_in_tile(f, x[lane], cols, v - s0 - j0);
		__syncwarp();
	}
	if (v < n)
		reach[v] = f.c, sum[v] = f.s, ecc[v] = f.m, harm[v] = f.hs;
}

} // namespace

#endif
