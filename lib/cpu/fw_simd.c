/* fw_simd.c - the CPU engine's block kernels: C = min(C, A (+) Bk) as a
 * register tile in AVX-512, AVX2 or portable C, with and without
 * predecessors, and the pivot block's closure, for int32, float32 and
 * float64 elements; chosen at run time.
 *
 * The phase 3 kernel is a register tile: R rows x CW vectors of the output
 * block stay in registers over all B pivots, each pivot costs one broadcast
 * of A[i][k] per row, one load of row k of Bk per vector, and an add and a
 * min per vector - the add-min ceiling, with loads to spare.
 */
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_internal.h"
#include "common.h"

/* ---- portable ---- */

/* Plain C that the compiler vectorises for the x86-64 baseline (SSE2). */
#define PORTABLE_UPDATE(NAME, T, ATTR)                                          \
__attribute__((optimize("O3"))) ATTR static void NAME(void *cv, int32_t *cp, const void *av, const void *bv,         \
                 const int32_t *bp, int B)                                      \
{                                                                               \
	T *restrict c = cv;                                                     \
	const T *restrict a = av, *restrict bk = bv;                            \
	for (int i = 0; i < B; i++) {                                           \
		T *restrict ci = c + (size_t)i * B;                             \
		int32_t *restrict pi = cp ? cp + (size_t)i * B : NULL;          \
		for (int k = 0; k < B; k++) {                                   \
			T aik = a[(size_t)i * B + k];                           \
			const T *restrict bkk = bk + (size_t)k * B;             \
			if (!pi) {                                              \
				for (int j = 0; j < B; j++) {                   \
					T s = aik + bkk[j];                     \
					ci[j] = s < ci[j] ? s : ci[j];          \
				}                                               \
				continue;                                       \
			}                                                       \
			const int32_t *restrict pk = bp + (size_t)k * B;        \
			for (int j = 0; j < B; j++) {                           \
				T s = aik + bkk[j];                             \
				if (s < ci[j])                                  \
					ci[j] = s, pi[j] = pk[j];               \
			}                                                       \
		}                                                               \
	}                                                                       \
}
PORTABLE_UPDATE(update_i32_portable, int32_t, )
PORTABLE_UPDATE(update_f32_portable, float, )
PORTABLE_UPDATE(update_f64_portable, double, )

/* Phase 1: the pivot block in place, the textbook order.  Row k and column
 * k do not change at step k (the diagonal is 0), so in place is exact. */
#define CLOSURE(NAME, T)                                                        \
static void NAME(void *cv, int32_t *cp, int B)                                  \
{                                                                               \
	T *restrict c = cv;                                                     \
	for (int k = 0; k < B; k++) {                                           \
		const T *ck = c + (size_t)k * B;                                \
		const int32_t *pk = cp ? cp + (size_t)k * B : NULL;             \
		for (int i = 0; i < B; i++) {                                   \
			T *ci = c + (size_t)i * B, aik = ci[k];                 \
			if (i == k)                                             \
				continue;                                       \
			if (!cp) {                                              \
				for (int j = 0; j < B; j++) {                   \
					T s = aik + ck[j];                      \
					ci[j] = s < ci[j] ? s : ci[j];          \
				}                                               \
				continue;                                       \
			}                                                       \
			int32_t *pi = cp + (size_t)i * B;                       \
			for (int j = 0; j < B; j++) {                           \
				T s = aik + ck[j];                              \
				if (s < ci[j])                                  \
					ci[j] = s, pi[j] = pk[j];               \
			}                                                       \
		}                                                               \
	}                                                                       \
}
CLOSURE(closure_i32, int32_t)
CLOSURE(closure_f32, float)
CLOSURE(closure_f64, double)

/* ---- AVX-512 ---- */

#define INLINE512 static inline __attribute__((always_inline, target("avx512f")))

