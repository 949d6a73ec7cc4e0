// fw_prepare.cuh - the kernels around the rounds: a run's matrices prepared
// (padding, the device's INF, first predecessors) and finished, the facts
// that choose its kernels, and for sparse runs the live blocks, each round's
// lists of blocks and the renumbering of rows.
#ifndef APSP_FW_PREPARE_CUH
#define APSP_FW_PREPARE_CUH

#include "fw_levels.cuh"
#include "fw_tiles.cuh"
#include "fw_tiles16.cuh"

namespace {

// ---- set-up and finishing ----------------------------------------------------

// Padding rows and columns: isolated vertices.  Predecessors start as i for
// every finite off-diagonal entry.  With packed paths INF becomes INF_PACKED.
// d and p hold rows row0 .. row0 + rows - 1 (padded numbering).
template <typename T>
__global__ void prepare(T *d, int32_t *p, int n, int npad, T inf, T inf_dev, int row0, int rows)
{
	size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= (size_t)rows * npad)
		return;
	int i = row0 + (int)(e / npad), j = (int)(e % npad);
	T v;
	if (i >= n || j >= n)
		v = i == j ? (T)0 : inf_dev;
	else {
		v = d[e];
		if (v >= inf)
			v = inf_dev;
	}
	d[e] = v;
	if (p)
		p[e] = (i != j && v < inf_dev) ? i : -1;
}

// Rows first .. end - 1 of the caller's vertices (d: where row first is),
// as sv_prepare() leaves them: the diagonal 0.
template <typename T>
__global__ void zero_diagonal(T *d, int npad, int first, int end)
{
	const int i = first + (int)(blockIdx.x * blockDim.x + threadIdx.x);
	if (i < end)
		d[(size_t)(i - first) * npad + i] = (T)0;
}

// The facts of rows first .. end - 1 of the caller's weights as read (d:
// where row first is), as sv_band_facts() takes them (lib/prepare/solve.c), added
// into f: [0] the finite entries off the diagonal, [1] the sum of each
// row's largest finite weight off it (at least 0; int32), [2] ROW_BAD |
// ROW_ZERO | ROW_NEGATIVE, [3] the least row with a diagonal entry below 0
// (starts at ~0).  One block of 256 threads per row.
enum { ROW_BAD = 1, ROW_ZERO = 2, ROW_NEGATIVE = 4 };

// An entry's part of row_facts(): its bits, and whether it is finite (off
// the diagonal).
__device__ inline unsigned entry_bits(int x, bool off, bool &fin)
{
	fin = off && x < ST_INF_I32;
	return (x > ST_INF_I32 || x <= -ST_INF_I32 ? ROW_BAD : 0) | (off && x == 0 ? ROW_ZERO : 0)
	       | (fin && x < 0 ? ROW_NEGATIVE : 0);
}
__device__ inline unsigned entry_bits(float x, bool off, bool &fin)
{
	fin = off && x < INFINITY;
	return (x != x || x == -INFINITY ? ROW_BAD : 0) | (off && x == 0.0f ? ROW_ZERO : 0)
	       | (fin && x < 0.0f ? ROW_NEGATIVE : 0);
}
__device__ inline bool below_zero(int x) { return x < 0 && x > -ST_INF_I32; }
__device__ inline bool below_zero(float x) { return x < 0.0f; }
__device__ inline unsigned long long largest(int m) { return (unsigned long long)m; }
__device__ inline unsigned long long largest(float) { return 0; } // (int32 alone)

template <typename T>
__global__ void row_facts(const T *__restrict__ d, int n, int npad, int first, int end,
                          unsigned long long *f)
{
	__shared__ unsigned long long part[2][8];
	__shared__ unsigned flag[8];
	for (int i = first + blockIdx.x; i < end; i += gridDim.x) {
		const T *row = d + (size_t)(i - first) * npad;
		unsigned edges = 0, bits = 0;
		T m = 0;
		for (int j = threadIdx.x; j < n; j += blockDim.x) {
			const T x = row[j];
			bool fin;
			bits |= entry_bits(x, j != i, fin);
			edges += fin;
			m = fin && x > m ? x : m;
			if (j == i && below_zero(x))
				atomicMin(&f[3], (unsigned long long)i);
		}
		unsigned long long e = edges, top = largest(m);
		for (int o = 16; o > 0; o >>= 1) {
			e += __shfl_xor_sync(0xffffffffu, e, o);
			top = max(top, __shfl_xor_sync(0xffffffffu, top, o));
			bits |= __shfl_xor_sync(0xffffffffu, bits, o);
		}
		const int w = threadIdx.x >> 5;
		if ((threadIdx.x & 31) == 0)
			part[0][w] = e, part[1][w] = top, flag[w] = bits;
		__syncthreads();
		if (threadIdx.x == 0) {
			for (int k = 1; k < (int)(blockDim.x >> 5); k++)
				e += part[0][k], top = max(top, part[1][k]), bits |= flag[k];
			atomicAdd(&f[0], e);
			if (top)
				atomicAdd(&f[1], top);
			if (bits)
				atomicOr(&f[2], (unsigned long long)bits);
		}
		__syncthreads();
	}
}

