// fw_levels.cuh - the kernels of a sparse run's levels (included by the
// round scheduler, fw_rounds.cuh, which plans the levels): the panels of a
// level's pivots, its phases 2 and 3 from the lists of blocks each pivot
// can change (fw_prepare.cuh's round_lists), on 32-bit entries and in
// 16-bit lanes, through the tile updates of fw_tiles.cuh and
// fw_tiles16.cuh.
#ifndef APSP_FW_LEVELS_CUH
#define APSP_FW_LEVELS_CUH

#include "fw_tiles.cuh"
#include "fw_tiles16.cuh"

#include <algorithm>

namespace {

// The pivots of a level (ord_block_levels) are independent: none of their
// rounds reads a block another writes, but phase-3 blocks that two of them
// update, in either order to the same end.  So their rounds run together:
// phase 1 of each, the lists of each (round_lists), the panels of the
// blocks in them, then one launch for phase 2 of them all and one for phase
// 3, the work of every pivot spread over a grid that fills the device.  Work
// item w of a launch belongs to the pivot b with start[b] <= w < start[b + 1].
// A phase-3 block that several pivots update (one of their common ancestors'
// rows and columns) is taken once, by the item of the first of them, through
// each in turn (level_takes; the cover kernels' level_touch): no two CTAs
// ever write one block, so no locks.

constexpr int LEVEL_MAX = 64; // pivots of a level taken at once, at most
// Levels of at most this many pivots are asked whether they cover the
// matrix (RoundKernels::level, covers): those of more are many small pieces
// of the graph, and the question would cost each a wait for the device.
constexpr int COVER_PIVOTS = 8;
// A pivot's lists (round_lists): 2 counts, then nb rows and nb columns.
__host__ __device__ constexpr size_t list_ints(int nb) { return 2 + 2 * (size_t)nb; }

struct LevelItem {
	int b, I, J;
};

// What a level's CTAs look up for every item, in shared memory: where each
// pivot's items begin (start[0 .. m]; KIND 2: the blocks of its pivot row
// and column, 3: the products of the two), each one's count of columns in
// its lists, and the pivots themselves.
struct LevelPlan {
	long long start[LEVEL_MAX + 1];
	int cols[LEVEL_MAX], pivots[LEVEL_MAX];
};

// The plan of a level's m pivots, from their lists; the items in all.
template <int KIND>
__device__ __forceinline__ long long level_plan(const int *pivots, const int *lists, int nb, int m,
                                                LevelPlan &plan)
{
	for (int b = threadIdx.x; b < m; b += blockDim.x) {
		const int *L = lists + b * list_ints(nb);
		plan.start[b + 1] = KIND == 2 ? (long long)L[0] + L[1] : (long long)L[0] * L[1];
		plan.cols[b] = L[1];
		plan.pivots[b] = pivots[b];
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		plan.start[0] = 0;
		for (int b = 1; b <= m; b++)
			plan.start[b] += plan.start[b - 1];
	}
	__syncthreads();
	return plan.start[m];
}

// Item w of a level: its pivot b and block (I, J), the lists' two entries
// its one look-up in global memory.  (A pivot's items are fewer than 2^31:
// nb x nb bytes of the map fit a device.)
template <int KIND>
__device__ __forceinline__ LevelItem level_item(const LevelPlan &plan, const int *lists, int nb,
                                                int m, long long w)
{
	int lo = 0, hi = m - 1; // the last b with start[b] <= w
	while (lo < hi) {
		const int mid = (lo + hi + 1) / 2;
		if (plan.start[mid] <= w)
			lo = mid;
		else
			hi = mid - 1;
	}
	const int *L = lists + lo * list_ints(nb);
	const int *rows = L + 2, *cols = L + 2 + nb;
	const unsigned cj = (unsigned)plan.cols[lo], q = (unsigned)(w - plan.start[lo]);
	const int round = plan.pivots[lo];
	if (KIND == 2) // the pivot row's blocks, then the pivot column's
		return q < cj ? LevelItem{lo, round, cols[q]} : LevelItem{lo, rows[q - cj], round};
	return LevelItem{lo, rows[q / cj], cols[q % cj]};
}

// The pivots of a level (bit b: pivot b, of m; pivots[b] its block) whose
// phase 3 updates block (I, J): those whose row block (p, J) and column
// block (I, p) are live, I and J not p.  No phase 3 of the level writes
// those: the pivots of a level never update one another's rows and columns.
// Every thread works it out alike (the same loads for all: no barrier).
template <int MAX, typename P>
__device__ __forceinline__ unsigned long long level_touch(const uint8_t *live, int nb,
                                                          const P &pivots, int m, int I, int J)
{
	unsigned long long all = 0;
#pragma unroll 8
	for (int b = 0; b < MAX; b++) {
		if (b >= m)
			break;
		const int q = pivots[b];
		if (I != q && J != q && live[(size_t)I * nb + q] && live[(size_t)q * nb + J])
			all |= 1ull << b;
	}
	return all;
}

// After the block's writes; f: whether any thread's entries are finite.
// Marks the block live (the barrier also frees shared memory for the next
// update).
__device__ __forceinline__ void block_done(bool f, uint8_t *live)
{
	f = __syncthreads_or(f);
	if (threadIdx.x == 0 && f && !*live)
		*live = 1;
}

// The pivots through which item (b, I, J) of phase 3 of several pivots
// takes its block: every one that updates the block (touch: round_lists'
// rows and columns of each) where b is the first of them, else none (the
// first one's item takes it).  (No list names a pivot block: the pivots
// of a level never update one another's rows and columns.)
__device__ __forceinline__ unsigned long long level_takes(const LevelItem &it,
                                                          const unsigned long long *touch, int nb)
{
	const unsigned long long all = touch[it.I] & touch[nb + it.J];
	return (all & (~all + 1)) == 1ull << it.b ? all : 0;
}

// A level's block through the pivots of take (bit b: update(b) takes it
// through pivot b, and says whether any of its entries is finite), in
// turn; live: its entry in the map.  SEVERAL: take may hold more than one
// (phase 3 of several pivots), else one at most, and the kernel keeps the
// registers of a single update.
template <bool SEVERAL, typename Update>
__device__ __forceinline__ void level_block(unsigned long long take, uint8_t *live, Update &&update)
{
	if constexpr (SEVERAL) {
		for (; take; take &= take - 1)
			block_done(update(__ffsll((long long)take) - 1), live);
	} else if (take) {
		block_done(update(__ffsll((long long)take) - 1), live);
	}
}

// A cover kernel's block through the pivots of take, as level_block (not
// SEVERAL: pivot 0's alone).
template <bool SEVERAL, typename Update>
__device__ __forceinline__ void cover_block(unsigned long long take, uint8_t *live, Update &&update)
{
	if constexpr (SEVERAL)
		level_block<true>(take, live, update);
	else if (take)
		block_done(update(0), live);
}

// The pivots of a level taken a CTA a block (tile_update_cover), as the
// kernel's argument: no look-up in global memory.  (Chosen among, not
// indexed: an index into an argument puts the whole in local memory.)
struct CoverPivots {
	int p[COVER_PIVOTS];
	__device__ __forceinline__ int operator[](int b) const
	{
		int q = p[0];
#pragma unroll
		for (int k = 1; k < COVER_PIVOTS; k++)
			q = k == b ? p[k] : q;
		return q;
	}
};


// How the panels' entries are written: the 32-bit kernels' (packed paths:
// shifted, the pivot row's with k + 1), and the 16-bit lanes' (fw_tiles16.cuh:
// each entry of colT twice in a word).
template <typename T, bool PACKED> struct PanelCode {
	using Col = T;
	static __device__ __forceinline__ T row(T v, int k)
	{
		return PACKED ? (T)(((int)v << 8) | (k + 1)) : v;
	}
	static __device__ __forceinline__ T col(T v) { return PACKED ? (T)((int)v << 8) : v; }
};
template <> struct PanelCode<short, false> {
	using Col = uint32_t;
	static __device__ __forceinline__ short row(short v, int) { return v; }
	static __device__ __forceinline__ uint32_t col(short v) { return (uint16_t)v * 0x10001u; }
};

// A level's panels from its lists (round_lists; B >= 32): colT at the
// blocks of pivot pivots[z]'s rows list and at its own, rowP at those of its
// columns list and its own, the only blocks its phases 2 and 3 read, in
// pieces of 32 x 32 spread over the grid's x.  (panels goes through every
// block of the row: at the first levels, hundreds of CTAs a pivot for a
// few blocks.)
template <typename T, int B, typename Code>
__global__ void level_panels(const T *__restrict__ d, int npad, const int *pivots, const int *lists,
                             typename Code::Col *__restrict__ colT, T *__restrict__ rowP)
{
	static_assert(B % 32 == 0, "pieces of 32 x 32");
	constexpr int S = B / 32, PIECES = S * S;
	const int nb = npad / B, z = blockIdx.z, round = pivots[z];
	const int *L = lists + z * list_ints(nb);
	const int nr = L[0], nc = L[1];
	colT += (size_t)z * B * npad;
	rowP += (size_t)z * B * npad;
	__shared__ T tile[32][33];
	const int lx = threadIdx.x, ly = threadIdx.y; // 32 x 8
	const int units = (nr + nc + 2) * PIECES;
	for (int u = blockIdx.x; u < units; u += gridDim.x) {
		const int e = u / PIECES, k0 = u % PIECES % S * 32;
		const bool column = e <= nr; // (a piece of colT; else of rowP)
		const int q = column ? e : e - nr - 1, count = column ? nr : nc;
		const int X = q < count ? L[2 + (column ? 0 : nb) + q] : round;
		const int x0 = X * B + u % PIECES / S * 32;
		if (!column) {
			for (int r = ly; r < 32; r += 8)
				rowP[(size_t)(k0 + r) * npad + x0 + lx] =
				        Code::row(d[(size_t)(round * B + k0 + r) * npad + x0 + lx], k0 + r);
			continue;
		}
		for (int r = ly; r < 32; r += 8) // [x][k]
			tile[r][lx] = d[(size_t)(x0 + r) * npad + round * B + k0 + lx];
		__syncthreads();
		for (int r = ly; r < 32; r += 8)
			colT[(size_t)(k0 + r) * npad + x0 + lx] = Code::col(tile[lx][r]);
		__syncthreads();
	}
}

// CTAs of level_panels a pivot, for a level of m.
inline int level_panel_ctas(int m) { return std::max(16, 2048 / m); }

// Phase 2 (KIND 2) or 3 of the m pivots of a level; colT and rowP hold m
// panels each (pivot b's at b x B x npad).  SEVERAL: phase 3 of more than
// one pivot (not with predecessors, whose registers would spill: their
// rounds take the pivots one by one).
template <typename T, int B, int R, bool PATHS, bool PACKED, int KIND, bool SEVERAL = false>
__global__ void __launch_bounds__(tile_threads<B, R>(), tile_min_blocks<B, R>())
tile_update_level(T *__restrict__ d, int32_t *__restrict__ p, int npad, const int *pivots, int m,
                  T *__restrict__ colT, T *__restrict__ rowP, const int *__restrict__ lists,
                  uint8_t *__restrict__ live, const unsigned long long *touch = nullptr)
{
	__shared__ LevelPlan plan;
	const int nb = npad / B;
	static_assert(!(SEVERAL && PATHS), "with predecessors, one pivot at a time");
	const long long total = level_plan<KIND>(pivots, lists, nb, m, plan);
	// (the next item's look-up in flight while this one's block is updated;
	// not with predecessors, whose registers are short)
	LevelItem it = !PATHS && blockIdx.x < total ? level_item<KIND>(plan, lists, nb, m, blockIdx.x)
	                                            : LevelItem{};
	for (long long w = blockIdx.x; w < total; w += gridDim.x) {
		if (PATHS)
			it = level_item<KIND>(plan, lists, nb, m, w);
		const LevelItem next = !PATHS && w + gridDim.x < total
		                               ? level_item<KIND>(plan, lists, nb, m, w + gridDim.x)
		                               : it;
		level_block<SEVERAL>(SEVERAL ? level_takes(it, touch, nb) : 1ull << it.b,
		                     &live[(size_t)it.I * nb + it.J], [&](int b) {
			                     const int round = plan.pivots[b];
			                     const size_t panel = (size_t)b * B * npad;
			                     return update_block<T, B, R, PATHS, PACKED, KIND, true>(
			                             d, p, p + (size_t)round * B * npad, npad, round,
			                             colT + panel, rowP + panel, it.I, it.J);
		                     });
		it = next;
	}
}

// Phase 3 of a level whose pivots' blocks cover most of the matrix (the
// last levels of a nested-dissection order, whose separators reach every
// vertex): a CTA a block, as a dense run's rounds (tile_update) take them,
// which keeps the device busier than a level's CTAs going through the
// lists.  Each block is taken through every pivot that updates it, in the
// level's order (level_touch); the others return at once.
template <typename T, int B, int R, bool PATHS, bool PACKED, bool SEVERAL = false>
__global__ void __launch_bounds__(tile_threads<B, R>(), tile_min_blocks<B, R>())
tile_update_cover(T *__restrict__ d, int32_t *__restrict__ p, int npad, CoverPivots pivots, int m,
                  T *__restrict__ colT, T *__restrict__ rowP, uint8_t *__restrict__ live)
{
	static_assert(!(SEVERAL && PATHS), "with predecessors, one pivot at a time");
	const int nb = npad / B, I = blockIdx.y, J = blockIdx.x;
	auto update = [&](int b) {
		const int round = pivots[b];
		const size_t panel = (size_t)b * B * npad;
		return update_block<T, B, R, PATHS, PACKED, 3>(d, p, p + (size_t)round * B * npad, npad,
		                                               round, colT + panel, rowP + panel, I, J);
	};
	cover_block<SEVERAL>(level_touch<SEVERAL ? COVER_PIVOTS : 1>(live, nb, pivots, m, I, J),
	                     &live[(size_t)I * nb + J], update);
}


// A level's phase 2 or 3 in 16-bit lanes, as tile_update_level.
template <int B, int KIND, bool SEVERAL = false>
__global__ void __launch_bounds__(tile16_threads<B>(), 4)
tile_update16_level(short *__restrict__ d, int npad, const int *pivots, int m,
                    uint32_t *__restrict__ colT2, short *__restrict__ rowP,
                    const int *__restrict__ lists, uint8_t *__restrict__ live,
                    const unsigned long long *touch = nullptr)
{
	__shared__ LevelPlan plan;
	const int nb = npad / B;
	const long long total = level_plan<KIND>(pivots, lists, nb, m, plan);
	// (the next item's look-up in flight while this one's block is updated)
	LevelItem it =
	        blockIdx.x < total ? level_item<KIND>(plan, lists, nb, m, blockIdx.x) : LevelItem{};
	for (long long w = blockIdx.x; w < total; w += gridDim.x) {
		const LevelItem next =
		        w + gridDim.x < total ? level_item<KIND>(plan, lists, nb, m, w + gridDim.x) : it;
		level_block<SEVERAL>(SEVERAL ? level_takes(it, touch, nb) : 1ull << it.b,
		                     &live[(size_t)it.I * nb + it.J], [&](int b) {
			                     const size_t panel = (size_t)b * B * npad;
			                     return update_block16<B, KIND, true>(d, npad, plan.pivots[b],
			                                                          colT2 + panel,
			                                                          rowP + panel, it.I, it.J);
		                     });
		it = next;
	}
}

// Phase 3 of a level whose pivots' blocks cover most of the matrix, a CTA
// a block, as tile_update_cover.
template <int B, bool SEVERAL = false>
__global__ void __launch_bounds__(tile16_threads<B>(), 4)
tile_update16_cover(short *__restrict__ d, int npad, CoverPivots pivots, int m,
                    uint32_t *__restrict__ colT2, short *__restrict__ rowP,
                    uint8_t *__restrict__ live)
{
	const int nb = npad / B, I = blockIdx.y, J = blockIdx.x;
	auto update = [&](int b) {
		const size_t panel = (size_t)b * B * npad;
		return update_block16<B, 3>(d, npad, pivots[b], colT2 + panel, rowP + panel, I, J);
	};
	cover_block<SEVERAL>(level_touch<SEVERAL ? COVER_PIVOTS : 1>(live, nb, pivots, m, I, J),
	                     &live[(size_t)I * nb + J], update);
}

} // namespace
#endif
