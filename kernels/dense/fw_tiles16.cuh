// fw_tiles16.cuh - the tile phases in 16-bit lanes (two relaxations an
// instruction) for int32 distances that stay small, and the conversions to
// and from them; the same shapes as fw_tiles.cuh, whose loader they share.
#ifndef APSP_FW_TILES16_CUH
#define APSP_FW_TILES16_CUH

#include "fw_tiles.cuh"

#include <algorithm>

namespace {

// ---- 16-bit lanes: distances only, small int32 distances --------------------
//
// VIADDMNMX.U16x2 does two relaxations per instruction.  When only distances
// are asked for, the run can be made on 16-bit entries provided no finite
// distance reaches INF16.  That is not known beforehand, but it is checked
// afterwards: a finite distance that reached INF16 would have a shortest path
// whose last vertex k still below INF16 gives d[i][k] + w(k,j) >= INF16; so if
// the largest finite result plus the largest edge weight stays below INF16,
// nothing was cut off.  Otherwise the run is repeated on 32 bits.  The lanes
// are unsigned: int32 weights reach the kernels in [0, ST_INF_I32] (solve.h),
// every entry stays in [0, INF16], and the sum of two in [0, 2 INF16], within
// 16 bits; so an entry reads the same as a short.
constexpr int INF16 = 32767;
// Whether weights up to wmax leave 16-bit lanes the room they are tried in.
__host__ __device__ constexpr bool fits16(int wmax) { return wmax < INF16 / 4; }

template <> struct Elem<short> {
	static __device__ __forceinline__ short relax(short a, short b, short c)
	{
		int s = a + b;
		return (short)(s < c ? s : c);
	}
};

// Panels as above: colT2[k][x] = d[x][T*B+k] in both halves of a word,
// rowP[k][x] = d[T*B+k][x].
template <int B>
__global__ void panels16(const short *__restrict__ d, int npad, int round,
                         uint32_t *__restrict__ colT2, short *__restrict__ rowP, int row0, int rows,
                         bool pivot)
{
	__shared__ short tile[32][33];
	const int x0 = blockIdx.x * 32, k0 = blockIdx.y * 32;
	const int lx = threadIdx.x, ly = threadIdx.y;
	const int lo = row0 * B, hi = (row0 + rows) * B;
	if (!pivot && (x0 + 32 <= lo || x0 >= hi))
		return;
	for (int q = ly; q < 32; q += 8) {
		const int k = k0 + q, x = x0 + lx;
		if (pivot && k < B && x < npad)
			rowP[(size_t)k * npad + x] = d[(size_t)(round * B + k) * npad + x];
		if (x0 + q >= lo && x0 + q < hi && k0 + lx < B)
			tile[q][lx] = d[(size_t)(x0 + q) * npad + round * B + k0 + lx];
	}
	__syncthreads();
	for (int q = ly; q < 32; q += 8)
		if (x0 + lx >= lo && x0 + lx < hi && k0 + q < B)
			colT2[(size_t)(k0 + q) * npad + x0 + lx] = (uint16_t)tile[lx][q] * 0x10001u;
}

// Thread (ty,tx) owns 8 rows (as tile_update with R = 8) and 16 columns as
// 8 pairs: g*(B/2) + tx*8 + 0..7 for g < 2.
template <int B> __host__ __device__ constexpr int tile16_threads() { return (B / 8) * (B / 16); }
template <int B> constexpr size_t tile16_smem() { return 2 * 32 * (size_t)B * (4 + 2); }

template <int B, int KIND, bool CG = false>
__device__ __forceinline__ bool update_block16(short *__restrict__ d, int npad, int round,
                                               uint32_t *__restrict__ colT2,
                                               short *__restrict__ rowP, int I, int J)
{
	constexpr int TX = B / 16, THREADS = tile16_threads<B>(), GS = B / 2;
	constexpr int KC = 32, NCH = B / KC;
	bool finite = false;
	extern __shared__ __align__(16) unsigned char smem[];
	uint32_t(*sa)[KC][B] = (uint32_t(*)[KC][B])smem;
	short(*sb)[KC][B] = (short(*)[KC][B])(smem + 2 * KC * B * 4);
	const int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
	const PanelPipe<KC, B, THREADS, uint32_t, short> pipe{sa, sb, colT2 + (size_t)I * B,
	                                                      rowP + (size_t)J * B, npad};
	pipe.start();

	uint32_t c[8][8];
	short *dtile = d + (size_t)I * B * npad + (size_t)J * B;
#pragma unroll
	for (int r = 0; r < 8; r++) {
		const int row = (r / 4) * GS + ty * 4 + r % 4;
#pragma unroll
		for (int g = 0; g < 2; g++)
		{
			const uint4 *src = (const uint4 *)(dtile + tile_at(row, npad, g * GS + tx * 8));
			*(uint4 *)&c[r][g * 4] = CG ? __ldcg(src) : *src;
		}
	}
	pipe.template run<NCH>([&](int, int buf) {
#pragma unroll k_unroll
		for (int kk = 0; kk < KC; kk++) {
			uint32_t a[8], b[8];
#pragma unroll
			for (int g = 0; g < 2; g++) {
				*(uint4 *)&a[g * 4] = *(const uint4 *)&sa[buf][kk][g * GS + ty * 4];
				*(uint4 *)&b[g * 4] = *(const uint4 *)&sb[buf][kk][g * GS + tx * 8];
			}
#pragma unroll
			for (int r = 0; r < 8; r++)
#pragma unroll
				for (int q = 0; q < 8; q++)
					c[r][q] = __viaddmin_u16x2(a[r], b[q], c[r][q]);
		}
	});
#pragma unroll
	for (int r = 0; r < 8; r++) {
		const int row = (r / 4) * GS + ty * 4 + r % 4;
#pragma unroll
		for (int g = 0; g < 2; g++) {
			*(uint4 *)(dtile + tile_at(row, npad, g * GS + tx * 8)) = *(const uint4 *)&c[r][g * 4];
#pragma unroll
			for (int q = 0; q < 4; q++)
				finite |= (c[r][g * 4 + q] & 0xffffu) < (uint32_t)INF16 ||
				          (c[r][g * 4 + q] >> 16) < (uint32_t)INF16;
			// Phase 2 leaves the new pivot row and column in the panels
			// for phase 3, as tile_update does.
			if constexpr (KIND == 2) {
				if (I == round)
					*(uint4 *)(rowP + (size_t)row * npad + (size_t)J * B + g * GS + tx * 8) =
					        *(const uint4 *)&c[r][g * 4];
				if (J == round)
#pragma unroll
					for (int w = 0; w < 8; w++) {
						const uint32_t h = (c[r][g * 4 + w / 2] >> (16 * (w % 2))) & 0xffffu;
						colT2[(size_t)(g * GS + tx * 8 + w) * npad + (size_t)I * B + row] =
						        h * 0x10001u;
					}
			}
		}
	}
	return finite;
}

template <int B, int KIND, int SPLIT = SPLIT_WHOLE>
__global__ void __launch_bounds__(tile16_threads<B>(), 4)
tile_update16(short *__restrict__ d, int npad, int round, uint32_t *__restrict__ colT2,
              short *__restrict__ rowP, int row0, int rows, int close)
{
	int I, J;
	if (!tile_of<KIND, SPLIT>(npad / B, round, row0, rows, &I, &J, close))
		return;
	update_block16<B, KIND>(d, npad, round, colT2, rowP, I, J);
	if constexpr (KIND == 3 && SPLIT != SPLIT_REST) {
		if (close >= 0 && blockIdx.x == 0 && blockIdx.y == 0) { // as tile_update
			__syncthreads();
			close_pivot_after<short, B, B / 8, B / 16, false>(d, nullptr, npad, close);
		}
	}
}

// An int32 entry in a 16-bit lane (INF16 for INF and whatever reaches it),
// and back (ST_INF_I32 for INF16).
__device__ __forceinline__ short to_lane(int w) { return (short)(w >= INF16 ? INF16 : w); }
__device__ __forceinline__ int from_lane(int x) { return x >= INF16 ? ST_INF_I32 : x; }

__global__ void to16(const int *__restrict__ d, short *__restrict__ d16, size_t count)
{
	size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (e < count)
		d16[e] = to_lane(d[e]);
}

__global__ void from16(const short *__restrict__ d16, int *__restrict__ d, size_t count)
{
	size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (e < count)
		d[e] = from_lane(d16[e]);
}

// to16, and the largest weight below limit into *out (which starts at 0),
// in one pass.
__global__ void to16_max(const int *__restrict__ d, short *__restrict__ d16, size_t count,
                         int limit, int *out)
{
	int m = 0;
	for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < count;
	     e += (size_t)gridDim.x * blockDim.x) {
		const int w = d[e];
		d16[e] = to_lane(w);
		if (w < limit && w > m)
			m = w;
	}
	m = __reduce_max_sync(0xffffffffu, m);
	if ((threadIdx.x & 31) == 0)
		atomicMax(out, m);
}