template <typename T>
__global__ void finish(T *d, size_t count, T inf, T inf_dev)
{
	size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (e < count && d[e] >= inf_dev)
		d[e] = inf;
}

// A graph given by its arcs (fwg_opts.arcs): rows row0 .. row0 + rows - 1
// of its weight matrix with no edge, the caller's INF off the diagonal ...
__global__ void no_edges(uint32_t *d, int npad, int row0, int rows, uint32_t inf)
{
	for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < (size_t)rows * npad;
	     e += (size_t)gridDim.x * blockDim.x) {
		const int i = row0 + (int)(e / npad), j = (int)(e % npad);
		d[e] = i == j ? 0u : inf;
	}
}

// Arc k's ends in the matrix's numbering (the caller's vertices a[k] and
// b[k]; pos: their positions in an order, or NULL).
__device__ __forceinline__ int2 arc_ends(uint64_t k, const uint32_t *__restrict__ a,
                                         const uint32_t *__restrict__ b,
                                         const int32_t *__restrict__ pos)
{
	return pos ? make_int2(pos[a[k]], pos[b[k]]) : make_int2((int)a[k], (int)b[k]);
}

// The same in 16-bit lanes (fw_tiles16.cuh), for a graph whose finite
// weights all fit them: INF16 off the diagonal, eight entries a store
// (npad a multiple of 8).
__global__ void no_edges16(short *d16, int npad, int row0, int rows)
{
	for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < (size_t)rows * npad / 8;
	     e += (size_t)gridDim.x * blockDim.x) {
		const int i = row0 + (int)(e * 8 / npad), j0 = (int)(e * 8 % npad);
		uint32_t h[4];
#pragma unroll
		for (int q = 0; q < 4; q++)
			h[q] = (i == j0 + 2 * q ? 0u : (uint32_t)INF16)
			       | (i == j0 + 2 * q + 1 ? 0u : (uint32_t)INF16) << 16;
		((uint4 *)d16)[e] = make_uint4(h[0], h[1], h[2], h[3]);
	}
}

// Entry at of d16 lowered to w where w is less (weights from INF16 on are
// no edge): a compare-and-swap of the word that holds it, there being no
// 16-bit atomicMin.
__device__ __forceinline__ void lane_min(short *d16, size_t at, uint32_t w)
{
	if (w >= (uint32_t)INF16)
		return;
	uint32_t *word = (uint32_t *)(d16 + (at & ~(size_t)1));
	const int shift = (int)(at & 1) * 16;
	uint32_t old = *word;
	while (((old >> shift) & 0xffffu) > w) {
		const uint32_t seen = atomicCAS(word, old, (old & ~(0xffffu << shift)) | w << shift);
		if (seen == old)
			break;
		old = seen;
	}
}

// Then every arc a[k] -> b[k] (the caller's vertices; pos: their positions
// in an order, or NULL) of those rows at its least weight w[k]: into d's
// 32-bit entries, whose weights (int32 from 0, float32 from +0) order as
// their bits do, or with LANES16 into the 16-bit lanes of no_edges16.
template <bool LANES16>
__global__ void put_arcs(void *d, int npad, int row0, int rows, const uint32_t *__restrict__ a,
                         const uint32_t *__restrict__ b, const uint32_t *__restrict__ w,
                         uint64_t count, const int32_t *__restrict__ pos)
{
	for (uint64_t k = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; k < count;
	     k += (uint64_t)gridDim.x * blockDim.x) {
		const int2 e = arc_ends(k, a, b, pos);
		if (e.x == e.y || e.x < row0 || e.x >= row0 + rows)
			continue;
		const size_t at = (size_t)(e.x - row0) * npad + e.y;
		if (LANES16)
			lane_min((short *)d, at, w[k]);
		else
			atomicMin(&((uint32_t *)d)[at], w[k]);
	}
}

