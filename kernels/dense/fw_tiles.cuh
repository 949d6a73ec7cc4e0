// fw_tiles.cuh - the tile kernels of blocked Floyd-Warshall (Venkataraman,
// Sahni, Mukhopadhyaya 2003) on 32-bit entries, included by the round
// scheduler (fw_rounds.cuh).  The same phases in 16-bit lanes are
// fw_tiles16.cuh; the levels of a sparse run fw_levels.cuh; preparing and
// finishing a run's matrices, its facts and sparse runs' block lists
// fw_prepare.cuh; derived predecessors fw_derive.cuh.
// Nothing here allocates, launches or decides: each kernel updates the
// blocks it is given.
//
// Round T of npad/B rounds:
//   phase 1  one CTA runs Floyd-Warshall inside the pivot block (T,T): in
//            round 0, or where the round scheduler says so, a kernel of its
//            own; otherwise the CTA of phase 3 of round T-1 that updated
//            block (T,T), right after it (close_pivot);
//   phase 2  one CTA per block of pivot row T and pivot column T, each from
//            the finished pivot block; they also write the two panels phase 3
//            reads: the pivot column transposed (colT[k][i] = d[i][T*B+k]) and
//            the pivot row (rowP[k][j] = d[T*B+k][j]), both B x npad;
//   phase 3  one CTA per remaining block (I,J): d = min(d, colT + rowP) over
//            the B values of k.  Almost all the work; each thread keeps an
//            R x R register tile, operands come through shared memory in
//            16-byte loads, k-chunks are double-buffered with cp.async.
//
// Predecessors.  Phase 3 of a round changes d[i][j] to min_k(d[i][k]+d[k][j])
// and the predecessor to pred[T*B+k*][j] for the first k* reaching a strictly
// smaller value.  For int32 this is found with no extra instruction by
// packing: colT holds d<<8, rowP holds (d<<8)|(k+1), the tile holds d<<8, so
// one add-min per relaxation keeps both the distance and (in the low byte)
// the winning k; ties keep the old value.  That needs every finite distance
// below 2^22 (checked on the host); otherwise, and for float32, the kernel
// tracks k explicitly.
#ifndef APSP_FW_TILES_CUH
#define APSP_FW_TILES_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "fw_cpasync.cuh"
#include "types.h"

