/* fw_batch.c - many small graphs in one call (see fw.h, fw_batch()).
 *
 * A graph a thread: each small matrix stays in the thread's cache through
 * the textbook order (pivot k, then row i, then column j, in place), the
 * order scipy's floyd_warshall follows, so the distances and predecessors
 * are its bit for bit.  Every graph is checked before any is solved, so a
 * bad one leaves every matrix as it was. */
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "fw.h"
#include "common.h"

/* Why graph g's weights cannot be solved (NULL: they can): a NaN or -inf
 * weight; int32 sums of each row's largest weight, or of its most negative,
 * that could reach ST_INF_I32 (a path's length, found or not). */
static const char *unfit(uint32_t type, uint64_t n, const void *w)
{
	if (type != ST_INT32) {
		for (uint64_t k = 0; k < n * n; k++) {
			const double x = type == ST_FLOAT32 ? ((const float *)w)[k]
			                                    : ((const double *)w)[k];
			if (isnan(x) || x == -INFINITY)
				return isnan(x) ? "a weight is NaN" : "a weight is -infinity";
		}
		return NULL;
	}
	const int32_t *x = w;
	int64_t up = 0, down = 0;
	for (uint64_t i = 0; i < n; i++) {
		int32_t most = 0, least = 0;
		for (uint64_t j = 0; j < n; j++) {
			const int32_t v = x[i * n + j];
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
 * diagonal 0 unless negative (a negative loop: a negative cycle). */
#define START(NAME, T, FINITE)                                                  \
static void NAME(uint64_t n, T *d, int32_t *p)                                  \
{                                                                               \
	for (uint64_t i = 0; i < n; i++) {                                      \
		if (d[i * n + i] > 0)                                           \
			d[i * n + i] = 0;                                       \
		for (uint64_t j = 0; p && j < n; j++)                           \
			p[i * n + j] = i != j && FINITE(d[i * n + j]) ? (int32_t)i : -1; \
	}                                                                       \
}

/* Row i through pivot k with its predecessors: a strict improvement takes
 * the sum and row k's predecessor. */
#define PATHS_ROW(NAME, T, SUM, ATTR)                                           \
static inline __attribute__((always_inline)) ATTR void NAME(uint64_t n, T aik,  \
	const T *restrict dk, const int32_t *restrict pk, T *restrict di,       \
	int32_t *restrict pi)                                                   \
{                                                                               \
	for (uint64_t j = 0; j < n; j++) {                                      \
		const T s = SUM(aik, dk[j]);                                    \
		const int better = s < di[j];                                   \
		di[j] = better ? s : di[j];                                     \
		pi[j] = better ? pk[j] : pi[j];                                 \
	}                                                                       \
}

/* The textbook rounds on one graph; a vertex on a negative cycle, or -1.
 * int32: an unreachable operand leaves the entry as it is, and a sum is
 * held at -ST_INF_I32 or above (only a negative cycle goes so low), so
 * that no sum overflows. */
#define ROUNDS(NAME, T, FINITE, SUM, ATTR, PATHS_ROW)                           \
__attribute__((optimize("O3"))) ATTR static int64_t NAME(uint64_t n, T *restrict d, \
                                                         int32_t *restrict p)   \
{                                                                               \
	for (uint64_t k = 0; k < n; k++) {                                      \
		const T *restrict dk = d + k * n;                               \
		const int32_t *restrict pk = p ? p + k * n : NULL;              \
		for (uint64_t i = 0; i < n; i++) {                              \
			const T aik = d[i * n + k];                             \
			if (!FINITE(aik) || i == k)                             \
				continue;                                       \
			T *restrict di = d + i * n;                             \
			if (!p) {                                               \
				for (uint64_t j = 0; j < n; j++) {              \
					const T s = SUM(aik, dk[j]);            \
					di[j] = s < di[j] ? s : di[j];          \
				}                                               \
				continue;                                       \
			}                                                       \
			PATHS_ROW(n, aik, dk, pk, di, p + i * n);               \
		}                                                               \
	}                                                                       \
	for (uint64_t i = 0; i < n; i++)                                        \
		if (d[i * n + i] < 0)                                           \
			return (int64_t)i;                                      \
	return -1;                                                              \
}

#define FINITE_I32(x) ((x) < ST_INF_I32)
#define FINITE_F(x) ((x) < INFINITY)
/* (a + b, b unreachable: unreachable; at least -ST_INF_I32) */
#define SUM_I32(a, b) ((b) >= ST_INF_I32 ? ST_INF_I32 : (a) + (b) < -ST_INF_I32 ? -ST_INF_I32 : (a) + (b))
#define SUM_F(a, b) ((a) + (b))

START(start_i32, int32_t, FINITE_I32)
START(start_f32, float, FINITE_F)
START(start_f64, double, FINITE_F)
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

#define ROUNDS3(NAME, T, FINITE, SUM, ROW512)                                   \
	PATHS_ROW(NAME##_row, T, SUM, )                                         \
	PATHS_ROW(NAME##_row_avx2, T, SUM, AVX2)                                \
	PATHS_ROW(NAME##_row_avx512, T, SUM, AVX512)                            \
	ROUNDS(NAME##_portable, T, FINITE, SUM, , NAME##_row)                   \
	ROUNDS(NAME##_avx2, T, FINITE, SUM, AVX2, NAME##_row_avx2)              \
	ROUNDS(NAME##_avx512, T, FINITE, SUM, AVX512, ROW512)                   \
	static int64_t NAME(enum fw_simd simd, uint64_t n, T *d, int32_t *p)    \
	{                                                                       \
		return simd == FW_SIMD_AVX512 ? NAME##_avx512(n, d, p)          \
		       : simd == FW_SIMD_AVX2 ? NAME##_avx2(n, d, p)            \
		                              : NAME##_portable(n, d, p);       \
	}
ROUNDS3(rounds_i32, int32_t, FINITE_I32, SUM_I32, rounds_i32_row_avx512)
ROUNDS3(rounds_f32, float, FINITE_F, SUM_F, rounds_f32_row_avx512)
ROUNDS3(rounds_f64, double, FINITE_F, SUM_F, paths_row_f64_avx512)

/* Graph g solved in place: -1, or a vertex on its negative cycle. */
static int64_t solve_one(uint32_t type, enum fw_simd simd, uint64_t n, void *d, int32_t *p)
{
	switch (type) {
	case ST_INT32:
		start_i32(n, d, p);
		return rounds_i32(simd, n, d, p);
	case ST_FLOAT32:
		start_f32(n, d, p);
		return rounds_f32(simd, n, d, p);
	default:
		start_f64(n, d, p);
		return rounds_f64(simd, n, d, p);
	}
}

int64_t fw_batch(uint32_t type, uint64_t count, uint64_t n, void *dist, int32_t *pred,
                 int threads, int64_t *cycle, st_error *err)
{
	if (type != ST_INT32 && type != ST_FLOAT32 && type != ST_FLOAT64)
		return lib_fail(err, "unknown element type %u", type);
	if (n > ST_MAX_N || (n && count > UINT64_MAX / (n * n)))
		return lib_fail(err, "%llu graphs of %llu vertices: too many", (unsigned long long)count,
		                (unsigned long long)n);
	const uint64_t nn = n * n, es = ST_TYPE_SIZE(type);
	/* every graph checked first: the least bad one named, nothing changed */
	uint64_t bad = count;
	#pragma omp parallel for schedule(dynamic, 64) reduction(min : bad) LIB_OMP_THREADS(threads)
	for (uint64_t g = 0; g < count; g++)
		if (g < bad && unfit(type, n, (const char *)dist + g * nn * es))
			bad = g;
	if (bad < count)
		return lib_fail(err, "graph %llu: %s", (unsigned long long)bad,
		                unfit(type, n, (const char *)dist + bad * nn * es));
	int64_t cycles = 0;
	const enum fw_simd simd = fw_simd_detect();
	#pragma omp parallel for schedule(dynamic, 16) reduction(+ : cycles) LIB_OMP_THREADS(threads)
	for (uint64_t g = 0; g < count; g++) {
		const int64_t v = solve_one(type, simd, n, (char *)dist + g * nn * es,
		                            pred ? pred + g * nn : NULL);
		cycle[g] = v;
		cycles += v >= 0;
	}
	return cycles;
}