// The map of live blocks of a matrix made from arcs (no_edges, put_arcs),
// from the arcs themselves rather than from the n x n entries: every block
// of the diagonal (its zeros), and the block of each arc below inf that is
// not a loop.  live starts zeroed; one device holds every row.
__global__ void live_of_arcs(uint8_t *live, int nb, int B, const uint32_t *__restrict__ a,
                             const uint32_t *__restrict__ b, const uint32_t *__restrict__ w,
                             uint64_t count, const int32_t *__restrict__ pos, uint32_t inf)
{
	const uint64_t first = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
	               step = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t I = first; I < (uint64_t)nb; I += step)
		live[I * nb + I] = 1;
	for (uint64_t k = first; k < count; k += step) {
		const int2 e = arc_ends(k, a, b, pos);
		const int i = e.x, j = e.y;
		if (i != j && w[k] < inf)
			live[(size_t)(i / B) * nb + j / B] = 1;
	}
}

// live[I * nb + J] = whether block (I, J) holds an entry below inf.
template <typename T>
__global__ void live_init(const T *__restrict__ d, int npad, int B, T inf, uint8_t *__restrict__ live)
{
	const int I = blockIdx.y, J = blockIdx.x;
	bool f = false;
	for (int e = threadIdx.x; e < B * B; e += blockDim.x)
		f |= d[(size_t)(I * B + e / B) * npad + (size_t)J * B + e % B] < inf;
	f = __syncthreads_or(f);
	if (threadIdx.x == 0)
		live[(size_t)I * gridDim.x + J] = f ? 1 : 0;
}

// CTA b (1024 threads) lists, in increasing order, the blocks of the round
// of pivot block pivots[b] that can change: lists[2 ..] the rows I != round
// whose block (I, round) is live, lists[2 + nb ..] the columns J != round
// whose block (round, J) is live; lists[0] and lists[1] their counts (lists:
// CTA b's at b x (2 + 2 nb)).  *updates counts the block updates of phases
// 2 and 3 that follow.  With touch (zeroed, 2 nb words: a level of several
// pivots), bit b of touch[I] says row I is in the list, of touch[nb + J]
// that column J is.
__global__ void __launch_bounds__(1024)
round_lists(const uint8_t *__restrict__ live, int nb, const int *pivots, int *__restrict__ lists,
            unsigned long long *updates, unsigned long long *touch = nullptr)
{
	const int round = pivots[blockIdx.x];
	lists += blockIdx.x * list_ints(nb);
	__shared__ int sums[2][32], base[2];
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	int *rows = lists + 2, *cols = lists + 2 + nb;
	if (threadIdx.x == 0)
		base[0] = base[1] = 0;
	__syncthreads();
	for (int x0 = 0; x0 < nb; x0 += 1024) {
		const int x = x0 + threadIdx.x;
		const bool fr = x < nb && x != round && live[(size_t)x * nb + round];
		const bool fc = x < nb && x != round && live[(size_t)round * nb + x];
		const unsigned br = __ballot_sync(~0u, fr), bc = __ballot_sync(~0u, fc);
		if (lane == 0) {
			sums[0][warp] = __popc(br);
			sums[1][warp] = __popc(bc);
		}
		__syncthreads();
		int orow = base[0], ocol = base[1];
		for (int w = 0; w < warp; w++) {
			orow += sums[0][w];
			ocol += sums[1][w];
		}
		const unsigned below = (1u << lane) - 1;
		if (fr)
			rows[orow + __popc(br & below)] = x;
		if (fc)
			cols[ocol + __popc(bc & below)] = x;
		if (fr && touch)
			atomicOr(&touch[x], 1ull << blockIdx.x);
		if (fc && touch)
			atomicOr(&touch[nb + x], 1ull << blockIdx.x);
		__syncthreads();
		if (threadIdx.x == 0)
			for (int w = 0; w < 32; w++) {
				base[0] += sums[0][w];
				base[1] += sums[1][w];
			}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		lists[0] = base[0];
		lists[1] = base[1];
		atomicAdd(updates, (unsigned long long)base[0] + base[1]
		                           + (unsigned long long)base[0] * base[1]);
	}
}