// from16 where the 16-bit run stands: no distance came within the largest
// weight wmax of INF16 (dmax: the largest distance below INF16, on the
// device, so that no round trip to the host comes between).
__global__ void from16_if(const short *__restrict__ d16, int *__restrict__ d, size_t count,
                          int wmax, const int *dmax)
{
	size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (e < count && *dmax + wmax < INF16)
		d[e] = from_lane(d16[e]);
}

// ---- 16-bit lanes in the 32-bit matrix's own memory -----------------------
//
// Where the device has no room for a second matrix (a graph made on the
// device from its arcs, which can be made again), the matrix is made in
// 16-bit lanes in the first half of the 32-bit matrix's memory (no_edges16,
// put_arcs16), and a result that stands is widened there where it is wanted
// on 32 bits: from the back, a launch at a time over entries [a, b) with
// b <= 2a, so that what a launch writes lies apart from what it reads and
// from what later launches read.  The first HEAD16 entries go in one block,
// read whole into registers before any is written.
constexpr int HEAD16_THREADS = 1024, HEAD16_EACH = 4, HEAD16 = HEAD16_THREADS * HEAD16_EACH;

__global__ void __launch_bounds__(HEAD16_THREADS) widen_head(void *d, size_t count)
{
	int v[HEAD16_EACH];
#pragma unroll
	for (int q = 0; q < HEAD16_EACH; q++) {
		const size_t e = (size_t)q * HEAD16_THREADS + threadIdx.x;
		v[q] = e >= count ? 0 : ((const short *)d)[e];
	}
	__syncthreads();
#pragma unroll
	for (int q = 0; q < HEAD16_EACH; q++) {
		const size_t e = (size_t)q * HEAD16_THREADS + threadIdx.x;
		if (e < count)
			((int *)d)[e] = from_lane(v[q]);
	}
}