namespace {

constexpr int INF_PACKED = (1 << 22) - 1; // INF while int32 paths are packed

// Tuning knobs of the tile kernel (bench/gpu.md records what was measured):
// k values per shared-memory chunk (FW_KC64 at B = 64), unrolling of the
// k loop (FW_UNROLL; float32 with predecessors at B = 64: 4), and int32's
// columns of the 8 x 8 register tile relaxed with add-mins alone (FW_ALU_Q64,
// FW_ALU_Q128; alu_columns).
#ifndef FW_KC
#define FW_KC 32
#endif
#ifndef FW_KC64
#define FW_KC64 16
#endif
#ifndef FW_UNROLL
#define FW_UNROLL 2
#endif
#ifndef FW_ALU_Q64
#define FW_ALU_Q64 4
#endif
#ifndef FW_ALU_Q128
#define FW_ALU_Q128 3
#endif
constexpr int k_unroll = FW_UNROLL;


// ---- element traits -------------------------------------------------------

// relax(a, b, c) = min(a + b, c); relax2(a0, b0, a1, b1, c, one, alu) =
// min(c, a0 + b0, a1 + b1), two steps of k at once in the tile kernel.
//
// The H100 runs the int32 add-min (VIADDMNMX) and the three-way min
// (VIMNMX3) on its ALU pipe at half rate; an integer multiply-add (IMAD) runs
// on the FMA pipe, float adds on either FMA pipe.  So int32 takes part of its
// pairs as two add-mins on the ALU pipe (alu) and the rest as two adds on the
// FMA pipe, IMAD by a one that the compiler cannot fold to an add (one),
// then a three-way min: both pipes busy (a loop of shared-memory loads and an
// 8 x 8 tile: 17.4e12 relaxations a second against 15.4e12 with add-mins
// only; bench/gpu.md).
template <typename T> struct Elem;
template <> struct Elem<int> {
	static __device__ __forceinline__ int relax(int a, int b, int c)
	{
		return __viaddmin_s32(a, b, c); // one VIADDMNMX on sm_90
	}
	static __device__ __forceinline__ int relax2(int a0, int b0, int a1, int b1, int c, int one,
	                                             bool alu)
	{
		return alu ? __viaddmin_s32(a1, b1, __viaddmin_s32(a0, b0, c))
		           : __vimin3_s32(c, a0 * one + b0, a1 * one + b1);
	}
	static __device__ __forceinline__ int inf(bool packed) { return packed ? INF_PACKED : ST_INF_I32; }
};
template <> struct Elem<float> {
	static __device__ __forceinline__ float relax(float a, float b, float c)
	{
		return fminf(a + b, c);
	}
	static __device__ __forceinline__ float relax2(float a0, float b0, float a1, float b1, float c,
	                                               int, bool)
	{
		return fminf(a1 + b1, fminf(a0 + b0, c));
	}
	static __device__ __forceinline__ float inf(bool) { return __int_as_float(0x7f800000); }
};
// float32 where no entry has its sign bit set (no weight below +0, no NaN),
// held as its bits: for such floats the order of the bits as integers is the
// order of the values (+inf last), so the min of two sums is an integer min
// (ALU pipe) and their adds float adds (FMA pipes), and a pair of steps
// takes three instructions instead of four (FADD, FMNMX each).
template <> struct Elem<uint32_t> {
	static __device__ __forceinline__ int sum(uint32_t a, uint32_t b)
	{
		return __float_as_int(__uint_as_float(a) + __uint_as_float(b));
	}
	static __device__ __forceinline__ uint32_t relax(uint32_t a, uint32_t b, uint32_t c)
	{
		return (uint32_t)min(sum(a, b), (int)c);
	}
	static __device__ __forceinline__ uint32_t relax2(uint32_t a0, uint32_t b0, uint32_t a1,
	                                                  uint32_t b1, uint32_t c, int, bool)
	{
		return (uint32_t)__vimin3_s32((int)c, sum(a0, b0), sum(a1, b1));
	}
	static __device__ __forceinline__ uint32_t inf(bool) { return 0x7f800000u; }
};

// ---- phase 1: the pivot block ---------------------------------------------

// TY x TX threads close block (round, round) of d (and p): thread (ty,tx)
// keeps rows ty*RY .. ty*RY+RY-1 and columns tx*RX .. tx*RX+RX-1 in registers
// (RY = B/TY, RX = B/TX).  Step k reads only row k and column k (d[k][k] = 0
// leaves them unchanged), so after step k their owners put row and column
// k+1 into shared memory, in the copy of the other parity: one barrier per
// step.  The steps go U at a time (U = max(RY, RX)) so that the owners'
// registers are named at compile time.  On 16-bit lanes (short) a register
// holds two neighbouring columns.  Shared memory: p1_smem().
template <typename T> struct P1Word {
	using W = T;
	static constexpr int per = 1;
};
template <> struct P1Word<short> {
	using W = uint32_t;
	static constexpr int per = 2;
};
template <typename T, int B, bool PATHS> __host__ __device__ constexpr size_t p1_smem()
{
	return 2 * (size_t)B * (2 * sizeof(T) + (PATHS ? 4 : 0)) + 16;
}

template <typename T, int B, int TY, int TX, bool PATHS>
__device__ __forceinline__ void close_pivot(T *__restrict__ d, int32_t *__restrict__ p, int npad,
                                            int round)
{
	using W = typename P1Word<T>::W;
	constexpr int per = P1Word<T>::per, RY = B / TY, RX = B / TX, RW = RX / per;
	constexpr int U = RY > RX ? RY : RX;
	static_assert(RY * TY == B && RX * TX == B && RW * per == RX && U % RY == 0 && U % RX == 0,
	              "threads must tile the pivot block");
	static_assert(!PATHS || per == 1, "predecessors are kept on 32 bits");
	extern __shared__ __align__(16) unsigned char smem[];
	W(*srow)[B / per] = (W(*)[B / per])smem;             // [2][B/per]: row k
	T(*scol)[B] = (T(*)[B])(smem + 2 * B * sizeof(T));  // [2][B]: column k
	int32_t(*sprow)[B] = (int32_t(*)[B])(smem + 4 * B * sizeof(T)); // [2][B]
	const int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
	const size_t base = (size_t)round * B * npad + (size_t)round * B;
	W v[RY][RW];
	int32_t pv[PATHS ? RY : 1][PATHS ? RX : 1];
#pragma unroll
	for (int r = 0; r < RY; r++) {
		const size_t row = base + (size_t)(ty * RY + r) * npad + tx * RX;
#pragma unroll
		for (int w = 0; w < RW; w++) {
			v[r][w] = *(const W *)(d + row + w * per);
			if constexpr (PATHS)
				pv[r][w] = p[row + w];
		}
	}
	// the element of column c of row r, and the owners' copies of step k
	auto elem = [&](int r, int c) -> T {
		if constexpr (per == 1)
			return v[r][c];
		else
			return (T)(v[r][c / 2] >> (16 * (c % 2)));
	};
	auto publish = [&](int k, int u, int buf) {
		if (ty == k / RY) {
#pragma unroll
			for (int w = 0; w < RW; w++) {
				srow[buf][tx * RW + w] = v[u % RY][w];
				if constexpr (PATHS)
					sprow[buf][tx * RX + w] = pv[u % RY][w];
			}
		}
		if (tx == k / RX) {
#pragma unroll
			for (int r = 0; r < RY; r++)
				scol[buf][ty * RY + r] = elem(r, u % RX);
		}
	};
	publish(0, 0, 0);
	__syncthreads();
#pragma unroll 1
	for (int k0 = 0; k0 < B; k0 += U) {
#pragma unroll
		for (int u = 0; u < U; u++) {
			const int k = k0 + u, buf = k & 1;
			T colk[RY];
			W rowk[RW];
			int32_t prow[PATHS ? RX : 1];
#pragma unroll
			for (int r = 0; r < RY; r++)
				colk[r] = scol[buf][ty * RY + r];
#pragma unroll
			for (int w = 0; w < RW; w++) {
				rowk[w] = srow[buf][tx * RW + w];
				if constexpr (PATHS)
					prow[w] = sprow[buf][tx * RX + w];
			}
#pragma unroll
			for (int r = 0; r < RY; r++)
#pragma unroll
				for (int w = 0; w < RW; w++) {
					if constexpr (per == 2) {
						const uint32_t a = (uint16_t)colk[r] * 0x10001u;
						v[r][w] = __viaddmin_u16x2(a, rowk[w], v[r][w]);
					} else if constexpr (PATHS) {
						const T s = colk[r] + rowk[w];
						if (s < v[r][w]) {
							v[r][w] = s;
							pv[r][w] = prow[w];
						}
					} else {
						v[r][w] = Elem<T>::relax(colk[r], rowk[w], v[r][w]);
					}
				}
			if (k + 1 < B)
				publish(k + 1, u + 1, buf ^ 1);
			__syncthreads();
		}
	}
#pragma unroll
	for (int r = 0; r < RY; r++) {
		const size_t row = base + (size_t)(ty * RY + r) * npad + tx * RX;
#pragma unroll
		for (int w = 0; w < RW; w++) {
			*(W *)(d + row + w * per) = v[r][w];
			if constexpr (PATHS)
				p[row + w] = pv[r][w];
		}
	}
}

// The same with the block in shared memory, for CTAs whose registers are
// taken (the 8 x 8 register tile of phase 3): thread (ty,tx) owns rows
// ty + TY*r and columns tx*RX .. tx*RX+RX-1 of it and is the only one to
// touch them; row and column k+1 go to their copies as above.  Distances
// only; shared memory: p1_smem_block().
template <typename T, int B> __host__ __device__ constexpr size_t p1_smem_block()
{
	return (size_t)B * B * sizeof(T) + 4 * (size_t)B * sizeof(T) + 16;
}

template <typename T, int B, int TY, int TX>
__device__ __forceinline__ void close_pivot_shared(T *__restrict__ d, int npad, int round)
{
	// RG rows at a time (8 spilled the float32 tile kernel's registers)
	constexpr int RY = B / TY, RX = B / TX, RG = RY < 4 ? RY : 4;
	static_assert(RY * TY == B && RX * TX == B && RX % 4 == 0 && RY % RG == 0 && sizeof(T) == 4,
	              "threads must tile the pivot block in 16-byte pieces");
	extern __shared__ __align__(16) unsigned char smem[];
	T(*blk)[B] = (T(*)[B])smem;
	T(*srow)[B] = (T(*)[B])(smem + (size_t)B * B * sizeof(T));
	T(*scol)[B] = srow + 2;
	const int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
	const size_t base = (size_t)round * B * npad + (size_t)round * B;
#pragma unroll
	for (int r = 0; r < RY; r++) {
		const int i = ty + TY * r;
#pragma unroll
		for (int c = 0; c < RX; c += 4)
			*(int4 *)&blk[i][tx * RX + c] = *(const int4 *)(d + base + (size_t)i * npad + tx * RX + c);
	}
	auto publish = [&](int k, int buf) {
		if (ty == k % TY)
#pragma unroll
			for (int c = 0; c < RX; c += 4)
				*(int4 *)&srow[buf][tx * RX + c] = *(const int4 *)&blk[k][tx * RX + c];
		if (tx == k / RX)
#pragma unroll
			for (int r = 0; r < RY; r++)
				scol[buf][ty + TY * r] = blk[ty + TY * r][k];
	};
	publish(0, 0);
	__syncthreads();
	for (int k = 0; k < B; k++) {
		const int buf = k & 1;
		T rowk[RX];
#pragma unroll
		for (int c = 0; c < RX; c += 4)
			*(int4 *)&rowk[c] = *(const int4 *)&srow[buf][tx * RX + c];
		// RG rows at a time: their loads all go before their stores
#pragma unroll
		for (int r0 = 0; r0 < RY; r0 += RG) {
			T a[RG], v[RG][RX];
#pragma unroll
			for (int g = 0; g < RG; g++) {
				const int i = ty + TY * (r0 + g);
				a[g] = scol[buf][i];
#pragma unroll
				for (int c = 0; c < RX; c += 4)
					*(int4 *)&v[g][c] = *(const int4 *)&blk[i][tx * RX + c];
			}
#pragma unroll
			for (int g = 0; g < RG; g++)
#pragma unroll
				for (int c = 0; c < RX; c++)
					v[g][c] = Elem<T>::relax(a[g], rowk[c], v[g][c]);
#pragma unroll
			for (int g = 0; g < RG; g++)
#pragma unroll
				for (int c = 0; c < RX; c += 4)
					*(int4 *)&blk[ty + TY * (r0 + g)][tx * RX + c] = *(const int4 *)&v[g][c];
		}
		if (k + 1 < B)
			publish(k + 1, buf ^ 1);
		__syncthreads();
	}
#pragma unroll
	for (int r = 0; r < RY; r++) {
		const int i = ty + TY * r;
#pragma unroll
		for (int c = 0; c < RX; c += 4)
			*(int4 *)(d + base + (size_t)i * npad + tx * RX + c) = *(const int4 *)&blk[i][tx * RX + c];
	}
}

// close_pivot as a function of its own, for the tile kernels whose threads
// hold 64 entries of it (16-bit lanes; the 8 x 8 register tile): the
// register tile's loop is then allocated more nearly as if it were not there.
template <typename T, int B, int TY, int TX, bool PATHS>
__device__ __noinline__ void close_pivot_after(T *d, int32_t *p, int npad, int round)
{
	close_pivot<T, B, TY, TX, PATHS>(d, p, npad, round);
}

// Phase 1 alone: one CTA of p1_dim^2 threads per pivot block.  With pivots
// (a level of a sparse run), CTA b closes block pivots[b].
template <int B> __host__ __device__ constexpr int p1_dim() { return B < 32 ? B : 32; }

template <typename T, int B, bool PATHS>
__global__ void __launch_bounds__(p1_dim<B>() * p1_dim<B>())
phase1(T *__restrict__ d, int32_t *__restrict__ p, int npad, int round, const int *pivots)
{
	if (pivots)
		round = pivots[blockIdx.x];
	close_pivot<T, B, p1_dim<B>(), p1_dim<B>(), PATHS>(d, p, npad, round);
}

// ---- panels -------------------------------------------------------------------

// After phase 1, the pivot block holds its closure P*.  Then a block of the
// pivot row needs only one min-plus product, D_TJ = min(D_TJ, P* x D_TJ), and
// a block of the pivot column D_IT = min(D_IT, D_IT x P*): phase 2 runs on the
// same register-tiled kernel as phase 3, fed by these panels (B x npad each):
//   colT[k][x] = d[x][T*B+k]      (pivot column, transposed; <<8 when packed)
//   rowP[k][x] = d[T*B+k][x]      (pivot row; (d<<8)|(k+1) when packed)
// They are taken before phase 2 (old values); each block of phase 2 then writes
// its new values into them, which is what phase 3 reads.
//
// Block rows.  A device may hold only block rows row0 .. row0 + rows - 1 of
// the matrix (several GPUs): d then points where row 0 would be, and only
// the held rows are touched.  The pivot row panel is taken where pivot says
// (by the device that holds it, the others receive it; or, in row order, from
// a pivot row that already had the round); each device fills colT for its
// own rows.
//
// A level of a sparse run (pivots: its pivot blocks) takes the panels of
// them all at once, those of pivots[z] at z x B x npad into colT and rowP
// (here where B < 32; else fw_levels.cuh's level_panels, from its lists).
__device__ __forceinline__ bool holds_row(int round, int row0, int rows)
{
	return round >= row0 && round < row0 + rows;
}

template <typename T, int B, bool PACKED>
__global__ void panels(const T *__restrict__ d, int npad, int round, T *__restrict__ colT,
                       T *__restrict__ rowP, int row0, int rows, bool pivot, const int *pivots)
{
	if (pivots) {
		round = pivots[blockIdx.z];
		colT += (size_t)blockIdx.z * B * npad;
		rowP += (size_t)blockIdx.z * B * npad;
	}
	__shared__ T tile[32][33];
	const int x0 = blockIdx.x * 32, k0 = blockIdx.y * 32;
	const int lx = threadIdx.x, ly = threadIdx.y; // 32 x 8
	const int lo = row0 * B, hi = (row0 + rows) * B;
	if (!pivot && (x0 + 32 <= lo || x0 >= hi))
		return;
	for (int q = ly; q < 32; q += 8) {
		const int k = k0 + q, x = x0 + lx;
		if (pivot && k < B && x < npad) {
			T v = d[(size_t)(round * B + k) * npad + x];
			if constexpr (PACKED)
				v = (T)(((int)v << 8) | (k + 1));
			rowP[(size_t)k * npad + x] = v;
		}
		if (x0 + q >= lo && x0 + q < hi && k0 + lx < B)
			tile[q][lx] = d[(size_t)(x0 + q) * npad + round * B + k0 + lx]; // [x][k]
	}
	__syncthreads();
	for (int q = ly; q < 32; q += 8) {
		if (x0 + lx < lo || x0 + lx >= hi || k0 + q >= B)
			continue;
		T v = tile[lx][q]; // x = x0+lx, k = k0+q
		if constexpr (PACKED)
			v = (T)((int)v << 8);
		colT[(size_t)(k0 + q) * npad + x0 + lx] = v;
	}
}

// ---- phase 3: every other block ---------------------------------------------

// Entry (row, col) of a block, from the block's first entry, in a matrix of
// npad columns: an offset below B * npad, so 32 bits (B * npad < 2^32
// wherever npad^2 entries fit in memory), which spares the integer pipe the
// 64-bit arithmetic of every row's address.
__device__ __forceinline__ size_t tile_at(int row, int npad, int col)
{
	return (unsigned)row * (unsigned)npad + (unsigned)col;
}

// Rows k0 .. k0 + K - 1 of a panel (W entries of E each, from panel, rows
// npad apart) into shared memory (K x W), 16 bytes a thread at a time, by
// THREADS threads; the caller commits.  Each thread's passes are counted at
// compile time: no loop bounds to test, no division, one address a pass.
// Before (a loop over the CTA's 16-byte pieces, 64-bit addresses), the
// loads and the block's addresses took a tenth of the ALU pipe's
// instructions in phase 3 at B = 64, the pipe that bounds int32
// (bench/gpu.md).
template <int K, int W, int THREADS, typename E>
__device__ __forceinline__ void chunk_rows(E *s, const E *panel, int k0, int npad)
{
	constexpr int V = 16 / sizeof(E), Q = W / V, PASS = THREADS / Q;
	static_assert(W % V == 0 && THREADS % Q == 0 && K % PASS == 0,
	              "a chunk's loads in whole passes of the CTA");
	const unsigned t = threadIdx.x, row = t / Q, col = (t % Q) * V;
	const E *g = panel + tile_at(k0 + row, npad, col);
#pragma unroll
	for (int it = 0; it < K / PASS; it++) {
		cp_async16(s + (row + it * PASS) * W + col, g);
		g += (size_t)PASS * npad;
	}
}

// Phase 3's operands in flight: chunks of KC pivot rows of the transposed
// pivot column (colT, entries EA) and of the pivot row (rowP, entries EB),
// B entries wide, double-buffered in shared memory with cp.async, so that
// chunk ch + 1 loads while chunk ch is relaxed.  The one loader of every
// element width: start() issues chunk 0 (the caller then loads its tile),
// run(body) calls body(ch, buf) with chunk ch whole in buffer buf.
template <int KC, int B, int THREADS, typename EA, typename EB> struct PanelPipe {
	EA (*sa)[KC][B];
	EB (*sb)[KC][B];
	const EA *ga;
	const EB *gb;
	int npad;

	__device__ __forceinline__ void load(int chunk, int buf) const
	{
		chunk_rows<KC, B, THREADS>(&sa[buf][0][0], ga, chunk * KC, npad);
		chunk_rows<KC, B, THREADS>(&sb[buf][0][0], gb, chunk * KC, npad);
		cp_async_commit();
	}
	__device__ __forceinline__ void start() const { load(0, 0); }
	template <int NCH, typename Body> __device__ __forceinline__ void run(Body &&body) const
	{
		for (int ch = 0; ch < NCH; ch++) {
			if (ch + 1 < NCH) {
				load(ch + 1, (ch + 1) & 1);
				cp_async_wait<1>();
			} else {
				cp_async_wait<0>();
			}
			__syncthreads();
			body(ch, ch & 1);
			__syncthreads();
		}
	}
};

// The one that Elem<int>::relax2's IMADs multiply by.  In constant memory
// the compiler can neither fold it (the IMADs would become adds on the ALU
// pipe) nor hold it in an ordinary register: the IMADs read it from a
// uniform one.  Taken from npad instead (1 + (npad >> 31)), it went to an
// ordinary register, made again every pair of steps, and n = 20000 on
// 32 bits took 561 ms against 501 (H100, bench/gpu.md).
static __constant__ int fw_one = 1;

// Thread (ty,tx) owns rows/cols g*(B/G) + t*4 + c, g < G = R/4, c < 4, so a
// warp's 16-byte loads of one k-row are contiguous (no bank conflicts).
template <int B, int R> __host__ __device__ constexpr int tile_threads() { return (B / R) * (B / R); }
// small: a kernel of phase 2 or of the blocks of row and column T+1 for a
// matrix whose phase 3 is a wave or two (RoundKernels::small).  Those kernels
// are then the rounds' critical path, and half the CTAs an SM gives them the
// registers that their loads and the pivot's closing need without spilling
// (H100, n = 2000 on 32 bits: 1.17 ms against 1.25, float32 1.30 against
// 1.55; bench/gpu.md).
template <int B, int R> __host__ __device__ constexpr int tile_min_blocks(bool small = false)
{
	const int m = tile_threads<B, R>() >= 1024 ? 1 : tile_threads<B, R>() >= 256 ? 2 : 8;
	return small && m > 1 ? m / 2 : m;
}
// k values per chunk of the panels in shared memory.  At B = 64, 16: the
// two stages then take 16 KB, and eight CTAs of the 8 x 8 register tile
// share an SM (registers are then the limit); with 32 k, 32 KB, seven (shared
// memory was the limit), and n = 20000 took 600 ms against 574 on 32 bits
// (H100, bench/gpu.md).
template <int B> __host__ __device__ constexpr int tile_kc()
{
	return B == 64 ? FW_KC64 : B < FW_KC ? B : FW_KC;
}
// Two stages of A and B chunks; afterwards the same memory stages the new
// predecessors (B x B int32) or, up to B = 64, holds the next pivot block
// while it is closed (close_pivot_shared), so it is at least that large.
template <typename T, int B> __host__ __device__ constexpr size_t tile_smem()
{
	const size_t chunks = 2 * 2 * (size_t)tile_kc<B>() * B * sizeof(T),
	             staged = (size_t)B * B * 4, closing = B <= 64 ? p1_smem_block<T, B>() : 0;
	const size_t m = chunks > staged ? chunks : staged;
	return m > closing ? m : closing;
}

// Phase 3 of a round in one launch (SPLIT_WHOLE) or, where the next round
// starts before this one ends (one device, run_rounds_with), in two: the
// blocks of row and column T+1, which the next round's phases 1 and 2 wait
// for (SPLIT_NEXT), and the rest (SPLIT_REST).
enum { SPLIT_WHOLE = 0, SPLIT_NEXT = 1, SPLIT_REST = 2 };

// Which block (I,J) this CTA updates in round T, if any, on a device that
// holds block rows row0 .. row0 + rows - 1 (one GPU: all of them).
// KIND 2: phase 2; where the device holds row T, CTA b < nb takes block
//         (T,b); the next rows CTAs take blocks (row0 + b,T).
// KIND 3: phase 3, CTA (x,y) takes block (row0 + y,x) unless it is in row or
//         column T; where it closes block (C,C) afterwards (close = C >= 0:
//         phase 1 of the next round), CTAs (0,0) and (C,C - row0) trade
//         places, so that the CTA with the longer work starts first.
//         split (one device): SPLIT_NEXT, a grid of 2 nb CTAs, CTA x < nb
//         takes block (T+1,x), the others block (x - nb,T+1), with CTAs 0
//         and T+1 trading places as above; SPLIT_REST, the whole grid, but
//         none of those blocks.
template <int KIND, int SPLIT = SPLIT_WHOLE>
__device__ __forceinline__ bool tile_of(int nb, int round, int row0, int rows, int *I, int *J,
                                        int close = -1)
{
	if constexpr (KIND == 3 && SPLIT == SPLIT_NEXT) {
		const int next = round + 1, x = blockIdx.x == 0 ? next : blockIdx.x == next ? 0 : blockIdx.x;
		*I = x < nb ? next : x - nb;
		*J = x < nb ? x : next;
		return *I != round && *J != round && (x < nb || *I != next);
	} else if constexpr (KIND == 3 && SPLIT == SPLIT_REST) {
		*I = row0 + blockIdx.y;
		*J = blockIdx.x;
		return *I != round && *J != round && *I != round + 1 && *J != round + 1;
	} else if constexpr (KIND == 3) {
		int y = blockIdx.y, x = blockIdx.x;
		if (close >= 0) {
			if (x == close && y == close - row0)
				x = y = 0;
			else if (x == 0 && y == 0)
				x = close, y = close - row0;
		}
		*I = row0 + y;
		*J = x;
		return *I != round && *J != round;
	} else {
		const int b = blockIdx.x, nr = holds_row(round, row0, rows) ? nb : 0;
		*I = b < nr ? round : row0 + b - nr;
		*J = b < nr ? b : round;
		return b < nr ? b != round : *I != round;
	}
}

// Phase 2 (KIND 2) or phase 3 (KIND 3), blocks as tile_of() says: block (I,J) = min(block, colT[.][I] x rowP[.][J]) and an improved
// entry takes its predecessor from row T*B+k of the predecessor matrix,
// which prow points at (row T*B of p itself, or a copy from the device that
// holds it).
// Returns whether this thread's entries of the block hold a finite value
// afterwards (for the map of live blocks of a sparse run).  CG: the block is
// read past L1, where another CTA may have written it since (a level of a
// sparse run).
// int32: columns of the register tile whose pairs of steps take two add-mins
// on the ALU pipe (Elem<int>::relax2); the others take two IMADs on the FMA
// pipe and a three-way min on the ALU pipe.  Per pair an add-min pair keeps
// the ALU 4 cycles, the other form the FMA pipe 4 and the ALU 2, so some of
// each keeps both pipes busy; how many was measured (bench/gpu.md).  R (all
// of them) runs the k loop one step at a time: the 4 x 4 tile (B <= 32) does,
// where pairs were slower (n = 2000, packed paths at B = 32: 1.64 against
// 1.59 ms).
template <int B, int R> __host__ __device__ constexpr int alu_columns()
{
	return R != 8 ? R : B == 64 ? FW_ALU_Q64 : FW_ALU_Q128;
}

// The new predecessors of update_block's register tile c into staged (B x B):
// the entry of the pivot row's predecessors ppanel at the k that improved
// each entry (packed: c's low byte, k + 1; else kbest), -2 where none did.
template <typename T, int B, int R, bool PACKED, typename KBest>
__device__ __forceinline__ void stage_preds(const T (&c)[R][R], const KBest &kbest,
                                            const int32_t *ppanel, int32_t *staged, int npad,
                                            int tx, int ty)
{
	constexpr int G = R / 4, GS = B / G;
#pragma unroll
	for (int r = 0; r < R; r++) {
		const int row = (r / 4) * GS + ty * 4 + r % 4;
#pragma unroll
		for (int g = 0; g < G; g++)
#pragma unroll
			for (int q = 0; q < 4; q++) {
				const int col = g * GS + tx * 4 + q;
				int k;
				if constexpr (PACKED)
					k = ((int)c[r][g * 4 + q] & 0xff) - 1;
				else
					k = kbest[r][g * 4 + q];
				staged[row * B + col] = k >= 0 ? ppanel[(size_t)k * npad + col] : -2;
			}
	}
}

template <typename T, int B, int R, bool PATHS, bool PACKED, int KIND, bool CG = false,
          int ALU_Q = alu_columns<B, R>()>
__device__ __forceinline__ bool update_block(T *__restrict__ d, int32_t *__restrict__ p,
                                             const int32_t *prow,
                                             int npad, int round, T *__restrict__ colT,
                                             T *__restrict__ rowP, int I, int J)
{
	constexpr int TX = B / R, THREADS = TX * TX, G = R / 4, GS = B / G;
	constexpr int KC = tile_kc<B>(), NCH = B / KC;
	// Steps of k unrolled: k_unroll (float32 with predecessors at B = 64:
	// 4); pairs of steps: k_unroll / 2 (float32's 4 there spilled).
	constexpr int KU = std::is_same<T, float>::value && B == 64 ? 4 : k_unroll;
	constexpr int KU2 = k_unroll > 2 ? k_unroll / 2 : 1;
	constexpr bool TRACK = PATHS && !PACKED;
	static_assert(KC % 2 == 0, "the k loop takes steps in pairs");
	const int one = fw_one;
	const T inf = Elem<T>::inf(PACKED);
	bool finite = false;
	extern __shared__ __align__(16) unsigned char smem[];
	T(*sa)[KC][B] = (T(*)[KC][B])smem;
	T(*sb)[KC][B] = (T(*)[KC][B])(smem + 2 * KC * B * sizeof(T));
	const int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
	const PanelPipe<KC, B, THREADS, T, T> pipe{sa, sb, colT + (size_t)I * B, rowP + (size_t)J * B,
	                                           npad};
	pipe.start();

	T c[R][R];
	int kbest[TRACK ? R : 1][TRACK ? R : 1];
	T *dtile = d + (size_t)I * B * npad + (size_t)J * B;
#pragma unroll
	for (int r = 0; r < R; r++) {
		const int row = (r / 4) * GS + ty * 4 + r % 4;
#pragma unroll
		for (int g = 0; g < G; g++) {
			const T *src = dtile + tile_at(row, npad, g * GS + tx * 4);
			if (sizeof(T) == 4) {
				int4 v = CG ? __ldcg((const int4 *)src) : *(const int4 *)src;
				T *cv = (T *)&v;
#pragma unroll
				for (int q = 0; q < 4; q++) {
					if constexpr (PACKED)
						c[r][g * 4 + q] = (T)((int)cv[q] << 8);
					else
						c[r][g * 4 + q] = cv[q];
					if (TRACK)
						kbest[r][g * 4 + q] = -1;
				}
			}
		}
	}

	pipe.template run<NCH>([&](int ch, int buf) {
		if constexpr (TRACK || ALU_Q >= R) { // one step at a time
#pragma unroll KU
			for (int kk = 0; kk < KC; kk++) {
				T a[R], b[R];
#pragma unroll
				for (int g = 0; g < G; g++) {
					*(int4 *)&a[g * 4] = *(const int4 *)&sa[buf][kk][g * GS + ty * 4];
					*(int4 *)&b[g * 4] = *(const int4 *)&sb[buf][kk][g * GS + tx * 4];
				}
#pragma unroll
				for (int r = 0; r < R; r++)
#pragma unroll
					for (int q = 0; q < R; q++) {
						if constexpr (TRACK) {
							T s = a[r] + b[q];
							if (s < c[r][q]) {
								c[r][q] = s;
								kbest[r][q] = ch * KC + kk;
							}
						} else {
							c[r][q] = Elem<T>::relax(a[r], b[q], c[r][q]);
						}
					}
			}
		} else { // two steps at a time
#pragma unroll KU2
			for (int kk = 0; kk < KC; kk += 2) {
				T a0[R], b0[R], a1[R], b1[R];
#pragma unroll
				for (int g = 0; g < G; g++) {
					*(int4 *)&a0[g * 4] = *(const int4 *)&sa[buf][kk][g * GS + ty * 4];
					*(int4 *)&b0[g * 4] = *(const int4 *)&sb[buf][kk][g * GS + tx * 4];
					*(int4 *)&a1[g * 4] = *(const int4 *)&sa[buf][kk + 1][g * GS + ty * 4];
					*(int4 *)&b1[g * 4] = *(const int4 *)&sb[buf][kk + 1][g * GS + tx * 4];
				}
#pragma unroll
				for (int r = 0; r < R; r++)
#pragma unroll
					for (int q = 0; q < R; q++)
						c[r][q] = Elem<T>::relax2(a0[r], b0[q], a1[r], b1[q], c[r][q], one,
						                          q < ALU_Q);
			}
		}
	});

	const int32_t *ppanel = prow + (size_t)J * B;
	int32_t *ptile = p + (size_t)I * B * npad + (size_t)J * B;
	// New predecessors are staged in shared memory (free again after the k
	// loop): a block of the pivot row reads its own old predecessors, so every
	// read comes before any write.
	int32_t *staged = (int32_t *)smem; // B x B
	if constexpr (PATHS) {
		stage_preds<T, B, R, PACKED>(c, kbest, ppanel, staged, npad, tx, ty);
		__syncthreads();
	}
#pragma unroll
	for (int r = 0; r < R; r++) {
		const int row = (r / 4) * GS + ty * 4 + r % 4;
#pragma unroll
		for (int g = 0; g < G; g++) {
			const int col = g * GS + tx * 4;
			T out[4];
#pragma unroll
			for (int q = 0; q < 4; q++) {
				T v = c[r][g * 4 + q];
				if constexpr (PACKED)
					v = (T)((int)v >> 8);
				if constexpr (PATHS)
					if (staged[row * B + col + q] != -2)
						ptile[(size_t)row * npad + col + q] = staged[row * B + col + q];
				finite |= v < inf;
				out[q] = v;
				// Phase 2 leaves the new pivot column in colT itself, for
				// phase 3 (the block read its own part of it, all of it
				// before this point, and no other block reads that part).
				if constexpr (KIND == 2)
					if (J == round)
						colT[(size_t)(col + q) * npad + (size_t)I * B + row] =
						        PACKED ? (T)((int)v << 8) : v;
			}
			*(int4 *)(dtile + tile_at(row, npad, col)) = *(int4 *)out;
			// ... and the new pivot row in rowP (packed: with k + 1).
			if constexpr (KIND == 2) {
				if (I == round) {
					if constexpr (PACKED)
#pragma unroll
						for (int q = 0; q < 4; q++)
							out[q] = (T)(((int)out[q] << 8) | (row + 1));
					*(int4 *)(rowP + (size_t)row * npad + (size_t)J * B + col) = *(int4 *)out;
				}
			}
		}
	}
	return finite;
}

// Whether the phase-3 kernel closes the next pivot block itself, and how:
// in registers (close_pivot) where the tile's threads hold at most 16
// entries each (and have more than 64 registers for predecessors); with the
// block in shared memory (close_pivot_shared) for the 8 x 8 register tile of
// distances, where it fits in the tile's shared memory; otherwise not.  (The
// 16-bit tile kernel always closes it, in registers.)
//
// The 8 x 8 tile's closing in registers is quicker, but the tile's loop then
// runs 2 to 5% slower (its registers are allocated with the closing's): it
// pays only where phase 3 is a wave or two and the closing its tail
// (close_kind_few; bench/gpu.md).
template <typename T, int B, int R, bool PATHS> __host__ __device__ constexpr int close_kind()
{
	return (B / R) * (B / R) >= B * B / 16 && (!PATHS || tile_threads<B, R>() < 1024) ? 1
	       : !PATHS && p1_smem_block<T, B>() <= tile_smem<T, B>() ? 2
	                                                                : 0;
}
template <typename T, int B, int R, bool PATHS> __host__ __device__ constexpr int close_kind_few()
{
	return !PATHS && R == 8 ? 1 : close_kind<T, B, R, PATHS>();
}

// Phase 2 (KIND 2) or phase 3 (KIND 3), blocks as tile_of() says.  close
// (phase 3, HOW > 0: close_kind): the CTA that updates block (close, close),
// the next round's pivot block, then runs phase 1 of that round on it.
template <typename T, int B, int R, bool PATHS, bool PACKED, int KIND, int HOW = 0,
          int SPLIT = SPLIT_WHOLE, bool SMALL = false>
__global__ void __launch_bounds__(tile_threads<B, R>(), tile_min_blocks<B, R>(SMALL))
tile_update(T *__restrict__ d, int32_t *__restrict__ p, const int32_t *prow, int npad, int round,
            T *__restrict__ colT, T *__restrict__ rowP, int row0, int rows, int close)
{
	int I, J;
	if (!tile_of<KIND, SPLIT>(npad / B, round, row0, rows, &I, &J, close))
		return;
	// (closing in registers: one step at a time, which leaves it more of them)
	update_block<T, B, R, PATHS, PACKED, KIND, false, HOW == 1 ? R : alu_columns<B, R>()>(
	        d, p, prow, npad, round, colT, rowP, I, J);
	// (tile_of moved block (close, close) to CTA (0,0): nothing else needs
	// to stay in registers through the update)
	if constexpr (KIND == 3 && HOW > 0 && SPLIT != SPLIT_REST) {
		if (close >= 0 && blockIdx.x == 0 && blockIdx.y == 0) {
			__syncthreads(); // the block's writes, and shared memory free
			if constexpr (HOW == 1 && R == 8) // 64 entries a thread: a call
				close_pivot_after<T, B, B / R, B / R, PATHS>(d, p, npad, close);
			else if constexpr (HOW == 1)
				close_pivot<T, B, B / R, B / R, PATHS>(d, p, npad, close);
			else
				close_pivot_shared<T, B, B / R, B / R>(d, npad, close);
		}
	}
}

} // namespace
#endif
