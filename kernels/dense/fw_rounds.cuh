// fw_rounds.cuh - the round scheduler (included by fw_gpu.cu): the rounds of
// blocked Floyd-Warshall on the devices of a run, in 16-bit lanes or on 32
// bits; it launches the tile kernels of fw_tiles.cuh and fw_tiles16.cuh and
// never touches the caller's matrices.  The predecessors derived afterwards
// are fw_derive.cuh's; the 16-bit attempt is fw_lanes16.cuh; the same rounds
// in row order, fw_roworder.cuh; what passes between devices,
// fw_exchange.cuh.
#ifndef APSP_FW_ROUNDS_CUH
#define APSP_FW_ROUNDS_CUH

#include <algorithm>
#include <type_traits>
#include <vector>

#include "fw_checkpoint.cuh"
#include "fw_derive.cuh"
#include "fw_exchange.cuh"
#include "fw_f64.cuh"
#include "fw_levels.cuh"
#include "fw_prepare.cuh"
#include "fw_tiles.cuh"
#include "fw_tiles16.cuh"

extern "C" {
#include "order.h"
}

namespace {

// CTAs for phase 2 of a level of m pivots: at most 2 nb blocks each, and
// no more than fill the device (g3).
int level_grid2(int g3, int nb, int m) { return std::min(g3, 2 * nb * m); }

// One band's part of a round, in the two steps either side of the pivot
// row's exchange: before() runs phase 1 and the pivot row's phase 2 where the
// band holds the pivot row, and takes the band's part of the pivot column
// into colT; after() finishes the pivot column's blocks of the other bands
// and runs phase 3 of the band's rows, with prow the predecessors' pivot
// rows.  The round scheduler below drives it over the devices of a run, the
// out-of-core one (fw_outcore.cuh) over bands that pass through one device,
// the row-order one (fw_roworder.cuh) over parts of one device's rows.
struct Band {
	void *d;        // where row 0 of the whole matrix would be
	int32_t *p;     // likewise, or nullptr
	void *colT, *rowP;
	int row0, rows; // the block rows held
	cudaStream_t s;
	bool pivot_done = false; // row order: the pivot row, held too, already had the round
	bool holds(int round) const { return round >= row0 && round < row0 + rows; }
	// whether this band takes the pivot row panel from its matrix
	bool takes_pivot(int round) const { return pivot_done || holds(round); }
};

// Where phase 1 runs after round 0 (run_rounds_with sets chain and force).
// With how > 0 (close_kind), phase 3 of round T closes pivot block T+1
// where the band holds it, and round T+1 runs no phase 1 of its own: every
// round in order, each band's after() before its next before().
struct PivotChain {
	bool chain = false;
	int force = FWG_PHASE1_AUTO; // FWG_PHASE1_*, as asked
	bool ahead = false;          // phase 3 split (rounds_ahead): the closing CTA's grid is small
	// The rounds run from first (phase 1 apart there) and, where a
	// checkpoint follows round cut - 1, end there (no block of round cut
	// closed before it): the state between them is that of the textbook's
	// rounds.
	int first = 0, cut = -1;
	bool chained(int how, int round) const { return round > first && how > 0; }
	// A launch took the kernels of twice the registers (RoundKernels::small)
	mutable bool small_ran = false;
	int next_pivot(int how, const Band &x, int round, int nb) const
	{
		return how > 0 && round + 1 < nb && round + 1 != cut && x.holds(round + 1) ? round + 1
		                                                                          : -1;
	}
};

// Whether phase 3 of a level's m pivots (their lists made, on x's stream)
// makes as many block updates as half the matrix has blocks, or more: the
// last levels of a nested-dissection order, whose separators reach every
// vertex (a wait of microseconds for the lists' counts).
int covers(Err e, const Band &x, const Sparse *sp, int nb, int m, bool *yes)
{
	int counts[2 * LEVEL_MAX];
	CUDA_TRY(cudaMemcpy2DAsync(counts, 2 * sizeof(int), sp->lists, list_ints(nb) * sizeof(int),
	                           2 * sizeof(int), m, cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaStreamSynchronize(x.s));
	long long updates = 0;
	for (int b = 0; b < m; b++)
		updates += (long long)counts[2 * b] * counts[2 * b + 1];
	*yes = 2 * updates >= (long long)nb * nb;
	return 0;
}

// The lists of a level's m pivots pv (round_lists), on x's stream; touch:
// with their rows and columns as bits (sp->touch), for phase 3 of several.
int make_lists(Err e, const Band &x, const Sparse *sp, int nb, const int *pv, int m, bool touch)
{
	if (touch)
		CUDA_TRY(cudaMemsetAsync(sp->touch, 0, 2 * (size_t)nb * sizeof *sp->touch, x.s));
	round_lists<<<m, 1024, 0, x.s>>>(sp->live, nb, pv, sp->lists, sp->updates,
	                                 touch ? sp->touch : nullptr);
	CUDA_TRY(cudaGetLastError());
	return 0;
}

// The pivots of the level's step at at (m of them) for the cover kernels.
CoverPivots cover_pivots(const Sparse *sp, int at, int m)
{
	CoverPivots c{};
	for (int b = 0; b < m && b < COVER_PIVOTS; b++)
		c.p[b] = sp->by_level[at + b];
	return c;
}

// The 32-bit kernels (int32 or float32, with or without predecessors).
template <typename T, int B, int R, bool PATHS, bool PACKED>
struct RoundKernels : PivotChain {
	int npad = 0, nb = 0, t1 = 0, t3 = 0, g3 = 0;
	size_t s1 = 0, s3 = 0;
	const Sparse *sp = nullptr;
	// How phase 3 closes the next pivot block (close_kind): HOW_FEW where
	// phase 3 of a band is under three waves of the resident CTAs, HOW_MANY
	// otherwise.
	int resident = 0;
	static constexpr int HOW_MANY = close_kind<T, B, R, PATHS>(),
	                     HOW_FEW = close_kind_few<T, B, R, PATHS>();
	int how(const Band &x) const
	{
		if (!chain)
			return 0;
		if (force == FWG_PHASE1_REGISTERS || force == FWG_PHASE1_SHARED)
			return force == FWG_PHASE1_REGISTERS ? HOW_FEW : HOW_MANY;
		return ahead || small(x) ? HOW_FEW : HOW_MANY;
	}
	// Whether phase 3 of a band is under three waves of the resident CTAs,
	// so short that phase 2 and the blocks of row and column T+1 are the
	// rounds' critical path: their kernels then take twice the registers
	// (tile_min_blocks).  Measured against one wave and against every n
	// (H100, bench/gpu.md): from 3.8 waves (n = 4000 at B = 64) the
	// registers cost more than they give.
	bool small(const Band &x) const { return (long long)nb * x.rows < 3LL * resident; }
	// small(x), where a launch takes those kernels (noted in small_ran)
	bool take_small(const Band &x) const
	{
		if (!small(x))
			return false;
		small_ran = true;
		return true;
	}

	// Launch attributes on device id (current); fails where the blocking
	// factor needs more shared memory than the device has.
	int setup(Err e, int id, int npad_, const Sparse *sp_)
	{
		npad = npad_, nb = npad_ / B, sp = sp_;
		t1 = p1_dim<B>() * p1_dim<B>();
		s1 = p1_smem<T, B, PATHS>();
		t3 = tile_threads<B, R>();
		s3 = tile_smem<T, B>();
		if ((int)s1 > smem_limit(id) || (int)s3 > smem_limit(id))
			return fail(e, "blocking factor %d needs %zu bytes of shared memory per block; "
			               "the device allows %d", B, s1 > s3 ? s1 : s3, smem_limit(id));
		CUDA_TRY(cudaFuncSetAttribute(phase1<T, B, PATHS>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s1));
		for (auto f : {tile_update<T, B, R, PATHS, PACKED, 2>,
		               tile_update<T, B, R, PATHS, PACKED, 2, 0, SPLIT_WHOLE, true>,
		               tile_update<T, B, R, PATHS, PACKED, 3, 0, SPLIT_REST>,
		               tile_update<T, B, R, PATHS, PACKED, 3, 0, SPLIT_NEXT>,
		               tile_update<T, B, R, PATHS, PACKED, 3, 0, SPLIT_NEXT, true>,
		               tile_update<T, B, R, PATHS, PACKED, 3, HOW_FEW, SPLIT_NEXT>,
		               tile_update<T, B, R, PATHS, PACKED, 3, HOW_FEW, SPLIT_NEXT, true>,
		               tile_update<T, B, R, PATHS, PACKED, 3, HOW_MANY, SPLIT_NEXT>})
			CUDA_TRY(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		CUDA_TRY(cudaFuncSetAttribute(tile_update<T, B, R, PATHS, PACKED, 3, HOW_FEW>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		CUDA_TRY(cudaFuncSetAttribute(tile_update<T, B, R, PATHS, PACKED, 3, HOW_MANY>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		int sms = 0;
		CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, id));
		resident = fill_grid(tile_update<T, B, R, PATHS, PACKED, 3, HOW_MANY>, t3, s3, sms);
		for (auto f : {tile_update_level<T, B, R, PATHS, PACKED, 2>,
		               tile_update_level<T, B, R, PATHS, PACKED, 3>,
		               tile_update_level<T, B, R, PATHS, PACKED, 3, !PATHS>})
			CUDA_TRY(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		for (auto f : {tile_update_cover<T, B, R, PATHS, PACKED>,
		               tile_update_cover<T, B, R, PATHS, PACKED, !PATHS>})
			CUDA_TRY(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		g3 = sp ? fill_grid(tile_update_level<T, B, R, PATHS, PACKED, 3>, t3, s3, sp->sms) : 0;
		return 0;
	}

	int before(Err e, const Band &x, int round) const
	{
		T *d = (T *)x.d;
		if (x.holds(round) && !chained(how(x), round))
			phase1<T, B, PATHS><<<1, t1, s1, x.s>>>(d, x.p, npad, round, nullptr);
		if (nb > 1) {
			const dim3 gp((npad + 31) / 32, (B + 31) / 32), tp(32, 8);
			panels<T, B, PACKED><<<gp, tp, 0, x.s>>>(d, npad, round, (T *)x.colT, (T *)x.rowP,
			                                         x.row0, x.rows, x.takes_pivot(round),
			                                         nullptr);
			if (x.holds(round))
				(take_small(x) ? tile_update<T, B, R, PATHS, PACKED, 2, 0, SPLIT_WHOLE, true>
				               : tile_update<T, B, R, PATHS, PACKED, 2>)<<<nb + x.rows, t3, s3, x.s>>>(
				        d, x.p, x.p ? x.p + (size_t)round * B * npad : nullptr, npad, round,
				        (T *)x.colT, (T *)x.rowP, x.row0, x.rows, -1);
		}
		CUDA_TRY(cudaGetLastError());
		return 0;
	}

	// Phase 3 of the round, or its part split (SPLIT_*); the kernel that
	// closes nothing (HOW 0) where no CTA closes the next pivot block.
	int after(Err e, const Band &x, int round, const int32_t *prow,
	          int split = SPLIT_WHOLE) const
	{
		T *d = (T *)x.d;
		if (nb == 1)
			return 0;
		if (!x.holds(round))
			tile_update<T, B, R, PATHS, PACKED, 2><<<x.rows, t3, s3, x.s>>>(
			        d, x.p, prow, npad, round, (T *)x.colT, (T *)x.rowP, x.row0, x.rows, -1);
		const dim3 g3d = split == SPLIT_NEXT ? dim3(2 * nb) : dim3(nb, x.rows);
		const int h = how(x), close = next_pivot(h, x, round, nb);
		auto go = [&](auto kernel) {
			kernel<<<g3d, t3, s3, x.s>>>(d, x.p, prow, npad, round, (T *)x.colT, (T *)x.rowP,
			                            x.row0, x.rows, close);
		};
		if (split == SPLIT_REST)
			go(tile_update<T, B, R, PATHS, PACKED, 3, 0, SPLIT_REST>);
		else if (split == SPLIT_NEXT && close < 0 && take_small(x))
			go(tile_update<T, B, R, PATHS, PACKED, 3, 0, SPLIT_NEXT, true>);
		else if (split == SPLIT_NEXT && close < 0)
			go(tile_update<T, B, R, PATHS, PACKED, 3, 0, SPLIT_NEXT>);
		else if (split == SPLIT_NEXT && h == HOW_FEW && take_small(x))
			go(tile_update<T, B, R, PATHS, PACKED, 3, HOW_FEW, SPLIT_NEXT, true>);
		else if (split == SPLIT_NEXT && h == HOW_FEW)
			go(tile_update<T, B, R, PATHS, PACKED, 3, HOW_FEW, SPLIT_NEXT>);
		else if (split == SPLIT_NEXT)
			go(tile_update<T, B, R, PATHS, PACKED, 3, HOW_MANY, SPLIT_NEXT>);
		else if (h == HOW_FEW)
			go(tile_update<T, B, R, PATHS, PACKED, 3, HOW_FEW>);
		else
			go(tile_update<T, B, R, PATHS, PACKED, 3, HOW_MANY>);
		CUDA_TRY(cudaGetLastError());
		return 0;
	}

	// The rounds of pivots sp->pivots[at .. at + m - 1], one level's, on
	// the one device of a sparse run (fw_tiles.cuh: a level).
	int level(Err e, const Band &x, int at, int m) const
	{
		T *d = (T *)x.d, *colT = (T *)sp->colT, *rowP = (T *)sp->rowP;
		const int *pv = sp->pivots + at;
		phase1<T, B, PATHS><<<m, t1, s1, x.s>>>(d, x.p, npad, 0, pv);
		if (make_lists(e, x, sp, nb, pv, m, !PATHS && m > 1))
			return -1;
		const dim3 tp(32, 8);
		if constexpr (B >= 32)
			level_panels<T, B, PanelCode<T, PACKED>>
			        <<<dim3(level_panel_ctas(m), 1, m), tp, 0, x.s>>>(d, npad, pv, sp->lists, colT,
			                                                          rowP);
		else
			panels<T, B, PACKED><<<dim3((npad + 31) / 32, 1, m), tp, 0, x.s>>>(
			        d, npad, 0, colT, rowP, 0, nb, true, pv);
		tile_update_level<T, B, R, PATHS, PACKED, 2><<<level_grid2(g3, nb, m), t3, s3, x.s>>>(
		        d, x.p, npad, pv, m, colT, rowP, sp->lists, sp->live);
		bool cover = false;
		if ((m == 1 || (!PATHS && m <= COVER_PIVOTS)) && covers(e, x, sp, nb, m, &cover))
			return -1;
		const CoverPivots cp = cover_pivots(sp, at, m);
		const dim3 all(nb, nb);
		if (cover && m > 1)
			tile_update_cover<T, B, R, PATHS, PACKED, !PATHS><<<all, t3, s3, x.s>>>(
			        d, x.p, npad, cp, m, colT, rowP, sp->live);
		else if (cover)
			tile_update_cover<T, B, R, PATHS, PACKED><<<all, t3, s3, x.s>>>(d, x.p, npad, cp, m,
			                                                              colT, rowP, sp->live);
		else if (!PATHS && m > 1)
			tile_update_level<T, B, R, PATHS, PACKED, 3, !PATHS><<<g3, t3, s3, x.s>>>(
			        d, x.p, npad, pv, m, colT, rowP, sp->lists, sp->live, sp->touch);
		else // (predecessors: a block that two pivots improve to the same
		     // distance keeps the first one's, so pivot by pivot, in the
		     // level's order: the same result every time)
			for (size_t b = 0, panel = (size_t)B * npad; b < (size_t)m; b++)
				tile_update_level<T, B, R, PATHS, PACKED, 3><<<g3, t3, s3, x.s>>>(
				        d, x.p, npad, pv + b, 1, colT + b * panel, rowP + b * panel,
				        sp->lists + b * list_ints(nb), sp->live);
		CUDA_TRY(cudaGetLastError());
		return 0;
	}
};

// The same on 16-bit lanes (distances only; B = 64 or 128): the band's d
// is the 16-bit matrix, colT holds each entry twice (fw_tiles.cuh).
template <int B> struct RoundKernels16 : PivotChain {
	int npad = 0, nb = 0, t1 = 0, t3 = 0, g3 = 0;
	size_t s1 = 0, s3 = 0;
	const Sparse *sp = nullptr;
	int how(const Band &) const { return chain ? 1 : 0; } // always in registers

	int setup(Err e, int id, int npad_, const Sparse *sp_)
	{
		npad = npad_, nb = npad_ / B, sp = sp_;
		t1 = p1_dim<B>() * p1_dim<B>();
		s1 = p1_smem<short, B, false>();
		t3 = tile16_threads<B>();
		s3 = tile16_smem<B>();
		CUDA_TRY(cudaFuncSetAttribute(tile_update16<B, 2>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		for (auto f : {tile_update16<B, 3>, tile_update16<B, 3, SPLIT_NEXT>,
		               tile_update16<B, 3, SPLIT_REST>})
			CUDA_TRY(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		for (auto f : {tile_update16_level<B, 2>, tile_update16_level<B, 3>,
		               tile_update16_level<B, 3, true>})
			CUDA_TRY(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		for (auto f : {tile_update16_cover<B>, tile_update16_cover<B, true>})
			CUDA_TRY(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)s3));
		g3 = sp ? fill_grid(tile_update16_level<B, 3>, t3, s3, sp->sms) : 0;
		return 0;
	}

	int before(Err e, const Band &x, int round) const
	{
		short *d = (short *)x.d;
		if (x.holds(round) && !chained(how(x), round))
			phase1<short, B, false><<<1, t1, s1, x.s>>>(d, nullptr, npad, round, nullptr);
		if (nb > 1) {
			const dim3 gp((npad + 31) / 32, (B + 31) / 32), tp(32, 8);
			panels16<B><<<gp, tp, 0, x.s>>>(d, npad, round, (uint32_t *)x.colT, (short *)x.rowP,
			                                 x.row0, x.rows, x.takes_pivot(round));
			if (x.holds(round))
				tile_update16<B, 2><<<nb + x.rows, t3, s3, x.s>>>(
				        d, npad, round, (uint32_t *)x.colT, (short *)x.rowP, x.row0, x.rows, -1);
		}
		CUDA_TRY(cudaGetLastError());
		return 0;
	}

	int after(Err e, const Band &x, int round, const int32_t *, int split = SPLIT_WHOLE) const
	{
		short *d = (short *)x.d;
		if (nb == 1)
			return 0;
		if (!x.holds(round))
			tile_update16<B, 2><<<x.rows, t3, s3, x.s>>>(d, npad, round, (uint32_t *)x.colT,
			                                            (short *)x.rowP, x.row0, x.rows, -1);
		const int close = next_pivot(how(x), x, round, nb);
		auto go = [&](auto kernel, dim3 g) {
			kernel<<<g, t3, s3, x.s>>>(d, npad, round, (uint32_t *)x.colT, (short *)x.rowP,
			                           x.row0, x.rows, close);
		};
		if (split == SPLIT_NEXT)
			go(tile_update16<B, 3, SPLIT_NEXT>, dim3(2 * nb));
		else if (split == SPLIT_REST)
			go(tile_update16<B, 3, SPLIT_REST>, dim3(nb, x.rows));
		else
			go(tile_update16<B, 3>, dim3(nb, x.rows));
		CUDA_TRY(cudaGetLastError());
		return 0;
	}

	int level(Err e, const Band &x, int at, int m) const
	{
		short *d = (short *)x.d, *rowP = (short *)sp->rowP;
		uint32_t *colT = (uint32_t *)sp->colT;
		const int *pv = sp->pivots + at;
		phase1<short, B, false><<<m, t1, s1, x.s>>>(d, nullptr, npad, 0, pv);
		if (make_lists(e, x, sp, nb, pv, m, m > 1))
			return -1;
		level_panels<short, B, PanelCode<short, false>>
		        <<<dim3(level_panel_ctas(m), 1, m), dim3(32, 8), 0, x.s>>>(d, npad, pv, sp->lists,
		                                                                   colT, rowP);
		tile_update16_level<B, 2><<<level_grid2(g3, nb, m), t3, s3, x.s>>>(
		        d, npad, pv, m, colT, rowP, sp->lists, sp->live);
		bool cover = false;
		if (m <= COVER_PIVOTS && covers(e, x, sp, nb, m, &cover))
			return -1;
		const CoverPivots cp = cover_pivots(sp, at, m);
		const dim3 all(nb, nb);
		if (cover && m > 1)
			tile_update16_cover<B, true><<<all, t3, s3, x.s>>>(d, npad, cp, m, colT, rowP, sp->live);
		else if (cover)
			tile_update16_cover<B><<<all, t3, s3, x.s>>>(d, npad, cp, m, colT, rowP, sp->live);
		else if (m > 1)
			tile_update16_level<B, 3, true><<<g3, t3, s3, x.s>>>(d, npad, pv, m, colT, rowP,
			                                                     sp->lists, sp->live, sp->touch);
		else
			tile_update16_level<B, 3><<<g3, t3, s3, x.s>>>(d, npad, pv, m, colT, rowP,
			                                               sp->lists, sp->live);
		CUDA_TRY(cudaGetLastError());
		return 0;
	}
};

// The float64 kernels (fw_f64.cuh; B = 64): with MID, each entry's largest
// intermediate vertex in p, so that a tie goes to the smaller one (the
// textbook predecessors); BITS, no entry's sign bit set (no weight below
// +0): the minima partly on the integer units, and with MID phase 3 on
// clean sums alone.  before() closes the pivot block and updates the pivot
// row (and, on one device, the band's blocks of the pivot column in the
// same launch), then puts the pivot row in rowP for the other devices;
// after() updates the pivot column's blocks of the band and phase 3.  A
// sparse run's level is its pivots' rounds one after the other, each over
// the blocks its lists name (f64::update_listed); their rounds are not in
// the order of the pivots, so with MID every tie is compared (no clean
// sums: LB).
template <bool MID, bool BITS> struct RoundKernels64 : PivotChain {
	static_assert(f64::B == 64, "the float64 tiles are 64 x 64");
	static constexpr bool LB = BITS && !MID; // the levels' BITS
	int npad = 0, nb = 0;
	bool alone = true; // one device holds every row (run_rounds64)
	const Sparse *sp = nullptr;
	int how(const Band &) const { return 0; } // phase 1 always apart

	int setup(Err e, int, int npad_, const Sparse *sp_)
	{
		npad = npad_, nb = npad_ / f64::B, sp = sp_;
		const int up = (int)f64::update_smem<MID, f64::ROWS, BITS>();
		const int um = (int)f64::update_smem<MID, f64::MAIN, BITS>();
		CUDA_TRY(cudaFuncSetAttribute(f64::closure<MID>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize,
		                              (int)f64::closure_smem<MID>()));
		for (auto f : {f64::update<MID, f64::ROWS, BITS>, f64::update<MID, f64::COLS, BITS>,
		               f64::update<MID, f64::BOTH, BITS>})
			CUDA_TRY(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, up));
		CUDA_TRY(cudaFuncSetAttribute(f64::update<MID, f64::MAIN, BITS>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize, um));
		CUDA_TRY(cudaFuncSetAttribute(f64::update_listed<MID, f64::BOTH, LB>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize,
		                              (int)f64::update_smem<MID, f64::BOTH, LB>()));
		CUDA_TRY(cudaFuncSetAttribute(f64::update_listed<MID, f64::MAIN, LB>,
		                              cudaFuncAttributeMaxDynamicSharedMemorySize,
		                              (int)f64::update_smem<MID, f64::MAIN, LB>()));
		return 0;
	}

	// The band's view for the kernels: its own rows, and the pivot row of
	// round (its own matrix's where it holds it or, in row order, has it
	// done already; else rowP and the pivot rows of the predecessors, prow).
	f64::band view(const Band &x, int round, const int32_t *prow) const
	{
		const size_t panel = (size_t)f64::B * npad;
		double *d = (double *)x.d;
		int32_t *p = MID ? x.p : nullptr;
		const bool own = x.takes_pivot(round);
		return f64::band{d + x.row0 * panel,
		                 p ? p + x.row0 * panel : nullptr,
		                 own ? d + round * panel : (const double *)x.rowP,
		                 MID ? (own ? p + round * panel : prow) : nullptr,
		                 npad, x.row0, x.rows, nb, round};
	}

	// Whether the band's blocks of the pivot column are updated with the
	// pivot row, in one launch (BOTH): one device, the whole matrix.
	bool fused(const Band &x, int round) const
	{
		return alone && x.row0 == 0 && x.rows == nb && x.holds(round);
	}

	int before(Err e, const Band &x, int round) const
	{
		if (!x.holds(round))
			return 0;
		const f64::band b = view(x, round, nullptr);
		const size_t up = f64::update_smem<MID, f64::ROWS, BITS>();
		f64::closure<MID><<<1, f64::T * f64::T, f64::closure_smem<MID>(), x.s>>>(
		        const_cast<double *>(b.pd), const_cast<int32_t *>(b.pm), npad, round);
		if (fused(x, round))
			f64::update<MID, f64::BOTH, BITS><<<2 * nb, f64::UTHREADS, up, x.s>>>(b);
		else
			f64::update<MID, f64::ROWS, BITS><<<nb, f64::UTHREADS, up, x.s>>>(b);
		if (!alone)
			CUDA_TRY(cudaMemcpyAsync(x.rowP, b.pd, (size_t)f64::B * npad * sizeof(double),
			                         cudaMemcpyDeviceToDevice, x.s));
		CUDA_TRY(cudaGetLastError());
		return 0;
	}

	int after(Err e, const Band &x, int round, const int32_t *prow,
	          int split = SPLIT_WHOLE) const
	{
		(void)split; // (no lookahead: run_rounds64)
		if (nb == 1)
			return 0;
		const f64::band b = view(x, round, prow);
		if (!fused(x, round))
			f64::update<MID, f64::COLS, BITS><<<x.rows, f64::UTHREADS,
			                                   f64::update_smem<MID, f64::COLS, BITS>(), x.s>>>(b);
		f64::update<MID, f64::MAIN, BITS><<<dim3(nb, x.rows), f64::UTHREADS,
		                                   f64::update_smem<MID, f64::MAIN, BITS>(), x.s>>>(b);
		CUDA_TRY(cudaGetLastError());
		return 0;
	}

	int level(Err e, const Band &x, int at, int m) const
	{
		const int grid = 2 * sp->sms; // (two CTAs of 64 KiB of shared memory or more an SM)
		for (int b = 0; b < m; b++) {
			const int round = sp->by_level[at + b];
			if (make_lists(e, x, sp, nb, sp->pivots + at + b, 1, false))
				return -1;
			const f64::band v = view(x, round, nullptr);
			f64::closure<MID><<<1, f64::T * f64::T, f64::closure_smem<MID>(), x.s>>>(
			        const_cast<double *>(v.pd), const_cast<int32_t *>(v.pm), npad, round);
			f64::update_listed<MID, f64::BOTH, LB><<<grid, f64::UTHREADS,
			                                        f64::update_smem<MID, f64::BOTH, LB>(), x.s>>>(
			        v, sp->lists, sp->live);
			f64::update_listed<MID, f64::MAIN, LB><<<grid, f64::UTHREADS,
			                                        f64::update_smem<MID, f64::MAIN, LB>(), x.s>>>(
			        v, sp->lists, sp->live);
			CUDA_TRY(cudaGetLastError());
		}
		return 0;
	}
};

// Device x's band, as the kernels of a round see it (lanes16: the 16-bit
// matrix).
Band band_of(const Devs &v, const Dev &x, bool lanes16 = false)
{
	return Band{lanes16     ? (void *)x.base<short>(x.d16, v.B, v.npad)
	            : v.es == 8 ? (void *)x.base<double>(x.d, v.B, v.npad) // float64
	                        : (void *)x.base<int>(x.d, v.B, v.npad), // int32 or float32 alike
	            lanes16 ? nullptr : x.pbase(v.B, v.npad), x.colT, x.rowP, x.row0, x.rows, x.s};
}

// A sparse run's schedule (Sparse), from its map of live blocks as the
// first round finds it: the pivots by level, and room for the panels and
// lists of up to width rounds at a time (LEVEL_MAX, and at most 1 GiB or an
// eighth of the free memory for the panels).
int plan_levels(Err e, Dev &x, Sparse &sp, int nb, int npad, int B)
{
	std::vector<uint8_t> live((size_t)nb * nb);
	std::vector<int32_t> level(nb);
	CUDA_TRY(cudaMemcpyAsync(live.data(), sp.live, live.size(), cudaMemcpyDeviceToHost, x.s));
	CUDA_TRY(cudaStreamSynchronize(x.s));
	const int levels = ord_block_levels(live.data(), (uint64_t)nb, level.data());
	if (levels < 0)
		return fail(e, "out of memory for the rounds' levels");
	std::vector<int> count(levels + 1, 0), pivots(nb);
	for (int b = 0; b < nb; b++)
		count[level[b] + 1]++;
	int widest = 0;
	for (int l = 0; l < levels; l++) {
		widest = std::max(widest, count[l + 1]);
		count[l + 1] += count[l];
	}
	sp.starts = count;
	for (int b = 0; b < nb; b++) // by level, in increasing order within one
		pivots[count[level[b]]++] = b;
	sp.by_level = pivots;
	const size_t panel = (size_t)B * npad * 4; // each of colT and rowP, 32-bit or 16-bit
	size_t free_b = 0, total_b = 0;
	CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
	const size_t room = std::min((size_t)1 << 30, free_b / 8);
	sp.width = std::max(1, (int)std::min<size_t>({(size_t)LEVEL_MAX, (size_t)widest,
	                                               room / (2 * panel)}));
	CUDA_TRY(cudaMalloc(&sp.pivots, nb * sizeof(int)));
	CUDA_TRY(cudaMemcpy(sp.pivots, pivots.data(), nb * sizeof(int), cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMalloc(&sp.colT, sp.width * panel));
	CUDA_TRY(cudaMalloc(&sp.rowP, sp.width * panel));
	CUDA_TRY(cudaMalloc(&sp.lists, sp.width * list_ints(nb) * sizeof(int)));
	CUDA_TRY(cudaMalloc(&sp.touch, 2 * (size_t)nb * sizeof *sp.touch));
	return 0;
}

// The rounds on one device with lookahead: phase 3 of round T in two parts,
// the blocks of row and column T+1 first on the device's second stream (of
// the higher priority; the pivot block T+1 closed there too, where phase 1
// runs inside phase 3), then the rest on the first stream, while the second
// goes on with the panels and phase 2 of round T+1, which need no more than
// that first part.  Round T+1's phase 3 waits for both.  The panels of odd
// rounds are the second pair, since the rest of round T still reads round
// T's while round T+1's are written.
template <typename K>
int rounds_ahead(Err e, Devs &v, K &k, bool lanes16, int first, int *next)
{
	Dev &x = v.dev[v.first];
	Ahead &a = x.ahead;
	const int nb = v.npad / v.B;
	const Band whole = band_of(v, x, lanes16);
	auto on = [&](int round, cudaStream_t s) {
		Band b = whole;
		if (round & 1)
			b.colT = a.colT, b.rowP = a.rowP;
		b.s = s;
		return b;
	};
	*next = nb;
	// the second stream after all that the first has queued
	CUDA_TRY(cudaEventRecord(a.rest, x.s));
	CUDA_TRY(cudaStreamWaitEvent(a.s, a.rest, 0));
	if (k.before(e, on(first, a.s), first))
		return -1;
	for (int round = first; round < nb; round++) {
		const int32_t *prow = pivot_preds(v, x, round);
		CUDA_TRY(cudaEventRecord(a.phase2, a.s));
		CUDA_TRY(cudaStreamWaitEvent(x.s, a.phase2, 0));
		if (round + 1 == nb) // (no row T+1 to leave out: the whole)
			return k.after(e, on(round, x.s), round, prow, SPLIT_REST);
		const int cut = v.ck ? v.ck->due(e, v) : 0;
		if (cut < 0)
			return -1;
		k.cut = cut ? round + 1 : -1;
		if (k.after(e, on(round, a.s), round, prow, SPLIT_NEXT)
		    || k.after(e, on(round, x.s), round, prow, SPLIT_REST))
			return -1;
		if (v.ck && v.ck->step_ended(e, v))
			return -1;
		if (cut) {
			*next = round + 1;
			return 0;
		}
		CUDA_TRY(cudaEventRecord(a.rest, x.s));
		if (k.before(e, on(round + 1, a.s), round + 1))
			return -1;
		CUDA_TRY(cudaStreamWaitEvent(a.s, a.rest, 0));
	}
	return 0;
}

// The rounds from first over the devices of a run, each band's after()
// before its next before(); *next: where a checkpoint is due, the round
// after it, else nb.
template <typename K>
int rounds_in_turn(Err e, Devs &v, K &k, size_t elem, bool paths, bool lanes16, int first,
                   int *next)
{
	const int nb = v.npad / v.B;
	*next = nb;
	for (int round = first; round < nb; round++) {
		for (int g = v.first; g < v.last; g++) {
			if (v.count > 1)
				CUDA_TRY(cudaSetDevice(v.dev[g].id));
			if (k.before(e, band_of(v, v.dev[g], lanes16), round))
				return -1;
		}
		if (nb == 1)
			break;
		if (share_pivot(e, v, round, elem, paths))
			return -1;
		const int cut = v.ck && round + 1 < nb ? v.ck->due(e, v) : 0;
		if (cut < 0)
			return -1;
		k.cut = cut ? round + 1 : -1;
		for (int g = v.first; g < v.last; g++) {
			Dev &x = v.dev[g];
			if (v.count > 1)
				CUDA_TRY(cudaSetDevice(x.id));
			if (k.after(e, band_of(v, x, lanes16), round, pivot_preds(v, x, round)))
				return -1;
		}
		if (v.ck && v.ck->step_ended(e, v))
			return -1;
		if (cut) {
			*next = round + 1;
			return 0;
		}
	}
	return 0;
}

// A sparse run's rounds, level by level, width at a time (a step each),
// from step first; *next as for rounds_in_turn, against steps.
template <typename K>
int rounds_by_level(Err e, Devs &v, K &k, const Sparse *sp, bool lanes16, int first, int *next)
{
	const Band x = band_of(v, v.dev[v.first], lanes16);
	int step = 0;
	*next = INT32_MAX;
	for (int l = 0; l < sp->levels(); l++)
		for (int at = sp->starts[l]; at < sp->starts[l + 1]; at += sp->width, step++) {
			if (step < first)
				continue;
			if (k.level(e, x, at, std::min(sp->width, sp->starts[l + 1] - at)))
				return -1;
			if (v.ck && v.ck->step_ended(e, v))
				return -1;
			const int cut = v.ck && (uint64_t)step + 1 < v.ck->steps ? v.ck->due(e, v) : 0;
			if (cut < 0)
				return -1;
			if (cut) {
				*next = step + 1;
				return 0;
			}
		}
	return 0;
}

// A sparse run's steps (rounds_by_level).
int level_steps(const Sparse *sp)
{
	int steps = 0;
	for (int l = 0; l < sp->levels(); l++)
		steps += (sp->starts[l + 1] - sp->starts[l] + sp->width - 1) / sp->width;
	return steps;
}

// The rounds over the devices of a run, with kernels K (set up on each):
// the pivot row and every device's column panel; the pivot row to the other
// devices; the pivot column elsewhere and phase 3.  elem: bytes of an entry.
template <typename K>
int run_rounds_with(Err e, Devs &v, K &k, const Sparse *sp, size_t elem, bool paths,
                    bool lanes16)
{
	const int nb = v.npad / v.B;
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		if (k.setup(e, v.dev[g].id, v.npad, sp))
			return -1;
	}
	k.chain = !sp && v.phase1 != FWG_PHASE1_APART;
	k.force = v.phase1;
	k.ahead = v.dev[v.first].ahead.s; // (there only where the rounds can run ahead)
	if (!sp) {
		const int how = k.how(band_of(v, v.dev[v.first], lanes16));
		v.phase1_ran = how == 1 ? FWG_PHASE1_REGISTERS : how == 2 ? FWG_PHASE1_SHARED
		                                                          : FWG_PHASE1_APART;
	}
	v.ahead_ran = !sp && k.ahead;
	uint64_t from = 0;
	if (v.ck) {
		v.ck->steps = sp ? (uint64_t)level_steps(sp) : (uint64_t)nb;
		v.ck->tracked = paths && !lanes16;
		// (a checkpoint of another stage: of the 32-bit run that follows
		// these 16-bit lanes, which the caller goes on to; of 16-bit lanes
		// before this 32-bit run, which begins)
		const int rc = v.ck->load(e, v, lanes16, &from);
		if (rc < 0 || (rc && lanes16))
			return rc;
	}
	// step by step from the first, with a checkpoint where one is due
	for (int first = (int)from, next = 0;; first = next) {
		k.first = first, k.cut = -1;
		const int rc = sp        ? rounds_by_level(e, v, k, sp, lanes16, first, &next)
		               : k.ahead ? rounds_ahead(e, v, k, lanes16, first, &next)
		                         : rounds_in_turn(e, v, k, elem, paths, lanes16, first, &next);
		if (rc)
			return rc;
		if ((uint64_t)next >= (v.ck ? v.ck->steps : (uint64_t)nb))
			return 0;
		if (v.ck->save(e, v, lanes16, (uint64_t)next))
			return -1;
	}
}

template <typename T, int B, int R, bool PATHS, bool PACKED>
int run_rounds(Err e, Devs &v, const Sparse *sp)
{
	RoundKernels<T, B, R, PATHS, PACKED> k;
	const int rc = run_rounds_with(e, v, k, sp, sizeof(T), PATHS, false);
	v.small_ran = k.small_ran;
	return rc;
}

template <int B> int run_rounds16(Err e, Devs &v, const Sparse *sp)
{
	RoundKernels16<B> k;
	return run_rounds_with(e, v, k, sp, sizeof(short), false, true);
}

// The float64 rounds (RoundKernels64), every round in turn (no lookahead).
template <bool MID, bool BITS> int run_rounds64(Err e, Devs &v, const Sparse *sp)
{
	RoundKernels64<MID, BITS> k;
	k.alone = v.count == 1;
	return run_rounds_with(e, v, k, sp, sizeof(double), MID, false);
}

// The kernels' configuration of a run, as a type: element T, blocking
// factor B, register tile R, and how predecessors go.
template <typename T_, int B_, int R_, bool PATHS_, bool PACKED_> struct Config {
	using T = T_;
	static constexpr int B = B_, R = R_;
	static constexpr bool PATHS = PATHS_, PACKED = PACKED_;
};

template <typename T, int B, typename F>
int dispatch_modes(Err e, F run, bool paths, bool packed)
{
	// Register tile: 8 x 8 where the block is large enough and the kernel
	// keeps nothing but distances; 4 x 4 when it also tracks k explicitly.
	constexpr int RD = B >= 64 ? 8 : 4;
	if (!paths)
		return run(Config<T, B, RD, false, false>{});
	if constexpr (std::is_same<T, uint32_t>::value) {
		return fail(e, "float32 as bits holds distances only");
	} else {
		if constexpr (std::is_same<T, int>::value)
			if (packed)
				return run(Config<T, B, RD, true, true>{});
		return run(Config<T, B, 4, true, false>{});
	}
}

// run(Config<...>{}) for blocking factor B and the paths asked for: each
// scheduler (run_rounds here, ooc_rounds out of core) instantiated once per
// configuration.
template <typename T, typename F>
int dispatch(Err e, int B, bool paths, bool packed, F run)
{
	switch (B) {
	case 16: return dispatch_modes<T, 16>(e, run, paths, packed);
	case 32: return dispatch_modes<T, 32>(e, run, paths, packed);
	case 64: return dispatch_modes<T, 64>(e, run, paths, packed);
	case 128: return dispatch_modes<T, 128>(e, run, paths, packed);
	}
	return fail(e, "blocking factor %d not supported (16, 32, 64 or 128)", B);
}

} // namespace
#endif