/* R rows x CW vectors of L lanes, distances only. */
#define AVX512_TILE(NAME, VT, LOAD, STORE, SET1, ADD, MIN, ET, L)               \
INLINE512 void NAME(ET *c, const ET *a, const ET *bk, int B, int i0, int j0,    \
                    const int R, const int CW)                                  \
{                                                                               \
	VT acc[8][4];                                                           \
	_Pragma("GCC unroll 8") for (int r = 0; r < R; r++)                     \
	_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++)                    \
		acc[r][v] = LOAD(c + (size_t)(i0 + r) * B + j0 + L * v);       \
	for (int k = 0; k < B; k++) {                                           \
		VT b[4];                                                        \
		_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++)            \
			b[v] = LOAD(bk + (size_t)k * B + j0 + L * v);          \
		_Pragma("GCC unroll 8") for (int r = 0; r < R; r++) {           \
			VT x = SET1(a[(size_t)(i0 + r) * B + k]);               \
			_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++)    \
				acc[r][v] = MIN(acc[r][v], ADD(x, b[v]));       \
		}                                                               \
	}                                                                       \
	_Pragma("GCC unroll 8") for (int r = 0; r < R; r++)                     \
	_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++)                    \
		STORE(c + (size_t)(i0 + r) * B + j0 + L * v, acc[r][v]);       \
}

/* With predecessors: R rows x CW vectors, a mask picks strict improvements. */
#define AVX512_TILE_PRED(NAME, VT, LOAD, STORE, SET1, ADD, LT, ET)              \
INLINE512 void NAME(ET *c, int32_t *cp, const ET *a, const ET *bk,              \
                    const int32_t *bp, int B, int i0, int j0,                   \
                    const int R, const int CW)                                  \
{                                                                               \
	VT acc[4][4];                                                           \
	__m512i pacc[4][4];                                                     \
	_Pragma("GCC unroll 4") for (int r = 0; r < R; r++)                     \
	_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++) {                  \
		size_t o = (size_t)(i0 + r) * B + j0 + 16 * v;                  \
		acc[r][v] = LOAD(c + o);                                        \
		pacc[r][v] = _mm512_load_si512(cp + o);                         \
	}                                                                       \
	for (int k = 0; k < B; k++) {                                           \
		VT b[4];                                                        \
		__m512i q[4];                                                   \
		_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++) {          \
			b[v] = LOAD(bk + (size_t)k * B + j0 + 16 * v);          \
			q[v] = _mm512_load_si512(bp + (size_t)k * B + j0 + 16 * v); \
		}                                                               \
		_Pragma("GCC unroll 4") for (int r = 0; r < R; r++) {           \
			VT x = SET1(a[(size_t)(i0 + r) * B + k]);               \
			_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++) {  \
				VT s = ADD(x, b[v]);                            \
				__mmask16 m = LT(s, acc[r][v]);                 \
				acc[r][v] = MASKMOV(acc[r][v], m, s);           \
				pacc[r][v] = _mm512_mask_mov_epi32(pacc[r][v], m, q[v]); \
			}                                                       \
		}                                                               \
	}                                                                       \
	_Pragma("GCC unroll 4") for (int r = 0; r < R; r++)                     \
	_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++) {                  \
		size_t o = (size_t)(i0 + r) * B + j0 + 16 * v;                  \
		STORE(c + o, acc[r][v]);                                        \
		_mm512_store_si512(cp + o, pacc[r][v]);                         \
	}                                                                       \
}

#define LD_I512(p) _mm512_load_si512((const void *)(p))
#define STORE_I512(p, x) _mm512_store_si512((void *)(p), x)
#define LT_I512(s, c) _mm512_cmplt_epi32_mask(s, c)
#define LT_F512(s, c) _mm512_cmp_ps_mask(s, c, _CMP_LT_OQ)

#define MASKMOV _mm512_mask_mov_epi32
AVX512_TILE(tile_i32_512, __m512i, LD_I512, STORE_I512, _mm512_set1_epi32,
            _mm512_add_epi32, _mm512_min_epi32, int32_t, 16)
AVX512_TILE_PRED(tilep_i32_512, __m512i, LD_I512, STORE_I512, _mm512_set1_epi32,
                 _mm512_add_epi32, LT_I512, int32_t)
