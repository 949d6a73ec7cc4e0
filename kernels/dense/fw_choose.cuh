// fw_choose.cuh - the choices the GPU engine makes by n and the memory they
// take (included by fw_gpu.cu): 16-bit lanes, derived predecessors, the
// blocking factor, each device's band of block rows, the device memory a
// run needs, and the largest n that fits.
#ifndef APSP_FW_CHOOSE_CUH
#define APSP_FW_CHOOSE_CUH

#include <stdint.h>

#include <algorithm>

#include "fw_gpu.h"
#include "stream.h"

// Whether int32 distances are tried in 16-bit lanes.  By default from n =
// 2000 for distances alone, from 1500 with paths (H100, with lookahead,
// bench/gpu.md): at n = 1500 the 16-bit run took 0.89 ms against 0.81 on 32
// bits (converting the matrix and checking the result), at 2000 1.22
// against 1.26; with paths derived from them (their lists made beside the
// rounds) 0.99 ms at 1500 against 1.08 for packed paths on 32 bits, 1.37
// against 1.57 at 2000, 0.63 to 0.78 against 0.72 at 1000.
static bool use_lanes16(uint64_t n, int lanes16, bool paths)
{
	return lanes16 == FWG_LANES16_ALWAYS
	       || (lanes16 == FWG_LANES16_AUTO && n >= (paths ? 1500u : 2000u));
}

// float32 with paths: predecessors derived from the distances (no weight
// negative) from this n, tracked through the rounds below it: at n = 2000
// 1.78 to 1.84 ms against 2.33, at 1000 0.82 to 0.86 against 0.75 (H100).
static const uint64_t DERIVE_FLOAT_FROM = 2000;

// Measured on the H100 (bench/gpu.md, kernel times at n = 1000 .. 20000,
// B = 32, 64, 128): per round, B = 64 pays less for phases 1 and 2 than
// B = 128, which wins only where phase 3 dominates and its larger tiles
// reuse more: 16-bit lanes above n = 16000 (20000: 324 against 334 ms), int32
// paths above about 11000 (12000: 165 against 169; 8000: 60 against 55) and
// float32 paths above 16000 (a tie there).  32-bit distances, int32 and
// float32, were fastest at B = 64 at every n from 1000 to 20000; int32 paths
// at B = 32 up to n = 2048 (2000: 2.38 against 2.56 ms).
//
// A run that skips blocks (fwg_opts.skip) never takes 128: coarser blocks
// skip less and cost more per round.  Grids, H100: n = 65536, 16-bit lanes,
// 231 ms at B = 64 against 292 at 32 (32-bit) and 278 at 128; with paths
// 502 at 64, 540 at 32, 652 at 128; n = 16384 with paths 23.4 ms at 64,
// 23.8 at 32, 51.5 at 128 (bench/sparse-gpu.md).
extern "C" int fwg_choose_block(uint64_t n, int type, int paths, int lanes16, int skip)
{
	const bool is_int = type == ST_INT32;
	if (type == ST_FLOAT64) // (the float64 tiles are 64 x 64: fw_f64.cuh)
		return 64;
	if (skip)
		return paths && is_int && n <= 2048 && !use_lanes16(n, lanes16, paths) ? 32 : 64;
	if (is_int && use_lanes16(n, lanes16, paths)) // paths derived from 16-bit distances too
		return n <= 16000 ? 64 : 128;
	if (paths && !is_int && n >= DERIVE_FLOAT_FROM) // derived (unless a weight is negative)
		return 64;
	if (paths)
		return is_int ? (n <= 2048 ? 32 : n <= 11000 ? 64 : 128) : (n <= 16000 ? 64 : 128);
	return 64;
}

// Block rows of device g of gpus: as even a share of nb as can be.
static void band(uint64_t nb, int gpus, int g, int *row0, int *rows)
{
	*row0 = (int)(nb * g / gpus);
	*rows = (int)(nb * (g + 1) / gpus) - *row0;
}

extern "C" void fwg_band_rows(uint64_t n, int block, int ranks, int rank, uint64_t *first,
                              uint64_t *end)
{
	const uint64_t nb = (n + block - 1) / block;
	int row0, rows;
	band(nb, ranks, rank, &row0, &rows);
	*first = std::min(n, (uint64_t)row0 * block);
	*end = std::min(n, (uint64_t)(row0 + rows) * block);
}

extern "C" uint64_t fwg_memory_needed(uint64_t n, int type, int block, int paths, int gpus)
{
	const uint64_t es = ST_TYPE_SIZE(type);
	if (block == 0)
		block = 128; /* the most that any choice pads and stages */
	if (gpus < 1)
		gpus = 1;
	const uint64_t npad = (n + block - 1) / block * block, nb = npad / block;
	const uint64_t rows = (nb + gpus - 1) / gpus * block; // the largest band
	return rows * npad * (es + (paths ? 4 : 0)) + (2 * es + (gpus > 1 && paths) * 4) * block * npad;
}

// The largest n up to limit for which fits(n) holds, where fits holds for
// every n below one it holds for (the memory a run needs grows with n).
template <typename Fits> static uint64_t largest_n(uint64_t limit, Fits fits)
{
	uint64_t lo = 0, hi = limit;
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo + 1) / 2;
		if (fits(mid))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

#endif
