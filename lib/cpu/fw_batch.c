/* fw_batch.c - many small graphs in one call (see fw.h, fw_batch() and
 * fw_batch_reach()), over a semiring: shortest paths, widest paths,
 * reachability.
 *
 * A graph a thread: each small matrix stays in the thread's cache through
 * the textbook order (pivot k, then row i, then column j, in place), the
 * order scipy's floyd_warshall follows, so the distances and predecessors
 * are its bit for bit.  The rounds are written once, over the semiring's
 * extension of a path (TIMES), its order (BETTER) and its zero (HAS);
 * reachability runs on rows of bits.  Every graph is checked before any is
 * solved, so a bad one leaves every matrix as it was. */
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "fw.h"
#include "common.h"

/* Why graph g's weights cannot be solved (NULL: they can): a NaN weight;
 * shortest paths: a weight of -infinity, int32 sums of each row's largest
 * weight, or of its most negative, that could reach ST_INF_I32 (a path's
 * length, found or not); widest paths: int32 (they take floats). */
static const char *unfit(uint32_t semiring, uint32_t type, uint64_t n, uint64_t ld,
                         const void *w)
{
	if (semiring == FW_WIDEST && type == ST_INT32)
		return "widest paths take float32 or float64 weights";
	if (type != ST_INT32) {
		for (uint64_t k = 0; k < n * ld; k++) {
			const double x = k % ld >= n ? 0 : type == ST_FLOAT32 ? ((const float *)w)[k]
			                                                    : ((const double *)w)[k];
			if (isnan(x) || (x == -INFINITY && semiring == FW_MINPLUS))
				return isnan(x) ? "a weight is NaN" : "a weight is -infinity";
		}
		return NULL;
	}
	const int32_t *x = w;
	int64_t up = 0, down = 0;
	for (uint64_t i = 0; i < n; i++) {
		int32_t most = 0, least = 0;
		for (uint64_t j = 0; j < n; j++) {
			const int32_t v = x[i * ld + j];
			if (i == j || v >= ST_INF_I32)
				continue;
			if (v <= -ST_INF_I32)
				return "an int32 weight is at or below -ST_INF_I32";
			most = v > most ? v : most, least = v < least ? v : least;
		}
		up += most, down -= least;
	}
	return up >= ST_INF_I32 || down >= ST_INF_I32
	       ? "int32 path lengths could reach ST_INF_I32 (give float64 weights)" : NULL;
}

/* The predecessors before the rounds: i for an arc i -> j, else -1; the
 * diagonal the semiring's one: shortest paths 0 unless negative (a
 * negative loop: a negative cycle), widest paths +infinity. */
#define START(NAME, T, HAS, DIAGONAL)                                           \
static void NAME(uint64_t n, uint64_t ld, T *d, int32_t *p)                    \
{                                                                               \
	for (uint64_t i = 0; i < n; i++) {                                      \
		DIAGONAL(d[i * ld + i]);                                        \
		for (uint64_t j = 0; p && j < n; j++)                           \
			p[i * ld + j] = i != j && HAS(d[i * ld + j]) ? (int32_t)i : -1; \
	}                                                                       \
}

/* Row i through pivot k with its predecessors: a strict improvement takes
 * the sum and row k's predecessor.  (Unused where a type's AVX-512 row is
 * written by hand.) */
#define PATHS_ROW(NAME, T, TIMES, BETTER, ATTR)                                 \
static inline __attribute__((always_inline, unused)) ATTR void NAME(uint64_t n, T aik, \
	const T *restrict dk, const int32_t *restrict pk, T *restrict di,       \
	int32_t *restrict pi)                                                   \
{                                                                               \
	for (uint64_t j = 0; j < n; j++) {                                      \
		const T s = TIMES(aik, dk[j]);                                  \
		const int better = BETTER(s, di[j]);                            \
		di[j] = better ? s : di[j];                                     \
		pi[j] = better ? pk[j] : pi[j];                                 \
	}                                                                       \
}