#undef MASKMOV
#define MASKMOV _mm512_mask_mov_ps
AVX512_TILE(tile_f32_512, __m512, _mm512_load_ps, _mm512_store_ps, _mm512_set1_ps,
            _mm512_add_ps, _mm512_min_ps, float, 16)
AVX512_TILE_PRED(tilep_f32_512, __m512, _mm512_load_ps, _mm512_store_ps, _mm512_set1_ps,
                 _mm512_add_ps, LT_F512, float)
#undef MASKMOV
AVX512_TILE(tile_f64_512, __m512d, _mm512_load_pd, _mm512_store_pd, _mm512_set1_pd,
            _mm512_add_pd, _mm512_min_pd, double, 8)

/* 8 int32 predecessors (or intermediates) in 64-bit lanes and back, so
 * that the 8-bit masks of float64 compares move them (AVX-512F alone). */
INLINE512 __m512i ld_i32x8(const int32_t *p)
{
	return _mm512_cvtepi32_epi64(_mm256_load_si256((const __m256i *)p));
}

INLINE512 void st_i32x8(int32_t *p, __m512i x)
{
	_mm256_store_si256((__m256i *)p, _mm512_cvtepi64_epi32(x));
}

/* float64 with predecessors: 8 lanes, the predecessors in 64-bit lanes. */
INLINE512 void tilep_f64_512(double *c, int32_t *cp, const double *a, const double *bk,
                             const int32_t *bp, int B, int i0, int j0, const int R,
                             const int CW)
{
	__m512d acc[4][4];
	__m512i pacc[4][4];
	_Pragma("GCC unroll 4") for (int r = 0; r < R; r++)
	_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++) {
		size_t o = (size_t)(i0 + r) * B + j0 + 8 * v;
		acc[r][v] = _mm512_load_pd(c + o);
		pacc[r][v] = ld_i32x8(cp + o);
	}
	for (int k = 0; k < B; k++) {
		__m512d b[4];
		__m512i q[4];
		_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++) {
			size_t o = (size_t)k * B + j0 + 8 * v;
			b[v] = _mm512_load_pd(bk + o);
			q[v] = ld_i32x8(bp + o);
		}
		_Pragma("GCC unroll 4") for (int r = 0; r < R; r++) {
			__m512d x = _mm512_set1_pd(a[(size_t)(i0 + r) * B + k]);
			_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++) {
				__m512d s = _mm512_add_pd(x, b[v]);
				__mmask8 m = _mm512_cmp_pd_mask(s, acc[r][v], _CMP_LT_OQ);
				acc[r][v] = _mm512_mask_mov_pd(acc[r][v], m, s);
				pacc[r][v] = _mm512_mask_mov_epi64(pacc[r][v], m, q[v]);
			}
		}
	}
	_Pragma("GCC unroll 4") for (int r = 0; r < R; r++)
	_Pragma("GCC unroll 4") for (int v = 0; v < CW; v++) {
		size_t o = (size_t)(i0 + r) * B + j0 + 8 * v;
		_mm512_store_pd(c + o, acc[r][v]);
		st_i32x8(cp + o, pacc[r][v]);
	}
}

/* Whole block: strips of 4 vectors (64 columns of 4-byte elements, 32 of
 * float64) while they fit, then of one. */
#define AVX512_UPDATE(NAME, TILE, TILEP, ET, L)                                 \
T512 static void NAME(void *cv, int32_t *cp, const void *av, const void *bv,    \
                      const int32_t *bp, int B)                                 \
{                                                                               \
	ET *c = cv;                                                             \
	const ET *a = av, *bk = bv;                                             \
	int j0 = 0;                                                             \
	if (!cp) {                                                              \
		for (; j0 + 4 * L <= B; j0 += 4 * L)                            \
			for (int i0 = 0; i0 < B; i0 += 4)                       \
				TILE(c, a, bk, B, i0, j0, 4, 4);                \
		for (; j0 < B; j0 += L)                                         \
			for (int i0 = 0; i0 < B; i0 += 8)                       \
				TILE(c, a, bk, B, i0, j0, 8, 1);                \
		return;                                                         \
	}                                                                       \
	for (; j0 + 4 * L <= B; j0 += 4 * L)                                    \
		for (int i0 = 0; i0 < B; i0 += 2)                               \
			TILEP(c, cp, a, bk, bp, B, i0, j0, 2, 4);               \
	for (; j0 < B; j0 += L)                                                 \
		for (int i0 = 0; i0 < B; i0 += 4)                               \
			TILEP(c, cp, a, bk, bp, B, i0, j0, 4, 1);               \
}
AVX512_UPDATE(update_i32_512, tile_i32_512, tilep_i32_512, int32_t, 16)
AVX512_UPDATE(update_f32_512, tile_f32_512, tilep_f32_512, float, 16)
AVX512_UPDATE(update_f64_512, tile_f64_512, tilep_f64_512, double, 8)

