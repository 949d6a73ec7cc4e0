// fw_f64.cuh - the GPU engine's tiles for float64 distances (8-byte
// entries, B = 64; fw_rounds.cuh's RoundKernels64 schedules them, as it
// schedules fw_tiles.cuh's for 32-bit ones).
//
// A GPU holds a band of block rows of the padded matrix (all of it on one
// GPU) and, for each round, the pivot block row: its own where the band
// holds it, else a copy (struct band).  One kernel does the block updates
// of a phase: C = min(C, A (+) Bk) over
// the round's B = 64 pivots, A and Bk staged in shared memory (A
// transposed, so that a thread reads its rows' A[i][k] side by side), C in
// registers, 4 x 8 entries a thread, 128 threads a block.  Phase 2 passes
// the block itself as A or Bk: its old values are in shared memory before
// any is replaced, and with the pivot block closed one pass gives the
// textbook result (as the CPU engine, lib/cpu/fw_cpu.c).  With MID, each entry
// carries the largest intermediate vertex of its path, and a sum replaces
// an entry when it is shorter, or as short with a smaller one: the
// textbook predecessors (fw_opts.textbook_paths in lib/fw.h).
//
// Where no weight is negative (clean_sums), phase 3 (MAIN) needs no such
// comparison.  Of the shortest paths from i to j through pivots below the
// round's end, take one whose largest pivot m is least: its parts i -> m
// and m -> j are shortest through pivots below m, so the sum through k = m
// is as short, and A[i][m], Bk[m][j] have their largest intermediates
// below m ("clean").  Every sum through k is as long or longer, and one as
// short has a largest intermediate of m or above.  So the sums through k
// where A[i][k] or Bk[k][j] goes through a pivot above k are dropped
// (staged as +inf), the rest taken in the order of k when strictly shorter
// (the entry before the round wins a tie): the first clean k as short is
// m, and the entry's intermediate is k itself.  This is exact where the
// sums are (whole weights); otherwise within rounding, as the comparison
// of intermediates was.  One select a relaxation instead of a comparison
// and three, and no intermediates in shared memory: 2786 ms against 3554
// at n = 20000, H100 (bench/python.md).
#pragma once

#include <cstdint>