/* Row i of one graph through pivot k, in the textbook order over a
 * semiring: TIMES extends a path by another, BETTER(s, c) where s is
 * strictly better than c, HAS(x) where x is a path (not the semiring's
 * zero).  Row k and column k do not change at step k (the diagonal is the
 * semiring's one; row k is passed over), so the rows of a step may run on
 * several threads with the same result.  Shortest paths in int32: an
 * unreachable operand leaves the entry as it is, and a sum is held at
 * -ST_INF_I32 or above (only a negative cycle goes so low), so that no sum
 * overflows. */
#define PIVOT_ROW(NAME, T, HAS, TIMES, BETTER, ATTR, PATHS_ROW)                 \
static inline __attribute__((always_inline)) ATTR void NAME(uint64_t n,         \
	uint64_t ld, uint64_t k, uint64_t i, T *d, int32_t *p)                  \
{                                                                               \
	const T aik = d[i * ld + k];                                            \
	if (!HAS(aik) || i == k)                                                \
		return;                                                         \
	const T *restrict dk = d + k * ld;                                      \
	T *restrict di = d + i * ld;                                            \
	if (!p) {                                                               \
		for (uint64_t j = 0; j < n; j++) {                              \
			const T s = TIMES(aik, dk[j]);                          \
			di[j] = BETTER(s, di[j]) ? s : di[j];                   \
		}                                                               \
		return;                                                         \
	}                                                                       \
	PATHS_ROW(n, aik, dk, p + k * ld, di, p + i * ld);                      \
}

/* The rounds on one graph: on the calling thread, or (team > 1) each
 * step's rows shared by a team of threads (one large graph). */
#define ROUNDS(NAME, T, ATTR, PIVOT)                                            \
__attribute__((optimize("O3"))) ATTR static void NAME(uint64_t n, uint64_t ld, T *d, \
                                                      int32_t *p, int team)     \
{                                                                               \
	if (team <= 1) {                                                        \
		for (uint64_t k = 0; k < n; k++)                                \
			for (uint64_t i = 0; i < n; i++)                        \
				PIVOT(n, ld, k, i, d, p);                       \
		return;                                                         \
	}                                                                       \
	_Pragma("omp parallel num_threads(team)")                               \
	for (uint64_t k = 0; k < n; k++) {                                      \
		_Pragma("omp for schedule(static)")                             \
		for (uint64_t i = 0; i < n; i++)                                \
			PIVOT(n, ld, k, i, d, p);                               \
	}                                                                       \
}

/* ---- the semirings ---- */

/* Shortest paths (min, +): no path INF or +infinity, the diagonal 0. */
#define FINITE_I32(x) ((x) < ST_INF_I32)
#define FINITE_F(x) ((x) < INFINITY)
/* (a + b, b unreachable: unreachable; at least -ST_INF_I32) */
#define SUM_I32(a, b) ((b) >= ST_INF_I32 ? ST_INF_I32 : (a) + (b) < -ST_INF_I32 ? -ST_INF_I32 : (a) + (b))
#define SUM_F(a, b) ((a) + (b))
#define LESS(s, c) ((s) < (c))
#define ZERO_UNLESS_NEGATIVE(x) ((x) = (x) > 0 ? 0 : (x))
/* Widest paths (max, min): a path's width its narrowest arc; no path
 * -infinity, the diagonal +infinity (the empty path). */
#define WIDE_F(x) ((x) > -INFINITY)
#define NARROWER(a, b) ((a) < (b) ? (a) : (b))
#define MORE(s, c) ((s) > (c))
#define WHOLE(x) ((x) = INFINITY)

START(start_i32, int32_t, FINITE_I32, ZERO_UNLESS_NEGATIVE)
START(start_f32, float, FINITE_F, ZERO_UNLESS_NEGATIVE)
START(start_f64, double, FINITE_F, ZERO_UNLESS_NEGATIVE)
START(start_wide_f32, float, WIDE_F, WHOLE)
START(start_wide_f64, double, WIDE_F, WHOLE)
/* Each built for the baseline, AVX2 and AVX-512 (the predecessors' loop,
 * of two widths, is left scalar by the baseline's SSE2: 6x slower at n =
 * 32), the processor's best taken at run time. */