/* ---- AVX2: 8 lanes, 16 registers ---- */

#define T256 __attribute__((target("avx2")))
#define INLINE256 static inline __attribute__((always_inline, target("avx2")))

#define AVX2_TILE(NAME, VT, LOAD, STORE, SET1, ADD, MIN, ET, L)                 \
INLINE256 void NAME(ET *c, const ET *a, const ET *bk, int B, int i0, int j0)    \
{                                                                               \
	VT acc[4][2];                                                           \
	_Pragma("GCC unroll 4") for (int r = 0; r < 4; r++)                     \
	_Pragma("GCC unroll 2") for (int v = 0; v < 2; v++)                     \
		acc[r][v] = LOAD(c + (size_t)(i0 + r) * B + j0 + L * v);        \
	for (int k = 0; k < B; k++) {                                           \
		VT b0 = LOAD(bk + (size_t)k * B + j0);                          \
		VT b1 = LOAD(bk + (size_t)k * B + j0 + L);                      \
		_Pragma("GCC unroll 4") for (int r = 0; r < 4; r++) {           \
			VT x = SET1(a[(size_t)(i0 + r) * B + k]);               \
			acc[r][0] = MIN(acc[r][0], ADD(x, b0));                 \
			acc[r][1] = MIN(acc[r][1], ADD(x, b1));                 \
		}                                                               \
	}                                                                       \
	_Pragma("GCC unroll 4") for (int r = 0; r < 4; r++)                     \
	_Pragma("GCC unroll 2") for (int v = 0; v < 2; v++)                     \
		STORE(c + (size_t)(i0 + r) * B + j0 + L * v, acc[r][v]);        \
}

/* With predecessors: 2 rows x 2 vectors; LTV gives an all-ones lane mask. */
#define AVX2_TILE_PRED(NAME, VT, LOAD, STORE, SET1, ADD, LTV, BLEND, ET)        \
INLINE256 void NAME(ET *c, int32_t *cp, const ET *a, const ET *bk,              \
                    const int32_t *bp, int B, int i0, int j0)                   \
{                                                                               \
	VT acc[2][2];                                                           \
	__m256i pacc[2][2];                                                     \
	_Pragma("GCC unroll 2") for (int r = 0; r < 2; r++)                     \
	_Pragma("GCC unroll 2") for (int v = 0; v < 2; v++) {                   \
		size_t o = (size_t)(i0 + r) * B + j0 + 8 * v;                   \
		acc[r][v] = LOAD(c + o);                                        \
		pacc[r][v] = _mm256_load_si256((const __m256i *)(cp + o));      \
	}                                                                       \
	for (int k = 0; k < B; k++) {                                           \
		VT b[2];                                                        \
		__m256i q[2];                                                   \
		_Pragma("GCC unroll 2") for (int v = 0; v < 2; v++) {           \
			b[v] = LOAD(bk + (size_t)k * B + j0 + 8 * v);           \
			q[v] = _mm256_load_si256((const __m256i *)(bp + (size_t)k * B + j0 + 8 * v)); \
		}                                                               \
		_Pragma("GCC unroll 2") for (int r = 0; r < 2; r++) {           \
			VT x = SET1(a[(size_t)(i0 + r) * B + k]);               \
			_Pragma("GCC unroll 2") for (int v = 0; v < 2; v++) {   \
				VT s = ADD(x, b[v]);                            \
				__m256i m = LTV(s, acc[r][v]);                  \
				acc[r][v] = BLEND(acc[r][v], s, m);             \
				pacc[r][v] = _mm256_blendv_epi8(pacc[r][v], q[v], m); \
			}                                                       \
		}                                                               \
	}                                                                       \
	_Pragma("GCC unroll 2") for (int r = 0; r < 2; r++)                     \
	_Pragma("GCC unroll 2") for (int v = 0; v < 2; v++) {                   \
		size_t o = (size_t)(i0 + r) * B + j0 + 8 * v;                   \
		STORE(c + o, acc[r][v]);                                        \
		_mm256_store_si256((__m256i *)(cp + o), pacc[r][v]);            \
	}                                                                       \
}