namespace f64 {
namespace { // (included by more than one file of a program)

constexpr int B = 64;        // blocking factor
constexpr int R = 4;         // closure: rows and columns a thread holds
constexpr int T = B / R;     // closure: threads along a side, 16 x 16
constexpr int UR = 4;        // update: rows a thread holds
constexpr int UC = 8;        // update: columns a thread holds
constexpr int UX = B / UC;   // update: threads along a row, 8
constexpr int UY = B / UR;   // update: threads along a column, 16
constexpr int UTHREADS = UX * UY;

// Shared memory of closure<MID> (dynamic: over the 48 KiB of static).
template <bool MID> constexpr size_t closure_smem()
{
	return (size_t)B * (B + 1) * (sizeof(double) + (MID ? sizeof(int32_t) : 0));
}

// A band of block rows on one GPU: rows block rows from global block row
// row0, stride ld (npad); pd, pm the round's pivot block row (B rows).
struct band {
	double *d;
	int32_t *m;
	const double *pd;
	const int32_t *pm;
	int64_t ld;
	int row0, rows, nb, K;
};

// Phase 1: the pivot block closed in place, one pivot at a time; d, m point
// at the pivot block row (the band's own), the block is its block K.
template <bool MID>
__global__ void __launch_bounds__(T * T) closure(double *d, int32_t *m, int64_t ld, int K)
{
	extern __shared__ double smem[];
	double (*c)[B + 1] = reinterpret_cast<double (*)[B + 1]>(smem);
	int32_t (*cm)[B + 1] = reinterpret_cast<int32_t (*)[B + 1]>(smem + B * (B + 1));
	const int tx = threadIdx.x % T, ty = threadIdx.x / T;
	const int64_t base = (int64_t)K * B;
	for (int r = 0; r < R; r++)
		for (int q = 0; q < R; q++) {
			int i = ty * R + r, j = tx * R + q;
			c[i][j] = d[base + i * ld + j];
			if (MID)
				cm[i][j] = m[base + i * ld + j];
		}
	__syncthreads();
	for (int k = 0; k < B; k++) {
		double s[R][R];
		int32_t sm[R][R];
		for (int r = 0; r < R; r++)
			for (int q = 0; q < R; q++) {
				int i = ty * R + r, j = tx * R + q;
				s[r][q] = c[i][k] + c[k][j];
				if (MID) {
					int32_t a = cm[i][k] > K * B + k ? cm[i][k] : K * B + k;
					sm[r][q] = cm[k][j] > a ? cm[k][j] : a;
				}
			}
		__syncthreads();
		for (int r = 0; r < R; r++)
			for (int q = 0; q < R; q++) {
				int i = ty * R + r, j = tx * R + q;
				bool better = s[r][q] < c[i][j];
				if (MID)
					better = better || (s[r][q] == c[i][j] && sm[r][q] < cm[i][j]);
				if (better) {
					c[i][j] = s[r][q];
					if (MID)
						cm[i][j] = sm[r][q];
				}
			}
		__syncthreads();
	}
	for (int r = 0; r < R; r++)
		for (int q = 0; q < R; q++) {
			int i = ty * R + r, j = tx * R + q;
			d[base + i * ld + j] = c[i][j];
			if (MID)
				m[base + i * ld + j] = cm[i][j];
		}
}

// Which blocks a launch updates (the pivot's own never):
//   ROWS   the pivot block row's, blockIdx.x = J (its band: the pivot row);
//   COLS   the band's blocks of the pivot block column, blockIdx.x = local I;
//   BOTH   ROWS and COLS in one launch where one band holds everything;
//   MAIN   the band's other blocks, blockIdx.y = local I, blockIdx.x = J.
enum { ROWS = 1, COLS = 2, BOTH = 3, MAIN = 4 };

// Phase 3 with intermediates, where no weight is negative: the sums through
// k = m only (above).  With a weight below 0 a negative cycle has no
// shortest paths to argue from, and every sum is compared as in phase 2.
template <bool MID, int MODE, bool BITS> __host__ __device__ constexpr bool clean_sums()
{
	return MID && MODE == MAIN && BITS;
}

// Shared memory of update<MID, MODE, BITS>: A transposed and Bk, and their
// intermediates where a sum's intermediate is compared.
template <bool MID, int MODE, bool BITS> __host__ __device__ constexpr size_t update_smem()
{
	return (size_t)2 * B * B *
	       (sizeof(double) + (MID && !clean_sums<MID, MODE, BITS>() ? sizeof(int32_t) : 0));
}

// Thread (tx, ty) holds rows ty * UR + r and columns tx + UX * q of C
// (4 x 8 entries, so 12 loads from shared memory feed 32 relaxations): its
// rows' A entries are read as two 16-byte broadcasts, its columns' Bk
// entries side by side across the threads.
// BITS (no entry below +0, none -0): without MID, half the minima are taken
// as the integer order of the bits, which is the order of such values: the
// comparison then runs on the integer units beside the additions on the
// float64 ones, where fmin() would put both on the float64 units.  With
// MID, phase 3 takes the clean sums alone (clean_sums).
//
// update_tile: block C of the band through the round's pivots: mode ROWS,
// the pivot row's block J; COLS, the band's block (I, K); MAIN, the band's
// block (I, J) (I counted in the band).  LIVE: whether any entry of C is
// finite after, to every thread (a barrier: shared memory free again).
template <bool MID, int MODE, bool BITS, bool LIVE>
__device__ __forceinline__ bool update_tile(const band &g, int mode, int I, int J)
{
	extern __shared__ double smem[];
	double (*at)[B] = reinterpret_cast<double (*)[B]>(smem);          // at[k][i] = A[i][k]
	double (*bk)[B] = reinterpret_cast<double (*)[B]>(smem + B * B);
	int32_t (*amt)[B] = reinterpret_cast<int32_t (*)[B]>(smem + 2 * B * B);
	int32_t (*bm)[B] = reinterpret_cast<int32_t (*)[B]>(smem + 2 * B * B) + B;
	const int K = g.K;
	const int64_t ld = g.ld;
	constexpr bool CLEAN = clean_sums<MID, MODE, BITS>();
	// C, A and Bk as pointers: the pivot row's blocks in pd, the band's in d
	double *cd;
	int32_t *cmp;
	const double *ad, *bd;
	const int32_t *amp, *bmp;
	if (mode == ROWS) { /* C = (K, J): a block of the pivot row itself */
		if (J == K)
			return false;
		cd = const_cast<double *>(g.pd) + (int64_t)J * B;
		cmp = const_cast<int32_t *>(g.pm) + (int64_t)J * B;
		ad = g.pd + (int64_t)K * B, amp = g.pm + (int64_t)K * B;
		bd = cd, bmp = cmp;
	} else {
		if (g.row0 + I == K || (mode == MAIN && J == K))
			return false;
		cd = g.d + (int64_t)I * B * ld + (int64_t)J * B;
		cmp = g.m + (int64_t)I * B * ld + (int64_t)J * B;
		ad = g.d + (int64_t)I * B * ld + (int64_t)K * B;
		amp = g.m + (int64_t)I * B * ld + (int64_t)K * B;
		bd = g.pd + (int64_t)J * B, bmp = g.pm + (int64_t)J * B;
	}
	const int kbase = K * B;
	const double inf = __longlong_as_double(0x7ff0000000000000LL);
	for (int y = threadIdx.x; y < B * B; y += UTHREADS) {
		int i = y / B, j = y % B;
		at[j][i] = ad[i * ld + j];
		bk[i][j] = bd[i * ld + j];
		if (CLEAN) { /* A[i][k], Bk[k][j] through a pivot above k: none */
			if (amp[i * ld + j] >= kbase + j)
				at[j][i] = inf;
			if (bmp[i * ld + j] >= kbase + i)
				bk[i][j] = inf;
		} else if (MID) {
			amt[j][i] = amp[i * ld + j];
			bm[i][j] = bmp[i * ld + j];
		}
	}
	const int tx = threadIdx.x % UX, ty = threadIdx.x / UX;
	double c[UR][UC];
	int32_t cm[UR][UC];
	for (int r = 0; r < UR; r++)
		for (int q = 0; q < UC; q++) {
			c[r][q] = cd[(ty * UR + r) * ld + tx + UX * q];
			if (MID)
				cm[r][q] = cmp[(ty * UR + r) * ld + tx + UX * q];
		}
	__syncthreads();
#pragma unroll 4
	for (int k = 0; k < B; k++) {
		double a[UR], b[UC];
		int32_t ma[UR], mb[UC];
		const double2 a01 = *reinterpret_cast<const double2 *>(&at[k][ty * UR]);
		const double2 a23 = *reinterpret_cast<const double2 *>(&at[k][ty * UR + 2]);
		a[0] = a01.x, a[1] = a01.y, a[2] = a23.x, a[3] = a23.y;
		for (int q = 0; q < UC; q++)
			b[q] = bk[k][tx + UX * q];
		if (MID && !CLEAN) {
			for (int r = 0; r < UR; r++) {
				int32_t x = amt[k][ty * UR + r];
				ma[r] = x > kbase + k ? x : kbase + k;
			}
			for (int q = 0; q < UC; q++)
				mb[q] = bm[k][tx + UX * q];
		}
		for (int r = 0; r < UR; r++)
			for (int q = 0; q < UC; q++) {
				double s = a[r] + b[q];
				if (!MID && BITS && (q & 1)) {
					const long long si = __double_as_longlong(s);
					c[r][q] = si < __double_as_longlong(c[r][q]) ? s : c[r][q];
					continue;
				}
				if (!MID) {
					c[r][q] = fmin(c[r][q], s);
					continue;
				}
				if (CLEAN) {
					const bool better = s < c[r][q];
					c[r][q] = better ? s : c[r][q];
					cm[r][q] = better ? kbase + k : cm[r][q];
					continue;
				}
				int32_t mm = ma[r] > mb[q] ? ma[r] : mb[q];
				bool better = s < c[r][q] || (s == c[r][q] && mm < cm[r][q]);
				c[r][q] = better ? s : c[r][q];
				cm[r][q] = better ? mm : cm[r][q];
			}
	}
	bool finite = false;
	for (int r = 0; r < UR; r++)
		for (int q = 0; q < UC; q++) {
			cd[(ty * UR + r) * ld + tx + UX * q] = c[r][q];
			if (MID)
				cmp[(ty * UR + r) * ld + tx + UX * q] = cm[r][q];
			if (LIVE)
				finite |= c[r][q] < inf;
		}
	return LIVE ? __syncthreads_or(finite) != 0 : false;
}

// One launch of a round's updates (MODE: which blocks, above).
template <bool MID, int MODE, bool BITS>
__global__ void __launch_bounds__(UTHREADS) update(band g)
{
	int mode = MODE, x = blockIdx.x;
	if (MODE == BOTH)
		mode = x % 2 == 0 ? ROWS : COLS, x /= 2;
	update_tile<MID, MODE, BITS, false>(g, mode, mode == COLS ? x : (int)blockIdx.y,
	                                    mode == COLS ? g.K : x);
}

// A sparse run's round of pivot block K (one band, every row): the blocks
// that can change, from the lists of round_lists (fw_prepare.cuh: counts,
// then nb rows I whose (I, K) is live, nb columns J whose (K, J) is),
// a CTA at a time over the grid: MODE BOTH, the pivot row's blocks of the
// columns listed and the pivot column's of the rows; MAIN, each listed row
// with each listed column.  A block left with a finite entry is marked in
// live (nb x nb).
template <bool MID, int MODE, bool BITS>
__global__ void __launch_bounds__(UTHREADS)
update_listed(band g, const int *__restrict__ lists, uint8_t *__restrict__ live)
{
	const int nb = g.nb, nr = lists[0], nc = lists[1];
	const int *rows = lists + 2, *cols = lists + 2 + nb;
	const long long items = MODE == MAIN ? (long long)nr * nc : (long long)nr + nc;
	for (long long w = blockIdx.x; w < items; w += gridDim.x) {
		const bool row = MODE != MAIN && w < nc; // (BOTH: the pivot row's blocks first)
		const int I = MODE == MAIN ? rows[w / nc] : row ? g.K : rows[w - nc];
		const int J = MODE == MAIN ? cols[w % nc] : row ? cols[w] : g.K;
		const int mode = MODE == MAIN ? MAIN : row ? ROWS : COLS;
		if (update_tile<MID, MODE, BITS, true>(g, mode, I, J) && threadIdx.x == 0)
			live[(size_t)I * nb + J] = 1;
	}
}

}  // namespace
}  // namespace f64