#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f")))

/* float64 in AVX-512 by hand: the compiler's loop of two widths stored
 * through AVX2's masked moves, at 2.6 times the distances' time (n = 32);
 * here a mask of the improvements stores both, the row's tail masked. */
static inline __attribute__((always_inline)) AVX512 void paths_row_f64_avx512(uint64_t n,
	double aik, const double *restrict dk, const int32_t *restrict pk, double *restrict di,
	int32_t *restrict pi)
{
	const __m512d a = _mm512_set1_pd(aik);
	for (uint64_t j = 0; j < n; j += 8) {
		const __mmask8 in = n - j >= 8 ? 0xff : (__mmask8)((1u << (n - j)) - 1);
		const __m512d s = _mm512_add_pd(a, _mm512_maskz_loadu_pd(in, dk + j));
		const __mmask8 better = _mm512_mask_cmp_pd_mask(in, s, _mm512_maskz_loadu_pd(in, di + j),
		                                                _CMP_LT_OQ);
		_mm512_mask_storeu_pd(di + j, better, s);
		_mm512_mask_storeu_epi32(pi + j, better, _mm512_maskz_loadu_epi32(in, pk + j));
	}
}

#define ROUNDS3(NAME, T, HAS, TIMES, BETTER, ROW512)                           \
	PATHS_ROW(NAME##_row, T, TIMES, BETTER, )                               \
	PATHS_ROW(NAME##_row_avx2, T, TIMES, BETTER, AVX2)                      \
	PATHS_ROW(NAME##_row_avx512, T, TIMES, BETTER, AVX512)                  \
	PIVOT_ROW(NAME##_pivot, T, HAS, TIMES, BETTER, , NAME##_row)            \
	PIVOT_ROW(NAME##_pivot_avx2, T, HAS, TIMES, BETTER, AVX2, NAME##_row_avx2) \
	PIVOT_ROW(NAME##_pivot_avx512, T, HAS, TIMES, BETTER, AVX512, ROW512)   \
	ROUNDS(NAME##_portable, T, , NAME##_pivot)                              \
	ROUNDS(NAME##_avx2, T, AVX2, NAME##_pivot_avx2)                         \
	ROUNDS(NAME##_avx512, T, AVX512, NAME##_pivot_avx512)                   \
	static void NAME(enum fw_simd simd, uint64_t n, uint64_t ld, T *d, int32_t *p, \
	                 int team)                                              \
	{                                                                       \
		if (simd == FW_SIMD_AVX512)                                     \
			NAME##_avx512(n, ld, d, p, team);                       \
		else if (simd == FW_SIMD_AVX2)                                  \
			NAME##_avx2(n, ld, d, p, team);                         \
		else                                                            \
			NAME##_portable(n, ld, d, p, team);                     \
	}
ROUNDS3(rounds_i32, int32_t, FINITE_I32, SUM_I32, LESS, rounds_i32_row_avx512)
ROUNDS3(rounds_f32, float, FINITE_F, SUM_F, LESS, rounds_f32_row_avx512)
ROUNDS3(rounds_f64, double, FINITE_F, SUM_F, LESS, paths_row_f64_avx512)
ROUNDS3(rounds_wide_f32, float, WIDE_F, NARROWER, MORE, rounds_wide_f32_row_avx512)
ROUNDS3(rounds_wide_f64, double, WIDE_F, NARROWER, MORE, rounds_wide_f64_row_avx512)

/* One graph of at least this many vertices has each step's rows shared by
 * the threads.  A step ends at a barrier, n of them a graph: where a core
 * is busy with other work each can wait out its time slice (n = 1000 on 2
 * threads beside a build: 3.6 s, against 0.17 s on one), so the team takes
 * only graphs whose steps are long beside that. */
#define TEAM_FROM 1024

/* A vertex whose diagonal entry is below 0 (on a negative cycle), or -1. */
static int64_t negative_diagonal(uint32_t type, uint64_t n, uint64_t ld, const void *d)
{
	for (uint64_t i = 0; i < n; i++)
		if (type == ST_INT32 ? ((const int32_t *)d)[i * ld + i] < 0
		    : type == ST_FLOAT32 ? ((const float *)d)[i * ld + i] < 0
		                         : ((const double *)d)[i * ld + i] < 0)
			return (int64_t)i;
	return -1;
}

/* A graph of n vertices solved in place, its rows ld entries apart (team:
 * as ROUNDS): -1, or a vertex on its negative cycle. */
static int64_t solve_one(uint32_t semiring, uint32_t type, enum fw_simd simd, uint64_t n,
                         uint64_t ld, void *d, int32_t *p, int team)
{
	if (semiring == FW_WIDEST && type == ST_FLOAT32)
		start_wide_f32(n, ld, d, p), rounds_wide_f32(simd, n, ld, d, p, team);
	else if (semiring == FW_WIDEST)
		start_wide_f64(n, ld, d, p), rounds_wide_f64(simd, n, ld, d, p, team);
	else if (type == ST_INT32)
		start_i32(n, ld, d, p), rounds_i32(simd, n, ld, d, p, team);
	else if (type == ST_FLOAT32)
		start_f32(n, ld, d, p), rounds_f32(simd, n, ld, d, p, team);
	else
		start_f64(n, ld, d, p), rounds_f64(simd, n, ld, d, p, team);
	return semiring == FW_MINPLUS ? negative_diagonal(type, n, ld, d) : -1;
}

/* Graph g's vertices: sizes[g], or n; -1 (err set) where one is above n. */
static int sizes_fit(uint64_t count, uint64_t n, const uint32_t *sizes, st_error *err)
{
	for (uint64_t g = 0; sizes && g < count; g++)
		if (sizes[g] > n)
			return lib_fail(err, "graph %llu: %u vertices, more than its room's %llu",
			                (unsigned long long)g, sizes[g], (unsigned long long)n);
	return 0;
}
#define SIZE_OF(g) (sizes ? (uint64_t)sizes[g] : n)

int fw_batch_check(uint32_t semiring, uint32_t type, uint64_t count, uint64_t n,
                   const uint32_t *sizes, const void *dist, int threads, st_error *err)
{
	if (type != ST_INT32 && type != ST_FLOAT32 && type != ST_FLOAT64)
		return lib_fail(err, "unknown element type %u", type);
	if (semiring != FW_MINPLUS && semiring != FW_WIDEST)
		return lib_fail(err, "semiring %u: fw_batch takes FW_MINPLUS or FW_WIDEST", semiring);
	if (n > ST_MAX_N || (n && count > UINT64_MAX / (n * n)))
		return lib_fail(err, "%llu graphs of %llu vertices: too many", (unsigned long long)count,
		                (unsigned long long)n);
	if (sizes_fit(count, n, sizes, err) < 0)
		return -1;
	const uint64_t nn = n * n, es = ST_TYPE_SIZE(type);
	/* the least bad graph named */
	uint64_t bad = count;
	#pragma omp parallel for schedule(dynamic, 64) reduction(min : bad) LIB_OMP_THREADS(threads)
	for (uint64_t g = 0; g < count; g++)
		if (g < bad && unfit(semiring, type, SIZE_OF(g), n, (const char *)dist + g * nn * es))
			bad = g;
	if (bad < count)
		return lib_fail(err, "graph %llu: %s", (unsigned long long)bad,
		                unfit(semiring, type, SIZE_OF(bad), n, (const char *)dist + bad * nn * es));
	return 0;
}

int64_t fw_batch(uint32_t semiring, uint32_t type, uint64_t count, uint64_t n,
                 const uint32_t *sizes, void *dist, int32_t *pred, int threads, int64_t *cycle,
                 st_error *err)
{
	/* every graph checked first: nothing changed where one is bad */
	if (fw_batch_check(semiring, type, count, n, sizes, dist, threads, err) < 0)
		return -1;
	const uint64_t nn = n * n, es = ST_TYPE_SIZE(type);
	int64_t cycles = 0;
	const enum fw_simd simd = fw_simd_detect();
	if (count == 1 && SIZE_OF(0) >= TEAM_FROM) { /* one large graph: its rows shared */
		cycle[0] = solve_one(semiring, type, simd, SIZE_OF(0), n, dist, pred,
		                     lib_threads(threads));
		return cycle[0] >= 0;
	}
	#pragma omp parallel for schedule(dynamic, 16) reduction(+ : cycles) LIB_OMP_THREADS(threads)
	for (uint64_t g = 0; g < count; g++) {
		const int64_t v = solve_one(semiring, type, simd, SIZE_OF(g), n,
		                            (char *)dist + g * nn * es, pred ? pred + g * nn : NULL, 1);
		cycle[g] = v;
		cycles += v >= 0;
	}
	return cycles;
}

/* ---- reachability ---- */

/* Row i's bits through pivot k: row k's added where row i reaches k. */
static inline void reach_row(uint64_t W, uint64_t k, uint64_t i, uint64_t *bits)
{
	const uint64_t *bk = bits + k * W;
	uint64_t *bi = bits + i * W;
	if (i != k && (bi[k / 64] >> (k % 64) & 1))
		for (uint64_t w = 0; w < W; w++)
			bi[w] |= bk[w];
}

/* One graph's closure on bits: row i's words hold the vertices i reaches;
 * pivot k adds row k's to every row that reaches k (Warshall's order;
 * team > 1: each step's rows on a team of threads, row k unchanged). */
static void closure_one(uint64_t n, uint64_t ld, uint8_t *m, uint64_t *bits, int team)
{
	const uint64_t W = (n + 63) / 64;
	memset(bits, 0, n * W * 8);
	for (uint64_t i = 0; i < n; i++) {
		m[i * ld + i] = 1;
		for (uint64_t j = 0; j < n; j++)
			bits[i * W + j / 64] |= (uint64_t)(m[i * ld + j] != 0) << (j % 64);
	}
	if (team > 1) {
		#pragma omp parallel num_threads(team)
		for (uint64_t k = 0; k < n; k++) {
			#pragma omp for schedule(static)
			for (uint64_t i = 0; i < n; i++)
				reach_row(W, k, i, bits);
		}
	} else {
		for (uint64_t k = 0; k < n; k++)
			for (uint64_t i = 0; i < n; i++)
				reach_row(W, k, i, bits);
	}
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++)
			m[i * ld + j] = (bits[i * W + j / 64] >> (j % 64)) & 1;
}

int fw_batch_reach(uint64_t count, uint64_t n, const uint32_t *sizes, uint8_t *m, int threads,
                   st_error *err)
{
	if (n > ST_MAX_N || (n && count > UINT64_MAX / (n * n)))
		return lib_fail(err, "%llu graphs of %llu vertices: too many", (unsigned long long)count,
		                (unsigned long long)n);
	if (sizes_fit(count, n, sizes, err) < 0)
		return -1;
	const uint64_t bytes = n * ((n + 63) / 64) * 8;
	if (count == 1 && SIZE_OF(0) >= TEAM_FROM) { /* one large graph: its rows shared */
		uint64_t *bits = malloc(bytes);
		if (!bits)
			return lib_fail(err, "out of memory for the rows of bits (n = %llu)",
			                (unsigned long long)n);
		closure_one(SIZE_OF(0), n, m, bits, lib_threads(threads));
		free(bits);
		return 0;
	}
	int failed = 0;
	#pragma omp parallel LIB_OMP_THREADS(threads) reduction(| : failed)
	{
		uint64_t *bits = malloc(bytes ? bytes : 1);
		failed = !bits;
		#pragma omp for schedule(dynamic, 16)
		for (uint64_t g = 0; g < count; g++)
			if (bits)
				closure_one(SIZE_OF(g), n, m + g * n * n, bits, 1);
		free(bits);
	}
	return failed ? lib_fail(err, "out of memory for the rows of bits (n = %llu)",
	                         (unsigned long long)n) : 0;
}