#define LD_I256(p) _mm256_load_si256((const __m256i *)(p))
#define STORE_I256(p, x) _mm256_store_si256((__m256i *)(p), x)
#define LT_I256(s, c) _mm256_cmpgt_epi32(c, s)
#define LT_F256(s, c) _mm256_castps_si256(_mm256_cmp_ps(s, c, _CMP_LT_OQ))
#define BLEND_I256(x, y, m) _mm256_blendv_epi8(x, y, m)
#define BLEND_F256(x, y, m) _mm256_blendv_ps(x, y, _mm256_castsi256_ps(m))

AVX2_TILE(tile_i32_256, __m256i, LD_I256, STORE_I256, _mm256_set1_epi32,
          _mm256_add_epi32, _mm256_min_epi32, int32_t, 8)
AVX2_TILE(tile_f32_256, __m256, _mm256_load_ps, _mm256_store_ps, _mm256_set1_ps,
          _mm256_add_ps, _mm256_min_ps, float, 8)
AVX2_TILE(tile_f64_256, __m256d, _mm256_load_pd, _mm256_store_pd, _mm256_set1_pd,
          _mm256_add_pd, _mm256_min_pd, double, 4)
AVX2_TILE_PRED(tilep_i32_256, __m256i, LD_I256, STORE_I256, _mm256_set1_epi32,
               _mm256_add_epi32, LT_I256, BLEND_I256, int32_t)
AVX2_TILE_PRED(tilep_f32_256, __m256, _mm256_load_ps, _mm256_store_ps, _mm256_set1_ps,
               _mm256_add_ps, LT_F256, BLEND_F256, float)

#define AVX2_UPDATE(NAME, TILE, TILEP, ET)                                      \
T256 static void NAME(void *cv, int32_t *cp, const void *av, const void *bv,    \
                      const int32_t *bp, int B)                                 \
{                                                                               \
	ET *c = cv;                                                             \
	const ET *a = av, *bk = bv;                                             \
	for (int j0 = 0; j0 < B; j0 += 16)                                      \
		for (int i0 = 0; i0 < B; i0 += cp ? 2 : 4) {                    \
			if (cp)                                                 \
				TILEP(c, cp, a, bk, bp, B, i0, j0);             \
			else                                                    \
				TILE(c, a, bk, B, i0, j0);                      \
		}                                                               \
}
AVX2_UPDATE(update_i32_256, tile_i32_256, tilep_i32_256, int32_t)
AVX2_UPDATE(update_f32_256, tile_f32_256, tilep_f32_256, float)

/* float64: strips of 8 columns; with predecessors the portable loop, which
 * the compiler makes AVX2 vectors of. */
PORTABLE_UPDATE(update_f64_256_pred, double, T256)
T256 static void update_f64_256(void *cv, int32_t *cp, const void *av, const void *bv,
                                const int32_t *bp, int B)
{
	if (cp) {
		update_f64_256_pred(cv, cp, av, bv, bp, B);
		return;
	}
	for (int j0 = 0; j0 < B; j0 += 8)
		for (int i0 = 0; i0 < B; i0 += 4)
			tile_f64_256(cv, av, bv, B, i0, j0);
}

/* ---- textbook predecessors ---- */