// Entries [a, b), eight a thread at a time (a and b multiples of 8).
__global__ void widen_span(void *d, size_t a, size_t b)
{
	for (size_t e = a / 8 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < b / 8;
	     e += (size_t)gridDim.x * blockDim.x) {
		const uint4 q = ((const uint4 *)d)[e];
		uint4 *wide = (uint4 *)d + 2 * e;
		uint32_t x[8];
		const uint32_t h[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
		for (int i = 0; i < 8; i++)
			x[i] = (uint32_t)from_lane((int)((h[i / 2] >> (16 * (i % 2))) & 0xffffu));
		wide[0] = make_uint4(x[0], x[1], x[2], x[3]);
		wide[1] = make_uint4(x[4], x[5], x[6], x[7]);
	}
}

// The count 16-bit entries at d (a multiple of 8, as every band's) widened
// to 32 bits in place, on s.
cudaError_t widen_in_place(void *d, size_t count, cudaStream_t s)
{
	for (size_t b = count; b > (size_t)HEAD16;) {
		const size_t a = std::max(((b + 1) / 2 + 7) / 8 * 8, (size_t)HEAD16);
		const size_t blocks = ((b - a) / 8 + 255) / 256;
		widen_span<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, s>>>(d, a, b);
		b = a;
	}
	widen_head<<<1, HEAD16_THREADS, 0, s>>>(d, count);
	return cudaGetLastError();
}

// Largest entry below limit (out starts at 0; entries are >= 0 here).
template <typename T>
__global__ void max_below(const T *__restrict__ d, size_t count, int limit, int *out)
{
	int m = 0;
	for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < count;
	     e += (size_t)gridDim.x * blockDim.x)
		if (d[e] < limit && d[e] > m)
			m = d[e];
	m = __reduce_max_sync(0xffffffffu, m);
	if ((threadIdx.x & 31) == 0)
		atomicMax(out, m);
}

// The same on 16-bit lanes, eight entries a load (d 16-byte aligned, count
// a multiple of 8: a band of rows of B x npad).
template <>
__global__ void max_below<short>(const short *__restrict__ d, size_t count, int limit, int *out)
{
	unsigned m = 0;
	const uint4 *v = (const uint4 *)d;
	for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < count / 8;
	     e += (size_t)gridDim.x * blockDim.x) {
		const uint4 q = v[e];
		const unsigned w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
		for (int i = 0; i < 8; i++) {
			const unsigned h = (w[i / 2] >> (16 * (i % 2))) & 0xffffu;
			if (h < (unsigned)limit && h > m)
				m = h;
		}
	}
	m = __reduce_max_sync(0xffffffffu, m);
	if ((threadIdx.x & 31) == 0)
		atomicMax(out, (int)m);
}

} // namespace
#endif