// Upload in an order: src holds k of the caller's rows (k x n), those of
// vertices order[r0 .. r0 + k - 1]; row r0 + q of the device matrix gets
// src row q with its columns in the same order.  W: a word of an entry's
// width (uint32_t, or unsigned long long for float64).
template <typename W>
__global__ void take_rows(const W *__restrict__ src, uint64_t n, uint64_t k, W *__restrict__ d,
                          int npad, uint64_t r0, const int32_t *__restrict__ order)
{
	for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < k * n;
	     e += (uint64_t)gridDim.x * blockDim.x) {
		const uint64_t q = e / n, j = e % n;
		d[(r0 + q) * npad + j] = src[q * n + order[j]];
	}
}

// Download in an order: rows r0 .. r0 + k - 1 of the result in the caller's
// numbering into dst (k x n); pos is order's inverse.  Predecessors are
// positions on the device and become vertices again (float64's largest
// intermediates too).  W as for take_rows.
template <typename W>
__global__ void give_rows(const W *__restrict__ d, const int32_t *__restrict__ p, int npad,
                          uint64_t n, uint64_t r0, uint64_t k, const int32_t *__restrict__ order,
                          const int32_t *__restrict__ pos, W *__restrict__ dst,
                          int32_t *__restrict__ pdst)
{
	for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < k * n;
	     e += (uint64_t)gridDim.x * blockDim.x) {
		const uint64_t q = e / n, c = e % n;
		const size_t g = (size_t)pos[r0 + q] * npad + pos[c];
		dst[e] = d[g];
		if (p) {
			const int32_t v = p[g];
			pdst[e] = v >= 0 ? order[v] : v;
		}
	}
}


// ---- facts that choose a run's kernels ----------------------------------------

// Signs of a float32 or float64 matrix: SIGN_BELOW_ZERO, an entry below 0
// (together with SIGN_NOT_ORDERED); SIGN_NOT_ORDERED, an entry whose bits do
// not order as its value among the others (sign bit set, -0 too, or NaN):
// Elem<uint32_t> and the float64 kernels' integer minima cannot take it.
// The largest of all, so that a max over devices combines.
enum { SIGN_BELOW_ZERO = 1, SIGN_NOT_ORDERED = 2 };
__device__ inline bool unordered_bits(float x) { return __float_as_uint(x) > 0x7f800000u; }
__device__ inline bool unordered_bits(double x)
{
	return (unsigned long long)__double_as_longlong(x) > 0x7ff0000000000000ull;
}
template <typename T>
__global__ void float_signs(const T *__restrict__ w, size_t count, int *signs)
{
	int f = 0;
	for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < count;
	     e += (size_t)gridDim.x * blockDim.x) {
		const T x = w[e];
		f |= (x < (T)0 ? SIGN_BELOW_ZERO : 0) | (unordered_bits(x) ? SIGN_NOT_ORDERED : 0);
	}
	for (int o = 16; o > 0; o /= 2)
		f |= __shfl_xor_sync(0xffffffffu, f, o);
	if (f && (threadIdx.x & 31) == 0)
		atomicMax(signs, f);
}

// Two facts of an int32 graph as uploaded (rows of n, stride npad, before
// prepare): the sum over rows of the largest finite weight, which bounds
// every simple path (*bound starts at 0), and whether an edge other than a
// loop weighs 0 (*zero starts at 0).  One block of 256 threads per row, over
// rows row0 .. end - 1 (w points where row 0 would be).
__global__ void int_facts(const int *__restrict__ w, int n, int npad, unsigned long long *bound,
                          int *zero, int row0, int end)
{
	__shared__ int top[8];
	for (int i = row0 + blockIdx.x; i < end; i += gridDim.x) {
		const int *row = w + (size_t)i * npad;
		int m = 0;
		bool z = false;
		for (int j = threadIdx.x; j < n; j += blockDim.x) {
			const int x = row[j];
			if (x < ST_INF_I32 && x > m)
				m = x;
			z |= x == 0 && j != i;
		}
		for (int o = 16; o > 0; o >>= 1)
			m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
		if (__any_sync(0xffffffffu, z) && (threadIdx.x & 31) == 0)
			atomicOr(zero, 1);
		if ((threadIdx.x & 31) == 0)
			top[threadIdx.x >> 5] = m;
		__syncthreads();
		if (threadIdx.x == 0) {
			for (int k = 1; k < (int)(blockDim.x >> 5); k++)
				m = max(m, top[k]);
			atomicAdd(bound, (unsigned long long)m);
		}
		__syncthreads();
	}
}

} // namespace
#endif