/* With fw_opts.textbook_paths: beside each distance, the largest
 * intermediate vertex m of its path (-1: the edge itself), and a sum
 * replaces an entry when it is shorter, or as short with a smaller m.
 * Among shortest paths that keeps the one whose largest intermediate
 * vertex is smallest, which is the path the textbook order (pivots one at a
 * time, strict improvements) keeps, whatever the blocked order.  kbase is
 * the number of the round's first pivot.  Plain C, built for AVX-512,
 * AVX2 and the baseline and taken where the processor has them. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TB_VECTORS __attribute__((target_clones("arch=x86-64-v4", "avx2", "default"), optimize("O3", "no-trapping-math")))
#else
#define TB_VECTORS
#endif

#define TEXTBOOK_UPDATE(NAME, T)                                                \
TB_VECTORS static void NAME(void *cv, int32_t *cm, const void *av,              \
                            const int32_t *am, const void *bv, const int32_t *bm, \
                            int32_t kbase, int B)                               \
{                                                                               \
	T *restrict c = cv;                                                     \
	const T *restrict a = av, *restrict bk = bv;                            \
	for (int i = 0; i < B; i++) {                                           \
		T *restrict ci = c + (size_t)i * B;                             \
		int32_t *restrict mi = cm + (size_t)i * B;                      \
		for (int k = 0; k < B; k++) {                                   \
			const T aik = a[(size_t)i * B + k];                     \
			const int32_t x = am[(size_t)i * B + k];                \
			const int32_t mik = x > kbase + k ? x : kbase + k;      \
			const T *restrict bkk = bk + (size_t)k * B;             \
			const int32_t *restrict mk = bm + (size_t)k * B;        \
			for (int j = 0; j < B; j++) {                           \
				const T s = aik + bkk[j];                       \
				const int32_t m = mk[j] > mik ? mk[j] : mik;    \
				const int better = s < ci[j] || (s == ci[j] && m < mi[j]); \
				ci[j] = better ? s : ci[j];                     \
				mi[j] = better ? m : mi[j];                     \
			}                                                       \
		}                                                               \
	}                                                                       \
}

/* Phase 1 in place, the textbook order (see CLOSURE). */
#define TEXTBOOK_CLOSURE(NAME, T)                                               \
static void NAME(void *cv, int32_t *cm, int32_t kbase, int B)                   \
{                                                                               \
	T *restrict c = cv;                                                     \
	for (int k = 0; k < B; k++) {                                           \
		const T *ck = c + (size_t)k * B;                                \
		const int32_t *mk = cm + (size_t)k * B;                         \
		for (int i = 0; i < B; i++) {                                   \
			if (i == k)                                             \
				continue;                                       \
			T *ci = c + (size_t)i * B, aik = ci[k];                 \
			int32_t *mi = cm + (size_t)i * B;                       \
			int32_t mik = mi[k] > kbase + k ? mi[k] : kbase + k;    \
			for (int j = 0; j < B; j++) {                           \
				T s = aik + ck[j];                              \
				int32_t m = mk[j] > mik ? mk[j] : mik;          \
				if (s < ci[j] || (s == ci[j] && m < mi[j]))     \
					ci[j] = s, mi[j] = m;                   \
			}                                                       \
		}                                                               \
	}                                                                       \
}
TEXTBOOK_UPDATE(tb_update_i32, int32_t)
TEXTBOOK_UPDATE(tb_update_f32, float)
TEXTBOOK_UPDATE(tb_update_f64, double)
TEXTBOOK_CLOSURE(tb_closure_i32, int32_t)
TEXTBOOK_CLOSURE(tb_closure_f32, float)
TEXTBOOK_CLOSURE(tb_closure_f64, double)

/* float64 in AVX-512: 4 rows of 16 columns (two vectors) in registers,
 * the intermediates in 64-bit lanes so that the same 8-bit masks move them
 * (AVX-512F alone). */
T512 static void tb_update_f64_512(void *cv, int32_t *cm, const void *av, const int32_t *am,
                                   const void *bv, const int32_t *bm, int32_t kbase, int B)
{
	double *c = cv;
	const double *a = av, *bk = bv;
	for (int j0 = 0; j0 < B; j0 += 16)
		for (int i0 = 0; i0 < B; i0 += 4) {
			__m512d acc[4][2];
			__m512i macc[4][2];
			for (int r = 0; r < 4; r++)
				for (int v = 0; v < 2; v++) {
					size_t o = (size_t)(i0 + r) * B + j0 + 8 * v;
					acc[r][v] = _mm512_load_pd(c + o);
					macc[r][v] = ld_i32x8(cm + o);
				}
			for (int k = 0; k < B; k++) {
				__m512d b[2];
				__m512i mb[2];
				for (int v = 0; v < 2; v++) {
					size_t o = (size_t)k * B + j0 + 8 * v;
					b[v] = _mm512_load_pd(bk + o);
					mb[v] = ld_i32x8(bm + o);
				}
				for (int r = 0; r < 4; r++) {
					const int32_t x = am[(size_t)(i0 + r) * B + k];
					const __m512i mik = _mm512_set1_epi64(x > kbase + k ? x : kbase + k);
					const __m512d aik = _mm512_set1_pd(a[(size_t)(i0 + r) * B + k]);
					for (int v = 0; v < 2; v++) {
						const __m512d sum = _mm512_add_pd(aik, b[v]);
						const __m512i mm = _mm512_max_epi64(mb[v], mik);
						const __mmask8 lt = _mm512_cmp_pd_mask(sum, acc[r][v], _CMP_LT_OQ);
						const __mmask8 eq = _mm512_cmp_pd_mask(sum, acc[r][v], _CMP_EQ_OQ);
						const __mmask8 better = lt | _mm512_mask_cmplt_epi64_mask(eq, mm, macc[r][v]);
						acc[r][v] = _mm512_mask_mov_pd(acc[r][v], better, sum);
						macc[r][v] = _mm512_mask_mov_epi64(macc[r][v], better, mm);
					}
				}
			}
			for (int r = 0; r < 4; r++)
				for (int v = 0; v < 2; v++) {
					size_t o = (size_t)(i0 + r) * B + j0 + 8 * v;
					_mm512_store_pd(c + o, acc[r][v]);
					st_i32x8(cm + o, macc[r][v]);
				}
		}
}

void fwc_textbook_kernels(uint32_t type, enum fw_simd simd, fwc_textbook_update_fn **update,
                          fwc_textbook_closure_fn **closure)
{
	*update = type == ST_FLOAT64 ? (simd == FW_SIMD_AVX512 ? tb_update_f64_512 : tb_update_f64)
	          : type == ST_FLOAT32 ? tb_update_f32 : tb_update_i32;
	*closure = type == ST_FLOAT64 ? tb_closure_f64 : type == ST_FLOAT32 ? tb_closure_f32 : tb_closure_i32;
}

/* ---- dispatch ---- */

enum fw_simd fw_simd_detect(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return FW_SIMD_AVX512;
	if (__builtin_cpu_supports("avx2"))
		return FW_SIMD_AVX2;
	return FW_SIMD_PORTABLE;
}

const char *fw_simd_name(enum fw_simd s)
{
	switch (s) {
	case FW_SIMD_AVX512: return "avx512";
	case FW_SIMD_AVX2: return "avx2";
	case FW_SIMD_PORTABLE: return "portable";
	default: return "auto";
	}
}

fwc_update_fn *fwc_update_kernel(enum fw_simd simd, uint32_t type)
{
	static fwc_update_fn *const k[3][3] = {
		{update_i32_portable, update_f32_portable, update_f64_portable},
		{update_i32_256, update_f32_256, update_f64_256},
		{update_i32_512, update_f32_512, update_f64_512},
	};
	int level = simd == FW_SIMD_AVX512 ? 2 : simd == FW_SIMD_AVX2 ? 1 : 0;
	return k[level][type == ST_FLOAT64 ? 2 : type == ST_FLOAT32];
}

fwc_closure_fn *fwc_closure_kernel(uint32_t type)
{
	return type == ST_FLOAT64 ? closure_f64 : type == ST_FLOAT32 ? closure_f32 : closure_i32;
}
